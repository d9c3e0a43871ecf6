/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A fuzz source (fuzz.d/, KFuzzTest): its [fuzz] keys (fuzz-config.c,
 * pure: the host tests and the fuzz_config harness link it without the
 * daemon), and in the daemon (kwatchd-fuzz.c) its spool replayed into the target,
 * or with generate = yes or guided its runs in child processes (kwatchd-fuzzgen.c,
 * kwatchd-fuzzguided.c), its apply steps, its part of the status reply, and the
 * blob "tie" that attributes a kernel report to the input in flight.
 */
#ifndef KWATCHD_FUZZ_H
#define KWATCHD_FUZZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <json-c/json.h>
#include <systemd/sd-event.h>

#include "config.h"
#include "fuzz-config.h"
#include "spool.h"

struct kwd;

/* --- kwatchd-fuzz.c: the daemon's side ---------------------------------------------- */

/* One fuzz.d file's spool replayed into its target. */
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
	bool batch_put_back;		/* the batch's rest goes back (our failure) */
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
 * of the task it names (kwd_tie_of()).  Only kwatchd-fuzz.c's kwd_tie*() set and
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
	struct kwd_tie *next;		/* in kwd_fuzz.runs, while a run's tie is set */
};

/* The daemon's fuzz sources (struct kwd's fuzz, made at start-up). */
struct kwd_fuzz {
	struct fuzz_rt **fuzz;		/* one per started fuzz file */
	size_t n_fuzz;
	struct fuzzgen_rt **gen;	/* one per started generate = yes file */
	size_t n_gen;
	unsigned int n_recovered;	/* blobs found in flight at start-up */
	/* The daemon's own tie: the blob being written to a KFuzzTest input
	 * right now, or at start-up the one found in flight (the daemon may
	 * have died in its write). */
	struct kwd_tie tie;
	struct kwd_tie *runs;		/* the ties of child processes' runs */
};

struct kwd_fuzz *kwd_fuzz_new(void);
/* After fuzz_stop_all(): nothing runs any more. */
void kwd_fuzz_free(struct kwd_fuzz *zf);

/* Start replaying a fuzz.d file's spool; reason says why it cannot. */
int fuzz_start(struct kwd *d, const struct kw_file *f, char *reason, size_t n);
bool fuzz_stop(struct kwd *d, const char *name);
void fuzz_stop_all(struct kwd *d);

/* The apply steps (kwatchd-reconcile.c's execute()): start a fuzz file's spool or
 * generator, a fuzz_started event if it runs (else -errno, what failed in
 * *what and why in @reason); stop the one of a file, a fuzz_stopped event
 * if one ran. */
int fuzz_apply_start(struct kwd *d, const struct kw_file *f, char *reason, size_t n,
		     const char **what);
void fuzz_apply_stop(struct kwd *d, const struct kw_file *f);

/* The status reply's "spools" and "generators". */
void fuzz_status(struct kwd *d, json_object *st);

/* kwatchd-fuzzgen.c: generate = yes, inputs from the bridge in a child process */
int fuzzgen_start(struct kwd *d, const struct kw_file *f, char *reason, size_t n);
bool fuzzgen_stop(struct kwd *d, const char *name);
void fuzzgen_stop_all(struct kwd *d);
/* One object per generating file, into the status record's array. */
void fuzzgen_status(struct kwd *d, json_object *arr);

/* kwatchd-fuzz.c: ties */
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
