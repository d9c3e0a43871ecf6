// SPDX-License-Identifier: GPL-2.0
/*
 * The fixture of test_stackvars: functions whose frames the resolver reads
 * from this program's DWARF.  Run, it prints where the compiler put each
 * watched variable, measured from __builtin_dwarf_cfa() (the CFA):
 *
 *	FUNCTION VARIABLE OFFSET SIZE
 *
 *	AT FUNCTION VARIABLE OFFSET SP_OFFSET
 *
 * is the same variable from the stack pointer after the nop at
 * FUNCTION+OFFSET (a global label marks it), for kwatchctl resolve -a.
 *
 * Built by the test's make rule at -O2, with and without frame pointers.
 */
#include <stdio.h>
#include <string.h>

struct req {
	int a;
	long len;
	char tag[6];
	short s;
};

struct pt {
	int x, y;
};

static void (*volatile sink)(void *p);
static unsigned long mark_sp;

/* A global label on a nop, and the stack pointer after it saved. */
#define MARK(label)							\
	__asm__ volatile(".globl " #label "\n" #label ":\n\tnop\n\t"	\
			 "mov %%rsp, %0\n" : "=m" (mark_sp) : : "memory")

#define AT(func, label, name, lv)					\
	do {								\
		extern char label[];					\
		printf("AT %s %s %ld %ld\n", #func, name,		\
		       (long)(label - (char *)func),			\
		       (long)((unsigned long)&(lv) - mark_sp));		\
	} while (0)

static void sink_fn(void *p)
{
	__asm__ volatile("" : : "r"(p) : "memory");
}

#define MEASURE(func, name, lv)						\
	printf("%s %s %ld %zu\n", func, name,				\
	       (long)((char *)&(lv) - (char *)__builtin_dwarf_cfa()),	\
	       sizeof(lv))

/* An array on the stack; its index and loop variable in registers. */
__attribute__((noinline)) long f_array(int n)
{
	long buf[4];
	int i;

	memset(buf, 0, sizeof(buf));
	for (i = 0; i < n; i++)
		buf[i & 3] += i;
	sink(buf);
	MARK(f_array_mark);
	AT(f_array, f_array_mark, "buf[2]", buf[2]);
	MEASURE(__func__, "buf[2]", buf[2]);
	MEASURE(__func__, "buf[0]", buf[0]);
	return buf[1];
}

/* A struct: members of several sizes; an accumulator only in a register. */
__attribute__((noinline)) long f_struct(int n)
{
	struct req r;
	int i, acc = 0;

	memset(&r, 0, sizeof(r));
	r.len = n;
	sink(&r);
	for (i = 0; i < n; i++)
		acc += i * 3;
	MARK(f_struct_mark);
	AT(f_struct, f_struct_mark, "r.s", r.s);
	MEASURE(__func__, "r.len", r.len);
	MEASURE(__func__, "r.a", r.a);
	MEASURE(__func__, "r.s", r.s);
	MEASURE(__func__, "r.tag[3]", r.tag[3]);
	return r.len + acc;
}

/* An array of structs, and a scalar whose address escapes. */
__attribute__((noinline)) int f_nested(int n)
{
	struct pt p[3];
	unsigned int flags = n;

	memset(p, 0, sizeof(p));
	p[n % 3].y = n;
	sink(p);
	sink(&flags);
	MEASURE(__func__, "p[1].y", p[1].y);
	MEASURE(__func__, "p[2].x", p[2].x);
	MEASURE(__func__, "flags", flags);
	return p[0].y + (int)flags;
}

int main(void)
{
	sink = sink_fn;
	f_array(3);
	f_struct(5);
	f_nested(4);
	return 0;
}
