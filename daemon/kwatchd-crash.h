/* SPDX-License-Identifier: GPL-2.0 */
/* Crash capture (kwatchd-crash.c): kernel reports from /dev/kmsg, and the previous
 * boot's panic from pstore, as events, tied to the fuzz blob in flight
 * when they appear. */
#ifndef KW_CRASH_H
#define KW_CRASH_H

#include <json-c/json.h>

#include <stdbool.h>

struct kwd;

/* Open [capture] kmsg_path ([capture] kmsg = yes); d->state_dir keeps the
 * log position across restarts ("": not kept).  The first crash_drain()
 * reads what was logged since that position (or this boot's start). */
int crash_open(struct kwd *d);
/* Read and report the records available now, at most CRASH_DRAIN_MAX (a
 * log flood must not hold the event loop); true if it stopped there with
 * more to read. */
bool crash_drain(struct kwd *d);
/* crash_drain() until nothing is left (start-up, stop). */
void crash_drain_all(struct kwd *d);
/* Read the pstore records ([capture] pstore) not read before: each panic
 * of an earlier boot is one crash event (source pstore) for the report
 * that caused it, tied to the blob that is tied now when it is the only
 * new panic. */
void crash_pstore(struct kwd *d);
/* Save the position in the log now, with this boot's id: the next boot
 * then knows which boot was kwatchd's last (the pmsg lines of that boot
 * name the input in flight at a panic). */
void crash_pos_sync(struct kwd *d);
void crash_close(struct kwd *d);
void crash_status(struct kwd *d, json_object *st);

#endif
