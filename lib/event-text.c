// SPDX-License-Identifier: GPL-2.0
/* Events written as text: the hot path's payloads (a BPF ring buffer's
 * samples) without a json-c object each.  Building, serialising and
 * freeing the object was most of an event's cost; the text is the same,
 * byte for byte, which test_event checks against json-c for every byte
 * value a string may hold. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "event.h"
#include "journal.h"
#include "util.h"

static void put(struct kw_evtext *t, const char *s, size_t n)
{
	/* Two bytes stay free: the closing brace and a NUL. */
	if (!t->ok || t->full || n + 2 > sizeof(t->buf) - t->len) {
		t->full = true;
		return;
	}
	memcpy(t->buf + t->len, s, n);
	t->len += n;
}

#define PUT_LIT(t, lit) put(t, lit, sizeof(lit) - 1)

/* s quoted and escaped as json-c escapes with JSON_C_TO_STRING_NOSLASHESCAPE:
 * the two-character escapes, other control characters as \u00xx. */
static void put_quoted(struct kw_evtext *t, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	size_t i, start = 0;
	char esc[6] = "\\u00";

	PUT_LIT(t, "\"");
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		const char *e = NULL;

		switch (c) {
		case '\b': e = "\\b"; break;
		case '\n': e = "\\n"; break;
		case '\r': e = "\\r"; break;
		case '\t': e = "\\t"; break;
		case '\f': e = "\\f"; break;
		case '"': e = "\\\""; break;
		case '\\': e = "\\\\"; break;
		default:
			if (c >= 0x20)
				continue;
			esc[4] = hex[c >> 4];
			esc[5] = hex[c & 0xf];
			put(t, s + start, i - start);
			put(t, esc, sizeof(esc));
			start = i + 1;
			continue;
		}
		put(t, s + start, i - start);
		put(t, e, strlen(e));
		start = i + 1;
	}
	put(t, s + start, n - start);
	PUT_LIT(t, "\"");
}

static void put_key(struct kw_evtext *t, const char *key)
{
	PUT_LIT(t, ",");
	put_quoted(t, key, strlen(key));
	PUT_LIT(t, ":");
}

/* The payload closed, as a string (put() kept the room). */
static const char *closed(struct kw_evtext *t)
{
	if (!t->ok || t->full)
		return NULL;
	t->buf[t->len] = '}';
	t->buf[t->len + 1] = '\0';
	return t->buf;
}

/*
 * A field from start on did not fit buf: it goes, and the fields so far
 * become an object that takes this one and those after (json-c builds the
 * same line, and cuts one too long as it cuts any).  True when the caller
 * adds its field to t->obj.
 */
static bool spill(struct kw_evtext *t, size_t start)
{
	if (t->obj)
		return true;
	if (!t->full || !t->ok)
		return false;
	t->len = start;
	t->full = false;
	t->obj = json_tokener_parse(closed(t));
	t->ok = t->obj != NULL;
	return t->ok;
}

static void spilled(struct kw_evtext *t, int r)
{
	if (r < 0)
		t->ok = false;
}

static void put_u64(struct kw_evtext *t, uint64_t v)
{
	char d[24];
	int i = sizeof(d);

	do {
		d[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	put(t, d + i, sizeof(d) - i);
}

void kw_evtext_begin(struct kw_evtext *t, const char *type)
{
	t->type = type;
	t->type_index = kw_journal_index(type);
	t->len = 0;
	t->ok = true;
	t->full = false;
	t->obj = NULL;
	PUT_LIT(t, "{\"type\":");
	put_quoted(t, type, strlen(type));
}

void kw_evtext_strn(struct kw_evtext *t, const char *key, const char *val, size_t len)
{
	_cleanup_free_ char *clean = NULL, *whole = NULL;
	size_t start = t->len;

	len = strnlen(val, len);
	if (!t->obj) {
		put_key(t, key);
		if (kw_utf8_valid(val, len)) {
			put_quoted(t, val, len);
		} else {
			clean = kw_utf8_sanitize(val, len);
			if (clean)
				put_quoted(t, clean, strlen(clean));
			else
				t->ok = false;
		}
	}
	if (!spill(t, start))
		return;
	whole = strndup(val, len);
	spilled(t, whole ? kw_event_add_str(t->obj, key, whole) : -ENOMEM);
}

void kw_evtext_str(struct kw_evtext *t, const char *key, const char *val)
{
	kw_evtext_strn(t, key, val ? val : "", SIZE_MAX);
}

void kw_evtext_u64(struct kw_evtext *t, const char *key, uint64_t val)
{
	size_t start = t->len;

	if (!t->obj) {
		put_key(t, key);
		put_u64(t, val);
	}
	if (spill(t, start))
		spilled(t, kw_event_add_u64(t->obj, key, val));
}

void kw_evtext_int(struct kw_evtext *t, const char *key, int64_t val)
{
	size_t start = t->len;

	if (!t->obj) {
		put_key(t, key);
		if (val < 0) {
			PUT_LIT(t, "-");
			put_u64(t, (uint64_t)0 - (uint64_t)val);
		} else {
			put_u64(t, (uint64_t)val);
		}
	}
	if (spill(t, start))
		spilled(t, kw_event_add_int(t->obj, key, val));
}

json_object *kw_evtext_object(struct kw_evtext *t)
{
	const char *s;

	if (t->obj)
		return t->ok ? json_object_get(t->obj) : NULL;
	s = closed(t);
	return s ? json_tokener_parse(s) : NULL;
}

void kw_evtext_done(struct kw_evtext *t)
{
	json_object_put(t->obj);
	t->obj = NULL;
}

int kw_event_encode_text(struct kw_event_ctx *c, struct kw_evtext *t, struct ev_buf **ret)
{
	char head[KW_ENVELOPE_MAX];
	uint64_t seq = c->seq + 1;
	struct timespec now;
	size_t hlen;

	if (t->obj)
		return t->ok ? kw_event_encode(c, json_object_get(t->obj), 0, ret) : -ENOMEM;
	if (!closed(t))
		return -ENOMEM;
	if (c->fixed_time)
		now = *c->fixed_time;
	else
		clock_gettime(CLOCK_REALTIME, &now);
	hlen = kw_event_envelope(c, seq, 0, &now, head, sizeof(head));
	/* An envelope to escape, or a line to cut: the general path. */
	if (!hlen || hlen + t->len + 1 > KW_EVENT_MAX) {
		json_object *o = kw_evtext_object(t);

		return o ? kw_event_encode(c, o, 0, ret) : -ENOMEM;
	}
	/* buf[0] is the payload's '{', buf[len] its '}'. */
	*ret = kw_event_line(seq, head, hlen, t->buf + 1, t->len);
	if (!*ret)
		return -ENOMEM;
	(*ret)->type_index = t->type_index;
	c->seq = seq;
	return 0;
}
