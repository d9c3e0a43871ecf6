// SPDX-License-Identifier: GPL-2.0
/* Event encoding: common fields and order, seq, escaping, UTF-8, limit. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "event.h"

static const struct timespec T = { 1700000000, 123456789 };

static struct kw_event_ctx ctx(void)
{
	struct kw_event_ctx c = { .fixed_time = &T };

	strcpy(c.host, "kwatch");
	strcpy(c.boot_id, "b");
	strcpy(c.start_id, "s");
	return c;
}

static void common_fields(void **state)
{
	struct kw_event_ctx c = ctx();
	struct ev_buf *b;
	json_object *ev = kw_event_new("config_error");

	(void)state;
	kw_event_add_int(ev, "line", 3);
	assert_int_equal(kw_event_encode(&c, ev, 0, &b), 0);
	assert_string_equal(b->data, "{\"schema\":1,\"start_id\":\"s\",\"seq\":1,\"id\":\"s-1\","
			    "\"timestamp\":\"2023-11-14T22:13:20.123456789Z\","
			    "\"host\":\"kwatch\",\"boot_id\":\"b\",\"type\":\"config_error\",\"line\":3}\n");
	assert_int_equal(b->seq, 1);
	ev_buf_unref(b);
	assert_int_equal(kw_event_encode(&c, kw_event_new("x"), 0, &b), 0);
	assert_int_equal(b->seq, 2);
	ev_buf_unref(b);
	/* A reply reuses a seq and does not advance the counter. */
	assert_int_equal(kw_event_encode(&c, kw_event_new("status"), 2, &b), 0);
	assert_int_equal(b->seq, 2);
	assert_int_equal(c.seq, 2);
	/* ...and has an id of its own: the key stays unique. */
	assert_non_null(strstr(b->data, "\"seq\":2,\"id\":\"s-2.1\""));
	ev_buf_unref(b);
	assert_int_equal(kw_event_encode(&c, kw_event_new("reply"), 2, &b), 0);
	assert_non_null(strstr(b->data, "\"id\":\"s-2.2\""));
	ev_buf_unref(b);
	assert_int_equal(kw_event_encode(&c, kw_event_new("x"), 0, &b), 0);
	assert_non_null(strstr(b->data, "\"seq\":3,\"id\":\"s-3\""));
	ev_buf_unref(b);
}

/* Every loss, whatever its source, in one shape. */
static void lost_one_shape(void **state)
{
	struct kw_event_ctx c = ctx();
	struct ev_buf *b;

	(void)state;
	assert_int_equal(kw_event_encode(&c, kw_event_lost("bpf", 5, 9, 0, 0, -1), 0, &b), 0);
	assert_non_null(strstr(b->data, "\"type\":\"lost\",\"source\":\"bpf\",\"count\":5,"
			       "\"total\":9,\"first_seq\":0,\"last_seq\":0,\"client\":-1}"));
	ev_buf_unref(b);
	assert_int_equal(kw_event_encode(&c, kw_event_lost("client_queue", 3, 3, 4, 6, 2), 6, &b),
			 0);
	assert_non_null(strstr(b->data, "\"type\":\"lost\",\"source\":\"client_queue\",\"count\":3,"
			       "\"total\":3,\"first_seq\":4,\"last_seq\":6,\"client\":2}"));
	ev_buf_unref(b);
}

/* Each start has an id of its own. */
static void start_id_random(void **state)
{
	struct kw_event_ctx a, b;

	(void)state;
	kw_event_ctx_init(&a);
	kw_event_ctx_init(&b);
	assert_true(strlen(a.start_id) >= 16);
	assert_string_not_equal(a.start_id, b.start_id);
}

static void escaping(void **state)
{
	struct kw_event_ctx c = ctx();
	struct ev_buf *b;
	json_object *ev = kw_event_new("t");

	(void)state;
	kw_event_add_str(ev, "s", "a\nb\"c\\d/e\x01\xff\xc3\xa9");
	/* Valid UTF-8 (stored as it is), control characters escaped. */
	kw_event_add_str(ev, "v", "caf\xc3\xa9\t\xf0\x9f\x90\x9b");
	assert_int_equal(kw_event_encode(&c, ev, 0, &b), 0);
	assert_non_null(strstr(b->data, "\"s\":\"a\\nb\\\"c\\\\d/e\\u0001\xef\xbf\xbd\xc3\xa9\""));
	assert_non_null(strstr(b->data, "\"v\":\"caf\xc3\xa9\\t\xf0\x9f\x90\x9b\""));
	assert_null(memchr(b->data, '\n', b->len - 1));
	ev_buf_unref(b);
}

static void utf8(void **state)
{
	char *s;

	(void)state;
	s = kw_utf8_sanitize("ok\xc3\xa9", 4);
	assert_string_equal(s, "ok\xc3\xa9");
	free(s);
	s = kw_utf8_sanitize("\xed\xa0\x80|\xc0\xaf|\xf4\x90\x80\x80|\0", 14);
	assert_int_equal(strncmp(s, "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd|", 10), 0);
	free(s);
}

static void size_limit(void **state)
{
	struct kw_event_ctx c = ctx();
	struct ev_buf *b;
	json_object *ev = kw_event_new("big"), *back, *v;
	char *big = malloc(100000);

	(void)state;
	memset(big, '\n', 99999);	/* escapes to 2 bytes each */
	big[99999] = '\0';
	kw_event_add_str(ev, "report", big);
	kw_event_add_str(ev, "keep", "small");
	assert_int_equal(kw_event_encode(&c, ev, 0, &b), 0);
	assert_true(b->len <= KW_EVENT_MAX);
	assert_true(b->len > KW_EVENT_MAX / 4);
	back = json_tokener_parse(b->data);
	assert_non_null(back);
	assert_true(json_object_object_get_ex(back, "truncated", &v));
	assert_true(json_object_object_get_ex(back, "keep", &v));
	json_object_put(back);
	ev_buf_unref(b);
	free(big);
}

/* Bulk nested in arrays of objects (a status with 500 files) is cut where
 * it is: the array's tail goes and is counted, the rest stays. */
static void nested_bulk_cut_in_place(void **state)
{
	struct kw_event_ctx c = ctx();
	json_object *ev = kw_event_new("status"), *files = json_object_new_array(), *back, *v;
	struct ev_buf *b;
	char name[64];
	size_t kept;
	int i;

	(void)state;
	for (i = 0; i < 500; i++) {
		json_object *f = json_object_new_object();

		snprintf(name, sizeof(name), "watch-%03d.conf", i);
		kw_event_add_str(f, "file", name);
		kw_event_add_str(f, "state", "in force, a long enough description here");
		kw_event_add_int(f, "line", i);
		json_object_array_add(files, f);
	}
	json_object_object_add(ev, "files", files);
	kw_event_add_u64(ev, "clients", 3);
	assert_int_equal(kw_event_encode(&c, ev, 0, &b), 0);
	print_message("status of 500 files: %zu bytes\n", b->len);
	assert_true(b->len <= KW_EVENT_MAX);
	assert_true(b->len > KW_EVENT_MAX / 4);
	back = json_tokener_parse(b->data);
	assert_non_null(back);
	assert_true(json_object_object_get_ex(back, "truncated", &v));
	assert_true(json_object_object_get_ex(back, "clients", &v));
	assert_int_equal(json_object_get_int(v), 3);
	assert_true(json_object_object_get_ex(back, "files", &v));
	kept = json_object_array_length(v);
	assert_true(kept >= 50);
	assert_true(json_object_object_get_ex(back, "files_omitted", &v));
	assert_int_equal(json_object_get_uint64(v) + kept, 500);
	json_object_put(back);
	ev_buf_unref(b);
}

/* The payload's fields, in order, after @first (NULL: none). */
static json_object *payload(const char *first)
{
	json_object *ev = json_object_new_object(), *arr = json_object_new_array();
	json_object *obj = json_object_new_object();

	if (first)
		kw_event_add_str(ev, first, "t");
	kw_event_add_str(ev, "s", "a\"b\\c/\x01\xff\xc3\xa9");
	kw_event_add_u64(ev, "u", UINT64_MAX);
	kw_event_add_int(ev, "i", -7);
	kw_event_add_bool(ev, "b", 1);
	json_object_array_add(arr, json_object_new_string("f+0x1/0x2"));
	json_object_array_add(arr, json_object_new_int(2));
	json_object_object_add(ev, "frames", arr);
	kw_event_add_str(obj, "k", "v");
	json_object_object_add(ev, "o", obj);
	if (!first)
		kw_event_add_str(ev, "type", "t");
	return ev;
}

/* The usual event ("type" first: written without a second object) and
 * the same fields in another order (the general path) give the same line,
 * for a stream position and for a per-client record; an envelope string
 * that needs escaping goes the general way too. */
static void fast_path_same_bytes(void **state)
{
	struct kw_event_ctx a = ctx(), b = ctx();
	struct ev_buf *x, *y;

	(void)state;
	assert_int_equal(kw_event_encode(&a, payload("type"), 0, &x), 0);
	assert_int_equal(kw_event_encode(&b, payload(NULL), 0, &y), 0);
	assert_string_equal(x->data, y->data);
	assert_int_equal(x->len, y->len);
	assert_int_equal(x->seq, 1);
	assert_non_null(strstr(x->data, "\"boot_id\":\"b\",\"type\":\"t\",\"s\":"));
	ev_buf_unref(x);
	ev_buf_unref(y);
	assert_int_equal(kw_event_encode(&a, payload("type"), 5, &x), 0);
	assert_int_equal(kw_event_encode(&b, payload(NULL), 5, &y), 0);
	assert_string_equal(x->data, y->data);
	assert_non_null(strstr(x->data, "\"id\":\"s-5.1\""));
	ev_buf_unref(x);
	ev_buf_unref(y);
	/* Nanoseconds with leading zeros, a seq with many digits. */
	{
		static const struct timespec t5 = { 1700000000, 5 };

		a.fixed_time = b.fixed_time = &t5;
		a.seq = b.seq = 12345678900;
		assert_int_equal(kw_event_encode(&a, payload("type"), 0, &x), 0);
		assert_int_equal(kw_event_encode(&b, payload(NULL), 0, &y), 0);
		assert_string_equal(x->data, y->data);
		assert_non_null(strstr(x->data, "\"seq\":12345678901,\"id\":\"s-12345678901\","
				       "\"timestamp\":\"2023-11-14T22:13:20.000000005Z\""));
		ev_buf_unref(x);
		ev_buf_unref(y);
		a.seq = 1;
	}
	strcpy(a.host, "q\"h\\");
	assert_int_equal(kw_event_encode(&a, payload("type"), 0, &x), 0);
	assert_non_null(strstr(x->data, "\"host\":\"q\\\"h\\\\\","));
	assert_int_equal(x->seq, 2);
	ev_buf_unref(x);
}

/* Fields written as text give json-c's line, byte for byte: every byte
 * value in a string (escapes, control characters, invalid UTF-8), a
 * fixed-size field without its NUL, numbers at their limits; an envelope
 * to escape takes the general path and still agrees. */
static void text_same_bytes(void **state)
{
	struct kw_event_ctx a = ctx(), b = ctx();
	char all[256], fixed[4] = { 'a', 'b', 'c', 'd' };
	struct ev_buf *x, *y;
	struct kw_evtext t;
	json_object *ev, *o;
	int i, round;

	(void)state;
	for (i = 1; i < 256; i++)
		all[i - 1] = (char)i;
	all[255] = '\0';
	for (round = 0; round < 2; round++) {
		ev = kw_event_new("wprobe_sample");
		kw_event_add_str(ev, "all", all);
		kw_event_add_str(ev, "comm", "abcd");
		kw_event_add_u64(ev, "u", UINT64_MAX);
		kw_event_add_int(ev, "min", INT64_MIN);
		kw_event_add_int(ev, "neg", -1);
		kw_event_add_int(ev, "zero", 0);
		kw_event_add_str(ev, "empty", NULL);
		kw_evtext_begin(&t, "wprobe_sample");
		kw_evtext_str(&t, "all", all);
		kw_evtext_strn(&t, "comm", fixed, sizeof(fixed));
		kw_evtext_u64(&t, "u", UINT64_MAX);
		kw_evtext_int(&t, "min", INT64_MIN);
		kw_evtext_int(&t, "neg", -1);
		kw_evtext_int(&t, "zero", 0);
		kw_evtext_str(&t, "empty", NULL);
		assert_true(t.ok);
		assert_int_equal(kw_event_encode(&a, ev, 0, &x), 0);
		assert_int_equal(kw_event_encode_text(&b, &t, &y), 0);
		assert_string_equal(x->data, y->data);
		assert_int_equal(y->seq, x->seq);
		ev_buf_unref(x);
		ev_buf_unref(y);
		/* The second round: a host name that needs escaping. */
		strcpy(a.host, "q\"h");
		strcpy(b.host, "q\"h");
	}
	o = kw_evtext_object(&t);
	assert_non_null(o);
	assert_int_equal(json_object_get_int64(json_object_object_get(o, "min")), INT64_MIN);
	json_object_put(o);
}

/* Fields beyond the text buffer give json-c's line all the same: whole
 * up to 32 KiB, cut and marked "truncated" past it, as any event; never
 * an error that drops the event. */
static void text_oversized_as_json(void **state)
{
	struct kw_event_ctx a = ctx(), b = ctx();
	static char all[256], big[40000];
	struct ev_buf *x, *y;
	struct kw_evtext t;
	json_object *ev, *o;
	char key[16];
	int i;

	(void)state;
	for (i = 1; i < 256; i++)
		all[i - 1] = (char)i;
	memset(big, 'b', sizeof(big) - 1);
	ev = kw_event_new("wprobe_hit");
	kw_evtext_begin(&t, "wprobe_hit");
	for (i = 0; i < 40; i++) {
		snprintf(key, sizeof(key), "a%d", i);
		kw_event_add_str(ev, key, all);
		kw_evtext_str(&t, key, all);
	}
	kw_event_add_int(ev, "pid", -1);
	kw_evtext_int(&t, "pid", -1);
	kw_event_add_u64(ev, "cpu", 3);
	kw_evtext_u64(&t, "cpu", 3);
	kw_event_add_str(ev, "comm", "abc");
	kw_evtext_strn(&t, "comm", "abcdef", 3);
	assert_int_equal(kw_event_encode(&a, ev, 0, &x), 0);
	assert_int_equal(kw_event_encode_text(&b, &t, &y), 0);
	assert_null(strstr(x->data, "truncated"));
	assert_string_equal(x->data, y->data);
	assert_int_equal(y->type_index, x->type_index);
	ev_buf_unref(x);
	ev_buf_unref(y);
	kw_evtext_done(&t);
	/* Past 32 KiB: cut, the same way. */
	ev = kw_event_new("wprobe_hit");
	kw_event_add_str(ev, "wprobe", "w");
	kw_event_add_str(ev, "args", big);
	kw_evtext_begin(&t, "wprobe_hit");
	kw_evtext_str(&t, "wprobe", "w");
	kw_evtext_str(&t, "args", big);
	o = kw_evtext_object(&t);
	assert_non_null(o);
	assert_int_equal(json_object_get_string_len(json_object_object_get(o, "args")),
			 sizeof(big) - 1);
	json_object_put(o);
	assert_int_equal(kw_event_encode(&a, ev, 0, &x), 0);
	assert_int_equal(kw_event_encode_text(&b, &t, &y), 0);
	assert_non_null(strstr(x->data, "\"truncated\":true"));
	assert_string_equal(x->data, y->data);
	ev_buf_unref(x);
	ev_buf_unref(y);
	kw_evtext_done(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(common_fields),
		cmocka_unit_test(lost_one_shape),
		cmocka_unit_test(start_id_random),
		cmocka_unit_test(escaping),
		cmocka_unit_test(utf8),
		cmocka_unit_test(size_limit),
		cmocka_unit_test(nested_bulk_cut_in_place),
		cmocka_unit_test(fast_path_same_bytes),
		cmocka_unit_test(text_same_bytes),
		cmocka_unit_test(text_oversized_as_json),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
