/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KASAN's stack frame of a function (asanframe.c): where gcc put the
 * locals whose address is taken, when it instruments the stack
 * (CONFIG_KASAN_STACK, -fsanitize=kernel-address --param asan-stack=1).
 *
 * gcc moves such locals into one frame with redzones between them, and
 * gcc 12 then gives them no DW_AT_location: in DWARF they look optimised
 * out (do_filp_open's struct nameidata nd, any array a KASAN kernel
 * passes by address).  The frame describes itself for KASAN's reports:
 * the prologue stores ASAN_STACK_FRAME_MAGIC (0x41b58ab3) at its start
 * and, right above, the address of a string "N OFF SIZE LEN NAME:LINE
 * ..." that gives each local's offset from the start.  Reading those two
 * stores and the call frame information at them gives each local's place
 * as DWARF would have.
 */
#ifndef KW_ASANFRAME_H
#define KW_ASANFRAME_H

#include <stdbool.h>
#include <elfutils/libdwfl.h>

#define KW_ASAN_DESC_MAX	2048

struct kw_asan_frame {
	int loc;		/* enum kw_svar_loc: STACK (from the CFA), SP or FP */
	long base;		/* the frame's start, from that place */
	char desc[KW_ASAN_DESC_MAX];
};

/* The KASAN frame of the function entered at @entry (an address of
 * @mod, bias included), from its prologue (up to its first branch):
 * true if it has one that can be placed.  @cfi may be NULL (then only a
 * frame pointer frame can be). */
bool kw_asan_frame_find(Dwfl_Module *mod, Dwarf_CFI *cfi, Dwarf_Addr cfi_bias, Dwarf_Addr entry,
			struct kw_asan_frame *f);

/* The local @name declared at @line (0: any) of @size bytes in frame @f:
 * its kind of place (*@loc) and offset (*@off). */
bool kw_asan_frame_var(const struct kw_asan_frame *f, const char *name, int line,
		       unsigned long size, int *loc, long *off);

#endif
