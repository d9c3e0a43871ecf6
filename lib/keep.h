/* SPDX-License-Identifier: GPL-2.0 */
/* Retention of what the daemon keeps on disk: a directory keeps its
 * newest entries, by when they were put there (ctime: a move or a link
 * sets it).  A spool's done/, rejected/, interrupted/ (spool_prune) and
 * a target's crash directory, where each crashing blob has its reports
 * beside it (NAME.report, NAME.2.report, ...), use it. */
#ifndef KW_KEEP_H
#define KW_KEEP_H

#include <stdbool.h>
#include <sys/stat.h>

/* Which entries count (name and lstat; names starting with '.' never do),
 * and how one goes: 0 removed, > 0 left (gone or busy), < 0 an error. */
struct kw_keep_ops {
	bool (*counts)(const char *name, const struct stat *st, void *ud);
	int (*remove)(int dfd, const char *name, void *ud);
};

/* In directory dfd keep the @keep newest entries that count, remove the
 * others (oldest first); *removed counts those removed, *left (NULL: not
 * wanted) those that count and stay.  0 or -errno. */
int kw_keep_newest(int dfd, unsigned int keep, const struct kw_keep_ops *ops, void *ud,
		   unsigned int *removed, unsigned int *left);

/* A target's crash directory: the @keep newest blobs stay, the older go
 * with their reports. */
int kw_keep_newest_blobs(int dfd, unsigned int keep, unsigned int *removed);

#endif
