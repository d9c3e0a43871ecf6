// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

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

void cq_done(struct cq *q)
{
	while (q->count) {
		ev_buf_unref(q->ring[q->head]);
		q->head = (q->head + 1) % q->cap;
		q->count--;
	}
	free(q->ring);
	q->ring = NULL;
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

void cq_advance(struct cq *q, size_t n)
{
	struct ev_buf *b;

	while (n && q->count) {
		size_t left;

		b = q->ring[q->head];
		left = b->len - q->off;
		if (n < left) {
			q->off += n;
			return;
		}
		n -= left;
		q->off = 0;
		q->bytes -= b->len;
		ev_buf_unref(b);
		q->head = (q->head + 1) % q->cap;
		q->count--;
		q->sent_total++;
	}
}

void cq_flush_lost(struct cq *q)
{
	announce(q, 0, 0);
}
