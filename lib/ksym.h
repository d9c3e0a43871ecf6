/* SPDX-License-Identifier: GPL-2.0 */
/* Kernel addresses to "func+0xoff/0xsize [mod]", as %pS prints them, from
 * a file in /proc/kallsyms format ("ffffffff81000000 T _stext", module
 * symbols "ffffffffc0000000 t foo\t[mod]").
 *
 * Only text symbols (t, T, w, W) are named; the others (but absolute and
 * undefined ones) only bound them: a symbol's size is the distance to the
 * next symbol of any type, so an address in data finds nothing.  The last
 * symbol has no size and finds nothing either.  Of aliases at one address
 * the first text symbol listed wins. */
#ifndef KW_KSYM_H
#define KW_KSYM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ksym_sym {
	uint64_t addr;
	uint64_t size;		/* 0: the last symbol */
	uint32_t name;		/* offset in pool; KSYM_NONE if not text */
	uint32_t mod;		/* offset in pool; KSYM_NONE in vmlinux */
};

#define KSYM_NONE UINT32_MAX

struct ksym {
	struct ksym_sym *sym;	/* sorted by address */
	size_t n;
	char *pool;		/* the names, NUL-terminated */
	size_t pool_len, pool_cap;
};

struct ksym_hit {
	const char *name;
	const char *module;	/* NULL in vmlinux */
	uint64_t offset, size;
};

/* Load path into k (zeroed first).  -EPERM if every address is zero (the
 * file as read without CAP_SYSLOG), -ENODATA if it names no symbol, else
 * 0 or a negative errno; k is empty on failure. */
int ksym_load(struct ksym *k, const char *path);
void ksym_free(struct ksym *k);
/* 0 and hit, or -ENOENT. */
int ksym_lookup(const struct ksym *k, uint64_t addr, struct ksym_hit *hit);
/* Write "func+0xoff/0xsize [mod]" into buf of size n and return 0, or
 * "0xaddr" and -ENOENT; -ENOBUFS if the text was cut to fit. */
int ksym_format(const struct ksym *k, uint64_t addr, char *buf, size_t n);

/* The text symbol that starts where text symbol @name ends (the first of
 * that name), NULL if none is known. */
const char *ksym_after(const struct ksym *k, const char *name);

/* The symbol after @name is a return trampoline (kretprobe, rethook,
 * ftrace's return_to_handler): a stack address printed as name+SIZE/SIZE
 * is that trampoline, standing in for a caller, not a call of name's. */
bool ksym_trampoline_after(const struct ksym *k, const char *name);
/* name is a return trampoline (kretprobe, rethook, return_to_handler). */
bool ksym_is_return_trampoline(const char *name);

/*
 * One symbol table for the daemon, read when first needed.  Modules come
 * and go: a caller that missed asks again with miss set, which reloads
 * the file if the last load is KSYM_RELOAD_USEC old or more and the
 * module list beside it ("modules" in the table's directory: /proc/modules
 * for /proc/kallsyms) changed since, or cannot be read.  An address no
 * table has (a BPF program, a trampoline) then costs a read of the module
 * list, not of the whole table: under TCG a reload held the loop for up
 * to 1.5 s, on every catch a second apart.  NULL while no table could be
 * read (*warn is set the first time, to say so once).
 */
#define KSYM_RELOAD_USEC 1000000ULL

struct ksym_cache {
	struct ksym k;
	uint64_t loaded_usec;		/* CLOCK_MONOTONIC of the last load or check */
	uint64_t loads;			/* tables read */
	uint64_t modules_hash;		/* the module list's at the last load */
	bool have_modules;		/* modules_hash is one */
	bool tried, ok, warned;
};

const struct ksym *ksym_cache_get(struct ksym_cache *c, const char *path, uint64_t now_usec,
				  bool miss, bool *warn);
void ksym_cache_free(struct ksym_cache *c);

#endif
