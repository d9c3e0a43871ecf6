// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "queue.h"

int cq_init(struct cq *q, unsigned int cap, size_t max_bytes, cq_lost_fn fn, void *userdata)
{
	memset(q, 0, sizeof(*q));
	if (cap < 2 || max_bytes < 2 * KW_EVENT_MAX)
		return -EINVAL;
	q->ring = calloc(cap, sizeof(*q->ring));
	if (!q->ring)
		return -ENOMEM;
	q->cap = cap;
	q->max_bytes = max_bytes;
	q->make_lost = fn;
	q->userdata = userdata;
	return 0;
}

static void win_pop(struct cq *q)
{
	ev_buf_unref(q->win[q->win_head]);
	q->win_head = (q->win_head + 1) % q->win_cap;
	q->win_count--;
	if (q->win_read)
		q->win_read--;
}

void cq_done(struct cq *q)
{
	while (q->count) {
		ev_buf_unref(q->ring[q->head]);
		q->head = (q->head + 1) % q->cap;
		q->count--;
	}
	while (q->win_count)
		win_pop(q);
	free(q->ring);
	free(q->win);
	free(q->win_end);
	free(q->win_read_at);
	q->ring = NULL;
	q->win = NULL;
	q->win_end = NULL;
	q->win_read_at = NULL;
}

int cq_keep_sent(struct cq *q, unsigned int cap, uint64_t grace)
{
	q->win = calloc(cap, sizeof(*q->win));
	q->win_end = calloc(cap, sizeof(*q->win_end));
	q->win_read_at = calloc(cap, sizeof(*q->win_read_at));
	if (!q->win || !q->win_end || !q->win_read_at) {
		free(q->win);
		free(q->win_end);
		free(q->win_read_at);
		q->win = NULL;
		q->win_end = NULL;
		q->win_read_at = NULL;
		return -ENOMEM;
	}
	q->win_cap = cap;
	q->grace = grace;
	return 0;
}

static void risk_add(struct cq *q, uint64_t seq, uint64_t end)
{
	if (!q->risk_n)
		q->risk_first = seq;
	q->risk_last = seq;
	q->risk_end = end;
	q->risk_n++;
}

/* b was written whole: into the window, the oldest out if it is full. */
static void win_push(struct cq *q, struct ev_buf *b)
{
	if (!q->win_cap) {
		ev_buf_unref(b);
		return;
	}
	if (q->win_count == q->win_cap) {
		struct ev_buf *old = q->win[q->win_head];

		/* Not seen read: gone should the reader go before it is. */
		if (!q->win_read)
			risk_add(q, old->seq, q->win_end[q->win_head]);
		win_pop(q);
		q->unprotected_total++;
	}
	q->win[(q->win_head + q->win_count) % q->win_cap] = b;
	q->win_end[(q->win_head + q->win_count) % q->win_cap] = q->written;
	q->win_read_at[(q->win_head + q->win_count) % q->win_cap] = 0;
	q->win_count++;
}

void cq_ack(struct cq *q, uint64_t unread, uint64_t now)
{
	uint64_t read = unread < q->written ? q->written - unread : 0;

	if (q->risk_n && read >= q->risk_end)
		q->risk_n = 0;
	/* Newly read: stamped now.  The stamps grow from the head on. */
	while (q->win_read < q->win_count) {
		unsigned int i = (q->win_head + q->win_read) % q->win_cap;

		if (q->win_end[i] > read)
			break;
		q->win_read_at[i] = now;
		q->win_read++;
	}
	while (q->win_read && q->win_read_at[q->win_head] + q->grace <= now)
		win_pop(q);
}

void cq_ack_all(struct cq *q)
{
	q->risk_n = 0;
	while (q->win_count)
		win_pop(q);
}

void cq_forget_sent(struct cq *q)
{
	q->off = 0;
	q->written = 0;
	cq_ack_all(q);
	q->win_head = 0;
}

/* b goes in front of the head. */
static void put_front(struct cq *q, struct ev_buf *b)
{
	q->head = (q->head + q->cap - 1) % q->cap;
	q->ring[q->head] = b;
	q->count++;
	q->bytes += b->len;
}

unsigned int cq_requeue_sent(struct cq *q)
{
	unsigned int n = 0, keep = q->win_count, room = q->cap - q->count;
	struct ev_buf *lost;

	/* The head is written again from its start on the next connection. */
	q->off = 0;
	q->written = 0;
	/* What does not come back is said in a slot of its own, first. */
	if (keep > room || (q->risk_n && keep == room))
		keep = room ? room - 1 : 0;
	while (q->win_count > keep) {
		unsigned int i = q->win_head;

		risk_add(q, q->win[i]->seq, 0);
		win_pop(q);
		q->unprotected_total++;
	}
	if (q->risk_n && !room) {
		/* Not a slot left: the oldest queued event follows the
		 * window's, and goes with them. */
		struct ev_buf *b = q->ring[q->head];

		risk_add(q, b->seq, 0);
		q->head = (q->head + 1) % q->cap;
		q->count--;
		q->bytes -= b->len;
		ev_buf_unref(b);
	}
	while (q->win_count) {
		/* The newest first, each in front of the head. */
		unsigned int last = (q->win_head + q->win_count - 1) % q->win_cap;

		q->win_count--;
		put_front(q, q->win[last]);
		q->resent_total++;
		n++;
	}
	q->win_head = 0;
	q->win_read = 0;
	if (!q->risk_n)
		return n;
	q->dropped_total += q->risk_n;
	lost = q->make_lost ? q->make_lost(q->risk_n, q->risk_first, q->risk_last,
					   q->userdata) : NULL;
	if (lost) {
		put_front(q, lost);
	} else {
		/* Said with the next drops, then (out of memory). */
		if (!q->pending_lost)
			q->lost_first = q->risk_first;
		if (q->risk_last > q->lost_last)
			q->lost_last = q->risk_last;
		q->pending_lost += q->risk_n;
	}
	q->risk_n = 0;
	return n;
}

static bool fits(const struct cq *q, unsigned int n, size_t bytes)
{
	return q->count + n <= q->cap && q->bytes + bytes <= q->max_bytes;
}

static void put(struct cq *q, struct ev_buf *b)
{
	q->ring[(q->head + q->count) % q->cap] = b;
	q->count++;
	q->bytes += b->len;
}

/* Room for the lost record (and extra bytes after it)? Queue it. */
static void announce(struct cq *q, size_t extra, unsigned int extra_n)
{
	struct ev_buf *lost;

	if (!q->pending_lost || !q->make_lost)
		return;
	/* A lost record is small; 512 bytes is a generous bound. */
	if (!fits(q, 1 + extra_n, 512 + extra))
		return;
	lost = q->make_lost(q->pending_lost, q->lost_first, q->lost_last, q->userdata);
	if (!lost)
		return;
	put(q, lost);
	q->pending_lost = 0;
}

int cq_push(struct cq *q, struct ev_buf *b)
{
	announce(q, b->len, 1);
	if (q->pending_lost || !fits(q, 1, b->len)) {
		if (!q->pending_lost)
			q->lost_first = b->seq;
		q->lost_last = b->seq;
		q->pending_lost++;
		q->dropped_total++;
		return -ENOBUFS;
	}
	put(q, ev_buf_ref(b));
	return 0;
}

size_t cq_peek(struct cq *q, const char **ret)
{
	struct ev_buf *b;

	if (!q->count)
		return 0;
	b = q->ring[q->head];
	*ret = b->data + q->off;
	return b->len - q->off;
}

unsigned int cq_peek_iov(struct cq *q, struct iovec *iov, unsigned int max)
{
	unsigned int i;

	for (i = 0; i < max && i < q->count; i++) {
		struct ev_buf *b = q->ring[(q->head + i) % q->cap];
		size_t off = i ? 0 : q->off;

		iov[i].iov_base = b->data + off;
		iov[i].iov_len = b->len - off;
	}
	return i;
}

void cq_advance(struct cq *q, size_t n)
{
	struct ev_buf *b;

	while (n && q->count) {
		size_t left;

		b = q->ring[q->head];
		left = b->len - q->off;
		if (n < left) {
			q->off += n;
			q->written += n;
			return;
		}
		n -= left;
		q->written += left;
		q->off = 0;
		q->bytes -= b->len;
		win_push(q, b);
		q->head = (q->head + 1) % q->cap;
		q->count--;
		q->sent_total++;
	}
}

void cq_flush_lost(struct cq *q)
{
	announce(q, 0, 0);
}
