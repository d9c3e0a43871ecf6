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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(scan_once, tmpdir_setup, tmpdir_teardown),
		cmocka_unit_test_setup_teardown(callback_error, tmpdir_setup, tmpdir_teardown),
		cmocka_unit_test_setup_teardown(seen_bounded, tmpdir_setup, tmpdir_teardown),
		cmocka_unit_test(real_record),
		cmocka_unit_test(cause_and_panic),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
