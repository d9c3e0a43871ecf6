// SPDX-License-Identifier: GPL-2.0
/* Parsing wprobe hits from a tracefs instance's trace_pipe. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>

#include "wprobe.h"

static void hit(void **state)
{
	struct wprobe_hit h;

	(void)state;
	assert_int_equal(wprobe_parse_hit("          <idle>-0       [001] d.h2.  1234.567890: "
					  "my_jiffies: (tick_do_update_jiffies64+0xbe/0x130) "
					  "value=0x1000\n", &h), 0);
	assert_string_equal(h.comm, "<idle>");
	assert_int_equal(h.pid, 0);
	assert_int_equal(h.cpu, 1);
	assert_string_equal(h.ts, "1234.567890");
	assert_string_equal(h.event, "my_jiffies");
	assert_string_equal(h.ip, "tick_do_update_jiffies64+0xbe/0x130");
	assert_string_equal(h.args, "value=0x1000");
	assert_int_equal(wprobe_parse_hit(" kworker/u4:1-ev-42 [000] ..... 5.000001: w: (f+0x1/0x2)",
					  &h), 0);
	assert_string_equal(h.comm, "kworker/u4:1-ev");
	assert_int_equal(h.pid, 42);
	assert_string_equal(h.args, "");
	assert_int_equal(wprobe_parse_hit("garbage", &h), -EINVAL);
	assert_int_equal(wprobe_parse_hit("", &h), -EINVAL);
}

static void storm(void **state)
{
	struct wprobe_storm s;
	struct wprobe_hit h;

	(void)state;
	assert_int_equal(wprobe_parse_storm("           <...>-77      [001] d.h2.   812.000123: "
					    "wprobe_storm: kwatchd/kwv disarmed: 501 hits in a "
					    "second, limit 500\n", &s), 0);
	assert_string_equal(s.group, "kwatchd");
	assert_string_equal(s.name, "kwv");
	assert_false(s.repoints);
	assert_int_equal(s.count, 501);
	assert_int_equal(s.limit, 500);
	assert_int_equal(s.cpu, 1);
	assert_string_equal(s.ts, "812.000123");
	assert_int_equal(wprobe_parse_storm(" sh-9 [000] ..... 5.5: wprobe_storm: wprobes/o disarmed: "
					    "11 re-points in a second, limit 10", &s), 0);
	assert_true(s.repoints);
	assert_string_equal(s.group, "wprobes");
	/* A hit of a wprobe that happens to be called wprobe_storm. */
	assert_int_equal(wprobe_parse_storm(" sh-9 [000] ..... 5.5: wprobe_storm: (f+0x1/0x2) "
					    "value=0x1", &s), -EINVAL);
	assert_int_equal(wprobe_parse_hit(" sh-9 [000] ..... 5.5: wprobe_storm: (f+0x1/0x2) "
					  "value=0x1", &h), 0);
	/* Damaged or other lines. */
	assert_int_equal(wprobe_parse_storm(" sh-9 [000] ..... 5.5: wprobe_storm: kwatchd/v disarmed: "
					    "x hits in a second, limit 1", &s), -EINVAL);
	assert_int_equal(wprobe_parse_storm(" sh-9 [000] ..... 5.5: wprobe_storm: kwatchd/v disarmed: "
					    "3 naps in a second, limit 1", &s), -EINVAL);
	assert_int_equal(wprobe_parse_storm(" sh-9 [000] ..... 5.5: wprobe_storm: kwatchd/v disarmed: "
					    "3 hits in a second, limit 1 and more", &s), -EINVAL);
	assert_int_equal(wprobe_parse_storm(" sh-9 [000] ..... 5.5: my_jiffies: (f+0x1/0x2)", &s),
			 -EINVAL);
	assert_int_equal(wprobe_parse_storm("", &s), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(hit),
		cmocka_unit_test(storm),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
