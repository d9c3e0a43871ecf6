// SPDX-License-Identifier: GPL-2.0
/* cmocka tests of the VM runner's KTAP reader (tests/runner/ktap.c). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "../runner/ktap.h"

struct run {
	struct ktap_reader r;
	char report[4096];
	int verdict;
};

static void parse(struct run *run, const char *text)
{
	FILE *in = fmemopen((void *)text, strlen(text), "r");
	FILE *rep = fmemopen(run->report, sizeof(run->report), "w");

	assert_non_null(in);
	assert_non_null(rep);
	memset(run->report, 0, sizeof(run->report));
	ktap_init(&run->r, rep);
	assert_int_equal(ktap_read_file(&run->r, in), 0);
	fclose(in);
	fclose(rep);
	run->verdict = ktap_verdict(&run->r);
}

/* The shape the guest runner writes, with KUnit's results nested inside. */
static const char nested_ok[] =
	"KTAP version 1\n"
	"1..2\n"
	"    KTAP version 1\n"
	"    # Subtest: platform\n"
	"    1..3\n"
	"    ok 1 - systemd_multi_user\n"
	"    # a diagnostic line\n"
	"    ok 2 - hwbp_fires # SKIP no breakpoints\n"
	"        # Subtest: kwatch_platform\n"
	"        1..2\n"
	"        ok 1 - kwp_canary_set\n"
	"        ok 2 - kwp_symbolise\n"
	"    ok 3 - kwatch_platform\n"
	"ok 1 - platform\n"
	"    KTAP version 1\n"
	"    # Subtest: other\n"
	"    1..1\n"
	"    ok 1 - something\n"
	"ok 2 - other\n";

static void test_nested_all_pass(void **state)
{
	struct run run;

	(void)state;
	parse(&run, nested_ok);
	assert_int_equal(run.r.passed, 4);	/* leaves only */
	assert_int_equal(run.r.skipped, 1);
	assert_int_equal(run.r.failed, 0);
	assert_int_equal(run.r.missing, 0);
	assert_int_equal(run.verdict, 0);
	assert_string_equal(run.report, "");
}

static void test_leaf_failure_named_with_path(void **state)
{
	struct run run;

	(void)state;
	parse(&run,
	      "KTAP version 1\n1..1\n"
	      "    # Subtest: platform\n    1..2\n"
	      "    ok 1 - a\n"
	      "    not ok 2 - kasan_reports_oob\n"
	      "not ok 1 - platform\n");
	assert_int_equal(run.r.passed, 1);
	assert_int_equal(run.r.failed, 1);	/* the parent is not counted again */
	assert_int_equal(run.verdict, -EIO);
	assert_non_null(strstr(run.report, "not ok: platform.kasan_reports_oob"));
}

static void test_truncated_stream_is_missing(void **state)
{
	struct run run;

	(void)state;
	/* The guest died after the first of three results. */
	parse(&run,
	      "KTAP version 1\n1..2\n"
	      "    # Subtest: platform\n    1..3\n"
	      "    ok 1 - a\n");
	assert_int_equal(run.r.passed, 1);
	assert_true(run.r.missing >= 2);
	assert_int_equal(run.verdict, -EAGAIN);
	assert_non_null(strstr(run.report, "missing: platform."));
}

static void test_short_top_level_plan(void **state)
{
	struct run run;

	(void)state;
	parse(&run, "KTAP version 1\n1..3\nok 1 - a\nok 2 - b\n");
	assert_int_equal(run.r.passed, 2);
	assert_int_equal(run.r.missing, 1);
	assert_int_equal(run.verdict, -EAGAIN);
}

static void test_empty_is_not_a_pass(void **state)
{
	struct run run;

	(void)state;
	parse(&run, "");
	assert_int_equal(run.verdict, -EAGAIN);
	parse(&run, "KTAP version 1\n1..0\n");
	assert_int_equal(run.verdict, -EAGAIN);
	parse(&run, "random console noise\nok\n");
	assert_int_equal(run.verdict, -EAGAIN);
}

static void test_parent_failure_without_failed_children(void **state)
{
	struct run run;

	(void)state;
	/* A suite whose script crashed after its tests passed still fails. */
	parse(&run,
	      "KTAP version 1\n1..1\n"
	      "    1..1\n    ok 1 - a\n"
	      "not ok 1 - suite\n");
	assert_int_equal(run.r.passed, 1);
	assert_int_equal(run.r.failed, 1);
	assert_int_equal(run.verdict, -EIO);
}

static void test_skip_forms_and_crlf(void **state)
{
	struct run run;

	(void)state;
	parse(&run, "KTAP version 1\r\n1..3\r\nok 1 a # SKIP x\r\n"
		    "ok 2 - b # skip\r\nok 3 c\r\n");
	assert_int_equal(run.r.skipped, 2);
	assert_int_equal(run.r.passed, 1);
	assert_int_equal(run.verdict, 0);
}

static void test_long_name_truncated_safely(void **state)
{
	char text[1024];
	struct run run;

	(void)state;
	memset(text, 0, sizeof(text));
	strcpy(text, "KTAP version 1\n1..1\nnot ok 1 - ");
	memset(text + strlen(text), 'x', 600);
	strcat(text, "\n");
	parse(&run, text);
	assert_int_equal(run.r.failed, 1);
	assert_true(strlen(run.report) < 200);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nested_all_pass),
		cmocka_unit_test(test_leaf_failure_named_with_path),
		cmocka_unit_test(test_truncated_stream_is_missing),
		cmocka_unit_test(test_short_top_level_plan),
		cmocka_unit_test(test_empty_is_not_a_pass),
		cmocka_unit_test(test_parent_failure_without_failed_children),
		cmocka_unit_test(test_skip_forms_and_crlf),
		cmocka_unit_test(test_long_name_truncated_safely),
	};

	return cmocka_run_group_tests_name("ktap", tests, NULL, NULL);
}
