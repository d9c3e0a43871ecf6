/* SPDX-License-Identifier: GPL-2.0 */
/* kwatchd's BPF loader (bpf/kwatch.c): programs of bpf/kwatch.bpf.c
 * attached while their kind of object is configured, one ring buffer read
 * in the event loop.  The daemon's side only: kwatch.h is shared with the
 * BPF programs, compiled against vmlinux.h without any user-space header,
 * so nothing of json-c or struct kwd may go there. */
#ifndef KW_KWATCH_LOADER_H
#define KW_KWATCH_LOADER_H

#include <json-c/json.h>

#include <stdbool.h>

struct kwd;

/* Load the programs ([capture] bpf = yes).  A program whose trace event
 * the kernel lacks is left out (a bpf_unavailable event, and 0); if none
 * can be loaded, a bpf_unavailable event and a negative errno, and the
 * daemon goes on without them. */
int kwbpf_open(struct kwd *d);
/* A watch is about to be armed: attach the catch program first, so that
 * no catch right after arming is missed. */
void kwbpf_before_arm(struct kwd *d);
/* Attach and detach to match the configuration in force. */
void kwbpf_sync(struct kwd *d);
/* Detach from wprobe name before it is removed (it is busy while a perf
 * event holds it). */
void kwbpf_wprobe_detach(struct kwd *d, const char *name);
/* Read what the ring buffer holds now, at most KWBPF_BATCH records (true:
 * stopped there), and announce new losses. */
bool kwbpf_poll(struct kwd *d);
/* kwbpf_poll() until the ring is empty, or 64 batches if a producer keeps
 * it full (before a detach, at a stop). */
void kwbpf_poll_all(struct kwd *d);
void kwbpf_close(struct kwd *d);
void kwbpf_status(struct kwd *d, json_object *st);

#endif
