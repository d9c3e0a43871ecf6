/* SPDX-License-Identifier: GPL-2.0 */
/* The daemon's state, shared by its files: kwatchd.c (life cycle, signals,
 * systemd), reconcile.c (config -> kernel), fuzz.c (spool runtimes). */
#ifndef KWATCHD_H
#define KWATCHD_H

#include <systemd/sd-event.h>

#include "apply.h"
#include "config.h"
#include "ksw.h"
#include "event.h"
#include "ksym.h"
#include "server.h"
#include "spool.h"
#include "wprobe.h"

struct kwd;

/* A watch in /proc/kstackwatch: the file it came from and its line. */
struct kwd_armed {
	char path[PATH_MAX];		/* the watch file's (struct kw_file's path) */
	char line[KSW_LINE_MAX];
	bool disarming;			/* its disarm waits for a reader to let go */
};

/* The watch file's name in watch.d/. */
static inline const char *kwd_armed_name(const struct kwd_armed *a)
{
	const char *slash = strrchr(a->path, '/');

	return slash ? slash + 1 : a->path;
}

struct fuzz_rt {
	struct kwd *d;
	struct kw_file file;
	struct spool spool;
	bool open;
	sd_event_source *inotify;
	sd_event_source *timer;
	uint64_t execs, rejected, interrupted;
	unsigned int deferred;		/* replays put back in a row (our fault) */
	bool unfinished;		/* res ran, but its move or record failed */
	struct spool_result res;
	struct spool_batch *batch;	/* NULL: a blob at a time */
	struct spool_pack *pack;	/* the pack in flight, if pack->name[0] */
	bool pack_turn;			/* a pack goes next, then loose blobs */
	bool stalled;			/* a spool failure was reported; cleared on success */
	uint64_t stalls, pruned;
	/* Entries each state's directory may hold: those the last prune left
	 * and the results moved in since (nothing else adds to them). */
	unsigned int held[_SPOOL_STATE_MAX];
};

/*
 * An input being written to a KFuzzTest target, that kernel reports (and
 * BPF records) are tied to: the daemon's own write of a spool blob, or a
 * generated or guided run in a child process.  A report goes to the tie
 * of the task it names (kwd_tie_of()).  Only fuzz.c's kwd_tie*() set and
 * clear them.
 */
struct kwd_tie {
	bool set;
	pid_t pid;			/* the task that writes it; 0: any (found in flight) */
	char target[KW_NAME_MAX + 1];
	char blob[NAME_MAX + 1];
	char path[PATH_MAX];		/* where the blob is now */
	/* A pack's blob: its bytes (path is the pack's). */
	const void *data;
	size_t data_len;
	uint64_t t0_ns;			/* CLOCK_MONOTONIC at its write */
	bool prev_boot;			/* found in flight, claimed before this boot */
	struct kwd_tie *next;		/* in kwd.runs, while a run's tie is set */
};

struct kwd {
	sd_event *ev;
	char confdir[PATH_MAX];
	struct kw_settings set;
	struct kw_event_ctx ectx;
	struct server srv;

	struct kw_file *cur;		/* the set in force */
	size_t n_cur;
	struct kw_file *errors;		/* files failing at the last apply */
	size_t n_errors;
	char state_dir[PATH_MAX];	/* "": nothing kept across restarts */
	struct kw_file *lastgood;	/* the set in force saved by the last run */
	size_t n_lastgood;
	/* The watches /proc/kstackwatch holds, in the order armed; a watch
	 * whose disarm a reader held up (EBUSY) stays, marked, until the
	 * timer below has done it. */
	struct kwd_armed armed[KSW_WATCHES_MAX];
	size_t n_armed;
	unsigned int max_watches;	/* the kernel's limit: ksw_max_watches() */
	/* /proc/kstackwatch was held open by a reader (EBUSY): a disarm not
	 * done yet, or an apply to try again, from this timer. */
	sd_event_source *ksw_retry;
	bool ksw_reload_wanted;
	struct ksw_vars ksw_vars;	/* variable= names: the stack variable index */

	struct fuzz_rt **fuzz;		/* one per started fuzz file */
	size_t n_fuzz;
	struct fuzzgen_rt **gen;	/* one per started generate = yes file */
	size_t n_gen;

	struct kwd_wprobes *wprobes;	/* wprobe.c */
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

	struct kwbpf *bpf;		/* NULL: no BPF programs */
	struct ksym_cache syms;		/* kallsyms, for BPF stacks and crash frames */
	unsigned int n_recovered;	/* blobs found in flight at start-up */
	struct crash_rt *crash;		/* NULL: no crash capture */
	/* The daemon's own tie (fuzz.c): the blob being written to a KFuzzTest
	 * input right now, or at start-up the one found in flight (the
	 * daemon may have died in its write). */
	struct kwd_tie tie;
	struct kwd_tie *runs;		/* the ties of child processes' runs */
};

/* Encode and broadcast; takes ownership of ev. */
void kwd_emit(struct kwd *d, json_object *ev);
/* The same for an event written as text (kw_evtext: the per-record hot
 * path); t is used up. */
void kwd_emit_text(struct kwd *d, struct kw_evtext *t);
void kwd_status_notify(struct kwd *d);
/* A state file (the set in force, the kmsg position) was saved (err 0) or
 * not (-errno): a failure is said once per streak (journal, a state_error
 * event), its end in the journal; *failing is the caller's streak. */
void kwd_state_saved(struct kwd *d, bool *failing, const char *path, int err);

/* reconcile.c */
/* An event's fields naming a drop-in: kind and file (its path). */
void kwd_file_fields(json_object *ev, const struct kw_file *f);
int kwd_reload(struct kwd *d, const char *why);
/* Which watch fired, for a catch or crash event: "definition", the line
 * the kernel named (none if empty), and "watch_file", the file that armed
 * it if one of ours did (a report of the previous boot may name none). */
void kwd_watch_fields(struct kwd *d, json_object *ev, const char *line);
/* Remove from /proc/kstackwatch what no watch file of ours armed (left by
 * a daemon that was killed); with one watch, clear it if none is armed. */
void kwd_ksw_clear_stale(struct kwd *d);
/* Read the set in force the last run saved in state_dir. */
int kwd_lastgood_load(struct kwd *d);
void kwd_teardown(struct kwd *d);

/* status.c */
json_object *kwd_status(struct kwd *d);

/* fuzz.c */
/* Start replaying a fuzz.d file's spool; reason says why it cannot. */
int fuzz_start(struct kwd *d, const struct kw_file *f, char *reason, size_t n);
bool fuzz_stop(struct kwd *d, const char *name);
void fuzz_stop_all(struct kwd *d);

/* fuzzgen.c: generate = yes, inputs from the bridge in a child process */
int fuzzgen_start(struct kwd *d, const struct kw_file *f, char *reason, size_t n);
bool fuzzgen_stop(struct kwd *d, const char *name);
void fuzzgen_stop_all(struct kwd *d);
/* One object per generating file, into the status record's array. */
void fuzzgen_status(struct kwd *d, json_object *arr);

/* fuzz.c: ties */
/* The tie of a report naming task @pid (-1: it names none): the daemon's
 * own write if @pid is the daemon's (or any, for a blob found in flight),
 * else the run of the child @pid; with no PID, the daemon's own write or
 * the only run.  NULL: the report is no input's. */
const struct kwd_tie *kwd_tie_of(struct kwd *d, long pid);
/* The daemon's own tie, NULL when not set. */
const struct kwd_tie *kwd_tie_own(struct kwd *d);
/* kwd_tie_of(d, -1)'s blob (and its target) and path, NULL if none. */
const char *kwd_tied_blob(struct kwd *d, const char **target);
const char *kwd_tied_path(struct kwd *d);
/* The daemon writes a blob now (its own pid), or a pack's blob (its bytes,
 * kept in a crash's place; path is the pack's). */
void kwd_tie(struct kwd *d, const char *target, const char *blob, const char *path);
void kwd_tie_data(struct kwd *d, const char *target, const char *blob, const char *path,
		  const void *data, size_t len);
/* A blob found in flight at start-up (any task's report; claimed in the
 * previous boot if @prev_boot). */
void kwd_tie_found(struct kwd *d, const char *target, const char *blob, const char *path,
		   bool prev_boot);
bool kwd_tie_found_now(struct kwd *d);	/* set so, in this boot */
void kwd_untie(struct kwd *d);
/* A child's run (@pid writes its inputs) in @t, its owner's, until
 * kwd_untie_run() when the run is over. */
void kwd_tie_run(struct kwd *d, struct kwd_tie *t, pid_t pid, const char *target,
		 const char *blob, const char *path);
void kwd_untie_run(struct kwd *d, struct kwd_tie *t);

#endif
