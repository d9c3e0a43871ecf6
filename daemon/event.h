/* SPDX-License-Identifier: GPL-2.0 */
/* Event encoding: one NDJSON line per event, at most KW_EVENT_MAX bytes
 * including the newline.  Every line starts with the envelope: schema,
 * start_id, seq, id, timestamp (RFC 3339, nanoseconds, UTC), host, boot_id
 * and type; the payload fields follow.  docs/event-schema.md has the rules,
 * docs/event-schema.json every type. */
#ifndef KW_EVENT_H
#define KW_EVENT_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include <json-c/json.h>

#define KW_EVENT_MAX 32768
/* The version of the stream's schema; a change that renames, retypes or
 * removes a field raises it. */
#define KW_EVENT_SCHEMA 1

/* An encoded event, shared by reference between client queues. */
struct ev_buf {
	unsigned int refs;
	uint64_t seq;
	size_t len;		/* bytes in data, the final '\n' included */
	int type_index;		/* in kw_journal_types, for subscriptions; -1: none */
	char data[];
};

struct ev_buf *ev_buf_new(uint64_t seq, const char *data, size_t len);
struct ev_buf *ev_buf_ref(struct ev_buf *b);
struct ev_buf *ev_buf_unref(struct ev_buf *b);

struct kw_event_ctx {
	uint64_t seq;		/* last seq assigned; the first event is 1 */
	uint64_t asides;	/* per-client records so far (replies, lost) */
	char host[256];
	char boot_id[40];
	char start_id[40];	/* a random UUID for this daemon start */
	/* For tests: a fixed clock instead of CLOCK_REALTIME when set. */
	const struct timespec *fixed_time;
};

void kw_event_ctx_init(struct kw_event_ctx *c);

/* Payload builders: each returns 0 or a negative errno.  Strings are made
 * valid UTF-8 (invalid bytes become U+FFFD) before they are stored. */
json_object *kw_event_new(const char *type);
/* A "lost" record, in its one shape: source, count (events this record
 * reports), total (from this source since the start), first_seq and
 * last_seq (the stream positions it stands in for; 0 and 0 when the
 * events were lost before they had one), client (0 the push target, N a
 * socket client, -1 every consumer). */
json_object *kw_event_lost(const char *source, uint64_t count, uint64_t total,
			   uint64_t first_seq, uint64_t last_seq, int64_t client);
int kw_event_add_str(json_object *ev, const char *key, const char *val);
int kw_event_add_int(json_object *ev, const char *key, int64_t val);
int kw_event_add_u64(json_object *ev, const char *key, uint64_t val);
int kw_event_add_bool(json_object *ev, const char *key, int val);
/* "errno" (the positive number) and "error" (its name), together: err may
 * be negative or positive. */
int kw_event_add_errno(json_object *ev, int err);

/* Assign the next seq (or reuse_seq when non-zero: replies and per-client
 * lost records stand in for an existing position in the stream), add the
 * envelope and serialise.  The id is "<start_id>-<seq>" for a stream
 * position and "<start_id>-<seq>.<n>" for the n-th per-client record, so
 * it is unique per event.  Takes ownership of ev.  Lines that would
 * exceed KW_EVENT_MAX carry "truncated":true and have their biggest member
 * cut, again and again: a string halved, an array's second half dropped
 * (counted in "<key>_omitted"), an object's biggest member cut in turn. */
int kw_event_encode(struct kw_event_ctx *c, json_object *ev, uint64_t reuse_seq,
		    struct ev_buf **ret);

/* Sanitise s (len bytes) to valid UTF-8 without NULs into a malloc'ed
 * string. */
char *kw_utf8_sanitize(const char *s, size_t len);

/* Format ts as RFC 3339 UTC with nanoseconds into buf (>= 32 bytes). */
void kw_rfc3339(const struct timespec *ts, char *buf, size_t n);

#endif
