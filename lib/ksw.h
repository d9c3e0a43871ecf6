/* SPDX-License-Identifier: GPL-2.0 */
/* The watch's pure part (the daemon's is kwatchd-watch.c): the [watch] keys of a
 * watch.d/ file, the line it is armed as, and KStackWatch control, linked
 * by the host tests and the config fuzzer without a daemon.
 * KStackWatch control.  A kernel with several watches (its max_watches
 * parameter above 1) takes each watch file's line appended (O_APPEND) and
 * drops one with "-LINE"; with one watch (a v4 kernel, or a stand-in file
 * that is no kernel file) a line replaces the watch and an empty line
 * disarms it.  Opened, written and closed per change; the file allows a
 * single opener, so EBUSY is waited out (up to 100 ms).
 * A watch with ip_offset= is written as the v4 line; one without, as
 * key=value (fn= ...), and the kernel picks the probe point.  variable=
 * is resolved into co= from the stack variable index (stackvars.h). */
#ifndef KW_KSW_H
#define KW_KSW_H

#include <stdbool.h>
#include <stddef.h>

#include <sys/stat.h>

#include "config.h"
#include "module.h"
#include "stackvars.h"

#define KSW_MODULES_CACHED 4

/* The [watch] section (config.c's drop-in parser calls these): one key, 1
 * if taken, else 0 with the reason given to kw_bad(); then the section
 * read whole, 0 or -EINVAL. */
int kw_watch_key(struct parse_state *ps, struct kw_watch *w, const char *key, const char *v);
int kw_watch_validate(struct parse_state *ps, struct kw_watch *w);

/* The stack variable index, read when first needed and again when the
 * file changes. */
struct ksw_vars {
	struct kw_stackvars sv;
	struct stat st;		/* of the file read; st_ino 0: none read */
	/* The modules' files read last (a developer's own modules, which the
	 * index does not hold), each while it is unchanged. */
	struct kw_module_vars mods[KSW_MODULES_CACHED];
	unsigned int next_mod;			/* the slot to reuse next */
	/* Where the running kernel is told about (NULL: /sys/module and
	 * /proc/kallsyms; the host tests point them at files of theirs). */
	const char *sysfs_module, *kallsyms;
};

/* Resolve @w's variable= (if any) in the index at @path ("": the running
 * kernel's, /usr/lib/kwatch/stackvars/RELEASE): fills w->cfa_off,
 * w->local_len and w->resolved; and, for a variable or the canary of a
 * function that the index has only as gcc's clones, w->symbol (the clone
 * watched) and w->clones_unwatched.  A canary needs no index: without
 * one, the function is watched by the name given.  0, or a negative
 * errno with a sentence for a person in @why. */
int ksw_resolve(struct ksw_vars *vars, const char *path, struct kw_watch *w, char *why,
		size_t n);
/* A module's function (module= or module_path= given, or a function the
 * index lacks that a loaded module has): resolved in the module's file,
 * its line naming it MODULE:FUNCTION (w->in_module).  A module that is not
 * loaded leaves w->waiting set and @why saying so: the watch arms when it
 * is.  A function the index lacks and no loaded module has keeps the
 * index's reason. */
void ksw_vars_free(struct ksw_vars *vars);

/* The longest /proc/kstackwatch line kwatchd writes, with its NUL. */
#define KSW_LINE_MAX	256
/* Watches kwatchd keeps at most, whatever a kernel allows. */
#define KSW_WATCHES_MAX	16
/* Where the kernel says how many watches it takes. */
#define KSW_MAX_WATCHES_PARAM	"/sys/module/kstackwatch/parameters/max_watches"

/* How many watches @path takes at once: 1 unless it is a kernel file and
 * @param (KSW_MAX_WATCHES_PARAM) says more; at most KSW_WATCHES_MAX. */
unsigned int ksw_max_watches(const char *path, const char *param);

/* Write the watch's line and read it back; fills line, and @picked with the
 * probe point the kernel picked ("fo=0x.. [so=..]", or "").  With @add the
 * line is appended beside the other watches, else it replaces them.
 * Returns 0 or the kernel's negative errno (-EIO if the read-back lacks
 * the line); with @add, -EEXIST is 0: the line is there already (left by
 * a daemon that was killed). */
int ksw_arm(const char *path, const struct kw_watch *w, bool add, char *line, size_t n,
	    char *picked, size_t picked_n);
/* Disarm all watches. */
int ksw_disarm(const char *path);
/* Disarm the watch armed as @line, the others kept; 0 also if it is gone. */
int ksw_remove(const char *path, const char *line);
bool ksw_present(const char *path);
/* The kernel's read-back shows exactly @line, or @line and " # " and the
 * probe point it picked (or nothing to compare). */
bool ksw_readback_ok(const char *back, const char *line);
/* The same for the lines of a read-back of several watches: the line that
 * is @line's, or NULL. */
const char *ksw_readback_find(const char *back, const char *line);
/* Each watch line of a read-back, without what the kernel added after
 * " # ", into @lines (at most @max); how many. */
size_t ksw_readback_lines(const char *back, char (*lines)[KSW_LINE_MAX], size_t max);
/* Read the control file: 0 and *ret (free() it), or a negative errno. */
int ksw_read(const char *path, char **ret);

/* The line /proc/kstackwatch takes for w; its length or -ENAMETOOLONG. */
int kw_watch_line(const struct kw_watch *w, char *buf, size_t n);

#endif
