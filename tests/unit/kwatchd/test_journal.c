// SPDX-License-Identifier: GPL-2.0
/* Events as journal entries: which types go (the journal = setting), and
 * the fields an entry carries. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "config.h"
#include "journal.h"
#include "log.h"

static bool bit(uint64_t m, const char *type)
{
	int i = kw_journal_index(type);

	assert_true(i >= 0);
	return m & (1ULL << i);
}

static void types_chosen(void **state)
{
	char why[200];
	uint64_t m;

	(void)state;
	assert_int_equal(kw_journal_parse("default", &m, why, sizeof(why)), 0);
	assert_true(bit(m, "crash") && bit(m, "catch") && bit(m, "config_error"));
	/* Per hit, per exec and synthetic events are not journaled by default. */
	assert_false(bit(m, "bench") || bit(m, "wprobe_hit") || bit(m, "fuzz_done"));
	assert_int_equal(kw_journal_parse("none", &m, why, sizeof(why)), 0);
	assert_int_equal(m, 0);
	assert_int_equal(kw_journal_parse("crash, catch", &m, why, sizeof(why)), 0);
	assert_true(bit(m, "crash") && bit(m, "catch") && !bit(m, "lost"));
	assert_int_equal(kw_journal_parse("default wprobe_hit", &m, why, sizeof(why)), 0);
	assert_true(bit(m, "wprobe_hit") && bit(m, "crash") && !bit(m, "bench"));
	assert_int_equal(kw_journal_parse("all", &m, why, sizeof(why)), 0);
	assert_true(bit(m, "bench") && bit(m, "wprobe_storm"));
	/* A type that is not the stream's, or a per-client record. */
	assert_int_equal(kw_journal_parse("crash crahs", &m, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "'crahs'"));
	assert_int_equal(kw_journal_parse("status", &m, why, sizeof(why)), -EINVAL);
	assert_int_equal(kw_journal_index("reply"), -1);
}

static void setting_parsed(void **state)
{
	struct kw_settings s;
	char why[256];
	int line;

	(void)state;
	kw_settings_default(&s);
	assert_int_equal(s.journal, kw_journal_default_mask());
	assert_int_equal(kw_settings_parse("[daemon]\njournal = crash\n", &s, &line, why,
					   sizeof(why)), 0);
	assert_true(bit(s.journal, "crash") && !bit(s.journal, "catch"));
	assert_int_equal(kw_settings_parse("[daemon]\njournal = crush\n", &s, &line, why,
					   sizeof(why)), -EINVAL);
	assert_int_equal(line, 2);
	assert_non_null(strstr(why, "crush"));
	/* Left as it was. */
	assert_true(bit(s.journal, "crash") && !bit(s.journal, "catch"));
}

static const char *field(char **f, size_t n, const char *key)
{
	size_t i, k = strlen(key);

	for (i = 0; i < n; i++)
		if (strncmp(f[i], key, k) == 0 && f[i][k] == '=')
			return f[i] + k + 1;
	return NULL;
}

static void entry_fields(void **state)
{
	struct kw_event_ctx c = { .seq = 0 };
	json_object *ev = kw_event_new("crash"), *arr = json_object_new_array();
	char **f;
	size_t n, i;

	(void)state;
	strcpy(c.start_id, "s1");
	kw_event_add_str(ev, "kind", "kasan");
	kw_event_add_str(ev, "title", "BUG: KASAN: slab-out-of-bounds in f+0x1/0x2");
	kw_event_add_str(ev, "target", "t");
	kw_event_add_str(ev, "blob", "b1");
	kw_event_add_int(ev, "count", 1);
	kw_event_add_bool(ev, "complete", 1);
	kw_event_add_str(ev, "text", "line one\nline two");
	json_object_array_add(arr, json_object_new_string("f+0x1/0x2"));
	json_object_object_add(ev, "frames", arr);
	assert_int_equal(kw_journal_fields(&c, ev, 7, &f, &n), 0);
	assert_string_equal(field(f, n, "MESSAGE"),
			    "crash: BUG: KASAN: slab-out-of-bounds in f+0x1/0x2 (blob t/b1)");
	assert_string_equal(field(f, n, "MESSAGE_ID"), "1fad4cd66d0f6c2f40c1b956875fd512");
	assert_string_equal(field(f, n, "PRIORITY"), "3");
	assert_string_equal(field(f, n, "KWATCH_SCHEMA"), "1");
	assert_string_equal(field(f, n, "KWATCH_START_ID"), "s1");
	assert_string_equal(field(f, n, "KWATCH_SEQ"), "7");
	assert_string_equal(field(f, n, "KWATCH_ID"), "s1-7");
	assert_string_equal(field(f, n, "KWATCH_TYPE"), "crash");
	assert_string_equal(field(f, n, "KWATCH_COUNT"), "1");
	assert_string_equal(field(f, n, "KWATCH_COMPLETE"), "true");
	/* Multi-line text stays whole (the journal protocol carries it). */
	assert_string_equal(field(f, n, "KWATCH_TEXT"), "line one\nline two");
	assert_string_equal(field(f, n, "KWATCH_FRAMES"), "[\"f+0x1/0x2\"]");
	for (i = 0; i < n; i++) {
		const char *p;

		/* Valid journal field names: A-Z, 0-9, _, not starting with _. */
		for (p = f[i]; *p != '='; p++)
			assert_true((*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
				    *p == '_');
		assert_true(f[i][0] != '_' && p - f[i] <= 64);
	}
	kw_journal_fields_free(f, n);
	json_object_put(ev);
}

static void message_of_other_types(void **state)
{
	struct kw_event_ctx c = { .seq = 0 };
	json_object *ev = kw_event_new("config_error");
	char **f;
	size_t n;

	(void)state;
	kw_event_add_str(ev, "file", "/etc/kwatchd/watch.d/m.conf");
	kw_event_add_int(ev, "line", 3);
	assert_int_equal(kw_journal_fields(&c, ev, 2, &f, &n), 0);
	assert_string_equal(field(f, n, "MESSAGE"),
			    "config_error: file=/etc/kwatchd/watch.d/m.conf line=3");
	assert_string_equal(field(f, n, "PRIORITY"), "4");
	kw_journal_fields_free(f, n);
	json_object_put(ev);
}

/* A name a producer chose ("\n<0>..." in a blob name) is one line in
 * the journal's MESSAGE, escaped: not a line of its own that reads as
 * an emergency.  The fields keep the bytes. */
static void message_escaped(void **state)
{
	struct kw_event_ctx c = { .seq = 0 };
	json_object *ev = kw_event_new("crash");
	char **f;
	size_t n;

	(void)state;
	kw_event_add_str(ev, "title", "BUG: x\r\x1b[2J");
	kw_event_add_str(ev, "target", "t");
	kw_event_add_str(ev, "blob", "b\n<0>evil\x7f");
	assert_int_equal(kw_journal_fields(&c, ev, 1, &f, &n), 0);
	assert_string_equal(field(f, n, "MESSAGE"),
			    "crash: BUG: x\\r\\e[2J (blob t/b\\n<0>evil\\x7f)");
	assert_string_equal(field(f, n, "KWATCH_BLOB"), "b\n<0>evil\x7f");
	kw_journal_fields_free(f, n);
	json_object_put(ev);
}

/* What log_*() writes to stderr with a producer's string in it. */
static char *logged(const char *s)
{
	char tmpl[] = "/tmp/kw-log-XXXXXX", *buf = calloc(1, 4096);
	int fd = mkstemp(tmpl), saved = dup(2);
	ssize_t got;

	assert_true(fd >= 0 && saved >= 0 && buf);
	unlink(tmpl);
	fflush(stderr);
	assert_int_equal(dup2(fd, 2), 2);
	log_warning("cannot read blob %s: rejected", s);
	fflush(stderr);
	assert_int_equal(dup2(saved, 2), 2);
	close(saved);
	got = pread(fd, buf, 4095, 0);
	assert_true(got > 0);
	close(fd);
	return buf;
}

/* The log line is one line whatever the string: control characters are
 * escaped, so no priority prefix of the string's own starts a line. */
static void log_line_escaped(void **state)
{
	char *out;

	(void)state;
	out = logged("b\n<0>evil\r\x1b[2J\t\x01\x7f\\");
	assert_string_equal(out, "<4>cannot read blob b\\n<0>evil\\r\\e[2J\\t\\x01\\x7f\\\\: "
			    "rejected\n");
	free(out);
	/* UTF-8 and plain text as they are. */
	out = logged("caf\xc3\xa9 /var/lib/kwatchd");
	assert_string_equal(out, "<4>cannot read blob caf\xc3\xa9 /var/lib/kwatchd: rejected\n");
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(types_chosen),
		cmocka_unit_test(setting_parsed),
		cmocka_unit_test(entry_fields),
		cmocka_unit_test(message_of_other_types),
		cmocka_unit_test(message_escaped),
		cmocka_unit_test(log_line_escaped),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
