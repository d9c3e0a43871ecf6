// SPDX-License-Identifier: GPL-2.0
/* Ring buffer records to events: a catch with its stack, a fuzz target's
 * entry and completion, a wprobe hit; kernel addresses symbolised from
 * the daemon's kallsyms table.  At most KWBPF_BATCH records a wakeup. */
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

/* --- symbols -------------------------------------------------------------- */

/* Modules come and go: a miss reloads kallsyms, at most once a second. */
static void sym(struct kwbpf *b, uint64_t addr, char *buf, size_t n)
{
	struct kwd *d = b->d;
	const struct ksym *k;
	uint64_t now = 0;
	bool warn;

	sd_event_now(d->ev, CLOCK_MONOTONIC, &now);
	/* -ENOBUFS: found, the name cut to fit. */
	k = ksym_cache_get(&d->syms, d->set.kallsyms, now, false, &warn);
	if (k && ksym_format(k, addr, buf, n) != -ENOENT)
		return;
	k = ksym_cache_get(&d->syms, d->set.kallsyms, now, true, &warn);
	if (warn)
		log_warning("no symbols from %s: addresses stay numeric", d->set.kallsyms);
	if (k && ksym_format(k, addr, buf, n) != -ENOENT)
		return;
	snprintf(buf, n, "0x%" PRIx64, addr);
}

#define HEX_LEN 24

static const char *hex(uint64_t v, char buf[HEX_LEN])
{
	snprintf(buf, HEX_LEN, "0x%" PRIx64, v);
	return buf;
}

static void add_hex(json_object *ev, const char *key, uint64_t v)
{
	char buf[HEX_LEN];

	kw_event_add_str(ev, key, hex(v, buf));
}

/* A fixed-size string of a record, which the kernel may not terminate. */
static void add_fixed(json_object *ev, const char *key, const char *s, size_t len)
{
	char buf[KWB_NAME_LEN + 1];

	snprintf(buf, sizeof(buf), "%.*s", (int)len, s);
	kw_event_add_str(ev, key, buf);
}

static void text_hdr(struct kw_evtext *t, const struct kwb_hdr *h)
{
	kw_evtext_int(t, "pid", h->pid);
	kw_evtext_int(t, "tid", h->tid);
	kw_evtext_strn(t, "comm", h->comm, KWB_COMM_LEN);
	kw_evtext_int(t, "cpu", h->cpu);
	kw_evtext_u64(t, "kernel_ns", h->ktime_ns);
}

static void add_hdr(json_object *ev, const struct kwb_hdr *h)
{
	kw_event_add_int(ev, "pid", h->pid);
	kw_event_add_int(ev, "tid", h->tid);
	add_fixed(ev, "comm", h->comm, KWB_COMM_LEN);
	kw_event_add_int(ev, "cpu", h->cpu);
	kw_event_add_u64(ev, "kernel_ns", h->ktime_ns);
}

/* The stack as seen from the breakpoint handler starts with the handler's
 * own frames (ksw_catch, perf, the #DB entry): the frames that matter
 * start at the corrupting function, so those above it are dropped. */
static void add_stack(struct kwbpf *b, json_object *ev, const struct kwb_catch *c,
		      const char *ip_sym)
{
	json_object *arr = json_object_new_array();
	size_t n = c->nstack > 0 ? (size_t)c->nstack / sizeof(c->stack[0]) : 0;
	size_t i, first = SIZE_MAX, fn_len = strcspn(ip_sym, "+");
	char buf[KWB_STACK_DEPTH][KW_SYM_MAX + 64];

	if (!arr)
		return;
	n = n > KWB_STACK_DEPTH ? KWB_STACK_DEPTH : n;
	for (i = 0; i < n; i++) {
		sym(b, c->stack[i], buf[i], sizeof(buf[i]));
		if (first == SIZE_MAX && strncmp(buf[i], ip_sym, fn_len) == 0 &&
		    buf[i][fn_len] == '+')
			first = i;
	}
	if (first == SIZE_MAX)
		first = 0;
	for (i = first; i < n; i++)
		json_object_array_add(arr, json_object_new_string(buf[i]));
	json_object_object_add(ev, "frames", arr);
	kw_event_add_u64(ev, "handler_frames", first);
}

static json_object *catch_event(struct kwbpf *b, const struct kwb_catch *c)
{
	json_object *ev = kw_event_new("catch");
	char ip_sym[KW_SYM_MAX + 64];

	if (!ev)
		return NULL;
	sym(b, c->ip, ip_sym, sizeof(ip_sym));
	add_fixed(ev, "watched", c->func, KWB_NAME_LEN);
	add_hex(ev, "address", c->addr);
	kw_event_add_u64(ev, "length", c->len);
	kw_event_add_u64(ev, "depth", c->depth);
	kw_event_add_int(ev, "watched_pid", c->watched_pid);
	add_hex(ev, "ip", c->ip);
	kw_event_add_str(ev, "location", ip_sym);
	add_hdr(ev, &c->h);
	if (c->config[0]) {
		char line[KWB_LINE_LEN + 1];

		memcpy(line, c->config, KWB_LINE_LEN);
		line[KWB_LINE_LEN] = '\0';
		kwd_watch_fields(b->d, ev, line);
	}
	if (c->nstack < 0)
		kw_event_add_str(ev, "frames_error", kw_errno_name(c->nstack));
	else
		add_stack(b, ev, c, ip_sym);
	return ev;
}

/* Per execution and per hit: written as text (kw_evtext), not built as a
 * json-c object, which was most of their cost. */
static void fuzz_event(struct kwbpf *b, const struct kwb_fuzz *f)
{
	const struct kwd_tie *tie = kwd_tie_of(b->d, f->h.pid);
	struct kw_evtext t;

	kw_evtext_begin(&t, f->h.kind == KWB_FUZZ_ENTRY ? "fuzz_entry" : "fuzz_done");
	kw_evtext_strn(&t, "target", f->target, KWB_NAME_LEN);
	kw_evtext_u64(&t, "size", f->size);
	if (f->h.kind == KWB_FUZZ_ENTRY) {
		kw_evtext_u64(&t, "regions", f->regions);
	} else {
		kw_evtext_u64(&t, "duration_ns", f->duration_ns);
		kw_evtext_int(&t, "result", f->result);
	}
	/* The daemon's own write of the blob tied now, not a late record of
	 * the one before (a record reserved on a stalled CPU is read later). */
	if (tie && tie->pid == getpid() && (pid_t)f->h.pid == tie->pid &&
	    f->h.ktime_ns >= tie->t0_ns)
		kw_evtext_str(&t, "blob", tie->blob);
	text_hdr(&t, &f->h);
	kwd_emit_text(b->d, &t);
}

static void wprobe_event(struct kwbpf *b, const struct kwb_wprobe *w)
{
	char ip_sym[KW_SYM_MAX + 64], buf[HEX_LEN];
	const char *name = kwbpf_wprobe_name(b, w->cookie);
	struct kw_evtext t;

	kw_evtext_begin(&t, "wprobe_sample");
	if (name)
		kw_evtext_str(&t, "wprobe", name);
	sym(b, w->ip, ip_sym, sizeof(ip_sym));
	kw_evtext_str(&t, "ip", hex(w->ip, buf));
	kw_evtext_str(&t, "location", ip_sym);
	text_hdr(&t, &w->h);
	kwd_emit_text(b->d, &t);
}

int kwbpf_on_record(void *ctx, void *data, size_t size)
{
	struct kwbpf *b = ctx;
	const struct kwb_hdr *h = data;
	json_object *ev = NULL;

	if (size < sizeof(*h))
		return 0;
	switch (h->kind) {
	case KWB_CATCH:
		if (size >= sizeof(struct kwb_catch))
			ev = catch_event(b, data);
		b->records[P_CATCH]++;
		break;
	case KWB_FUZZ_ENTRY:
	case KWB_FUZZ_DONE:
		if (size >= sizeof(struct kwb_fuzz))
			fuzz_event(b, data);
		b->records[h->kind == KWB_FUZZ_ENTRY ? P_FUZZ_ENTRY : P_FUZZ_DONE]++;
		break;
	case KWB_WPROBE:
		if (size >= sizeof(struct kwb_wprobe))
			wprobe_event(b, data);
		b->records[P_WPROBE]++;
		break;
	}
	if (ev)
		kwd_emit(b->d, ev);
	/* Handled (libbpf consumed it); stop the poll here if the batch is
	 * full: a producer as fast as we are must not hold the loop. */
	return ++b->batch >= KWBPF_BATCH ? -EAGAIN : 0;
}

/* The programs' count of records the ring had no room for (mapped .bss). */
static uint64_t lost_total(struct kwbpf *b)
{
	return __atomic_load_n(&b->skel->bss->lost_records, __ATOMIC_RELAXED);
}

bool kwbpf_poll(struct kwd *d)
{
	struct kwbpf *b = d->bpf;
	uint64_t lost;
	json_object *ev;
	bool more;

	if (!b)
		return false;
	/* At most KWBPF_BATCH records; the rest make the ring's fd readable
	 * again for the next loop iteration (after the watchdog, the socket). */
	b->batch = 0;
	more = ring_buffer__consume(b->rb) == -EAGAIN;
	lost = lost_total(b);
	if (lost <= b->lost_reported)
		return more;
	ev = kw_event_lost("bpf", lost - b->lost_reported, lost, 0, 0, -1);
	if (ev)
		kwd_emit(d, ev);
	log_warning("bpf: ring buffer full, %" PRIu64 " records lost", lost - b->lost_reported);
	b->lost_reported = lost;
	return more;
}

void kwbpf_poll_all(struct kwd *d)
{
	unsigned int i;

	for (i = 0; i < 64 && kwbpf_poll(d); i++)
		;
}

int kwbpf_on_ring(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	(void)s;
	(void)fd;
	(void)revents;
	kwbpf_poll(userdata);
	/* This wakeup's records in one write per client, before the next
	 * wakeup (a busy ring is readable again at once). */
	server_flush_queued(&((struct kwd *)userdata)->srv);
	return 0;
}

