// SPDX-License-Identifier: GPL-2.0
/*
 * wprobe-perf EVENT FILE COUNT: check that a wprobe event works from perf
 * and BPF, as a kprobe event does.
 *
 * Opens a counting perf event on the wprobe's tracepoint id on every CPU,
 * writes "burst COUNT" to FILE (the wprobes test module's var file) and
 * reads how many hits perf counted.  Then attaches a BPF program of type
 * BPF_PROG_TYPE_KPROBE that returns 0 (drop), bursts again and reads again:
 * the count must not move, which shows that the program ran on each hit.
 * Prints both figures; exits 0 if perf counted COUNT and BPF dropped all.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MAX_CPUS 64

static int read_id(const char *event, long *id)
{
	char path[256];
	FILE *f;
	int ok;

	snprintf(path, sizeof(path), "/sys/kernel/tracing/events/wprobes/%s/id", event);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	ok = fscanf(f, "%ld", id) == 1;
	fclose(f);
	return ok ? 0 : -EINVAL;
}

static int burst(const char *file, long count)
{
	char buf[64];
	int fd, len, ret = 0;

	fd = open(file, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	len = snprintf(buf, sizeof(buf), "burst %ld\n", count);
	if (write(fd, buf, len) != len)
		ret = -errno;
	close(fd);
	return ret;
}

static long total(const int *fds, int n)
{
	long sum = 0;
	uint64_t v;
	int i;

	for (i = 0; i < n; i++)
		if (read(fds[i], &v, sizeof(v)) == sizeof(v))
			sum += (long)v;
	return sum;
}

/* r0 = 0; exit: a kprobe-type program that drops every hit. */
static int load_drop_prog(void)
{
	struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	static char log[4096];
	union bpf_attr attr;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.prog_type = BPF_PROG_TYPE_KPROBE;
	attr.insns = (uintptr_t)insns;
	attr.insn_cnt = 2;
	attr.license = (uintptr_t)"GPL";
	attr.log_buf = (uintptr_t)log;
	attr.log_size = sizeof(log);
	attr.log_level = 1;
	fd = syscall(__NR_bpf, BPF_PROG_LOAD, &attr, sizeof(attr));
	if (fd < 0)
		fprintf(stderr, "BPF_PROG_LOAD: %s\n%s", strerror(errno), log);
	return fd;
}

int main(int argc, char **argv)
{
	struct perf_event_attr attr;
	int fds[MAX_CPUS] = { 0 }, n = 0, cpu, ncpu, prog, ret = 1;
	long id, count, before, counted, dropped;

	if (argc != 4) {
		fprintf(stderr, "usage: %s EVENT FILE COUNT\n", argv[0]);
		return 2;
	}
	count = strtol(argv[3], NULL, 0);
	if (read_id(argv[1], &id) < 0) {
		fprintf(stderr, "no wprobe event %s\n", argv[1]);
		return 1;
	}

	memset(&attr, 0, sizeof(attr));
	attr.type = PERF_TYPE_TRACEPOINT;
	attr.size = sizeof(attr);
	attr.config = id;
	attr.sample_period = 1;
	ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	for (cpu = 0; cpu < ncpu && n < MAX_CPUS; cpu++) {
		fds[n] = syscall(__NR_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
		if (fds[n] < 0) {
			fprintf(stderr, "perf_event_open(cpu %d): %s\n", cpu, strerror(errno));
			goto out;
		}
		n++;
	}

	before = total(fds, n);
	if (burst(argv[2], count) < 0)
		goto out;
	counted = total(fds, n) - before;

	prog = load_drop_prog();
	if (prog < 0)
		goto out;
	/* The program array belongs to the event: attaching once covers all CPUs. */
	if (ioctl(fds[0], PERF_EVENT_IOC_SET_BPF, prog) < 0) {
		fprintf(stderr, "PERF_EVENT_IOC_SET_BPF: %s\n", strerror(errno));
		close(prog);
		goto out;
	}
	before = total(fds, n);
	if (burst(argv[2], count) < 0) {
		close(prog);
		goto out;
	}
	dropped = count - (total(fds, n) - before);
	close(prog);

	printf("perf counted %ld hits for %ld writes; a BPF program returning 0 dropped %ld of %ld\n",
	       counted, count, dropped, count);
	ret = counted == count && dropped == count ? 0 : 1;
out:
	while (n--)
		close(fds[n]);
	return ret;
}
