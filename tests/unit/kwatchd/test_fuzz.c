// SPDX-License-Identifier: GPL-2.0
/* A fuzz spool runtime (kwatchd-fuzz.c) on a real sd-event loop and inotify,
 * against a temporary directory whose KFuzzTest input is a plain file.
 * The daemon's other parts it calls are stand-ins: events are collected
 * and there are no BPF records (fake_kwd.h), nor kernel log to read
 * (crash_drain, here). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "kwatchd-crash.h"
#define FAKE_KWD_FUZZ
#include "fake_kwd.h"
#include "kwatchd-fuzzguided.h"

bool crash_drain(struct kwd *d)
{
	(void)d;
	return false;
}

/* The events of a type that mention text (NULL: any). */
static unsigned int count(const char *type, const char *text)
{
	char want[64];
	unsigned int i, n = 0;

	snprintf(want, sizeof(want), "\"type\":\"%s\"", type);
	for (i = 0; i < n_events; i++)
		n += strstr(events[i], want) && (!text || strstr(events[i], text));
	return n;
}

static void run_for(struct kwd *d, unsigned int ms)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		sd_event_run(d->ev, 10000);
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 < ms);
}

static struct kwd *new_kwd(void)
{
	struct kwd *d = fake_kwd_new();
	char path[PATH_MAX];

	snprintf(d->confdir, sizeof(d->confdir), "%s/conf", root);
	snprintf(d->set.spool_root, sizeof(d->set.spool_root), "%s/state/spool", root);
	snprintf(d->set.kfuzztest, sizeof(d->set.kfuzztest), "%s/kft", root);
	snprintf(d->set.crash_dir, sizeof(d->set.crash_dir), "%s/state/crashes", root);
	snprintf(d->set.socket_path, sizeof(d->set.socket_path), "%s/run/events.sock", root);
	snprintf(path, sizeof(path), "%s/kft/t", root);
	assert_int_equal(kw_mkdir_p(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/kft/t/input", root);
	assert_int_equal(kw_write_file_at(AT_FDCWD, path, "", 0), 0);
	return d;
}

static void free_kwd(struct kwd *d)
{
	fuzz_stop_all(d);
	kwd_fuzz_free(d->fuzz);
	sd_event_unref(d->ev);
	free(d);
}

static void start(struct kwd *d, const char *text)
{
	char reason[256] = "", path[PATH_MAX];
	struct kw_file f;

	snprintf(path, sizeof(path), "%.2000s/fuzz.d/t.conf", d->confdir);
	assert_int_equal(kw_file_parse(KW_FUZZ, path, text, strlen(text), &f), 0);
	assert_int_equal(fuzz_start(d, &f, reason, sizeof(reason)), 0);
}

/* A blob written in tmp/ and renamed in. */
static void drop(struct kwd *d, const char *name, const char *data)
{
	char tmp[PATH_MAX], dst[PATH_MAX];

	snprintf(tmp, sizeof(tmp), "%.2000s/t/tmp/%s", d->set.spool_root, name);
	snprintf(dst, sizeof(dst), "%.2000s/t/%s", d->set.spool_root, name);
	assert_int_equal(kw_write_file_at(AT_FDCWD, tmp, data, strlen(data)), 0);
	assert_int_equal(rename(tmp, dst), 0);
}

static bool in(struct kwd *d, const char *sub, const char *name)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%.2000s/t/%s/%s", d->set.spool_root, sub, name);
	return access(path, F_OK) == 0;
}

/* Renamed in: replayed once, reported, moved to done/.  Created in the
 * spool itself: refused at once, before anything reads it. */
static void replays_renamed_refuses_in_place(void **state)
{
	struct kwd *d = new_kwd();
	char path[PATH_MAX], *got = NULL;
	int fd;

	(void)state;
	start(d, "[fuzz]\ntarget = t\n");
	drop(d, "b1", "blob-one");
	run_for(d, 200);
	assert_int_equal(count("fuzz_exec", "\"blob\":\"b1\""), 1);
	assert_true(in(d, "done", "b1"));
	snprintf(path, sizeof(path), "%s/kft/t/input", root);
	assert_int_equal(kw_read_file(path, 100, &got, NULL), 0);
	assert_string_equal(got, "blob-one");
	free(got);

	snprintf(path, sizeof(path), "%.2000s/t/half", d->set.spool_root);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "half-", 5), 5);
	run_for(d, 200);
	assert_int_equal(count("fuzz_rejected", "written in place"), 1);
	assert_true(in(d, "rejected", "half"));
	assert_int_equal(write(fd, "whole", 5), 5);
	close(fd);
	drop(d, "b2", "blob-two");
	run_for(d, 200);
	assert_int_equal(count("fuzz_exec", NULL), 2);
	assert_int_equal(count("fuzz_exec", "half"), 0);
	free_kwd(d);
}

/* A pack renamed in: each blob written in order, an event each with its
 * index, the pack in done/ with its results; a loose blob beside it runs
 * too, and a pack not well formed is rejected whole, unrun. */
static void packs_beside_blobs(void **state)
{
	static const char pack[] = "KWPACK01\003\0\0\0one\003\0\0\0two\005\0\0\0three";
	struct kwd *d = new_kwd();
	char tmp[PATH_MAX], dst[PATH_MAX], *got = NULL;

	(void)state;
	start(d, "[fuzz]\ntarget = t\n");
	snprintf(tmp, sizeof(tmp), "%.2000s/t/tmp/p.kwpack", d->set.spool_root);
	snprintf(dst, sizeof(dst), "%.2000s/t/p.kwpack", d->set.spool_root);
	assert_int_equal(kw_write_file_at(AT_FDCWD, tmp, pack, sizeof(pack) - 1), 0);
	assert_int_equal(rename(tmp, dst), 0);
	drop(d, "loose", "blob");
	run_for(d, 300);
	assert_int_equal(count("fuzz_exec", NULL), 4);
	assert_int_equal(count("fuzz_exec", "\"blob\":\"loose\""), 1);
	assert_int_equal(count("fuzz_exec", "\"blob\":\"p.kwpack#0\",\"index\":0,\"size\":3"), 1);
	assert_int_equal(count("fuzz_exec", "\"blob\":\"p.kwpack#2\",\"index\":2,\"size\":5"), 1);
	assert_int_equal(count("fuzz_exec", "/t/done/p.kwpack\""), 3);
	assert_true(in(d, "done", "p.kwpack") && in(d, "done", "p.kwpack.results"));
	snprintf(dst, sizeof(dst), "%.2000s/t/done/p.kwpack.results", d->set.spool_root);
	assert_int_equal(kw_read_file(dst, 100, &got, NULL), 0);
	assert_string_equal(got, "0 3 0\n1 3 0\n2 5 0\n");
	free(got);
	drop(d, "bad.kwpack", "KWPACK01\001\0\0");
	run_for(d, 200);
	assert_int_equal(count("fuzz_rejected", "\"blob\":\"bad.kwpack\""), 1);
	assert_int_equal(count("fuzz_rejected", "its length is cut short"), 1);
	assert_true(in(d, "rejected", "bad.kwpack"));
	assert_int_equal(count("fuzz_exec", NULL), 4);
	free_kwd(d);
}

/* A batch (pmsg set) of the 256 smallest of 300 queued blobs runs in
 * slices, the loop free between them: no turn of the loop writes more than
 * 16 blobs.  Stopped half-way through and started again, every blob is
 * written once, its fuzz_exec said once, and it ends in done/. */
static void batch_in_slices(void **state)
{
	unsigned int i, before, most = 0, turns = 0;
	struct kwd *d = new_kwd();
	char name[32], want[64];

	(void)state;
	snprintf(d->set.pmsg, sizeof(d->set.pmsg), "%s/pmsg", root);
	assert_int_equal(kw_write_file_at(AT_FDCWD, d->set.pmsg, "", 0), 0);
	start(d, "[fuzz]\ntarget = t\n");
	for (i = 0; i < 300; i++) {
		snprintf(name, sizeof(name), "b%03u", i);
		drop(d, name, "blob");
	}
	fake_bpf_polls = 0;
	while (fake_bpf_polls < 100 && turns++ < 10000) {
		before = fake_bpf_polls;
		sd_event_run(d->ev, 10000);
		if (fake_bpf_polls - before > most)
			most = fake_bpf_polls - before;
	}
	print_message("%u blobs written in %u turns, at most %u in one\n", fake_bpf_polls, turns,
		      most);
	assert_true(fake_bpf_polls >= 100);
	assert_true(most <= 16);
	/* Half-way through the first batch: stopped, then started again. */
	assert_true(fake_bpf_polls < 256);
	fuzz_stop_all(d);
	start(d, "[fuzz]\ntarget = t\n");
	for (turns = 0; count("fuzz_exec", NULL) < 300 && turns < 100; turns++)
		run_for(d, 100);
	assert_int_equal(count("fuzz_exec", NULL), 300);
	assert_int_equal(fake_bpf_polls, 300);
	for (i = 0; i < 300; i++) {
		snprintf(name, sizeof(name), "b%03u", i);
		snprintf(want, sizeof(want), "\"blob\":\"%s\"", name);
		assert_int_equal(count("fuzz_exec", want), 1);
		assert_true(in(d, "done", name));
	}
	free_kwd(d);
}

/* input = simple: the blob goes to input_simple, as it is. */
static void spool_to_input_simple(void **state)
{
	struct kwd *d = new_kwd();
	char path[PATH_MAX], *got = NULL;

	(void)state;
	snprintf(path, sizeof(path), "%s/kft/t/input_simple", root);
	assert_int_equal(kw_write_file_at(AT_FDCWD, path, "", 0), 0);
	start(d, "[fuzz]\ntarget = t\ninput = simple\n");
	drop(d, "raw1", "KW\003abc");
	run_for(d, 200);
	assert_int_equal(count("fuzz_exec", "\"blob\":\"raw1\""), 1);
	assert_int_equal(kw_read_file(path, 100, &got, NULL), 0);
	assert_string_equal(got, "KW\003abc");
	free(got);
	free_kwd(d);
}

/* The result's record cannot be written (a directory squats on its
 * NAME.errno, as ENOSPC would stop it): one fuzz_stalled, replay paused,
 * then the result reported once it can be recorded, and fuzz_resumed. */
static void stalls_and_resumes(void **state)
{
	struct kwd *d = new_kwd();
	char path[PATH_MAX];

	(void)state;
	snprintf(path, sizeof(path), "%s/kft/t/input", root);
	assert_int_equal(unlink(path), 0);	/* every blob is rejected: ENOENT */
	start(d, "[fuzz]\ntarget = t\n");
	snprintf(path, sizeof(path), "%.2000s/t/rejected/x.errno", d->set.spool_root);
	assert_int_equal(mkdir(path, 0700), 0);
	drop(d, "x", "blob");
	run_for(d, 1500);
	assert_int_equal(count("fuzz_stalled", "\"blob\":\"x\""), 1);
	assert_int_equal(count("fuzz_rejected", NULL), 0);
	assert_false(in(d, "inflight", "x"));
	assert_int_equal(rmdir(path), 0);
	run_for(d, 1500);
	assert_int_equal(count("fuzz_rejected", "\"blob\":\"x\""), 1);
	assert_int_equal(count("fuzz_resumed", NULL), 1);
	assert_int_equal(count("fuzz_stalled", NULL), 1);
	assert_true(in(d, "rejected", "x.errno"));
	free_kwd(d);
}

/* keep = N: done/ keeps the newest N, pruned back to N once it may hold
 * N + N/10 (so here after each result past the third), and when the
 * spool starts. */
static void keeps_the_newest(void **state)
{
	struct kwd *d = new_kwd();
	char name[8];
	int i;

	(void)state;
	start(d, "[fuzz]\ntarget = t\nkeep = 3\n");
	for (i = 0; i < 6; i++) {
		snprintf(name, sizeof(name), "k%d", i);
		drop(d, name, "blob");
		run_for(d, 100);
	}
	assert_int_equal(count("fuzz_exec", NULL), 6);
	assert_false(in(d, "done", "k2"));
	assert_true(in(d, "done", "k3"));
	fuzz_stop_all(d);
	start(d, "[fuzz]\ntarget = t\nkeep = 3\n");
	assert_false(in(d, "done", "k2"));
	assert_true(in(d, "done", "k3"));
	assert_true(in(d, "done", "k5"));
	free_kwd(d);
}

/* A spool that others may write is refused with the reason. */
static void foreign_spool_refused(void **state)
{
	struct kwd *d = new_kwd();
	char reason[256] = "", dir[PATH_MAX];
	struct kw_file f;
	static const char text[] = "[fuzz]\ntarget = t\n";

	(void)state;
	snprintf(dir, sizeof(dir), "%.2000s/t", d->set.spool_root);
	assert_int_equal(kw_mkdir_p(dir, 0700), 0);
	assert_int_equal(chmod(dir, 0777), 0);
	assert_int_equal(kw_file_parse(KW_FUZZ, "/c/fuzz.d/t.conf", text, strlen(text), &f), 0);
	assert_int_equal(fuzz_start(d, &f, reason, sizeof(reason)), -EPERM);
	assert_non_null(strstr(reason, "writable by others"));
	free_kwd(d);
}

/* generate = yes (kwatchd-fuzzgen.c), with a stand-in bridge: -p answers for the
 * schema (an error for target "bad"); a run keeps "input N" in its -k
 * file and exits 0, or 3 (a report) for "crashy", or is killed for
 * "killed". */
static const char fake_bridge[] =
	"#!/bin/sh\n"
	"keep= n= t= pmsg=\n"
	"while [ $# -gt 0 ]; do\n"
	"  case $1 in -k) keep=$2; shift 2 ;; -n) n=$2; shift 2 ;; -t|-s|-b) shift 2 ;;\n"
	"  -d) [ -d \"$2\" ] || exit 9; shift 2 ;;\n"
	"  -P) pmsg=$2; shift 2 ;;\n"
	"  -r) echo raw >\"$0.raw\"; shift ;;\n"
	"  -p) [ \"$2\" = bad ] && { echo 'struct x.y: a union is not handled' >&2; exit 1; }\n"
	"      [ \"$2\" = trickle ] && { for i in 1 2 3 4 5 6 7 8 9 10 11 12 13; do\n"
	"        echo . >&2; sleep 1; done; exit 0; }\n"
	"      [ \"$2\" = quiet ] && { exec 2>&-; sleep 13; exit 0; }\n"
	"      echo 'x { u8 };'; exit 0 ;;\n"
	"  *) [ -z \"$t\" ] && t=$1; shift ;; esac\n"
	"done\n"
	"printf 'input %s' \"$n\" >\"$keep\"\n"
	"[ -z \"$pmsg\" ] || echo \"kfuzztest-input b $$ $t ${keep##*/} 1 00\" >>\"$pmsg\"\n"
	"case $t in crashy) exit 3 ;; killed) kill -9 $$ ;; esac\n"
	"exit 0\n";

static struct kwd *gen_kwd(void)
{
	struct kwd *d = new_kwd();
	sigset_t ss;

	sigemptyset(&ss);
	sigaddset(&ss, SIGCHLD);
	sigprocmask(SIG_BLOCK, &ss, NULL);
	snprintf(d->set.bridge, sizeof(d->set.bridge), "%s/bridge", root);
	/* pstore's pmsg device: a file here. */
	snprintf(d->set.pmsg, sizeof(d->set.pmsg), "%s/pmsg", root);
	assert_int_equal(kw_write_file_at(AT_FDCWD, d->set.pmsg, "", 0), 0);
	assert_int_equal(kw_write_file_at(AT_FDCWD, d->set.bridge, fake_bridge,
					  strlen(fake_bridge)), 0);
	assert_int_equal(chmod(d->set.bridge, 0755), 0);
	return d;
}

static int gen_start(struct kwd *d, const char *target, char *reason, size_t n)
{
	char text[256];
	struct kw_file f;

	snprintf(text, sizeof(text), "[fuzz]\ntarget = %s\ngenerate = yes\nbatch = 5\n", target);
	assert_int_equal(kw_file_parse(KW_FUZZ, "/c/fuzz.d/g.conf", text, strlen(text), &f), 0);
	return fuzz_start(d, &f, reason, n);
}

/* The blob the last fuzz_batch event names, into @blob. */
static void batch_blob(char *blob, size_t n)
{
	const char *p = NULL;
	unsigned int i;
	size_t len;

	for (i = 0; i < n_events; i++)
		if (strstr(events[i], "\"type\":\"fuzz_batch\""))
			p = strstr(events[i], "\"blob\":\"");
	assert_non_null(p);
	p += strlen("\"blob\":\"");
	len = strcspn(p, "\"");
	assert_true(len < n);
	memcpy(blob, p, len);
	blob[len] = '\0';
}

static unsigned int lines_with(const char *text, const char *s)
{
	unsigned int n = 0;

	for (; (text = strstr(text, s)); text += strlen(s))
		n++;
	return n;
}

static void generated_batches(void **state)
{
	struct kwd *d = gen_kwd();
	char reason[256] = "", path[PATH_MAX], *got = NULL;
	static const char simple_text[] = "[fuzz]\ntarget = t\ngenerate = yes\ninput = simple\n";
	char blob[NAME_MAX + 1];
	struct kw_file f;

	(void)state;
	/* No schema: the file's error, in the bridge's words. */
	assert_int_equal(gen_start(d, "bad", reason, sizeof(reason)), -EINVAL);
	assert_string_equal(reason, "no schema for bad: struct x.y: a union is not handled");
	assert_int_equal(d->fuzz->n_gen, 0);

	/* Whole batches, one after the other; nothing is kept. */
	assert_int_equal(gen_start(d, "t", reason, sizeof(reason)), 0);
	run_for(d, 600);
	assert_true(count("fuzz_batch", "\"outcome\":\"done\"") >= 2);
	assert_true(count("fuzz_batch", "\"inputs\":5,") >= 2);
	assert_int_equal(count("fuzz_batch", "\"exit_status\":0"), count("fuzz_batch", NULL));
	assert_true(fuzz_stop(d, "g.conf"));
	/* The bridge was given pmsg; each batch's end is said there after it
	 * (a panic after it is not the batch's). */
	assert_int_equal(kw_read_file(d->set.pmsg, 1 << 20, &got, NULL), 0);
	assert_true(lines_with(got, " 1 00") >= count("fuzz_batch", NULL));
	/* One end per batch, and for the one the stop killed, if any. */
	assert_true(lines_with(got, " end") >= count("fuzz_batch", NULL));
	assert_true(lines_with(got, " end") <= count("fuzz_batch", NULL) + 1);
	assert_non_null(strstr(got, "kfuzztest-input b "));
	assert_non_null(strstr(got, d->ectx.boot_id));
	free(got);
	got = NULL;
	snprintf(path, sizeof(path), "%s/state/generate/t", root);
	assert_int_equal(rmdir(path), 0);	/* empty */

	/* A report: one batch, its input kept; the run is over, so no later
	 * report is tied to it. */
	n_events = 0;
	assert_int_equal(gen_start(d, "crashy", reason, sizeof(reason)), 0);
	run_for(d, 500);
	assert_int_equal(count("fuzz_batch", NULL), 1);
	assert_int_equal(count("fuzz_batch", "\"outcome\":\"report\""), 1);
	assert_int_equal(count("fuzz_batch", "\"exit_status\":3"), 1);
	assert_null(kwd_tied_blob(d, NULL));
	batch_blob(blob, sizeof(blob));
	snprintf(path, sizeof(path), "%s/state/generate/crashy/%s", root, blob);
	assert_int_equal(kw_read_file(path, 100, &got, NULL), 0);
	assert_string_equal(got, "input 5");
	free(got);
	assert_true(fuzz_stop(d, "g.conf"));
	assert_null(kwd_tied_blob(d, NULL));

	/* input = simple: raw bytes (-r) to a target that has input_simple. */
	n_events = 0;
	assert_int_equal(kw_file_parse(KW_FUZZ, "/c/fuzz.d/g.conf", simple_text,
				       strlen(simple_text), &f), 0);
	assert_int_equal(fuzz_start(d, &f, reason, sizeof(reason)), -ENOENT);
	assert_non_null(strstr(reason, "input = simple wants a FUZZ_TEST_SIMPLE target"));
	snprintf(path, sizeof(path), "%s/kft/t/input_simple", root);
	assert_int_equal(kw_write_file_at(AT_FDCWD, path, "", 0), 0);
	assert_int_equal(fuzz_start(d, &f, reason, sizeof(reason)), 0);
	run_for(d, 300);
	assert_true(count("fuzz_batch", "\"outcome\":\"done\"") >= 1);
	snprintf(path, sizeof(path), "%.4000s.raw", d->set.bridge);
	assert_int_equal(access(path, F_OK), 0);
	assert_true(fuzz_stop(d, "g.conf"));

	/* Killed in a write (an oops): the same, with the signal. */
	n_events = 0;
	assert_int_equal(gen_start(d, "killed", reason, sizeof(reason)), 0);
	run_for(d, 500);
	assert_int_equal(count("fuzz_batch", "\"outcome\":\"killed\""), 1);
	assert_int_equal(count("fuzz_batch", "\"signal\":9"), 1);
	assert_null(kwd_tied_blob(d, NULL));
	free_kwd(d);
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/* The schema check (bridge -p) has an overall deadline of 10 s: a bridge
 * that keeps writing a line a second, or that closes its stderr and goes
 * on, is stopped then, and the file's error says so. */
static void schema_check_bounded(void **state)
{
	static const char *const targets[] = { "trickle", "quiet" };
	struct kwd *d = gen_kwd();
	char reason[256] = "";
	long long t0, ms;
	size_t i;
	int r;

	(void)state;
	for (i = 0; i < 2; i++) {
		t0 = now_ms();
		r = gen_start(d, targets[i], reason, sizeof(reason));
		ms = now_ms() - t0;
		print_message("%s: %d after %lld ms: %s\n", targets[i], r, ms, reason);
		assert_int_equal(r, -ETIMEDOUT);
		assert_non_null(strstr(reason, "no answer in 10 s"));
		assert_true(ms < 11500);
	}
	assert_int_equal(d->fuzz->n_gen, 0);
	free_kwd(d);
}

/* generate = guided: a stand-in kfuzztest-fuzz that keeps its arguments,
 * prints the harness's and libFuzzer's lines (and one over a kilobyte,
 * as libFuzzer's dump of an input is), runs a while and, for "crashy",
 * keeps an input, a crash artifact and ends in a report. */
static const char fake_fuzzer[] =
	"#!/bin/sh\n"
	"echo \"$@\" >\"$0.args\"\n"
	"keep= pre= t=\n"
	"for a in \"$@\"; do case $a in --keep=*) keep=${a#--keep=} ;;\n"
	"  -artifact_prefix=*) pre=${a#-artifact_prefix=} ;; --target=*) t=${a#--target=} ;; esac\n"
	"done\n"
	"echo 'INFO: Seed: 1' >&2\n"
	"printf '#2\\tINITED ft: 3 corp: 1/10b exec/s: 0 rss: 30Mb\\n' >&2\n"
	"echo 'kfuzztest-fuzz: execs 40 edges 7 refused 0' >&2\n"
	"head -c 3000 /dev/zero | tr '\\0' x >&2; echo >&2\n"
	"printf '#50\\tNEW    ft: 9 corp: 4/40b lim: 20 exec/s: 50 rss: 30Mb\\n' >&2\n"
	"echo 'kfuzztest-fuzz: execs 50 edges 9 refused 0' >&2\n"
	"[ \"$t\" = broken ] && { echo '==1== ERROR: libFuzzer: deadly signal' >&2; exit 3; }\n"
	"sleep 1.5\n"
	"[ \"$t\" = crashy ] || exit 0\n"
	"printf 'input 50' >\"$keep\"; printf bytes >\"${pre}crash-abc\"\n"
	"echo 'kfuzztest-fuzz: a kernel report after execution 53: BUG: KASAN: slab-out-of-bounds in f+0x1/0x2' >&2\n"
	"exit 3\n";

static void guided_runs(void **state)
{
	struct kwd *d = gen_kwd();
	char reason[256] = "", path[PATH_MAX], *got = NULL;
	static const char text[] = "[fuzz]\ntarget = crashy\ngenerate = guided\nbuffer_size = 16\n"
				   "stats_interval = 1\n";
	const char *target = NULL;
	char blob[NAME_MAX + 1];
	json_object *arr, *o;
	struct kw_file f;

	(void)state;
	snprintf(d->set.fuzzer, sizeof(d->set.fuzzer), "%s/fuzzer", root);
	assert_int_equal(kw_file_parse(KW_FUZZ, "/c/fuzz.d/g.conf", text, strlen(text), &f), 0);
	assert_true(f.fuzz.guided && f.fuzz.generate);
	/* No fuzzer, then no KCOV: the file's errors, saying what is missing. */
	assert_int_equal(fuzz_start(d, &f, reason, sizeof(reason)), -ENOENT);
	assert_non_null(strstr(reason, "/fuzzer: No such file or directory (generate = guided runs it)"));
	assert_int_equal(kw_write_file_at(AT_FDCWD, d->set.fuzzer, fake_fuzzer,
					  strlen(fake_fuzzer)), 0);
	assert_int_equal(chmod(d->set.fuzzer, 0755), 0);
	assert_int_equal(fuzz_start(d, &f, reason, sizeof(reason)), -ENOENT);
	assert_non_null(strstr(reason, "/kcov: No such file or directory (generate = guided needs "
				       "the kernel's coverage: CONFIG_KCOV)"));
	snprintf(path, sizeof(path), "%s/kcov", root);
	assert_int_equal(kw_write_file_at(AT_FDCWD, path, "", 0), 0);
	assert_int_equal(d->fuzz->n_gen, 0);

	assert_int_equal(fuzz_start(d, &f, reason, sizeof(reason)), 0);
	run_for(d, 1300);
	/* Stats while it runs: the harness's figures and libFuzzer's corpus. */
	assert_true(count("fuzz_stats", "\"running\":true") >= 1);
	assert_true(count("fuzz_stats", "\"total_inputs\":50,") >= 1);
	assert_true(count("fuzz_stats", "\"corpus\":4,\"edges\":9,\"runs\":1,") >= 1);
	arr = json_object_new_array();
	fuzzgen_status(d, arr);
	o = json_object_array_get_idx(arr, 0);
	assert_non_null(o);
	assert_non_null(strstr(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN), "\"mode\":\"guided\""));
	assert_non_null(strstr(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN), "\"corpus\":4,\"edges\":9"));
	json_object_put(arr);
	/* Running: reports are tied to its input. */
	assert_non_null(kwd_tied_blob(d, &target));
	assert_string_equal(target, "crashy");
	run_for(d, 1000);

	/* The run ended in a report: counted, its input kept, no longer tied. */
	assert_true(count("fuzz_batch", NULL) >= 1);
	assert_int_equal(count("fuzz_batch", "\"outcome\":\"report\""), 1);
	assert_int_equal(count("fuzz_batch", "\"mode\":\"guided\""), count("fuzz_batch", NULL));
	assert_true(count("fuzz_batch", "\"inputs\":53,") >= 1);	/* the report's count */
	assert_null(kwd_tied_blob(d, NULL));
	batch_blob(blob, sizeof(blob));
	snprintf(path, sizeof(path), "%s/state/generate/crashy/%s", root, blob);
	assert_int_equal(kw_read_file(path, 100, &got, NULL), 0);
	assert_string_equal(got, "input 50");
	free(got);
	/* libFuzzer's crash file, named after the input. */
	snprintf(path, sizeof(path), "%s/state/generate/crashy/%s.crash-abc", root, blob);
	assert_int_equal(access(path, F_OK), 0);
	/* What the fuzzer was told. */
	snprintf(path, sizeof(path), "%s/fuzzer.args", root);
	assert_int_equal(kw_read_file(path, 4096, &got, NULL), 0);
	assert_non_null(strstr(got, "--target=crashy --table=/usr/share/kwatch/kfuzztest-targets.txt"
				    " --size=16 --dir="));
	snprintf(path, sizeof(path), " --dir=%s/kft --keep=", root);
	assert_non_null(strstr(got, path));
	assert_non_null(strstr(got, " -error_exitcode=3 -artifact_prefix="));
	/* Each input to pmsg as well, then the corpus. */
	snprintf(path, sizeof(path), " --pmsg=%s/pmsg %s/state/corpus/crashy\n", root, root);
	assert_non_null(strstr(got, path));
	free(got);
	snprintf(path, sizeof(path), "%s/state/corpus/crashy", root);
	assert_int_equal(access(path, F_OK), 0);
	assert_true(fuzz_stop(d, "g.conf"));

	/* Status 3 without a kernel report: the harness crashed, not the kernel.
	 * A kernel without pmsg: the run goes on without it. */
	n_events = 0;
	unlink(d->set.pmsg);
	snprintf(f.fuzz.target, sizeof(f.fuzz.target), "broken");
	assert_int_equal(fuzz_start(d, &f, reason, sizeof(reason)), 0);
	run_for(d, 500);
	snprintf(path, sizeof(path), "%s/fuzzer.args", root);
	assert_int_equal(kw_read_file(path, 4096, &got, NULL), 0);
	assert_null(strstr(got, "--pmsg="));
	assert_non_null(strstr(got, "--target=broken"));
	free(got);
	got = NULL;
	assert_int_equal(count("fuzz_batch", "\"outcome\":\"failed\""), 1);
	assert_int_equal(count("fuzz_batch", "\"exit_status\":3"), 1);
	assert_null(kwd_tied_blob(d, NULL));
	assert_true(fuzz_stop(d, "g.conf"));
	free_kwd(d);
}

/* The fuzzer's stderr in pieces: lines whole, the overlong one dropped,
 * numbers that do not parse change nothing. */
static void guided_lines(void **state)
{
	static const char out[] = "kfuzztest-fuzz: execs 12 edges 3 refused 1\n"
				  "#7\tNEW ft: 5 corp: 2/9b lim: 4\n"
				  "#9\tNEW ft: 5 corp: x/9b\n"
				  "kfuzztest-fuzz: execs many edges 4 refused 0\n"
				  "kfuzztest-fuzz: /sys/kernel/debug/kcov: No such file\n"
				  "kfuzztest-fuzz: a kernel report after execution 17: BUG: KASAN: x\n";
	struct guided_lines lb = { 0 };
	struct guided_stats st = { 0 };
	char big[3000];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(out) - 1; i += 5)
		guided_feed(&lb, &st, out + i, sizeof(out) - 1 - i < 5 ? sizeof(out) - 1 - i : 5);
	assert_int_equal(st.execs, 17);		/* the report's count */
	assert_int_equal(st.edges, 3);
	assert_int_equal(st.refused, 1);
	assert_int_equal(st.corpus, 2);
	assert_string_equal(st.error, "/sys/kernel/debug/kcov: No such file");
	assert_string_equal(st.report, "BUG: KASAN: x");
	guided_line(&st, "kfuzztest-fuzz: a kernel report after execution 3x: BUG: y");
	assert_int_equal(st.execs, 17);
	assert_string_equal(st.report, "BUG: y");
	memset(big, 'x', sizeof(big));
	memcpy(big, "kfuzztest-fuzz: execs 99 edges 99 refused 0 ", 44);
	guided_feed(&lb, &st, big, sizeof(big));
	guided_feed(&lb, &st, "\nkfuzztest-fuzz: execs 13 edges 5 refused 1\n", 44);
	assert_int_equal(st.execs, 13);
	assert_int_equal(st.edges, 5);
}

/* A producer_group that names no group fails the start before the spool
 * is opened: freeing the runtime then closes none of the daemon's
 * descriptors (fd 0 is a live one in the daemon: a spool directory or a
 * client socket), however often the file is applied. */
static void unknown_group_closes_nothing(void **state)
{
	static const char text[] = "[fuzz]\ntarget = t\nproducer_group = kw-no-such-group\n";
	struct kwd *d = new_kwd();
	char reason[256] = "";
	struct kw_file f;
	int saved, p[2], i;

	(void)state;
	saved = dup(0);
	assert_true(saved >= 0);
	assert_int_equal(pipe(p), 0);
	assert_int_equal(dup2(p[0], 0), 0);
	assert_int_equal(kw_file_parse(KW_FUZZ, "/c/fuzz.d/t.conf", text, strlen(text), &f), 0);
	for (i = 0; i < 2; i++) {
		assert_int_equal(fuzz_start(d, &f, reason, sizeof(reason)), -ENOENT);
		assert_string_equal(reason, "producer_group kw-no-such-group: no such group");
		assert_true(fcntl(0, F_GETFD) >= 0);
	}
	assert_int_equal(d->fuzz->n_fuzz, 0);
	assert_int_equal(dup2(saved, 0), 0);
	close(saved);
	close(p[0]);
	close(p[1]);
	free_kwd(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(replays_renamed_refuses_in_place, tmpdir_setup,
						tmpdir_teardown),
		cmocka_unit_test_setup_teardown(stalls_and_resumes, tmpdir_setup, tmpdir_teardown),
		cmocka_unit_test_setup_teardown(keeps_the_newest, tmpdir_setup, tmpdir_teardown),
		cmocka_unit_test_setup_teardown(foreign_spool_refused, tmpdir_setup,
						tmpdir_teardown),
		cmocka_unit_test_setup_teardown(unknown_group_closes_nothing, tmpdir_setup,
						tmpdir_teardown),
		cmocka_unit_test_setup_teardown(generated_batches, tmpdir_setup, tmpdir_teardown),
		cmocka_unit_test_setup_teardown(schema_check_bounded, tmpdir_setup, tmpdir_teardown),
		cmocka_unit_test_setup_teardown(guided_runs, tmpdir_setup, tmpdir_teardown),
		cmocka_unit_test(guided_lines),
		cmocka_unit_test_setup_teardown(packs_beside_blobs, tmpdir_setup, tmpdir_teardown),
		cmocka_unit_test_setup_teardown(batch_in_slices, tmpdir_setup, tmpdir_teardown),
		cmocka_unit_test_setup_teardown(spool_to_input_simple, tmpdir_setup,
						tmpdir_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
