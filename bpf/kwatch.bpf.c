// SPDX-License-Identifier: GPL-2.0
/* kwatchd's BPF programs: one ring buffer of kwatch.h records, fed from
 * the KStackWatch catch event, the KFuzzTest run/done events and wprobe
 * events.  A reservation that fails is counted in lost_records, which the
 * loader reports in-band. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "kwatch.h"

char LICENSE[] SEC("license") = "GPL";

/* Size set by the loader before load (bpf_map__set_max_entries). */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 256 * 1024);
} events SEC(".maps");

/* Records the ring had no room for, on all CPUs.  A global: the loader
 * reads it in place (the skeleton maps .bss), not with a syscall per
 * poll. */
__u64 lost_records = 0;

static __always_inline void *reserve(__u64 size, __u32 kind)
{
	struct kwb_hdr *h = bpf_ringbuf_reserve(&events, size, 0);
	__u64 id;

	if (!h) {
		__sync_fetch_and_add(&lost_records, 1);
		return NULL;
	}
	id = bpf_get_current_pid_tgid();
	h->kind = kind;
	h->cpu = bpf_get_smp_processor_id();
	h->pid = id >> 32;
	h->tid = (__u32)id;
	h->ktime_ns = bpf_ktime_get_ns();
	bpf_get_current_comm(h->comm, sizeof(h->comm));
	return h;
}

/* A __string() field of a trace event: the low 16 bits of its
 * __data_loc word are the offset from the start of the record. */
static __always_inline void read_data_loc(void *ctx, __u32 loc, char *dst, __u32 n)
{
	bpf_probe_read_kernel_str(dst, n, (char *)ctx + (loc & 0xffff));
}

/* The ksw_catch field a kernel with several watches has: CO-RE finds it
 * where it is, and bpf_core_field_exists() says whether it is there. */
struct trace_event_raw_ksw_catch___config {
	__u32 __data_loc_config;
} __attribute__((preserve_access_index));

SEC("tp/kstackwatch/ksw_catch")
int kw_catch(struct trace_event_raw_ksw_catch *ctx)
{
	struct trace_event_raw_ksw_catch___config *cfg = (void *)ctx;
	struct kwb_catch *e = reserve(sizeof(*e), KWB_CATCH);

	if (!e)
		return 0;
	e->addr = BPF_CORE_READ(ctx, addr);
	e->ip = BPF_CORE_READ(ctx, ip);
	e->len = BPF_CORE_READ(ctx, len);
	e->depth = BPF_CORE_READ(ctx, depth);
	e->watched_pid = BPF_CORE_READ(ctx, pid);
	read_data_loc(ctx, BPF_CORE_READ(ctx, __data_loc_func), e->func, sizeof(e->func));
	/* Which of several watches fired; a kernel with one has no field. */
	e->config[0] = '\0';
	if (bpf_core_field_exists(cfg->__data_loc_config))
		read_data_loc(ctx, BPF_CORE_READ(cfg, __data_loc_config), e->config,
			      sizeof(e->config));
	e->nstack = bpf_get_stack(ctx, e->stack, sizeof(e->stack), 0);
	bpf_ringbuf_submit(e, 0);
	return 0;
}

SEC("tp/kfuzztest/kfuzztest_run")
int kw_fuzz_entry(struct trace_event_raw_kfuzztest_run *ctx)
{
	struct kwb_fuzz *e = reserve(sizeof(*e), KWB_FUZZ_ENTRY);

	if (!e)
		return 0;
	read_data_loc(ctx, BPF_CORE_READ(ctx, __data_loc_target), e->target, sizeof(e->target));
	e->size = BPF_CORE_READ(ctx, size);
	e->regions = BPF_CORE_READ(ctx, regions);
	e->duration_ns = 0;
	e->result = 0;
	bpf_ringbuf_submit(e, 0);
	return 0;
}

SEC("tp/kfuzztest/kfuzztest_done")
int kw_fuzz_done(struct trace_event_raw_kfuzztest_done *ctx)
{
	struct kwb_fuzz *e = reserve(sizeof(*e), KWB_FUZZ_DONE);

	if (!e)
		return 0;
	read_data_loc(ctx, BPF_CORE_READ(ctx, __data_loc_target), e->target, sizeof(e->target));
	e->size = BPF_CORE_READ(ctx, size);
	e->duration_ns = BPF_CORE_READ(ctx, duration_ns);
	e->result = BPF_CORE_READ(ctx, result);
	e->regions = 0;
	bpf_ringbuf_submit(e, 0);
	return 0;
}

/* Attached by the loader to a wprobe's perf event, with an id of that
 * attach as the cookie; the context is the register state right after the
 * access.  The tracefs side of the hit does not depend on what it
 * returns; 0 spares building a perf sample nobody reads. */
SEC("kprobe")
int kw_wprobe(struct pt_regs *regs)
{
	struct kwb_wprobe *e = reserve(sizeof(*e), KWB_WPROBE);

	if (!e)
		return 0;
	e->cookie = bpf_get_attach_cookie(regs);
	e->ip = PT_REGS_IP(regs);
	bpf_ringbuf_submit(e, 0);
	return 0;
}
