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

#endif
