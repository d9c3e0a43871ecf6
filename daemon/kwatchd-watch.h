/* SPDX-License-Identifier: GPL-2.0 */
/* A watch (watch.d/, KStackWatch) in the daemon (kwatchd-watch.c): the watches
 * /proc/kstackwatch holds, arming and disarming them (kwatchd-reconcile.c's
 * execute() calls the steps), the retry while a reader holds the file,
 * their part of the status reply and of catch and crash events.  The pure
 * part, linked by the host tests without a daemon, is ksw.c: the [watch]
 * keys, the line the kernel takes, the file's I/O. */
#ifndef KWATCHD_WATCH_H
#define KWATCHD_WATCH_H

#include <json-c/json.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <systemd/sd-event.h>

#include "config.h"
#include "ksw.h"

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

/* The daemon's watches (struct kwd's watches). */
struct kwd_watches {
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
};

struct kwd_watches *kwd_watches_new(void);
/* Its timer and the stack variable index; the kernel is left as it is. */
void kwd_watches_free(struct kwd_watches *w);

/* How many watches the kernel takes; asked again only while none is
 * armed (a changed kstackwatch= setting). */
unsigned int kwd_watches_max(struct kwd *d);
/* The watch armed from file @f, or NULL; one whose disarm waits for a
 * reader is no longer the file's. */
struct kwd_armed *kwd_watch_armed_of(struct kwd *d, const struct kw_file *f);
/* Arm @f's watch, its variable= resolved first; the file's version in
 * force, if armed, stays armed until the new one is in.  On failure, @what
 * is what failed (NULL: @line holds the whole reason). */
int kwd_watch_arm(struct kwd *d, struct kw_file *f, char *line, size_t n, const char **what);
/* Take @f's watch out of the kernel, if armed; a reader holding the file
 * leaves it to the retry timer. */
void kwd_watch_disarm(struct kwd *d, const struct kw_file *f);
/* Apply again (kwd_reload()) after @usec: a reader held the file. */
void kwd_watch_reload_later(struct kwd *d, uint64_t usec);
/* At stop, after kwd_watch_disarm() of every watch file: a disarm a
 * reader held up is tried once more, and said if it still cannot be done. */
void kwd_watches_teardown(struct kwd *d);
/* Which watch fired, for a catch or crash event: "definition", the line
 * the kernel named (none if empty), and "watch_file", the file that armed
 * it if one of ours did (a report of the previous boot may name none). */
void kwd_watch_fields(struct kwd *d, json_object *ev, const char *line);
/* Remove from /proc/kstackwatch what no watch file of ours armed (left by
 * a daemon that was killed); with one watch, clear it if none is armed. */
void kwd_ksw_clear_stale(struct kwd *d);
/* The status record's watch, watch_file, watches and max_watches. */
void kwd_watches_status(struct kwd *d, json_object *st);
/* The first watch's line ("" if none), as with one watch at a time. */
const char *kwd_watch_first_line(struct kwd *d);

#endif
