// SPDX-License-Identifier: GPL-2.0
/*
 * kwatch_wprobe_target: variables and a heap object for the "wprobes" VM
 * suite to watch, each touched by a function of its own so that a hit
 * names who did it.
 *
 *   /sys/kernel/debug/kwatch_wprobe/var
 *	write "write N": kwt_write_var() stores N to kwt_var;
 *	write "read": kwt_read_var() loads kwt_var;
 *	write "burst N": kwt_burst_var() stores N distinct values;
 *	write "tick US": on every online CPU, a timer every US microseconds
 *	runs kwt_tick_read(), which loads kwt_var twice ("tick 0" stops them);
 *	write "hog CPU": takes every free debug register of CPU with
 *	breakpoints of its own, on a variable nothing touches ("unhog" gives
 *	them back);
 *	read: "VALUE BURST_NS HOGS", kwt_var, how long the last burst took and
 *	how many debug registers are held.
 *
 *   /sys/kernel/debug/kwatch_wprobe/obj
 *	write "alloc": kwt_obj_alloc() kmallocs a 424-byte object;
 *	write "write N": kwt_obj_write() stores N at offset 8 of it;
 *	write "free": kwt_obj_free() kfrees it;
 *	write "churn N": N times, kwt_obj_alloc() an object and kfree it;
 *	read: "obj=ADDR", the object's address (0 when there is none).
 *
 *   The same file, write "stress N M": a re-point stress, one kthread
 *	bound to each online CPU.  Each makes N objects in turn: under a
 *	lock shared by all, kwt_stress_alloc() kmallocs one and numbers it
 *	(object numbers follow allocation order, so the object with the
 *	highest number is the one a set_wprobe on the allocation points at);
 *	then, interrupts off, kwt_stress_write() stores M times at offset 8
 *	the value (own << 32 | newest), where own is the object's number and
 *	newest the highest number given so far, read just before the store.
 *	A hit recorded with newest > own is a hit at an object that another
 *	CPU had already replaced as the watched one before the store began.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/completion.h>
#include <linux/cpu.h>
#include <linux/debugfs.h>
#include <linux/hrtimer.h>
#include <linux/hw_breakpoint.h>
#include <linux/kernel.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/perf_event.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/timekeeping.h>
#include <linux/uaccess.h>

#define KWT_OBJ_SIZE	424
#define KWT_MAX_BURST	1000000
#define KWT_MAX_STRESS	100000
#define KWT_MIN_TICK_US	10
#define KWT_MAX_HOG	8

struct kwt_obj {
	u64 head;
	u64 field;	/* offset 8: what the suite watches */
	u8 rest[KWT_OBJ_SIZE - 16];
};

static struct dentry *kwt_dir;
static DEFINE_MUTEX(kwt_lock);

static u64 kwt_var;
static u64 kwt_burst_ns;
static struct kwt_obj *kwt_obj;

static noinline void kwt_write_var(u64 v)
{
	WRITE_ONCE(kwt_var, v);
}

static noinline u64 kwt_read_var(void)
{
	return READ_ONCE(kwt_var);
}

static noinline void kwt_burst_var(unsigned int n)
{
	unsigned int i;

	for (i = 1; i <= n; i++)
		WRITE_ONCE(kwt_var, i);
}

/* Two loads: a wprobe with a limit of one hit a second trips on one tick. */
static noinline void kwt_tick_read(void)
{
	u64 v = READ_ONCE(kwt_var);

	v += READ_ONCE(kwt_var);
	barrier_data(&v);
}

static DEFINE_PER_CPU(struct hrtimer, kwt_tick_timer);
static ktime_t kwt_tick_period;

static enum hrtimer_restart kwt_tick_fn(struct hrtimer *t)
{
	kwt_tick_read();
	hrtimer_forward_now(t, kwt_tick_period);
	return HRTIMER_RESTART;
}

static void kwt_tick_start(void *unused)
{
	hrtimer_start(this_cpu_ptr(&kwt_tick_timer), kwt_tick_period,
		      HRTIMER_MODE_REL_PINNED);
}

static void kwt_tick_stop(void)
{
	int cpu;

	for_each_possible_cpu(cpu)
		hrtimer_cancel(per_cpu_ptr(&kwt_tick_timer, cpu));
}

static int kwt_tick(u64 us)
{
	kwt_tick_stop();
	if (!us)
		return 0;
	if (us < KWT_MIN_TICK_US || us > USEC_PER_SEC)
		return -EINVAL;
	kwt_tick_period = ns_to_ktime(us * NSEC_PER_USEC);
	on_each_cpu(kwt_tick_start, NULL, 1);
	return 0;
}

/* Debug registers held on one CPU, watching kwt_hog_var (never touched). */
static struct perf_event *kwt_hog[KWT_MAX_HOG];
static unsigned int kwt_nhog;
static u64 kwt_hog_var;

static void kwt_hog_handler(struct perf_event *bp,
			    struct perf_sample_data *data,
			    struct pt_regs *regs)
{
}

static void kwt_unhog(void)
{
	while (kwt_nhog)
		unregister_hw_breakpoint(kwt_hog[--kwt_nhog]);
}

static int kwt_hog_cpu(u64 cpu)
{
	struct perf_event_attr attr;
	struct perf_event *bp;

	kwt_unhog();
	if (cpu >= nr_cpu_ids || !cpu_online(cpu))
		return -EINVAL;
	hw_breakpoint_init(&attr);
	attr.bp_addr = (unsigned long)&kwt_hog_var;
	attr.bp_len = HW_BREAKPOINT_LEN_8;
	attr.bp_type = HW_BREAKPOINT_W;
	while (kwt_nhog < KWT_MAX_HOG) {
		bp = perf_event_create_kernel_counter(&attr, cpu, NULL,
						      kwt_hog_handler, NULL);
		if (IS_ERR(bp)) {
			if (PTR_ERR(bp) == -ENOSPC && kwt_nhog)
				return 0;
			kwt_unhog();
			return PTR_ERR(bp);
		}
		kwt_hog[kwt_nhog++] = bp;
	}
	return 0;
}

static noinline struct kwt_obj *kwt_obj_alloc(void)
{
	struct kwt_obj *o = kzalloc(sizeof(*o), GFP_KERNEL);

	barrier();	/* no tail call: kmalloc's call site stays in here */
	return o;
}

static noinline void kwt_obj_write(struct kwt_obj *o, u64 v)
{
	WRITE_ONCE(o->field, v);
}

static noinline void kwt_obj_free(struct kwt_obj *o)
{
	kfree(o);
	barrier();	/* no tail call: kfree's call site stays in here */
}

static DEFINE_SPINLOCK(kwt_stress_lock);
static u32 kwt_stress_newest;

struct kwt_stress {
	struct completion done;
	unsigned int n, m;
	int ret;
};

static noinline struct kwt_obj *kwt_stress_alloc(void)
{
	struct kwt_obj *o;

	spin_lock(&kwt_stress_lock);
	o = kzalloc(sizeof(*o), GFP_ATOMIC);
	if (o) {
		o->head = kwt_stress_newest + 1;
		WRITE_ONCE(kwt_stress_newest, o->head);
	}
	spin_unlock(&kwt_stress_lock);
	return o;
}

static noinline void kwt_stress_write(struct kwt_obj *o, unsigned int m)
{
	unsigned long flags;
	unsigned int i;
	u64 newest;

	/* Interrupts off: no IPI can re-point this CPU during the stores. */
	local_irq_save(flags);
	for (i = 0; i < m; i++) {
		newest = READ_ONCE(kwt_stress_newest);
		WRITE_ONCE(o->field, o->head << 32 | newest);
	}
	local_irq_restore(flags);
}

static int kwt_stress_fn(void *arg)
{
	struct kwt_stress *st = arg;
	struct kwt_obj *o;
	unsigned int i;

	for (i = 0; i < st->n; i++) {
		o = kwt_stress_alloc();
		if (!o) {
			st->ret = -ENOMEM;
			break;
		}
		kwt_stress_write(o, st->m);
		kfree(o);
		cond_resched();
	}
	complete(&st->done);
	return 0;
}

static int kwt_stress_run(unsigned int n, unsigned int m)
{
	struct kwt_stress *st;
	struct task_struct *t;
	int cpu, ret = 0;

	st = kcalloc(nr_cpu_ids, sizeof(*st), GFP_KERNEL);
	if (!st)
		return -ENOMEM;
	cpus_read_lock();
	for_each_online_cpu(cpu) {
		init_completion(&st[cpu].done);
		st[cpu].n = n;
		st[cpu].m = m;
		st[cpu].ret = -ESRCH;
		t = kthread_create_on_cpu(kwt_stress_fn, &st[cpu], cpu,
					  "kwt_stress/%u");
		if (IS_ERR(t)) {
			ret = PTR_ERR(t);
			continue;
		}
		st[cpu].ret = 0;
		wake_up_process(t);
	}
	for_each_online_cpu(cpu) {
		if (st[cpu].ret == -ESRCH)
			continue;
		wait_for_completion(&st[cpu].done);
		if (st[cpu].ret)
			ret = st[cpu].ret;
	}
	cpus_read_unlock();
	kfree(st);
	return ret;
}

/* Copy a command written to one of the files, without surrounding space. */
static int kwt_get_cmd(char *buf, size_t size, const char __user *ubuf,
		       size_t count)
{
	if (count >= size)
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	strim(buf);
	return 0;
}

static ssize_t kwt_var_write(struct file *file, const char __user *ubuf,
			     size_t count, loff_t *ppos)
{
	char buf[32];
	u64 v, t0;
	int ret;

	ret = kwt_get_cmd(buf, sizeof(buf), ubuf, count);
	if (ret)
		return ret;

	mutex_lock(&kwt_lock);
	if (!strcmp(buf, "read")) {
		kwt_read_var();
	} else if (sscanf(buf, "write %llu", &v) == 1) {
		kwt_write_var(v);
	} else if (sscanf(buf, "burst %llu", &v) == 1 && v <= KWT_MAX_BURST) {
		t0 = ktime_get_ns();
		kwt_burst_var(v);
		kwt_burst_ns = ktime_get_ns() - t0;
	} else if (sscanf(buf, "tick %llu", &v) == 1) {
		ret = kwt_tick(v);
	} else if (sscanf(buf, "hog %llu", &v) == 1) {
		ret = kwt_hog_cpu(v);
	} else if (!strcmp(buf, "unhog")) {
		kwt_unhog();
	} else {
		ret = -EINVAL;
	}
	mutex_unlock(&kwt_lock);
	return ret ? ret : count;
}

static ssize_t kwt_var_read(struct file *file, char __user *ubuf,
			    size_t count, loff_t *ppos)
{
	char buf[64];
	int len;

	mutex_lock(&kwt_lock);
	len = scnprintf(buf, sizeof(buf), "%llu %llu %u\n", kwt_read_var(),
			kwt_burst_ns, kwt_nhog);
	mutex_unlock(&kwt_lock);
	return simple_read_from_buffer(ubuf, count, ppos, buf, len);
}

static const struct file_operations kwt_var_fops = {
	.write = kwt_var_write,
	.read = kwt_var_read,
};

static ssize_t kwt_obj_write_op(struct file *file, const char __user *ubuf,
				size_t count, loff_t *ppos)
{
	char buf[32];
	unsigned int n, m;
	u64 v;
	int ret;

	ret = kwt_get_cmd(buf, sizeof(buf), ubuf, count);
	if (ret)
		return ret;

	mutex_lock(&kwt_lock);
	if (sscanf(buf, "stress %u %u", &n, &m) == 2) {
		if (n > KWT_MAX_STRESS || m > KWT_MAX_STRESS)
			ret = -EINVAL;
		else
			ret = kwt_stress_run(n, m);
	} else if (sscanf(buf, "churn %u", &n) == 1) {
		if (n > KWT_MAX_STRESS)
			ret = -EINVAL;
		for (m = 0; !ret && m < n; m++)
			kfree(kwt_obj_alloc());
	} else if (!strcmp(buf, "alloc")) {
		if (kwt_obj)
			ret = -EBUSY;
		else
			kwt_obj = kwt_obj_alloc();
		if (!ret && !kwt_obj)
			ret = -ENOMEM;
	} else if (!strcmp(buf, "free")) {
		kwt_obj_free(kwt_obj);
		kwt_obj = NULL;
	} else if (sscanf(buf, "write %llu", &v) == 1) {
		if (kwt_obj)
			kwt_obj_write(kwt_obj, v);
		else
			ret = -ENOENT;
	} else {
		ret = -EINVAL;
	}
	mutex_unlock(&kwt_lock);
	return ret ? ret : count;
}

static ssize_t kwt_obj_read(struct file *file, char __user *ubuf,
			    size_t count, loff_t *ppos)
{
	char buf[32];
	int len;

	mutex_lock(&kwt_lock);
	len = scnprintf(buf, sizeof(buf), "obj=0x%lx\n", (unsigned long)kwt_obj);
	mutex_unlock(&kwt_lock);
	return simple_read_from_buffer(ubuf, count, ppos, buf, len);
}

static const struct file_operations kwt_obj_fops = {
	.write = kwt_obj_write_op,
	.read = kwt_obj_read,
};

static int __init kwt_init(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		hrtimer_init(per_cpu_ptr(&kwt_tick_timer, cpu), CLOCK_MONOTONIC,
			     HRTIMER_MODE_REL_PINNED);
		per_cpu_ptr(&kwt_tick_timer, cpu)->function = kwt_tick_fn;
	}
	kwt_dir = debugfs_create_dir("kwatch_wprobe", NULL);
	debugfs_create_file("var", 0600, kwt_dir, NULL, &kwt_var_fops);
	debugfs_create_file("obj", 0600, kwt_dir, NULL, &kwt_obj_fops);
	return 0;
}

static void __exit kwt_exit(void)
{
	debugfs_remove_recursive(kwt_dir);
	kwt_tick_stop();
	kwt_unhog();
	kfree(kwt_obj);
}

module_init(kwt_init);
module_exit(kwt_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Targets for the kwatch wprobes suite");
