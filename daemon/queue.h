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
};

int cq_init(struct cq *q, unsigned int cap, size_t max_bytes, cq_lost_fn fn, void *userdata);
void cq_done(struct cq *q);
/* 0 if queued (takes a reference), -ENOBUFS if dropped and counted. */
int cq_push(struct cq *q, struct ev_buf *b);
/* The unsent bytes of the head event; 0 when empty. */
size_t cq_peek(struct cq *q, const char **ret);
/* n bytes of the head were sent. */
void cq_advance(struct cq *q, size_t n);
/* Announce pending loss now if there is room (e.g. after draining). */
void cq_flush_lost(struct cq *q);

#endif
