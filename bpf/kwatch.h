/* SPDX-License-Identifier: GPL-2.0 */
/* Records of kwatch.bpf.c's ring buffer, shared with kwatchd's loader
 * (kwatch.c).  Every record starts with struct kwb_hdr; its kind says
 * which of the structs below it is. */
#ifndef KWATCH_BPF_H
#define KWATCH_BPF_H

#define KWB_COMM_LEN	16
#define KWB_NAME_LEN	64
#define KWB_STACK_DEPTH	32
#define KWB_LINE_LEN	256	/* a /proc/kstackwatch line */

enum kwb_kind {
	KWB_CATCH = 1,		/* kstackwatch:ksw_catch */
	KWB_FUZZ_ENTRY,		/* kfuzztest:kfuzztest_run */
	KWB_FUZZ_DONE,		/* kfuzztest:kfuzztest_done */
	KWB_WPROBE,		/* a wprobe event (BPF on its perf event) */
};

struct kwb_hdr {
	__u32 kind;
	__u32 cpu;
	__u32 pid;		/* thread group id of current */
	__u32 tid;
	__u64 ktime_ns;		/* bpf_ktime_get_ns(): CLOCK_MONOTONIC */
	char comm[KWB_COMM_LEN];
};

struct kwb_catch {
	struct kwb_hdr h;
	__u64 addr;		/* watched address */
	__u64 ip;		/* the instruction after the corrupting store */
	__u32 len;
	__u32 depth;
	__s32 watched_pid;
	__s32 nstack;		/* bytes of stack[] filled, or a negative errno */
	char func[KWB_NAME_LEN];	/* the watched function */
	__u64 stack[KWB_STACK_DEPTH];
	char config[KWB_LINE_LEN];	/* the watch's line ("": a kernel without it) */
};

struct kwb_fuzz {
	struct kwb_hdr h;
	char target[KWB_NAME_LEN];
	__u64 size;
	__u64 duration_ns;	/* KWB_FUZZ_DONE only */
	__s32 result;		/* KWB_FUZZ_DONE only */
	__u32 regions;		/* KWB_FUZZ_ENTRY only */
};

struct kwb_wprobe {
	struct kwb_hdr h;
	__u64 cookie;		/* the loader's id of this attach (kwbpf_wprobe_name) */
	__u64 ip;		/* the instruction after the access */
};

#endif
