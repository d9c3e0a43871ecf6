// SPDX-License-Identifier: GPL-2.0
/* Symbolisation from a kallsyms listing.  data/kallsyms is an excerpt of
 * the test guest's: vmlinux lines from its System.map, and kwatch_platform
 * at the address the null oops shows (RIP kwatch_platform_null_store+0x5,
 * opcode bytes unreadable at 0xffffffffa0207ffb), so the addresses below
 * give what the recorded reports print.  data/kallsyms_nonroot is the same
 * read without CAP_SYSLOG: all addresses zero. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "ksym.h"

static struct ksym k;

static int setup(void **state)
{
	(void)state;
	return ksym_load(&k, KW_TEST_DATA "/kallsyms");
}

static int teardown(void **state)
{
	(void)state;
	ksym_free(&k);
	return 0;
}

static void expect(uint64_t addr, int ret, const char *text)
{
	char buf[128];

	assert_int_equal(ksym_format(&k, addr, buf, sizeof(buf)), ret);
	assert_string_equal(buf, text);
}

static void load(void **state)
{
	(void)state;
	/* 43 lines, 2 of them absolute per-cpu symbols. */
	assert_int_equal(k.n, 41);
}

static void vmlinux(void **state)
{
	struct ksym_hit h;

	(void)state;
	expect(0xffffffff81783ad0, 0, "overflow_on_nested_buffer+0x0/0x60");
	expect(0xffffffff81783b14, 0, "overflow_on_nested_buffer+0x44/0x60");
	expect(0xffffffff81783b2f, 0, "overflow_on_nested_buffer+0x5f/0x60");
	expect(0xffffffff8153d072, 0, "full_proxy_write+0x82/0xb0");
	/* Aliases: the first listed. */
	expect(0xffffffff81000010, 0, "_stext+0x10/0x60");
	assert_int_equal(ksym_lookup(&k, 0xffffffff81783b14, &h), 0);
	assert_string_equal(h.name, "overflow_on_nested_buffer");
	assert_null(h.module);
	assert_int_equal(h.offset, 0x44);
	assert_int_equal(h.size, 0x60);
}

static void module(void **state)
{
	(void)state;
	expect(0xffffffffa0208025, 0, "kwatch_platform_null_store+0x5/0x20 [kwatch_platform]");
	expect(0xffffffffa0208682, 0,
	       "kwatch_platform_oob_read.constprop.0.isra.0+0x12/0x17 [kwatch_platform]");
	expect(0xffffffffa02086a8, 0, "kwp_kasan_write.cold+0x21/0x3e [kwatch_platform]");
	expect(0xffffffffa02085eb, 0, "kwp_crash_write+0xfb/0x140 [kwatch_platform]");
}

static void not_found(void **state)
{
	struct ksym_hit h;

	(void)state;
	/* Before the first symbol (absolute ones do not count). */
	expect(0x10, -ENOENT, "0x10");
	expect(0xffffffff80000000, -ENOENT, "0xffffffff80000000");
	/* In data, vmlinux's and the module's. */
	expect(0xffffffff81e00010, -ENOENT, "0xffffffff81e00010");
	expect(0xffffffffa020b010, -ENOENT, "0xffffffffa020b010");
	/* At and beyond the last symbol. */
	expect(0xffffffffa020c140, -ENOENT, "0xffffffffa020c140");
	expect(0xffffffffa0300000, -ENOENT, "0xffffffffa0300000");
	assert_int_equal(ksym_lookup(&k, 0xffffffffffffffff, &h), -ENOENT);
}

static void short_buffer(void **state)
{
	char buf[16];

	(void)state;
	assert_int_equal(ksym_format(&k, 0xffffffff81783b14, buf, sizeof(buf)), -ENOBUFS);
	assert_string_equal(buf, "overflow_on_nes");
	assert_int_equal(ksym_format(&k, 0xffffffff81783b14, NULL, 0), -ENOBUFS);
}

static void bad_files(void **state)
{
	struct ksym z;

	(void)state;
	assert_int_equal(ksym_load(&z, KW_TEST_DATA "/kallsyms_nonroot"), -EPERM);
	assert_null(z.sym);
	assert_int_equal(z.n, 0);
	assert_int_equal(ksym_load(&z, KW_TEST_DATA "/no-such-file"), -ENOENT);
	assert_int_equal(ksym_load(&z, "/dev/null"), -ENODATA);
	assert_int_equal(ksym_load(&z, KW_TEST_DATA "/kasan_nested.console"), -ENODATA);
	/* A freed or failed table finds nothing. */
	assert_int_equal(ksym_format(&z, 0xffffffff81783b14, (char[20]){ 0 }, 20), -ENOENT);
}

/* Read when first needed; a miss reloads at most every KSYM_RELOAD_USEC;
 * a file that cannot be read is said once. */
static void cache(void **state)
{
	struct ksym_cache c = { 0 };
	const struct ksym *t1, *t2;
	bool warn;

	(void)state;
	t1 = ksym_cache_get(&c, KW_TEST_DATA "/kallsyms_trampoline", 5000000, false, &warn);
	assert_non_null(t1);
	assert_false(warn);
	assert_string_equal(ksym_after(t1, "trace_clock_x86_tsc"), "arch_rethook_trampoline");
	assert_true(ksym_trampoline_after(t1, "trace_clock_x86_tsc"));
	assert_false(ksym_trampoline_after(t1, "noreturn_caller"));
	assert_null(ksym_after(t1, "no_such_symbol"));
	/* A miss within the interval does not reload. */
	assert_int_equal(c.loaded_usec, 5000000);
	t2 = ksym_cache_get(&c, KW_TEST_DATA "/kallsyms_trampoline", 5500000, true, &warn);
	assert_ptr_equal(t1, t2);
	assert_int_equal(c.loaded_usec, 5000000);
	t2 = ksym_cache_get(&c, KW_TEST_DATA "/kallsyms_trampoline", 6000000, true, &warn);
	assert_non_null(t2);
	assert_int_equal(c.loaded_usec, 6000000);
	ksym_cache_free(&c);
	assert_null(ksym_cache_get(&c, KW_TEST_DATA "/no-such-file", 1, false, &warn));
	assert_true(warn);
	assert_null(ksym_cache_get(&c, KW_TEST_DATA "/no-such-file", 2000000, true, &warn));
	assert_false(warn);
	ksym_cache_free(&c);
}

/* Write (mode "w") or append ("a") text to path. */
static void put_text(const char *path, const char *mode, const char *text)
{
	FILE *f = fopen(path, mode);

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* The name t gives the address between first_fn and second_fn. */
static const char *name_between(const struct ksym *t)
{
	struct ksym_hit hit;

	assert_non_null(t);
	assert_int_equal(ksym_lookup(t, 0xffffffff81001010ULL, &hit), 0);
	return hit.name;
}

/* A miss after the interval rereads the table only when the module list
 * beside it changed: an address no table has (a BPF program) costs a read
 * of the modules, not of the table.  Seen by the table's content: a
 * symbol added to the file is found only after a reread. */
static void cache_rereads_on_module_change(void **state)
{
	char dir[] = "/tmp/kw-ksym.XXXXXX", ks[64], mods[64];
	struct ksym_cache c = { 0 };
	bool warn;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(ks, sizeof(ks), "%s/kallsyms", dir);
	snprintf(mods, sizeof(mods), "%s/modules", dir);
	put_text(ks, "w", "ffffffff81000000 T first_fn\nffffffff81002000 T second_fn\n"
		 "ffffffff81003000 T last_fn\n");
	put_text(mods, "w", "kwatch_test 16384 0 - Live 0xffffffffa0000000\n");
	assert_string_equal(name_between(ksym_cache_get(&c, ks, 5000000, false, &warn)),
			    "first_fn");
	/* A new symbol in the file, the modules the same: a miss a second
	 * later keeps the table read (the new symbol is not seen). */
	put_text(ks, "a", "ffffffff81001000 T inserted_fn\n");
	assert_string_equal(name_between(ksym_cache_get(&c, ks, 6500000, true, &warn)),
			    "first_fn");
	/* A module loaded: the next miss a second later rereads it. */
	put_text(mods, "a", "other 16384 0 - Live 0xffffffffa0010000\n");
	assert_string_equal(name_between(ksym_cache_get(&c, ks, 8000000, true, &warn)),
			    "inserted_fn");
	ksym_cache_free(&c);
	unlink(ks);
	unlink(mods);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(load),
		cmocka_unit_test(vmlinux),
		cmocka_unit_test(module),
		cmocka_unit_test(not_found),
		cmocka_unit_test(short_buffer),
		cmocka_unit_test(bad_files),
		cmocka_unit_test(cache),
		cmocka_unit_test(cache_rereads_on_module_change),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
