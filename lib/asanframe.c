// SPDX-License-Identifier: GPL-2.0
/*
 * KASAN's stack frame of a function: see asanframe.h.
 *
 * The prologue's two stores, as gcc emits them:
 *
 *	movq $0x41b58ab3,DISP(%BASE)	REX.W C7 /0, imm32
 *	movq $DESC,DISP+8(%BASE)	the same, imm32 the string's address
 *
 * %BASE is %rsp (the frame is at a fixed distance from the CFA, which the
 * call frame information gives at that instruction), %rbp (in a frame
 * whose CFA is %rbp+16, likewise; in a realigned one, the frame pointer),
 * or a register set from one of them before (mov %rsp,%reg; lea
 * D(%rsp),%reg).  In a .ko the string's address is a relocation of the
 * text section; in vmlinux, the immediate itself.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <gelf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "asanframe.h"
#include "stackvars.h"
#include "x86insn.h"

#define ASAN_STACK_FRAME_MAGIC	0x41b58ab3u
#define PROLOGUE_INSNS		96	/* looked at, at most, before a branch */
#define REG_SP			4
#define REG_BP			5

/* movq $imm32,disp(%reg): its base register, displacement and immediate,
 * and where in @b the immediate is. */
struct store {
	int reg;
	long disp;
	uint32_t imm;
	unsigned int imm_at;
};

/* A mov of a sign-extended imm32 to memory, base+disp addressing only. */
static bool store_imm(const uint8_t *b, unsigned int len, struct store *s)
{
	unsigned int i = 0, mod, rm, rex;

	if (len < 7 || (b[0] & 0xf8) != 0x48)	/* REX.W, no other prefix */
		return false;
	rex = b[i++];
	if (b[i++] != 0xc7)
		return false;
	mod = b[i] >> 6;
	rm = b[i] & 7;
	if (((b[i] >> 3) & 7) != 0 || mod == 3 || (mod == 0 && rm == 5))
		return false;
	i++;
	if (rm == 4) {			/* SIB: base only, no index */
		if (((b[i] >> 3) & 7) != 4 || (mod == 0 && (b[i] & 7) == 5))
			return false;
		rm = b[i++] & 7;
	}
	s->reg = rm | (rex & 1 ? 8 : 0);
	if (mod == 1)
		s->disp = (int8_t)b[i++];
	else if (mod == 2) {
		s->disp = (int32_t)(b[i] | b[i + 1] << 8 | b[i + 2] << 16 | (uint32_t)b[i + 3] << 24);
		i += 4;
	} else {
		s->disp = 0;
	}
	if (i + 4 != len)
		return false;
	s->imm = b[i] | b[i + 1] << 8 | b[i + 2] << 16 | (uint32_t)b[i + 3] << 24;
	s->imm_at = i;
	return true;
}

/* mov %rsp/%rbp,%reg or lea disp(%rsp/%rbp),%reg: *@from and *@disp. */
static bool reg_from(const uint8_t *b, unsigned int len, int reg, int *from, long *disp)
{
	unsigned int rex, mod, r, rm;

	if (len < 3 || (b[0] & 0xf8) != 0x48)
		return false;
	rex = b[0];
	mod = b[2] >> 6;
	r = ((b[2] >> 3) & 7) | (rex & 4 ? 8 : 0);
	rm = (b[2] & 7) | (rex & 1 ? 8 : 0);
	if (b[1] == 0x89 && mod == 3 && len == 3 && rm == (unsigned int)reg &&
	    (r == REG_SP || r == REG_BP)) {	/* mov %r,%rm */
		*from = r;
		*disp = 0;
		return true;
	}
	if (b[1] == 0x8d && r == (unsigned int)reg && (rm & 7) == 4 && len >= 4 &&
	    b[3] == 0x24) {			/* lea disp(%rsp),%r */
		*from = REG_SP;
		*disp = mod == 1 ? (int8_t)b[4] : mod == 2 ? (int32_t)(b[4] | b[5] << 8 |
			b[6] << 16 | (uint32_t)b[7] << 24) : 0;
		return mod != 3;
	}
	if (b[1] == 0x8d && r == (unsigned int)reg && (rm & 7) == REG_BP && mod != 0) {
		*from = REG_BP;				/* lea disp(%rbp),%r */
		*disp = mod == 1 ? (int8_t)b[3] : (int32_t)(b[3] | b[4] << 8 | b[5] << 16 |
			(uint32_t)b[6] << 24);
		return true;
	}
	return false;
}

/* The CFA at @pc: register and offset (%rsp+N, %rbp+N). */
static bool cfa_rule(Dwarf_CFI *cfi, Dwarf_Addr pc, int *reg, long *off)
{
	Dwarf_Frame *fr;
	Dwarf_Op *ops;
	size_t nops;
	bool ok = false;

	if (!cfi || dwarf_cfi_addrframe(cfi, pc, &fr) != 0)
		return false;
	if (dwarf_frame_cfa(fr, &ops, &nops) == 0 && nops == 1) {
		if (ops[0].atom == DW_OP_bregx) {
			*reg = ops[0].number;
			*off = (long)(int64_t)ops[0].number2;
			ok = true;
		} else if (ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg31) {
			*reg = ops[0].atom - DW_OP_breg0;
			*off = (long)(int64_t)ops[0].number;
			ok = true;
		}
	}
	free(fr);
	return ok;
}

/* DWARF's register numbers for %rsp and %rbp. */
#define DW_REG_SP	7
#define DW_REG_BP	6

/* The description string whose address the store at @field (an address
 * of @mod) holds as @imm: through the text section's relocation in a .ko,
 * else the immediate as an address. */
static bool desc_of(Dwfl_Module *mod, Dwarf_Addr field, uint32_t imm, char *out, size_t n)
{
	Dwarf_Addr bias, a = field, sbias;
	Elf *elf = dwfl_module_getelf(mod, &bias);
	Elf_Scn *text = dwfl_module_address_section(mod, &a, &sbias), *scn = NULL, *dst = NULL;
	GElf_Addr where = (GElf_Addr)(int64_t)(int32_t)imm;
	const char *s;
	Elf_Data *d;

	if (!elf || !text)
		return false;
	/* a: the field's offset in its section, for a relocation's r_offset. */
	while ((scn = elf_nextscn(elf, scn)) && !dst) {
		GElf_Shdr sh;
		Elf_Data *rd;
		size_t i;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA ||
		    sh.sh_info != elf_ndxscn(text) || !(rd = elf_getdata(scn, NULL)))
			continue;
		for (i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Rela r;
			GElf_Sym sym;
			Elf_Data *sd;

			if (!gelf_getrela(rd, i, &r) || r.r_offset != a)
				continue;
			sd = elf_getdata(elf_getscn(elf, sh.sh_link), NULL);
			if (!sd || !gelf_getsym(sd, GELF_R_SYM(r.r_info), &sym) ||
			    sym.st_shndx == SHN_UNDEF || sym.st_shndx >= SHN_LORESERVE)
				return false;
			dst = elf_getscn(elf, sym.st_shndx);
			where = sym.st_value + r.r_addend;
			break;
		}
	}
	if (dst) {		/* a .ko: the string at where in section dst */
		d = elf_getdata(dst, NULL);
	} else {		/* vmlinux: where is the address */
		a = where + bias;
		dst = dwfl_module_address_section(mod, &a, &sbias);
		d = dst ? elf_getdata(dst, NULL) : NULL;
		where = a;
	}
	if (!d || !d->d_buf || where >= d->d_size)
		return false;
	s = (const char *)d->d_buf + where;
	if (!memchr(s, '\0', d->d_size - where) || strlen(s) >= n)
		return false;
	strcpy(out, s);
	return true;
}

/* Place the frame's start, BASE+DISP at the store @pc, as a kind of
 * place and an offset. */
static bool place(Dwarf_CFI *cfi, Dwarf_Addr pc, int reg, long disp, struct kw_asan_frame *f)
{
	int creg;
	long coff;

	if (reg != REG_SP && reg != REG_BP)
		return false;
	if (cfa_rule(cfi, pc, &creg, &coff) &&
	    creg == (reg == REG_SP ? DW_REG_SP : DW_REG_BP)) {
		f->loc = KW_SVAR_STACK;		/* CFA = reg + coff */
		f->base = disp - coff;
		return true;
	}
	/* A realigned frame: from the register itself. */
	f->loc = reg == REG_SP ? KW_SVAR_SP : KW_SVAR_FP;
	f->base = disp;
	return true;
}

bool kw_asan_frame_find(Dwfl_Module *mod, Dwarf_CFI *cfi, Dwarf_Addr cfi_bias, Dwarf_Addr entry,
			struct kw_asan_frame *f)
{
	struct { uint8_t b[16]; unsigned int len; Dwarf_Addr pc; } seen[PROLOGUE_INSNS];
	Dwarf_Addr a = entry, sbias, pc = entry;
	Elf_Scn *scn = dwfl_module_address_section(mod, &a, &sbias);
	Elf_Data *d = scn ? elf_getdata(scn, NULL) : NULL;
	struct store magic = { .reg = -1 }, s;
	unsigned int i, n = 0;

	if (!d || !d->d_buf || a >= d->d_size)
		return false;
	for (i = 0; i < PROLOGUE_INSNS; i++) {
		const uint8_t *b = (const uint8_t *)d->d_buf + a + (pc - entry);
		size_t left = d->d_size - (a + (pc - entry));
		struct kw_insn in;

		if (!left || kw_insn_decode(b, left, pc, &in) < 0 || in.len > 15)
			return false;
		if (magic.reg < 0 && store_imm(b, in.len, &s) && s.imm == ASAN_STACK_FRAME_MAGIC) {
			magic = s;
			magic.imm_at = 0;
		} else if (magic.reg >= 0 && store_imm(b, in.len, &s) && s.reg == magic.reg &&
			   s.disp == magic.disp + 8) {
			int reg = magic.reg, from;
			long disp = magic.disp, rd;
			unsigned int k;

			if (!desc_of(mod, pc + s.imm_at, s.imm, f->desc, sizeof(f->desc)))
				return false;
			/* Another register: what it was set from, before. */
			for (k = n; reg != REG_SP && reg != REG_BP && k-- > 0;)
				if (reg_from(seen[k].b, seen[k].len, reg, &from, &rd)) {
					reg = from;
					disp += rd;
				}
			return place(cfi, pc - cfi_bias, reg, disp, f);
		}
		if (in.kind != KW_INSN_NEXT)
			return false;
		if (n < PROLOGUE_INSNS) {
			memcpy(seen[n].b, b, in.len);
			seen[n].len = in.len;
			seen[n++].pc = pc;
		}
		pc += in.len;
	}
	return false;
}

bool kw_asan_frame_var(const struct kw_asan_frame *f, const char *name, int line,
		       unsigned long size, int *loc, long *off)
{
	const char *p = f->desc;
	long nvars, voff, vsize, len, i, found = -1, matches = 0;
	size_t nlen = strlen(name);
	char *end;

	nvars = strtol(p, &end, 10);
	if (end == p || nvars <= 0 || nvars > 1024)
		return false;
	p = end;
	for (i = 0; i < nvars; i++) {
		const char *vname;

		voff = strtol(p, &end, 10);
		if (end == p)
			return false;
		vsize = strtol(p = end, &end, 10);
		if (end == p)
			return false;
		len = strtol(p = end, &end, 10);
		if (end == p || *end != ' ' || len <= 0 || (size_t)len > strlen(end + 1))
			return false;
		vname = end + 1;
		p = vname + len;
		/* NAME or NAME:LINE */
		if ((size_t)len < nlen || strncmp(vname, name, nlen) ||
		    ((size_t)len > nlen && vname[nlen] != ':'))
			continue;
		if ((unsigned long)vsize < size)
			continue;
		if (line && (size_t)len > nlen && strtol(vname + nlen + 1, NULL, 10) != line)
			continue;
		matches++;
		found = voff;
	}
	if (matches != 1)
		return false;
	*loc = f->loc;
	*off = f->base + found;
	return true;
}
