// SPDX-License-Identifier: GPL-2.0
/*
 * Fixture for test_stackvars: functions as gcc emits them in the kernel,
 * under names the source does not give them.  Built at -O2 with the
 * stack protector:
 *
 * - scan(): a static function whose struct argument is only read, which
 *   gcc's IPA-SRA turns into scan.isra.0 (kallsyms and the symbol table
 *   know only that name);
 * - split(): a function with an unlikely path to a cold function, which
 *   gcc splits into split and split.cold: its DWARF has DW_AT_ranges and
 *   no DW_AT_low_pc.
 *
 * - realigned(): a local aligned to 64 bytes, so that the prologue
 *   realigns the stack pointer (and $-64,%rsp after the frame pointer is
 *   set up, as in the kernel): gcc places its locals from the stack
 *   pointer (DW_OP_breg7), not from the CFA.
 *
 * Each keeps an array on its stack.  main() prints nothing: the test reads
 * the DWARF and the symbol table only.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct req {
	long len;
	char tag[64];
	long flags;
};

__attribute__((noinline, cold)) static void complain(const char *what, int n)
{
	fprintf(stderr, "complain: %s %d\n", what, n);
}

__attribute__((noinline)) static long scan(const struct req *r)
{
	char buf[32];
	long i, sum = 0;

	snprintf(buf, sizeof(buf), "%ld/%ld", r->len, r->flags);
	for (i = 0; buf[i]; i++)
		sum += buf[i];
	return sum;
}

__attribute__((noinline)) long split(int n, const char *s)
{
	char name[48];
	long h = 0;
	int i;

	snprintf(name, sizeof(name), "%s-%d", s, n);
	if (__builtin_expect(n < 0, 0))
		complain(name, n);
	for (i = 0; name[i]; i++)
		h = h * 31 + name[i];
	return h;
}

__attribute__((noinline)) long realigned(int n)
{
	char buf[64] __attribute__((aligned(64)));
	long flags = n * 3;
	int i;

	snprintf(buf, sizeof(buf), "%d", n);
	__asm__ volatile("" : : "r"(&flags) : "memory");
	for (i = 0; buf[i]; i++)
		flags += buf[i];
	return flags;
}

int main(int argc, char **argv)
{
	struct req r = { .len = argc, .flags = 1 };

	(void)argv;
	snprintf(r.tag, sizeof(r.tag), "x%d", argc);
	return (int)(scan(&r) + split(argc - 2, "a") + realigned(argc)) == 42;
}
