// SPDX-License-Identifier: GPL-2.0
/*
 * x86-64 instruction lengths, and the branches among them: a table per
 * opcode map of whether a ModRM byte and an immediate follow, the rest
 * (prefixes, SIB, displacements, the few opcodes whose immediate depends on
 * ModRM or a prefix) in code.  64-bit mode only.
 *
 * ud2 goes on to the next instruction: the kernel's WARN() is a ud2 that
 * the trap handler resumes after, and a path that does not come back (BUG())
 * only adds a way that is never taken.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "x86insn.h"

#define M	0x01	/* a ModRM byte (and what it brings: SIB, displacement) */
#define IB	0x02	/* an 8-bit immediate */
#define IW	0x04	/* a 16-bit one */
#define IZ	0x08	/* 16 or 32 bits, by the operand size */
#define BAD	0x10	/* not valid in 64-bit mode, or not known here */
#define SPEC	0x20	/* handled in code */

#define R4(x)	x, x, x, x
#define R8(x)	R4(x), R4(x)
#define R16(x)	R8(x), R8(x)

static const unsigned char map1[256] = {
	/* 00 */ M, M, M, M, IB, IZ, BAD, BAD, M, M, M, M, IB, IZ, BAD, SPEC,
	/* 10 */ M, M, M, M, IB, IZ, BAD, BAD, M, M, M, M, IB, IZ, BAD, BAD,
	/* 20 */ M, M, M, M, IB, IZ, SPEC, BAD, M, M, M, M, IB, IZ, SPEC, BAD,
	/* 30 */ M, M, M, M, IB, IZ, SPEC, BAD, M, M, M, M, IB, IZ, SPEC, BAD,
	/* 40 */ R16(SPEC),
	/* 50 */ R16(0),
	/* 60 */ BAD, BAD, SPEC, M, SPEC, SPEC, SPEC, SPEC, IZ, M | IZ, IB, M | IB, 0, 0, 0, 0,
	/* 70 */ R16(SPEC),
	/* 80 */ M | IB, M | IZ, BAD, M | IB, M, M, M, M, M, M, M, M, M, M, M, M,
	/* 90 */ 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, BAD, 0, 0, 0, 0, 0,
	/* a0 */ SPEC, SPEC, SPEC, SPEC, 0, 0, 0, 0, IB, IZ, 0, 0, 0, 0, 0, 0,
	/* b0 */ R8(IB), R8(SPEC),
	/* c0 */ M | IB, M | IB, SPEC, SPEC, SPEC, SPEC, M | IB, SPEC, IW | IB, 0, SPEC, SPEC,
		 SPEC, IB, BAD, SPEC,
	/* d0 */ M, M, M, M, BAD, BAD, BAD, 0, M, M, M, M, M, M, M, M,
	/* e0 */ SPEC, SPEC, SPEC, SPEC, IB, IB, IB, IB, SPEC, SPEC, BAD, SPEC, 0, 0, 0, 0,
	/* f0 */ SPEC, 0, SPEC, SPEC, SPEC, 0, SPEC, SPEC, 0, 0, 0, 0, 0, 0, M, SPEC,
};

/* 0F xx; also VEX's and EVEX's map 1, whose immediates are at the same
 * opcodes (70-73, c2, c4-c6).  a6, a7: VIA PadLock (xstore, xcrypt*), in
 * the kernel's drivers. */
static const unsigned char map2[256] = {
	/* 00 */ M, M, M, M, BAD, 0, 0, SPEC, 0, 0, BAD, 0, BAD, M, 0, M | IB,
	/* 10 */ R16(M),
	/* 20 */ M, M, M, M, BAD, BAD, BAD, BAD, R8(M),
	/* 30 */ 0, 0, 0, 0, 0, SPEC, BAD, 0, SPEC, BAD, SPEC, BAD, BAD, BAD, BAD, BAD,
	/* 40 */ R16(M),
	/* 50 */ R16(M),
	/* 60 */ R16(M),
	/* 70 */ M | IB, M | IB, M | IB, M | IB, M, M, M, 0, M, M, BAD, BAD, M, M, M, M,
	/* 80 */ R16(SPEC),
	/* 90 */ R16(M),
	/* a0 */ 0, 0, 0, M, M | IB, M, M, M, 0, 0, 0, M, M | IB, M, M, M,
	/* b0 */ M, M, M, M, M, M, M, M, M, M, M | IB, M, M, M, M, M,
	/* c0 */ M, M, M | IB, M, M | IB, M | IB, M | IB, M, R8(0),
	/* d0 */ R16(M),
	/* e0 */ R16(M),
	/* f0 */ R16(M),
};

/* ModRM, and the SIB byte and displacement it calls for: their length. */
static int modrm_len(const uint8_t *p, size_t n)
{
	unsigned int mod, rm, len = 1;

	if (n < 1)
		return -EILSEQ;
	mod = p[0] >> 6;
	rm = p[0] & 7;
	if (mod == 3)
		return 1;
	if (rm == 4) {
		if (n < 2)
			return -EILSEQ;
		len++;
		if (mod == 0 && (p[1] & 7) == 5)
			len += 4;	/* no base: disp32 */
	} else if (mod == 0 && rm == 5) {
		len += 4;		/* %rip + disp32 */
	}
	if (mod == 1)
		len += 1;
	else if (mod == 2)
		len += 4;
	return len;
}

static int64_t rel_at(const uint8_t *p, int len)
{
	int32_t r32;

	if (len == 1)
		return (int8_t)p[0];
	memcpy(&r32, p, 4);
	return r32;
}

int kw_insn_decode(const uint8_t *buf, size_t n, uint64_t addr, struct kw_insn *in)
{
	bool opsize16 = false, addr32 = false, rexw = false;
	const unsigned char *table = map1;
	bool one_byte = true;	/* the one-byte map, not VEX: f6, f7, ff, c7 */
	unsigned int i = 0, op, flags, imm = 0, reg = 0;
	int m = 0, rel = 0;

	if (n > 15)
		n = 15;		/* the longest instruction x86 allows */
	memset(in, 0, sizeof(*in));
	in->kind = KW_INSN_NEXT;

	/* Legacy prefixes, then REX (one that a legacy prefix follows is
	 * ignored by the CPU, so only the last counts). */
	for (;; i++) {
		if (i >= n)
			return -EILSEQ;
		op = buf[i];
		if (op == 0x66)
			opsize16 = true;
		else if (op == 0x67)
			addr32 = true;
		else if (op == 0x26 || op == 0x2e || op == 0x36 || op == 0x3e || op == 0x64 ||
			 op == 0x65 || op == 0xf0 || op == 0xf2 || op == 0xf3)
			;
		else if ((op & 0xf0) == 0x40)
			;
		else
			break;
		rexw = (op & 0xf8) == 0x48;
	}
	i++;

	if (op == 0xc4 || op == 0xc5 || op == 0x62) {
		/* VEX (2 or 3 bytes) and EVEX (4): the map, then opcode and ModRM. */
		unsigned int map = 1, plen = op == 0xc5 ? 1 : op == 0xc4 ? 2 : 3;

		if (i + plen >= n)
			return -EILSEQ;
		if (op != 0xc5)
			map = buf[i] & (op == 0xc4 ? 0x1f : 0x07);
		i += plen;
		op = buf[i++];
		one_byte = false;
		if (map == 1) {
			flags = map2[op];
			if (flags & (BAD | SPEC))
				return -EILSEQ;
		} else if (map == 2 || map == 5 || map == 6) {
			flags = M;
		} else if (map == 3) {
			flags = M | IB;
		} else {
			return -EILSEQ;
		}
		goto operands;
	}

	if (op == 0x0f) {
		if (i >= n)
			return -EILSEQ;
		op = buf[i++];
		table = map2;
		one_byte = false;
		if (op == 0x38 || op == 0x3a) {
			if (i >= n)
				return -EILSEQ;
			i++;		/* the third opcode byte */
			flags = op == 0x38 ? M : M | IB;
			goto operands;
		}
	}
	flags = table[op];
	if (flags & BAD)
		return -EILSEQ;
	if (flags & SPEC) {
		if (table == map2) {
			switch (op) {
			case 0x07:	/* sysret */
			case 0x35:	/* sysexit */
				in->kind = KW_INSN_RET;
				flags = 0;
				break;
			default:	/* 80-8f: jcc rel32 */
				in->kind = KW_INSN_JCC;
				rel = 4;
				flags = 0;
				break;
			}
		} else {
			switch (op) {
			case 0x70 ... 0x7f:	/* jcc rel8 */
			case 0xe0 ... 0xe3:	/* loop, jrcxz */
				in->kind = KW_INSN_JCC;
				rel = 1;
				break;
			case 0xeb:
				in->kind = KW_INSN_JMP;
				rel = 1;
				break;
			case 0xe9:
				in->kind = KW_INSN_JMP;
				rel = 4;
				break;
			case 0xe8:		/* call: comes back */
				rel = 4;
				break;
			case 0xa0 ... 0xa3:	/* mov to/from a 64-bit absolute address */
				imm = addr32 ? 4 : 8;
				break;
			case 0xb8 ... 0xbf:	/* mov $imm, %reg: 64 bits with REX.W */
				imm = rexw ? 8 : opsize16 ? 2 : 4;
				break;
			case 0xc2:
			case 0xca:
				imm = 2;
				in->kind = KW_INSN_RET;
				break;
			case 0xc3:
			case 0xcb:
			case 0xcf:
				in->kind = KW_INSN_RET;
				break;
			case 0xc7:		/* mov $imm32, r/m; xbegin rel32 */
				flags = M | IZ;
				break;
			case 0xcc:		/* int3 */
			case 0xf4:		/* hlt */
				in->kind = KW_INSN_STOP;
				break;
			case 0xf6:
			case 0xf7:
			case 0xff:
				flags = M;	/* the rest by ModRM's reg field, below */
				break;
			default:		/* a prefix out of place */
				return -EILSEQ;
			}
			if (!(flags & M))
				flags = 0;
		}
	}

operands:
	if (flags & M) {
		if (i >= n)
			return -EILSEQ;
		reg = (buf[i] >> 3) & 7;
		m = modrm_len(buf + i, n - i);
		if (m < 0)
			return m;
		if (one_byte && (op == 0xf6 || op == 0xf7) && reg < 2)
			imm = op == 0xf6 ? 1 : (opsize16 && !rexw) ? 2 : 4;	/* test $imm */
		if (one_byte && op == 0xff && (reg == 4 || reg == 5))
			in->kind = KW_INSN_IJMP;
		if (one_byte && op == 0xc7 && buf[i] == 0xf8) {
			in->kind = KW_INSN_JCC;	/* xbegin: the abort path */
			rel = 4;
			flags &= ~IZ;
		}
		i += m;
	}
	if (flags & IB)
		imm += 1;
	if (flags & IW)
		imm += 2;
	if (flags & IZ)
		imm += (opsize16 && !rexw) ? 2 : 4;
	if (rel) {
		if (i + rel > n)
			return -EILSEQ;
		in->rel = rel_at(buf + i, rel);
		in->rel_len = rel;
		i += rel;
	}
	i += imm;
	if (i > n)
		return -EILSEQ;
	in->len = i;
	if (in->kind == KW_INSN_JMP || in->kind == KW_INSN_JCC)
		in->target = addr + i + (uint64_t)in->rel;
	return 0;
}
