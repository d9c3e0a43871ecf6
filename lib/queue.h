/* SPDX-License-Identifier: GPL-2.0 */
/* The per-client queue policy.  A queue holds at most cap events and
 * max_bytes bytes; pushing never blocks.  An event that does not fit is
 * dropped and counted.  Once there is room again for the notice and the
 * event, a "lost" record naming the count and the seq range is queued
 * ahead of the next event, so loss is never silent and never reordered. */
#ifndef KW_QUEUE_H
#define KW_QUEUE_H

#include <stddef.h>
#include <stdint.h>

#include "event.h"

/* Builds the lost record for count events, seqs first..last. */
typedef struct ev_buf *(*cq_lost_fn)(uint64_t count, uint64_t first, uint64_t last,
				     void *userdata);

struct cq {
	struct ev_buf **ring;
	unsigned int cap, head, count;
	size_t bytes, max_bytes;
	size_t off;			/* bytes of the head event already sent */
	uint64_t pending_lost;		/* dropped, not yet announced */
	uint64_t lost_first, lost_last;
	uint64_t dropped_total, sent_total;
	cq_lost_fn make_lost;
	void *userdata;
	/* The sent window (cq_keep_sent): events written whole that the
	 * reader may not have read yet, and where each ends in the bytes
	 * written on this connection. */
	struct ev_buf **win;
	uint64_t *win_end;
	uint64_t *win_read_at;		/* when seen read; 0: not yet */
	unsigned int win_cap, win_head, win_count;
	unsigned int win_read;		/* from the head, seen read */
	uint64_t grace;			/* kept this long after being read */
	uint64_t written;		/* bytes written on this connection */
	uint64_t resent_total;		/* events sent again after a loss */
	uint64_t unprotected_total;	/* left the window unread-or-not */
	/* Events that left a full window before they were seen read: lost
	 * should the reader go before the count says it read them. */
	uint64_t risk_n, risk_first, risk_last;
	uint64_t risk_end;		/* where the last of them ends in written */
};

int cq_init(struct cq *q, unsigned int cap, size_t max_bytes, cq_lost_fn fn, void *userdata);
void cq_done(struct cq *q);
/* 0 if queued (takes a reference), -ENOBUFS if dropped and counted. */
int cq_push(struct cq *q, struct ev_buf *b);
/* The unsent bytes of the head event; 0 when empty. */
size_t cq_peek(struct cq *q, const char **ret);
/* Up to max iovecs over the queued events from the head's unsent bytes
 * on, for one writev(); returns how many were filled (0 when empty). */
struct iovec;
unsigned int cq_peek_iov(struct cq *q, struct iovec *iov, unsigned int max);
/* n bytes of the head were sent. */
void cq_advance(struct cq *q, size_t n);
/* Announce pending loss now if there is room (e.g. after draining). */
void cq_flush_lost(struct cq *q);

/* Keep up to cap events written whole until cq_ack() says the reader has
 * read them, and grace (in the unit of cq_ack()'s now) has passed since
 * (a push target: a collector that dies loses what was still in its
 * socket, and what it had read but not yet written out).  0 or -ENOMEM. */
int cq_keep_sent(struct cq *q, unsigned int cap, uint64_t grace);
/* At now (> 0, monotonic), unread bytes of this connection are still in
 * the socket or pipe (an upper bound: SIOCOUTQ counts the kernel's
 * buffers): the events that end before them were read, and those read
 * grace ago or more leave the window. */
void cq_ack(struct cq *q, uint64_t unread, uint64_t now);
/* A reader that cannot say what it read: what was written counts as read
 * and leaves the window now. */
void cq_ack_all(struct cq *q);
/* The connection went: the window's events go back to the front of the
 * queue, in order, to be written again on the next one, and the head's
 * partly written bytes are written again whole.  Returns how many came
 * back.  What cannot (events that left a full window unread, those that
 * no longer fit) is dropped and said by a lost record ahead of them, in
 * a slot of its own (the oldest queued event makes room if need be). */
unsigned int cq_requeue_sent(struct cq *q);
/* We closed the connection: the reader still reads what it holds, so the
 * window empties; the head is written again whole on the next one. */
void cq_forget_sent(struct cq *q);

#endif
