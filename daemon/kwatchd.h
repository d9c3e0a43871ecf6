/* SPDX-License-Identifier: GPL-2.0 */
/* The daemon's state, shared by its files: kwatchd.c (life cycle, signals,
 * systemd), reconcile.c (config -> kernel), fuzz.c (spool runtimes). */
#ifndef KWATCHD_H
#define KWATCHD_H

#include <systemd/sd-event.h>

#include "apply.h"
#include "config.h"
#include "event.h"
#include "server.h"
#include "spool.h"

struct kwd;

struct fuzz_rt {
	struct kwd *d;
	struct kw_file file;
	struct spool spool;
	bool open;
	sd_event_source *inotify;
	sd_event_source *timer;
	uint64_t execs, rejected, interrupted;
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
	char armed_line[256];		/* what /proc/kstackwatch holds, "" if none */
	char armed_file[NAME_MAX + 1];

	struct fuzz_rt **fuzz;		/* one per started fuzz file */
	size_t n_fuzz;

	bool wprobe_ok;
	char trace_pipe[PATH_MAX];
	int pipe_fd;
	sd_event_source *pipe_io;
	char pipe_buf[8192];
	size_t pipe_len;

	sd_event_source *conf_src[_KW_KIND_MAX + 1];
	sd_event_source *quiet;
	uint64_t reloads, applies, config_errors, wprobe_hits;
	uint64_t bench_left, bench_rate;
	sd_event_source *bench;
	bool stopping;

	struct kwbpf *bpf;		/* NULL: no BPF programs */
	struct crash_rt *crash;		/* NULL: no crash capture */
	/* The blob being written to a KFuzzTest input right now. */
	struct fuzz_rt *inflight;
	char inflight_blob[NAME_MAX + 1];
};

/* Encode and broadcast; takes ownership of ev. */
void kwd_emit(struct kwd *d, json_object *ev);
void kwd_status_notify(struct kwd *d);

/* reconcile.c */
int kwd_reload(struct kwd *d, const char *why);
void kwd_teardown(struct kwd *d);
json_object *kwd_status(struct kwd *d);

/* fuzz.c */
int fuzz_start(struct kwd *d, const struct kw_file *f);
bool fuzz_stop(struct kwd *d, const char *name);
void fuzz_stop_all(struct kwd *d);
/* The blob in flight (and its target), NULL outside a replay. */
const char *kwd_inflight_blob(struct kwd *d, const char **target);

#endif
