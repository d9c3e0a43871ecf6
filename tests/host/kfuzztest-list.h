/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The KFuzzTest records of a vmlinux, as kfuzztest-list reads them, for
 * kfuzztest-syz.c: syzkaller's rules checked against them and their
 * structs' DWARF, and the syzlang descriptions syzkaller would derive.
 */
#ifndef KFUZZTEST_LIST_H
#define KFUZZTEST_LIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define KFT_STR 128	/* syzkaller reads each record string as 128 bytes */

struct kft_target {
	char name[KFT_STR];
	char type[KFT_STR];	/* "struct TAG" */
	uint64_t size;
};

struct kft_constraint {
	char type[KFT_STR];
	char field[KFT_STR];
	uint64_t value1, value2;
	unsigned int op;	/* enum kfuzztest_constraint_type */
};

struct kft_annotation {
	char type[KFT_STR];
	char field[KFT_STR];
	char linked[KFT_STR];
	unsigned int attrib;	/* 0 LEN, 1 STRING, 2 ARRAY */
};

enum { KFT_LEN, KFT_STRING, KFT_ARRAY };
enum { KFT_EQ, KFT_NE, KFT_LT, KFT_LE, KFT_GT, KFT_GE, KFT_IN_RANGE };

struct kft_records {
	struct kft_target *t;
	size_t n_t;
	struct kft_constraint *c;
	size_t n_c;
	struct kft_annotation *a;
	size_t n_a;
	/* Record strings syzkaller's reader refuses or misreads, one a line
	 * ("annotation struct x.f: its linked field name is NULL"). */
	char *problems;
	size_t n_problems;
};

/* kfuzztest-syz.c: with @path's DWARF (libdw).  Each prints what it finds
 * on stdout; check returns the number of rules broken, or -errno. */
int kft_syz_check(const char *path, const struct kft_records *r);
int kft_syz_lang(const char *path, const struct kft_records *r);

#endif
