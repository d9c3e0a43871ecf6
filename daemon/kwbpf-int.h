/* SPDX-License-Identifier: GPL-2.0 */
/* What kwbpf.c (loader, life cycle, status), kwbpf-records.c (ring buffer
 * records to events) and kwbpf-attach.c (attach and detach) share. */
#ifndef KW_KWBPF_INT_H
#define KW_KWBPF_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <bpf/libbpf.h>
#include <systemd/sd-event.h>

#include "config.h"

struct kwd;
struct kwatch_bpf;

#define KWB_MAX_WPROBES 16

enum kwb_prog { P_CATCH, P_FUZZ_ENTRY, P_FUZZ_DONE, P_WPROBE, _P_MAX };

struct kwb_prog_info {
	const char *name;	/* for events */
	const char *event;	/* tracefs events/ path of its attach point */
};

extern const struct kwb_prog_info prog_info[_P_MAX];

/* Records handled at one wakeup (kwbpf_poll). */
#define KWBPF_BATCH 256

struct kwbpf {
	struct kwd *d;
	struct kwatch_bpf *skel;
	struct ring_buffer *rb;
	sd_event_source *io;
	bool usable[_P_MAX];
	struct bpf_link *link[_P_MAX];		/* the tracepoint programs */
	struct {
		char name[KW_NAME_MAX + 1];	/* kept after detach, until reused */
		struct bpf_link *link;
		uint64_t cookie;		/* this attach's, in its records */
	} wp[KWB_MAX_WPROBES];
	uint64_t last_cookie;
	uint64_t records[_P_MAX], lost_reported;
	unsigned int batch;			/* records handled in this poll */
};

struct bpf_program *kwbpf_prog_of(struct kwbpf *b, enum kwb_prog p);
void kwbpf_unavailable_event(struct kwd *d, const char *prog, const char *what, int err);
void kwbpf_attach_event(struct kwd *d, const char *type, const char *prog, const char *what);

/* kwbpf-attach.c: tracefs has the event (its attach point exists). */
bool kwbpf_event_exists(struct kwd *d, const char *event);
/* The wprobe a record's cookie was attached for; NULL once its slot was
 * reused (each attach has a cookie of its own, so a record is never
 * given another wprobe's name). */
const char *kwbpf_wprobe_name(const struct kwbpf *b, uint64_t cookie);

/* kwbpf-records.c */
int kwbpf_on_record(void *ctx, void *data, size_t size);
int kwbpf_on_ring(sd_event_source *s, int fd, uint32_t revents, void *userdata);

#endif
