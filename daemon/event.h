/* SPDX-License-Identifier: GPL-2.0 */
/* Event encoding: one NDJSON line per event, at most KW_EVENT_MAX bytes
 * including the newline.  Every line starts with seq, timestamp (RFC 3339,
 * nanoseconds, UTC), host, boot_id and type; the payload fields follow. */
#ifndef KW_EVENT_H
#define KW_EVENT_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include <json-c/json.h>

#define KW_EVENT_MAX 32768

/* An encoded event, shared by reference between client queues. */
struct ev_buf {
	unsigned int refs;
	uint64_t seq;
	size_t len;		/* bytes in data, the final '\n' included */
	char data[];
};

struct ev_buf *ev_buf_new(uint64_t seq, const char *data, size_t len);
struct ev_buf *ev_buf_ref(struct ev_buf *b);
struct ev_buf *ev_buf_unref(struct ev_buf *b);

struct kw_event_ctx {
	uint64_t seq;		/* last seq assigned; the first event is 1 */
	char host[256];
	char boot_id[40];
	/* For tests: a fixed clock instead of CLOCK_REALTIME when set. */
	const struct timespec *fixed_time;
};

void kw_event_ctx_init(struct kw_event_ctx *c);

/* Payload builders: each returns 0 or a negative errno.  Strings are made
 * valid UTF-8 (invalid bytes become U+FFFD) before they are stored. */
json_object *kw_event_new(const char *type);
int kw_event_add_str(json_object *ev, const char *key, const char *val);
int kw_event_add_int(json_object *ev, const char *key, int64_t val);
int kw_event_add_u64(json_object *ev, const char *key, uint64_t val);
int kw_event_add_bool(json_object *ev, const char *key, int val);

/* Assign the next seq (or reuse_seq when non-zero: replies and per-client
 * lost records stand in for an existing position in the stream), add the
 * common fields and serialise.  Takes ownership of ev.  Lines that would
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
