// SPDX-License-Identifier: GPL-2.0
/* kwatchd's BPF loader: loads kwatch.bpf.c through its skeleton,
 * attaches each program while something of its kind is configured (the
 * catch program while a watch is armed, the fuzz programs while a fuzz
 * target runs, one perf link per enabled wprobe), and turns ring buffer
 * records into events, with kernel addresses symbolised from kallsyms.
 *
 * A kernel without one of the attach points loads the rest: the missing
 * one is reported once as a "bpf_unavailable" event.  Records the ring
 * buffer had no room for are counted by the programs and
 * announced as {"type":"lost","source":"bpf","count":N}. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <systemd/sd-event.h>

#include "kwatch.h"
#include "kwatch.skel.h"
#include "kwatch-loader.h"
#include "config.h"
#include "kwatchd.h"
#include "ksym.h"
#include "log.h"
#include "util.h"
#include "kwatchd-wprobe.h"

/* --- private: the loader's state ------------------------------------------ */

#define KWB_MAX_WPROBES 16

enum kwb_prog { P_CATCH, P_FUZZ_ENTRY, P_FUZZ_DONE, P_WPROBE, _P_MAX };

struct kwb_prog_info {
	const char *name;	/* for events */
	const char *event;	/* tracefs events/ path of its attach point */
};

/* Records handled at one wakeup (kwbpf_poll). */
#define KWBPF_BATCH 256
/* Catches whose way to the socket is timed (the status's "catch_path_us"). */
#define KWBPF_CATCH_SAMPLES 64

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
	/* The way of the last KWBPF_CATCH_SAMPLES catches, in microseconds
	 * from the catch (the record's ktime): until the daemon read its
	 * record ("read"), had made its event (symbols, the watch's fields:
	 * "built"), had written it to the consumers ("sent": a catch is
	 * written at once), and had also sent it to the journal ("emitted").
	 * A catch waits in pending until it is written. */
	struct {
		uint64_t n, max_read, max_sent;
		uint32_t read[KWBPF_CATCH_SAMPLES], sent[KWBPF_CATCH_SAMPLES];
		uint32_t built[KWBPF_CATCH_SAMPLES], emitted[KWBPF_CATCH_SAMPLES];
		uint64_t pending[KWBPF_CATCH_SAMPLES];
		unsigned int n_pending;
	} path;
};

/* Defined below, in the order of the loader's life (open, attach,
 * records, status, free), and used before. */
/* tracefs has the event (its attach point exists). */
static bool kwbpf_event_exists(struct kwd *d, const char *event);
/* The wprobe a record's cookie was attached for; NULL once its slot was
 * reused (each attach has a cookie of its own, so a record is never
 * given another wprobe's name). */
static const char *kwbpf_wprobe_name(const struct kwbpf *b, uint64_t cookie);
static int kwbpf_on_record(void *ctx, void *data, size_t size);
static int kwbpf_on_ring(sd_event_source *s, int fd, uint32_t revents, void *userdata);

/* --- open and load -------------------------------------------------------- */

static const struct kwb_prog_info prog_info[_P_MAX] = {
	[P_CATCH] = { "catch", "kstackwatch/ksw_catch" },
	[P_FUZZ_ENTRY] = { "fuzz_entry", "kfuzztest/kfuzztest_run" },
	[P_FUZZ_DONE] = { "fuzz_done", "kfuzztest/kfuzztest_done" },
	[P_WPROBE] = { "wprobe", NULL },
};

static struct bpf_program *kwbpf_prog_of(struct kwbpf *b, enum kwb_prog p)
{
	switch (p) {
	case P_CATCH: return b->skel->progs.kw_catch;
	case P_FUZZ_ENTRY: return b->skel->progs.kw_fuzz_entry;
	case P_FUZZ_DONE: return b->skel->progs.kw_fuzz_done;
	default: return b->skel->progs.kw_wprobe;
	}
}

static void kwbpf_unavailable_event(struct kwd *d, const char *prog, const char *what, int err)
{
	json_object *ev = kw_event_new("bpf_unavailable");

	log_warning("bpf: %s: %s: %s", prog, what, strerror(-err));
	if (!ev)
		return;
	kw_event_add_str(ev, "program", prog);
	kw_event_add_str(ev, "reason", what);
	kw_event_add_errno(ev, err);
	kwd_emit(d, ev);
}

static void kwbpf_attach_event(struct kwd *d, const char *type, const char *prog, const char *what)
{
	json_object *ev = kw_event_new(type);

	if (!ev)
		return;
	kw_event_add_str(ev, "program", prog);
	if (what)
		kw_event_add_str(ev, "attach_point", what);
	kwd_emit(d, ev);
}

static int print_libbpf(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	char buf[512];

	if (level == LIBBPF_DEBUG)
		return 0;
	vsnprintf(buf, sizeof(buf), fmt, ap);
	buf[strcspn(buf, "\n")] = '\0';
	log_debug("libbpf: %s", buf);
	return 0;
}

int kwbpf_open(struct kwd *d)
{
	struct kwbpf *b;
	unsigned int p;
	int r;

	if (!d->set.bpf)
		return 0;
	libbpf_set_print(print_libbpf);
	b = calloc(1, sizeof(*b));
	if (!b)
		return -ENOMEM;
	b->d = d;
	d->bpf = b;
	b->skel = kwatch_bpf__open();
	if (!b->skel) {
		r = -errno;
		kwbpf_unavailable_event(d, "all", "cannot open the BPF object", r);
		goto fail;
	}
	/* Leave out a program whose attach point this kernel lacks: its
	 * CO-RE relocations would fail the whole load. */
	for (p = 0; p < _P_MAX; p++) {
		b->usable[p] = true;
		if (prog_info[p].event && !kwbpf_event_exists(d, prog_info[p].event)) {
			b->usable[p] = false;
			bpf_program__set_autoload(kwbpf_prog_of(b, p), false);
			kwbpf_unavailable_event(d, prog_info[p].name,
					  "no such trace event in this kernel", -ENOENT);
		}
	}
	bpf_map__set_max_entries(b->skel->maps.events, d->set.ringbuf_kib * 1024);
	r = kwatch_bpf__load(b->skel);
	if (r < 0) {
		kwbpf_unavailable_event(d, "all", "cannot load the BPF programs (BTF, CAP_BPF?)", r);
		goto fail;
	}
	b->rb = ring_buffer__new(bpf_map__fd(b->skel->maps.events), kwbpf_on_record, b, NULL);
	if (!b->rb) {
		r = -errno;
		goto fail;
	}
	r = sd_event_add_io(d->ev, &b->io, ring_buffer__epoll_fd(b->rb), EPOLLIN, kwbpf_on_ring, d);
	if (r < 0)
		goto fail;
	/* kallsyms is read at the first address to name, not at start-up:
	 * parsing it is slow in the test VM and the boot waits for READY. */
	log_info("bpf: programs loaded, ring buffer %u KiB", d->set.ringbuf_kib);
	return 0;
fail:
	kwbpf_close(d);
	return r;
}

/* --- attach and detach ---------------------------------------------------- */

static bool kwbpf_event_exists(struct kwd *d, const char *event)
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

static const char *kwbpf_wprobe_name(const struct kwbpf *b, uint64_t cookie)
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
	set_tp(b, P_CATCH, d->watches->n_armed > 0);
	set_tp(b, P_FUZZ_ENTRY, d->fuzz->n_fuzz > 0);
	set_tp(b, P_FUZZ_DONE, d->fuzz->n_fuzz > 0);
	sync_wprobes(b);
}

/* --- records -------------------------------------------------------------- */

/* Ring buffer records to events: a catch with its stack, a fuzz target's
 * entry and completion, a wprobe hit; kernel addresses symbolised from
 * the daemon's kallsyms table.  At most KWBPF_BATCH records a wakeup. */

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

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);	/* bpf_ktime_get_ns()'s clock */
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static uint32_t us_since(uint64_t then_ns, uint64_t now)
{
	uint64_t us = now > then_ns ? (now - then_ns) / 1000 : 0;

	return us > UINT32_MAX ? UINT32_MAX : us;
}

/* A catch's record was read now: its first figure, and a place among
 * those whose "sent" the flush after this poll gives. */
static void catch_read(struct kwbpf *b, uint64_t ktime_ns)
{
	unsigned int i = b->path.n++ % KWBPF_CATCH_SAMPLES;

	b->path.read[i] = us_since(ktime_ns, now_ns());
	b->path.sent[i] = b->path.read[i];
	if (b->path.read[i] > b->path.max_read)
		b->path.max_read = b->path.read[i];
	if (b->path.n_pending < KWBPF_CATCH_SAMPLES)
		b->path.pending[b->path.n_pending++] = ktime_ns;
}

/* The catch read last reached a step of its way (built, emitted) now. */
static void catch_mark(struct kwbpf *b, uint32_t *step, uint64_t ktime_ns)
{
	step[(b->path.n - 1) % KWBPF_CATCH_SAMPLES] = us_since(ktime_ns, now_ns());
}

/* This poll's catches were written to the consumers now. */
static void catch_sent(void *arg)
{
	struct kwbpf *b = arg;
	uint64_t now = now_ns();
	unsigned int k;

	for (k = 0; k < b->path.n_pending; k++) {
		/* The k-th of the last n_pending catches read. */
		unsigned int i = (b->path.n - b->path.n_pending + k) % KWBPF_CATCH_SAMPLES;

		b->path.sent[i] = us_since(b->path.pending[k], now);
		if (b->path.sent[i] > b->path.max_sent)
			b->path.max_sent = b->path.sent[i];
	}
	b->path.n_pending = 0;
}

static int kwbpf_on_record(void *ctx, void *data, size_t size)
{
	struct kwbpf *b = ctx;
	const struct kwb_hdr *h = data;
	json_object *ev = NULL;

	if (size < sizeof(*h))
		return 0;
	switch (h->kind) {
	case KWB_CATCH:
		catch_read(b, h->ktime_ns);
		if (size >= sizeof(struct kwb_catch))
			ev = catch_event(b, data);
		catch_mark(b, b->path.built, h->ktime_ns);
		/* Written to the clients before the journal's send. */
		if (ev)
			kwd_emit_now(b->d, ev, catch_sent, b);
		ev = NULL;
		catch_mark(b, b->path.emitted, h->ktime_ns);
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

static int kwbpf_on_ring(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	(void)s;
	(void)fd;
	(void)revents;
	struct kwd *d = userdata;

	kwbpf_poll(d);
	/* This wakeup's records in one write per client, before the next
	 * wakeup (a busy ring is readable again at once). */
	server_flush_queued(&d->srv);
	if (d->bpf)
		catch_sent(d->bpf);
	return 0;
}

/* --- status --------------------------------------------------------------- */

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static uint32_t median(const uint32_t *v, size_t n)
{
	uint32_t s[KWBPF_CATCH_SAMPLES];

	memcpy(s, v, n * sizeof(*v));
	qsort(s, n, sizeof(*s), cmp_u32);
	return s[n / 2];
}

/* "catch_path_us": where a catch's time to the consumers goes: until its
 * record is read (the ring's wake-up and the loop's turn), its event made,
 * encoded and queued (and journaled), and written; medians of the last
 * KWBPF_CATCH_SAMPLES and maxima since start. */
static void catch_path_status(const struct kwbpf *b, json_object *o)
{
	size_t n = b->path.n < KWBPF_CATCH_SAMPLES ? b->path.n : KWBPF_CATCH_SAMPLES;
	json_object *p = json_object_new_object();

	if (!p)
		return;
	kw_event_add_u64(p, "catches", b->path.n);
	if (n) {
		kw_event_add_u64(p, "read_median", median(b->path.read, n));
		kw_event_add_u64(p, "read_max", b->path.max_read);
		kw_event_add_u64(p, "built_median", median(b->path.built, n));
		kw_event_add_u64(p, "emitted_median", median(b->path.emitted, n));
		kw_event_add_u64(p, "sent_median", median(b->path.sent, n));
		kw_event_add_u64(p, "sent_max", b->path.max_sent);
	}
	json_object_object_add(o, "catch_path_us", p);
}

void kwbpf_status(struct kwd *d, json_object *st)
{
	struct kwbpf *b = d->bpf;
	json_object *o, *att, *rec;
	unsigned int i;

	o = json_object_new_object();
	att = json_object_new_array();
	rec = json_object_new_object();
	if (!o || !att || !rec) {
		json_object_put(o);
		json_object_put(att);
		json_object_put(rec);
		return;
	}
	kw_event_add_bool(o, "enabled", b != NULL);
	kw_event_add_u64(o, "ringbuf_kib", d->set.ringbuf_kib);
	json_object_object_add(o, "attached", att);
	json_object_object_add(o, "records", rec);
	json_object_object_add(st, "bpf", o);
	if (!b)
		return;
	for (i = 0; i < _P_MAX; i++) {
		if (b->link[i])
			json_object_array_add(att, json_object_new_string(prog_info[i].name));
		kw_event_add_u64(rec, prog_info[i].name, b->records[i]);
	}
	for (i = 0; i < KWB_MAX_WPROBES; i++)
		if (b->wp[i].link)
			json_object_array_add(att, json_object_new_string(b->wp[i].name));
	kw_event_add_u64(o, "lost", b->lost_reported);
	catch_path_status(b, o);
}

/* --- free ----------------------------------------------------------------- */

void kwbpf_close(struct kwd *d)
{
	struct kwbpf *b = d->bpf;
	unsigned int i;

	if (!b)
		return;
	sd_event_source_disable_unref(b->io);
	for (i = 0; i < _P_MAX; i++)
		bpf_link__destroy(b->link[i]);
	for (i = 0; i < KWB_MAX_WPROBES; i++)
		bpf_link__destroy(b->wp[i].link);
	ring_buffer__free(b->rb);
	kwatch_bpf__destroy(b->skel);
	free(b);
	d->bpf = NULL;
}
