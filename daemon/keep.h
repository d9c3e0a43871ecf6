/* SPDX-License-Identifier: GPL-2.0 */
/* Retention of what the daemon keeps on disk: the crash directory of a
 * target holds each crashing blob with its reports beside it
 * (NAME.report, NAME.2.report, ...); only the newest blobs stay. */
#ifndef KW_KEEP_H
#define KW_KEEP_H

/* In directory dfd keep the @keep newest blobs (by ctime: when they were
 * kept) and remove the others with their reports; *removed counts the
 * blobs removed.  0 or a negative errno. */
int kw_keep_newest_blobs(int dfd, unsigned int keep, unsigned int *removed);

#endif
