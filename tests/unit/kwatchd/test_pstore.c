// SPDX-License-Identifier: GPL-2.0
/* pstore records: found in /sys/fs/pstore and systemd-pstore's archive,
 * handed out once, split into the panic and the report that caused it.
 * data/pstore-panic.txt is a real ramoops record of the test guest (see
 * data/README). */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "fuzzpanic.h"
#include "pstore.h"
#include "util.h"
#include "tmpdir.h"


static void put(const char *rel, const char *text)
{
	char path[512], dir[512];

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	snprintf(dir, sizeof(dir), "%s", path);
	*strrchr(dir, '/') = '\0';
	assert_int_equal(kw_mkdir_p(dir, 0700), 0);
	assert_int_equal(kw_write_file_at(AT_FDCWD, path, text, strlen(text)), 0);
}

struct seen_recs {
	unsigned int n;
	char path[8][512];
	char reason[8][16];
	unsigned int part[8];
	int fail_at;			/* 1-based call to fail with -EIO, 0: none */
};

static int collect(const struct pstore_record *rec, void *userdata)
{
	struct seen_recs *s = userdata;

	assert_int_equal(strlen(rec->text), rec->len);
	if (s->fail_at && s->n + 1 == (unsigned int)s->fail_at) {
		s->fail_at = 0;
		return -EIO;
	}
	if (s->n < 8) {
		snprintf(s->path[s->n], sizeof(s->path[0]), "%s", rec->path + strlen(root));
		snprintf(s->reason[s->n], sizeof(s->reason[0]), "%s", rec->reason);
		s->part[s->n] = rec->part;
	}
	s->n++;
	return 0;
}

#define PANIC "Panic#2 Part1\n<0>[   50.000000] Kernel panic - not syncing: Fatal exception\n"
#define OOPS  "Oops#1 Part1\n<1>[   49.000000] BUG: kernel NULL pointer dereference\n"

static int scan(struct seen_recs *s)
{
	char dirs[512], seen[256];

	snprintf(dirs, sizeof(dirs), "%s/pstore %s/missing  %s/archive", root, root, root);
	snprintf(seen, sizeof(seen), "%s/state/pstore.seen", root);
	memset(s->path, 0, sizeof(s->path));
	s->n = 0;
	return pstore_scan(dirs, seen, collect, s);
}

/* Records in the pstore file system and in systemd-pstore's archive (a
 * copy, and its dmesg.txt): each distinct one once, then never again. */
static void scan_once(void **state)
{
	struct seen_recs s = { .n = 0 };

	(void)state;
	put("state/.keep", "");
	put("pstore/dmesg-ramoops-1", PANIC);
	put("pstore/dmesg-ramoops-0", OOPS);
	put("pstore/console-ramoops-0", "console\n");
	put("pstore/.dmesg-ramoops-9", PANIC "hidden\n");
	put("archive/0/dmesg-ramoops-1", PANIC);
	put("archive/0/dmesg.txt", "dmesg-ramoops-1:\n" PANIC);
	put("archive/1/dmesg-ramoops-7", "no header\n");
	put("archive/1/sub/dmesg-ramoops-8", PANIC "too deep\n");

	/* Newest first, where names sort by time. */
	assert_int_equal(scan(&s), 3);
	assert_int_equal(s.n, 3);
	assert_string_equal(s.path[0], "/pstore/dmesg-ramoops-1");
	assert_string_equal(s.reason[0], "Panic");
	assert_int_equal(s.part[0], 1);
	assert_string_equal(s.path[1], "/pstore/dmesg-ramoops-0");
	assert_string_equal(s.reason[1], "Oops");
	assert_string_equal(s.path[2], "/archive/1/dmesg-ramoops-7");
	assert_string_equal(s.reason[2], "");
	assert_int_equal(s.part[2], 0);

	/* A restarted daemon: nothing new. */
	assert_int_equal(scan(&s), 0);
	assert_int_equal(s.n, 0);
	/* The next boot's panic: only it. */
	put("pstore/dmesg-ramoops-1", "Panic#1 Part1\n<0>[   7.000000] Kernel panic - not syncing: x\n");
	assert_int_equal(scan(&s), 1);
	assert_string_equal(s.path[0], "/pstore/dmesg-ramoops-1");
}

/* A callback error stops the scan and leaves that record unread. */
static void callback_error(void **state)
{
	struct seen_recs s = { .fail_at = 2 };

	(void)state;
	put("state/.keep", "");
	put("pstore/dmesg-ramoops-0", OOPS);
	put("pstore/dmesg-ramoops-1", PANIC);
	assert_int_equal(scan(&s), -EIO);
	assert_int_equal(s.n, 1);
	assert_int_equal(scan(&s), 1);
	assert_string_equal(s.path[0], "/pstore/dmesg-ramoops-0");
}

/* At most PSTORE_SEEN_MAX records are followed, the newest names; room is
 * made as records go. */
static void seen_bounded(void **state)
{
	struct seen_recs s = { .n = 0 };
	char name[64], text[64], path[256], *list;
	size_t len, lines = 0, i;

	(void)state;
	put("state/.keep", "");
	for (i = 0; i < PSTORE_SEEN_MAX + 6; i++) {
		snprintf(name, sizeof(name), "pstore/dmesg-ramoops-%03zu", i);
		snprintf(text, sizeof(text), "Panic#%zu Part1\n", i);
		put(name, text);
	}
	assert_int_equal(scan(&s), PSTORE_SEEN_MAX);
	snprintf(path, sizeof(path), "%s/state/pstore.seen", root);
	assert_int_equal(kw_read_file(path, 1 << 16, &list, &len), 0);
	for (i = 0; i < len; i++)
		lines += list[i] == '\n';
	free(list);
	assert_int_equal(lines, PSTORE_SEEN_MAX);
	assert_int_equal(scan(&s), 0);
	for (i = 0; i < 10; i++) {
		snprintf(path, sizeof(path), "%s/pstore/dmesg-ramoops-%03zu", root,
			 PSTORE_SEEN_MAX + 5 - i);
		assert_int_equal(unlink(path), 0);
	}
	assert_int_equal(scan(&s), 6);
	assert_string_equal(s.path[0], "/pstore/dmesg-ramoops-005");
}

/* The guest's record: a page-fault oops in the fuzz target's write, then
 * the panic panic_on_oops makes of it. */
static void real_record(void **state)
{
	struct kmsg_report *cause, *panic;
	char path[512], *text;

	(void)state;
	snprintf(path, sizeof(path), "%s/pstore-panic.txt", KW_TEST_DATA);
	assert_int_equal(kw_read_file(path, 1 << 20, &text, NULL), 0);
	assert_int_equal(pstore_reports(text, &cause, &panic), 0);
	free(text);
	assert_non_null(cause);
	assert_non_null(panic);
	assert_int_equal(cause->kind, KMSG_OOPS);
	assert_string_equal(cause->title, "BUG: kernel NULL pointer dereference, address: 0000000000000010");
	assert_string_equal(cause->function, "kwatch_platform_null_store");
	assert_string_equal(cause->module, "kwatch_platform");
	assert_int_equal(cause->access, KMSG_ACCESS_WRITE);
	assert_true(cause->complete);
	assert_true(cause->nframes >= 3);
	assert_int_equal(panic->kind, KMSG_PANIC);
	assert_string_equal(panic->title, "Kernel panic - not syncing: Fatal exception");
	free(cause);
	free(panic);
}

/* The cause is the last report before the panic; a panic alone has none;
 * a record without a panic has no panic report. */
static void cause_and_panic(void **state)
{
	static const char both[] =
		"Panic#3 Part1\n"
		"<4>[    1.000000] ------------[ cut here ]------------\n"
		"<4>[    1.000001] WARNING: CPU: 0 PID: 1 at lib/a.c:1 early_warn+0x1/0x2\n"
		"<4>[    1.000002] ---[ end trace 0000000000000000 ]---\n"
		"<13>[    1.500000] user: BUG: KASAN: written to /dev/kmsg\n"
		"<4>[    2.000000] ------------[ cut here ]------------\n"
		"<4>[    2.000001] WARNING: CPU: 0 PID: 1 at lib/b.c:2 late_warn+0x1/0x2\n"
		"<4>[    2.000002] ---[ end trace 0000000000000000 ]---\n"
		"<0>[    2.100000] Kernel panic - not syncing: panic_on_warn set ...\n"
		"<0>[    2.100001] CPU: 0 PID: 1 Comm: swapper/0\n";
	static const char alone[] =
		"Panic#1 Part1\n<0>[    3.000000] Kernel panic - not syncing: sysrq triggered crash\n";
	static const char no_panic[] =
		"Oops#1 Part1\n"
		"<4>[    1.000000] ------------[ cut here ]------------\n"
		"<4>[    1.000001] WARNING: CPU: 0 PID: 1 at lib/a.c:1 only_warn+0x1/0x2\n"
		"<4>[    1.000002] ---[ end trace 0000000000000000 ]---\n";
	struct kmsg_report *cause, *panic;

	(void)state;
	assert_int_equal(pstore_reports(both, &cause, &panic), 0);
	assert_non_null(cause);
	assert_non_null(panic);
	assert_string_equal(cause->function, "late_warn");
	assert_string_equal(panic->title, "Kernel panic - not syncing: panic_on_warn set ...");
	assert_false(panic->complete);
	free(cause);
	free(panic);

	assert_int_equal(pstore_reports(alone, &cause, &panic), 0);
	assert_null(cause);
	assert_non_null(panic);
	assert_string_equal(panic->title, "Kernel panic - not syncing: sysrq triggered crash");
	free(panic);

	assert_int_equal(pstore_reports(no_panic, &cause, &panic), 0);
	assert_non_null(cause);
	assert_null(panic);
	assert_string_equal(cause->function, "only_warn");
	free(cause);
}

/* The task a report names: its "PID: N" followed by a blank. */
static void panic_pid(void **state)
{
	(void)state;
	assert_int_equal(fuzz_panic_pid("<4>CPU: 0 PID: 230 Comm: kfuzztest-fuzz Tainted: G"), 230);
	assert_int_equal(fuzz_panic_pid("WARNING: CPU: 1 PID: 7 at lib/a.c:1 f+0x1/0x2"), 7);
	assert_int_equal(fuzz_panic_pid("Kernel panic - not syncing: Fatal exception"), -1);
	assert_int_equal(fuzz_panic_pid("CPU: 0 PID: x Comm: a"), -1);
	assert_int_equal(fuzz_panic_pid("CPU: 0 PID: 0 Comm: swapper/0"), -1);
	assert_int_equal(fuzz_panic_pid(NULL), -1);
}

#define B "0f3c5bc8-9a54-4b43-8b2f-d3e6a1e0b3a1"

/*
 * The input in flight: the last line of the boot and task asked for,
 * whatever other boots, tasks and the spool wrote around it; an "end"
 * closes the run; lines that do not parse (the ring's cut first line,
 * bad names, bad hex, a seq of 0) are skipped.
 */
static void panic_input_found(void **state)
{
	static const char pmsg[] =
		"stream-input " B " 230 t gen-1-1 1 41\n"		/* cut by the ring */
		"kfuzztest-input other-boot 230 t gen-1-1 1 4141\n"
		"kwatchd-spool 5f 0 start\n"
		"kfuzztest-input " B " 230 t gen-5-2 1 6e75\n"
		"kfuzztest-input " B " 231 u gen-5-3 7 ffff\n"
		"kfuzztest-input " B " 230 t gen-5-2 2 6e756c6c0a\n"
		"kfuzztest-input " B " 230 t ../x 3 00\n"
		"kfuzztest-input " B " 230 a/b gen-5-2 3 00\n"
		"kfuzztest-input " B " 230 t gen-5-2 3 0\n"
		"kfuzztest-input " B " 230 t gen-5-2 3 0G\n"
		"kfuzztest-input " B " 230 t gen-5-2 3 0A\n"
		"kfuzztest-input " B " 230 t gen-5-2 0 00\n"
		"kfuzztest-input " B " 230 t gen-5-2 3\n"
		"kfuzztest-input " B " 230 t gen-5-2 end x\n"
		"kfuzztest-input " B " 2300 t gen-5-2 end\n";
	struct fuzz_panic_input in;

	(void)state;
	assert_int_equal(fuzz_panic_find(pmsg, B, 230, &in), 0);
	assert_string_equal(in.target, "t");
	assert_string_equal(in.name, "gen-5-2");
	assert_int_equal(in.seq, 2);
	assert_int_equal(in.len, 5);
	assert_memory_equal(in.data, "null\n", 5);
	free(in.data);

	assert_int_equal(fuzz_panic_find(pmsg, B, 231, &in), 0);
	assert_string_equal(in.target, "u");
	assert_int_equal(in.seq, 7);
	assert_int_equal(in.len, 2);
	assert_memory_equal(in.data, "\xff\xff", 2);
	free(in.data);

	assert_int_equal(fuzz_panic_find(pmsg, "other-boot", 230, &in), 0);
	assert_string_equal(in.name, "gen-1-1");
	free(in.data);

	/* No line of that task, of that boot; no text at all. */
	assert_int_equal(fuzz_panic_find(pmsg, B, 232, &in), -ENOENT);
	assert_null(in.data);
	assert_int_equal(fuzz_panic_find(pmsg, "a-third-boot", 230, &in), -ENOENT);
	assert_int_equal(fuzz_panic_find(NULL, B, 230, &in), -ENOENT);
	assert_int_equal(fuzz_panic_find("", B, 230, &in), -ENOENT);
	assert_int_equal(fuzz_panic_find(pmsg, "", 230, &in), -ENOENT);
	assert_int_equal(fuzz_panic_find(pmsg, B, -1, &in), -ENOENT);
}

/* A run that ended has nothing in flight; one recorded by number only is
 * said so; a hex past the harness's limit is no line of it. */
static void panic_input_ended_or_unrecorded(void **state)
{
	static const char ended[] =
		"kfuzztest-input " B " 230 t gen-5-2 1 6e75\n"
		"kfuzztest-input " B " 230 t gen-5-2 end\n";
	static const char big[] =
		"kfuzztest-input " B " 230 t gen-5-2 1 6e75\n"
		"kfuzztest-input " B " 230 t gen-5-2 2 -\n";
	struct fuzz_panic_input in;
	char *huge;
	size_t n = strlen("kfuzztest-input " B " 230 t g 1 ");

	(void)state;
	assert_int_equal(fuzz_panic_find(ended, B, 230, &in), -ENOENT);
	assert_null(in.data);
	assert_int_equal(fuzz_panic_find(big, B, 230, &in), -E2BIG);
	assert_string_equal(in.name, "gen-5-2");
	assert_int_equal(in.seq, 2);
	assert_null(in.data);

	huge = malloc(n + 2 * 8194 + 2);
	assert_non_null(huge);
	sprintf(huge, "kfuzztest-input " B " 230 t g 1 ");
	memset(huge + n, 'a', 2 * 8194);
	strcpy(huge + n + 2 * 8194, "\n");
	assert_int_equal(fuzz_panic_find(huge, B, 230, &in), -ENOENT);
	/* 8192 bytes is the most a line holds. */
	strcpy(huge + n + 2 * 8192, "\n");
	assert_int_equal(fuzz_panic_find(huge, B, 230, &in), 0);
	assert_int_equal(in.len, 8192);
	assert_int_equal(in.data[8191], 0xaa);
	free(in.data);
	free(huge);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(scan_once, tmpdir_setup, tmpdir_teardown),
		cmocka_unit_test_setup_teardown(callback_error, tmpdir_setup, tmpdir_teardown),
		cmocka_unit_test_setup_teardown(seen_bounded, tmpdir_setup, tmpdir_teardown),
		cmocka_unit_test(real_record),
		cmocka_unit_test(cause_and_panic),
		cmocka_unit_test(panic_pid),
		cmocka_unit_test(panic_input_found),
		cmocka_unit_test(panic_input_ended_or_unrecorded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
