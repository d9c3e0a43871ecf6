// SPDX-License-Identifier: GPL-2.0
/*
 * Stack variables by name: the resolver on DWARF that the compiler wrote
 * (frames.c, built at -O2 with and without frame pointers), checked
 * against where the compiler put each variable at run time; the index
 * file's round trip and its malformed forms; each refusal.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "dwarfvars.h"
#include "kwatchctl.h"
#include "stackvars.h"
#include "x86insn.h"
#include "../srcline.h"

static const char *const fixtures[] = { KW_FIXTURES };

static void load(const char *elf, struct kw_stackvars *sv)
{
	char err[512] = "";
	int r;

	memset(sv, 0, sizeof(*sv));
	r = kw_dwarf_stackvars(elf, NULL, sv, err, sizeof(err));
	if (r < 0)
		fail_msg("%s: %s", elf, err);
	kw_stackvars_sort(sv);
}

static int resolve(const struct kw_stackvars *sv, const char *func, const char *var,
		   struct kw_svar_watch *w)
{
	char why[512] = "";
	int r = kw_stackvars_resolve(sv, func, var, w, why, sizeof(why));

	if (r < 0) {
		print_message("  %s %s: %s\n", func, var, why);
		assert_true(why[0]);		/* every refusal says why */
	}
	return r;
}

/* "AT FUNC VAR OFFSET SO": the variable from the stack pointer after the
 * nop at FUNC+OFFSET.  The CFI's distance there plus the DWARF offset is SO;
 * where the CFA is %rbp-based (frame pointers), the resolver refuses. */
static int at_case(const char *elf, const struct kw_stackvars *sv, const char *line)
{
	char func[64], var[64], err[512] = "";
	struct kw_svar_watch w;
	long at, so, dist;
	int r;

	assert_int_equal(sscanf(line, "AT %63s %63s %ld %ld", func, var, &at, &so), 4);
	assert_int_equal(resolve(sv, func, var, &w), 0);
	r = kw_dwarf_sp_dist(elf, func, at, &dist, err, sizeof(err));
	print_message("  %s: %s+0x%lx %s: measured sp+%ld; CFI: %s%ld (%s)\n", elf, func, at, var,
		      so, r ? "refused " : "CFA-", r ? (long)r : dist, err);
	if (strstr(elf, "-fp")) {
		assert_int_equal(r, -EOPNOTSUPP);
		assert_non_null(strstr(err, "not the stack pointer plus an offset"));
		return 0;
	}
	assert_int_equal(r, 0);
	assert_int_equal(dist + w.cfa_off, so);
	return 1;
}

/* Every variable the fixture measured resolves to where it was. */
static void resolved_as_measured(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(fixtures) / sizeof(fixtures[0]); i++) {
		struct kw_stackvars sv;
		char cmd[512], func[64], var[64], line[256];
		long off;
		size_t size;
		int n = 0, n_at = 0;
		FILE *p;

		load(fixtures[i], &sv);
		snprintf(cmd, sizeof(cmd), "%s", fixtures[i]);
		p = popen(cmd, "r");
		assert_non_null(p);
		while (fgets(line, sizeof(line), p)) {
			if (strncmp(line, "AT ", 3) == 0) {
				n_at += at_case(fixtures[i], &sv, line);
				continue;
			}
			assert_int_equal(sscanf(line, "%63s %63s %ld %zu", func, var, &off, &size), 4);
			{
			struct kw_stackvars one = {};
			struct kw_svar_watch w, w1;
			char err[512];

			print_message("  %s: %s %s at CFA%ld, %zu bytes\n", fixtures[i], func, var,
				      off, size);
			assert_int_equal(resolve(&sv, func, var, &w), 0);
			assert_false(w.canary);
			assert_int_equal(w.cfa_off, off);
			assert_int_equal(w.len, size);
			/* The same from the function's own CU alone (resolve -e). */
			assert_int_equal(kw_dwarf_stackvars(fixtures[i], func, &one, err,
							     sizeof(err)), 0);
			kw_stackvars_sort(&one);
			assert_int_equal(resolve(&one, func, var, &w1), 0);
			assert_memory_equal(&w, &w1, sizeof(w));
			kw_stackvars_free(&one);
			n++;
			}
		}
		assert_int_equal(pclose(p), 0);
		assert_int_equal(n, 9);
		assert_int_equal(n_at, strstr(fixtures[i], "-fp") ? 0 : 2);
		kw_stackvars_free(&sv);
	}
}

/* What cannot be watched is refused, with the reason. */
static void refusals(void **state)
{
	struct kw_stackvars sv;
	struct kw_svar_watch w;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(fixtures) / sizeof(fixtures[0]); i++) {
		load(fixtures[i], &sv);
		/* Register-only at -O2: a loop counter, an accumulator. */
		assert_int_equal(resolve(&sv, "f_struct", "i", &w), -EADDRNOTAVAIL);
		assert_int_equal(resolve(&sv, "f_struct", "acc", &w), -EADDRNOTAVAIL);
		/* More than 8 bytes, or not a power of two. */
		assert_int_equal(resolve(&sv, "f_array", "buf", &w), -E2BIG);
		assert_int_equal(resolve(&sv, "f_struct", "r", &w), -E2BIG);
		assert_int_equal(resolve(&sv, "f_struct", "r.tag", &w), -E2BIG);
		/* No such thing. */
		assert_int_equal(resolve(&sv, "f_array", "nope", &w), -ENOENT);
		assert_int_equal(resolve(&sv, "f_struct", "r.nope", &w), -ENOENT);
		assert_int_equal(resolve(&sv, "no_such_function", "buf", &w), -ENOENT);
		/* Out of bounds, not an array, malformed. */
		assert_int_equal(resolve(&sv, "f_array", "buf[4]", &w), -EINVAL);
		assert_int_equal(resolve(&sv, "f_struct", "r.len[0]", &w), -EINVAL);
		assert_int_equal(resolve(&sv, "f_array", "buf[", &w), -EINVAL);
		assert_int_equal(resolve(&sv, "f_array", "buf[x]", &w), -EINVAL);
		assert_int_equal(resolve(&sv, "f_array", "buf[1]x", &w), -EINVAL);
		assert_int_equal(resolve(&sv, "f_array", "buf..x", &w), -EINVAL);
		assert_int_equal(resolve(&sv, "f_array", "1buf", &w), -EINVAL);
		assert_int_equal(resolve(&sv, "bad name", "buf", &w), -EINVAL);
		/* The canary needs no variable (the kernel finds it). */
		assert_int_equal(resolve(&sv, "f_array", NULL, &w), 0);
		assert_true(w.canary);
		assert_int_equal(resolve(&sv, "f_array", "canary", &w), 0);
		assert_true(w.canary);
		kw_stackvars_free(&sv);
	}
}

/* The index holds what the DWARF said: the same answers from both. */
static void index_round_trip(void **state)
{
	static const char *const names[][2] = {
		{ "f_array", "buf[2]" }, { "f_struct", "r.s" }, { "f_nested", "p[1].y" },
		{ "f_nested", "flags" }, { "f_struct", "i" }, { "f_array", "buf" },
	};
	struct kw_stackvars sv, idx = {};
	char *text = NULL, err[256];
	size_t len = 0, i;
	FILE *f;

	(void)state;
	load(fixtures[0], &sv);
	f = open_memstream(&text, &len);
	assert_non_null(f);
	assert_int_equal(kw_stackvars_write(&sv, f), 0);
	fclose(f);
	assert_int_equal(kw_stackvars_parse(&idx, text, err, sizeof(err)), 0);
	assert_int_equal(idx.n, sv.n);
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		struct kw_svar_watch a, b;
		int ra = resolve(&sv, names[i][0], names[i][1], &a);

		assert_int_equal(resolve(&idx, names[i][0], names[i][1], &b), ra);
		assert_memory_equal(&a, &b, sizeof(a));
	}
	kw_stackvars_free(&idx);
	kw_stackvars_free(&sv);
}

static void malformed_index(void **state)
{
	static const char *const bad[] = {
		"",					/* no header */
		"# kwatch stackvars 2\n",		/* another version */
		KW_SVAR_HEADER "\nf buf cfa-8 8",	/* no newline at the end */
		KW_SVAR_HEADER "\nf buf cfa-8\n",	/* too few fields */
		KW_SVAR_HEADER "\nf buf cfa-8 8 2\n",	/* a count, not an element */
		KW_SVAR_HEADER "\nf buf[] cfa-8 8\n",	/* an element without one */
		KW_SVAR_HEADER "\nf buf cfa8 8\n",	/* no sign */
		KW_SVAR_HEADER "\nf buf cfa- 8\n",
		KW_SVAR_HEADER "\nf buf cfa+-8 8\n",
		KW_SVAR_HEADER "\nf buf cfa-8x 8\n",
		KW_SVAR_HEADER "\nf buf stack 8\n",	/* an unknown location */
		KW_SVAR_HEADER "\nf buf cfa-8 0\n",	/* no size */
		KW_SVAR_HEADER "\nf buf cfa-8 -8\n",
		KW_SVAR_HEADER "\nf b/uf cfa-8 8\n",	/* not a name */
		KW_SVAR_HEADER "\nf  buf cfa-8 8\n",	/* two spaces */
		KW_SVAR_HEADER "\nf buf cfa-8 8 3 4\n",	/* too many fields */
	};
	struct kw_stackvars sv = {};
	char err[256];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		assert_int_equal(kw_stackvars_parse(&sv, strdup(bad[i]), err, sizeof(err)),
				 -EINVAL);
		print_message("  '%s': %s\n", bad[i], err);
		assert_true(err[0]);
	}
	kw_stackvars_free(&sv);
	/* Comments and blank lines are fine; lines after them are numbered. */
	assert_int_equal(kw_stackvars_parse(&sv, strdup(KW_SVAR_HEADER "\n# x\n\nf a part-16 4\n"
							 "f b cfa+0 8\n"), err, sizeof(err)), 0);
	assert_int_equal(sv.n, 2);
	kw_stackvars_free(&sv);
}

/* Functions of one name (static ones in several files) must agree. */
static void same_name_functions(void **state)
{
	struct kw_stackvars sv = {};
	struct kw_svar_watch w;

	(void)state;
	assert_int_equal(kw_stackvars_add(&sv, "f", "a", KW_SVAR_STACK, -16, 8, 0), 0);
	assert_int_equal(kw_stackvars_add(&sv, "f", "a", KW_SVAR_STACK, -16, 8, 0), 0);
	assert_int_equal(kw_stackvars_add(&sv, "f", "b", KW_SVAR_STACK, -24, 8, 0), 0);
	assert_int_equal(kw_stackvars_add(&sv, "f", "b", KW_SVAR_STACK, -32, 8, 0), 0);
	assert_int_equal(kw_stackvars_add(&sv, "g", "p", KW_SVAR_PART, -8, 4, 0), 0);
	assert_int_equal(kw_stackvars_add(&sv, "g", "stackarg", KW_SVAR_STACK, 8, 8, 0), 0);
	kw_stackvars_sort(&sv);
	assert_int_equal(resolve(&sv, "f", "a", &w), 0);
	assert_int_equal(w.cfa_off, -16);
	assert_int_equal(resolve(&sv, "f", "b", &w), -ENOTUNIQ);
	assert_int_equal(resolve(&sv, "g", "p", &w), 0);
	assert_true(w.partly);
	/* An argument passed on the stack, above the CFA: not this frame's. */
	assert_int_equal(resolve(&sv, "g", "stackarg", &w), -EADDRNOTAVAIL);
	kw_stackvars_free(&sv);
}

/* kwatchctl resolve -b: one answer a line, the table read once. */
static void batch_resolve(void **state)
{
	static const char *const want[] = {
		"fn=f co=-16 wl=8\n",
		"! several functions are named f, and their frames place 'b' differently\n",
		"! no function 'nosuch' with stack variables in the debug information\n",
		"fn=g\n",
		"fn=g co=-8 wl=4\n",
	};
	char path[] = "/tmp/kw-test-index-XXXXXX", cmd[512], line[512];
	struct kw_stackvars sv = {};
	size_t n = 0;
	FILE *f, *p;
	int fd;

	(void)state;
	assert_int_equal(kw_stackvars_add(&sv, "f", "a", KW_SVAR_STACK, -16, 8, 0), 0);
	assert_int_equal(kw_stackvars_add(&sv, "f", "b", KW_SVAR_STACK, -24, 8, 0), 0);
	assert_int_equal(kw_stackvars_add(&sv, "f", "b", KW_SVAR_STACK, -32, 8, 0), 0);
	assert_int_equal(kw_stackvars_add(&sv, "g", "p", KW_SVAR_STACK, -8, 4, 0), 0);
	kw_stackvars_sort(&sv);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	assert_int_equal(kw_stackvars_write(&sv, f), 0);
	assert_int_equal(fclose(f), 0);
	kw_stackvars_free(&sv);

	snprintf(cmd, sizeof(cmd), "printf 'f a\\nf b\\n\\nnosuch x\\ng\\ng p\\n' | %s resolve -b -x %s",
		 KWATCHCTL, path);
	p = popen(cmd, "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p)) {
		print_message("  %s", line);
		assert_true(n < sizeof(want) / sizeof(want[0]));
		assert_string_equal(line, want[n]);
		n++;
	}
	/* A refusal among them: exit status 1, every line answered. */
	assert_int_equal(WEXITSTATUS(pclose(p)), 1);
	assert_int_equal(n, 5);
	unlink(path);
}

static void clone_names(void **state)
{
	(void)state;
	assert_true(kw_svar_clone_of("foo.constprop.0", "foo"));
	assert_true(kw_svar_clone_of("foo.isra.12", "foo"));
	assert_true(kw_svar_clone_of("foo.part.0", "foo"));
	assert_true(kw_svar_clone_of("foo.constprop.0.isra.0", "foo"));
	assert_true(kw_svar_clone_of("foo.lto_priv.3", "foo"));
	assert_false(kw_svar_clone_of("foo", "foo"));
	assert_false(kw_svar_clone_of("foo.cold", "foo"));		/* no entry */
	assert_false(kw_svar_clone_of("foo.isra.0.cold", "foo"));
	assert_false(kw_svar_clone_of("foobar.isra.0", "foo"));
	assert_false(kw_svar_clone_of("foo.isra", "foo"));
	assert_false(kw_svar_clone_of("foo.isra.x", "foo"));
	assert_false(kw_svar_clone_of("foo.static.0", "foo"));
}

/* By the source's name, a function that exists only as gcc's clone, or
 * split into hot and cold parts: from the whole file and from -e FUNC. */
static void clones_by_source_name(void **state)
{
	struct kw_stackvars sv;
	struct kw_svar_watch w;

	(void)state;
	load(KW_CLONES, &sv);
	assert_int_equal(resolve(&sv, "scan", "buf[1]", &w), 0);
	assert_string_equal(w.func, "scan.isra.0");
	assert_true(w.clone);
	assert_string_equal(w.others, "");
	assert_int_equal(w.len, 1);
	assert_int_equal(resolve(&sv, "scan", NULL, &w), 0);
	assert_true(w.canary);
	assert_string_equal(w.func, "scan.isra.0");
	/* The clone's own name still works, as itself. */
	assert_int_equal(resolve(&sv, "scan.isra.0", "buf[1]", &w), 0);
	assert_false(w.clone);
	/* split has DW_AT_ranges (split and split.cold), no DW_AT_low_pc. */
	assert_int_equal(resolve(&sv, "split", "name[0]", &w), 0);
	assert_string_equal(w.func, "split");
	assert_int_equal(resolve(&sv, "split.cold", "name[0]", &w), -ENOENT);
	kw_stackvars_free(&sv);
}

/* A frame the prologue realigns: its locals from the stack pointer (so=),
 * or refused with the reason from the frame pointer. */
static void realigned_frame(void **state)
{
	struct kw_stackvars sv = {};
	struct kw_svar_watch w;
	char buf[128], why[512], *text;
	FILE *f;
	size_t len;

	(void)state;
	load(KW_CLONES, &sv);
	assert_int_equal(resolve(&sv, "realigned", "flags", &w), 0);
	assert_true(w.sp_rel);
	assert_int_equal(w.len, 8);
	assert_true(w.cfa_off >= 0);
	assert_true(kw_svar_line(&w, 0, buf, sizeof(buf)) > 0);
	print_message("  realigned flags: %s\n", buf);
	assert_non_null(strstr(buf, "fn=realigned so="));
	assert_int_equal(resolve(&sv, "realigned", "buf[3]", &w), 0);
	assert_true(w.sp_rel);
	assert_int_equal(w.len, 1);
	/* The index keeps them: sp+N, fp-N round trip. */
	assert_int_equal(kw_stackvars_add(&sv, "fpfn", "x", KW_SVAR_FP, -24, 8, 0), 0);
	kw_stackvars_sort(&sv);
	f = open_memstream(&text, &len);
	assert_non_null(f);
	assert_int_equal(kw_stackvars_write(&sv, f), 0);
	assert_int_equal(fclose(f), 0);
	assert_non_null(strstr(text, "\nrealigned flags sp+"));
	assert_non_null(strstr(text, "\nfpfn x fp-24 8\n"));
	kw_stackvars_free(&sv);
	assert_int_equal(kw_stackvars_parse(&sv, text, why, sizeof(why)), 0);
	assert_int_equal(resolve(&sv, "realigned", "flags", &w), 0);
	assert_true(w.sp_rel);
	assert_int_equal(kw_stackvars_resolve(&sv, "fpfn", "x", &w, why, sizeof(why)), -EADDRNOTAVAIL);
	assert_non_null(strstr(why, "from the frame pointer (fp-24) in a frame its prologue realigns"));
	kw_stackvars_free(&sv);
}

static void clones_by_source_name_e(void **state)
{
	struct kw_stackvars one = {};
	struct kw_svar_watch w;
	char err[512];

	(void)state;

	assert_int_equal(kw_dwarf_stackvars(KW_CLONES, "scan", &one, err, sizeof(err)), 0);
	assert_int_equal(kw_dwarf_stackvars(KW_CLONES, "split", &one, err, sizeof(err)), 0);
	kw_stackvars_sort(&one);
	assert_int_equal(resolve(&one, "scan", "buf[1]", &w), 0);
	assert_string_equal(w.func, "scan.isra.0");
	assert_int_equal(resolve(&one, "split", "name[1]", &w), 0);
	kw_stackvars_free(&one);
}

/* Several clones: the first where the variable resolves, the others
 * named; none: the first clone's reason. */
static void several_clones(void **state)
{
	struct kw_stackvars sv = {};
	struct kw_svar_watch w;
	char why[512];

	(void)state;
	assert_int_equal(kw_stackvars_add(&sv, "g.isra.0", "a", KW_SVAR_STACK, -16, 8, 0), 0);
	assert_int_equal(kw_stackvars_add(&sv, "g.part.0", "a", KW_SVAR_STACK, -24, 8, 0), 0);
	assert_int_equal(kw_stackvars_add(&sv, "g.cold", "a", KW_SVAR_STACK, -24, 8, 0), 0);
	assert_int_equal(kw_stackvars_add(&sv, "gg", "a", KW_SVAR_STACK, -8, 8, 0), 0);
	assert_int_equal(kw_stackvars_add(&sv, "h.isra.0", "b", KW_SVAR_STACK, -16, 8, 0), 0);
	assert_int_equal(kw_stackvars_add(&sv, "h.part.0", "a", KW_SVAR_STACK, -32, 4, 0), 0);
	kw_stackvars_sort(&sv);
	assert_int_equal(resolve(&sv, "g", "a", &w), 0);
	assert_string_equal(w.func, "g.isra.0");
	assert_int_equal(w.cfa_off, -16);
	assert_string_equal(w.others, "g.part.0");
	assert_int_equal(resolve(&sv, "h", "a", &w), 0);
	assert_string_equal(w.func, "h.part.0");
	assert_int_equal(w.cfa_off, -32);
	assert_string_equal(w.others, "h.isra.0");
	assert_int_equal(kw_stackvars_resolve(&sv, "h", "zz", &w, why, sizeof(why)), -ENOENT);
	assert_non_null(strstr(why, "h.isra.0 has no variable 'zz'"));
	assert_int_equal(kw_stackvars_resolve(&sv, "nosuch", "a", &w, why, sizeof(why)), -ENOENT);
	assert_non_null(strstr(why, "no function 'nosuch'"));
	kw_stackvars_free(&sv);
}

static void kernel_line(void **state)
{
	struct kw_svar_watch w = { .func = "victim", .cfa_off = -48, .len = 8 };
	char buf[128];

	(void)state;
	assert_true(kw_svar_line(&w, 0, buf, sizeof(buf)) > 0);
	assert_string_equal(buf, "fn=victim co=-48 wl=8");
	assert_true(kw_svar_line(&w, 3, buf, sizeof(buf)) > 0);
	assert_string_equal(buf, "fn=victim dp=3 co=-48 wl=8");
	w.canary = true;
	assert_true(kw_svar_line(&w, 0, buf, sizeof(buf)) > 0);
	assert_string_equal(buf, "fn=victim");
	assert_true(kw_svar_line(&w, 0, buf, 5) < 0);
}


/* --- the point after a source line (resolve --after) --- */

static int line_point(const char *elf, const char *func, const char *file, unsigned int line,
		      unsigned long *off, char *err, size_t errlen)
{
	int r = kw_dwarf_line_point(elf, func, file, line, off, err, errlen);

	print_message("  %s %s %s:%u: %d %s%#lx (%s)\n", strrchr(elf, '/') + 1, func, file, line,
		      r, r ? "" : "+", r ? 0UL : *off, err);
	if (r < 0)
		assert_true(err[0]);	/* every refusal says why */
	return r;
}

/* objdump's view of @func in @elf, independent of the decoder: the
 * offset of the instruction right after its first backward jump (the end
 * of its first loop). */
static unsigned long objdump_after_loop(const char *elf, const char *func)
{
	char cmd[512], line[512], head[128];
	unsigned long entry = 0, addr, target, after = 0;
	bool in = false, want_next = false;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "objdump -d --no-show-raw-insn %s", elf);
	snprintf(head, sizeof(head), "<%s>:", func);
	p = popen(cmd, "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p)) {
		char mnem[32], tgt[64];

		if (strstr(line, head)) {
			in = true;
			entry = strtoul(line, NULL, 16);
			continue;
		}
		if (!in || sscanf(line, " %lx:", &addr) != 1)
			continue;
		if (want_next) {
			after = addr - entry;
			break;
		}
		if (sscanf(strchr(line, '\t') + 1, "%31s %lx %63s", mnem, &target, tgt) == 3 &&
		    mnem[0] == 'j' && target < addr && target >= entry)
			want_next = true;
		if (line[0] == '\n')
			break;
	}
	pclose(p);
	assert_true(after > 0);
	return after;
}

/* addr2line's line for FUNC+@off, independent of libdw's line reader. */
static unsigned int addr2line(const char *elf, const char *func, unsigned long off)
{
	char cmd[512], out[512], *colon;
	unsigned long entry = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "nm %s | awk '$3 == \"%s\" { print $1 }'", elf, func);
	p = popen(cmd, "r");
	assert_non_null(p);
	assert_int_equal(fscanf(p, "%lx", &entry), 1);
	pclose(p);
	snprintf(cmd, sizeof(cmd), "addr2line -e %s %#lx", elf, entry + off);
	p = popen(cmd, "r");
	assert_non_null(p);
	assert_non_null(fgets(out, sizeof(out), p));
	pclose(p);
	colon = strrchr(out, ':');
	assert_non_null(colon);
	return strtoul(colon + 1, NULL, 10);
}

/* After the loop's line, or its body's, the point is the loop's exit:
 * past the backward jump, at the line after the loop; not the instruction
 * after the body's store, which every iteration passes. */
static void line_point_after_loop(void **state)
{
	static const char *const elves[] = { KW_LINES, KW_LINES_FP };
	unsigned int l_for = src_line(KW_LINES_SRC, "@for");
	unsigned int l_body = src_line(KW_LINES_SRC, "@body");
	unsigned int l_after = src_line(KW_LINES_SRC, "@after");
	unsigned long off, off2, exit_off;
	char err[512];
	size_t i;

	(void)state;
	for (i = 0; i < 2; i++) {
		exit_off = objdump_after_loop(elves[i], "fill");
		assert_int_equal(line_point(elves[i], "fill", "lines.c", l_for, &off, err,
					    sizeof(err)), 0);
		assert_string_equal(err, "");
		assert_int_equal(off, exit_off);
		assert_int_equal(addr2line(elves[i], "fill", off), l_after);
		assert_true(l_after > l_body);
		assert_int_equal(line_point(elves[i], "fill", "lines.c", l_body, &off2, err,
					    sizeof(err)), 0);
		assert_int_equal(off2, exit_off);
	}
}

/* A line with no code (a comment) moves to the next that has some, and
 * says so. */
static void line_point_moves_on(void **state)
{
	unsigned int l_comment = src_line(KW_LINES_SRC, "@comment");
	unsigned int l_after = src_line(KW_LINES_SRC, "@after");
	unsigned int l_for = src_line(KW_LINES_SRC, "@for");
	unsigned long off, off_after, off_for;
	char err[512], want[128];

	(void)state;
	assert_int_equal(line_point(KW_LINES, "fill", "lines.c", l_for, &off_for, err,
				    sizeof(err)), 0);
	assert_int_equal(line_point(KW_LINES, "fill", "lines.c", l_after, &off_after, err,
				    sizeof(err)), 0);
	assert_string_equal(err, "");
	assert_int_equal(line_point(KW_LINES, "fill", "lines.c", l_comment, &off, err,
				    sizeof(err)), 0);
	assert_int_equal(off, off_after);
	snprintf(want, sizeof(want), "line %u has no code in fill: after line %u", l_comment,
		 l_after);
	assert_non_null(strstr(err, want));
	/* Past the call, which is past the loop. */
	assert_true(off > off_for);
}

/* Lines outside the function, and files it has no code from. */
static void line_point_outside(void **state)
{
	unsigned int l_maybe = src_line(KW_LINES_SRC, "@maybe");
	unsigned int l_for = src_line(KW_LINES_SRC, "@for");
	unsigned int l_decl = src_line(KW_LINES_SRC, "long fill(long k)");
	unsigned int l_return = src_line(KW_LINES_SRC, "@return");
	unsigned long off = 0;
	char err[512], want[128];

	(void)state;
	snprintf(want, sizeof(want), "is outside fill, which has lines %u-%u", l_decl,
		 l_return + 1);
	assert_int_equal(line_point(KW_LINES, "fill", "lines.c", l_maybe, &off, err,
				    sizeof(err)), -ERANGE);
	assert_non_null(strstr(err, want));
	assert_int_equal(line_point(KW_LINES, "fill", "lines.c", l_decl - 1, &off, err,
				    sizeof(err)), -ERANGE);
	assert_non_null(strstr(err, want));
	assert_int_equal(line_point(KW_LINES, "fill", "lines.c", 0, &off, err, sizeof(err)),
			 -EINVAL);
	/* A file it has no code from; a name that is not a path's end. */
	assert_int_equal(line_point(KW_LINES, "fill", "nosuch.c", l_maybe, &off, err,
				    sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "fill has no code from a file nosuch.c (its source: "));
	assert_int_equal(line_point(KW_LINES, "fill", "ines.c", l_maybe, &off, err,
				    sizeof(err)), -ENOENT);
	assert_int_equal(line_point(KW_LINES, "nosuch", "lines.c", l_maybe, &off, err,
				    sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "no function nosuch"));
	/* The path's end on a '/', or the whole of it: the same point. */
	assert_int_equal(line_point(KW_LINES, "fill", "kwatchctl/lines.c", l_for, &off, err,
				    sizeof(err)), 0);
	{
		unsigned long off2;

		assert_int_equal(line_point(KW_LINES, "fill", KW_LINES_SRC, l_for, &off2, err,
					    sizeof(err)), 0);
		assert_int_equal(off2, off);
	}
}

/* No single point after the line: a loop that may run no times (two ways
 * on from its line), a line that returns. */
static void line_point_refusals(void **state)
{
	unsigned int l_maybe = src_line(KW_LINES_SRC, "@maybe");
	unsigned int l_return = src_line(KW_LINES_SRC, "@return");
	unsigned long off = 0;
	char err[512];

	(void)state;
	assert_int_equal(line_point(KW_LINES, "maybe_fill", "lines.c", l_maybe, &off, err,
				    sizeof(err)), -ENOTUNIQ);
	assert_non_null(strstr(err, "no single point follows the line on every path"));
	assert_non_null(strstr(err, "control goes on at maybe_fill+0x"));
	assert_int_equal(line_point(KW_LINES, "fill", "lines.c", l_return, &off, err,
				    sizeof(err)), -EOPNOTSUPP);
	assert_non_null(strstr(err, "nothing of fill runs after line"));
}

/* gcc's clone by its source name; a function split into hot and cold
 * parts, from a line in the cold part back to the hot one. */
static void line_point_clones_split(void **state)
{
	unsigned int l_scan = src_line(KW_CLONES_SRC, "sum += buf[i];");
	unsigned int l_complain = src_line(KW_CLONES_SRC, "complain(name, n);");
	unsigned long off, off2;
	char err[512];

	(void)state;
	assert_int_equal(line_point(KW_CLONES, "scan", "clones.c", l_scan, &off, err,
				    sizeof(err)), 0);
	assert_non_null(strstr(err, "scan is compiled only as gcc's clone scan.isra.0"));
	assert_int_equal(line_point(KW_CLONES, "scan.isra.0", "clones.c", l_scan, &off2, err,
				    sizeof(err)), 0);
	assert_int_equal(off2, off);
	assert_string_equal(err, "");
	assert_int_equal(off, objdump_after_loop(KW_CLONES, "scan.isra.0"));
	/* split.cold calls complain() and jumps back into split: there. */
	assert_int_equal(line_point(KW_CLONES, "split", "clones.c", l_complain, &off, err,
				    sizeof(err)), 0);
	assert_int_equal(addr2line(KW_CLONES, "split", off), l_complain + 1);
}

/* kwatchctl resolve --after: the v4 line, FUNC+0xPOINT SO:LEN, the point
 * and the stack pointer's distance there as the library gives them. */
static void resolve_after(void **state)
{
	unsigned int l_for = src_line(KW_LINES_SRC, "@for");
	unsigned int l_comment = src_line(KW_LINES_SRC, "@comment");
	unsigned int l_maybe = src_line(KW_LINES_SRC, "@maybe");
	struct kw_stackvars sv;
	struct kw_svar_watch w;
	char cmd[1024], out[512], want[128], err[512];
	unsigned long off;
	long dist;
	FILE *p;

	(void)state;
	load(KW_LINES, &sv);
	assert_int_equal(resolve(&sv, "fill", "buf[3]", &w), 0);
	kw_stackvars_free(&sv);
	assert_int_equal(kw_dwarf_line_point(KW_LINES, "fill", "lines.c", l_for, &off, err,
					     sizeof(err)), 0);
	assert_int_equal(kw_dwarf_sp_dist(KW_LINES, "fill", off, &dist, err, sizeof(err)), 0);

	snprintf(cmd, sizeof(cmd), "%s resolve -e %s --after lines.c:%u fill 'buf[3]' 2>&1",
		 KWATCHCTL, KW_LINES, l_for);
	p = popen(cmd, "r");
	assert_non_null(p);
	assert_non_null(fgets(out, sizeof(out), p));
	assert_int_equal(pclose(p), 0);
	print_message("  %s", out);
	snprintf(want, sizeof(want), "fill+0x%lx %ld:8\n", off, dist + w.cfa_off);
	assert_string_equal(out, want);
	assert_true(dist + w.cfa_off >= 0);

	/* The canary: the point alone; a line moved says so on stderr. */
	snprintf(cmd, sizeof(cmd), "%s resolve -e %s --after lines.c:%u fill 2>&1", KWATCHCTL,
		 KW_LINES, l_comment);
	p = popen(cmd, "r");
	assert_non_null(p);
	{
		int lines = 0, notes = 0;

		while (fgets(out, sizeof(out), p)) {	/* stdout and stderr, either first */
			print_message("  %s", out);
			lines += strncmp(out, "fill+0x", 7) == 0 && !strchr(out, ' ');
			notes += strstr(out, "kwatchctl: note: line") != NULL;
		}
		assert_int_equal(lines, 1);
		assert_int_equal(notes, 1);
	}
	assert_int_equal(pclose(p), 0);

	/* Refused: no single point; a frame-pointer CFA; no -e; with -a. */
	snprintf(cmd, sizeof(cmd), "%s resolve -e %s --after lines.c:%u maybe_fill 'buf[3]' 2>&1",
		 KWATCHCTL, KW_LINES, l_maybe);
	p = popen(cmd, "r");
	assert_non_null(p);
	assert_non_null(fgets(out, sizeof(out), p));
	assert_non_null(strstr(out, "kwatchctl: resolve: after line"));
	assert_int_equal(WEXITSTATUS(pclose(p)), 1);
	snprintf(cmd, sizeof(cmd), "%s resolve -e %s --after lines.c:%u fill 'buf[3]' 2>&1",
		 KWATCHCTL, KW_LINES_FP, l_for);
	p = popen(cmd, "r");
	assert_non_null(p);
	assert_non_null(fgets(out, sizeof(out), p));
	assert_non_null(strstr(out, "not the stack pointer plus an offset"));
	assert_int_equal(WEXITSTATUS(pclose(p)), 1);
	snprintf(cmd, sizeof(cmd), "%s resolve --after lines.c:1 fill >/dev/null 2>&1; echo $?;"
		 "%s resolve -e %s -a 4 --after lines.c:1 fill >/dev/null 2>&1; echo $?;"
		 "%s resolve -e %s --after lines.c fill 2>&1 | head -1", KWATCHCTL, KWATCHCTL,
		 KW_LINES, KWATCHCTL, KW_LINES);
	p = popen(cmd, "r");
	assert_non_null(p);
	assert_non_null(fgets(out, sizeof(out), p));
	assert_string_equal(out, "2\n");
	assert_non_null(fgets(out, sizeof(out), p));
	assert_string_equal(out, "2\n");
	assert_non_null(fgets(out, sizeof(out), p));
	assert_non_null(strstr(out, "--after: want FILE:LINE"));
	pclose(p);
}

/* The decoder against objdump, instruction by instruction: its length,
 * and where a jump goes, over the fixtures and kwatchctl itself. */
static void decoder_agrees_with_objdump(void **state)
{
	static const char *const elves[] = { KW_LINES, KW_CLONES, KWATCHCTL };
	char cmd[512], line[1024];
	size_t i, n = 0, jumps = 0;

	(void)state;
	for (i = 0; i < sizeof(elves) / sizeof(elves[0]); i++) {
		FILE *p;

		snprintf(cmd, sizeof(cmd), "objdump -d -w %s", elves[i]);
		p = popen(cmd, "r");
		assert_non_null(p);
		while (fgets(line, sizeof(line), p)) {
			uint8_t b[16];
			unsigned int v, nb = 0;
			unsigned long addr, target;
			struct kw_insn in;
			char *q, *tab;
			int c;

			if (sscanf(line, " %lx:", &addr) != 1 || !(tab = strchr(line, '\t')))
				continue;
			for (q = tab + 1; nb < sizeof(b) && sscanf(q, "%2x%n", &v, &c) == 1 &&
			     c == 2 && q[2] == ' '; q += 3)
				b[nb++] = v;
			if (strstr(line, "(bad)"))
				continue;
			if (kw_insn_decode(b, nb, addr, &in) != 0 || in.len != nb)
				fail_msg("%s: %s: decoded as %u bytes", elves[i], line, in.len);
			n++;
			if (in.kind != KW_INSN_JMP && in.kind != KW_INSN_JCC)
				continue;
			/* "jne    1208 <fill+0x38>" */
			q = strchr(q, '\t');
			if (!q || sscanf(q, "%*s %lx", &target) != 1 || target != in.target)
				fail_msg("%s: %s: a jump to %#lx", elves[i], line,
					 (unsigned long)in.target);
			jumps++;
		}
		pclose(p);
	}
	print_message("  %zu instructions, %zu jumps\n", n, jumps);
	assert_true(n > 5000 && jumps > 500);
}

/* Locals in KASAN's stack frame, which gcc 12 gives no location: placed
 * from the frame's description where the fixture, run, measured them. */
static void asan_frame(void **state)
{
	static const char *const elves[] = { KW_ASAN, KW_ASAN_FP };
	struct kw_stackvars sv;
	char cmd[600], line[256], *text = NULL;
	size_t i, n, len;
	FILE *p;

	(void)state;
	for (i = 0; i < 2; i++) {
		load(elves[i], &sv);
		p = open_memstream(&text, &len);
		assert_non_null(p);
		assert_int_equal(kw_stackvars_write(&sv, p), 0);
		fclose(p);
		snprintf(cmd, sizeof(cmd), "ASAN_OPTIONS=detect_leaks=0 %s", elves[i]);
		p = popen(cmd, "r");
		assert_non_null(p);
		n = 0;
		while (fgets(line, sizeof(line), p)) {
			char want[300];

			line[strcspn(line, "\n")] = '\0';
			snprintf(want, sizeof(want), "\n%s ", line);
			print_message("  %s: measured %s\n", elves[i], line);
			if (!strstr(text, want))
				fail_msg("%s: the index has not '%s'", elves[i], line);
			n++;
		}
		assert_int_equal(pclose(p), 0);
		assert_int_equal(n, 3);
		free(text);
		text = NULL;
		kw_stackvars_free(&sv);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(resolved_as_measured),
		cmocka_unit_test(refusals),
		cmocka_unit_test(index_round_trip),
		cmocka_unit_test(malformed_index),
		cmocka_unit_test(same_name_functions),
		cmocka_unit_test(kernel_line),
		cmocka_unit_test(batch_resolve),
		cmocka_unit_test(clone_names),
		cmocka_unit_test(clones_by_source_name),
		cmocka_unit_test(clones_by_source_name_e),
		cmocka_unit_test(realigned_frame),
		cmocka_unit_test(several_clones),
		cmocka_unit_test(asan_frame),
		cmocka_unit_test(line_point_after_loop),
		cmocka_unit_test(line_point_moves_on),
		cmocka_unit_test(line_point_outside),
		cmocka_unit_test(line_point_refusals),
		cmocka_unit_test(line_point_clones_split),
		cmocka_unit_test(resolve_after),
		cmocka_unit_test(decoder_agrees_with_objdump),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
