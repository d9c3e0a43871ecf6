// SPDX-License-Identifier: GPL-2.0
/* Kernel log to crash reports, against real reports of the test guest in
 * data/: *.kmsg and *.log are recorded by the record_reports VM suite (see
 * data/README); *.console are cut verbatim from the guest's console log
 * (/var/cache/kwatch/runs/<run>/console.log: CRLF line ends, no
 * timestamps, test output around the report):
 *	kasan_nested.console       KASAN in overflow_on_nested_buffer
 *	kstackwatch.console        KStackWatch catch of a local variable
 *	kstackwatch_canary.console KStackWatch catch of a stack canary
 *	kstackwatch_module.console KStackWatch catch in a module's function */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "kmsg.h"
#include "ksym.h"
#include "util.h"

#define GOT_MAX 4
#define SEP "=================================================================="

struct got {
	unsigned int n;
	struct kmsg_report r[GOT_MAX];
};

static int collect(const struct kmsg_report *r, void *userdata)
{
	struct got *g = userdata;

	assert_int_equal(strlen(r->text), r->text_len);
	if (g->n < GOT_MAX)
		g->r[g->n] = *r;
	g->n++;
	return 0;
}

static char *fixture(const char *name)
{
	char path[512], *buf;
	size_t len;

	snprintf(path, sizeof(path), "%s/%s", KW_TEST_DATA, name);
	if (kw_read_file(path, 1 << 20, &buf, &len) < 0)
		fail_msg("cannot read %s", path);
	return buf;
}

/* Each line of text through kmsg_strip() and kmsg_feed(). */
static void feed_text(struct kmsg_parser *p, struct got *g, const char *text)
{
	const char *s, *m;
	uint64_t ts;

	for (s = text; *s; s += strcspn(s, "\n"), s += *s == '\n') {
		m = kmsg_strip(s, &ts, NULL);
		if (m)
			assert_int_equal(kmsg_feed(p, m, ts, collect, g), 0);
	}
}

/* The guest's symbols around its return trampoline (data/README). */
static struct ksym syms;

static bool trampoline(const char *sym, void *ud)
{
	(void)ud;
	if (!syms.n)
		assert_int_equal(ksym_load(&syms, KW_TEST_DATA "/kallsyms_trampoline"), 0);
	return ksym_trampoline_after(&syms, sym);
}

/* All of text, then EOF. */
static struct got *parse(const char *text)
{
	struct got *g = calloc(1, sizeof(*g));
	struct kmsg_parser p;

	assert_non_null(g);
	assert_int_equal(kmsg_parser_init(&p), 0);
	p.at_end_is_trampoline = trampoline;
	feed_text(&p, g, text);
	assert_int_equal(kmsg_flush(&p, collect, g), 0);
	kmsg_parser_free(&p);
	return g;
}

static struct got *parse_fixture(const char *name)
{
	char *text = fixture(name);
	struct got *g = parse(text);

	free(text);
	return g;
}

static void strip(void **state)
{
	uint64_t ts, seq;
	const char *m;

	(void)state;
	m = kmsg_strip("6,1234,5678901,-;usb 1-1: new device\n SUBSYSTEM=usb\n DEVICE=c189:1\n",
		       &ts, &seq);
	assert_string_equal(m, "usb 1-1: new device\n SUBSYSTEM=usb\n DEVICE=c189:1\n");
	assert_int_equal(ts, 5678901);
	assert_int_equal(seq, 1234);
	m = kmsg_strip("4,339,5140900,c,caller=T1;x", &ts, &seq);
	assert_string_equal(m, "x");
	assert_int_equal(seq, 339);
	/* Written to /dev/kmsg by a process (facility user): not kernel. */
	assert_null(kmsg_strip("12,5,6,-;BUG: KASAN: fake in x+0x1/0x2", &ts, &seq));
	assert_int_equal(seq, 5);
	assert_int_equal(ts, 6);

	m = kmsg_strip("[   12.345678] BUG: x", &ts, &seq);
	assert_string_equal(m, "BUG: x");
	assert_int_equal(ts, 12345678);
	assert_int_equal(seq, KMSG_SEQ_NONE);
	m = kmsg_strip("[    0.000100][    T1] init", &ts, NULL);
	assert_string_equal(m, "init");
	assert_int_equal(ts, 100);
	/* pstore's dumps: the console form after the syslog priority. */
	m = kmsg_strip("<4>[   12.345678] WARNING: x", &ts, &seq);
	assert_string_equal(m, "WARNING: x");
	assert_int_equal(ts, 12345678);
	assert_int_equal(seq, KMSG_SEQ_NONE);
	assert_null(kmsg_strip("<13>[    1.000000] BUG: KASAN: from a process", &ts, NULL));
	m = kmsg_strip("<4>Oops: 0002 [#1] SMP KASAN", &ts, NULL);	/* no PRINTK_TIME */
	assert_string_equal(m, "Oops: 0002 [#1] SMP KASAN");
	assert_int_equal(ts, 0);
	assert_string_equal(kmsg_strip("<4x> y", NULL, NULL), "<4x> y");
	m = kmsg_strip("[ 1.5]", &ts, NULL);
	assert_string_equal(m, "");
	assert_int_equal(ts, 1500000);

	/* Neither header: the line as it is. */
	m = kmsg_strip("6,abc;x", &ts, &seq);
	assert_string_equal(m, "6,abc;x");
	assert_int_equal(ts, 0);
	assert_string_equal(kmsg_strip("[12] x", NULL, NULL), "[12] x");
	assert_string_equal(kmsg_strip("    # [   44.387462] BUG: KASAN", NULL, NULL),
			    "    # [   44.387462] BUG: KASAN");
}

/* /dev/kmsg records with continuation lines: only the message counts. */
static void kmsg_records(void **state)
{
	static const char *const rec[] = {
		"4,1,100,-;------------[ cut here ]------------\n",
		"4,2,101,-;WARNING: CPU: 0 PID: 1 at lib/x.c:3 xf+0x1/0x8\n SUBSYSTEM=x\n",
		"4,3,102,-;Call Trace:\n",
		"4,4,103,-; <TASK>\n",
		"4,5,104,-; yf+0x2/0x9\n DEVICE=+x:y\n",
		"4,6,105,-; </TASK>\n",
		"4,7,106,-;---[ end trace 0000000000000000 ]---\n SUBSYSTEM=x\n",
	};
	struct got g = { 0 };
	struct kmsg_parser p;
	uint64_t ts, seq;
	const char *m;
	size_t i;

	(void)state;
	assert_int_equal(kmsg_parser_init(&p), 0);
	for (i = 0; i < ARRAY_SIZE(rec); i++) {
		m = kmsg_strip(rec[i], &ts, &seq);
		assert_int_equal(seq, i + 1);
		assert_int_equal(kmsg_feed(&p, m, ts, collect, &g), 0);
	}
	kmsg_parser_free(&p);
	assert_int_equal(g.n, 1);
	assert_int_equal(g.r[0].ts_usec, 100);
	assert_true(g.r[0].complete);
	assert_int_equal(g.r[0].lines, 7);
	assert_null(strstr(g.r[0].text, "SUBSYSTEM"));
	assert_null(strstr(g.r[0].text, "DEVICE"));
	assert_string_equal(g.r[0].key, "warning:xf:yf");
}

/* What one recorded report must give. */
struct want {
	const char *file;
	unsigned int reports, index;	/* reports in the file, this one's */
	enum kmsg_kind kind;
	const char *title, *function, *location, *module, *watched;
	enum kmsg_access access;
	uint64_t size, address;		/* address 0: has_address false */
	uint64_t ts_usec;
	unsigned int lines;
	const char *key;
	const char *frames[KMSG_FRAMES_MAX + 1];
};

#define SYSCALL_FRAMES "full_proxy_write", "vfs_write", "ksys_write", "do_syscall_64", \
	"entry_SYSCALL_64_after_hwframe"

static const struct want recorded[] = {
	{
		/* The KTAP echo of its title after it ("    # [ ts] BUG:
		 * KASAN") starts nothing. */
		"kasan_nested.console", 1, 0, KMSG_KASAN,
		"BUG: KASAN: slab-out-of-bounds in overflow_on_nested_buffer+0x44/0x60",
		"overflow_on_nested_buffer", "overflow_on_nested_buffer+0x44/0x60", "", "",
		KMSG_ACCESS_READ, 1, 0xffff8880052e83a0, 0, 71,
		"kasan:overflow_on_nested_buffer:kfuzztest_input_write:full_proxy_write",
		{ "overflow_on_nested_buffer", "kfuzztest_input_write", SYSCALL_FRAMES },
	}, {
		/* ts: of the "=====" before the title. */
		"kasan_module.log", 1, 0, KMSG_KASAN,
		"BUG: KASAN: slab-out-of-bounds in kwatch_platform_oob_read.constprop.0.isra.0"
		"+0x12/0x17 [kwatch_platform]",
		"kwatch_platform_oob_read.constprop.0.isra.0",
		"kwatch_platform_oob_read.constprop.0.isra.0+0x12/0x17", "kwatch_platform", "",
		KMSG_ACCESS_READ, 1, 0xffff888006956c8d, 31258493, 67,
		"kasan:kwatch_platform_oob_read.constprop.0.isra.0:kwp_kasan_write.cold:"
		"full_proxy_write",
		{ "kwatch_platform_oob_read.constprop.0.isra.0", "kwp_kasan_write.cold",
		  SYSCALL_FRAMES },
	}, {
		/* Its dump_stack() is part of it, and the #DB handler's
		 * frames are not the corrupting code's callers. */
		"kstackwatch.console", 1, 0, KMSG_KSTACKWATCH,
		"KStackWatch: caught stack corruption", "silent_corruption_corrupting",
		"silent_corruption_corrupting+0x1e/0x20", "", "silent_corruption_victim",
		KMSG_ACCESS_WRITE, 8, 0xffff888008007cb0, 0, 61,
		"kstackwatch:silent_corruption_corrupting:silent_corruption_victim:"
		"test_proc_write",
		{ "silent_corruption_corrupting", "silent_corruption_victim",
		  "test_proc_write", "proc_reg_write", "vfs_write", "ksys_write", "do_syscall_64",
		  "entry_SYSCALL_64_after_hwframe" },
	}, {
		"kstackwatch_canary.console", 1, 0, KMSG_KSTACKWATCH,
		"KStackWatch: caught stack corruption", "ksw_watch_fire",
		"ksw_watch_fire+0x2f/0x50", "", "canary_test_write",
		KMSG_ACCESS_WRITE, 8, 0xffff88800533fcd0, 0, 58,
		/* The exit probe's rethook trampoline stands where
		 * canary_test_write's return address into test_proc_write was
		 * ("trace_clock_x86_tsc+0x10/0x10"): not a caller. */
		"kstackwatch:ksw_watch_fire:canary_test_write:proc_reg_write",
		{ "ksw_watch_fire", "canary_test_write", "proc_reg_write",
		  "vfs_write", "ksys_write", "do_syscall_64", "entry_SYSCALL_64_after_hwframe" },
	}, {
		/* A module's function watched (MODULE:FUNCTION in the kernel's
		 * lines): watched is the function. */
		"kstackwatch_module.console", 1, 0, KMSG_KSTACKWATCH,
		"KStackWatch: caught stack corruption", "kwum_fill.constprop.0",
		"kwum_fill.constprop.0+0x1b/0x20", "kwusermod", "kwum_victim",
		KMSG_ACCESS_WRITE, 8, 0xffff88800a0a7c28, 0, 66,
		"kstackwatch:kwum_fill.constprop.0:kwum_victim:full_proxy_write",
		{ "kwum_fill.constprop.0", "kwum_victim", SYSCALL_FRAMES },
	}, {
		/* ts: of the cut-here line. */
		"warning.log", 1, 0, KMSG_WARNING,
		"WARNING: CPU: 1 PID: 243 at /var/cache/kwatch/build/modules/platform/"
		"kwatch_platform.c:167 kwatch_platform_warn+0x11/0x20 [kwatch_platform]",
		"kwatch_platform_warn", "kwatch_platform_warn+0x11/0x20", "kwatch_platform", "",
		KMSG_ACCESS_UNKNOWN, 0, 0, 36103186, 42,
		"warning:kwatch_platform_warn:kwp_crash_write:full_proxy_write",
		{ "kwatch_platform_warn", "kwp_crash_write", SYSCALL_FRAMES },
	}, {
		/* The registers printed again after its end belong to
		 * nothing. */
		"bug.log", 1, 0, KMSG_BUG,
		"kernel BUG at /var/cache/kwatch/build/modules/platform/kwatch_platform.c:172!",
		"kwatch_platform_bug", "kwatch_platform_bug+0x5/0x10", "kwatch_platform", "",
		KMSG_ACCESS_UNKNOWN, 0, 0, 40945259, 43,
		"bug:kwatch_platform_bug:kwp_crash_write:full_proxy_write",
		{ "kwatch_platform_bug", "kwp_crash_write", SYSCALL_FRAMES },
	}, {
		/* gpf.log: the KASAN report of the wild store, then the
		 * general protection fault it leads to. */
		"gpf.log", 2, 0, KMSG_KASAN,
		"BUG: KASAN: wild-memory-access in kwatch_platform_store.constprop.0+0x18/0x30 "
		"[kwatch_platform]",
		"kwatch_platform_store.constprop.0", "kwatch_platform_store.constprop.0+0x18/0x30",
		"kwatch_platform", "", KMSG_ACCESS_WRITE, 8, 0x9ead000000000100, 45766688, 34,
		"kasan:kwatch_platform_store.constprop.0:kwp_crash_write:full_proxy_write",
		{ "kwatch_platform_store.constprop.0", "kwp_crash_write", SYSCALL_FRAMES },
	}, {
		"gpf.log", 2, 1, KMSG_GPF,
		"general protection fault, probably for non-canonical address "
		"0x9ead000000000100: 0000 [#2] SMP KASAN",
		"kwatch_platform_store.constprop.0", "kwatch_platform_store.constprop.0+0x18/0x30",
		"kwatch_platform", "", KMSG_ACCESS_UNKNOWN, 0, 0x9ead000000000100, 45772891, 39,
		"gpf:kwatch_platform_store.constprop.0:kwp_crash_write:full_proxy_write",
		{ "kwatch_platform_store.constprop.0", "kwp_crash_write", SYSCALL_FRAMES },
	}, {
		"null.log", 1, 0, KMSG_OOPS,
		"BUG: kernel NULL pointer dereference, address: 0000000000000010",
		"kwatch_platform_null_store", "kwatch_platform_null_store+0x5/0x20",
		"kwatch_platform", "", KMSG_ACCESS_WRITE, 0, 0x10, 50627616, 45,
		"oops:kwatch_platform_null_store:kwp_crash_write:full_proxy_write",
		{ "kwatch_platform_null_store", "kwp_crash_write", SYSCALL_FRAMES },
	},
};

static void check(const struct kmsg_report *r, const struct want *w)
{
	unsigned int i;

	assert_int_equal(r->kind, w->kind);
	assert_string_equal(r->kind_name, kmsg_kind_name[w->kind]);
	assert_string_equal(r->title, w->title);
	assert_string_equal(r->function, w->function);
	assert_string_equal(r->location, w->location);
	assert_string_equal(r->module, w->module);
	assert_string_equal(r->watched, w->watched);
	assert_int_equal(r->access, w->access);
	assert_int_equal(r->size, w->size);
	assert_int_equal(r->has_address, w->address != 0);
	assert_int_equal(r->address, w->address);
	assert_int_equal(r->ts_usec, w->ts_usec);
	assert_int_equal(r->lines, w->lines);
	assert_string_equal(r->key, w->key);
	for (i = 0; i < KMSG_FRAMES_MAX && w->frames[i]; i++) {
		assert_true(i < r->nframes);
		assert_string_equal(r->frames[i], w->frames[i]);
	}
	assert_int_equal(r->nframes, i);
	assert_true(r->complete);
	assert_false(r->truncated);
	assert_null(strchr(r->text, '\r'));
}

static void recorded_reports(void **state)
{
	const struct want *w;
	struct got *g;

	(void)state;
	for (w = recorded; w < recorded + ARRAY_SIZE(recorded); w++) {
		print_message("# %s, report %u\n", w->file, w->index);
		g = parse_fixture(w->file);
		assert_int_equal(g->n, w->reports);
		check(&g->r[w->index], w);
		free(g);
	}
}

static bool text_ends(const struct kmsg_report *r, const char *tail)
{
	size_t n = strlen(tail);

	return r->text_len >= n && strcmp(r->text + r->text_len - n, tail) == 0;
}

static bool text_starts(const struct kmsg_report *r, const char *head)
{
	return strncmp(r->text, head, strlen(head)) == 0;
}

/* What goes into the text: from the first line to the end line, no more. */
static void report_text(void **state)
{
	struct got *g;

	(void)state;
	g = parse_fixture("kasan_nested.console");
	assert_true(text_starts(&g->r[0], SEP "\nBUG: KASAN: slab-out-of-bounds in "
				"overflow_on_nested_buffer"));
	assert_true(text_ends(&g->r[0], "\n ffff8880052e8480: 00 00 00 00 00 00 00 fc fc fc fc fc "
			      "fc fc fc fc\n" SEP));
	assert_null(strstr(g->r[0].text, "parser_kunit"));
	assert_null(strstr(g->r[0].text, "Disabling lock debugging"));
	free(g);

	g = parse_fixture("kstackwatch.console");
	assert_true(text_starts(&g->r[0], "kstackwatch: ========== KStackWatch: caught stack "
				"corruption ==========\nkstackwatch: config: "));
	/* Which watch fired: its line, for the crash event. */
	assert_string_equal(g->r[0].watch_line, "silent_corruption_victim+0x61 16:8");
	assert_non_null(strstr(g->r[0].text, "\nCPU: 0 PID: 2439 Comm: run.sh"));
	assert_true(text_ends(&g->r[0], "\n </TASK>\nkstackwatch: ========== KStackWatch end "
			      "=========="));
	free(g);

	/* The cut-here line and the WARN() message before the title. */
	g = parse_fixture("warning.log");
	assert_true(text_starts(&g->r[0], "------------[ cut here ]------------\n"
				"kwatch_platform: WARNING on request\nWARNING: CPU: 1 "));
	assert_true(text_ends(&g->r[0], "\n </TASK>\n---[ end trace 0000000000000000 ]---"));
	free(g);

	g = parse_fixture("null.log");
	assert_non_null(strstr(g->r[0].text, "\nOops: 0002 [#3] SMP KASAN\n"));
	assert_true(text_ends(&g->r[0], "\nCR2: 0000000000000010\n"
			      "---[ end trace 0000000000000000 ]---"));
	free(g);
}

/* The raw /dev/kmsg records give what their console form gives. */
static void kmsg_equals_console(void **state)
{
	static const char *const name[] = { "kasan_module", "warning", "bug", "gpf", "null" };
	char kmsg[64], log[64];
	struct got *a, *b;
	unsigned int i, j;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(name); i++) {
		snprintf(kmsg, sizeof(kmsg), "%s.kmsg", name[i]);
		snprintf(log, sizeof(log), "%s.log", name[i]);
		a = parse_fixture(kmsg);
		b = parse_fixture(log);
		assert_true(a->n >= 1);
		assert_int_equal(a->n, b->n);
		for (j = 0; j < a->n; j++) {
			assert_string_equal(a->r[j].key, b->r[j].key);
			assert_string_equal(a->r[j].text, b->r[j].text);
			assert_int_equal(a->r[j].ts_usec, b->r[j].ts_usec);
			assert_int_equal(a->r[j].address, b->r[j].address);
			assert_true(a->r[j].complete);
		}
		free(a);
		free(b);
	}
}

/* text with line inserted after the line where after first occurs. */
static char *insert_after(const char *text, const char *after, const char *line)
{
	const char *at = strstr(text, after);
	size_t head;
	char *s;

	assert_non_null(at);
	head = at - text + strcspn(at, "\n") + 1;
	s = malloc(strlen(text) + strlen(line) + 2);
	assert_non_null(s);
	memcpy(s, text, head);
	sprintf(s + head, "%s\n%s", line, text + head);
	return s;
}

/* Other CPUs' lines inside a report are kept with it. */
static void interleaved(void **state)
{
	char *text = fixture("kasan_module.log"), *a, *b;
	struct got *g, *ref = parse(text);

	(void)state;
	a = insert_after(text, "Read of size 1", "[   31.259700] random: crng init done");
	b = insert_after(a, "page dumped because",
			 "[   31.261000] systemd[1]: Started foo.service.");
	g = parse(b);
	assert_int_equal(g->n, 1);
	assert_string_equal(g->r[0].key, ref->r[0].key);
	assert_int_equal(g->r[0].lines, ref->r[0].lines + 2);
	assert_non_null(strstr(g->r[0].text, "\nrandom: crng init done\n"));
	assert_non_null(strstr(g->r[0].text, "\nsystemd[1]: Started foo.service.\n"));
	assert_true(g->r[0].complete);
	free(text);
	free(a);
	free(b);
	free(g);
	free(ref);
}

static void back_to_back(void **state)
{
	char *a = fixture("kasan_nested.console"), *b = fixture("kstackwatch.console");
	char *both = malloc(strlen(a) + strlen(b) + 1);
	struct got *g;

	(void)state;
	assert_non_null(both);
	strcpy(both, a);
	strcat(both, b);
	g = parse(both);
	assert_int_equal(g->n, 2);
	assert_int_equal(g->r[0].kind, KMSG_KASAN);
	assert_int_equal(g->r[1].kind, KMSG_KSTACKWATCH);
	assert_true(g->r[0].complete && g->r[1].complete);
	free(g);

	/* A report that starts while another is open ends that one, which
	 * is delivered incomplete. */
	strcpy(both, "WARNING: CPU: 0 PID: 1 at a.c:1 af+0x1/0x2\nsome line\n");
	strcat(both, a);
	g = parse(both);
	assert_int_equal(g->n, 2);
	assert_int_equal(g->r[0].kind, KMSG_WARNING);
	assert_false(g->r[0].complete);
	/* The fixture's first line and its "=====" went to it. */
	assert_int_equal(g->r[0].lines, 4);
	assert_int_equal(g->r[1].kind, KMSG_KASAN);
	assert_true(g->r[1].complete);
	free(g);
	free(both);
	free(a);
	free(b);
}

static void cut_short(void **state)
{
	char *text = fixture("kasan_nested.console"), *cut;
	struct got *g;

	(void)state;
	cut = strstr(text, " kfuzztest_input_write+0x1f2/0x400");
	assert_non_null(cut);
	*cut = '\0';
	g = parse(text);
	assert_int_equal(g->n, 1);
	assert_int_equal(g->r[0].kind, KMSG_KASAN);
	assert_false(g->r[0].complete);
	assert_int_equal(g->r[0].access, KMSG_ACCESS_READ);
	assert_string_equal(g->r[0].key, "kasan:overflow_on_nested_buffer");
	free(g);
	free(text);

	g = parse("nothing\nto see\n");
	assert_int_equal(g->n, 0);
	free(g);
}

static void line_cap(void **state)
{
	struct got g = { 0 };
	struct kmsg_parser p;
	char line[300];
	unsigned int i;

	(void)state;
	assert_int_equal(kmsg_parser_init(&p), 0);
	assert_int_equal(kmsg_feed(&p, "BUG: KASAN: use-after-free in f+0x1/0x2", 5, collect, &g),
			 0);
	memset(line, 'x', sizeof(line) - 1);
	line[sizeof(line) - 1] = '\0';
	for (i = 0; i < 2 * KMSG_LINES_MAX; i++)
		assert_int_equal(kmsg_feed(&p, line, 6, collect, &g), 0);
	assert_int_equal(kmsg_feed(&p, SEP, 7, collect, &g), 0);
	assert_int_equal(kmsg_flush(&p, collect, &g), 0);
	kmsg_parser_free(&p);
	assert_int_equal(g.n, 1);
	assert_int_equal(g.r[0].lines, KMSG_LINES_MAX);
	assert_false(g.r[0].complete);
	assert_true(g.r[0].truncated);
	assert_true(g.r[0].text_len < KMSG_TEXT_MAX);
	assert_int_equal(g.r[0].ts_usec, 5);
}

/* BUG: lines without an oops end with their stack dump; panics. */
static void stack_bug_and_panic(void **state)
{
	struct got *g = parse(
		"BUG: sleeping function called from invalid context at mm/slab.h:1\n"
		"CPU: 0 PID: 1 Comm: sh\n"
		"Call Trace:\n"
		" <TASK>\n"
		" dump_stack_lvl+0x33/0x42\n"
		" __might_resched+0x10/0x20\n"
		" ? unreliable+0x1/0x2\n"
		" kmem_cache_alloc+0x1/0x2\n"
		" caller+0x1/0x2\n"
		" </TASK>\n"
		"unrelated\n"
		"Kernel panic - not syncing: Fatal exception\n"
		"Kernel Offset: disabled\n"
		"---[ end Kernel panic - not syncing: Fatal exception ]---\n");

	(void)state;
	assert_int_equal(g->n, 2);
	assert_int_equal(g->r[0].kind, KMSG_BUG);
	assert_true(g->r[0].complete);
	assert_int_equal(g->r[0].lines, 10);
	assert_string_equal(g->r[0].function, "");
	assert_string_equal(g->r[0].key, "bug:__might_resched:kmem_cache_alloc:caller");
	assert_int_equal(g->r[1].kind, KMSG_PANIC);
	assert_string_equal(g->r[1].title, "Kernel panic - not syncing: Fatal exception");
	assert_string_equal(g->r[1].key, "panic:?");
	assert_true(g->r[1].complete);
	free(g);
}

static void dedup(void **state)
{
	char *text = fixture("kasan_module.log"), *other;
	struct got *a = parse(text), *b, *c;
	struct kmsg_dedup *d = malloc(sizeof(*d));
	char key[32];
	unsigned int i;

	(void)state;
	assert_non_null(d);
	other = strstr(text, "kwp_kasan_write.cold+0x21/0x3e");
	assert_non_null(other);
	memcpy(other, "kwp_other_write", 15);	/* another caller */
	b = parse(text);
	c = parse_fixture("kasan_nested.console");
	assert_string_not_equal(a->r[0].key, b->r[0].key);

	kmsg_dedup_init(d);
	assert_int_equal(kmsg_dedup_seen(d, a->r[0].key), 1);
	assert_int_equal(kmsg_dedup_seen(d, a->r[0].key), 2);
	assert_int_equal(kmsg_dedup_seen(d, b->r[0].key), 1);
	assert_int_equal(kmsg_dedup_seen(d, c->r[0].key), 1);
	assert_int_equal(kmsg_dedup_seen(d, a->r[0].key), 3);
	/* Full: new keys count 1 each time, held ones go on counting. */
	for (i = 3; i < KMSG_DEDUP_MAX; i++) {
		snprintf(key, sizeof(key), "oops:f%u", i);
		assert_int_equal(kmsg_dedup_seen(d, key), 1);
	}
	assert_int_equal(d->used, KMSG_DEDUP_MAX);
	assert_int_equal(kmsg_dedup_seen(d, "oops:new"), 1);
	assert_int_equal(kmsg_dedup_seen(d, "oops:new"), 1);
	assert_int_equal(d->untracked, 2);
	assert_int_equal(kmsg_dedup_seen(d, "oops:f999"), 2);
	assert_int_equal(kmsg_dedup_seen(d, b->r[0].key), 2);
	kmsg_dedup_free(d);
	free(d);
	free(a);
	free(b);
	free(c);
	free(text);
}

static int fail_cb(const struct kmsg_report *r, void *userdata)
{
	(void)r;
	(void)userdata;
	return -EIO;
}

static void callback_error(void **state)
{
	struct kmsg_parser p;

	(void)state;
	assert_int_equal(kmsg_parser_init(&p), 0);
	assert_int_equal(kmsg_feed(&p, "WARNING: CPU: 0 PID: 1 at f+0x1/0x2", 0, fail_cb, NULL), 0);
	assert_int_equal(kmsg_feed(&p, "---[ end trace 0 ]---", 0, fail_cb, NULL), -EIO);
	assert_int_equal(kmsg_feed(&p, "WARNING: CPU: 0 PID: 1 at f+0x1/0x2", 0, fail_cb, NULL), 0);
	assert_int_equal(kmsg_flush(&p, fail_cb, NULL), -EIO);
	assert_int_equal(kmsg_flush(&p, fail_cb, NULL), 0);
	kmsg_parser_free(&p);
}

/* A frame printed at its symbol's end is dropped only when kallsyms says
 * a return trampoline follows that symbol; a noreturn call that was its
 * function's last instruction is a real caller and stays. */
static void frame_at_symbol_end(void **state)
{
	static const char text[] =
		"[    1.000000] ------------[ cut here ]------------\n"
		"[    1.000001] WARNING: CPU: 0 PID: 1 at lib/x.c:3 xf+0x1/0x8\n"
		"[    1.000002] Call Trace:\n"
		"[    1.000003]  <TASK>\n"
		"[    1.000004]  noreturn_caller+0x40/0x40\n"
		"[    1.000005]  trace_clock_x86_tsc+0x10/0x10\n"
		"[    1.000006]  yf+0x2/0x9\n"
		"[    1.000007]  </TASK>\n"
		"[    1.000008] ---[ end trace 0000000000000000 ]---\n";
	struct got *g;

	(void)state;
	g = parse(text);
	assert_int_equal(g->n, 1);
	assert_string_equal(g->r[0].key, "warning:xf:noreturn_caller:yf");
	assert_int_equal(g->r[0].nframes, 3);
	free(g);
}

/* The stack protector's panic: the function whose canary was overwritten,
 * and its module, from the title or a record's panic line. */
static void stack_protector(void **state)
{
	char f[KMSG_NAME_MAX], m[64];

	(void)state;
	assert_true(kmsg_stack_protector("Kernel panic - not syncing: stack-protector: Kernel stack "
					 "is corrupted in: kwatch_platform_smashed+0x9c/0xa0 "
					 "[kwatch_platform]", f, sizeof(f), m, sizeof(m)));
	assert_string_equal(f, "kwatch_platform_smashed");
	assert_string_equal(m, "kwatch_platform");
	assert_true(kmsg_stack_protector("stack-protector: Kernel stack is corrupted in: "
					 "do_sys_openat2.isra.0+0x1f4/0x300\nCPU: 0 PID: 1 [x]",
					 f, sizeof(f), m, sizeof(m)));
	assert_string_equal(f, "do_sys_openat2.isra.0");
	assert_string_equal(m, "");
	assert_false(kmsg_stack_protector("Kernel panic - not syncing: Fatal exception", f,
					  sizeof(f), m, sizeof(m)));
	assert_false(kmsg_stack_protector(NULL, f, sizeof(f), m, sizeof(m)));
	assert_false(kmsg_stack_protector("stack-protector: Kernel stack is corrupted in: +0x1/0x2",
					  f, sizeof(f), m, sizeof(m)));
	assert_false(kmsg_stack_protector("stack-protector: Kernel stack is corrupted in: 9f+0x1",
					  f, sizeof(f), m, sizeof(m)));
	/* A module name that is none: the function alone. */
	assert_true(kmsg_stack_protector("stack-protector: Kernel stack is corrupted in: g+0x1/0x2 "
					 "[a b]", f, sizeof(f), m, sizeof(m)));
	assert_string_equal(f, "g");
	assert_string_equal(m, "");
}

/* A KASAN stack-out-of-bounds report of the 6.1 guest's kernel, as
 * mm/kasan/report.c and report_generic.c print it: the title, the access,
 * the dump, then the frame (kasan_print_address_stack_frame()) at offset
 * @off of @frame, whose objects are @objs. */
#define STACK_OOB_HEAD \
	SEP "\n" \
	"BUG: KASAN: stack-out-of-bounds in kwatch_platform_stack_oob+0x6a/0xc0 " \
	"[kwatch_platform]\n" \
	"Write of size 1 at addr ffffc900003b7c68 by task sh/123\n" \
	"\n" \
	"CPU: 0 PID: 123 Comm: sh Tainted: G           O     N 6.1.192-kwatch+ #20 \n" \
	"Hardware name: QEMU Standard PC (Q35 + ICH9, 2009), BIOS 1.16.2-debian-1.16.2-1 " \
	"04/01/2014\n" \
	"Call Trace:\n" \
	" <TASK>\n" \
	" dump_stack_lvl+0x33/0x42\n" \
	" print_report+0x193/0x4a3\n" \
	" ? kwatch_platform_stack_oob+0x6a/0xc0 [kwatch_platform]\n" \
	" kasan_report+0xc5/0xf0\n" \
	" ? kwatch_platform_stack_oob+0x6a/0xc0 [kwatch_platform]\n" \
	" kwatch_platform_stack_oob+0x6a/0xc0 [kwatch_platform]\n" \
	" kwp_kasan_write+0x5c/0x90 [kwatch_platform]\n" \
	" full_proxy_write+0x82/0xb0\n" \
	" vfs_write+0x167/0x610\n" \
	" ksys_write+0xc6/0x160\n" \
	" do_syscall_64+0x3c/0x90\n" \
	" entry_SYSCALL_64_after_hwframe+0x4b/0xb5\n" \
	"RIP: 0033:0x7f52d5590350\n" \
	" </TASK>\n" \
	"\n"
#define STACK_OOB_TAIL \
	"\n" \
	"The buggy address belongs to a 4-page vmalloc region starting at 0xffffc900003b4000 " \
	"allocated at kernel_clone+0xd4/0x450\n" \
	"The buggy address belongs to the physical page:\n" \
	"page:000000004c77c348 refcount:1 mapcount:0 mapping:0000000000000000 index:0x0 " \
	"pfn:0x6956\n" \
	"flags: 0x100000000000000(node=0|zone=1)\n" \
	"page dumped because: kasan: bad access detected\n" \
	"\n" \
	"Memory state around the buggy address:\n" \
	" ffffc900003b7b00: 00 00 00 00 00 00 00 00 00 00 00 00 f1 f1 f1 f1\n" \
	">ffffc900003b7c00: 00 f2 f2 f2 04 f3 f3 f3 00 00 00 00 00 00 00 00\n" \
	"                   ^\n" \
	SEP "\n"
#define STACK_OOB_OBJS "This frame has 2 objects:\n [32, 40) 'buf'\n [64, 68) 'val:12'\n"

static char *stack_oob(const char *off, const char *frame, const char *objs)
{
	static char text[8192];
	int len;

	len = snprintf(text, sizeof(text), STACK_OOB_HEAD
		       "The buggy address belongs to stack of task sh/123\n"
		       " and is located at offset %s in frame:\n"
		       " %s\n"
		       "\n"
		       "%s" STACK_OOB_TAIL, off, frame, objs);
	assert_true(len > 0 && (size_t)len < sizeof(text));
	return text;
}

#define STACK_OOB_FRAME "kwatch_platform_stack_oob+0x0/0xc0 [kwatch_platform]"

/* kmsg_kasan_stack() on @text: true with @func, @var and @mod. */
static void kasan_stack_is(const char *text, const char *func, const char *var, const char *mod)
{
	char f[KMSG_NAME_MAX], v[KMSG_VAR_MAX], m[64];

	if (!kmsg_kasan_stack(text, f, sizeof(f), v, sizeof(v), m, sizeof(m)))
		fail_msg("no frame found in:\n%s", text);
	assert_string_equal(f, func);
	assert_string_equal(v, var);
	assert_string_equal(m, mod);
}

static void kasan_stack_none(const char *text)
{
	char f[KMSG_NAME_MAX], v[KMSG_VAR_MAX], m[64];

	if (kmsg_kasan_stack(text, f, sizeof(f), v, sizeof(v), m, sizeof(m)))
		fail_msg("%s %s [%s] found in:\n%s", f, v, m, text ? text : "(null)");
	assert_string_equal(f, "");
	assert_string_equal(v, "");
	assert_string_equal(m, "");
}

/* Each line of @text with a console timestamp, or as a /dev/kmsg record. */
static char *prefixed(const char *text, bool kmsg)
{
	static char out[16384];
	size_t o = 0;
	const char *s;
	unsigned int i = 0;
	int len;

	for (s = text; *s; s += strcspn(s, "\n"), s += *s == '\n', i++) {
		len = kmsg ? snprintf(out + o, sizeof(out) - o, "3,%u,42%06u,-;%.*s\n", 100 + i, i,
				      (int)strcspn(s, "\n"), s) :
			     snprintf(out + o, sizeof(out) - o, "[   42.%06u] %.*s\n", i,
				      (int)strcspn(s, "\n"), s);
		assert_true(len > 0 && (size_t)len < sizeof(out) - o);
		o += len;
	}
	return out;
}

/*
 * A KASAN stack-out-of-bounds report: the frame's function, its module and
 * the local next to the bad access; the report as kwatchd keeps it (a
 * crash's text), or with each line's console or /dev/kmsg prefix.
 */
static void kasan_stack(void **state)
{
	char f[KMSG_NAME_MAX], v[KMSG_VAR_MAX], m[64], *text, *p;
	struct got *g;

	(void)state;
	/* Past the end of buf, [32, 40): buf overflowed. */
	text = stack_oob("40", STACK_OOB_FRAME, STACK_OOB_OBJS);
	kasan_stack_is(text, "kwatch_platform_stack_oob", "buf", "kwatch_platform");
	kasan_stack_is(prefixed(text, false), "kwatch_platform_stack_oob", "buf",
		       "kwatch_platform");
	kasan_stack_is(prefixed(text, true), "kwatch_platform_stack_oob", "buf",
		       "kwatch_platform");
	/* Through the parser, as kwatchd-crash.c has the report. */
	g = parse(prefixed(text, false));
	assert_int_equal(g->n, 1);
	assert_int_equal(g->r[0].kind, KMSG_KASAN);
	kasan_stack_is(g->r[0].text, "kwatch_platform_stack_oob", "buf", "kwatch_platform");
	free(g);
	g = parse(prefixed(text, true));
	assert_int_equal(g->n, 1);
	kasan_stack_is(g->r[0].text, "kwatch_platform_stack_oob", "buf", "kwatch_platform");
	free(g);
	/* In the redzone between them: still buf's overflow. */
	kasan_stack_is(stack_oob("50", STACK_OOB_FRAME, STACK_OOB_OBJS),
		       "kwatch_platform_stack_oob", "buf", "kwatch_platform");
	/* Inside val, [64, 68): gcc's ":12" is not the name's. */
	kasan_stack_is(stack_oob("65", STACK_OOB_FRAME, STACK_OOB_OBJS),
		       "kwatch_platform_stack_oob", "val", "kwatch_platform");
	/* Past val, the last one. */
	kasan_stack_is(stack_oob("68", STACK_OOB_FRAME, STACK_OOB_OBJS),
		       "kwatch_platform_stack_oob", "val", "kwatch_platform");
	/* Before buf, the first: an underflow of buf. */
	kasan_stack_is(stack_oob("16", STACK_OOB_FRAME, STACK_OOB_OBJS),
		       "kwatch_platform_stack_oob", "buf", "kwatch_platform");
	/* Where the access is, from the local's start, and its size. */
	{
		int64_t rel = 0;
		uint64_t size = 0;

		assert_true(kmsg_kasan_stack_at(stack_oob("40", STACK_OOB_FRAME, STACK_OOB_OBJS),
						f, sizeof(f), v, sizeof(v), m, sizeof(m), &rel,
						&size));
		assert_int_equal(rel, 8);	/* buf is [32, 40) */
		assert_int_equal(size, 8);
		assert_true(kmsg_kasan_stack_at(stack_oob("16", STACK_OOB_FRAME, STACK_OOB_OBJS),
						f, sizeof(f), v, sizeof(v), m, sizeof(m), &rel,
						&size));
		assert_int_equal(rel, -16);
		assert_true(kmsg_kasan_stack_at(stack_oob("65", STACK_OOB_FRAME, STACK_OOB_OBJS),
						f, sizeof(f), v, sizeof(v), m, sizeof(m), &rel,
						&size));
		assert_int_equal(rel, 1);	/* inside val, [64, 68) */
		assert_int_equal(size, 4);
	}
	/* Objects in any order; the nearest below wins. */
	kasan_stack_is(stack_oob("70", STACK_OOB_FRAME, "This frame has 3 objects:\n"
				 " [64, 68) 'val'\n [32, 40) 'buf'\n [96, 104) 'p'\n"),
		       "kwatch_platform_stack_oob", "val", "kwatch_platform");
	/* One object; vmlinux's function, a clone; a module's with its build ID. */
	kasan_stack_is(stack_oob("48", "do_sys_openat2.isra.0+0x0/0x300",
				 "This frame has 1 object:\n [32, 48) 'how'\n"),
		       "do_sys_openat2.isra.0", "how", "");
	kasan_stack_is(stack_oob("32", "f+0x0/0x10 [m 0123456789abcdef]",
				 "This frame has 1 object:\n [32, 48) 'x_1'\n"), "f", "x_1", "m");

	/* No frame: KASAN could not read it (an internal error), or it has
	 * no description of its objects; no stack block at all. */
	kasan_stack_none(STACK_OOB_HEAD "The buggy address belongs to stack of task sh/123\n"
			 "KASAN internal error: frame info validation failed; invalid marker: 0\n"
			 STACK_OOB_TAIL);
	kasan_stack_none(STACK_OOB_HEAD "The buggy address belongs to stack of task sh/123\n"
			 " and is located at offset 40 in frame:\n"
			 " " STACK_OOB_FRAME "\n" STACK_OOB_TAIL);
	kasan_stack_none(STACK_OOB_HEAD STACK_OOB_TAIL);
	/* Not a stack-out-of-bounds report: a slab one (the guest's), or one
	 * with another title before the same frame. */
	text = fixture("kasan_module.log");
	kasan_stack_none(text);
	free(text);
	text = stack_oob("40", STACK_OOB_FRAME, STACK_OOB_OBJS);
	p = strstr(text, "stack-out-of-bounds");
	memcpy(p, "slab", 4);
	memmove(p + 4, p + 5, strlen(p + 5) + 1);
	assert_non_null(strstr(text, "\nBUG: KASAN: slab-out-of-bounds in kwatch_platform_stack"));
	kasan_stack_none(text);
	/* Anything unexpected in the frame. */
	kasan_stack_none(stack_oob("40", STACK_OOB_FRAME,
				   "This frame has 3 objects:\n [32, 40) 'buf'\n [64, 68) 'val'\n"));
	kasan_stack_none(stack_oob("40", STACK_OOB_FRAME,
				   "This frame has 1 objects:\n [32, 40) 'buf'\n"));
	kasan_stack_none(stack_oob("40", STACK_OOB_FRAME, "This frame has 0 objects:\n"));
	kasan_stack_none(stack_oob("x", STACK_OOB_FRAME, STACK_OOB_OBJS));
	kasan_stack_none(stack_oob("40", "0xffffffffc0001234", STACK_OOB_OBJS));
	kasan_stack_none(stack_oob("40", "9f+0x0/0x10", STACK_OOB_OBJS));
	kasan_stack_none(stack_oob("40", "f+0x0", STACK_OOB_OBJS));
	kasan_stack_none(stack_oob("40", "f+0x0/0x10 [a-b]", STACK_OOB_OBJS));
	kasan_stack_none(stack_oob("40", "f+0x0/0x10 [m] x", STACK_OOB_OBJS));
	kasan_stack_none(stack_oob("40", STACK_OOB_FRAME,
				   "This frame has 2 objects:\n [32, 40) 'buf\n [64, 68) 'val'\n"));
	kasan_stack_none(stack_oob("40", STACK_OOB_FRAME,
				   "This frame has 2 objects:\n [40, 32) 'buf'\n [64, 68) 'val'\n"));
	/* The local next to it has no name a watch file can give. */
	kasan_stack_none(stack_oob("40", STACK_OOB_FRAME,
				   "This frame has 2 objects:\n"
				   " [32, 40) '<unknown>'\n [64, 68) 'val'\n"));
	kasan_stack_none(stack_oob("40", STACK_OOB_FRAME,
				   "This frame has 2 objects:\n [32, 40) ''\n [64, 68) 'val'\n"));
	/* ...but one elsewhere in the frame may have none. */
	kasan_stack_is(stack_oob("65", STACK_OOB_FRAME,
				 "This frame has 2 objects:\n"
				 " [32, 40) '<unknown>'\n [64, 68) 'val'\n"),
		       "kwatch_platform_stack_oob", "val", "kwatch_platform");
	/* Garbage. */
	kasan_stack_none(NULL);
	kasan_stack_none("");
	kasan_stack_none("BUG: KASAN: stack-out-of-bounds in ");
	kasan_stack_none("BUG: KASAN: stack-out-of-bounds in f+0x1/0x2\n"
			 "The buggy address belongs to stack of task sh/123\n");
	kasan_stack_none("\xff\xfe\n\n[\n'\n");
	/* Outputs that do not fit. */
	text = stack_oob("40", STACK_OOB_FRAME, STACK_OOB_OBJS);
	assert_false(kmsg_kasan_stack(text, f, 8, v, sizeof(v), m, sizeof(m)));
	assert_false(kmsg_kasan_stack(text, f, sizeof(f), v, 3, m, sizeof(m)));
	assert_false(kmsg_kasan_stack(text, f, sizeof(f), v, sizeof(v), m, 8));
	assert_true(kmsg_kasan_stack(text, f, sizeof(f), v, 4, m, sizeof(m)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(frame_at_symbol_end),
		cmocka_unit_test(strip),
		cmocka_unit_test(kmsg_records),
		cmocka_unit_test(recorded_reports),
		cmocka_unit_test(report_text),
		cmocka_unit_test(kmsg_equals_console),
		cmocka_unit_test(interleaved),
		cmocka_unit_test(back_to_back),
		cmocka_unit_test(cut_short),
		cmocka_unit_test(line_cap),
		cmocka_unit_test(stack_bug_and_panic),
		cmocka_unit_test(dedup),
		cmocka_unit_test(callback_error),
		cmocka_unit_test(stack_protector),
		cmocka_unit_test(kasan_stack),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
