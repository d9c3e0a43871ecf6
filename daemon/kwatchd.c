// SPDX-License-Identifier: GPL-2.0
/* kwatchd: applies /etc/kwatchd/ to KStackWatch, wprobes and KFuzzTest
 * spools, and streams what happens as NDJSON.  One sd-event loop; systemd
 * Type=notify with READY/RELOADING/STATUS and the watchdog. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <systemd/sd-daemon.h>

#include "command.h"
#include "kwatchd-crash.h"
#include "kwatch-loader.h"
#include "journal.h"
#include "kwatchd.h"
#include "log.h"
#include "util.h"
#include "kwatchd-wprobe.h"
#include "kwatchd-module.h"

/* Unpaced bench events made per loop iteration: as many as the BPF ring
 * buffer hands over at one wakeup (KWBPF_BATCH), so the synthetic source
 * is as busy as a full ring; each chunk re-arms a timer (a syscall). */
#define BENCH_CHUNK 256
/* kwatchd.conf is unusable: EX_CONFIG (sysexits.h), which systemd does not
 * restart on (a restart would fail the same way). */
#define KWD_EXIT_CONFIG 78
#define RELOAD_CMD_INTERVAL_USEC 1000000ULL

static bool journaled(const struct kwd *d, int type_index)
{
	return type_index >= 0 && (d->set.journal & (1ULL << type_index));
}

/* An encoded event to every consumer; kept in the backlog or not
 * (synthetic load). */
static void broadcast(struct kwd *d, struct ev_buf *b, bool keep)
{
	if (keep)
		server_broadcast(&d->srv, b);
	else
		server_broadcast_transient(&d->srv, b);
	ev_buf_unref(b);
}

/* An event that could not be made (out of memory): lost before it had a
 * seq, said to every consumer as any loss is, and counted. */
static void event_lost(struct kwd *d, const char *type, int err)
{
	struct ev_buf *b = NULL;
	json_object *ev;

	d->events_lost++;
	log_warning_errno(err, "cannot encode a %s event: %m, dropping it", type);
	ev = kw_event_lost("encoder", 1, d->events_lost, 0, 0, -1);
	if (ev && kw_event_encode(&d->ectx, ev, 0, &b) == 0)
		broadcast(d, b, true);
}

/* Encode and broadcast, and to the journal when its type goes there. An
 * urgent event is written to the consumers at once, before the journal's
 * send (a catch: a client must not wait for journald); written (if any)
 * is then called, between the two. */
static void emit_how(struct kwd *d, json_object *ev, bool keep, bool urgent,
		     void (*written)(void *), void *arg)
{
	json_object *kept = json_object_get(ev);	/* the encoder takes ev */
	struct ev_buf *b = NULL;
	json_object *type;
	uint64_t seq;
	bool journal;
	int r;

	r = kw_event_encode(&d->ectx, ev, 0, &b);
	if (r < 0) {
		event_lost(d, json_object_object_get_ex(kept, "type", &type) ?
			   json_object_get_string(type) : "unknown", r);
		json_object_put(kept);
		return;
	}
	seq = b->seq;
	journal = journaled(d, b->type_index);
	broadcast(d, b, keep);
	if (urgent) {
		server_flush_queued(&d->srv);
		if (written)
			written(arg);
		/*
		 * A socket write wakes its reader "sync": on this CPU, behind
		 * the writer, until the writer sleeps or the tick preempts it
		 * (4 ms at HZ=250), and the journal's send and the report's
		 * kmsg lines come next.  Let the reader have the CPU now: a
		 * catch is rare, its reader is waiting for it.
		 */
		sched_yield();
	}
	if (journal) {
		r = kw_journal_send(&d->ectx, kept, seq);
		if (r < 0 && !d->journal_failing)
			log_warning_errno(r, "cannot send an event to the journal: %m");
		d->journal_failing = r < 0;
	}
	json_object_put(kept);
}

static void emit(struct kwd *d, json_object *ev, bool keep)
{
	emit_how(d, ev, keep, false, NULL, NULL);
}

void kwd_emit(struct kwd *d, json_object *ev)
{
	emit(d, ev, true);
}

void kwd_emit_now(struct kwd *d, json_object *ev, void (*written)(void *), void *arg)
{
	emit_how(d, ev, true, true, written, arg);
}

void kwd_emit_text(struct kwd *d, struct kw_evtext *t)
{
	struct ev_buf *b = NULL;
	int r;

	/* The journal wants the fields: the object path, as for any event. */
	if (journaled(d, t->type_index)) {
		json_object *ev = kw_evtext_object(t);

		if (ev)
			emit(d, ev, true);
		else
			event_lost(d, t->type, -ENOMEM);
		goto out;
	}
	r = kw_event_encode_text(&d->ectx, t, &b);
	if (r < 0) {
		event_lost(d, t->type, r);
		goto out;
	}
	broadcast(d, b, true);
out:
	kw_evtext_done(t);
}

void kwd_state_saved(struct kwd *d, bool *failing, const char *path, int err)
{
	json_object *ev;

	if (err >= 0) {
		if (*failing)
			log_info("%s: saved again", path);
		*failing = false;
		return;
	}
	d->state_errors++;
	if (*failing)
		return;
	*failing = true;
	log_warning_errno(err, "cannot save %s: %m; the daemon goes on, retrying at the next change",
			  path);
	ev = kw_event_new("state_error");
	if (!ev)
		return;
	kw_event_add_str(ev, "path", path);
	kw_event_add_errno(ev, err);
	kw_event_add_str(ev, "reason", strerror(-err));
	kwd_emit(d, ev);
}

void kwd_status_notify(struct kwd *d)
{
	uint64_t queued = 0;
	size_t i, nwp = 0;

	for (i = 0; i < d->n_cur; i++)
		nwp += d->cur[i].kind == KW_WPROBE && d->cur[i].wprobe.enabled;
	for (i = 0; i < d->fuzz->n_fuzz; i++)
		queued += d->fuzz->fuzz[i]->execs;
	char watches[32];

	snprintf(watches, sizeof(watches), "%zu watches", d->watches->n_armed);
	sd_notifyf(false, "STATUS=watch: %s; wprobes: %zu; fuzz targets: %zu (%" PRIu64
		   " blobs run); config errors: %zu; clients: %u; dropped: %" PRIu64,
		   d->watches->n_armed > 1 ? watches : d->watches->n_armed ?
		   d->watches->armed[0].line : "none", nwp,
		   d->fuzz->n_fuzz, queued,
		   d->n_errors, d->srv.n_clients, server_dropped(&d->srv));
}

static void lifecycle_event(struct kwd *d, const char *type, const char *why)
{
	json_object *ev = kw_event_new(type);

	if (!ev)
		return;
	kw_event_add_str(ev, "reason", why);
	kw_event_add_int(ev, "pid", getpid());
	kw_event_add_str(ev, "config_dir", d->confdir);
	kwd_emit(d, ev);
}

static int read_settings(struct kwd *d, struct kw_settings *set, int *line, char *reason,
			 size_t n)
{
	_cleanup_free_ char *text = NULL;
	char path[PATH_MAX];
	size_t len = 0;
	int r;

	kw_settings_default(set);
	*line = 0;
	snprintf(path, sizeof(path), "%.4000s/kwatchd.conf", d->confdir);
	r = kw_read_regular(path, KW_CONF_MAX, &text, &len);
	if (r == -ENOENT)
		return 0;
	if (r < 0) {
		snprintf(reason, n, "%s", kw_read_regular_error(r));
		return r;
	}
	if (strlen(text) != len) {
		snprintf(reason, n, "file contains a NUL byte");
		return -EINVAL;
	}
	return kw_settings_parse(text, set, line, reason, n);
}

/* kwatchd.conf again, live: the keys kw_setting_keys marks live change now
 * (quiet period, journal, queue bounds for clients that connect from now
 * on, the push target, keep_crashes); the others only at a restart, which
 * a settings_pending event names.  A bad file changes nothing and is a
 * config error. */
static void reload_settings(struct kwd *d)
{
	struct kw_settings set;
	char reason[256], keys[512], path[PATH_MAX + 16];
	json_object *ev;
	bool push;
	int r, line;

	r = read_settings(d, &set, &line, reason, sizeof(reason));
	if (r < 0) {
		log_error("%s/kwatchd.conf:%d: %s, keeping the settings in force", d->confdir,
			  line, reason);
		ev = kw_event_new("config_error");
		if (!ev)
			return;
		snprintf(path, sizeof(path), "%s/kwatchd.conf", d->confdir);
		kw_event_add_str(ev, "file_kind", "daemon");
		kw_event_add_str(ev, "file", path);
		kw_event_add_int(ev, "line", line);
		kw_event_add_str(ev, "reason", reason);
		kw_event_add_str(ev, "stage", "parse");
		kwd_emit(d, ev);
		return;
	}
	push = strcmp(set.push_path, d->set.push_path) != 0;
	if (push)
		log_info("push target: '%s' -> '%s'", d->set.push_path, set.push_path);
	/* Each key as kw_setting_keys says: in force now, or named. */
	kw_settings_update(&d->set, &set, keys, sizeof(keys));
	d->srv.q_events = d->set.queue_events;
	d->srv.q_bytes = (size_t)d->set.queue_kib * 1024;
	if (push)
		server_set_push(&d->srv, d->set.push_path);
	if (!keys[0])
		return;
	log_warning("kwatchd.conf: %s change at the next restart", keys);
	ev = kw_event_new("settings_pending");
	if (!ev)
		return;
	kw_event_add_str(ev, "settings", keys);
	kw_event_add_str(ev, "reason", "these take effect at the next restart");
	kwd_emit(d, ev);
}

static void do_reload(struct kwd *d, const char *why)
{
	sd_notify(false, "RELOADING=1");
	lifecycle_event(d, "daemon_reload", why);
	d->reloads++;
	reload_settings(d);
	kwd_reload(d, why);
	sd_notify(false, "READY=1");
	kwd_status_notify(d);
}

/* --- config directory watch -------------------------------------------------- */

static int add_conf_watches(struct kwd *d);

static int on_quiet(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct kwd *d = userdata;

	(void)s;
	(void)usec;
	add_conf_watches(d);
	do_reload(d, "inotify");
	return 0;
}

static int on_conf_change(sd_event_source *s, const struct inotify_event *e, void *userdata)
{
	struct kwd *d = userdata;
	size_t i;

	if (e->mask & (IN_IGNORED | IN_MOVE_SELF)) {
		/* The directory went away (or was renamed: the watch would
		 * follow it); watch the path again when it is back. */
		for (i = 0; i <= _KW_KIND_MAX; i++)
			if (d->conf_src[i] == s)
				d->conf_src[i] = sd_event_source_disable_unref(s);
	}
	/* Quiet period: apply once the burst of changes is over. */
	sd_event_source_set_time_relative(d->quiet, (uint64_t)d->set.quiet_ms * 1000);
	sd_event_source_set_enabled(d->quiet, SD_EVENT_ONESHOT);
	return 0;
}

static int add_conf_watches(struct kwd *d)
{
	const uint32_t mask = IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE |
		IN_CREATE | IN_ATTRIB | IN_DELETE_SELF | IN_MOVE_SELF;
	char path[PATH_MAX];
	int k, r;

	for (k = 0; k <= _KW_KIND_MAX; k++) {
		if (d->conf_src[k])
			continue;
		if (k == _KW_KIND_MAX)
			snprintf(path, sizeof(path), "%s", d->confdir);
		else
			snprintf(path, sizeof(path), "%.4000s/%s", d->confdir, kw_kind_dir[k]);
		r = sd_event_add_inotify(d->ev, &d->conf_src[k], path, mask, on_conf_change, d);
		if (r < 0 && r != -ENOENT)
			log_warning_errno(r, "cannot watch %s: %m, ignoring", path);
	}
	return 0;
}

/* --- commands from clients ------------------------------------------------ */

static int on_bench(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct kwd *d = userdata;
	unsigned int i, chunk = d->bench_rate ? 1 : BENCH_CHUNK;

	(void)usec;
	for (i = 0; i < chunk && d->bench_left; i++, d->bench_left--) {
		json_object *ev = kw_event_new("bench");

		kw_event_add_u64(ev, "left", d->bench_left - 1);
		kw_event_add_str(ev, "pad", "synthetic event for measuring the stream");
		/* Not kept for later clients: load must not push real events out. */
		emit(d, ev, false);
	}
	server_flush_queued(&d->srv);
	if (d->bench_left) {
		sd_event_source_set_time_relative(s, d->bench_rate ? 1000000 / d->bench_rate : 0);
		sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
	}
	return 0;
}

static int cmd_bench(struct kwd *d, const struct kw_cmd *cmd, char *reason, size_t n)
{
	/* Synthetic events for measuring the stream (kwatchctl bench N
	 * [RATE/s]); without a rate, as fast as the loop goes. */
	if (d->bench_left + cmd->n > KW_BENCH_MAX) {
		snprintf(reason, n, "bench: %" PRIu64 " events still to send, at most %llu pending",
			 d->bench_left, KW_BENCH_MAX);
		return -EBUSY;
	}
	if (!d->bench && sd_event_add_time_relative(d->ev, &d->bench, CLOCK_MONOTONIC, 0, 1,
						     on_bench, d) < 0) {
		snprintf(reason, n, "bench: no timer");
		return -ENOMEM;
	}
	d->bench_left += cmd->n;
	d->bench_rate = cmd->rate;
	sd_event_source_set_time_relative(d->bench, 0);
	sd_event_source_set_enabled(d->bench, SD_EVENT_ONESHOT);
	return 0;
}

static int on_reload_cmd(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct kwd *d = userdata;

	(void)s;
	(void)usec;
	d->reload_cmd_at = kw_now_usec();
	do_reload(d, "command");
	return 0;
}

/* A reload is a rescan and an fsynced save: at most one a second from
 * commands; those in between share the next. */
static int cmd_reload(struct kwd *d, char *reason, size_t n)
{
	uint64_t now = kw_now_usec();
	int r;

	if (!d->reload_cmd_at || now - d->reload_cmd_at >= RELOAD_CMD_INTERVAL_USEC) {
		d->reload_cmd_at = now;
		do_reload(d, "command");
		return 0;
	}
	if (!d->reload_cmd) {
		r = sd_event_add_time(d->ev, &d->reload_cmd, CLOCK_MONOTONIC, 0, 0,
				      on_reload_cmd, d);
		if (r < 0) {
			snprintf(reason, n, "reload: no timer");
			return r;
		}
	}
	sd_event_source_set_time(d->reload_cmd, d->reload_cmd_at + RELOAD_CMD_INTERVAL_USEC);
	sd_event_source_set_enabled(d->reload_cmd, SD_EVENT_ONESHOT);
	snprintf(reason, n, "queued: a reload ran less than a second ago");
	return 0;
}

static void on_command(struct server *srv, struct client *c, const char *line, void *userdata)
{
	struct kwd *d = userdata;
	struct kw_cmd cmd;
	char reason[160];
	int r;

	(void)srv;
	r = kw_cmd_parse(line, server_client_privileged(c), &cmd, reason, sizeof(reason));
	if (r == -EPERM)
		log_notice("client %u (pid %d uid %d): %s refused: not root", c->id,
			   c->cred ? (int)c->pid : -1, c->cred ? (int)c->uid : -1, cmd.verb);
	if (r < 0) {
		server_reply(c, cmd.verb, r, reason);
		return;
	}
	switch (cmd.kind) {
	case KW_CMD_STATUS:
		/* The reply is the status record. */
		server_send_reply(c, kwd_status(d));
		return;
	case KW_CMD_BACKLOG:
		server_send_backlog(&d->srv, c);
		return;
	case KW_CMD_RELOAD:
		r = cmd_reload(d, reason, sizeof(reason));
		break;
	case KW_CMD_BENCH:
		r = cmd_bench(d, &cmd, reason, sizeof(reason));
		break;
	case KW_CMD_SUBSCRIBE:
		server_subscribe(c, cmd.types);
		r = 0;
		break;
	}
	server_reply(c, cmd.verb, r, reason);
}

/* --- signals and life cycle ---------------------------------------------- */

static int on_sighup(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata)
{
	(void)s;
	(void)si;
	do_reload(userdata, "SIGHUP");
	return 0;
}

static int on_term(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata)
{
	struct kwd *d = userdata;

	(void)s;
	sd_notify(false, "STOPPING=1");
	d->stopping = true;
	kwbpf_poll_all(d);	/* nothing the programs or the log hold is lost */
	crash_drain_all(d);
	kwd_teardown(d);
	lifecycle_event(d, "daemon_stop", strsignal(si->ssi_signo));
	server_flush(&d->srv, 500);
	return sd_event_exit(d->ev, 0);
}

static int load_settings(struct kwd *d)
{
	char reason[256];
	int r, line;

	r = read_settings(d, &d->set, &line, reason, sizeof(reason));
	if (r < 0)
		return log_error_errno(r, "%s/kwatchd.conf:%d: %s", d->confdir, line, reason);
	return 0;
}

const unsigned int KWD_LOOP_MS[KWD_LOOP_BUCKETS] = { 1, 2, 5, 10, 20, 50, 100, 1000 };

/* One iteration's dispatch took @us: into the loop's figures. */
static void loop_account(struct kwd_loop *l, uint64_t us)
{
	unsigned int i;

	l->iterations++;
	if (us > l->max_us)
		l->max_us = us;
	for (i = 0; i < KWD_LOOP_BUCKETS && us > KWD_LOOP_MS[i] * 1000ULL; i++)
		l->over[i]++;
}

/*
 * sd_event_loop(), with each iteration's dispatch timed: how long the
 * loop is away from its clients is what a handler costs them, so the
 * status reply says so (the waits are not counted, the work is).  Returns
 * the loop's exit code.
 */
static int run_loop(struct kwd *d)
{
	uint64_t t0, t1;
	int r, code = 0;

	for (;;) {
		r = sd_event_prepare(d->ev);
		if (r == 0)
			r = sd_event_wait(d->ev, UINT64_MAX);
		if (r < 0)
			return r;
		if (r > 0) {
			t0 = kw_now_usec();
			r = sd_event_dispatch(d->ev);
			t1 = kw_now_usec();
			if (r < 0)
				return r;
			loop_account(&d->loop, t1 - t0);
		}
		if (sd_event_get_state(d->ev) == SD_EVENT_FINISHED)
			break;
	}
	r = sd_event_get_exit_code(d->ev, &code);
	return r < 0 ? r : code;
}

static void usage(void)
{
	printf("usage: kwatchd [-c CONFDIR] [-v]\n"
	       "  -c CONFDIR  configuration directory (default $CONFIGURATION_DIRECTORY or /etc/kwatchd)\n"
	       "  -v          debug logging\n");
}

int main(int argc, char **argv)
{
	struct kwd d = { 0 };
	const char *env = getenv("CONFIGURATION_DIRECTORY");
	sigset_t ss;
	int opt, r;

	snprintf(d.confdir, sizeof(d.confdir), "%s", env && *env ? env : "/etc/kwatchd");
	while ((opt = getopt(argc, argv, "c:vh")) != -1) {
		switch (opt) {
		case 'c':
			snprintf(d.confdir, sizeof(d.confdir), "%s", optarg);
			break;
		case 'v':
			kw_log_level = LOG_DEBUG;
			break;
		case 'h':
			usage();
			return 0;
		default:
			usage();
			return 2;
		}
	}
	kw_event_ctx_init(&d.ectx);
	r = load_settings(&d);
	if (r < 0)
		return KWD_EXIT_CONFIG;	/* not restarted: the unit's RestartPreventExitStatus */
	d.watches = kwd_watches_new();
	d.wprobes = kwd_wprobes_new();
	d.fuzz = kwd_fuzz_new();
	if (!d.watches || !d.wprobes || !d.fuzz) {
		log_error("kwatchd: %s", strerror(ENOMEM));
		kwd_watches_free(d.watches);
		kwd_wprobes_free(d.wprobes);
		kwd_fuzz_free(d.fuzz);
		return 1;
	}

	sigemptyset(&ss);
	sigaddset(&ss, SIGTERM);
	sigaddset(&ss, SIGINT);
	sigaddset(&ss, SIGHUP);
	/* sd-event watches the bridges of generate = yes files. */
	sigaddset(&ss, SIGCHLD);
	sigprocmask(SIG_BLOCK, &ss, NULL);
	signal(SIGPIPE, SIG_IGN);

	r = sd_event_default(&d.ev);
	if (r < 0)
		goto out;
	if ((r = sd_event_add_signal(d.ev, NULL, SIGTERM, on_term, &d)) < 0 ||
	    (r = sd_event_add_signal(d.ev, NULL, SIGINT, on_term, &d)) < 0 ||
	    (r = sd_event_add_signal(d.ev, NULL, SIGHUP, on_sighup, &d)) < 0)
		goto out;
	r = sd_event_set_watchdog(d.ev, true);
	if (r < 0)
		goto out;
	r = sd_event_add_time_relative(d.ev, &d.quiet, CLOCK_MONOTONIC, UINT64_MAX / 2, 10000,
				       on_quiet, &d);
	if (r < 0)
		goto out;
	sd_event_source_set_enabled(d.quiet, SD_EVENT_OFF);

	r = server_start(&d.srv, d.ev, &d.ectx, d.set.socket_path, d.set.push_path,
			 d.set.queue_events, (size_t)d.set.queue_kib * 1024, on_command, &d);
	if (r < 0)
		goto out;
	d.wprobes->ok = wprobe_supported(d.set.tracefs);
	d.wprobes->module_ok = d.wprobes->ok && wprobe_module_supported(d.set.tracefs);
	lifecycle_event(&d, "daemon_start", d.wprobes->ok ? "wprobes supported" :
			"no wprobe support in this kernel");
	r = kwbpf_open(&d);
	if (r < 0)
		log_warning_errno(r, "bpf: %m; going on without the programs");
	env = getenv("STATE_DIRECTORY");
	snprintf(d.state_dir, sizeof(d.state_dir), "%s", env && *env ? env : "/var/lib/kwatchd");
	r = crash_open(&d);
	if (r < 0)
		log_warning_errno(r, "crash capture: %m; going on without it");
	r = kwd_lastgood_load(&d);
	if (r < 0)
		log_warning_errno(r, "%s/in-force: %m, not used", d.state_dir);
	add_conf_watches(&d);
	kwd_wprobe_clear_stale(&d);
	r = kwd_reload(&d, "start");
	if (r < 0)
		goto out;
	/* What the kernel logged while we were not running, and what pstore
	 * kept of the previous boot's panic: a report made by the blob found
	 * in flight (if it is the only one) is tied to it, from this boot's
	 * log or from pstore as the boot it was claimed in says. */
	if (kwd_tie_found_now(&d)) {
		crash_drain_all(&d);
		kwd_untie(&d);
	}
	crash_pstore(&d);
	kwd_untie(&d);
	crash_drain_all(&d);
	crash_pos_sync(&d);
	/* A watch left by a daemon that was killed must not outlive its
	 * configuration. */
	kwd_ksw_clear_stale(&d);
	/* The symbol table, read now rather than at the first catch (under
	 * TCG a read of kallsyms holds the loop a second or more). */
	if (d.bpf || d.crash) {
		bool warn;

		ksym_cache_get(&d.syms, d.set.kallsyms, kw_now_usec(), false, &warn);
		if (warn)
			log_warning("no symbols from %s: addresses stay numeric", d.set.kallsyms);
	}
	sd_notify(false, "READY=1");
	kwd_status_notify(&d);
	log_info("kwatchd ready: %s, socket %s", d.confdir, d.set.socket_path);

	r = run_loop(&d);
out:
	if (r < 0) {
		log_error_errno(r, "kwatchd: %m");
		sd_notifyf(false, "ERRNO=%d", -r);
	}
	if (!d.stopping)
		kwd_teardown(&d);
	free(d.lastgood);
	crash_close(&d);
	kwbpf_close(&d);
	kwd_fuzz_free(d.fuzz);
	server_stop(&d.srv);
	sd_event_source_disable_unref(d.quiet);
	sd_event_source_disable_unref(d.bench);
	sd_event_source_disable_unref(d.reload_cmd);
	kwd_modules_stop(&d);
	kwd_watches_free(d.watches);
	ksym_cache_free(&d.syms);
	kwd_wprobes_free(d.wprobes);
	for (opt = 0; opt <= _KW_KIND_MAX; opt++)
		sd_event_source_disable_unref(d.conf_src[opt]);
	sd_event_unref(d.ev);
	return r < 0 ? 1 : 0;
}
