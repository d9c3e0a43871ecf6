/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Stack variables from DWARF (libdw): the table of stackvars.h read from an
 * ELF file (vmlinux, a module's .ko), and the stack pointer's distance from
 * the CFA at a point of a function.  Linked by kwatchctl (resolve,
 * stackvars) and kwatchd (a module's functions, which no index made at
 * image build time holds).
 */
#ifndef KW_DWARFVARS_H
#define KW_DWARFVARS_H

#include <stdbool.h>
#include <stddef.h>

struct kw_stackvars;

/* Add the stack variables of ELF file @path's functions (only those named
 * @func, unless it is NULL), from its DWARF.  0, or -errno with a sentence
 * in @err. */
int kw_dwarf_stackvars(const char *path, const char *func, struct kw_stackvars *sv, char *err,
		       size_t errlen);

/* How far the stack pointer is below the CFA at FUNC+@off in @path (from
 * its call frame information), for an arm after that instruction. */
int kw_dwarf_sp_dist(const char *path, const char *func, unsigned long off, long *dist,
		     char *err, size_t errlen);

/* The variable at @cfa_off from the CFA (@sp_rel: from the stack pointer
 * of a realigned frame, which a given point cannot use) as an offset from
 * the stack pointer right after FUNC+@at: *@so, or -errno with a sentence
 * in @err (the frame not set up there yet, no call frame information). */
int kw_dwarf_sp_offset(const char *path, const char *func, unsigned long at, long cfa_off,
		       bool sp_rel, unsigned long *so, char *err, size_t errlen);

/*
 * The arm point after source line @line of @file in function @func of ELF
 * file @path: *@off is the offset from FUNC's entry of the instruction
 * control reaches once that line is done with, so that a watch armed
 * there (the kernel arms after the instruction at fo=) sees none of the
 * line's own stores.  0 with @err "" or a note for a person (the line
 * moved to, the clone used); else -errno with a sentence in @err.
 *
 * @func is a symbol as kallsyms names it, or a source name that gcc
 * compiled only as clones (foo.constprop.0: the clone, when there is one
 * with code from @file).  @file matches a source path by its end, on a
 * '/' boundary: "lib/foo.c" and "foo.c" both match "/build/x/lib/foo.c".
 *
 * Which code is the line's: the line table's rows, except that what gcc
 * inlined into FUNC is the line of its call.  A line with no code in
 * FUNC moves to the next one with some (said in the note); a line
 * before FUNC's declaration or after its last code is refused (-ERANGE,
 * the span named).  FUNC with no code from @file: -ENOENT.
 *
 * The point, from FUNC's control flow (its machine code decoded, every
 * range of it: a hot/cold split's .cold part too): take the line's
 * instructions and everything that lies on a way from one of them back to
 * one (the rest of a loop around the line; other lines' code scheduled
 * among its own).  The point is where control goes when it leaves that
 * region, and there must be one such place:
 * - inside a loop, that is the loop's exit (after the backward branch),
 *   not the instruction after the line's last one, which the next
 *   iteration would pass again;
 * - paths that leave the function from the region (a return on the line,
 *   a tail call) or end in it (a call that does not return, int3) need no
 *   point: the frame is gone, or never goes on;
 * - two or more places (the line is an if's condition, a loop that may
 *   run no times, code gcc duplicated on two paths): -ENOTUNIQ, naming
 *   them, as no single point follows the line on every path;
 * - none (the line returns on every path): -EOPNOTSUPP.
 * Refused too: a point outside the part FUNC's symbol covers (in .cold:
 * fo= cannot name it), an indirect jump reachable from the line (a
 * switch's table: where it goes is not known), code the decoder does not
 * know or a jump into the middle of an instruction (-EILSEQ).  The point
 * is always an instruction start.  What it cannot see: a jump patched in
 * at run time (static keys, alternatives).
 */
int kw_dwarf_line_point(const char *path, const char *func, const char *file, unsigned int line,
			unsigned long *off, char *err, size_t errlen);

#endif
