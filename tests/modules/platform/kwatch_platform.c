// SPDX-License-Identifier: GPL-2.0
/*
 * kwatch_platform: probes of the ground the kwatch tools stand on, driven
 * by the "platform" VM suite through debugfs.
 *
 *   /sys/kernel/debug/kwatch_platform/hwbp
 *	write N: register a wide data breakpoint on a variable of this module,
 *	store to it N times, unregister.  read: "writes=N hits=H ip_ok=K"
 *	where K counts the hits reported at the instruction right after the
 *	store (x86 data breakpoints trap after the access).
 *
 *   /sys/kernel/debug/kwatch_platform/kasan_oob
 *	write anything: read one byte past the end of a 13-byte kmalloc
 *	object in kwatch_platform_oob_read(), so KASAN reports it.
 *
 *   /sys/kernel/debug/kwatch_platform/crash
 *	write "warn", "bug", "gpf" or "null": a WARNING, a kernel BUG, a
 *	general protection fault (non-canonical address) or an uninstrumented
 *	store to address 0x10 (a page fault oops), each in a function of its
 *	own, so that kwatchd's crash capture sees real reports.  The last
 *	three oops the writing task.  "canary": a helper's stray store
 *	(kwatch_platform_scribble) lands on the stack canary of
 *	kwatch_platform_smashed(), which half a second later returns into
 *	the stack protector's panic, naming itself: the only symptom.
 *	"stack": a store one element past a local array of
 *	kwatch_platform_stack_oob(), 'vals': KASAN's stack-out-of-bounds
 *	report, whose frame description names vals.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/hw_breakpoint.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/perf_event.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#define KWP_MAX_WRITES	1000000

static struct dentry *kwp_dir;
static DEFINE_MUTEX(kwp_lock);

static int kwp_target;
static unsigned long kwp_expected_ip;
static atomic_t kwp_hits;
static atomic_t kwp_ip_ok;
static unsigned int kwp_writes;

static void kwp_bp_handler(struct perf_event *bp, struct perf_sample_data *data,
			   struct pt_regs *regs)
{
	atomic_inc(&kwp_hits);
	if (instruction_pointer(regs) == READ_ONCE(kwp_expected_ip))
		atomic_inc(&kwp_ip_ok);
}

/* One 4-byte store to kwp_target; returns the address just after it. */
static noinline unsigned long kwp_store(int v)
{
	unsigned long after;

	asm volatile("lea 1f(%%rip), %1\n\t"
		     "movl %2, %0\n"
		     "1:\n"
		     : "=m" (kwp_target), "=&r" (after)
		     : "r" (v)
		     : "memory");
	return after;
}

static int kwp_run_hwbp(unsigned int n)
{
	struct perf_event_attr attr;
	struct perf_event * __percpu *bp;
	unsigned int i;

	hw_breakpoint_init(&attr);
	attr.bp_addr = (unsigned long)&kwp_target;
	attr.bp_len = HW_BREAKPOINT_LEN_4;
	attr.bp_type = HW_BREAKPOINT_W;

	atomic_set(&kwp_hits, 0);
	atomic_set(&kwp_ip_ok, 0);
	/* Learn the store's trap address without tripping the breakpoint. */
	WRITE_ONCE(kwp_expected_ip, kwp_store(0));

	bp = register_wide_hw_breakpoint(&attr, kwp_bp_handler, NULL);
	if (IS_ERR((void __force *)bp))
		return PTR_ERR((void __force *)bp);

	for (i = 0; i < n; i++)
		kwp_store(i);

	unregister_wide_hw_breakpoint(bp);
	kwp_writes = n;
	pr_info("hwbp: %u writes, %d hits, %d at the expected ip %pS\n", n,
		atomic_read(&kwp_hits), atomic_read(&kwp_ip_ok),
		(void *)kwp_expected_ip);
	return 0;
}

static ssize_t kwp_hwbp_write(struct file *file, const char __user *ubuf,
			      size_t count, loff_t *ppos)
{
	unsigned int n;
	int ret;

	ret = kstrtouint_from_user(ubuf, count, 0, &n);
	if (ret)
		return ret;
	if (n == 0 || n > KWP_MAX_WRITES)
		return -EINVAL;

	mutex_lock(&kwp_lock);
	ret = kwp_run_hwbp(n);
	mutex_unlock(&kwp_lock);
	return ret ? ret : count;
}

static ssize_t kwp_hwbp_read(struct file *file, char __user *ubuf,
			     size_t count, loff_t *ppos)
{
	char buf[96];
	int len;

	mutex_lock(&kwp_lock);
	len = scnprintf(buf, sizeof(buf), "writes=%u hits=%d ip_ok=%d\n",
			kwp_writes, atomic_read(&kwp_hits),
			atomic_read(&kwp_ip_ok));
	mutex_unlock(&kwp_lock);
	return simple_read_from_buffer(ubuf, count, ppos, buf, len);
}

static const struct file_operations kwp_hwbp_fops = {
	.owner = THIS_MODULE,
	.read = kwp_hwbp_read,
	.write = kwp_hwbp_write,
	.llseek = default_llseek,
};

static noinline char kwatch_platform_oob_read(const char *p, size_t i)
{
	return READ_ONCE(p[i]);
}

static ssize_t kwp_kasan_write(struct file *file, const char __user *ubuf,
			       size_t count, loff_t *ppos)
{
	const size_t size = 13;
	char *p;

	p = kmalloc(size, GFP_KERNEL);
	if (!p)
		return -ENOMEM;
	OPTIMIZER_HIDE_VAR(p);
	pr_info("kasan_oob: reading byte %zu of a %zu-byte object\n", size, size);
	kwatch_platform_oob_read(p, size);
	kfree(p);
	return count;
}

static const struct file_operations kwp_kasan_fops = {
	.owner = THIS_MODULE,
	.write = kwp_kasan_write,
	.llseek = noop_llseek,
};

static noinline void kwatch_platform_warn(void)
{
	WARN(1, "kwatch_platform: WARNING on request\n");
}

static noinline void kwatch_platform_bug(void)
{
	BUG();
}

static noinline void kwatch_platform_store(unsigned long addr)
{
	WRITE_ONCE(*(unsigned long *)addr, 0x6b);
}

/* Not instrumented: the page fault itself, not KASAN's shadow check. */
static noinline void kwatch_platform_null_store(void)
{
	asm volatile("movq $0x6b, 0x10" ::: "memory");
}

/* Not instrumented: a stray store that lands on a canary, not in one of
 * KASAN's redzones. */
static noinline void kwatch_platform_scribble(unsigned long *p)
{
	asm volatile("movq $0x6b6b6b6b, (%0)" : : "r"(p) : "memory");
}

/* Where the task's canary is above @p (a scan KASAN must not check). */
static noinline __no_sanitize_address int kwp_canary_index(const unsigned long *p)
{
	int i;

	for (i = 0; i < 64; i++)
		if (p[i] == current->stack_canary)
			return i;
	return -1;
}

static noinline void kwatch_platform_smashed(void)
{
	unsigned long buf[4];
	int i;

	memset(buf, 0, sizeof(buf));
	barrier_data(buf);
	i = kwp_canary_index(buf);
	if (i < 0) {
		pr_warn("no stack canary above buf[]\n");
		return;
	}
	kwatch_platform_scribble(&buf[i]);
	/* The function goes on with its work before it returns. */
	msleep(500);
	barrier_data(buf);
}

static noinline __noclone void kwatch_platform_stack_oob(size_t i)
{
	unsigned long vals[4];

	memset(vals, 0, sizeof(vals));
	OPTIMIZER_HIDE_VAR(i);
	/* i is 4: one element past the end, into KASAN's redzone. */
	vals[i] = 1;
	barrier_data(vals);
}

static ssize_t kwp_crash_write(struct file *file, const char __user *ubuf,
			       size_t count, loff_t *ppos)
{
	char buf[8] = "";

	if (copy_from_user(buf, ubuf, min(count, sizeof(buf) - 1)))
		return -EFAULT;
	if (sysfs_streq(buf, "warn"))
		kwatch_platform_warn();
	else if (sysfs_streq(buf, "bug"))
		kwatch_platform_bug();
	else if (sysfs_streq(buf, "gpf"))
		kwatch_platform_store(0x9ead000000000100UL);
	else if (sysfs_streq(buf, "null"))
		kwatch_platform_null_store();
	else if (sysfs_streq(buf, "canary"))
		kwatch_platform_smashed();
	else if (sysfs_streq(buf, "stack"))
		kwatch_platform_stack_oob(4);
	else
		return -EINVAL;
	return count;
}

static const struct file_operations kwp_crash_fops = {
	.owner = THIS_MODULE,
	.write = kwp_crash_write,
	.llseek = noop_llseek,
};

static int __init kwp_init(void)
{
	kwp_dir = debugfs_create_dir("kwatch_platform", NULL);
	debugfs_create_file("hwbp", 0600, kwp_dir, NULL, &kwp_hwbp_fops);
	debugfs_create_file("kasan_oob", 0200, kwp_dir, NULL, &kwp_kasan_fops);
	debugfs_create_file("crash", 0200, kwp_dir, NULL, &kwp_crash_fops);
	return 0;
}

static void __exit kwp_exit(void)
{
	debugfs_remove_recursive(kwp_dir);
}

module_init(kwp_init);
module_exit(kwp_exit);
MODULE_DESCRIPTION("kwatch platform probes: hardware watchpoints and KASAN");
MODULE_LICENSE("GPL");
