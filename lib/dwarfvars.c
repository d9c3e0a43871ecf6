// SPDX-License-Identifier: GPL-2.0
/*
 * The stack variables of every function of an ELF file (vmlinux, a
 * module's .ko, any object), read from its DWARF with libdw: the table of
 * lib/stackvars.h.
 *
 * A function's variables are the DW_TAG_variable and DW_TAG_formal_parameter
 * DIEs of its concrete (out-of-line) instance and of its lexical blocks;
 * those of functions inlined into it are left out.  A location counts as
 * on the stack when it is DW_OP_fbreg N and the function's frame base is
 * DW_OP_call_frame_cfa (what gcc and clang emit for x86-64): N is then the
 * offset from the CFA.  A location list is looked at whole: one stack slot
 * throughout, one stack slot at some points and registers at others, or
 * registers only.  Struct members and array elements get entries of their
 * own, so that s.len and buf[2] can be named.
 *
 * The function is named by the ELF symbol at its entry, as kallsyms names
 * it (gcc's clones: foo.constprop.0), falling back to the DWARF name.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dwarfvars.h"
#include "stackvars.h"

#define MEMBER_DEPTH	4	/* s.a.b.c.d: no deeper */
#define ENTRIES_PER_VAR	256	/* a huge struct on the stack gets no more */

struct walk {
	struct kw_stackvars *sv;
	Dwfl_Module *mod;
	Dwarf_Addr bias;
	const char *func;
	unsigned int entries;	/* of the variable being expanded */
	enum kw_svar_loc loc;	/* its location's kind, its parts' too */
	int err;
};

static const Dwfl_Callbacks offline_callbacks = {
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
};

static void add(struct walk *wk, const char *path, enum kw_svar_loc loc, long off,
		unsigned long size, unsigned long count)
{
	int r;

	if (wk->err || wk->entries >= ENTRIES_PER_VAR)
		return;
	wk->entries++;
	r = kw_stackvars_add(wk->sv, wk->func, path, loc, off, size, count);
	if (r < 0 && r != -ENAMETOOLONG)
		wk->err = r;
}

static bool type_of(Dwarf_Die *die, Dwarf_Die *type)
{
	Dwarf_Attribute a;
	Dwarf_Die t;

	return dwarf_attr_integrate(die, DW_AT_type, &a) && dwarf_formref_die(&a, &t) &&
	       dwarf_peel_type(&t, type) == 0;
}

static bool size_of(Dwarf_Die *type, unsigned long *size)
{
	Dwarf_Word w;

	if (dwarf_aggregate_size(type, &w) != 0 || w == 0)
		return false;
	*size = w;
	return true;
}

static void expand(struct walk *wk, const char *path, long off, Dwarf_Die *type, int depth);

/* A struct's or union's members, as PATH.MEMBER; anonymous ones flattened. */
static void expand_members(struct walk *wk, const char *path, long off, Dwarf_Die *type,
			   int depth)
{
	char sub[KW_SVAR_PATH_MAX + 1];
	Dwarf_Die m, mt;
	Dwarf_Attribute a;
	Dwarf_Word moff;
	unsigned long size;
	const char *name;

	if (dwarf_child(type, &m) != 0)
		return;
	do {
		if (dwarf_tag(&m) != DW_TAG_member || dwarf_hasattr(&m, DW_AT_bit_size) ||
		    dwarf_hasattr(&m, DW_AT_data_bit_offset) || !type_of(&m, &mt))
			continue;
		moff = 0;
		if (dwarf_attr(&m, DW_AT_data_member_location, &a) &&
		    dwarf_formudata(&a, &moff) != 0)
			continue;	/* a location expression: not a constant offset */
		name = dwarf_diename(&m);
		if (!name) {
			expand(wk, path, off + (long)moff, &mt, depth);
			continue;
		}
		if ((size_t)snprintf(sub, sizeof(sub), "%s.%s", path, name) >= sizeof(sub) ||
		    !size_of(&mt, &size))
			continue;
		add(wk, sub, wk->loc, off + (long)moff, size, 0);
		expand(wk, sub, off + (long)moff, &mt, depth + 1);
	} while (dwarf_siblingof(&m, &m) == 0);
}

/* A one-dimensional array's elements, as PATH[] (element 0, size, count). */
static void expand_array(struct walk *wk, const char *path, long off, Dwarf_Die *type,
			 int depth)
{
	char sub[KW_SVAR_PATH_MAX + 1];
	Dwarf_Word count = 0, upper;
	Dwarf_Attribute a;
	Dwarf_Die r, et;
	unsigned long esize;
	int dims = 0;

	if (dwarf_child(type, &r) != 0)
		return;
	do {
		if (dwarf_tag(&r) != DW_TAG_subrange_type)
			continue;
		if (++dims > 1)
			return;		/* a[2][3]: not named by element */
		if (dwarf_attr(&r, DW_AT_count, &a) && dwarf_formudata(&a, &count) == 0)
			continue;
		if (dwarf_attr(&r, DW_AT_upper_bound, &a) && dwarf_formudata(&a, &upper) == 0)
			count = upper + 1;
	} while (dwarf_siblingof(&r, &r) == 0);
	if (!count || !type_of(type, &et) || !size_of(&et, &esize) ||
	    (size_t)snprintf(sub, sizeof(sub), "%s[]", path) >= sizeof(sub))
		return;
	add(wk, sub, wk->loc, off, esize, count);
	expand(wk, sub, off, &et, depth + 1);
}

static void expand(struct walk *wk, const char *path, long off, Dwarf_Die *type, int depth)
{
	if (depth >= MEMBER_DEPTH)
		return;
	switch (dwarf_tag(type)) {
	case DW_TAG_structure_type:
	case DW_TAG_union_type:
		expand_members(wk, path, off, type, depth);
		break;
	case DW_TAG_array_type:
		expand_array(wk, path, off, type, depth);
		break;
	}
}

/* Where a variable lives, over its whole location list; -1 for a static
 * one (DW_OP_addr: not in the frame).  A slot is DW_OP_fbreg N (from the
 * CFA: the frame base is DW_OP_call_frame_cfa); in a frame the prologue
 * realigns, gcc places what it cannot from the CFA with DW_OP_breg7 (from
 * the stack pointer) or DW_OP_breg6 (from the frame pointer). */
static int locate(Dwarf_Die *var, long *off)
{
	unsigned int mem = 0, other = 0;
	Dwarf_Addr base, start, end;
	int kind = -1, k;
	Dwarf_Attribute a;
	Dwarf_Op *ops;
	size_t nops;
	ptrdiff_t pos = 0;
	bool multi = false;

	if (!dwarf_attr(var, DW_AT_location, &a))
		return KW_SVAR_NONE;
	while ((pos = dwarf_getlocations(&a, pos, &base, &start, &end, &ops, &nops)) > 0) {
		if (nops && ops[0].atom == DW_OP_addr)
			return -1;
		k = nops != 1 ? -1 :
		    ops[0].atom == DW_OP_fbreg ? KW_SVAR_STACK :
		    ops[0].atom == DW_OP_breg7 ? KW_SVAR_SP :
		    ops[0].atom == DW_OP_breg6 ? KW_SVAR_FP : -1;
		if (k >= 0) {
			long o = (long)(int64_t)ops[0].number;

			multi |= mem && (o != *off || k != kind);
			*off = o;
			kind = k;
			mem++;
		} else if (nops) {
			other++;
		}
	}
	if (multi)
		return KW_SVAR_MULTI;
	if (mem && kind != KW_SVAR_STACK)
		return kind;	/* a realigned frame's: no part-N form */
	if (mem)
		return other ? KW_SVAR_PART : KW_SVAR_STACK;
	return other ? KW_SVAR_REG : KW_SVAR_NONE;
}

static void add_var(struct walk *wk, Dwarf_Die *var)
{
	const char *name = dwarf_diename(var);
	int loc;
	unsigned long size;
	Dwarf_Die type;
	long off = 0;

	if (!name || !type_of(var, &type) || !size_of(&type, &size))
		return;
	loc = locate(var, &off);
	if (loc < 0)
		return;
	wk->entries = 0;
	add(wk, name, loc, off, size, 0);
	wk->loc = loc;
	if (loc == KW_SVAR_STACK || loc == KW_SVAR_PART || loc == KW_SVAR_SP || loc == KW_SVAR_FP)
		expand(wk, name, off, &type, 0);
}

/* A function's variables, and those of its lexical blocks. */
static void add_scope(struct walk *wk, Dwarf_Die *scope)
{
	Dwarf_Die c;

	if (dwarf_child(scope, &c) != 0)
		return;
	do {
		switch (dwarf_tag(&c)) {
		case DW_TAG_variable:
		case DW_TAG_formal_parameter:
			add_var(wk, &c);
			break;
		case DW_TAG_lexical_block:
			add_scope(wk, &c);
			break;
		}
	} while (!wk->err && dwarf_siblingof(&c, &c) == 0);
}

static bool frame_base_is_cfa(Dwarf_Die *fn)
{
	Dwarf_Attribute a;
	Dwarf_Op *ops;
	size_t nops;

	return dwarf_attr_integrate(fn, DW_AT_frame_base, &a) &&
	       dwarf_getlocation(&a, &ops, &nops) == 0 && nops == 1 &&
	       ops[0].atom == DW_OP_call_frame_cfa;
}

/* Where @fn is entered: DW_AT_entry_pc or DW_AT_low_pc; else, for a
 * function gcc split into a hot part and a .cold one (DW_AT_ranges only),
 * the start of the range an ELF function symbol other than FUNC.cold
 * starts at. */
static bool func_entry(struct walk *wk, Dwarf_Die *fn, Dwarf_Addr *entry)
{
	Dwarf_Addr base, start, end;
	ptrdiff_t pos = 0;

	if (dwarf_entrypc(fn, entry) == 0)
		return true;
	while ((pos = dwarf_ranges(fn, pos, &base, &start, &end)) > 0) {
		GElf_Off symoff = 1;
		GElf_Sym s;
		const char *sym = dwfl_module_addrinfo(wk->mod, start + wk->bias, &symoff, &s,
						       NULL, NULL, NULL);
		size_t n = sym ? strlen(sym) : 0;

		if (sym && symoff == 0 && !(n > 5 && strcmp(sym + n - 5, ".cold") == 0)) {
			*entry = start;
			return true;
		}
	}
	return false;
}

static void add_function(struct walk *wk, Dwarf_Die *fn)
{
	const char *sym, *name = dwarf_diename(fn);
	GElf_Off symoff = 1;
	Dwarf_Addr entry;
	GElf_Sym s;

	if (!name || !func_entry(wk, fn, &entry) || !frame_base_is_cfa(fn))
		return;
	sym = dwfl_module_addrinfo(wk->mod, entry + wk->bias, &symoff, &s, NULL, NULL, NULL);
	wk->func = sym && symoff == 0 ? sym : name;
	add_scope(wk, fn);
}

/* The next function symbol named @func, or a clone gcc made of it
 * (func.constprop.0), after index *@i: its address, or 0 when there is
 * none left.  Start with *@i = 0. */
static GElf_Addr next_func_sym(Dwfl_Module *mod, const char *func, int *i)
{
	int n = dwfl_module_getsymtab(mod);

	while (++*i < n) {
		GElf_Addr addr;
		GElf_Sym s;
		const char *name = dwfl_module_getsym_info(mod, *i, &s, &addr, NULL, NULL, NULL);

		if (name && GELF_ST_TYPE(s.st_info) == STT_FUNC &&
		    (strcmp(name, func) == 0 || kw_svar_clone_of(name, func)))
			return addr;
	}
	return 0;
}

/* The functions of one CU: all of them, or the one entered at @entry. */
static void add_cu(struct walk *wk, Dwarf_Die *cu, Dwarf_Addr entry)
{
	Dwarf_Addr pc;
	Dwarf_Die c;

	if (dwarf_child(cu, &c) != 0)
		return;
	do {
		if (dwarf_tag(&c) == DW_TAG_subprogram &&
		    (!entry || (func_entry(wk, &c, &pc) && pc + wk->bias == entry)))
			add_function(wk, &c);
	} while (!wk->err && dwarf_siblingof(&c, &c) == 0);
}

/* The function(s) named @func: its ELF symbols, each looked up in the CU
 * that covers its address (.debug_aranges), not the whole file. */
static void add_named(struct walk *wk, const char *func)
{
	GElf_Addr addr;
	Dwarf_Die *cu;
	int i = 0;

	while (!wk->err && (addr = next_func_sym(wk->mod, func, &i))) {
		cu = dwfl_module_addrdie(wk->mod, addr, &wk->bias);
		if (cu)
			add_cu(wk, cu, addr);
	}
}

/* Report @path alone to a new offline session; NULL with @err set if it
 * cannot be read. */
static Dwfl *open_offline(const char *path, Dwfl_Module **mod, char *err, size_t errlen)
{
	Dwfl *dwfl = dwfl_begin(&offline_callbacks);

	if (!dwfl) {
		snprintf(err, errlen, "libdw: %s", dwfl_errmsg(-1));
		return NULL;
	}
	dwfl_report_begin(dwfl);
	*mod = dwfl_report_offline(dwfl, path, path, -1);
	dwfl_report_end(dwfl, NULL, NULL);
	if (!*mod) {
		snprintf(err, errlen, "%s: %s", path, dwfl_errmsg(-1));
		dwfl_end(dwfl);
		return NULL;
	}
	return dwfl;
}

/* The CFA rule at @pc: %rsp + *dist, or -EOPNOTSUPP; *end is where the row
 * covering @pc ends. */
static int cfa_at(Dwarf_CFI *cfi, Dwarf_Addr pc, long *dist, Dwarf_Addr *end)
{
	Dwarf_Frame *fr;
	Dwarf_Addr start;
	Dwarf_Op *ops;
	size_t nops;
	int r = -EOPNOTSUPP;

	if (dwarf_cfi_addrframe(cfi, pc, &fr) != 0)
		return -ENOENT;
	if (dwarf_frame_cfa(fr, &ops, &nops) == 0 && nops == 1) {
		if (ops[0].atom == DW_OP_bregx && ops[0].number == 7) {
			*dist = (long)(int64_t)ops[0].number2;
			r = 0;
		} else if (ops[0].atom == DW_OP_breg7) {
			*dist = (long)(int64_t)ops[0].number;
			r = 0;
		}
	}
	if (dwarf_frame_info(fr, &start, end, NULL) < 0)
		*end = pc + 1;
	free(fr);
	return r;
}

int kw_dwarf_sp_dist(const char *path, const char *func, unsigned long off, long *dist,
		      char *err, size_t errlen)
{
	Dwarf_Addr bias, end, next_end;
	Dwfl_Module *mod;
	Dwarf_CFI *cfi;
	GElf_Addr addr;
	long next;
	Dwfl *dwfl;
	int r, i = 0;

	dwfl = open_offline(path, &mod, err, errlen);
	if (!dwfl)
		return -ENOENT;
	r = -ENOENT;
	addr = next_func_sym(mod, func, &i);
	if (!addr) {
		snprintf(err, errlen, "%s: no function %s", path, func);
		goto out;
	}
	cfi = dwfl_module_dwarf_cfi(mod, &bias);
	if (!cfi)
		cfi = dwfl_module_eh_cfi(mod, &bias);
	if (!cfi) {
		snprintf(err, errlen, "%s: no call frame information (.debug_frame, .eh_frame)", path);
		r = -ENODATA;
		goto out;
	}
	r = cfa_at(cfi, addr + off - bias, dist, &end);
	if (r == -ENOENT) {
		snprintf(err, errlen, "%s+0x%lx: no call frame information there", func, off);
		goto out;
	}
	if (r < 0) {
		snprintf(err, errlen, "%s+0x%lx: the CFA is not the stack pointer plus an offset there "
			 "(a frame pointer?): leave --at out and let the kernel pick", func, off);
		goto out;
	}
	/* The watch is armed after the instruction at @off: the stack pointer
	 * must not move across it, which a new CFA rule close after says it
	 * may (x86 instructions are at most 15 bytes). */
	if (end - (addr + off - bias) <= 15 && cfa_at(cfi, end, &next, &next_end) == 0 &&
	    next != *dist) {
		snprintf(err, errlen, "%s+0x%lx: the stack pointer moves at or right after it; "
			 "pick an instruction a little further on", func, off);
		r = -EINVAL;
	}
out:
	dwfl_end(dwfl);
	return r;
}

int kw_dwarf_stackvars(const char *path, const char *func, struct kw_stackvars *sv, char *err,
			size_t errlen)
{
	struct walk wk = { .sv = sv };
	Dwarf_Die *cu = NULL;
	Dwfl *dwfl;
	int r = 0;

	dwfl = open_offline(path, &wk.mod, err, errlen);
	if (!dwfl)
		return -ENOENT;
	if (!dwfl_module_getdwarf(wk.mod, &wk.bias)) {
		snprintf(err, errlen, "%s: no DWARF debug information (%s)", path, dwfl_errmsg(-1));
		r = -ENODATA;
		goto out;
	}
	if (func)
		add_named(&wk, func);
	while (!func && !wk.err && (cu = dwfl_module_nextcu(wk.mod, cu, &wk.bias)))
		add_cu(&wk, cu, 0);
	r = wk.err;
	if (r < 0)
		snprintf(err, errlen, "%s: %s", path, strerror(-r));
out:
	dwfl_end(dwfl);
	return r;
}
