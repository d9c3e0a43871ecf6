// SPDX-License-Identifier: GPL-2.0
/* The BPF side of kwatchd: loads bpf/kwatch.bpf.c through its skeleton,
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

const struct kwb_prog_info prog_info[_P_MAX] = {
	[P_CATCH] = { "catch", "kstackwatch/ksw_catch" },
	[P_FUZZ_ENTRY] = { "fuzz_entry", "kfuzztest/kfuzztest_run" },
	[P_FUZZ_DONE] = { "fuzz_done", "kfuzztest/kfuzztest_done" },
	[P_WPROBE] = { "wprobe", NULL },
};

struct bpf_program *kwbpf_prog_of(struct kwbpf *b, enum kwb_prog p)
{
	switch (p) {
	case P_CATCH: return b->skel->progs.kw_catch;
	case P_FUZZ_ENTRY: return b->skel->progs.kw_fuzz_entry;
	case P_FUZZ_DONE: return b->skel->progs.kw_fuzz_done;
	default: return b->skel->progs.kw_wprobe;
	}
}

void kwbpf_unavailable_event(struct kwd *d, const char *prog, const char *what, int err)
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

void kwbpf_attach_event(struct kwd *d, const char *type, const char *prog, const char *what)
{
	json_object *ev = kw_event_new(type);

	if (!ev)
		return;
	kw_event_add_str(ev, "program", prog);
	if (what)
		kw_event_add_str(ev, "attach_point", what);
	kwd_emit(d, ev);
}

/* --- life cycle ---------------------------------------------------------- */

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
}
