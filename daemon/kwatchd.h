/* SPDX-License-Identifier: GPL-2.0 */
/* The Manager: what kwatchd's objects share (the loop, the settings, the
 * stream, the set in force) and one runtime per object kind, each made and
 * freed by its own file (kwatchd-watch.c, kwatchd-wprobe.c, kwatchd-fuzz.c,
 * kwatchd-crash.c, bpf/kwatch.c).  kwatchd.c holds its life cycle,
 * kwatchd-reconcile.c the apply, kwatchd-status.c the status reply. */
#ifndef KWATCHD_H
#define KWATCHD_H

#include <systemd/sd-event.h>

#include "apply.h"
#include "config.h"
#include "event.h"
#include "ksym.h"
#include "spool.h"
#include "kwatchd-fuzz.h"
#include "kwatchd-server.h"
#include "kwatchd-watch.h"
#include "kwatchd-wprobe.h"

/* The event loop's iterations (one dispatch each), timed from the first
 * handler to the last: the longest, and how many took longer than each of
 * KWD_LOOP_MS[] ms.  The status reply's "loop". */
#define KWD_LOOP_BUCKETS 8
extern const unsigned int KWD_LOOP_MS[KWD_LOOP_BUCKETS];
struct kwd_loop {
	uint64_t iterations;
	uint64_t max_us;
	uint64_t over[KWD_LOOP_BUCKETS];
};

struct kwd {
	sd_event *ev;
	char confdir[PATH_MAX];
	struct kw_settings set;
	struct kw_event_ctx ectx;
	struct server srv;		/* the stream (kwatchd-server.c) */

	struct kw_file *cur;		/* the set in force */
	size_t n_cur;
	struct kw_file *errors;		/* files failing at the last apply */
	size_t n_errors;
	char state_dir[PATH_MAX];	/* "": nothing kept across restarts */
	struct kw_file *lastgood;	/* the set in force saved by the last run */
	size_t n_lastgood;

	/* The objects' runtimes. */
	struct kwd_watches *watches;	/* kwatchd-watch.c */
	struct kwd_wprobes *wprobes;	/* kwatchd-wprobe.c */
	struct kwd_fuzz *fuzz;		/* kwatchd-fuzz.c */
	struct kwbpf *bpf;		/* bpf/kwatch.c; NULL: no BPF programs */
	struct crash_rt *crash;		/* kwatchd-crash.c; NULL: no crash capture */
	struct ksym_cache syms;		/* kallsyms, for BPF stacks and crash frames */
	/* Module loads and unloads, from the first watch or wprobe on a
	 * module (kwatchd-module.c). */
	sd_event_source *module_events;
	bool module_events_failed;	/* said once */

	bool journal_failing;	/* said once until a send works again */
	sd_event_source *conf_src[_KW_KIND_MAX + 1];
	sd_event_source *quiet;
	uint64_t reloads, applies, config_errors, state_errors;
	uint64_t events_lost;	/* events that could not be encoded */
	bool inforce_failing;		/* saving <state>/in-force fails */
	uint64_t bench_left, bench_rate;
	sd_event_source *bench;
	sd_event_source *reload_cmd;	/* a reload command waiting its turn */
	uint64_t reload_cmd_at;		/* CLOCK_MONOTONIC usec of the last one */
	bool stopping;
	struct kwd_loop loop;		/* the loop's own iterations, timed */
};

/* Encode and broadcast; takes ownership of ev. */
void kwd_emit(struct kwd *d, json_object *ev);
/* kwd_emit(), written to the consumers at once, before the journal's send;
 * written(arg), if not NULL, is called when it has been. */
void kwd_emit_now(struct kwd *d, json_object *ev, void (*written)(void *), void *arg);
/* The same for an event written as text (kw_evtext: the per-record hot
 * path); t is used up. */
void kwd_emit_text(struct kwd *d, struct kw_evtext *t);
void kwd_status_notify(struct kwd *d);
/* A state file (the set in force, the kmsg position) was saved (err 0) or
 * not (-errno): a failure is said once per streak (journal, a state_error
 * event), its end in the journal; *failing is the caller's streak. */
void kwd_state_saved(struct kwd *d, bool *failing, const char *path, int err);

/* kwatchd-reconcile.c */
/* An event's fields naming a drop-in: kind and file (its path). */
void kwd_file_fields(json_object *ev, const struct kw_file *f);
/* A kernel step of file @f failed outside an apply (a module's watch armed
 * when the module came): a config_error of stage "kernel"; @what failed
 * with @r, or, without @what, @detail is the whole reason. */
void kwd_kernel_error(struct kwd *d, const struct kw_file *f, int r, const char *what,
		      const char *detail);
int kwd_reload(struct kwd *d, const char *why);
/* Read the set in force the last run saved in state_dir. */
int kwd_lastgood_load(struct kwd *d);
void kwd_teardown(struct kwd *d);

/* kwatchd-status.c */
json_object *kwd_status(struct kwd *d);


#endif
