// SPDX-License-Identifier: GPL-2.0
/*
 * kwfuzzmod: KFuzzTest targets in a module built out of tree, as a driver
 * developer builds theirs: their directories come with the module and go
 * with it, their schemas come from the module's BTF.
 *
 * kwfm_record takes a buffer and its length; a record that starts with
 * '!' is summed one byte too far (KASAN: slab-out-of-bounds read in
 * kwfm_sum).  delay_ms keeps a run in the module for that long, so that a
 * test can try to unload it under a writer.  kwfm_raw is a raw-buffer
 * target (FUZZ_TEST_SIMPLE) with the same bug.
 */
#include <linux/delay.h>
#include <linux/kfuzztest.h>
#include <linux/module.h>

struct kwfm_record {
	const char *data;
	size_t len;
	u32 delay_ms;
};

static int kwfm_sink;

static noinline int kwfm_sum(const char *data, size_t len)
{
	size_t i, end = len && data[0] == '!' ? len + 1 : len;
	int sum = 0;

	for (i = 0; i < end; i++)
		sum += READ_ONCE(data[i]);
	return sum;
}

FUZZ_TEST(kwfm_record, struct kwfm_record)
{
	KFUZZTEST_EXPECT_NOT_NULL(kwfm_record, data);
	KFUZZTEST_EXPECT_LE(kwfm_record, delay_ms, 10000);
	KFUZZTEST_CHECK_LEN(kwfm_record, len, data);

	if (arg->delay_ms)
		msleep(arg->delay_ms);
	WRITE_ONCE(kwfm_sink, kwfm_sum(arg->data, arg->len));
}

FUZZ_TEST_SIMPLE(kwfm_raw)
{
	WRITE_ONCE(kwfm_sink, kwfm_sum(data, datalen));
}

MODULE_DESCRIPTION("kwatch: KFuzzTest targets in an out-of-tree module");
MODULE_LICENSE("GPL");
