// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdbool.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "event.h"
#include "journal.h"
#include "util.h"

struct ev_buf *ev_buf_new(uint64_t seq, const char *data, size_t len)
{
	struct ev_buf *b = malloc(sizeof(*b) + len + 1);

	if (!b)
		return NULL;
	b->refs = 1;
	b->seq = seq;
	b->type_index = -1;
	b->len = len;
	memcpy(b->data, data, len);
	b->data[len] = '\0';
	return b;
}

struct ev_buf *ev_buf_ref(struct ev_buf *b)
{
	if (b)
		b->refs++;
	return b;
}

struct ev_buf *ev_buf_unref(struct ev_buf *b)
{
	if (b && --b->refs == 0)
		free(b);
	return NULL;
}

void kw_event_ctx_init(struct kw_event_ctx *c)
{
	_cleanup_free_ char *id = NULL;

	memset(c, 0, sizeof(*c));
	if (gethostname(c->host, sizeof(c->host) - 1) < 0)
		strcpy(c->host, "localhost");
	if (kw_read_file("/proc/sys/kernel/random/boot_id", 64, &id, NULL) == 0) {
		id[strcspn(id, "\n")] = '\0';
		kw_strlcpy(c->boot_id, id, sizeof(c->boot_id));
	}
	free(id);
	id = NULL;
	if (kw_read_file("/proc/sys/kernel/random/uuid", 64, &id, NULL) == 0) {
		id[strcspn(id, "\n")] = '\0';
		kw_strlcpy(c->start_id, id, sizeof(c->start_id));
	} else {
		struct timespec t;

		clock_gettime(CLOCK_REALTIME, &t);
		snprintf(c->start_id, sizeof(c->start_id), "%lld-%ld-%d",
			 (long long)t.tv_sec, t.tv_nsec, (int)getpid());
	}
}

/* "YYYY-MM-DDTHH:MM:SS" of sec: every event has one, made once a second. */
static const char *date_base(time_t sec)
{
	static __thread char base[24];
	static __thread time_t base_sec = -1;
	struct tm tm;

	if (sec != base_sec) {
		gmtime_r(&sec, &tm);
		strftime(base, sizeof(base), "%Y-%m-%dT%H:%M:%S", &tm);
		base_sec = sec;
	}
	return base;
}

void kw_rfc3339(const struct timespec *ts, char *buf, size_t n)
{
	snprintf(buf, n, "%s.%09ldZ", date_base(ts->tv_sec), ts->tv_nsec);
}

/* Length of the valid UTF-8 sequence at s (1-4), or 0 if invalid. */
static size_t utf8_seq_len(const unsigned char *s, size_t left)
{
	unsigned char c = s[0];
	size_t need, i;
	uint32_t cp;

	if (c < 0x80)
		return c ? 1 : 0;
	if (c >= 0xc2 && c <= 0xdf) {
		need = 2;
		cp = c & 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		need = 3;
		cp = c & 0x0f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		need = 4;
		cp = c & 0x07;
	} else {
		return 0;
	}
	if (left < need)
		return 0;
	for (i = 1; i < need; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((need == 3 && cp < 0x800) || (need == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return need;
}

char *kw_utf8_sanitize(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	char *out = malloc(len * 3 + 1), *o = out;
	size_t i = 0;

	if (!out)
		return NULL;
	while (i < len) {
		size_t n = utf8_seq_len(p + i, len - i);

		if (n) {
			memcpy(o, p + i, n);
			o += n;
			i += n;
		} else {
			memcpy(o, "\xef\xbf\xbd", 3);
			o += 3;
			i++;
		}
	}
	*o = '\0';
	return out;
}

json_object *kw_event_new(const char *type)
{
	json_object *ev = json_object_new_object();

	if (ev && kw_event_add_str(ev, "type", type) < 0)
		ev = (json_object_put(ev), NULL);
	return ev;
}

static int add(json_object *ev, const char *key, json_object *v)
{
	if (!v)
		return -ENOMEM;
	return json_object_object_add(ev, key, v) < 0 ? -ENOMEM : 0;
}

json_object *kw_event_lost(const char *source, uint64_t count, uint64_t total,
			   uint64_t first_seq, uint64_t last_seq, int64_t client)
{
	json_object *ev = kw_event_new("lost");

	if (!ev)
		return NULL;
	if (kw_event_add_str(ev, "source", source) < 0 ||
	    kw_event_add_u64(ev, "count", count) < 0 ||
	    kw_event_add_u64(ev, "total", total) < 0 ||
	    kw_event_add_u64(ev, "first_seq", first_seq) < 0 ||
	    kw_event_add_u64(ev, "last_seq", last_seq) < 0 ||
	    kw_event_add_int(ev, "client", client) < 0) {
		json_object_put(ev);
		return NULL;
	}
	return ev;
}

/* s (len bytes) is valid UTF-8 already: the common case, stored as it is. */
bool kw_utf8_valid(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, n;

	while (i < len) {
		if (p[i] >= 0x20 && p[i] < 0x80) {
			i++;
			continue;
		}
		n = utf8_seq_len(p + i, len - i);
		if (!n)
			return false;
		i += n;
	}
	return true;
}

int kw_event_add_str(json_object *ev, const char *key, const char *val)
{
	size_t len = val ? strlen(val) : 0;
	_cleanup_free_ char *clean = NULL;

	if (kw_utf8_valid(val ? val : "", len))
		return add(ev, key, json_object_new_string_len(val ? val : "", (int)len));
	clean = kw_utf8_sanitize(val, len);
	if (!clean)
		return -ENOMEM;
	return add(ev, key, json_object_new_string(clean));
}

int kw_event_add_int(json_object *ev, const char *key, int64_t val)
{
	return add(ev, key, json_object_new_int64(val));
}

int kw_event_add_u64(json_object *ev, const char *key, uint64_t val)
{
	return add(ev, key, json_object_new_uint64(val));
}

int kw_event_add_bool(json_object *ev, const char *key, int val)
{
	return add(ev, key, json_object_new_boolean(val));
}

int kw_event_add_errno(json_object *ev, int err)
{
	int r = kw_event_add_int(ev, "errno", err < 0 ? -err : err);

	return r < 0 ? r : kw_event_add_str(ev, "error", kw_errno_name(err));
}

static const char *serialise(json_object *o, size_t *len)
{
	return json_object_to_json_string_length(o, JSON_C_TO_STRING_PLAIN |
						 JSON_C_TO_STRING_NOSLASHESCAPE, len);
}

/* What a member costs in the line: a string its length, else its JSON. */
static size_t cost(json_object *v)
{
	size_t n = 0;

	if (json_object_is_type(v, json_type_string))
		return json_object_get_string_len(v);
	if (json_object_is_type(v, json_type_array) || json_object_is_type(v, json_type_object))
		serialise(v, &n);
	return n;
}

static bool halve_string(json_object *str)
{
	size_t len = json_object_get_string_len(str), keep = len / 2;
	const char *s = json_object_get_string(str);
	_cleanup_free_ char *cut = NULL;

	/* Back off to a UTF-8 character boundary. */
	while (keep > 0 && ((unsigned char)s[keep] & 0xc0) == 0x80)
		keep--;
	cut = strndup(s, keep);
	if (!cut)
		return false;
	json_object_set_string(str, cut);
	return true;
}

static bool cut_in(json_object *v, json_object *payload, const char *key);

/* The second half of an array goes; "<key>_omitted" counts what went. */
static bool halve_array(json_object *arr, json_object *payload, const char *key)
{
	size_t n = json_object_array_length(arr), drop = (n + 1) / 2;
	char name[96];
	json_object *old;
	uint64_t before = 0;

	if (n == 1)
		return cut_in(json_object_array_get_idx(arr, 0), payload, key);
	if (n == 0 || json_object_array_del_idx(arr, n - drop, drop) < 0)
		return false;
	snprintf(name, sizeof(name), "%.80s_omitted", key);
	if (json_object_object_get_ex(payload, name, &old))
		before = json_object_get_uint64(old);
	json_object_object_add(payload, name, json_object_new_uint64(before + drop));
	return true;
}

/* Make v smaller: halve a string, an array, or the biggest member of an
 * object; false when nothing worth cutting is left. */
static bool cut_in(json_object *v, json_object *payload, const char *key)
{
	json_object *biggest = NULL;
	const char *bkey = key;
	size_t best = 0;

	if (json_object_is_type(v, json_type_string))
		return json_object_get_string_len(v) >= 16 && halve_string(v);
	if (json_object_is_type(v, json_type_array))
		return halve_array(v, payload, key);
	if (!json_object_is_type(v, json_type_object))
		return false;
	json_object_object_foreach(v, k, val) {
		size_t c = cost(val);

		if (strstr(k, "_omitted") || c <= best)
			continue;
		best = c;
		biggest = val;
		bkey = k;
	}
	if (!biggest || best < 16)
		return false;
	return cut_in(biggest, payload, bkey);
}

struct ev_buf *kw_event_line(uint64_t seq, const char *a, size_t alen, const char *b,
			     size_t blen)
{
	struct ev_buf *buf = malloc(sizeof(*buf) + alen + blen + 2);

	if (!buf)
		return NULL;
	buf->refs = 1;
	buf->seq = seq;
	buf->type_index = -1;
	memcpy(buf->data, a, alen);
	memcpy(buf->data + alen, b, blen);
	buf->len = alen + blen;
	buf->data[buf->len++] = '\n';
	buf->data[buf->len] = '\0';
	return buf;
}

/* A line's envelope, put together without printf (which was a quarter of
 * the encoder's instructions): ok goes false when it does not fit. */
struct head {
	char buf[KW_ENVELOPE_MAX];
	size_t len;
	bool ok;
};

static void put(struct head *h, const char *s, size_t n)
{
	if (n > sizeof(h->buf) - h->len) {
		h->ok = false;
		return;
	}
	memcpy(h->buf + h->len, s, n);
	h->len += n;
}

#define PUT_LIT(h, lit) put(h, lit, sizeof(lit) - 1)

/* s is printable ASCII with nothing JSON escapes: quoted, it is what
 * json-c would write for it. */
static bool plain(const char *s)
{
	for (; *s; s++)
		if (*s < 0x20 || *s > 0x7e || *s == '"' || *s == '\\')
			return false;
	return true;
}

static void put_str(struct head *h, const char *s)
{
	put(h, s, strlen(s));
}

/* The context's strings need no escaping: checked again only when one of
 * them changed (a daemon's never do), so the envelope is copied, not
 * scanned a character at a time, for each event. */
static bool ctx_plain(const struct kw_event_ctx *c)
{
	static __thread struct {
		bool valid, plain;
		char start_id[sizeof(c->start_id)], host[sizeof(c->host)], boot_id[sizeof(c->boot_id)];
	} k;

	if (k.valid && !strcmp(k.start_id, c->start_id) && !strcmp(k.host, c->host) &&
	    !strcmp(k.boot_id, c->boot_id))
		return k.plain;
	k.plain = plain(c->start_id) && plain(c->host) && plain(c->boot_id);
	kw_strlcpy(k.start_id, c->start_id, sizeof(k.start_id));
	kw_strlcpy(k.host, c->host, sizeof(k.host));
	kw_strlcpy(k.boot_id, c->boot_id, sizeof(k.boot_id));
	k.valid = true;
	return k.plain;
}

/* v in decimal, at least width digits. */
static void put_u64(struct head *h, uint64_t v, int width)
{
	char d[24];
	int i = sizeof(d);

	do {
		d[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v || (int)sizeof(d) - i < width);
	put(h, d + i, sizeof(d) - i);
}

size_t kw_event_envelope(const struct kw_event_ctx *c, uint64_t seq, uint64_t aside,
			 const struct timespec *now, char *buf, size_t n)
{
	struct head h = { .ok = true };

	if (!ctx_plain(c))
		return 0;
	PUT_LIT(&h, "{\"schema\":");
	put_u64(&h, KW_EVENT_SCHEMA, 1);
	PUT_LIT(&h, ",\"start_id\":\"");
	put_str(&h, c->start_id);
	PUT_LIT(&h, "\",\"seq\":");
	put_u64(&h, seq, 1);
	PUT_LIT(&h, ",\"id\":\"");
	put_str(&h, c->start_id);
	PUT_LIT(&h, "-");
	put_u64(&h, seq, 1);
	if (aside) {
		PUT_LIT(&h, ".");
		put_u64(&h, aside, 1);
	}
	PUT_LIT(&h, "\",\"timestamp\":\"");
	put_str(&h, date_base(now->tv_sec));
	PUT_LIT(&h, ".");
	put_u64(&h, (uint64_t)now->tv_nsec, 9);
	PUT_LIT(&h, "Z\",\"host\":\"");
	put_str(&h, c->host);
	PUT_LIT(&h, "\",\"boot_id\":\"");
	put_str(&h, c->boot_id);
	PUT_LIT(&h, "\",");
	if (!h.ok || h.len > n)
		return 0;
	memcpy(buf, h.buf, h.len);
	return h.len;
}

/* The common case, without a second object: the envelope put together
 * once and the payload's own serialisation after it ("type" first, as
 * kw_event_new puts it), byte for byte what the general path below
 * writes.  NULL for anything else (an envelope string to escape, a
 * payload without "type" first, a line to cut): the general path does
 * those.  aside: the n of a per-client record's id, 0 for a stream
 * position. */
static struct ev_buf *encode_fast(const struct kw_event_ctx *c, json_object *ev, uint64_t seq,
				  uint64_t aside, const struct timespec *now)
{
	struct json_object_iterator it = json_object_iter_begin(ev), end = json_object_iter_end(ev);
	char head[KW_ENVELOPE_MAX];
	const char *body;
	size_t blen, hlen;

	if (json_object_iter_equal(&it, &end) || strcmp(json_object_iter_peek_name(&it), "type"))
		return NULL;
	hlen = kw_event_envelope(c, seq, aside, now, head, sizeof(head));
	if (!hlen)
		return NULL;
	body = serialise(ev, &blen);
	if (!body || blen < 2 || body[0] != '{' || hlen + blen - 1 + 1 > KW_EVENT_MAX)
		return NULL;
	return kw_event_line(seq, head, hlen, body + 1, blen - 1);
}

int kw_event_encode(struct kw_event_ctx *c, json_object *ev, uint64_t reuse_seq,
		    struct ev_buf **ret)
{
	json_object *out = NULL, *type = NULL;
	struct timespec now;
	char ts[40], id[96];
	const char *s;
	size_t len;
	uint64_t seq;
	int r = -ENOMEM, tries;

	if (!ev)
		return -ENOMEM;
	if (c->fixed_time)
		now = *c->fixed_time;
	else
		clock_gettime(CLOCK_REALTIME, &now);
	seq = reuse_seq ? reuse_seq : c->seq + 1;
	*ret = encode_fast(c, ev, seq, reuse_seq ? c->asides + 1 : 0, &now);
	if (*ret)
		goto done;
	kw_rfc3339(&now, ts, sizeof(ts));
	if (reuse_seq)
		snprintf(id, sizeof(id), "%s-%" PRIu64 ".%" PRIu64, c->start_id, seq,
			 c->asides + 1);
	else
		snprintf(id, sizeof(id), "%s-%" PRIu64, c->start_id, seq);

	for (tries = 0; tries < 64; tries++) {
		json_object_put(out);
		out = json_object_new_object();
		if (!out || add(out, "schema", json_object_new_int(KW_EVENT_SCHEMA)) < 0 ||
		    kw_event_add_str(out, "start_id", c->start_id) < 0 ||
		    add(out, "seq", json_object_new_uint64(seq)) < 0 ||
		    kw_event_add_str(out, "id", id) < 0 ||
		    kw_event_add_str(out, "timestamp", ts) < 0 ||
		    kw_event_add_str(out, "host", c->host) < 0 ||
		    kw_event_add_str(out, "boot_id", c->boot_id) < 0)
			goto out;
		if (json_object_object_get_ex(ev, "type", &type))
			r = add(out, "type", json_object_get(type));
		else
			r = kw_event_add_str(out, "type", "unknown");
		if (r < 0)
			goto out;
		json_object_object_foreach(ev, key, val) {
			if (strcmp(key, "type") == 0)
				continue;
			r = add(out, key, json_object_get(val));
			if (r < 0)
				goto out;
		}
		if (tries > 0 && (r = kw_event_add_bool(out, "truncated", 1)) < 0)
			goto out;
		s = serialise(out, &len);
		r = -ENOMEM;
		if (!s)
			goto out;
		if (len + 1 <= KW_EVENT_MAX)
			break;
		if (!cut_in(ev, ev, "")) {
			/* Nothing left to cut: keep only the type. */
			json_object *bare = json_object_new_object();

			if (!bare)
				goto out;
			if (type)
				add(bare, "type", json_object_get(type));
			json_object_put(ev);
			ev = bare;
		}
	}
	r = -E2BIG;
	if (len + 1 > KW_EVENT_MAX)
		goto out;
	*ret = kw_event_line(seq, s, len, "", 0);
	r = -ENOMEM;
	if (!*ret)
		goto out;
done:
	/* Its type, for subscriptions and the journal: one lookup, here. */
	if (json_object_object_get_ex(ev, "type", &type))
		(*ret)->type_index = kw_journal_index(json_object_get_string(type));
	if (reuse_seq)
		c->asides++;
	else
		c->seq = seq;
	r = 0;
out:
	json_object_put(out);
	json_object_put(ev);
	return r;
}
