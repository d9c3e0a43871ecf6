/* SPDX-License-Identifier: GPL-2.0 */
/* What the kernel kept for the next boot in pstore (ramoops, efi-pstore):
 * the "dmesg-*" records of /sys/fs/pstore, or of the archive that
 * systemd-pstore moves them to early in boot (one directory level down).
 * Each record is handed out once: the hashes of the records present are
 * kept in a file, so that a restarted daemon and a record present in both
 * places are not reported twice.  At most PSTORE_SEEN_MAX records are
 * followed (in directory and reverse name order); a record gone is
 * forgotten.
 *
 * A dmesg record is the tail of the log when the kernel dumped it: a header
 * ("Panic#1 Part1") and the messages in syslog form ("<4>[   12.345678]
 * ..."). */
#ifndef KW_PSTORE_H
#define KW_PSTORE_H

#include <stddef.h>

#include "kmsg.h"

#define PSTORE_SEEN_MAX	128
#define PSTORE_REC_MAX	(1 << 20)

struct pstore_record {
	const char *path;
	const char *text;		/* the whole file, NUL-terminated */
	size_t len;
	char reason[16];		/* "Panic", "Oops", ...; "" without a header */
	unsigned int part;		/* 0 without a header */
};

/* Return 0, or a negative errno to stop the scan (the record is then not
 * marked as read). */
typedef int (*pstore_cb)(const struct pstore_record *rec, void *userdata);

/* Call cb for each record under dirs (space-separated; missing ones are
 * skipped) that seen_path does not list, in reverse name order per directory,
 * then save seen_path.  Returns the number of new records or a negative
 * errno (cb's: the scan stops there; that record is not marked as read). */
int pstore_scan(const char *dirs, const char *seen_path, pstore_cb cb, void *userdata);

/* A panic record's reports: *cause gets the last report that ended before
 * the panic (NULL if none), *panic the "Kernel panic" report (NULL if the
 * record has none).  Both malloc'ed.  Returns 0 or -ENOMEM. */
int pstore_reports(const char *text, struct kmsg_report **cause, struct kmsg_report **panic);

#endif
