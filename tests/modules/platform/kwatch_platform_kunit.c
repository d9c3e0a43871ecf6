// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite "kwatch_platform": the assumptions the kwatch tools make about
 * the test kernel, checked in the guest.  Its KTAP goes to the host through
 * /sys/kernel/debug/kunit/kwatch_platform/results.
 */
#include <kunit/test.h>
#include <linux/kallsyms.h>
#include <linux/sched.h>
#include <linux/string.h>

/* The stack protector is on and this task has a canary. */
static void kwp_canary_set(struct kunit *test)
{
	KUNIT_ASSERT_TRUE(test, IS_ENABLED(CONFIG_STACKPROTECTOR_STRONG));
	KUNIT_EXPECT_NE(test, current->stack_canary, 0UL);
}

static noinline __no_sanitize_address int kwp_scan_for_canary(unsigned long *p)
{
	int i;

	for (i = 0; i < 128; i++)
		if (READ_ONCE(p[i]) == current->stack_canary)
			return i;
	return -1;
}

/*
 * A function with an array gets a canary in its frame, within 128 words
 * above the array: what KStackWatch's canary search relies on.
 */
static noinline int kwp_frame_with_canary(void)
{
	unsigned long buf[4];

	memset(buf, 0, sizeof(buf));
	OPTIMIZER_HIDE_VAR(buf[0]);
	return kwp_scan_for_canary(buf);
}

static void kwp_canary_in_frame(struct kunit *test)
{
	int words = kwp_frame_with_canary();

	kunit_info(test, "canary found %d words above the array\n", words);
	KUNIT_EXPECT_GE(test, words, 4);
	KUNIT_EXPECT_LT(test, words, 128);
}

/* %pS symbolises module text, as catch reports need. */
static void kwp_symbolise(struct kunit *test)
{
	char buf[KSYM_SYMBOL_LEN];

	sprint_symbol(buf, (unsigned long)kwp_frame_with_canary);
	KUNIT_EXPECT_NOT_NULL(test, strstr(buf, "kwp_frame_with_canary+0x0/"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(buf, "[kwatch_platform_kunit]"));
}

static struct kunit_case kwp_cases[] = {
	KUNIT_CASE(kwp_canary_set),
	KUNIT_CASE(kwp_canary_in_frame),
	KUNIT_CASE(kwp_symbolise),
	{}
};

static struct kunit_suite kwp_suite = {
	.name = "kwatch_platform",
	.test_cases = kwp_cases,
};
kunit_test_suite(kwp_suite);

MODULE_DESCRIPTION("KUnit checks of the kwatch test kernel");
MODULE_LICENSE("GPL");
