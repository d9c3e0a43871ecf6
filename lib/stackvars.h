/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Stack variables by name: the table that turns FUNCTION and VARIABLE into
 * the kernel's watch line, without offsets.
 *
 * Each entry is one watchable place of one function's frame: a variable, a
 * member of a struct variable ("s.len"), or the element of an array
 * ("buf[]", with the element's size and the count; "arr[].x" for a member
 * of an element).  Its location is its offset from the canonical frame
 * address (DWARF's DW_OP_call_frame_cfa, the stack pointer before the
 * call), which does not depend on where in the function the watch is
 * armed; the kernel turns it into an offset from the stack pointer at the
 * probe point it picks (co= in /proc/kstackwatch).
 *
 * The table comes from DWARF (lib/dwarfvars.c, libdw) or from an
 * index file made from it at image build time, one entry a line:
 *
 *	# kwatch stackvars 1
 *	FUNCTION PATH LOCATION SIZE [COUNT]
 *
 * LOCATION is cfa-N (on the stack, N bytes below the CFA; cfa+N for an
 * argument passed on the stack), part-N (there only at some points of the
 * function: elsewhere in a register), reg
 * (only ever in registers), none (optimised out) or multi (in more than one
 * stack slot).  SIZE is in bytes (an element's, for PATH[]).  In a frame
 * the prologue realigns (and $-64,%rsp), the compiler places variables
 * from the stack pointer (sp+N, N bytes above it once the prologue is
 * done) or from the frame pointer (fp-N): the CFA is at no fixed distance
 * from either.
 */
#ifndef KW_STACKVARS_H
#define KW_STACKVARS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define KW_SVAR_FUNC_MAX	511	/* KSYM_NAME_LEN - 1 */
#define KW_SVAR_PATH_MAX	255
/* The largest index read: kwatchd reads and parses it in its event loop,
 * during an apply.  The test kernel's (148779 entries) is 5 MiB; one over
 * the limit is refused, before it is read. */
#define KW_SVAR_INDEX_MAX	(32UL << 20)
#define KW_SVAR_HEADER		"# kwatch stackvars 1"
#define KW_SVAR_DIR		"/usr/lib/kwatch/stackvars"	/* one index per release */

enum kw_svar_loc {
	KW_SVAR_STACK,
	KW_SVAR_PART,
	KW_SVAR_REG,
	KW_SVAR_NONE,
	KW_SVAR_MULTI,
	KW_SVAR_SP,	/* above the stack pointer after a realigning prologue */
	KW_SVAR_FP,	/* from the frame pointer, in a realigned frame */
};

struct kw_svar {
	char *func;		/* the symbol, as kallsyms names it */
	char *path;		/* "buf", "buf[]", "s.len", "arr[].x" */
	enum kw_svar_loc loc;
	long cfa_off;		/* KW_SVAR_STACK, KW_SVAR_PART: below the CFA;
				 * KW_SVAR_SP, KW_SVAR_FP: from that register */
	unsigned long size;	/* bytes: an element's for "x[]" */
	unsigned long count;	/* elements, for "x[]"; else 0 */
};

struct kw_stackvars {
	struct kw_svar *v;	/* sorted by function, then path */
	size_t n, cap;
	char *strings;		/* an index file's text, which func and path point into */
	bool own_strings;	/* func and path are malloc'ed one by one */
};

/* What a watch on FUNCTION VARIABLE resolved to. */
struct kw_svar_watch {
	char func[KW_SVAR_FUNC_MAX + 1];	/* as kallsyms names it: a clone's name */
	/* FUNCTION was found as gcc's clone(s) of it (foo.constprop.0): the
	 * others than func, which are not watched ("" if none). */
	bool clone;
	char others[128];
	bool canary;
	long cfa_off;		/* !canary: the watched bytes' offset from the CFA,
				 * or with sp_rel from the stack pointer */
	unsigned int len;	/* !canary: 1, 2, 4 or 8 */
	bool partly;		/* in registers at some points of the function */
	bool sp_rel;		/* cfa_off is from the stack pointer (so=) */
};

/* Add an entry (copies of @func and @path); after all adds, kw_stackvars_sort(). */
int kw_stackvars_add(struct kw_stackvars *sv, const char *func, const char *path,
		     enum kw_svar_loc loc, long cfa_off, unsigned long size,
		     unsigned long count);
void kw_stackvars_sort(struct kw_stackvars *sv);
void kw_stackvars_free(struct kw_stackvars *sv);

/* Parse an index's text (kept: @text is owned by @sv from then on, also on
 * failure).  -EINVAL with the line number in @err for a malformed one. */
int kw_stackvars_parse(struct kw_stackvars *sv, char *text, char *err, size_t errlen);
/* Read and parse an index file: a regular file, not through a symlink. */
int kw_stackvars_load(struct kw_stackvars *sv, const char *path, char *err, size_t errlen);
/* Write the index's text. */
int kw_stackvars_write(const struct kw_stackvars *sv, FILE *out);

/* @sym is a clone gcc made of @func: FUNC, then one or more of
 * .constprop.N, .isra.N, .part.N, .lto_priv.N (not .cold: no entry). */
bool kw_svar_clone_of(const char *sym, const char *func);

/* Resolve VARIABLE of FUNCTION: NAME, then .MEMBER and [INDEX] steps; NULL
 * or "canary" for the stack canary.  A FUNCTION that the index has only as
 * gcc's clones (kallsyms knows foo.constprop.0, the source says foo)
 * resolves to its clone: the first clone where the variable resolves,
 * the others listed in w->others.  -ENOENT (no such function or
 * variable), -EINVAL (a malformed name, an index out of bounds),
 * -EADDRNOTAVAIL (not on the stack), -E2BIG (more than 8 bytes, or not 1, 2,
 * 4 or 8), -ENOTUNIQ (functions of that name that disagree), with a
 * sentence for a person in @why. */
int kw_stackvars_resolve(const struct kw_stackvars *sv, const char *func, const char *var,
			 struct kw_svar_watch *w, char *why, size_t whylen);

/* @func (or a clone of it) has entries in @sv. */
bool kw_stackvars_has_function(const struct kw_stackvars *sv, const char *func);

/* The running kernel's index: KW_SVAR_DIR/RELEASE. */
void kw_stackvars_default_path(char *buf, size_t n);

/* The /proc/kstackwatch line: fn=FUNC [dp=DEPTH] [co=OFF wl=LEN]. */
int kw_svar_line(const struct kw_svar_watch *w, unsigned int depth, char *buf, size_t n);

#endif /* KW_STACKVARS_H */
