/* SPDX-License-Identifier: GPL-2.0 */
/*
 * x86-64 instructions' lengths and where they go: enough of a decoder to
 * follow a function's control flow on the host (lib/dwarfvars.c, the point
 * after a source line), not a disassembler.  It knows the legacy, REX,
 * VEX and EVEX encodings of what compilers emit for the kernel and for
 * user space; anything else is refused, not guessed.
 */
#ifndef KW_X86INSN_H
#define KW_X86INSN_H

#include <stddef.h>
#include <stdint.h>

enum kw_insn_kind {
	KW_INSN_NEXT,	/* goes on to the next instruction (a call too) */
	KW_INSN_JMP,	/* jumps to target */
	KW_INSN_JCC,	/* jumps to target or goes on */
	KW_INSN_RET,	/* leaves the function: ret, iret, sysret */
	KW_INSN_STOP,	/* goes nowhere: int3, hlt */
	KW_INSN_IJMP,	/* jumps through a register or memory: target unknown */
};

struct kw_insn {
	unsigned int len;
	enum kw_insn_kind kind;
	uint64_t target;	/* KW_INSN_JMP, KW_INSN_JCC */
	int rel_len;		/* bytes of its displacement (1 or 4), for a branch */
	int64_t rel;		/* the displacement itself */
};

/* Decode the instruction at @buf (@n bytes there), which is at address
 * @addr.  0, or -EILSEQ for bytes it does not know (or too few). */
int kw_insn_decode(const uint8_t *buf, size_t n, uint64_t addr, struct kw_insn *in);

#endif
