/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Crash to watch (kwatchd-triage.c), opt-in with [triage] stack_protector
 * = watch: a "stack-protector: Kernel stack is corrupted in: FUNC" panic,
 * read live from /dev/kmsg or after the reboot from pstore, arms a canary
 * watch on FUNC, so that the next occurrence is a catch naming the store
 * that corrupts it.  With [triage] kasan_stack = watch, a KASAN
 * "stack-out-of-bounds" report whose frame KASAN describes arms a watch on
 * the local VAR of FUNC next to the bad access (kmsg_kasan_stack()).
 *
 * The watch is a [watch] file of the daemon's own, <state>/triage/FUNC.conf
 * or FUNC-VAR.conf (its first line says why), applied beside watch.d/ as
 * the watch file "triage-FUNC.conf" (or "triage-FUNC-VAR.conf"): kept
 * across restarts until the user removes it.  It never takes the last free
 * debug register from the user's own watches: at each apply, triage
 * watches are added only while one would stay free beside them, and the
 * first apply that has no room leaves them out.
 */
#ifndef KWATCHD_TRIAGE_H
#define KWATCHD_TRIAGE_H

#include <stdbool.h>
#include <stddef.h>

#include "config.h"

struct kwd;

#define KWD_TRIAGE_DIR		"triage"
#define KWD_TRIAGE_PREFIX	"triage-"
#define KWD_TRIAGE_MAX		16	/* triage watch files read, at most */

/* A crash report (@title, its whole @text, and @panic: the panic line of a
 * pstore record, or NULL): arm the triage watch it calls for, if the
 * settings ask. */
void kwd_triage_report(struct kwd *d, const char *title, const char *text, const char *panic,
		       bool previous_boot);

/* At an apply: add the triage watch files to @files (the user's, @n of
 * them), as many as leave a debug register free beside them. */
int kwd_triage_add(struct kwd *d, struct kw_file **files, size_t *n);

/* @f is a triage watch (its name in the set in force). */
bool kwd_triage_is(const struct kw_file *f);

/* Triage watch @f was armed as @line: a triage_armed event (the reason
 * from its file's first line). */
void kwd_triage_armed(struct kwd *d, const struct kw_file *f, const char *line);

#endif
