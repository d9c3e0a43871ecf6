/* SPDX-License-Identifier: GPL-2.0 */
/* KStackWatch control: one line to /proc/kstackwatch arms the one watch,
 * an empty line disarms it.  Opened, written and closed per apply; the
 * file allows a single opener, so EBUSY is waited out (up to 100 ms).
 * A watch with ip_offset= is written as the v4 line; one without, as
 * key=value (fn= ...), and the kernel picks the probe point.  variable=
 * is resolved into co= from the stack variable index (stackvars.h). */
#ifndef KW_KSW_H
#define KW_KSW_H

#include <stddef.h>

#include <sys/stat.h>

#include "config.h"
#include "stackvars.h"

/* The stack variable index, read when first needed and again when the
 * file changes. */
struct ksw_vars {
	struct kw_stackvars sv;
	struct stat st;		/* of the file read; st_ino 0: none read */
};

/* Resolve @w's variable= (if any) in the index at @path ("": the running
 * kernel's, /usr/lib/kwatch/stackvars/RELEASE): fills w->cfa_off,
 * w->local_len and w->resolved.  0, or a negative errno with a sentence
 * for a person in @why. */
int ksw_resolve(struct ksw_vars *vars, const char *path, struct kw_watch *w, char *why,
		size_t n);
void ksw_vars_free(struct ksw_vars *vars);

/* Write the watch's line and read it back; fills line, and @picked with the
 * probe point the kernel picked ("fo=0x.. [so=..]", or "").  Returns 0 or
 * the kernel's negative errno (-EIO if the read-back differs). */
int ksw_arm(const char *path, const struct kw_watch *w, char *line, size_t n, char *picked,
	    size_t picked_n);
int ksw_disarm(const char *path);
bool ksw_present(const char *path);
/* The kernel's read-back shows exactly @line, or @line and " # " and the
 * probe point it picked (or nothing to compare). */
bool ksw_readback_ok(const char *back, const char *line);

/* The line /proc/kstackwatch takes for w; its length or -ENAMETOOLONG. */
int kw_watch_line(const struct kw_watch *w, char *buf, size_t n);

#endif
