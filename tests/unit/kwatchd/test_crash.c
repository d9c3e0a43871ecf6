// SPDX-License-Identifier: GPL-2.0
/* Crash capture (kwatchd-crash.c) from pstore, with files in a temporary
 * directory: the guest's real panic record (data/pstore-panic.txt), a
 * blob tied to it, the crash directory.  The daemon's other parts it
 * calls are stand-ins (fake_kwd.h; kwd_state_saved and kwd_reload here,
 * kwd_file_fields in fake_kwd.h); the tie is kwatchd-fuzz.c's own, the
 * watches kwatchd-watch.c's. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <dirent.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "kwatchd-crash.h"
#include "kwatchd-triage.h"
#define FAKE_KWD_FUZZ
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

/* kwatchd-watch.c's retry timer and armed events, not reached here. */
int kwd_reload(struct kwd *d, const char *why)
{
	(void)d;
	(void)why;
	return 0;
}

/* kwatchd-watch.c's module arms, not reached here either. */
void kwd_kernel_error(struct kwd *d, const struct kw_file *f, int r, const char *what,
		      const char *detail)
{
	(void)d;
	(void)f;
	(void)r;
	(void)what;
	(void)detail;
}

void kwbpf_before_arm(struct kwd *d)
{
	(void)d;
}

void kwbpf_sync(struct kwd *d)
{
	(void)d;
}

static struct kwd *new_kwd(void)
{
	struct kwd *d = fake_kwd_new();
	char path[PATH_MAX], *rec = NULL;
	size_t len = 0;

	d->watches = kwd_watches_new();
	assert_non_null(d->watches);
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
	kwd_tie_found(d, "t", "b1", path, true);
	n_events = 0;
	return d;
}

static void free_kwd(struct kwd *d)
{
	crash_close(d);
	kwd_watches_free(d->watches);
	kwd_fuzz_free(d->fuzz);
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
	struct kwd_armed *a;
	json_object *ev;
	const char *s;

	(void)state;
	d->watches = kwd_watches_new();
	assert_non_null(d->watches);
	a = d->watches->armed;
	snprintf(a[0].path, sizeof(a[0].path), "/etc/kwatchd/watch.d/a.conf");
	snprintf(a[0].line, sizeof(a[0].line), "fn=f");
	snprintf(a[1].path, sizeof(a[1].path), "/etc/kwatchd/watch.d/b.conf");
	snprintf(a[1].line, sizeof(a[1].line), "fn=g co=-48 wl=8");
	d->watches->n_armed = 2;
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
	kwd_watches_free(d->watches);
	kwd_fuzz_free(d->fuzz);
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
	kwd_fuzz_free(d->fuzz);
	sd_event_unref(d->ev);
	free(d);
}

/* A stand-in kfuzztest-bridge: each run keeps its input and its PID (the
 * task that would write the input) beside it, then runs a while, or for
 * target "ends" exits at once with status 3 (a report). */
static const char fake_bridge[] =
	"#!/bin/sh\n"
	"keep= t=\n"
	"while [ $# -gt 0 ]; do\n"
	"  case $1 in -k) keep=$2; shift 2 ;; -t|-s|-d|-n|-P) shift 2 ;; -r) shift ;;\n"
	"  -p) echo 'x { u8 };'; exit 0 ;;\n"
	"  *) [ -z \"$t\" ] && t=$1; shift ;; esac\n"
	"done\n"
	"printf 'input of %s' \"$t\" >\"$keep\"\n"
	"echo $$ >\"$keep.pid\"\n"
	"[ \"$t\" = ends ] && exit 3\n"
	"exec sleep 5\n";

static void gen_start(struct kwd *d, const char *target)
{
	char text[256], name[64], reason[256] = "";
	struct kw_file f;

	snprintf(text, sizeof(text), "[fuzz]\ntarget = %s\ngenerate = yes\nbatch = 5\n", target);
	snprintf(name, sizeof(name), "/c/fuzz.d/%s.conf", target);
	assert_int_equal(kw_file_parse(KW_FUZZ, name, text, strlen(text), &f), 0);
	assert_int_equal(fuzz_start(d, &f, reason, sizeof(reason)), 0);
}

/* The PID of @target's run (its batch file's name in @blob), once it runs. */
static long run_pid(struct kwd *d, const char *target, char *blob, size_t n)
{
	char dir[PATH_MAX], path[PATH_MAX + 300], *got = NULL;
	struct dirent *e;
	long pid = -1;
	DIR *dh;
	int i;

	snprintf(dir, sizeof(dir), "%.2000s/generate/%s", d->state_dir, target);
	for (i = 0; i < 300 && pid < 0; i++) {
		sd_event_run(d->ev, 10000);
		dh = opendir(dir);
		assert_non_null(dh);
		while ((e = readdir(dh))) {
			size_t len = strlen(e->d_name);

			if (len < 5 || strcmp(e->d_name + len - 4, ".pid"))
				continue;
			snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
			if (kw_read_file(path, 64, &got, NULL) < 0 || !strchr(got, '\n')) {
				free(got);
				got = NULL;
				continue;
			}
			pid = atol(got);
			free(got);
			got = NULL;
			snprintf(blob, n, "%.*s", (int)(len - 4), e->d_name);
		}
		closedir(dh);
	}
	assert_true(pid > 0);
	return pid;
}

static bool batch_ended(void)
{
	unsigned int i;

	for (i = 0; i < n_events; i++)
		if (strstr(events[i], "\"type\":\"fuzz_batch\""))
			return true;
	return false;
}

/* A WARNING report of task @pid in function @fn, to /dev/kmsg (a FIFO
 * here), read a record at a time as the daemon would. */
static void kmsg_report(struct kwd *d, int wfd, unsigned int seq, long pid, const char *fn)
{
	char rec[256];
	int len;

	len = snprintf(rec, sizeof(rec), "4,%u,1000,-;WARNING: CPU: 0 PID: %ld at lib/x.c:3 "
		       "%s+0x1/0x8\n", seq, pid, fn);
	assert_int_equal(write(wfd, rec, len), len);
	crash_drain(d);
	len = snprintf(rec, sizeof(rec), "4,%u,1001,-;---[ end trace 0 ]---\n", seq + 1);
	assert_int_equal(write(wfd, rec, len), len);
	crash_drain(d);
}

/*
 * Two generators running at once: a report goes to the run whose task it
 * names, not to the first run tied.  A run that ended is tied to nothing:
 * a report of another task after it is no run's.
 */
static void report_tied_by_pid(void **state)
{
	struct kwd *d = new_kwd();
	char blob_a[NAME_MAX + 1], blob_b[NAME_MAX + 1], blob_e[NAME_MAX + 1], want[PATH_MAX];
	long pid_b;
	sigset_t ss;
	int wfd, i;

	(void)state;
	kwd_untie(d);
	sigemptyset(&ss);
	sigaddset(&ss, SIGCHLD);
	sigprocmask(SIG_BLOCK, &ss, NULL);
	snprintf(d->set.bridge, sizeof(d->set.bridge), "%s/bridge", root);
	assert_int_equal(kw_write_file_at(AT_FDCWD, d->set.bridge, fake_bridge,
					  strlen(fake_bridge)), 0);
	assert_int_equal(chmod(d->set.bridge, 0755), 0);
	snprintf(d->set.kfuzztest, sizeof(d->set.kfuzztest), "%s/kft", root);
	d->set.pmsg[0] = '\0';
	wfd = open(d->set.kmsg_path, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
	assert_true(wfd >= 0);

	gen_start(d, "a");
	gen_start(d, "b");
	run_pid(d, "a", blob_a, sizeof(blob_a));
	pid_b = run_pid(d, "b", blob_b, sizeof(blob_b));
	n_events = 0;
	kmsg_report(d, wfd, 100, pid_b, "bf");
	assert_int_equal(n_events, 1);
	snprintf(want, sizeof(want), "\"target\":\"b\",\"blob\":\"%s\"", blob_b);
	if (!strstr(events[0], want))
		fail_msg("report of PID %ld (b's run %s) not tied to it: %s", pid_b, blob_b,
			 events[0]);
	snprintf(want, sizeof(want), "%.2000s/b/%s", d->set.crash_dir, blob_b);
	assert_int_equal(access(want, F_OK), 0);
	assert_true(fuzz_stop(d, "a.conf"));
	assert_true(fuzz_stop(d, "b.conf"));

	/* A run that ended in a report; then another task's report. */
	gen_start(d, "ends");
	run_pid(d, "ends", blob_e, sizeof(blob_e));
	for (i = 0; i < 300 && !batch_ended(); i++)
		sd_event_run(d->ev, 10000);
	assert_true(batch_ended());
	n_events = 0;
	kmsg_report(d, wfd, 102, 1, "otherf");
	assert_int_equal(n_events, 1);
	assert_non_null(strstr(events[0], "\"type\":\"crash\""));
	if (strstr(events[0], "\"blob\""))
		fail_msg("a report after the run ended is tied to it: %s", events[0]);
	fuzz_stop_all(d);
	close(wfd);
	free_kwd(d);
}

/* @text's lines to /dev/kmsg (a FIFO here) as records from *@seq on, each
 * read as the daemon would. */
static void kmsg_lines(struct kwd *d, int wfd, unsigned int *seq, const char *text)
{
	const char *s;
	char rec[1200];
	int len;

	for (s = text; *s; s += strcspn(s, "\n"), s += *s == '\n') {
		len = snprintf(rec, sizeof(rec), "3,%u,%u,-;%.*s\n", *seq, 2000 + *seq,
			       (int)strcspn(s, "\n"), s);
		assert_true(len > 0 && (size_t)len < sizeof(rec));
		assert_int_equal(write(wfd, rec, len), len);
		(*seq)++;
		crash_drain(d);
	}
}

/* A KASAN stack-out-of-bounds report (6.1's format) in @fn of module
 * kwatch_platform, called by @caller, at offset @off of @fn's frame:
 * buf is [32, 40), val [64, 68). */
static void kasan_stack_report(struct kwd *d, int wfd, unsigned int *seq, const char *fn,
			       const char *caller, const char *off)
{
	char text[4096];
	int len;

	len = snprintf(text, sizeof(text),
		       "==================================================================\n"
		       "BUG: KASAN: stack-out-of-bounds in %s+0x6a/0xc0 [kwatch_platform]\n"
		       "Write of size 1 at addr ffffc900003b7c68 by task sh/123\n"
		       "\n"
		       "CPU: 0 PID: 123 Comm: sh Tainted: G           O     N 6.1.192-kwatch+ #20 \n"
		       "Call Trace:\n"
		       " <TASK>\n"
		       " dump_stack_lvl+0x33/0x42\n"
		       " print_report+0x193/0x4a3\n"
		       " kasan_report+0xc5/0xf0\n"
		       " %s+0x6a/0xc0 [kwatch_platform]\n"
		       " %s+0x5c/0x90 [kwatch_platform]\n"
		       " full_proxy_write+0x82/0xb0\n"
		       " </TASK>\n"
		       "\n"
		       "The buggy address belongs to stack of task sh/123\n"
		       " and is located at offset %s in frame:\n"
		       " %s+0x0/0xc0 [kwatch_platform]\n"
		       "\n"
		       "This frame has 2 objects:\n"
		       " [32, 40) 'buf'\n"
		       " [64, 68) 'val'\n"
		       "\n"
		       "Memory state around the buggy address:\n"
		       ">ffffc900003b7c00: 00 f2 f2 f2 04 f3 f3 f3 00 00 00 00 00 00 00 00\n"
		       "                                ^\n"
		       "==================================================================\n",
		       fn, fn, caller, off, fn);
	assert_true(len > 0 && (size_t)len < sizeof(text));
	kmsg_lines(d, wfd, seq, text);
}

/* The triage file @name, into *@text; false if there is none. */
static bool triage_file(struct kwd *d, const char *name, char **text)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%.2000s/" KWD_TRIAGE_DIR "/%s", d->state_dir, name);
	*text = NULL;
	return kw_read_file(path, 4096, text, NULL) == 0;
}

/*
 * Crash to watch: with [triage] kasan_stack = watch, a KASAN
 * stack-out-of-bounds report read from /dev/kmsg writes FUNC-VAR.conf, a
 * watch on the local next to the bad access; not over a triage file of
 * that name, nor when a watch file of the user's watches FUNC.  The
 * stack-protector's panic, through the same code, writes FUNC.conf.
 */
static void triage_watch_written(void **state)
{
	struct kwd *d = new_kwd();
	char path[PATH_MAX], *got;
	unsigned int seq = 200;
	struct kw_file f, user;
	static const char mine[] = "# mine\n[watch]\nfunction = kwatch_platform_stack_oob\n";
	int wfd;

	(void)state;
	kwd_untie(d);
	wfd = open(d->set.kmsg_path, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
	assert_true(wfd >= 0);

	/* Off by default: the crash event, no watch. */
	kasan_stack_report(d, wfd, &seq, "off_fn", "kwp_kasan_write", "40");
	assert_int_equal(n_events, 1);
	assert_non_null(strstr(events[0], "\"type\":\"crash\""));
	assert_non_null(strstr(events[0], "BUG: KASAN: stack-out-of-bounds in off_fn"));
	snprintf(path, sizeof(path), "%.2000s/" KWD_TRIAGE_DIR, d->state_dir);
	assert_int_equal(access(path, F_OK), -1);

	/* On: past the end of buf. */
	d->set.triage_kasan_stack = true;
	kasan_stack_report(d, wfd, &seq, "kwatch_platform_stack_oob", "kwp_kasan_write", "40");
	assert_true(triage_file(d, "kwatch_platform_stack_oob-buf.conf", &got));
	assert_string_equal(got, "# kwatchd triage: KASAN: stack-out-of-bounds next to buf in "
			    "kwatch_platform_stack_oob [kwatch_platform] (the kernel log); remove "
			    "this file to stop watching\n"
			    "[watch]\nfunction = kwatch_platform_stack_oob\nvariable = buf\n"
			    "module = kwatch_platform\n");
	snprintf(path, sizeof(path), "%.2000s/" KWD_TRIAGE_DIR "/kwatch_platform_stack_oob-buf.conf",
		 d->state_dir);
	assert_int_equal(kw_file_parse(KW_WATCH, path, got, strlen(got), &f), 0);
	free(got);
	assert_string_equal(f.watch.function, "kwatch_platform_stack_oob");
	assert_string_equal(f.watch.variable, "buf");
	assert_string_equal(f.watch.module, "kwatch_platform");
	/* Armed: its event says why. */
	n_events = 0;
	kwd_triage_armed(d, &f, "fn=kwatch_platform:kwatch_platform_stack_oob");
	assert_int_equal(n_events, 1);
	assert_non_null(strstr(events[0], "\"type\":\"triage_armed\""));
	assert_non_null(strstr(events[0], "\"function\":\"kwatch_platform_stack_oob\""));
	assert_non_null(strstr(events[0], "\"reason\":\"KASAN: stack-out-of-bounds next to buf in "
			       "kwatch_platform_stack_oob [kwatch_platform] (the kernel log)"));

	/* A triage file of that name is kept as it is: inside val, from
	 * another caller (another report, not a repeat). */
	snprintf(path, sizeof(path), "%.2000s/" KWD_TRIAGE_DIR "/kwatch_platform_stack_oob-val.conf",
		 d->state_dir);
	assert_int_equal(kw_write_file_at(AT_FDCWD, path, mine, strlen(mine)), 0);
	n_events = 0;
	kasan_stack_report(d, wfd, &seq, "kwatch_platform_stack_oob", "other_caller", "65");
	assert_int_equal(n_events, 1);
	assert_non_null(strstr(events[0], "\"type\":\"crash\""));
	assert_true(triage_file(d, "kwatch_platform_stack_oob-val.conf", &got));
	assert_string_equal(got, mine);
	free(got);

	/* The user's own watch on the function is the watch. */
	snprintf(path, sizeof(path), "%s/watch.d/u.conf", root);
	assert_int_equal(kw_file_parse(KW_WATCH, path, "[watch]\nfunction = user_fn\n",
				       strlen("[watch]\nfunction = user_fn\n"), &user), 0);
	d->cur = &user;
	d->n_cur = 1;
	kasan_stack_report(d, wfd, &seq, "user_fn", "kwp_kasan_write", "16");
	assert_false(triage_file(d, "user_fn-buf.conf", &got));
	d->cur = NULL;
	d->n_cur = 0;
	/* Underflow before buf, the first object. */
	kasan_stack_report(d, wfd, &seq, "under_fn", "kwp_kasan_write", "16");
	assert_true(triage_file(d, "under_fn-buf.conf", &got));
	assert_non_null(strstr(got, "\nvariable = buf\n"));
	free(got);

	/* The stack protector's panic: FUNC.conf, its canary. */
	d->set.triage_stack_protector = true;
	kmsg_lines(d, wfd, &seq,
		   "Kernel panic - not syncing: stack-protector: Kernel stack is corrupted in: "
		   "smashed_fn+0x9c/0xa0 [kwatch_platform]\n"
		   "CPU: 0 PID: 1 Comm: sh Tainted: G           O     N 6.1.192-kwatch+ #20\n"
		   "---[ end Kernel panic - not syncing: stack-protector: Kernel stack is corrupted "
		   "in: smashed_fn+0x9c/0xa0 [kwatch_platform] ]---\n");
	assert_true(triage_file(d, "smashed_fn.conf", &got));
	assert_string_equal(got, "# kwatchd triage: stack-protector: Kernel stack is corrupted in: "
			    "smashed_fn [kwatch_platform] (the kernel log); remove this file to "
			    "stop watching\n[watch]\nfunction = smashed_fn\n"
			    "module = kwatch_platform\n");
	free(got);
	close(wfd);
	free_kwd(d);
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
		cmocka_unit_test_setup_teardown(report_tied_by_pid, tmpdir_setup, tmpdir_teardown),
		cmocka_unit_test_setup_teardown(triage_watch_written, tmpdir_setup, tmpdir_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
