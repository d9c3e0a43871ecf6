// SPDX-License-Identifier: GPL-2.0
/* Attach and detach: the catch program while a watch is armed, the fuzz
 * programs while a fuzz target runs, one perf link per enabled wprobe. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "kwatch.h"
#include "kwatch.skel.h"
#include "kwbpf.h"
#include "kwbpf-int.h"
#include "kwatchd.h"
#include "ksym.h"
#include "log.h"
#include "util.h"
#include "wprobe.h"

/* --- attach and detach --------------------------------------------------- */

bool kwbpf_event_exists(struct kwd *d, const char *event)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%.2000s/events/%s/id", d->set.tracefs, event);
	return access(path, R_OK) == 0;
}

static void set_tp(struct kwbpf *b, enum kwb_prog p, bool want)
{
	struct bpf_link *l;
	long err;

	if (!b->usable[p] || want == !!b->link[p])
		return;
	if (!want) {
		bpf_link__destroy(b->link[p]);
		b->link[p] = NULL;
		kwbpf_attach_event(b->d, "bpf_detached", prog_info[p].name, prog_info[p].event);
		return;
	}
	l = bpf_program__attach(kwbpf_prog_of(b, p));
	err = libbpf_get_error(l);
	if (err) {
		kwbpf_unavailable_event(b->d, prog_info[p].name, "attach failed", (int)err);
		b->usable[p] = false;
		return;
	}
	b->link[p] = l;
	kwbpf_attach_event(b->d, "bpf_attached", prog_info[p].name, prog_info[p].event);
}

const char *kwbpf_wprobe_name(const struct kwbpf *b, uint64_t cookie)
{
	unsigned int i;

	for (i = 0; i < KWB_MAX_WPROBES; i++)
		if (cookie && b->wp[i].cookie == cookie)
			return b->wp[i].name;
	return NULL;
}

static int wprobe_attach(struct kwbpf *b, unsigned int slot, const char *name)
{
	LIBBPF_OPTS(bpf_perf_event_opts, opts, .bpf_cookie = b->last_cookie + 1);
	struct perf_event_attr attr = {
		.type = PERF_TYPE_TRACEPOINT,
		.size = sizeof(attr),
		.sample_period = 1,
		.wakeup_events = 1,
	};
	_cleanup_free_ char *text = NULL;
	char path[PATH_MAX];
	struct bpf_link *l;
	int fd, r;

	snprintf(path, sizeof(path), "%.2000s/events/%s/%s/id", b->d->set.tracefs,
		 KW_WPROBE_GROUP, name);
	r = kw_read_file(path, 64, &text, NULL);
	if (r < 0)
		return r;
	attr.config = strtoull(text, NULL, 10);
	/* A trace event's BPF program runs on every CPU: one fd is enough. */
	fd = syscall(__NR_perf_event_open, &attr, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return -errno;
	l = bpf_program__attach_perf_event_opts(b->skel->progs.kw_wprobe, fd, &opts);
	r = (int)libbpf_get_error(l);
	if (r) {
		close(fd);
		return r;
	}
	b->wp[slot].link = l;	/* the link closes fd */
	b->wp[slot].cookie = ++b->last_cookie;
	snprintf(b->wp[slot].name, sizeof(b->wp[slot].name), "%s", name);
	return 0;
}

static bool wprobe_wanted(struct kwd *d, const char *name)
{
	size_t i;

	for (i = 0; i < d->n_cur; i++)
		if (d->cur[i].kind == KW_WPROBE && d->cur[i].wprobe.enabled &&
		    strcmp(d->cur[i].wprobe.name, name) == 0)
			return true;
	return false;
}

/* The slot following wprobe name, or -1. */
static int slot_of(struct kwbpf *b, const char *name)
{
	int i;

	for (i = 0; i < KWB_MAX_WPROBES; i++)
		if (b->wp[i].link && strcmp(b->wp[i].name, name) == 0)
			return i;
	return -1;
}

static void detach_slot(struct kwbpf *b, unsigned int i)
{
	/* No new records; those in the ring keep their name (by cookie)
	 * until the slot is reused: nothing to drain here, however busy a
	 * producer keeps the ring. */
	bpf_link__destroy(b->wp[i].link);
	b->wp[i].link = NULL;
	kwbpf_attach_event(b->d, "bpf_detached", "wprobe", b->wp[i].name);
}

void kwbpf_wprobe_detach(struct kwd *d, const char *name)
{
	int i = d->bpf ? slot_of(d->bpf, name) : -1;

	if (i >= 0)
		detach_slot(d->bpf, i);
}

/* The free slot detached longest ago (its name is the least likely to
 * still be wanted by records in the ring); KWB_MAX_WPROBES if none. */
static unsigned int free_slot(const struct kwbpf *b)
{
	unsigned int i, best = KWB_MAX_WPROBES;

	for (i = 0; i < KWB_MAX_WPROBES; i++)
		if (!b->wp[i].link && (best == KWB_MAX_WPROBES ||
				       b->wp[i].cookie < b->wp[best].cookie))
			best = i;
	return best;
}

static void sync_wprobes(struct kwbpf *b)
{
	struct kwd *d = b->d;
	unsigned int i;
	size_t j;
	int r;

	for (i = 0; i < KWB_MAX_WPROBES; i++)
		if (b->wp[i].link && !wprobe_wanted(d, b->wp[i].name))
			detach_slot(b, i);
	if (!b->usable[P_WPROBE] || !d->wprobes->ok)
		return;
	for (j = 0; j < d->n_cur; j++) {
		const struct kw_wprobe *p = &d->cur[j].wprobe;

		if (d->cur[j].kind != KW_WPROBE || !p->enabled || slot_of(b, p->name) >= 0)
			continue;
		i = free_slot(b);
		if (i == KWB_MAX_WPROBES) {
			log_warning("bpf: more than %d wprobes, %s not followed by BPF",
				    KWB_MAX_WPROBES, p->name);
			continue;
		}
		r = wprobe_attach(b, i, p->name);
		if (r < 0) {
			/* Not fatal: its hits still arrive through tracefs. */
			log_warning("bpf: cannot attach to wprobe %s: %s", p->name, strerror(-r));
			continue;
		}
		kwbpf_attach_event(d, "bpf_attached", "wprobe", p->name);
	}
}

void kwbpf_before_arm(struct kwd *d)
{
	if (d->bpf)
		set_tp(d->bpf, P_CATCH, true);
}

void kwbpf_sync(struct kwd *d)
{
	struct kwbpf *b = d->bpf;

	if (!b)
		return;
	set_tp(b, P_CATCH, d->n_armed > 0);
	set_tp(b, P_FUZZ_ENTRY, d->n_fuzz > 0);
	set_tp(b, P_FUZZ_DONE, d->n_fuzz > 0);
	sync_wprobes(b);
}

