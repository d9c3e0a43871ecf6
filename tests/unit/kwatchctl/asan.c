// SPDX-License-Identifier: GPL-2.0
/*
 * Fixture for test_stackvars: locals in KASAN's stack frame.  Built at -O2
 * with gcc's address sanitizer instrumenting the stack as the kernel's
 * KASAN does (asan-stack, no use-after-return fake stack, no PIE: the
 * frame's description is an immediate), with and without frame pointers.
 * gcc 12 gives such locals no DW_AT_location; the resolver places them
 * from the frame's description (lib/asanframe.c).
 *
 * Run, it prints where each local really was, measured in the frame
 * (against __builtin_dwarf_cfa(), or the stack pointer after the
 * prologue), as the index writes it: "FUNC PATH cfa-N" or "FUNC PATH
 * sp+N".
 */
#include <stdio.h>

struct req {
	long len;
	char tag[24];
	long flags;
};

static long cfa_table, cfa_flags, sp_big;

__attribute__((noinline)) void fill(long *t, unsigned int i)
{
	__asm__ volatile("" : : "r"(t), "r"(i) : "memory");
	t[i] = 1;
}

__attribute__((noinline)) void touch(struct req *r)
{
	__asm__ volatile("" : : "r"(r) : "memory");
}

/* Two locals whose address is taken, in a frame at a fixed distance
 * from the CFA. */
__attribute__((noinline)) long victim(unsigned int idx)
{
	long table[8];
	struct req rq;
	long sum = 0;
	int i;

	__builtin_memset(table, 0, sizeof(table));
	cfa_table = (char *)table - (char *)__builtin_dwarf_cfa();
	cfa_flags = (char *)&rq.flags - (char *)__builtin_dwarf_cfa();
	touch(&rq);
	if (idx >= 8)
		return 0;
	fill(table, idx);
	for (i = 0; i < 8; i++)
		sum += table[i];
	return sum + rq.len;
}

/* A local aligned beyond 16 bytes: the prologue realigns the stack
 * pointer, and the frame is from it. */
__attribute__((noinline)) long realigned(unsigned int idx)
{
	long big[8] __attribute__((aligned(64)));
	char *sp;

	__asm__ volatile("mov %%rsp, %0" : "=r"(sp));
	sp_big = (char *)big - sp;
	fill(big, idx & 7);
	return big[0];
}

int main(int argc, char **argv)
{
	(void)argv;
	victim(argc);
	realigned(argc);
	printf("victim table cfa%ld\nvictim rq.flags cfa%ld\nrealigned big sp+%ld\n",
	       cfa_table, cfa_flags, sp_big);
	return 0;
}
