// SPDX-License-Identifier: GPL-2.0
/*
 * Fixture for test_stackvars: the arm point after a source line (kwatchctl
 * resolve --after).  Built at -O2 with and without frame pointers, with
 * the stack protector and without SSE (-mgeneral-regs-only), as the
 * kernel is built, so that gcc neither vectorises nor drops the loops.
 *
 * - fill(): fills an on-stack array in a loop that always runs, then hands
 *   it to consume() (the store a watch on buf[3] is for: by name alone,
 *   the watch would be armed before the loop, whose own stores it would
 *   catch);
 * - maybe_fill(): the same loop, which may run no times: after its loop
 *   line, control goes on at two places.
 *
 * The test finds each line by the marker in its comment (an '@' and a
 * word), not by its number.  main() prints nothing: the test reads the DWARF, the
 * symbol table and objdump's view of the code.
 */
#include <stdio.h>

__attribute__((noinline)) void consume(long *v, int n)
{
	__asm__ volatile("" : : "r"(v), "r"(n) : "memory");
}

__attribute__((noinline)) long fill(long k)
{
	long buf[16];
	long sum = 0;
	int i;

	for (i = 0; i < 16; i++)		/* @for */
		buf[i] = k * i + 1;		/* @body */
	/* The array is full: from here on, only consume() writes it. @comment */
	consume(buf, 16);			/* @after */
	for (i = 0; i < 16; i++)
		sum += buf[i];
	return sum;				/* @return */
}

__attribute__((noinline)) long maybe_fill(int n, long k)
{
	long buf[16];
	long sum = 0;
	int i;

	if (n > 16)
		n = 16;
	for (i = 0; i < n; i++)			/* @maybe */
		buf[i] = k * i + 1;
	consume(buf, n);
	for (i = 0; i < n; i++)
		sum += buf[i];
	return sum;
}

int main(int argc, char **argv)
{
	(void)argv;
	return (int)(fill(argc) + maybe_fill(argc, 3)) == 42;
}
