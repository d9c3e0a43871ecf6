// SPDX-License-Identifier: GPL-2.0
/* libFuzzer harness: the event encoder.  Whatever the bytes, the line is
 * valid JSON, ends in one newline, has no other newline, and fits; and
 * the same fields written as text (kw_evtext) give the same line. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "event.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct timespec t = { 1, 2 };
	struct kw_event_ctx c = { .fixed_time = &t };
	struct ev_buf *b = NULL;
	json_object *ev, *back;
	char *s = malloc(size + 1), *a = NULL;
	size_t half = size / 2;

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	ev = kw_event_new("fuzz");
	kw_event_add_str(ev, "a", s + half);
	a = strdup(s + half);
	s[half] = '\0';
	kw_event_add_str(ev, s, s);	/* the key is input too */
	if (kw_event_encode(&c, ev, 0, &b) == 0) {
		struct kw_event_ctx tc = { .fixed_time = &t };
		struct ev_buf *tb = NULL;
		struct kw_evtext tx;

		if (b->len > KW_EVENT_MAX || b->data[b->len - 1] != '\n' ||
		    memchr(b->data, '\n', b->len - 1))
			abort();
		back = json_tokener_parse(b->data);
		if (!back)
			abort();
		json_object_put(back);
		/* The text writer, where json-c would not have replaced a
		 * field by a later one of the same key. */
		kw_evtext_begin(&tx, "fuzz");
		kw_evtext_str(&tx, "a", a);
		kw_evtext_str(&tx, s, s);
		if (a && strcmp(s, "a") && strcmp(s, "type") && !strstr(b->data, "\"truncated\"") &&
		    kw_event_encode_text(&tc, &tx, &tb) == 0) {
			if (strcmp(tb->data, b->data))
				abort();
			ev_buf_unref(tb);
		}
		kw_evtext_done(&tx);
		ev_buf_unref(b);
	}
	free(a);
	free(s);
	return 0;
}
