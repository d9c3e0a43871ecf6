// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz.d files with generate = yes: no spool.  kfuzztest-bridge, in a
 * child process, writes inputs built from the target's schema, which it
 * derives from the kernel's BTF and the target table (-t), or raw random
 * bytes to input_simple (-r, input = simple), a batch at a time.  The
 * target runs in the child, so an oops kills the child and not the
 * daemon.  The child keeps the input in flight in a file of its batch
 * (-k) and stops at the first kernel report after a write; kernel reports
 * are tied to that file, so the crash event and crashes/<target>/ have the
 * input that caused it.  A batch that ended in a report keeps its file.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
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

#include "kwatchd.h"
#include "log.h"
#include "util.h"

#define GEN_DIR			"generate"
#define GEN_PAUSE_USEC		3000000ULL	/* after a report: let kmsg catch up */
#define GEN_BACKOFF_MIN_S	5
#define GEN_BACKOFF_MAX_S	60
#define GEN_CHECK_TIMEOUT_MS	10000	/* under the unit's WatchdogSec=30s */
#define GEN_KEEP_REPORTED	100		/* batch files kept after a report */

struct fuzzgen_rt {
	struct kwd *d;
	struct kw_file file;
	char dir[PATH_MAX];		/* <state_dir>/generate/<target> */
	char blob[NAME_MAX + 1];	/* the batch's name: its input file */
	char path[PATH_MAX];		/* the batch's input file */
	bool tied;			/* reports are tied to it */
	pid_t pid;
	sd_event_source *child, *timer;
	uint64_t started_us;
	uint64_t batches, inputs, reports, failures;
	unsigned int backoff_s;
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
	size_t got = 0;
	int p[2], status = 0, r;
	pid_t pid;

	if (access(set->bridge, X_OK) < 0) {
		snprintf(reason, n, "%s: %s (the bridge that generates inputs)", set->bridge,
			 strerror(errno));
		return -ENOENT;
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
	if (pipe2(p, O_CLOEXEC) < 0)
		return neg_errno();
	pid = fork();
	if (pid < 0) {
		r = neg_errno();
		close(p[0]);
		close(p[1]);
		return r;
	}
	if (pid == 0)
		child_exec(argv, p[1]);
	close(p[1]);
	pfd.fd = p[0];
	pfd.events = POLLIN;
	/* Its stderr until it closes (it exits), a bounded wait. */
	for (;;) {
		char drop[256];
		ssize_t k;

		r = poll(&pfd, 1, GEN_CHECK_TIMEOUT_MS);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			stuck = true;
			break;
		}
		if (got < sizeof(msg) - 1)
			k = read(p[0], msg + got, sizeof(msg) - 1 - got);
		else
			k = read(p[0], drop, sizeof(drop));
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		if (got < sizeof(msg) - 1)
			got += k;
	}
	close(p[0]);
	msg[got] = '\0';
	if (got && msg[got - 1] == '\n')
		msg[got - 1] = '\0';
	/* A bridge that takes longer than that is stuck: it goes. */
	if (stuck)
		kill(pid, SIGKILL);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
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

static void schedule(struct fuzzgen_rt *z, uint64_t delay_us)
{
	z->timer = sd_event_source_disable_unref(z->timer);
	sd_event_add_time_relative(z->d->ev, &z->timer, CLOCK_MONOTONIC, delay_us, 10000,
				   on_timer, z);
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

static int on_batch_exit(sd_event_source *s, const siginfo_t *si, void *userdata)
{
	struct fuzzgen_rt *z = userdata;
	struct kwd *d = z->d;
	uint64_t us = kw_now_usec() - z->started_us, delay_us = 0;
	enum outcome o = outcome_of(si);
	json_object *ev;

	(void)s;
	z->child = sd_event_source_unref(z->child);
	z->pid = 0;
	switch (o) {
	case DONE:
		z->inputs += z->file.fuzz.batch;
		z->backoff_s = 0;
		unlink(z->path);
		z->tied = false;
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
		z->tied = false;
		z->backoff_s = z->backoff_s ? z->backoff_s * 2 : GEN_BACKOFF_MIN_S;
		if (z->backoff_s > GEN_BACKOFF_MAX_S)
			z->backoff_s = GEN_BACKOFF_MAX_S;
		delay_us = z->backoff_s * 1000000ULL;
		log_warning("fuzz %s: %s exited with status %d; again in %u s",
			    z->file.fuzz.target, d->set.bridge, si->si_status, z->backoff_s);
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
		if (o == DONE) {
			kw_event_add_u64(ev, "inputs", z->file.fuzz.batch);
			kw_event_add_u64(ev, "inputs_per_s",
					 us ? z->file.fuzz.batch * 1000000ULL / us : 0);
		}
		kw_event_add_u64(ev, "duration_us", us);
		kw_event_add_u64(ev, "total_inputs", z->inputs);
		kw_event_add_u64(ev, "total_reports", z->reports);
		kwd_emit(d, ev);
	}
	schedule(z, delay_us);
	return 0;
}

/* A new batch: its own input file, tied to reports while it runs. */
static int spawn(struct fuzzgen_rt *z)
{
	const struct kw_settings *set = &z->d->set;
	char size[16], batch[16];
	const char *argv[] = { set->bridge, "-t", set->fuzz_table, "-s", size, "-n", batch,
			       "-k", z->path, z->file.fuzz.target, "/dev/urandom", NULL };
	const char *raw_argv[] = { set->bridge, "-r", "-s", size, "-n", batch, "-k", z->path,
				   z->file.fuzz.target, "/dev/urandom", NULL };
	pid_t pid;
	int r;

	snprintf(size, sizeof(size), "%u", z->file.fuzz.buffer_size);
	snprintf(batch, sizeof(batch), "%u", z->file.fuzz.batch);
	snprintf(z->blob, sizeof(z->blob), "gen-%lld-%llu", (long long)time(NULL),
		 (unsigned long long)z->batches + 1);
	snprintf(z->path, sizeof(z->path), "%.3000s/%s", z->dir, z->blob);
	pid = fork();
	if (pid < 0)
		return neg_errno();
	if (pid == 0)
		child_exec(z->file.fuzz.simple ? raw_argv : argv, -1);
	r = sd_event_add_child(z->d->ev, &z->child, pid, WEXITED, on_batch_exit, z);
	if (r < 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		return r;
	}
	/* Stopping the file kills and reaps it. */
	sd_event_source_set_child_process_own(z->child, true);
	z->pid = pid;
	z->tied = true;
	z->started_us = kw_now_usec();
	return 0;
}

static int on_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct fuzzgen_rt *z = userdata;
	int r;

	(void)s;
	(void)usec;
	z->timer = sd_event_source_disable_unref(z->timer);
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
	/* Owned: SIGKILL and reaped.  Its batch was stopped, not crashed. */
	if (z->child) {
		z->child = sd_event_source_disable_unref(z->child);
		unlink(z->path);
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
	snprintf(z->dir, sizeof(z->dir), "%.3000s/" GEN_DIR "/%s", d->state_dir, f->fuzz.target);
	r = kw_mkdir_p(z->dir, 0700);
	if (r < 0) {
		snprintf(reason, n, "%s: %s", z->dir, strerror(-r));
		goto fail;
	}
	r = derive_check(z, reason, n);
	if (r < 0)
		goto fail;
	tmp = realloc(d->gen, (d->n_gen + 1) * sizeof(*tmp));
	if (!tmp) {
		r = -ENOMEM;
		goto fail;
	}
	d->gen = tmp;
	d->gen[d->n_gen++] = z;
	schedule(z, 0);
	return 0;
fail:
	rt_free(z);
	return r;
}

bool fuzzgen_stop(struct kwd *d, const char *name)
{
	size_t i;

	for (i = 0; i < d->n_gen; i++) {
		if (strcmp(d->gen[i]->file.name, name) != 0)
			continue;
		rt_free(d->gen[i]);
		d->gen[i] = d->gen[--d->n_gen];
		return true;
	}
	return false;
}

void fuzzgen_stop_all(struct kwd *d)
{
	while (d->n_gen)
		fuzzgen_stop(d, d->gen[0]->file.name);
	free(d->gen);
	d->gen = NULL;
}

bool fuzzgen_tied(struct kwd *d, const char **target, const char **blob, const char **path)
{
	size_t i;

	for (i = 0; i < d->n_gen; i++) {
		struct fuzzgen_rt *z = d->gen[i];

		if (!z->tied)
			continue;
		*target = z->file.fuzz.target;
		*blob = z->blob;
		*path = z->path;
		return true;
	}
	return false;
}

void fuzzgen_status(struct kwd *d, json_object *arr)
{
	size_t i;

	for (i = 0; i < d->n_gen; i++) {
		struct fuzzgen_rt *z = d->gen[i];
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
		json_object_array_add(arr, o);
	}
}
