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
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
