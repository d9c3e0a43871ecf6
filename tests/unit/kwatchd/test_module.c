// SPDX-License-Identifier: GPL-2.0
/*
 * A watch on a module's function (module.c, ksw.c): the module's name from
 * its file, its owner in kallsyms, its stack variables from the file's
 * DWARF, the wait for a module that is not loaded, the build id check of
 * one that is, and the MODULE:FUNCTION line.  The "module" is the
 * kwatchctl fixture built at -O2 (gcc's clones and all) under a .ko name;
 * /sys/module and /proc/kallsyms are files of the test's.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "config.h"
#include "dwarfvars.h"
#include "ksw.h"
#include "module.h"
#include "tmpdir.h"
#include "../srcline.h"

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void run(const char *fmt, ...)
{
	char cmd[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	assert_int_equal(system(cmd), 0);
}

/* fixmod.ko (the fixture), its sysfs directory (loaded, unless @live is
 * false: then none) with the build id @id_from's, and an empty index. */
static void set_up_as(const char *src, bool live, const char *id_from)
{
	char index[600];

	run("cp %s %s/fixmod.ko", src, root);
	run("mkdir -p %s/sys", root);
	snprintf(index, sizeof(index), "%s/index", root);
	put(index, KW_SVAR_HEADER "\n");
	if (!live)
		return;
	run("mkdir -p %s/sys/fixmod/notes && echo live >%s/sys/fixmod/initstate", root, root);
	run("objcopy -O binary --only-section=.note.gnu.build-id %s %s/sys/fixmod/notes/.note.gnu.build-id",
	    id_from, root);
}

static void set_up(bool live, const char *id_from)
{
	set_up_as(KW_CLONES, live, id_from);
}

static void watch_of(struct kw_watch *w, const char *func, const char *var)
{
	memset(w, 0, sizeof(*w));
	strcpy(w->function, func);
	strcpy(w->variable, var);
	w->canary = !var[0];
	snprintf(w->module_path, sizeof(w->module_path), "%s/fixmod.ko", root);
	w->enabled = true;
}

static int resolve(struct ksw_vars *vars, struct kw_watch *w, char *why, size_t n)
{
	char sys[600], index[600];

	snprintf(sys, sizeof(sys), "%s/sys", root);
	snprintf(index, sizeof(index), "%s/index", root);
	vars->sysfs_module = sys;
	return ksw_resolve(vars, index, w, why, n);
}

static void names(void **state)
{
	char n[KW_MODULE_NAME_MAX + 1];

	(void)state;
	assert_int_equal(kw_module_name_of("/x/my-mod.ko", n, sizeof(n)), 0);
	assert_string_equal(n, "my_mod");
	assert_int_equal(kw_module_name_of("a.ko.xz", n, sizeof(n)), 0);
	assert_string_equal(n, "a");
	assert_int_equal(kw_module_name_of("/x/a.o", n, sizeof(n)), -EINVAL);
	assert_int_equal(kw_module_name_of("/x/.ko", n, sizeof(n)), -EINVAL);
	assert_int_equal(kw_module_name_of("/x/a.kobj", n, sizeof(n)), -EINVAL);
}

static void kallsyms_owner(void **state)
{
	char path[600], n[KW_MODULE_NAME_MAX + 1];

	(void)state;
	snprintf(path, sizeof(path), "%s/kallsyms", root);
	put(path, "ffffffff81000000 T do_x\n"
		  "ffffffffc0001000 t victim.isra.0\t[kwusermod]\n"
		  "ffffffffc0002000 t other\t[m2]\n");
	assert_int_equal(kw_module_of_function(path, "victim", n, sizeof(n)), 0);
	assert_string_equal(n, "kwusermod");
	assert_int_equal(kw_module_of_function(path, "do_x", n, sizeof(n)), 0);
	assert_string_equal(n, "");
	assert_int_equal(kw_module_of_function(path, "vic", n, sizeof(n)), 0);
	assert_string_equal(n, "");
}

/* Not loaded: resolved, waiting, and said so. */
static void waits_for_module(void **state)
{
	struct ksw_vars vars = {};
	struct kw_watch w;
	char why[512] = "";

	(void)state;
	set_up(false, NULL);
	watch_of(&w, "split", "name[2]");
	assert_int_equal(resolve(&vars, &w, why, sizeof(why)), 0);
	assert_true(w.waiting);
	assert_true(w.resolved);
	assert_string_equal(w.in_module, "fixmod");
	assert_non_null(strstr(why, "module fixmod is not loaded"));
	ksw_vars_free(&vars);
}

/* Loaded, the same build: the line names the module's function. */
static void armed_as_module_function(void **state)
{
	struct ksw_vars vars = {};
	char why[512] = "", line[256];
	struct kw_watch w;

	(void)state;
	set_up(true, KW_CLONES);
	watch_of(&w, "split", "name[2]");
	assert_int_equal(resolve(&vars, &w, why, sizeof(why)), 0);
	assert_false(w.waiting);
	assert_true(kw_watch_line(&w, line, sizeof(line)) >= 0);
	assert_non_null(strstr(line, "fn=fixmod:split co=-"));
	assert_non_null(strstr(line, " wl=1"));
	/* gcc's clone, by its source name. */
	watch_of(&w, "scan", "buf[1]");
	assert_int_equal(resolve(&vars, &w, why, sizeof(why)), 0);
	assert_true(kw_watch_line(&w, line, sizeof(line)) >= 0);
	assert_non_null(strstr(line, "fn=fixmod:scan.isra.0 co=-"));
	/* The canary needs no variable. */
	watch_of(&w, "split", "");
	assert_int_equal(resolve(&vars, &w, why, sizeof(why)), 0);
	assert_true(kw_watch_line(&w, line, sizeof(line)) >= 0);
	assert_string_equal(line, "fn=fixmod:split");
	/* Offsets given: MODULE:FUNCTION in the v4 form. */
	watch_of(&w, "split", "");
	w.has_ip_offset = true;
	w.ip_offset = 0x14;
	assert_int_equal(resolve(&vars, &w, why, sizeof(why)), 0);
	assert_true(kw_watch_line(&w, line, sizeof(line)) >= 0);
	assert_string_equal(line, "fixmod:split+0x14");
	ksw_vars_free(&vars);
}

/* Loaded from another build than the file: refused, with both ids. */
static void other_build_refused(void **state)
{
	struct ksw_vars vars = {};
	char why[512] = "";
	struct kw_watch w;

	(void)state;
	/* Another id: the fixture's note with its last byte changed. */
	set_up(true, KW_CLONES);
	run("f=%s/sys/fixmod/notes/.note.gnu.build-id; n=$(stat -c %%s $f); "
	    "printf '\\377' | dd of=$f bs=1 seek=$((n - 1)) conv=notrunc 2>/dev/null", root);
	watch_of(&w, "split", "name[2]");
	assert_int_equal(resolve(&vars, &w, why, sizeof(why)), -ESTALE);
	assert_non_null(strstr(why, "the loaded module fixmod (build id"));
	assert_non_null(strstr(why, "module_path="));
	ksw_vars_free(&vars);
}

/* A module built without -g: said so, with how to build it. */
static void no_debug_info(void **state)
{
	struct ksw_vars vars = {};
	char why[512] = "";
	struct kw_watch w;

	(void)state;
	set_up(true, KW_CLONES);
	run("strip -g %s/fixmod.ko", root);
	watch_of(&w, "split", "name[2]");
	assert_int_equal(resolve(&vars, &w, why, sizeof(why)), -ENODATA);
	assert_non_null(strstr(why, "has no debug information"));
	assert_non_null(strstr(why, "ccflags-y += -g"));
	ksw_vars_free(&vars);
}

/* Read once per version of the file: a rebuilt file is read again. */
static void read_again_when_changed(void **state)
{
	struct ksw_vars vars = {};
	char why[512] = "";
	struct kw_watch w;

	(void)state;
	set_up(true, KW_CLONES);
	watch_of(&w, "split", "name[2]");
	assert_int_equal(resolve(&vars, &w, why, sizeof(why)), 0);
	assert_true(vars.mods[0].read);
	run("strip -g %s/fixmod.ko && touch -d '+1 second' %s/fixmod.ko", root, root);
	assert_int_equal(resolve(&vars, &w, why, sizeof(why)), -ENODATA);
	ksw_vars_free(&vars);
}

/* No module keys and not in the index: a loaded module's function whose
 * file is nowhere known is refused, saying what to add. */
static void loaded_elsewhere_needs_path(void **state)
{
	struct ksw_vars vars = {};
	char why[512] = "", ks[600];
	struct kw_watch w;

	(void)state;
	set_up(true, KW_CLONES);
	snprintf(ks, sizeof(ks), "%s/kallsyms", root);
	put(ks, "ffffffffc0001000 t split\t[kwtest_nowhere_mod]\n");
	vars.kallsyms = ks;
	watch_of(&w, "split", "name[2]");
	w.module_path[0] = '\0';
	assert_int_equal(resolve(&vars, &w, why, sizeof(why)), -ENOENT);
	assert_non_null(strstr(why, "module kwtest_nowhere_mod is not under /lib/modules/"));
	assert_non_null(strstr(why, "module_path="));
	ksw_vars_free(&vars);
}

/*
 * module = NAME, not under /lib/modules, but in the stack variable index
 * (the image's test modules are indexed at build time): resolved from the
 * index, as a triage watch names the module it read in a report.
 */
static void module_in_index(void **state)
{
	struct ksw_vars vars = {};
	char why[512] = "", index[600];
	struct kw_watch w;

	(void)state;
	set_up(true, KW_CLONES);
	snprintf(index, sizeof(index), "%s/index", root);
	put(index, KW_SVAR_HEADER "\nindexed_fn vals cfa-64 32\nindexed_fn vals[] cfa-64 8 4\n");
	watch_of(&w, "indexed_fn", "vals[1]");
	w.module_path[0] = '\0';
	strcpy(w.module, "kwtest_nowhere_mod");
	assert_int_equal(resolve(&vars, &w, why, sizeof(why)), 0);
	assert_true(w.resolved);
	assert_int_equal(w.cfa_off, -56);
	assert_int_equal(w.local_len, 8);
	assert_string_equal(w.in_module, "kwtest_nowhere_mod");
	assert_true(w.waiting);	/* not loaded: arms when it is */
	/* The index's answer for the function it has: the parts to name. */
	watch_of(&w, "indexed_fn", "vals");
	w.module_path[0] = '\0';
	strcpy(w.module, "kwtest_nowhere_mod");
	assert_int_equal(resolve(&vars, &w, why, sizeof(why)), -E2BIG);
	assert_non_null(strstr(why, "name an element, vals[0] to vals[3]"));
	/* Neither a file nor an index entry: the file's reason. */
	watch_of(&w, "not_indexed_fn", "x");
	w.module_path[0] = '\0';
	strcpy(w.module, "kwtest_nowhere_mod");
	assert_int_equal(resolve(&vars, &w, why, sizeof(why)), -ENOENT);
	assert_non_null(strstr(why, "module kwtest_nowhere_mod is not under /lib/modules/"));
	ksw_vars_free(&vars);
}

/* The keys: a module's name, a .ko's absolute path, and the two agree. */
static void keys(void **state)
{
	struct kw_file f;

#define WATCH(keys) kw_file_parse(KW_WATCH, "/etc/kwatchd/watch.d/m.conf", \
				  "[watch]\nfunction = f\n" keys, \
				  strlen("[watch]\nfunction = f\n" keys), &f)
	(void)state;
	assert_int_equal(WATCH("module = my_mod\nmodule_path = /x/my-mod.ko\n"), 0);
	assert_string_equal(f.watch.module, "my_mod");
	assert_string_equal(f.watch.module_path, "/x/my-mod.ko");
	assert_int_equal(WATCH("module = my-mod\n"), -EINVAL);
	assert_non_null(strstr(f.err_reason, "module: not a module name"));
	assert_int_equal(WATCH("module_path = x/my.ko\n"), -EINVAL);
	assert_non_null(strstr(f.err_reason, "module_path: want the absolute path"));
	assert_int_equal(WATCH("module_path = /x/my.o\n"), -EINVAL);
	assert_int_equal(WATCH("module = other\nmodule_path = /x/my.ko\n"), -EINVAL);
	assert_non_null(strstr(f.err_reason, "module_path= is the file of module my"));
	assert_int_equal(WATCH("after = lib/x.c:42\n"), 0);
	assert_string_equal(f.watch.after_file, "lib/x.c");
	assert_int_equal(f.watch.after_line, 42);
	assert_int_equal(WATCH("after = x.c\n"), -EINVAL);
	assert_int_equal(WATCH("after = x.c:0\n"), -EINVAL);
	assert_int_equal(WATCH("after = :4\n"), -EINVAL);
	assert_int_equal(WATCH("after = x.c:4\nip_offset = 8\n"), -EINVAL);
	assert_non_null(strstr(f.err_reason, "after= is the point to arm at"));
#undef WATCH
}

/* after = FILE:LINE: the v4 line at the point past the loop that fills
 * the array, the variable's offset from the stack pointer there. */
static void after_line(void **state)
{
	unsigned int body = src_line(KW_LINES_SRC, "@body");
	char why[512] = "", err[512], line[256], want[256];
	struct ksw_vars vars = {};
	unsigned long at, so;
	struct kw_watch w;

	(void)state;
	set_up_as(KW_LINES, true, KW_LINES);
	watch_of(&w, "fill", "buf[3]");
	snprintf(w.after_file, sizeof(w.after_file), "lines.c");
	w.after_line = body;
	assert_int_equal(resolve(&vars, &w, why, sizeof(why)), 0);
	assert_true(w.at_set);
	/* The same as the library says for the file itself. */
	assert_int_equal(kw_dwarf_line_point(KW_LINES, "fill", "lines.c", body, &at, err,
					     sizeof(err)), 0);
	assert_int_equal(kw_dwarf_sp_offset(KW_LINES, "fill", at, w.cfa_off, false, &so, err,
					    sizeof(err)), 0);
	assert_true(kw_watch_line(&w, line, sizeof(line)) >= 0);
	snprintf(want, sizeof(want), "fixmod:fill+0x%lx %lu:8", at, so);
	assert_string_equal(line, want);
	/* The canary, after the same line. */
	watch_of(&w, "fill", "");
	snprintf(w.after_file, sizeof(w.after_file), "lines.c");
	w.after_line = body;
	assert_int_equal(resolve(&vars, &w, why, sizeof(why)), 0);
	assert_true(kw_watch_line(&w, line, sizeof(line)) >= 0);
	snprintf(want, sizeof(want), "fixmod:fill+0x%lx", at);
	assert_string_equal(line, want);
	/* A line of another file: refused, saying which. */
	watch_of(&w, "fill", "buf[3]");
	snprintf(w.after_file, sizeof(w.after_file), "other.c");
	w.after_line = body;
	assert_true(resolve(&vars, &w, why, sizeof(why)) < 0);
	assert_non_null(strstr(why, "after=other.c:"));
	/* Not a module's function: what to do instead. */
	watch_of(&w, "fill", "buf[3]");
	w.module_path[0] = '\0';
	snprintf(w.after_file, sizeof(w.after_file), "lines.c");
	w.after_line = body;
	vars.kallsyms = "/dev/null";
	assert_int_equal(resolve(&vars, &w, why, sizeof(why)), -EOPNOTSUPP);
	assert_non_null(strstr(why, "kwatchctl resolve -e vmlinux --after"));
	ksw_vars_free(&vars);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(names),
		cmocka_unit_test(keys),
		cmocka_unit_test_setup_teardown(kallsyms_owner, tmpdir_setup, tmpdir_teardown),
		cmocka_unit_test_setup_teardown(waits_for_module, tmpdir_setup, tmpdir_teardown),
		cmocka_unit_test_setup_teardown(armed_as_module_function, tmpdir_setup, tmpdir_teardown),
		cmocka_unit_test_setup_teardown(other_build_refused, tmpdir_setup, tmpdir_teardown),
		cmocka_unit_test_setup_teardown(no_debug_info, tmpdir_setup, tmpdir_teardown),
		cmocka_unit_test_setup_teardown(read_again_when_changed, tmpdir_setup, tmpdir_teardown),
		cmocka_unit_test_setup_teardown(loaded_elsewhere_needs_path, tmpdir_setup,
						tmpdir_teardown),
		cmocka_unit_test_setup_teardown(module_in_index, tmpdir_setup, tmpdir_teardown),
		cmocka_unit_test_setup_teardown(after_line, tmpdir_setup, tmpdir_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
