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
#include "asanframe.h"
#include "stackvars.h"
#include "x86insn.h"

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
	Dwarf_CFI *cfi;		/* for the KASAN frame's place */
	Dwarf_Addr cfi_bias;
	bool have_asan;		/* the function being walked has a KASAN frame */
	struct kw_asan_frame asan;
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
	/* No location: in KASAN's stack frame, maybe (gcc 12 drops those). */
	if (loc == KW_SVAR_NONE && wk->have_asan) {
		int line = 0, l;

		dwarf_decl_line(var, &line);
		if (kw_asan_frame_var(&wk->asan, name, line, size, &l, &off))
			loc = l;
	}
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
	wk->have_asan = kw_asan_frame_find(wk->mod, wk->cfi, wk->cfi_bias, entry + wk->bias,
					   &wk->asan);
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

int kw_dwarf_sp_offset(const char *path, const char *func, unsigned long at, long cfa_off,
		       bool sp_rel, unsigned long *so, char *err, size_t errlen)
{
	long dist;
	int r;

	if (sp_rel) {
		snprintf(err, errlen, "%.200s: the variable is placed from the stack pointer of a "
			 "frame the prologue realigns (so=%ld once it is done): a point of one's own "
			 "cannot be used; leave it to the kernel", func, cfa_off);
		return -EINVAL;
	}
	r = kw_dwarf_sp_dist(path, func, at, &dist, err, errlen);
	if (r < 0)
		return r;
	if (dist + cfa_off < 0) {
		snprintf(err, errlen, "%.200s+0x%lx: the variable (CFA%ld) is below the stack "
			 "pointer (CFA-%ld) there: the frame is not set up yet", func, at, cfa_off,
			 dist);
		return -EINVAL;
	}
	*so = dist + cfa_off;
	return 0;
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
	wk.cfi = dwfl_module_dwarf_cfi(wk.mod, &wk.cfi_bias);
	if (!wk.cfi)
		wk.cfi = dwfl_module_eh_cfi(wk.mod, &wk.cfi_bias);
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

/*
 * The point after a source line (kw_dwarf_line_point): the function's
 * instructions decoded over all its ranges, each given a line, and the
 * control flow among them.
 */
#define LP_NONE		-1	/* no successor: int3, hlt, a fall off the end */
#define LP_OUT		-2	/* leaves the function: ret, a tail call */
#define LP_MAX_SYMS	8	/* functions of one name looked at */
#define LP_MAX_EXITS	3	/* named in a refusal */

enum { LP_FWD = 1, LP_BACK = 2 };

struct lp_range {
	Dwarf_Addr lo, hi;
};

/* A function inlined into FUNC: its code is the line of its call. */
struct lp_inline {
	Dwarf_Addr lo, hi;
	const char *file;
	unsigned int line;
};

struct lp_insn {
	Dwarf_Addr addr;
	struct kw_insn in;
	int succ[2];		/* instruction indexes, LP_NONE or LP_OUT */
	unsigned int line;	/* its line, in any file; 0 if none */
	bool ours;		/* the line is in a file @file matches */
	unsigned char mark;	/* LP_FWD, LP_BACK */
};

struct lp {
	Dwfl_Module *mod;
	Dwarf_Addr bias;
	const char *file, *sym;
	const char *comp_dir;	/* the CU's, for a relative source path */
	char *err;
	size_t errlen;
	bool rel;		/* ET_REL (a .ko): branches outside are relocated */
	Dwarf_Die fn;
	Dwarf_Addr entry, entry_end;	/* DWARF addresses; the symbol's part */
	Dwarf_Lines *lines;
	size_t nlines;
	Dwarf_Files *files;
	struct lp_range *ranges;
	size_t nranges;
	struct lp_inline *inl;
	size_t ninl, inlcap;
	struct lp_insn *ins;
	size_t n, cap;
	unsigned int lo, hi;	/* the lines FUNC has code at, in @file */
};

/* @src ends with @file, on a path component boundary. */
static bool path_ends(const char *src, const char *file)
{
	size_t ls = strlen(src), lf = strlen(file);

	if (!lf || lf > ls || strcmp(src + ls - lf, file) != 0)
		return false;
	return ls == lf || file[0] == '/' || src[ls - lf - 1] == '/';
}

/* The same, a relative @src taken from the CU's directory too: the
 * kernel's DWARF says mm/slub.c, a developer may give /src/linux/mm/slub.c. */
static bool file_matches(const char *src, const char *file, const char *comp_dir)
{
	char full[4096];

	if (path_ends(src, file))
		return true;
	return src[0] != '/' && file[0] == '/' && comp_dir &&
	       (size_t)snprintf(full, sizeof(full), "%s/%s", comp_dir, src) < sizeof(full) &&
	       path_ends(full, file);
}

static void lp_free(struct lp *lp)
{
	free(lp->ranges);
	free(lp->inl);
	free(lp->ins);
	lp->ranges = NULL;
	lp->inl = NULL;
	lp->ins = NULL;
	lp->nranges = lp->ninl = lp->inlcap = lp->n = lp->cap = 0;
}

static bool in_ranges(const struct lp *lp, Dwarf_Addr a)
{
	size_t i;

	for (i = 0; i < lp->nranges; i++)
		if (a >= lp->ranges[i].lo && a < lp->ranges[i].hi)
			return true;
	return false;
}

static int lp_get_ranges(struct lp *lp)
{
	Dwarf_Addr base, start, end;
	ptrdiff_t pos = 0;
	void *p;

	while ((pos = dwarf_ranges(&lp->fn, pos, &base, &start, &end)) > 0) {
		if (start >= end)
			continue;
		p = realloc(lp->ranges, (lp->nranges + 1) * sizeof(*lp->ranges));
		if (!p)
			return -ENOMEM;
		lp->ranges = p;
		lp->ranges[lp->nranges++] = (struct lp_range){ start, end };
		if (lp->entry >= start && lp->entry < end)
			lp->entry_end = end;
	}
	return lp->nranges ? 0 : -ENODATA;
}

/* The functions inlined into @scope (through its lexical blocks), each
 * as a whole: what they inline in turn is theirs. */
static int lp_get_inlines(struct lp *lp, Dwarf_Die *scope)
{
	Dwarf_Addr base, start, end;
	Dwarf_Attribute a;
	Dwarf_Word fileno, line;
	const char *file;
	ptrdiff_t pos;
	Dwarf_Die c;
	void *p;
	int r;

	if (dwarf_child(scope, &c) != 0)
		return 0;
	do {
		if (dwarf_tag(&c) == DW_TAG_lexical_block) {
			r = lp_get_inlines(lp, &c);
			if (r < 0)
				return r;
			continue;
		}
		if (dwarf_tag(&c) != DW_TAG_inlined_subroutine)
			continue;
		file = NULL;
		line = 0;
		if (dwarf_attr(&c, DW_AT_call_file, &a) && dwarf_formudata(&a, &fileno) == 0)
			file = dwarf_filesrc(lp->files, fileno, NULL, NULL);
		if (dwarf_attr(&c, DW_AT_call_line, &a))
			dwarf_formudata(&a, &line);
		pos = 0;
		while ((pos = dwarf_ranges(&c, pos, &base, &start, &end)) > 0) {
			if (lp->ninl == lp->inlcap) {
				lp->inlcap = lp->inlcap ? 2 * lp->inlcap : 16;
				p = realloc(lp->inl, lp->inlcap * sizeof(*lp->inl));
				if (!p)
					return -ENOMEM;
				lp->inl = p;
			}
			lp->inl[lp->ninl++] = (struct lp_inline){ start, end, file, line };
		}
	} while (dwarf_siblingof(&c, &c) == 0);
	return 0;
}

/* The line of the code at @a: the call's, in what was inlined; else the
 * line table's last row at or before it (several rows at one address: the
 * last is the one that holds). */
static void line_at(const struct lp *lp, Dwarf_Addr a, const char **src, unsigned int *line)
{
	size_t lo = 0, hi = lp->nlines, i;
	Dwarf_Addr la;
	Dwarf_Line *l;
	bool end;
	int no;

	*src = NULL;
	*line = 0;
	for (i = 0; i < lp->ninl; i++) {
		if (a >= lp->inl[i].lo && a < lp->inl[i].hi) {
			*src = lp->inl[i].file;
			*line = lp->inl[i].line;
			return;
		}
	}
	while (lo < hi) {	/* the first row after @a */
		size_t mid = lo + (hi - lo) / 2;

		l = dwarf_onesrcline(lp->lines, mid);
		if (l && dwarf_lineaddr(l, &la) == 0 && la <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return;
	l = dwarf_onesrcline(lp->lines, lo - 1);
	if (!l || dwarf_lineendsequence(l, &end) != 0 || end || dwarf_lineno(l, &no) != 0 || no <= 0)
		return;
	*src = dwarf_linesrc(l, NULL, NULL);
	*line = no;
}

/* Any code of FUNC from @file: its line rows, and the calls of what it
 * inlines.  Sets lp->lo and lp->hi, the lines that have some. */
static bool lp_has_file(struct lp *lp)
{
	const char *src;
	unsigned int line;
	Dwarf_Addr a;
	Dwarf_Line *l;
	size_t i;

	lp->lo = ~0U;
	lp->hi = 0;
	for (i = 0; i < lp->nlines; i++) {
		l = dwarf_onesrcline(lp->lines, i);
		if (!l || dwarf_lineaddr(l, &a) != 0 || !in_ranges(lp, a))
			continue;
		line_at(lp, a, &src, &line);
		if (!line || !src || !file_matches(src, lp->file, lp->comp_dir))
			continue;
		if (line < lp->lo)
			lp->lo = line;
		if (line > lp->hi)
			lp->hi = line;
	}
	return lp->hi != 0;
}

/* "FUNC+0xOFF", or the address where the symbol does not cover it. */
static const char *where(const struct lp *lp, Dwarf_Addr a, char *buf, size_t n)
{
	if (a >= lp->entry && a < lp->entry_end)
		snprintf(buf, n, "%.200s+0x%" PRIx64, lp->sym, (uint64_t)(a - lp->entry));
	else
		snprintf(buf, n, "%#" PRIx64 " (in %.200s's other part)", (uint64_t)(a + lp->bias),
			 lp->sym);
	return buf;
}

static int by_addr(const void *a, const void *b)
{
	const struct lp_insn *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Decode every range of FUNC, in address order, each instruction with
 * its line. */
static int lp_decode(struct lp *lp)
{
	char at[320];
	size_t i;
	void *p;
	int r;

	for (i = 0; i < lp->nranges; i++) {
		Dwarf_Addr a = lp->ranges[i].lo + lp->bias, sbias, pc;
		Elf_Scn *scn = dwfl_module_address_section(lp->mod, &a, &sbias);
		Elf_Data *d = scn ? elf_getdata(scn, NULL) : NULL;
		const uint8_t *code;

		if (!d || !d->d_buf || a + (lp->ranges[i].hi - lp->ranges[i].lo) > d->d_size) {
			snprintf(lp->err, lp->errlen, "%s: its machine code is not in the file "
				 "(debug information only?)", where(lp, lp->ranges[i].lo, at, sizeof(at)));
			return -ENODATA;
		}
		code = (const uint8_t *)d->d_buf + a;
		for (pc = lp->ranges[i].lo; pc < lp->ranges[i].hi; ) {
			struct lp_insn *x;
			const uint8_t *b = code + (pc - lp->ranges[i].lo);

			if (lp->n == lp->cap) {
				lp->cap = lp->cap ? 2 * lp->cap : 256;
				p = realloc(lp->ins, lp->cap * sizeof(*lp->ins));
				if (!p)
					return -ENOMEM;
				lp->ins = p;
			}
			x = &lp->ins[lp->n];
			memset(x, 0, sizeof(*x));
			x->addr = pc;
			r = kw_insn_decode(b, lp->ranges[i].hi - pc, pc, &x->in);
			if (r < 0) {
				snprintf(lp->err, lp->errlen, "%s: an instruction the decoder does not "
					 "know (%02x %02x %02x ...)", where(lp, pc, at, sizeof(at)),
					 b[0], lp->ranges[i].hi - pc > 1 ? b[1] : 0,
					 lp->ranges[i].hi - pc > 2 ? b[2] : 0);
				return r;
			}
			pc += x->in.len;
			lp->n++;
		}
	}
	qsort(lp->ins, lp->n, sizeof(*lp->ins), by_addr);
	for (i = 0; i < lp->n; i++) {
		const char *src;

		line_at(lp, lp->ins[i].addr, &src, &lp->ins[i].line);
		lp->ins[i].ours = lp->ins[i].line && src &&
				  file_matches(src, lp->file, lp->comp_dir);
	}
	return 0;
}

static long lp_index(const struct lp *lp, Dwarf_Addr a)
{
	size_t lo = 0, hi = lp->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (lp->ins[mid].addr == a)
			return mid;
		if (lp->ins[mid].addr < a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

/* Where each instruction can go.  A branch out of FUNC's ranges is a tail
 * call; in a .ko a branch to the next byte is one too, to a symbol its
 * relocation names (the file has 0 there). */
static int lp_edges(struct lp *lp)
{
	char at[320];
	size_t i;

	for (i = 0; i < lp->n; i++) {
		struct lp_insn *x = &lp->ins[i];
		Dwarf_Addr next = x->addr + x->in.len;
		long k;

		x->succ[0] = x->succ[1] = LP_NONE;
		switch (x->in.kind) {
		case KW_INSN_RET:
			x->succ[0] = LP_OUT;
			continue;
		case KW_INSN_STOP:
		case KW_INSN_IJMP:
			continue;
		case KW_INSN_NEXT:
		case KW_INSN_JCC:
			k = lp_index(lp, next);
			x->succ[0] = k >= 0 ? (int)k : LP_NONE;	/* off the end: did not return */
			if (x->in.kind == KW_INSN_NEXT)
				continue;
			break;
		case KW_INSN_JMP:
			break;
		}
		if ((lp->rel && x->in.rel == 0 && x->in.rel_len == 4) ||
		    !in_ranges(lp, x->in.target)) {
			x->succ[1] = LP_OUT;
			continue;
		}
		k = lp_index(lp, x->in.target);
		if (k < 0) {
			snprintf(lp->err, lp->errlen, "%s: a jump into the middle of an instruction "
				 "(%#" PRIx64 "): the code is not decoded right",
				 where(lp, x->addr, at, sizeof(at)), (uint64_t)(x->in.target + lp->bias));
			return -EILSEQ;
		}
		x->succ[1] = k;
	}
	return 0;
}

/* Mark what the line's instructions reach (LP_FWD), and what reaches
 * them (LP_BACK): the region is what has both. */
static int lp_mark(struct lp *lp, unsigned int line)
{
	int *stack = malloc(lp->n * sizeof(*stack));
	size_t i, top = 0;
	bool changed = true;
	int j, k;

	if (!stack)
		return -ENOMEM;
	for (i = 0; i < lp->n; i++) {
		lp->ins[i].mark = 0;
		if (lp->ins[i].ours && lp->ins[i].line == line) {
			lp->ins[i].mark = LP_FWD | LP_BACK;
			stack[top++] = i;
		}
	}
	while (top) {
		k = stack[--top];
		for (j = 0; j < 2; j++) {
			int s = lp->ins[k].succ[j];

			if (s >= 0 && !(lp->ins[s].mark & LP_FWD)) {
				lp->ins[s].mark |= LP_FWD;
				stack[top++] = s;
			}
		}
	}
	free(stack);
	/* Backward: most edges go forward, so a sweep from the end settles in
	 * about one pass per loop nested. */
	while (changed) {
		changed = false;
		for (i = lp->n; i-- > 0; ) {
			struct lp_insn *x = &lp->ins[i];

			if (x->mark & LP_BACK)
				continue;
			for (j = 0; j < 2; j++) {
				if (x->succ[j] >= 0 && (lp->ins[x->succ[j]].mark & LP_BACK)) {
					x->mark |= LP_BACK;
					changed = true;
					break;
				}
			}
		}
	}
	return 0;
}

#define IN_REGION(x)	(((x)->mark & (LP_FWD | LP_BACK)) == (LP_FWD | LP_BACK))

/* Where control goes from the line's region: the one place, or a refusal. */
static int lp_exit(struct lp *lp, unsigned int line, long *point)
{
	char at[LP_MAX_EXITS][320], ij[320];
	long exits[LP_MAX_EXITS + 1];
	size_t i, nexit = 0;
	int j;

	for (i = 0; i < lp->n; i++) {
		struct lp_insn *x = &lp->ins[i];

		if ((x->mark & LP_FWD) && x->in.kind == KW_INSN_IJMP) {
			snprintf(lp->err, lp->errlen, "%s: an indirect jump (a switch's table?) "
				 "reachable from line %u: where it goes is not known",
				 where(lp, x->addr, ij, sizeof(ij)), line);
			return -EOPNOTSUPP;
		}
		if (!IN_REGION(x))
			continue;
		for (j = 0; j < 2; j++) {
			long s = x->succ[j];
			size_t e;

			if (s < 0 || IN_REGION(&lp->ins[s]))
				continue;
			for (e = 0; e < nexit && exits[e] != s; e++)
				;
			if (e == nexit && nexit <= LP_MAX_EXITS)
				exits[nexit++] = s;
		}
	}
	if (!nexit) {
		snprintf(lp->err, lp->errlen, "nothing of %s runs after line %u: every path "
			 "from it returns or ends there", lp->sym, line);
		return -EOPNOTSUPP;
	}
	if (nexit > 1) {
		for (i = 0; i < 2; i++)
			where(lp, lp->ins[exits[i]].addr, at[i], sizeof(at[i]));
		snprintf(lp->err, lp->errlen, "after line %u of %s, control goes on at %s (line %u) "
			 "or at %s (line %u)%s: no single point follows the line on every path "
			 "(an if's condition, a loop that may run no times, code on two paths); "
			 "name a later line", line, lp->sym, at[0], lp->ins[exits[0]].line, at[1],
			 lp->ins[exits[1]].line, nexit > 2 ? " and elsewhere" : "");
		return -ENOTUNIQ;
	}
	*point = exits[0];
	return 0;
}

/* The DIE of the function entered at module address @addr. */
static bool lp_find_die(struct lp *lp, GElf_Addr addr, Dwarf_Die *cu_out)
{
	struct walk wk = { .mod = lp->mod };
	Dwarf_Die *cu = dwfl_module_addrdie(lp->mod, addr, &wk.bias);
	Dwarf_Addr pc;
	Dwarf_Die c;

	if (!cu || dwarf_child(cu, &c) != 0)
		return false;
	lp->bias = wk.bias;
	do {
		if (dwarf_tag(&c) == DW_TAG_subprogram && func_entry(&wk, &c, &pc) &&
		    pc + wk.bias == addr) {
			lp->fn = c;
			lp->entry = pc;
			*cu_out = *cu;
			return true;
		}
	} while (dwarf_siblingof(&c, &c) == 0);
	return false;
}

/* Set up @lp for the function at @addr named @name: its ranges, lines,
 * inlined calls.  1 if it has code from lp->file, 0 if not, or -errno. */
static int lp_load(struct lp *lp, GElf_Addr addr, const char *name)
{
	Dwarf_Attribute a;
	Dwarf_Die cu;
	int r;

	lp_free(lp);
	lp->sym = name;
	if (!lp_find_die(lp, addr, &cu))
		return 0;
	lp->comp_dir = dwarf_formstring(dwarf_attr(&cu, DW_AT_comp_dir, &a));
	if (dwarf_getsrclines(&cu, &lp->lines, &lp->nlines) != 0 ||
	    dwarf_getsrcfiles(&cu, &lp->files, NULL) != 0) {
		snprintf(lp->err, lp->errlen, "%s: no line table (%s)", name, dwarf_errmsg(-1));
		return -ENODATA;
	}
	lp->entry_end = lp->entry;
	r = lp_get_ranges(lp);
	if (r == 0)
		r = lp_get_inlines(lp, &lp->fn);
	if (r < 0) {
		snprintf(lp->err, lp->errlen, "%s: %s", name, strerror(-r));
		return r;
	}
	return lp_has_file(lp);
}

/* The function symbols named @func, or gcc's clones of it when there are
 * none: up to LP_MAX_SYMS, with their names. */
static int lp_symbols(Dwfl_Module *mod, const char *func, GElf_Addr *addr, const char **name)
{
	int n = dwfl_module_getsymtab(mod), i, pass, k = 0;

	for (pass = 0; pass < 2 && !k; pass++) {
		for (i = 1; i < n && k < LP_MAX_SYMS; i++) {
			GElf_Sym s;
			GElf_Addr a;
			const char *sn = dwfl_module_getsym_info(mod, i, &s, &a, NULL, NULL, NULL);

			if (!sn || GELF_ST_TYPE(s.st_info) != STT_FUNC ||
			    (pass == 0 ? strcmp(sn, func) != 0 : !kw_svar_clone_of(sn, func)))
				continue;
			addr[k] = a;
			name[k++] = sn;
		}
	}
	return k;
}

int kw_dwarf_line_point(const char *path, const char *func, const char *file, unsigned int line,
			unsigned long *off, char *err, size_t errlen)
{
	struct lp lp = { .file = file, .err = err, .errlen = errlen };
	GElf_Addr addr[LP_MAX_SYMS], found_addr = 0;
	const char *name[LP_MAX_SYMS], *found = NULL, *decl;
	Dwarf_Die cu;
	char note[256] = "", at[512];
	unsigned int target = 0;
	GElf_Ehdr eh;
	Dwarf_Addr b;
	Dwfl *dwfl;
	Elf *elf;
	long point;
	size_t i;
	int r, n;

	if (errlen)
		err[0] = '\0';
	if (!file[0] || !line) {
		snprintf(err, errlen, "want FILE:LINE, a line from 1 on");
		return -EINVAL;
	}
	dwfl = open_offline(path, &lp.mod, err, errlen);
	if (!dwfl)
		return -ENOENT;
	r = -ENODATA;
	if (!dwfl_module_getdwarf(lp.mod, &b)) {
		snprintf(err, errlen, "%s: no DWARF debug information (%s)", path, dwfl_errmsg(-1));
		goto out;
	}
	elf = dwfl_module_getelf(lp.mod, &b);
	lp.rel = elf && gelf_getehdr(elf, &eh) && eh.e_type == ET_REL;

	/* The function: by its name, or its clones'; of several (static
	 * functions of one name, clones), the one with code from @file. */
	r = -ENOENT;
	n = lp_symbols(lp.mod, func, addr, name);
	if (!n) {
		snprintf(err, errlen, "%s: no function %s", path, func);
		goto out;
	}
	for (i = 0; i < (size_t)n; i++) {
		r = lp_load(&lp, addr[i], name[i]);
		if (r < 0)
			goto out;
		if (!r)
			continue;
		if (found) {
			snprintf(err, errlen, "%s and %s at %#" PRIx64 " both have code from %s: "
				 "name one by its symbol", found, name[i], (uint64_t)addr[i], file);
			r = -ENOTUNIQ;
			goto out;
		}
		found = name[i];
		found_addr = addr[i];
	}
	if (!found) {
		decl = lp_find_die(&lp, addr[0], &cu) ? dwarf_decl_file(&lp.fn) : NULL;
		snprintf(err, errlen, "%s has no code from a file %s (its source: %s)", name[0], file,
			 decl ? decl : "unknown");
		r = -ENOENT;
		goto out;
	}
	r = lp_load(&lp, found_addr, found);
	if (r < 0)
		goto out;
	if (strcmp(found, func) != 0)
		snprintf(note, sizeof(note), "%s is compiled only as gcc's clone %s: its line %u",
			 func, found, line);

	/* The line: the span FUNC has code in, from its declaration on. */
	{
		int decl_line = 0;
		const char *df = dwarf_decl_file(&lp.fn);
		unsigned int first = lp.lo;

		if (df && file_matches(df, file, lp.comp_dir) && dwarf_decl_line(&lp.fn, &decl_line) == 0 &&
		    decl_line > 0 && (unsigned int)decl_line < first)
			first = decl_line;
		if (line < first || line > lp.hi) {
			snprintf(err, errlen, "line %u of %s is outside %s, which has lines %u-%u",
				 line, file, found, first, lp.hi);
			r = -ERANGE;
			goto out;
		}
	}
	r = lp_decode(&lp);
	if (r == 0)
		r = lp_edges(&lp);
	if (r < 0)
		goto out;
	for (i = 0; i < lp.n; i++)
		if (lp.ins[i].ours && lp.ins[i].line >= line &&
		    (!target || lp.ins[i].line < target))
			target = lp.ins[i].line;
	if (!target) {		/* code in the span, but none decoded there */
		snprintf(err, errlen, "%s has no code at line %u of %s or after", found, line, file);
		r = -ERANGE;
		goto out;
	}
	if (target != line)
		snprintf(note + strlen(note), sizeof(note) - strlen(note),
			 "%sline %u has no code in %s: after line %u, the next that has",
			 note[0] ? "; " : "", line, found, target);

	r = lp_mark(&lp, target);
	if (r == 0)
		r = lp_exit(&lp, target, &point);
	if (r == 0 && (lp.ins[point].addr < lp.entry || lp.ins[point].addr >= lp.entry_end)) {
		snprintf(err, errlen, "the point after line %u is %s: fo= names only the part "
			 "of %s its symbol covers", target,
			 where(&lp, lp.ins[point].addr, at, sizeof(at)), found);
		r = -EOPNOTSUPP;
	}
	if (r < 0) {
		/* The refusal is about the line moved to: say so first. */
		if (note[0]) {
			snprintf(at, sizeof(at), "%s", err);
			snprintf(err, errlen, "%s; %s", note, at);
		}
		goto out;
	}
	*off = lp.ins[point].addr - lp.entry;
	snprintf(err, errlen, "%s", note);
out:
	lp_free(&lp);
	dwfl_end(dwfl);
	return r;
}
