// SPDX-License-Identifier: GPL-2.0
/* Crash capture (crash.c) from pstore, with files in a temporary
 * directory: the guest's real panic record (data/pstore-panic.txt), a
 * blob tied to it, the crash directory.  The daemon's other parts it
 * calls are stand-ins (fake_kwd.h; kwd_state_saved here); the tie is
 * fuzz.c's own. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <dirent.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "crash.h"
#include "fake_kwd.h"
#include "kmsg.h"

/* Linked with --wrap=kmsg_parser_init: a failure to provoke. */
int __real_kmsg_parser_init(struct kmsg_parser *p);
int __wrap_kmsg_parser_init(struct kmsg_parser *p);
static bool parser_init_fails;

int __wrap_kmsg_parser_init(struct kmsg_parser *p)
{
	return parser_init_fails ? -ENOMEM : __real_kmsg_parser_init(p);
}

void kwd_state_saved(struct kwd *d, bool *failing, const char *path, int err)
{
	(void)d;
	(void)path;
	*failing = err < 0;
}

static struct kwd *new_kwd(void)
{
	struct kwd *d = fake_kwd_new();
	char path[PATH_MAX], *rec = NULL;
	size_t len = 0;

	snprintf(d->set.kmsg_path, sizeof(d->set.kmsg_path), "%s/kmsg", root);
	snprintf(d->set.kallsyms, sizeof(d->set.kallsyms), "%s/no-kallsyms", root);
	snprintf(d->set.pstore, sizeof(d->set.pstore), "%s/pstore", root);
	snprintf(d->set.crash_dir, sizeof(d->set.crash_dir), "%s/state/crashes", root);
	assert_int_equal(kw_mkdir_p(d->set.pstore, 0700), 0);
	/* No log to read in this test, but something epoll takes: a FIFO. */
	assert_int_equal(mkfifo(d->set.kmsg_path, 0600), 0);
	assert_int_equal(kw_read_file(KW_TEST_DATA "/pstore-panic.txt", 1 << 20, &rec, &len), 0);
	snprintf(path, sizeof(path), "%.2000s/dmesg-ramoops-0", d->set.pstore);
	assert_int_equal(kw_write_file_at(AT_FDCWD, path, rec, len), 0);
	free(rec);
	snprintf(path, sizeof(path), "%s/b1", root);
	assert_int_equal(kw_write_file_at(AT_FDCWD, path, "null\n", 5), 0);
	assert_int_equal(crash_open(d), 0);
	/* The blob found in flight at start-up, claimed in the boot that panicked. */
	kwd_tie(d, "t", "b1", path);
	d->tie.prev_boot = true;
	n_events = 0;
	return d;
}

static void free_kwd(struct kwd *d)
{
	crash_close(d);
	sd_event_unref(d->ev);
	free(d);
}

static bool kept(struct kwd *d, const char *name)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%.2000s/t/%s", d->set.crash_dir, name);
	return access(path, F_OK) == 0;
}

/* The previous boot's panic: one crash event from pstore, tied to the blob,
 * which is kept with the whole record as its report; not reported twice. */
static void panic_tied_and_kept(void **state)
{
	struct kwd *d = new_kwd();
	char path[PATH_MAX], *report = NULL;

	(void)state;
	crash_pstore(d);
	assert_int_equal(n_events, 1);
	assert_non_null(strstr(events[0], "\"type\":\"crash\""));
	assert_non_null(strstr(events[0], "\"report_source\":\"pstore\""));
	assert_non_null(strstr(events[0], "\"function\":\"kwatch_platform_null_store\""));
	assert_non_null(strstr(events[0], "\"target\":\"t\",\"blob\":\"b1\""));
	assert_true(kept(d, "b1"));
	snprintf(path, sizeof(path), "%.2000s/t/b1.report", d->set.crash_dir);
	assert_int_equal(kw_read_file(path, 1 << 20, &report, NULL), 0);
	assert_non_null(strstr(report, "BUG: kernel NULL pointer dereference"));
	free(report);
	crash_pstore(d);
	assert_int_equal(n_events, 1);
	free_kwd(d);
}

#define PREV "0f3c5bc8-9a54-4b43-8b2f-d3e6a1e0b3a1"

/* No spool blob in flight at start-up; the boot kwatchd last ran in is
 * PREV (kmsg.pos), and pmsg of that boot has @lines. */
static struct kwd *new_kwd_pmsg(const char *lines)
{
	struct kwd *d = new_kwd();
	char path[PATH_MAX];

	crash_close(d);
	kwd_untie(d);
	snprintf(path, sizeof(path), "%.2000s/kmsg.pos", d->state_dir);
	assert_int_equal(kw_write_file_at(AT_FDCWD, path, PREV " 9\n", strlen(PREV " 9\n")), 0);
	snprintf(path, sizeof(path), "%.2000s/pmsg-ramoops-0", d->set.pstore);
	assert_int_equal(kw_write_file_at(AT_FDCWD, path, lines, strlen(lines)), 0);
	snprintf(d->set.pmsg, sizeof(d->set.pmsg), "/dev/pmsg0");
	assert_int_equal(crash_open(d), 0);
	return d;
}

/* The one event is tied to blob @name of target t, whose kept file holds
 * @len bytes of @data. */
static void expect_kept_input(struct kwd *d, const char *name, const char *data, size_t len)
{
	char path[PATH_MAX], tie[128], *got = NULL;
	size_t got_len = 0;

	assert_int_equal(n_events, 1);
	snprintf(tie, sizeof(tie), "\"target\":\"t\",\"blob\":\"%s\"", name);
	assert_non_null(strstr(events[0], tie));
	snprintf(path, sizeof(path), "%.2000s/t/%s", d->set.crash_dir, name);
	assert_int_equal(kw_read_file(path, 1 << 20, &got, &got_len), 0);
	assert_int_equal(got_len, len);
	assert_memory_equal(got, data, len);
	free(got);
}

/*
 * A panic in a generated or guided run: the report's task (PID 230) had
 * input 2 of run gen-5-2 in flight, as the previous boot's pmsg says.
 * The crash is tied to it, and the input is kept under the run's name
 * with the record beside it, as a report read live would be.
 */
static void panic_tied_to_pmsg_input(void **state)
{
	struct kwd *d = new_kwd_pmsg(
		"kfuzztest-input other-boot 230 t gen-1-1 1 4141\n"
		"kfuzztest-input " PREV " 230 t gen-5-2 1 6e75\n"
		"kfuzztest-input " PREV " 231 t gen-5-3 1 ffff\n"
		"kfuzztest-input " PREV " 230 t gen-5-2 2 6e756c6c0a\n");
	char path[PATH_MAX];

	(void)state;
	crash_pstore(d);
	expect_kept_input(d, "gen-5-2", "null\n", 5);
	assert_non_null(strstr(events[0], "\"report_source\":\"pstore\""));
	assert_true(kept(d, "gen-5-2.report"));
	/* Nothing left tied, no file left behind. */
	assert_null(kwd_tied_blob(d, NULL));
	snprintf(path, sizeof(path), "%.2000s/panic-input", d->state_dir);
	assert_int_equal(access(path, F_OK), -1);
	free_kwd(d);
}

/* A harness run by hand without --keep names no run ("-"): the input is
 * kept under a name of its number. */
static void panic_tied_unnamed_input(void **state)
{
	struct kwd *d = new_kwd_pmsg("kfuzztest-input " PREV " 230 t - 3 00ff\n");

	(void)state;
	crash_pstore(d);
	expect_kept_input(d, "pmsg-input-3", "\x00\xff", 2);
	free_kwd(d);
}

/* The task's run had ended, or pmsg has no line of that boot: the crash is
 * reported, tied to nothing. */
static void panic_not_tied_without_its_input(void **state)
{
	static const char *const cases[] = {
		"kfuzztest-input " PREV " 230 t gen-5-2 1 6e75\n"
		"kfuzztest-input " PREV " 230 t gen-5-2 end\n",
		"kfuzztest-input other-boot 230 t gen-5-2 1 6e75\n",
		"kfuzztest-input " PREV " 231 t gen-5-2 1 6e75\n",
	};
	unsigned int i;

	(void)state;
	for (i = 0; i < 3; i++) {
		struct kwd *d = new_kwd_pmsg(cases[i]);
		char path[PATH_MAX];

		crash_pstore(d);
		assert_int_equal(n_events, 1);
		assert_non_null(strstr(events[0], "\"report_source\":\"pstore\""));
		assert_null(strstr(events[0], "\"blob\""));
		assert_false(kept(d, "gen-5-2"));
		free_kwd(d);
		/* The next case's record is new again. */
		snprintf(path, sizeof(path), "%s/state/pstore.seen", root);
		unlink(path);
		snprintf(path, sizeof(path), "%s/kmsg", root);
		unlink(path);
	}
}

/* A crash directory others may write is not the daemon's: the crash is
 * still reported, nothing is written there. */
static void foreign_crash_dir_not_used(void **state)
{
	struct kwd *d = new_kwd();

	(void)state;
	assert_int_equal(kw_mkdir_p(d->set.crash_dir, 0700), 0);
	assert_int_equal(chmod(d->set.crash_dir, 0777), 0);
	crash_pstore(d);
	assert_int_equal(n_events, 1);
	assert_non_null(strstr(events[0], "\"type\":\"crash\""));
	assert_false(kept(d, "b1"));
	free_kwd(d);
}

/* Which of several watches fired: its line, and the file that armed it;
 * a line no file of ours armed (another boot's) gets no file. */
static void watch_named_by_its_line(void **state)
{
	struct kwd *d = fake_kwd_new();
	json_object *ev;
	const char *s;

	(void)state;
	snprintf(d->armed[0].path, sizeof(d->armed[0].path), "/etc/kwatchd/watch.d/a.conf");
	snprintf(d->armed[0].line, sizeof(d->armed[0].line), "fn=f");
	snprintf(d->armed[1].path, sizeof(d->armed[1].path), "/etc/kwatchd/watch.d/b.conf");
	snprintf(d->armed[1].line, sizeof(d->armed[1].line), "fn=g co=-48 wl=8");
	d->n_armed = 2;
	ev = json_object_new_object();
	kwd_watch_fields(d, ev, "fn=g co=-48 wl=8");
	s = json_object_to_json_string_ext(ev, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
	assert_string_equal(s, "{\"definition\":\"fn=g co=-48 wl=8\","
			    "\"watch_file\":\"/etc/kwatchd/watch.d/b.conf\"}");
	json_object_put(ev);
	ev = json_object_new_object();
	kwd_watch_fields(d, ev, "fn=h");
	s = json_object_to_json_string_ext(ev, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
	assert_string_equal(s, "{\"definition\":\"fn=h\"}");
	json_object_put(ev);
	ev = json_object_new_object();
	kwd_watch_fields(d, ev, "");
	assert_int_equal(json_object_object_length(ev), 0);
	json_object_put(ev);
	sd_event_unref(d->ev);
	free(d);
}

static unsigned int open_fds(void)
{
	DIR *dir = opendir("/proc/self/fd");
	unsigned int n = 0;

	assert_non_null(dir);
	while (readdir(dir))
		n++;
	closedir(dir);
	return n;
}

/* crash_open() that fails leaves nothing behind: no descriptor, no
 * memory (ASan's leak check at exit), no half-made d->crash. */
static void crash_open_fails_cleanly(void **state)
{
	struct kwd *d = fake_kwd_new();
	unsigned int fds;

	(void)state;
	snprintf(d->set.kmsg_path, sizeof(d->set.kmsg_path), "%s/kmsg", root);
	assert_int_equal(mkfifo(d->set.kmsg_path, 0600), 0);
	d->set.kmsg = true;
	fds = open_fds();
	parser_init_fails = true;
	assert_int_equal(crash_open(d), -ENOMEM);
	parser_init_fails = false;
	assert_null(d->crash);
	assert_int_equal(open_fds(), fds);
	/* A regular file, which epoll refuses. */
	assert_int_equal(unlink(d->set.kmsg_path), 0);
	assert_int_equal(kw_write_file_at(AT_FDCWD, d->set.kmsg_path, "", 0), 0);
	assert_int_equal(crash_open(d), -EPERM);
	assert_null(d->crash);
	assert_int_equal(open_fds(), fds);
	/* Not there. */
	assert_int_equal(unlink(d->set.kmsg_path), 0);
	assert_int_equal(crash_open(d), -ENOENT);
	assert_null(d->crash);
	assert_int_equal(open_fds(), fds);
	sd_event_unref(d->ev);
	free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(panic_tied_and_kept, tmpdir_setup, tmpdir_teardown),
		cmocka_unit_test_setup_teardown(crash_open_fails_cleanly, tmpdir_setup,
						tmpdir_teardown),
		cmocka_unit_test_setup_teardown(watch_named_by_its_line, tmpdir_setup, tmpdir_teardown),
		cmocka_unit_test_setup_teardown(panic_tied_to_pmsg_input, tmpdir_setup, tmpdir_teardown),
		cmocka_unit_test_setup_teardown(panic_tied_unnamed_input, tmpdir_setup, tmpdir_teardown),
		cmocka_unit_test_setup_teardown(panic_not_tied_without_its_input, tmpdir_setup,
						tmpdir_teardown),
		cmocka_unit_test_setup_teardown(foreign_crash_dir_not_used, tmpdir_setup,
						tmpdir_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
