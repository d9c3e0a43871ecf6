/* SPDX-License-Identifier: GPL-2.0 */
/* A wprobe (wprobe.d/) through tracefs: the event is defined in
 * dynamic_events (group "kwatchd"), enabled in a tracefs instance of the
 * daemon's own, and its hits are read from that instance's trace_pipe.
 * kwatchd-wprobe.c holds its whole life: the [wprobe] keys, the apply steps, the
 * kernel I/O, the hits, its part of the status reply.  The text of
 * tracefs it reads and writes is parsed in tracefs-text.c. */
#ifndef KW_WPROBE_H
#define KW_WPROBE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <json-c/json.h>
#include <systemd/sd-event.h>

#include "config.h"
#include "tracefs-text.h"

#define KW_WPROBE_GROUP "kwatchd"

struct kwd;

/* The wprobes' runtime, one per daemon (struct kwd's wprobes). */
struct kwd_wprobes {
	bool ok;			/* the kernel has wprobes: wprobe_supported() */
	bool module_ok;			/* and MODULE:SYMBOL: wprobe_module_supported() */
	char trace_pipe[PATH_MAX];
	int pipe_fd;			/* -1: not open */
	sd_event_source *pipe_io;
	struct wprobe_lines pipe_lines;
	uint64_t pipe_lost, pipe_too_long;	/* the totals of its lost records */
	uint64_t hits;			/* wprobe_hit events sent */
};

/* NULL: no memory.  ok is false until the caller probes the kernel. */
struct kwd_wprobes *kwd_wprobes_new(void);
void kwd_wprobes_free(struct kwd_wprobes *w);

/* The apply steps (kwatchd-reconcile.c's execute()): create the wprobe of f if it
 * is enabled (reason gets the kernel's words on failure), and remove it. */
int wp_create(struct kwd *d, const struct kw_file *f, char *reason, size_t n);
void wp_remove(struct kwd *d, const struct kw_file *f);

/* At start: remove what a kwatchd that was killed left in tracefs. */
void kwd_wprobe_clear_stale(struct kwd *d);

/* Open the instance's trace_pipe (once) and turn its lines into
 * wprobe_hit and wprobe_storm events; close it. */
int kwd_pipe_open(struct kwd *d);
void kwd_pipe_close(struct kwd *d);

/* The status reply's "wprobes" (the names of those in force),
 * "wprobes_waiting" (those whose module is not loaded) and
 * "wprobe_support". */
void kwd_wprobes_status(struct kwd *d, json_object *st);

/* The kernel's side, in tracefs. */
/* tracefs/README mentions the w: syntax. */
bool wprobe_supported(const char *tracefs);
/* Its wprobes take MODULE:SYMBOL, and follow it across unload and reload. */
bool wprobe_module_supported(const char *tracefs);
/* mkdir <tracefs>/instances/<instance>; fills the trace_pipe path. */
int wprobe_instance_open(const char *tracefs, const char *instance, char *pipe, size_t n);
/* Create, attach triggers and enable.  On failure nothing is left behind;
 * reason gets the kernel's error_log line when there is one. */
int wprobe_create(const char *tracefs, const char *instance, const struct kw_wprobe *p,
		  char *reason, size_t n);
/* Enable wprobe:wprobe_storm in the instance; -ENOENT: no guard here. */
int wprobe_storm_enable(const char *tracefs, const char *instance);
/* Remove the instance and the KW_WPROBE_GROUP wprobes a killed daemon
 * left; returns how many wprobes, or a negative errno. */
int wprobe_remove_stale(const char *tracefs, const char *instance,
			void (*removed)(const char *name, void *data), void *data);
int wprobe_remove(const char *tracefs, const char *instance, const struct kw_wprobe *p);

#endif
