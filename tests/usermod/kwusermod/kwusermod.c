// SPDX-License-Identifier: GPL-2.0
/*
 * A developer's own module, as kwatch's users have them: built out of tree
 * against the kernel's build (make -C KDIR M=$PWD), loaded from a path of
 * its own, and in no stack variable index.  kwatchd watches its functions
 * by name from the .ko's debug information (tests/vm/suites/kwatchd,
 * module_by_name).
 *
 * kwum_victim() keeps a table on its stack and hands a slot of it to
 * kwum_fill(), which writes the slot it is told to: a stale index is the
 * bug, and the store to table[KWUM_SLOT] is the one a watch on that
 * element names.  Written as "N" to /sys/kernel/debug/kwusermod/run: one
 * call with index N.
 */
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/uaccess.h>

#define KWUM_SLOTS	8

static struct dentry *kwum_dir;

static noinline void kwum_fill(u64 *table, unsigned int idx, u64 v)
{
	WRITE_ONCE(table[idx], v);
}

static noinline u64 kwum_victim(unsigned int idx)
{
	u64 table[KWUM_SLOTS];
	u64 sum = 0;
	int i;

	memset(table, 0, sizeof(table));
	barrier_data(table);
	if (idx >= KWUM_SLOTS)
		return 0;
	kwum_fill(table, idx, 0x6b77756dULL);
	for (i = 0; i < KWUM_SLOTS; i++)
		sum += READ_ONCE(table[i]);
	return sum;
}

static noinline u64 kwum_loop(unsigned int idx, unsigned int count)
{
	u64 table[2 * KWUM_SLOTS];
	u64 sum = 0;
	unsigned int i = 0;

	do {
		WRITE_ONCE(table[i], i * 3 + 1);	/* @fill */
	} while (++i < count);
	kwum_fill(table, idx, 0x6b77756dULL);
	for (i = 0; i < count; i++)
		sum += READ_ONCE(table[i]);
	return sum;
}

static ssize_t kwum_loop_write(struct file *file, const char __user *ubuf, size_t count,
			       loff_t *ppos)
{
	unsigned int idx, n;
	char buf[32];

	if (count >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	if (sscanf(buf, "%u %u", &idx, &n) != 2 || !n || n > 2 * KWUM_SLOTS || idx >= n)
		return -EINVAL;
	pr_info("kwusermod: kwum_loop(%u, %u) = %llu\n", idx, n, kwum_loop(idx, n));
	return count;
}

static const struct file_operations kwum_loop_fops = {
	.write = kwum_loop_write,
	.llseek = noop_llseek,
};

static ssize_t kwum_run_write(struct file *file, const char __user *buf, size_t count,
			      loff_t *ppos)
{
	unsigned int idx;
	int ret;

	ret = kstrtouint_from_user(buf, count, 0, &idx);
	if (ret)
		return ret;
	pr_info("kwusermod: kwum_victim(%u) = %llu\n", idx, kwum_victim(idx));
	return count;
}

static const struct file_operations kwum_run_fops = {
	.write = kwum_run_write,
	.llseek = noop_llseek,
};

static int __init kwum_init(void)
{
	kwum_dir = debugfs_create_dir("kwusermod", NULL);
	debugfs_create_file("run", 0200, kwum_dir, NULL, &kwum_run_fops);
	debugfs_create_file("loop", 0200, kwum_dir, NULL, &kwum_loop_fops);
	return 0;
}

static void __exit kwum_exit(void)
{
	debugfs_remove_recursive(kwum_dir);
}

module_init(kwum_init);
module_exit(kwum_exit);
MODULE_DESCRIPTION("kwatch: a developer's own module, watched by name");
MODULE_LICENSE("GPL");
