/* SPDX-License-Identifier: GPL-2.0 */
/* KStackWatch v4 control: one line to /proc/kstackwatch arms the one
 * watch, an empty line disarms it.  Opened, written and closed per apply;
 * the file allows a single opener, so EBUSY is waited out (up to 2 s). */
#ifndef KW_KSW_H
#define KW_KSW_H

#include <stddef.h>

#include "config.h"

/* Write the watch's line and read it back; fills line.  Returns 0 or the
 * kernel's negative errno (-EIO if the read-back differs). */
int ksw_arm(const char *path, const struct kw_watch *w, char *line, size_t n);
int ksw_disarm(const char *path);
bool ksw_present(const char *path);
/* The kernel's read-back shows exactly @line (or nothing to compare). */
bool ksw_readback_ok(const char *back, const char *line);

/* The line /proc/kstackwatch takes for w; its length or -ENAMETOOLONG. */
int kw_watch_line(const struct kw_watch *w, char *buf, size_t n);

#endif
