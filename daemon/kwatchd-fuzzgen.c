// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz.d files with generate = yes: no spool.  kfuzztest-bridge, in a
 * child process, writes inputs built from the target's schema, which it
 * derives from the kernel's BTF and the target table (-t), or raw random
 * bytes to input_simple (-r, input = simple), a batch at a time.  The
 * target runs in the child, so an oops kills the child and not the
 * daemon.  The child keeps the input in flight in a file of its batch
 * (-k) and stops at the first kernel report after a write; the kernel
 * reports of its task (their PID) are tied to that file while it runs, so
 * the crash event and crashes/<target>/ have the input that caused it.
 * A batch that ended in a report keeps its file.
 *
 * generate = guided runs kfuzztest-fuzz instead: libFuzzer on the same
 * schema, steered by the kernel's coverage (KCOV), with its corpus in
 * <state_dir>/corpus/<target>.  It runs until a report (or its end), and
 * each run is a batch as above.  Its stderr (kwatchd-fuzzguided.c) gives the
 * figures of the fuzz_stats event, every stats_interval seconds.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kwatchd-crash.h"
#include "kwatchd-fuzzguided.h"
#include "fuzzpanic.h"
#include "kwatchd.h"
#include "log.h"
#include "util.h"

#define GEN_DIR			"generate"
#define CORPUS_DIR		"corpus"
#define GUIDED_READ_MAX		65536	/* stderr bytes read per wakeup */
#define GEN_PAUSE_USEC		3000000ULL	/* after a report: let kmsg catch up */
#define GEN_BACKOFF_MIN_S	5
#define GEN_BACKOFF_MAX_S	60
#define GEN_CHECK_TIMEOUT_MS	10000	/* under the unit's WatchdogSec=30s */
#define GEN_CHECK_POLL_US	10000	/* its exit looked for after its stderr closed */
#define GEN_KEEP_REPORTED	100		/* batch files kept after a report */

struct fuzzgen_rt {
	struct kwd *d;
	struct kw_file file;
	char dir[PATH_MAX];		/* <state_dir>/generate/<target> */
	char blob[NAME_MAX + 1];	/* the batch's name: its input file */
	char path[PATH_MAX];		/* the batch's input file */
	struct kwd_tie tie;		/* reports of its task, while it runs */
	pid_t pid;
	sd_event_source *child, *timer;
	uint64_t started_us;
	uint64_t batches, inputs, reports, failures;
	unsigned int backoff_s;
	/* generate = guided */
	char corpus[PATH_MAX];		/* <state_dir>/corpus/<target> */
	int err_fd;			/* the fuzzer's stderr, -1: none */
	sd_event_source *err_io, *stats;
	struct guided_lines lines;
	struct guided_stats run;	/* the run in progress, or the last */
	uint64_t corpus_size, edges;	/* the latest figures of any run */
	uint64_t stats_inputs, stats_us;	/* at the last fuzz_stats */
	uint64_t inputs_per_s;
};

/* The child's side of a fork: the default signals, stdin on /dev/null. */
static void child_exec(const char *const *argv, int err_fd)
{
	sigset_t ss;
	int fd = open("/dev/null", O_RDWR | O_CLOEXEC);

	sigemptyset(&ss);
	sigprocmask(SIG_SETMASK, &ss, NULL);
	signal(SIGPIPE, SIG_DFL);
	if (fd >= 0) {
		dup2(fd, STDIN_FILENO);
		dup2(fd, STDOUT_FILENO);
	}
	if (err_fd >= 0)
		dup2(err_fd, STDERR_FILENO);
	execv(argv[0], (char *const *)argv);
	_exit(127);
}

/* Start @argv; with @err_rd, its stderr is a pipe whose end is there. */
static pid_t fork_exec(const char *const *argv, int *err_rd)
{
	int p[2] = { -1, -1 };
	pid_t pid;

	if (err_rd && pipe2(p, O_CLOEXEC) < 0)
		return neg_errno();
	pid = fork();
	if (pid == 0)
		child_exec(argv, p[1]);
	if (pid < 0)
		pid = neg_errno();
	if (err_rd) {
		close(p[1]);
		if (pid < 0)
			close(p[0]);
		else
			*err_rd = p[0];
	}
	return pid;
}

/* Milliseconds until @deadline (kw_now_usec()), 0 once it has passed. */
static int left_ms(uint64_t deadline)
{
	uint64_t now = kw_now_usec();

	return now >= deadline ? 0 : (int)((deadline - now + 999) / 1000);
}

/*
 * The bridge derives the schema (-p) before anything runs: what it cannot
 * handle is the file's error, in the bridge's words (a field it names).
 */
static int derive_check(struct fuzzgen_rt *z, char *reason, size_t n)
{
	const struct kw_settings *set = &z->d->set;
	char size[16], msg[512];
	const char *argv[] = { set->bridge, "-t", set->fuzz_table, "-s", size, "-p",
			       z->file.fuzz.target, NULL };
	struct pollfd pfd;
	bool stuck = false;
	uint64_t deadline;
	size_t got = 0;
	int err_fd, status = 0, r;
	pid_t pid;

	if (access(set->bridge, X_OK) < 0) {
		snprintf(reason, n, "%s: %s (the bridge that generates inputs)", set->bridge,
			 strerror(errno));
		return -ENOENT;
	}
	if (z->file.fuzz.guided) {
		/* KCOV is a debugfs file beside kfuzztest/. */
		const char *slash = strrchr(set->kfuzztest, '/');

		if (access(set->fuzzer, X_OK) < 0) {
			snprintf(reason, n, "%s: %s (generate = guided runs it)", set->fuzzer,
				 strerror(errno));
			return -ENOENT;
		}
		snprintf(msg, sizeof(msg), "%.*s/kcov",
			 slash ? (int)(slash - set->kfuzztest) : 0, set->kfuzztest);
		if (access(msg, F_OK) < 0) {
			r = neg_errno();
			snprintf(reason, n,
				 "%s: %s (generate = guided needs the kernel's coverage: CONFIG_KCOV)",
				 msg, strerror(-r));
			return r;
		}
	}
	if (z->file.fuzz.simple) {
		/* Raw bytes need no schema; the target must take them. */
		snprintf(msg, sizeof(msg), "%.400s/%s/input_simple", set->kfuzztest,
			 z->file.fuzz.target);
		if (access(msg, F_OK) == 0)
			return 0;
		r = neg_errno();
		snprintf(reason, n, "%s: %s (input = simple wants a FUZZ_TEST_SIMPLE target)", msg,
			 strerror(-r));
		return r;
	}
	snprintf(size, sizeof(size), "%u", z->file.fuzz.buffer_size);
	pid = fork_exec(argv, &err_fd);
	if (pid < 0)
		return pid;
	pfd.fd = err_fd;
	pfd.events = POLLIN;
	/* Its stderr until it closes, then its exit: one bounded wait for
	 * the whole check (it runs in the event loop), however it trickles. */
	deadline = kw_now_usec() + GEN_CHECK_TIMEOUT_MS * 1000ULL;
	for (;;) {
		char drop[256];
		ssize_t k;

		r = poll(&pfd, 1, left_ms(deadline));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			stuck = true;
			break;
		}
		if (got < sizeof(msg) - 1)
			k = read(err_fd, msg + got, sizeof(msg) - 1 - got);
		else
			k = read(err_fd, drop, sizeof(drop));
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		if (got < sizeof(msg) - 1)
			got += k;
	}
	close(err_fd);
	msg[got] = '\0';
	if (got && msg[got - 1] == '\n')
		msg[got - 1] = '\0';
	/* Its stderr closed, it may still run. */
	while (!stuck) {
		pid_t w = waitpid(pid, &status, WNOHANG);

		if (w == pid || (w < 0 && errno != EINTR))
			break;
		if (!left_ms(deadline))
			stuck = true;
		else if (w == 0)
			usleep(GEN_CHECK_POLL_US);
	}
	/* A bridge that takes longer than that is stuck: it goes. */
	if (stuck) {
		kill(pid, SIGKILL);
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
	}
	if (stuck) {
		snprintf(reason, n, "%s -p %s: no answer in %d s", set->bridge,
			 z->file.fuzz.target, GEN_CHECK_TIMEOUT_MS / 1000);
		return -ETIMEDOUT;
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	snprintf(reason, n, "no schema for %s: %s", z->file.fuzz.target,
		 msg[0] ? msg : "the bridge failed");
	return -EINVAL;
}

static int on_timer(sd_event_source *s, uint64_t usec, void *userdata);

/* The next batch in delay_us.  The timer is made once and armed again
 * after: a failure to make one is said, not a generator that silently
 * never runs again. */
static int schedule(struct fuzzgen_rt *z, uint64_t delay_us)
{
	int r;

	if (z->timer) {
		r = sd_event_source_set_time_relative(z->timer, delay_us);
		if (r >= 0)
			r = sd_event_source_set_enabled(z->timer, SD_EVENT_ONESHOT);
	} else {
		r = sd_event_add_time_relative(z->d->ev, &z->timer, CLOCK_MONOTONIC, delay_us,
					       10000, on_timer, z);
	}
	if (r < 0)
		log_warning_errno(r, "fuzz %s: cannot schedule the next batch: %m",
				  z->file.fuzz.target);
	return r;
}

/* Batch files that ended in a report are kept; the oldest go past a
 * bound.  Names sort by time (gen-<unix seconds>-<batch>). */
static void prune(struct fuzzgen_rt *z)
{
	struct dirent **names = NULL;
	int n, i, dfd;

	dfd = open(z->dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0)
		return;
	n = scandir(z->dir, &names, NULL, alphasort);
	for (i = 0; i < n; i++) {
		if (names[i]->d_name[0] != '.' && i + GEN_KEEP_REPORTED < n)
			unlinkat(dfd, names[i]->d_name, 0);
		free(names[i]);
	}
	free(names);
	close(dfd);
}

static const char *const outcome_name[] = { "done", "report", "killed", "failed" };
enum outcome { DONE, REPORT, KILLED, FAILED };

static enum outcome outcome_of(const siginfo_t *si)
{
	if (si->si_code == CLD_EXITED)
		return si->si_status == 0 ? DONE : si->si_status == 3 ? REPORT : FAILED;
	return si->si_code == CLD_KILLED || si->si_code == CLD_DUMPED ? KILLED : FAILED;
}

static void guided_drain(struct fuzzgen_rt *z);
static void guided_close(struct fuzzgen_rt *z);

static int on_batch_exit(sd_event_source *s, const siginfo_t *si, void *userdata)
{
	struct fuzzgen_rt *z = userdata;
	struct kwd *d = z->d;
	uint64_t us = kw_now_usec() - z->started_us, delay_us = 0;
	uint64_t inputs = z->file.fuzz.batch;
	enum outcome o = outcome_of(si);
	bool guided = z->file.fuzz.guided;
	json_object *ev;

	(void)s;
	z->child = sd_event_source_unref(z->child);
	z->pid = 0;
	/* What the run made the kernel report is in the log by now (the
	 * bridge saw it, or an oops killed it): read while the run is tied,
	 * and then nothing more is the run's. */
	crash_drain(d);
	kwd_untie_run(d, &z->tie);
	/* No input of the run is in flight now, whatever it wrote last. */
	fuzz_pmsg_end(d->set.pmsg, d->ectx.boot_id, si->si_pid, z->file.fuzz.target, z->blob);
	if (guided) {
		/* The fuzzer is gone: all it wrote is in the pipe. */
		guided_drain(z);
		guided_close(z);
		inputs = z->run.execs;
		z->inputs += inputs;
		/* Status 3 is libFuzzer's for any crash: a kernel report is
		 * one the harness announced; else the harness itself failed. */
		if (o == REPORT && !z->run.report[0])
			o = FAILED;
		if (z->run.report[0])
			log_info("fuzz %s: a kernel report after %" PRIu64 " inputs: %s",
				 z->file.fuzz.target, inputs, z->run.report);
		else if (o == FAILED && z->run.error[0])
			log_warning("fuzz %s: %s", z->file.fuzz.target, z->run.error);
	}
	switch (o) {
	case DONE:
		if (!guided)
			z->inputs += inputs;
		z->backoff_s = 0;
		unlink(z->path);
		break;
	case REPORT:
	case KILLED:
		/* A report, or an oops that killed the bridge: its input stays,
		 * and the kept ones are bounded. */
		z->reports++;
		z->backoff_s = 0;
		prune(z);
		delay_us = GEN_PAUSE_USEC;
		break;
	case FAILED:
		z->failures++;
		unlink(z->path);
		z->backoff_s = z->backoff_s ? z->backoff_s * 2 : GEN_BACKOFF_MIN_S;
		if (z->backoff_s > GEN_BACKOFF_MAX_S)
			z->backoff_s = GEN_BACKOFF_MAX_S;
		delay_us = z->backoff_s * 1000000ULL;
		log_warning("fuzz %s: %s exited with status %d; again in %u s",
			    z->file.fuzz.target, guided ? d->set.fuzzer : d->set.bridge,
			    si->si_status, z->backoff_s);
		break;
	}
	z->batches++;
	ev = kw_event_new("fuzz_batch");
	if (ev) {
		kw_event_add_str(ev, "target", z->file.fuzz.target);
		kw_event_add_str(ev, "file", z->file.path);
		kw_event_add_str(ev, "outcome", outcome_name[o]);
		if (si->si_code == CLD_EXITED)
			kw_event_add_int(ev, "exit_status", si->si_status);
		else
			kw_event_add_int(ev, "signal", si->si_status);
		kw_event_add_str(ev, "blob", z->blob);
		/* A guided run counts what it ran, whatever its end. */
		if (o == DONE || guided) {
			kw_event_add_u64(ev, "inputs", inputs);
			kw_event_add_u64(ev, "inputs_per_s", us ? inputs * 1000000ULL / us : 0);
		}
		if (guided)
			kw_event_add_str(ev, "mode", "guided");
		kw_event_add_u64(ev, "duration_us", us);
		kw_event_add_u64(ev, "total_inputs", z->inputs);
		kw_event_add_u64(ev, "total_reports", z->reports);
		kwd_emit(d, ev);
	}
	schedule(z, delay_us);
	return 0;
}

/* The fuzzer's stderr, as it comes; bounded per wakeup. */
static void guided_drain(struct fuzzgen_rt *z)
{
	char buf[4096];
	size_t total = 0;
	ssize_t k;

	while (z->err_fd >= 0 && total < GUIDED_READ_MAX) {
		k = read(z->err_fd, buf, sizeof(buf));
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			if (k == 0 || errno != EAGAIN)
				guided_close(z);
			return;
		}
		guided_feed(&z->lines, &z->run, buf, k);
		total += k;
	}
}

/* The run's figures into the file's: the latest corpus, the most edges. */
static void guided_fold(struct fuzzgen_rt *z)
{
	if (z->run.corpus)
		z->corpus_size = z->run.corpus;
	if (z->run.edges > z->edges)
		z->edges = z->run.edges;
}

static void guided_close(struct fuzzgen_rt *z)
{
	z->err_io = sd_event_source_disable_unref(z->err_io);
	if (z->err_fd >= 0)
		close(z->err_fd);
	z->err_fd = -1;
	guided_fold(z);
}

static int on_guided_err(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	(void)s;
	(void)fd;
	(void)revents;
	guided_drain(userdata);
	return 0;
}

/* Every stats_interval seconds: how the guided fuzzer is doing. */
static int on_stats(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct fuzzgen_rt *z = userdata;
	uint64_t now = kw_now_usec(), total;
	json_object *ev;

	(void)s;
	(void)usec;
	guided_fold(z);
	total = z->inputs + (z->pid ? z->run.execs : 0);
	z->inputs_per_s = now > z->stats_us ?
			  (total - z->stats_inputs) * 1000000ULL / (now - z->stats_us) : 0;
	z->stats_inputs = total;
	z->stats_us = now;
	ev = kw_event_new("fuzz_stats");
	if (ev) {
		kw_event_add_str(ev, "target", z->file.fuzz.target);
		kw_event_add_str(ev, "file", z->file.path);
		kw_event_add_bool(ev, "running", z->pid != 0);
		kw_event_add_u64(ev, "total_inputs", total);
		kw_event_add_u64(ev, "inputs_per_s", z->inputs_per_s);
		kw_event_add_u64(ev, "corpus", z->corpus_size);
		kw_event_add_u64(ev, "edges", z->edges);
		kw_event_add_u64(ev, "runs", z->batches + (z->pid != 0));
		kw_event_add_u64(ev, "total_reports", z->reports);
		kwd_emit(z->d, ev);
	}
	sd_event_source_set_time_relative(z->stats, z->file.fuzz.stats_interval * 1000000ULL);
	sd_event_source_set_enabled(z->stats, SD_EVENT_ONESHOT);
	return 0;
}

/* pmsg as [capture] pmsg names it, if the kernel has it (else the runs
 * go on without it, as the spool goes a blob at a time). */
static bool use_pmsg(const struct kw_settings *set)
{
	return set->pmsg[0] && access(set->pmsg, W_OK) == 0;
}

/*
 * A guided run: kfuzztest-fuzz on the corpus, its stderr to us.  Crashes
 * go beside the batch's input file, under its name.
 */
static pid_t spawn_guided(struct fuzzgen_rt *z, const char *size)
{
	const struct kw_settings *set = &z->d->set;
	char target[KW_NAME_MAX + 16], table[PATH_MAX + 16], sz[32], keep[PATH_MAX + 16];
	char prefix[PATH_MAX + 32], pmsg[PATH_MAX + 16], dir[PATH_MAX + 16];
	const char *argv[12] = { set->fuzzer, target, z->file.fuzz.simple ? "--raw" : table, sz,
				 dir, keep, "-error_exitcode=3", prefix };
	int err_fd, n = 8;
	pid_t pid;

	snprintf(target, sizeof(target), "--target=%s", z->file.fuzz.target);
	snprintf(table, sizeof(table), "--table=%s", set->fuzz_table);
	snprintf(sz, sizeof(sz), "--size=%s", size);
	snprintf(dir, sizeof(dir), "--dir=%s", set->kfuzztest);
	snprintf(keep, sizeof(keep), "--keep=%s", z->path);
	snprintf(prefix, sizeof(prefix), "-artifact_prefix=%s.", z->path);
	/* Each input in pmsg too: a panic loses the kept file. */
	if (use_pmsg(set)) {
		snprintf(pmsg, sizeof(pmsg), "--pmsg=%s", set->pmsg);
		argv[n++] = pmsg;
	}
	argv[n++] = z->corpus;
	pid = fork_exec(argv, &err_fd);
	if (pid < 0)
		return pid;
	guided_close(z);
	z->err_fd = err_fd;
	fcntl(err_fd, F_SETFL, O_NONBLOCK);
	memset(&z->run, 0, sizeof(z->run));
	memset(&z->lines, 0, sizeof(z->lines));
	/* Without the reader, the run still runs; its figures stay 0. */
	if (sd_event_add_io(z->d->ev, &z->err_io, err_fd, EPOLLIN, on_guided_err, z) < 0)
		log_warning("fuzz %s: cannot read %s's output", z->file.fuzz.target, set->fuzzer);
	return pid;
}

/* A new batch: its own input file, tied to reports while it runs. */
static int spawn(struct fuzzgen_rt *z)
{
	const struct kw_settings *set = &z->d->set;
	char size[16], batch[16];
	const char *argv[16] = { set->bridge };
	pid_t pid;
	int r, n = 1;

	snprintf(size, sizeof(size), "%u", z->file.fuzz.buffer_size);
	snprintf(batch, sizeof(batch), "%u", z->file.fuzz.batch);
	snprintf(z->blob, sizeof(z->blob), "gen-%lld-%llu", (long long)time(NULL),
		 (unsigned long long)z->batches + 1);
	snprintf(z->path, sizeof(z->path), "%.3000s/%s", z->dir, z->blob);
	if (z->file.fuzz.guided) {
		pid = spawn_guided(z, size);
		if (pid < 0)
			return pid;
	} else {
		if (z->file.fuzz.simple) {
			argv[n++] = "-r";
		} else {
			argv[n++] = "-t";
			argv[n++] = set->fuzz_table;
		}
		argv[n++] = "-s";
		argv[n++] = size;
		argv[n++] = "-d";
		argv[n++] = set->kfuzztest;
		argv[n++] = "-n";
		argv[n++] = batch;
		argv[n++] = "-k";
		argv[n++] = z->path;
		/* Each input in pmsg too: a panic loses the kept file. */
		if (use_pmsg(set)) {
			argv[n++] = "-P";
			argv[n++] = set->pmsg;
		}
		argv[n++] = z->file.fuzz.target;
		argv[n++] = "/dev/urandom";
		pid = fork_exec(argv, NULL);
		if (pid < 0)
			return pid;
	}
	r = sd_event_add_child(z->d->ev, &z->child, pid, WEXITED, on_batch_exit, z);
	if (r < 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		return r;
	}
	/* Stopping the file kills and reaps it. */
	sd_event_source_set_child_process_own(z->child, true);
	z->pid = pid;
	kwd_tie_run(z->d, &z->tie, pid, z->file.fuzz.target, z->blob, z->path);
	z->started_us = kw_now_usec();
	return 0;
}

static int on_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct fuzzgen_rt *z = userdata;
	int r;

	(void)s;
	(void)usec;
	r = spawn(z);
	if (r < 0) {
		log_warning_errno(r, "fuzz %s: cannot start %s: %m; again in %d s",
				  z->file.fuzz.target, z->d->set.bridge, GEN_BACKOFF_MAX_S);
		schedule(z, GEN_BACKOFF_MAX_S * 1000000ULL);
	}
	return 0;
}

static void rt_free(struct fuzzgen_rt *z)
{
	z->timer = sd_event_source_disable_unref(z->timer);
	z->stats = sd_event_source_disable_unref(z->stats);
	guided_close(z);
	kwd_untie_run(z->d, &z->tie);
	/* Owned: SIGKILL and reaped.  Its batch was stopped, not crashed. */
	if (z->child) {
		z->child = sd_event_source_disable_unref(z->child);
		unlink(z->path);
		fuzz_pmsg_end(z->d->set.pmsg, z->d->ectx.boot_id, z->pid, z->file.fuzz.target,
			      z->blob);
	}
	free(z);
}

int fuzzgen_start(struct kwd *d, const struct kw_file *f, char *reason, size_t n)
{
	struct fuzzgen_rt *z, **tmp;
	int r;

	if (!f->fuzz.enabled)
		return 0;
	if (!d->state_dir[0]) {
		snprintf(reason, n, "generate = yes needs a state directory for its inputs");
		return -EINVAL;
	}
	z = calloc(1, sizeof(*z));
	if (!z)
		return -ENOMEM;
	z->d = d;
	z->file = *f;
	z->err_fd = -1;
	snprintf(z->dir, sizeof(z->dir), "%.3000s/" GEN_DIR "/%s", d->state_dir, f->fuzz.target);
	r = kw_mkdir_p(z->dir, 0700);
	if (r < 0) {
		snprintf(reason, n, "%s: %s", z->dir, strerror(-r));
		goto fail;
	}
	if (f->fuzz.guided) {
		snprintf(z->corpus, sizeof(z->corpus), "%.3000s/" CORPUS_DIR "/%s", d->state_dir,
			 f->fuzz.target);
		r = kw_mkdir_p(z->corpus, 0700);
		if (r < 0) {
			snprintf(reason, n, "%s: %s", z->corpus, strerror(-r));
			goto fail;
		}
	}
	r = derive_check(z, reason, n);
	if (r < 0)
		goto fail;
	r = schedule(z, 0);
	if (r < 0) {
		snprintf(reason, n, "cannot schedule the generator: %s", strerror(-r));
		goto fail;
	}
	tmp = realloc(d->fuzz->gen, (d->fuzz->n_gen + 1) * sizeof(*tmp));
	if (!tmp) {
		r = -ENOMEM;
		goto fail;
	}
	d->fuzz->gen = tmp;
	d->fuzz->gen[d->fuzz->n_gen++] = z;
	if (f->fuzz.guided) {
		z->stats_us = kw_now_usec();
		r = sd_event_add_time_relative(d->ev, &z->stats, CLOCK_MONOTONIC,
					       f->fuzz.stats_interval * 1000000ULL, 100000,
					       on_stats, z);
		if (r < 0)
			log_warning_errno(r, "fuzz %s: no fuzz_stats events: %m", f->fuzz.target);
	}
	return 0;
fail:
	rt_free(z);
	return r;
}

bool fuzzgen_stop(struct kwd *d, const char *name)
{
	size_t i;

	for (i = 0; i < d->fuzz->n_gen; i++) {
		if (strcmp(d->fuzz->gen[i]->file.name, name) != 0)
			continue;
		rt_free(d->fuzz->gen[i]);
		d->fuzz->gen[i] = d->fuzz->gen[--d->fuzz->n_gen];
		return true;
	}
	return false;
}

void fuzzgen_stop_all(struct kwd *d)
{
	while (d->fuzz->n_gen)
		fuzzgen_stop(d, d->fuzz->gen[0]->file.name);
	free(d->fuzz->gen);
	d->fuzz->gen = NULL;
}

void fuzzgen_status(struct kwd *d, json_object *arr)
{
	size_t i;

	for (i = 0; i < d->fuzz->n_gen; i++) {
		struct fuzzgen_rt *z = d->fuzz->gen[i];
		json_object *o = json_object_new_object();

		if (!o)
			return;
		kw_event_add_str(o, "file", z->file.path);
		kw_event_add_str(o, "target", z->file.fuzz.target);
		kw_event_add_bool(o, "running", z->pid != 0);
		kw_event_add_u64(o, "batches", z->batches);
		kw_event_add_u64(o, "inputs", z->inputs);
		kw_event_add_u64(o, "reports", z->reports);
		kw_event_add_u64(o, "failures", z->failures);
		if (z->file.fuzz.guided) {
			kw_event_add_str(o, "mode", "guided");
			kw_event_add_u64(o, "total_inputs",
					 z->inputs + (z->pid ? z->run.execs : 0));
			kw_event_add_u64(o, "inputs_per_s", z->inputs_per_s);
			guided_fold(z);
			kw_event_add_u64(o, "corpus", z->corpus_size);
			kw_event_add_u64(o, "edges", z->edges);
		}
		json_object_array_add(arr, o);
	}
}
