// SPDX-License-Identifier: GPL-2.0
/* Parsing wprobe hits from a tracefs instance's trace_pipe. */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#define FAKE_KWD_WPROBE
#include "fake_kwd.h"
#include "kwatchd-wprobe.h"

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

/* The comm is the task's to choose (up to 15 bytes): whatever it holds,
 * the fixed part after it is found, and the comm and pid are the task's. */
static void hostile_comm(void **state)
{
	static const char *const comms[] = {
		"a [001] b", "x-1 [000] y", "kworker/0:1", "-1 [000] . 5: w", "a-", "", "<idle>",
		"] d.h2. 1.0: w:",
	};
	struct wprobe_hit h;
	char line[256];
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(comms) / sizeof(comms[0]); i++) {
		snprintf(line, sizeof(line), "%16s-%-7u [%03d] d.h2. %5u.%06u: kwv: (f+0x1/0x2) "
			 "value=0x1\n", comms[i], 1000 + i, 3, 812, 123);
		assert_int_equal(wprobe_parse_hit(line, &h), 0);
		assert_string_equal(h.comm, comms[i]);
		assert_int_equal(h.pid, 1000 + i);
		assert_int_equal(h.cpu, 3);
		assert_string_equal(h.ts, "812.000123");
		assert_string_equal(h.event, "kwv");
		assert_string_equal(h.ip, "f+0x1/0x2");
		assert_string_equal(h.args, "value=0x1");
	}
	/* A cpu of four digits, and the compact spacing of older tests. */
	assert_int_equal(wprobe_parse_hit("x [1] y-77 [1023] .... 5.5: kwv: (f) v=1", &h), 0);
	assert_string_equal(h.comm, "x [1] y");
	assert_int_equal(h.pid, 77);
	assert_int_equal(h.cpu, 1023);
	/* No pid, no flags, no timestamp or no event: not a hit. */
	assert_int_equal(wprobe_parse_hit("   sh- [000] d.h2. 5.5: kwv: (f) v=1", &h), -EINVAL);
	assert_int_equal(wprobe_parse_hit("   sh-1 [000] 5.5: kwv: (f) v=1", &h), -EINVAL);
	assert_int_equal(wprobe_parse_hit("   sh-1 [000] d.h2. kwv: (f) v=1", &h), -EINVAL);
	assert_int_equal(wprobe_parse_hit("   sh-1 [000] d.h2. 5.5: (f) v=1", &h), -EINVAL);
	assert_int_equal(wprobe_parse_hit("   sh-1 [000] d.h2. 5.5:", &h), -EINVAL);
}

/*
 * The header's comm is the kernel's saved_cmdlines at the time the line
 * is read: "<...>" when the task has not been switched out since its hit
 * (CI run of 2026-12-06: a hit read before its writer left the CPU).  The
 * comm the wprobe fetched at the hit ("kwatchd_comm", last) is the task's,
 * and is not one of the user's args.
 */
static void comm_from_fetch(void **state)
{
	static const char *const comms[] = {
		"x-1 [000] y", "a", "", " kwatchd_comm=\"", "kwatchd_comm=\"\"", "a\" b=\"c",
		"123456789012345",
	};
	struct wprobe_hit h;
	char line[256];
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(comms) / sizeof(comms[0]); i++) {
		snprintf(line, sizeof(line), "           <...>-923     [001] d.Z..   118.487102: kwc: "
			 "(kwt_write_var+0xc/0x10 [kwatch_wprobe_target]) " KW_COMM_ARG "=\"%s\"\n",
			 comms[i]);
		assert_int_equal(wprobe_parse_hit(line, &h), 0);
		assert_string_equal(h.comm, comms[i]);
		assert_int_equal(h.pid, 923);
		assert_string_equal(h.ip, "kwt_write_var+0xc/0x10 [kwatch_wprobe_target]");
		assert_string_equal(h.args, "");
		snprintf(line, sizeof(line), "  sh-7 [000] d.Z.. 1.5: kwv: (f) value=0x65 s=\"x\" "
			 KW_COMM_ARG "=\"%s\"", comms[i]);
		assert_int_equal(wprobe_parse_hit(line, &h), 0);
		assert_string_equal(h.comm, comms[i]);
		assert_string_equal(h.args, "value=0x65 s=\"x\"");
	}
	/* A user's string arg that looks like the comm's, followed by ours. */
	assert_int_equal(wprobe_parse_hit("  sh-7 [000] d.Z.. 1.5: kwv: (f) s=\" " KW_COMM_ARG
					  "=\"y\" " KW_COMM_ARG "=\"zz\"", &h), 0);
	assert_string_equal(h.comm, "zz");
	assert_string_equal(h.args, "s=\" " KW_COMM_ARG "=\"y\"");
	/* No comm fetched (a wprobe not made by kwatchd): the header's. */
	assert_int_equal(wprobe_parse_hit("  sh-7 [000] d.Z.. 1.5: kwv: (f) value=0x65", &h), 0);
	assert_string_equal(h.comm, "sh");
	assert_string_equal(h.args, "value=0x65");
}

/* The kernel's "CPU:N [LOST K EVENTS]" line, whole, and nothing else. */
static void lost(void **state)
{
	struct wprobe_hit h;
	uint64_t n = 0;
	int cpu = -1;

	(void)state;
	assert_int_equal(wprobe_parse_lost("CPU:3 [LOST 42 EVENTS]", &cpu, &n), 0);
	assert_int_equal(cpu, 3);
	assert_int_equal(n, 42);
	assert_int_equal(wprobe_parse_lost("CPU:0 [LOST 18446744073709551615 EVENTS]", &cpu, &n),
			 0);
	assert_true(n == UINT64_MAX);
	assert_int_equal(wprobe_parse_lost("CPU:0 [LOST 99999999999999999999 EVENTS]", &cpu, &n),
			 0);
	assert_true(n == UINT64_MAX);
	assert_int_equal(wprobe_parse_lost("CPU:0 [LOST 100000000000000000000 EVENTS]", &cpu, &n),
			 -EINVAL);
	assert_int_equal(wprobe_parse_lost("CPU:12 [LOST EVENTS]", &cpu, &n), 0);
	assert_int_equal(cpu, 12);
	assert_int_equal(n, 1);
	assert_int_equal(wprobe_parse_lost("CPU:1 [LOST 0 EVENTS]", &cpu, &n), -EINVAL);
	assert_int_equal(wprobe_parse_lost("CPU:1 [LOST 5 EVENTS] ", &cpu, &n), -EINVAL);
	assert_int_equal(wprobe_parse_lost("CPU:1 [LOST 5 EVENT]", &cpu, &n), -EINVAL);
	assert_int_equal(wprobe_parse_lost("CPU: [LOST 5 EVENTS]", &cpu, &n), -EINVAL);
	assert_int_equal(wprobe_parse_lost(" CPU:1 [LOST 5 EVENTS]", &cpu, &n), -EINVAL);
	assert_int_equal(wprobe_parse_lost("", &cpu, &n), -EINVAL);
	/* A comm that reads like one is a hit's. */
	assert_int_equal(wprobe_parse_lost("CPU:1 [LOST 5 E-9 [000] d.h2. 5.5: kwv: (f) v=1",
					   &cpu, &n), -EINVAL);
	assert_int_equal(wprobe_parse_hit("CPU:1 [LOST 5 E-9 [000] d.h2. 5.5: kwv: (f) v=1", &h),
			 0);
	assert_string_equal(h.comm, "CPU:1 [LOST 5 E");
	assert_int_equal(h.pid, 9);
}

struct seen {
	char lines[8][64];
	unsigned int n, dropped;
};

static void on_line(const char *line, void *data)
{
	struct seen *s = data;

	if (!line)
		s->dropped++;
	else if (s->n < 8)
		snprintf(s->lines[s->n++], sizeof(s->lines[0]), "%.8s:%zu", line, strlen(line));
}

/* Write s into l's room, in reads of at most step bytes. */
static void feed(struct wprobe_lines *l, const char *s, size_t len, size_t step, struct seen *seen)
{
	size_t room, n;
	char *buf;

	while (len) {
		buf = wprobe_lines_room(l, &room);
		assert_true(room > 0);
		n = len < step ? len : step;
		n = n < room ? n : room;
		memcpy(buf, s, n);
		wprobe_lines_feed(l, n, on_line, seen);
		s += n;
		len -= n;
	}
}

/* trace_pipe cut into lines: a line that does not fit is dropped whole and
 * reported once, whatever the reads' sizes; the longest that fits is kept. */
static void lines(void **state)
{
	static struct wprobe_lines l;
	static char big[5 * WPROBE_LINE_BUF];
	static const size_t steps[] = { 1, 100, 4095, WPROBE_LINE_BUF };
	struct seen seen;
	unsigned int i;
	size_t len;

	(void)state;
	for (i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		memset(&l, 0, sizeof(l));
		memset(&seen, 0, sizeof(seen));
		/* The longest line kept, then one byte more, then two buffers' worth. */
		len = 0;
		memset(big + len, 'a', WPROBE_LINE_BUF - 2);
		len += WPROBE_LINE_BUF - 2;
		big[len++] = '\n';
		memset(big + len, 'b', WPROBE_LINE_BUF - 1);
		len += WPROBE_LINE_BUF - 1;
		big[len++] = '\n';
		len += sprintf(big + len, "short\n");
		memset(big + len, 'c', 2 * WPROBE_LINE_BUF);
		len += 2 * WPROBE_LINE_BUF;
		len += sprintf(big + len, "\nlast\npart");
		feed(&l, big, len, steps[i], &seen);
		assert_int_equal(seen.dropped, 2);
		assert_int_equal(seen.n, 3);
		assert_string_equal(seen.lines[0], "aaaaaaaa:8190");
		assert_string_equal(seen.lines[1], "short:5");
		assert_string_equal(seen.lines[2], "last:4");
		/* The partial line waits for its newline. */
		feed(&l, "\n", 1, 1, &seen);
		assert_int_equal(seen.n, 4);
		assert_string_equal(seen.lines[3], "part:4");
	}
	/* A NUL does not hide the newline after it. */
	memset(&l, 0, sizeof(l));
	memset(&seen, 0, sizeof(seen));
	feed(&l, "x\0y\nz\n", 6, 6, &seen);
	assert_int_equal(seen.n, 2);
	assert_string_equal(seen.lines[0], "x:1");
	assert_string_equal(seen.lines[1], "z:1");
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

static void count_removed(const char *name, void *data)
{
	char *seen = data;

	strcat(seen, name);
	strcat(seen, ",");
}

/* A stand-in tracefs: dynamic_events is a plain file, so the removal
 * lines written to it are appended where the test can read them. */
static void stale(void **state)
{
	char dir[] = "/tmp/kw-tracefs-XXXXXX", path[PATH_MAX], seen[256] = "", buf[512];
	FILE *f;
	size_t n;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/instances", dir);
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/instances/kwatchd", dir);
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/dynamic_events", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("p:kprobes/kwatchd_like vfs_read\n"
	      "w:kwatchd/kwv w@kwt_var:8 value=$value\n"
	      "w:wprobes/mine w@jiffies:8\n"
	      "w500:kwatchd/hot rw@0x0:8\n"
	      "w:kwatchdx/other w@jiffies:8\n", f);
	fclose(f);

	assert_int_equal(wprobe_remove_stale(dir, "kwatchd", count_removed, seen), 2);
	assert_string_equal(seen, "kwv,hot,");
	snprintf(path, sizeof(path), "%s/instances/kwatchd", dir);
	assert_int_equal(access(path, F_OK), -1);
	snprintf(path, sizeof(path), "%s/dynamic_events", dir);
	f = fopen(path, "r");
	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	assert_non_null(strstr(buf, "w:kwatchdx/other w@jiffies:8\n-:kwatchd/kwv\n-:kwatchd/hot\n"));
	assert_null(strstr(buf, "-:kwatchdx"));
	assert_null(strstr(buf, "-:wprobes"));

	/* Nothing left: no instance, no wprobe of ours. */
	seen[0] = '\0';
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("w:wprobes/mine w@jiffies:8\n", f);
	fclose(f);
	assert_int_equal(wprobe_remove_stale(dir, "kwatchd", count_removed, seen), 0);
	assert_string_equal(seen, "");
	unlink(path);
	snprintf(path, sizeof(path), "%s/instances", dir);
	rmdir(path);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(hit),
		cmocka_unit_test(hostile_comm),
		cmocka_unit_test(comm_from_fetch),
		cmocka_unit_test(lost),
		cmocka_unit_test(lines),
		cmocka_unit_test(storm),
		cmocka_unit_test(stale),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
