// SPDX-License-Identifier: GPL-2.0
/* Which socket client may send which command, and what a command may ask. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "command.h"
#include "journal.h"

static int parse(const char *line, bool root, struct kw_cmd *cmd, char *reason)
{
	return kw_cmd_parse(line, root, cmd, reason, 160);
}

static void readers_may_read(void **state)
{
	struct kw_cmd cmd;
	char reason[160];

	(void)state;
	assert_int_equal(parse("status", false, &cmd, reason), 0);
	assert_int_equal(cmd.kind, KW_CMD_STATUS);
	assert_int_equal(parse("backlog", false, &cmd, reason), 0);
	assert_int_equal(cmd.kind, KW_CMD_BACKLOG);
	/* A CRLF client and stray blanks are the same command. */
	assert_int_equal(parse(" status \r", false, &cmd, reason), 0);
	assert_int_equal(cmd.kind, KW_CMD_STATUS);
}

/* subscribe: anyone; known types only, "lost" always in; "all" is 0. */
static void subscribe_parsed(void **state)
{
	struct kw_cmd cmd;
	char reason[160];

	(void)state;
	assert_int_equal(parse("subscribe crash,catch fuzz_exec", false, &cmd, reason), 0);
	assert_int_equal(cmd.kind, KW_CMD_SUBSCRIBE);
	assert_true(cmd.types == (1ULL << kw_journal_index("crash") |
				  1ULL << kw_journal_index("catch") |
				  1ULL << kw_journal_index("fuzz_exec") |
				  1ULL << kw_journal_index("lost")));
	assert_int_equal(parse("subscribe all", false, &cmd, reason), 0);
	assert_true(cmd.types == 0);
	assert_int_equal(parse("subscribe crash,nosuch", false, &cmd, reason), -EINVAL);
	assert_non_null(strstr(reason, "'nosuch'"));
	assert_int_equal(parse("subscribe", false, &cmd, reason), -EINVAL);
	assert_non_null(strstr(reason, "usage"));
	/* Per-client records are not stream types. */
	assert_int_equal(parse("subscribe status", false, &cmd, reason), -EINVAL);
}

static void only_root_changes_the_daemon(void **state)
{
	struct kw_cmd cmd;
	char reason[160];

	(void)state;
	assert_int_equal(parse("reload", false, &cmd, reason), -EPERM);
	assert_string_equal(cmd.verb, "reload");
	assert_non_null(strstr(reason, "only root"));
	assert_int_equal(parse("bench 600", false, &cmd, reason), -EPERM);
	assert_string_equal(cmd.verb, "bench");
	/* Refused before its arguments are looked at. */
	assert_int_equal(parse("bench x", false, &cmd, reason), -EPERM);
	assert_int_equal(parse("reload", true, &cmd, reason), 0);
	assert_int_equal(cmd.kind, KW_CMD_RELOAD);
	assert_int_equal(parse("bench 600", true, &cmd, reason), 0);
	assert_int_equal(cmd.kind, KW_CMD_BENCH);
	assert_int_equal(cmd.n, 600);
	assert_int_equal(cmd.rate, 0);
}

static void bench_is_bounded(void **state)
{
	static const char *const bad[] = {
		"bench", "bench 0", "bench -1", "bench 10000001", "bench 5 1000001",
		"bench 5 10 x", "bench 5x", "bench 99999999999999999999999",
		"bench 0x10",
	};
	struct kw_cmd cmd;
	char reason[160];
	size_t i;

	(void)state;
	assert_int_equal(parse("bench 10000000 1000000", true, &cmd, reason), 0);
	assert_int_equal(cmd.n, 10000000);
	assert_int_equal(cmd.rate, 1000000);
	assert_int_equal(parse("bench\t5  7", true, &cmd, reason), 0);
	assert_int_equal(cmd.n, 5);
	assert_int_equal(cmd.rate, 7);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(parse(bad[i], true, &cmd, reason), -EINVAL);
		assert_non_null(strstr(reason, "bench"));
	}
}

static void unknown_and_extra_words_refused(void **state)
{
	struct kw_cmd cmd;
	char reason[160];

	(void)state;
	assert_int_equal(parse("reboot", true, &cmd, reason), -EINVAL);
	assert_non_null(strstr(reason, "unknown command 'reboot'"));
	assert_non_null(strstr(reason, "known: status"));
	assert_int_equal(parse("", true, &cmd, reason), -EINVAL);
	assert_int_equal(parse("status now", true, &cmd, reason), -EINVAL);
	assert_non_null(strstr(reason, "no arguments"));
	assert_int_equal(parse("reloadx", true, &cmd, reason), -EINVAL);
	assert_int_equal(parse("statu", true, &cmd, reason), -EINVAL);
	/* The verb echoed back is cut to its field, never past it. */
	assert_int_equal(parse("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", true, &cmd, reason), -EINVAL);
	assert_int_equal(strlen(cmd.verb), sizeof(cmd.verb) - 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(readers_may_read),
		cmocka_unit_test(subscribe_parsed),
		cmocka_unit_test(only_root_changes_the_daemon),
		cmocka_unit_test(bench_is_bounded),
		cmocka_unit_test(unknown_and_extra_words_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
