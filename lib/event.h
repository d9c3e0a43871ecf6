/* SPDX-License-Identifier: GPL-2.0 */
/* Event encoding: one NDJSON line per event, at most KW_EVENT_MAX bytes
 * including the newline.  Every line starts with the envelope: schema,
 * start_id, seq, id, timestamp (RFC 3339, nanoseconds, UTC), host, boot_id
 * and type; the payload fields follow.  docs/event-schema.md has the rules,
 * docs/event-schema.json every type. */
#ifndef KW_EVENT_H
#define KW_EVENT_H

#include <stddef.h>
#include <stdbool.h>
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
	int type_index;		/* in kw_journal_types (set by the encoders), for
				 * subscriptions and the journal; -1: none */
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
/* s (len bytes) is valid UTF-8 with no NUL: kw_utf8_sanitize would keep it. */
bool kw_utf8_valid(const char *s, size_t len);

/* The envelope of a line at seq (aside: the n of a per-client record, or
 * 0), "{...,"boot_id":"...",", into buf; its length, or 0 when the
 * context's strings need escaping or it does not fit (the caller then
 * takes kw_event_encode's general path). */
#define KW_ENVELOPE_MAX 512
size_t kw_event_envelope(const struct kw_event_ctx *c, uint64_t seq, uint64_t aside,
			 const struct timespec *now, char *buf, size_t n);
/* A line of stream position seq: a, then b, then a newline. */
struct ev_buf *kw_event_line(uint64_t seq, const char *a, size_t alen, const char *b,
			     size_t blen);

/*
 * Events made per record on a hot path (a ring buffer's samples) are
 * written as text, without a json-c object: kw_evtext_begin(), then fields
 * in order, then kw_event_encode_text().  The line is byte for byte the
 * one kw_event_new(), the kw_event_add_* calls and kw_event_encode() would
 * give (strings made valid UTF-8 and escaped as json-c does).  From the
 * first field that does not fit buf on, the fields are a json-c object,
 * and the line is kw_event_encode()'s (cut past KW_EVENT_MAX, as any).
 */
struct kw_evtext {
	const char *type;
	int type_index;		/* in kw_journal_types, or -1 */
	size_t len;
	bool ok;		/* false once a field was lost (no memory) */
	bool full;		/* a field did not fit buf: for spill() */
	json_object *obj;	/* the fields, once one did not fit buf */
	char buf[4096];
};

void kw_evtext_begin(struct kw_evtext *t, const char *type);
void kw_evtext_str(struct kw_evtext *t, const char *key, const char *val);
/* At most len bytes of val (a fixed-size field the kernel may not end). */
void kw_evtext_strn(struct kw_evtext *t, const char *key, const char *val, size_t len);
void kw_evtext_u64(struct kw_evtext *t, const char *key, uint64_t val);
void kw_evtext_int(struct kw_evtext *t, const char *key, int64_t val);
/* The payload as a json-c object (for the journal), or NULL. */
json_object *kw_evtext_object(struct kw_evtext *t);
/* kw_event_encode() of the payload t, a new stream position; -ENOMEM
 * when a field was lost. */
int kw_event_encode_text(struct kw_event_ctx *c, struct kw_evtext *t, struct ev_buf **ret);
/* Frees the object a field too big for buf made; t may be begun again. */
void kw_evtext_done(struct kw_evtext *t);

/* Format ts as RFC 3339 UTC with nanoseconds into buf (>= 32 bytes). */
void kw_rfc3339(const struct timespec *ts, char *buf, size_t n);

#endif
