// SPDX-License-Identifier: GPL-2.0
/* Kernel log lines to whole crash reports, and their dedup table. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "kmsg.h"
#include "util.h"

const char *const kmsg_kind_name[_KMSG_KIND_MAX] = {
	[KMSG_KASAN] = "kasan",
	[KMSG_KSTACKWATCH] = "kstackwatch",
	[KMSG_WARNING] = "warning",
	[KMSG_BUG] = "bug",
	[KMSG_GPF] = "gpf",
	[KMSG_OOPS] = "oops",
	[KMSG_PANIC] = "panic",
};

const char *const kmsg_access_name[_KMSG_ACCESS_MAX] = {
	[KMSG_ACCESS_UNKNOWN] = "unknown",
	[KMSG_ACCESS_READ] = "read",
	[KMSG_ACCESS_WRITE] = "write",
};

/* How an open report ends ("---[ end Kernel panic" ends any). */
enum {
	END_SEP,	/* a "=====" line: KASAN, KFENCE */
	END_KSW,	/* "========== KStackWatch end" */
	END_TRACE,	/* "---[ end trace" */
	END_STACK,	/* the "</TASK>" closing its Call Trace */
	END_PANIC,
};

enum { TRACE_BEFORE, TRACE_IN, TRACE_DONE };

#define KSW_PREFIX	"kstackwatch: "	/* KStackWatch's pr_fmt */
#define PENDING_LINES	4		/* a preamble and three more */

static const struct start_rule {
	const char *prefix;
	enum kmsg_kind kind;
	int end;
	bool idle_only;			/* inside a report, part of it */
} start_rules[] = {
	{ "BUG: KASAN: ", KMSG_KASAN, END_SEP, false },
	{ "BUG: KFENCE: ", KMSG_BUG, END_SEP, false },
	{ "BUG: unable to handle ", KMSG_OOPS, END_TRACE, false },
	{ "BUG: kernel NULL pointer dereference", KMSG_OOPS, END_TRACE, false },
	{ "BUG: ", KMSG_BUG, END_STACK, false },
	{ "kernel BUG at ", KMSG_BUG, END_TRACE, false },
	{ "WARNING: CPU: ", KMSG_WARNING, END_TRACE, false },
	{ "general protection fault", KMSG_GPF, END_TRACE, false },
	{ "========== KStackWatch: caught ", KMSG_KSTACKWATCH, END_KSW, false },
	{ "Kernel panic - not syncing: ", KMSG_PANIC, END_PANIC, true },
};

/* "invalid opcode: 0000 [#1] ..." with no report open. */
static const struct start_rule oops_rule = { "", KMSG_OOPS, END_TRACE, true };

/* The reporting machinery at the top of a dump_stack() that does not
 * contain the faulting function. */
static const char *const internal_prefix[] = {
	"dump_stack", "show_stack", "print_report", "print_address_description",
	"kasan_", "__kasan_", "__asan_", "kfence_", "__kfence_", "ubsan_", "__ubsan_",
	"printk", "_printk", "vprintk", "panic", "__warn", "warn_", "report_bug",
	"handle_bug", "exc_", "asm_exc_", "ksw_",
};

static bool prefix(const char *s, const char *p)
{
	return strncmp(s, p, strlen(p)) == 0;
}

/* Copy len bytes of src into dst of size n, cut to fit. */
static void copy(char *dst, size_t n, const char *src, size_t len)
{
	if (len >= n)
		len = n - 1;
	memcpy(dst, src, len);
	dst[len] = '\0';
}

static const char *skip_spaces(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

/* Up to 19 decimal digits at *s, which is moved past them. */
static bool num(const char **s, uint64_t *v)
{
	const char *p = *s;
	uint64_t x = 0;

	for (; isdigit((unsigned char)*p); p++) {
		if (p - *s >= 19)
			return false;
		x = x * 10 + (uint64_t)(*p - '0');
	}
	if (p == *s)
		return false;
	*s = p;
	*v = x;
	return true;
}

/* The hex number after the first tag in s, past ':', spaces and "0x". */
static bool hex_after(const char *s, const char *tag, uint64_t *v)
{
	const char *p = strstr(s, tag);

	if (!p)
		return false;
	p += strlen(tag);
	while (*p == ':' || *p == ' ')
		p++;
	if (p[0] == '0' && p[1] == 'x')
		p += 2;
	if (!isxdigit((unsigned char)*p))
		return false;
	*v = strtoull(p, NULL, 16);
	return true;
}

static bool is_separator(const char *l)
{
	size_t n = strspn(l, "=");

	return n >= 20 && l[n] == '\0';
}

/* "RIP: 0010:", "Code: ", "R10: ", "FS:  ": a register dump line, which
 * can sit inside a Call Trace. */
static bool is_register_line(const char *l)
{
	size_t n = strspn(l, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789");

	return (n >= 2 && n <= 6 && l[n] == ':') || prefix(l, "Code: ");
}

/* ": 0000 [#1]", as in "Oops: 0002 [#3] SMP KASAN". */
static bool oops_marker(const char *l)
{
	const char *s = strstr(l, " [#"), *d;

	if (!s || s - l < 6 || s[-5] != ' ' || s[-6] != ':')
		return false;
	for (d = s - 4; d < s; d++)
		if (!isxdigit((unsigned char)*d))
			return false;
	d = s + 3;
	if (!isdigit((unsigned char)*d))
		return false;
	while (isdigit((unsigned char)*d))
		d++;
	return *d == ']';
}

/* The length of the name in a frame "func+0x12/0x40 [mod]"; 0 if s is not
 * one ("? func+...", "<TASK>"). */
static size_t frame_name(const char *s)
{
	size_t len = strcspn(s, " \t+");

	return len && prefix(s + len, "+0x") && strchr(s + len, '/') ? len : 0;
}

/* "+0xOFF/0xSIZE" with OFF == SIZE: the address is its symbol's end. */
static bool at_end(const char *s)
{
	unsigned long long off, size;
	char *e;

	if (!prefix(s, "+0x"))
		return false;
	off = strtoull(s + 3, &e, 16);
	if (!prefix(e, "/0x"))
		return false;
	size = strtoull(e + 3, NULL, 16);
	return off == size;
}

static bool same_name(const char *sym, const char *name)
{
	size_t len = strcspn(sym, "+ \t");

	return len == strlen(name) && strncmp(sym, name, len) == 0;
}

/* "func+0x44/0x60 [mod]" into function, location and module. */
static void set_sym(struct kmsg_report *r, const char *s)
{
	size_t len, mlen;
	const char *m;

	s = skip_spaces(s);
	len = strcspn(s, " \t");
	if (!len)
		return;
	copy(r->location, sizeof(r->location), s, len);
	copy(r->function, sizeof(r->function), s, strcspn(s, "+ \t"));
	r->module[0] = '\0';
	m = skip_spaces(s + len);
	if (*m == '[') {
		mlen = strcspn(m + 1, "]");
		if (mlen && m[1 + mlen] == ']')
			copy(r->module, sizeof(r->module), m + 1, mlen);
	}
}

/* "WARNING: CPU: 1 PID: 243 at file.c:167 func+0x11/0x20 [mod]", the
 * file:line being optional. */
static void warning_sym(struct kmsg_report *r, const char *b)
{
	const char *s = strstr(b, " at "), *sp;

	if (!s)
		return;
	s += 4;
	sp = strchr(s, ' ');
	if (sp && memchr(s, ':', sp - s))
		s = sp + 1;
	set_sym(r, s);
}

static void add_text(struct kmsg_report *r, const char *s, size_t len, unsigned int lines)
{
	size_t sep = r->text_len ? 1 : 0;

	r->lines += lines;
	if (r->truncated || r->text_len + sep + len >= sizeof(r->text)) {
		r->truncated = true;
		return;
	}
	if (sep)
		r->text[r->text_len++] = '\n';
	memcpy(r->text + r->text_len, s, len);
	r->text_len += len;
	r->text[r->text_len] = '\0';
}

/* A line outside any report: keep a "=====" or "cut here" line and the
 * few after it, which belong to a report that starts next. */
static void hold(struct kmsg_parser *p, const char *l, uint64_t ts)
{
	size_t len = strlen(l), sep;

	if (is_separator(l) || strstr(l, "[ cut here ]")) {
		p->pending_lines = 0;
		p->pending_len = 0;
		p->pending_ts = ts;
	} else if (!p->pending_lines) {
		return;
	}
	sep = p->pending_lines ? 1 : 0;
	if (p->pending_lines >= PENDING_LINES || p->pending_len + sep + len > sizeof(p->pending)) {
		p->pending_lines = 0;
		return;
	}
	if (sep)
		p->pending[p->pending_len++] = '\n';
	memcpy(p->pending + p->pending_len, l, len);
	p->pending_len += len;
	p->pending_lines++;
}

static const struct start_rule *match_start(const char *b, bool open)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(start_rules); i++)
		if (prefix(b, start_rules[i].prefix))
			return open && start_rules[i].idle_only ? NULL : &start_rules[i];
	return !open && b[0] != ' ' && oops_marker(b) ? &oops_rule : NULL;
}

static bool ends(const struct kmsg_parser *p, const char *b)
{
	if (prefix(b, "---[ end Kernel panic"))
		return true;
	switch (p->end) {
	case END_SEP:
		return is_separator(b);
	case END_KSW:
		return prefix(b, "========== KStackWatch end");
	case END_STACK:
		if (p->trace == TRACE_IN && strcmp(skip_spaces(b), "</TASK>") == 0)
			return true;
		/* fall through */
	case END_TRACE:
		return prefix(b, "---[ end trace");
	}
	return false;
}

static void begin(struct kmsg_parser *p, const struct start_rule *rule, const char *b,
		  uint64_t ts)
{
	struct kmsg_report *r = p->r;
	const char *t = b + strspn(b, "= ");
	size_t len = strlen(t);

	memset(r, 0, offsetof(struct kmsg_report, text));
	r->text[0] = '\0';
	r->kind = rule->kind;
	r->kind_name = kmsg_kind_name[r->kind];
	r->ts_usec = ts;
	p->open = true;
	p->end = rule->end;
	p->trace = TRACE_BEFORE;
	p->from_regs = false;
	p->nraw = 0;
	if (p->pending_lines) {
		r->ts_usec = p->pending_ts;
		add_text(r, p->pending, p->pending_len, p->pending_lines);
		p->pending_lines = 0;
	}
	while (len && (t[len - 1] == '=' || t[len - 1] == ' '))
		len--;
	copy(r->title, sizeof(r->title), t, len);

	switch (r->kind) {
	case KMSG_KASAN:
		t = strstr(b, " in ");
		if (t)
			set_sym(r, t + 4);
		break;
	case KMSG_WARNING:
		warning_sym(r, b);
		break;
	case KMSG_GPF:
	case KMSG_OOPS:
		r->has_address = hex_after(b, "address", &r->address);
		break;
	default:
		break;
	}
}

/* "RIP: 0010:func+0x5/0x20 [mod]": the faulting function of an oops, and
 * where a trace from regs starts. */
static void kernel_rip(struct kmsg_parser *p, const char *sym)
{
	struct kmsg_report *r = p->r;

	if (p->trace == TRACE_BEFORE) {
		p->from_regs = true;
		if (!r->function[0])
			set_sym(r, sym);
	} else if (p->trace == TRACE_IN && r->function[0] && same_name(sym, r->function)) {
		/* The frames so far were the handler that caught the fault
		 * at this RIP (KStackWatch's #DB); its callers follow. */
		p->nraw = 0;
		p->from_regs = true;
	}
}

/* Frames of the first Call Trace, up to the "</TASK>" that closes it or
 * a line that is neither a frame nor a register dump. */
static void trace_line(struct kmsg_parser *p, const char *l)
{
	const char *s = skip_spaces(l);
	size_t len;

	if (p->trace == TRACE_BEFORE) {
		if (prefix(l, "Call Trace:"))
			p->trace = TRACE_IN;
		return;
	}
	if (p->trace != TRACE_IN)
		return;
	if (s == l) {
		if (!is_register_line(l))
			p->trace = TRACE_DONE;
		return;
	}
	if (!*s || strcmp(s, "</TASK>") == 0) {
		p->trace = TRACE_DONE;
		return;
	}
	len = frame_name(s);
	if (len && p->nraw < KMSG_RAW_MAX) {
		p->raw_at_end[p->nraw] = at_end(s + len);
		copy(p->raw[p->nraw++], KMSG_NAME_MAX, s, len);
	}
}

/* "Read of size 1 at addr ffff8880052e83a0 by task dd/350" */
static void kasan_line(struct kmsg_report *r, const char *b)
{
	enum kmsg_access a;
	const char *s;

	if (r->access != KMSG_ACCESS_UNKNOWN)
		return;
	if (prefix(b, "Read of size ")) {
		a = KMSG_ACCESS_READ;
		s = b + strlen("Read of size ");
	} else if (prefix(b, "Write of size ")) {
		a = KMSG_ACCESS_WRITE;
		s = b + strlen("Write of size ");
	} else {
		return;
	}
	if (!num(&s, &r->size))
		return;
	r->access = a;
	r->has_address = hex_after(s, " at addr", &r->address);
}

/* config: LINE (the watch's line, as written to /proc/kstackwatch)
 * watched: stack canary of FUNC, depth D, pid P
 * watched: local variable at sp+N of FUNC, depth D, pid P (FUNC: perhaps
 *	MODULE:FUNCTION)
 * address: 0xADDR, LEN bytes, written by COMM pid P on CPU C
 * corrupting store: the instruction before FUNC+0xOFF/0xSIZE [module] */
static void ksw_line(struct kmsg_report *r, const char *b)
{
	const char *s;

	if (prefix(b, "config: ")) {
		s = b + strlen("config: ");
		copy(r->watch_line, sizeof(r->watch_line), s, strlen(s));
	} else if (prefix(b, "watched: ")) {
		s = strstr(b, " of ");
		if (s) {
			size_t n = strcspn(s + 4, ", "), m = strcspn(s + 4, ":, ");

			/* A module's function: MODULE:FUNCTION; the function. */
			if (m < n)
				s += m + 1, n -= m + 1;
			copy(r->watched, sizeof(r->watched), s + 4, n);
		}
	} else if (prefix(b, "address: ")) {
		r->has_address = hex_after(b, "address", &r->address);
		s = strchr(b, ',');
		if (s) {
			s = skip_spaces(s + 1);
			num(&s, &r->size);
		}
		r->access = KMSG_ACCESS_WRITE;
	} else if (prefix(b, "corrupting store: ")) {
		s = strstr(b, " before ");
		if (s)
			set_sym(r, s + strlen(" before "));
	}
}

static void parse_line(struct kmsg_parser *p, const char *b)
{
	struct kmsg_report *r = p->r;

	if (prefix(b, "RIP: 0010:"))
		kernel_rip(p, b + strlen("RIP: 0010:"));
	trace_line(p, b);
	if (r->kind == KMSG_KASAN) {
		kasan_line(r, b);
	} else if (r->kind == KMSG_KSTACKWATCH) {
		ksw_line(r, b);
	} else if (prefix(b, "#PF: ") && r->access == KMSG_ACCESS_UNKNOWN) {
		if (strstr(b, "write access"))
			r->access = KMSG_ACCESS_WRITE;
		else if (strstr(b, "read access"))
			r->access = KMSG_ACCESS_READ;
	}
	if (p->end == END_STACK && oops_marker(b)) {
		/* A BUG: line that turned into an oops ends with it. */
		p->end = END_TRACE;
		r->kind = KMSG_OOPS;
		r->kind_name = kmsg_kind_name[r->kind];
	}
}

static bool internal(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(internal_prefix); i++)
		if (prefix(name, internal_prefix[i]))
			return true;
	return false;
}

static void add_frame(struct kmsg_report *r, const char *name)
{
	if (r->nframes < KMSG_FRAMES_MAX)
		copy(r->frames[r->nframes++], KMSG_NAME_MAX, name, strlen(name));
}

static void finish(struct kmsg_parser *p, bool complete)
{
	struct kmsg_report *r = p->r;
	unsigned int i = 0, j;
	bool found = false;
	size_t len, n;

	r->complete = complete;
	if (!p->from_regs) {
		/* A dump_stack() by the reporting code: the chain starts at
		 * the faulting function, else below the reporter's frames. */
		for (; r->function[0] && i < p->nraw && !found; i++)
			found = strcmp(p->raw[i], r->function) == 0;
		if (found)
			i--;
		else
			for (i = 0; i < p->nraw && internal(p->raw[i]); i++)
				;
	}
	if (r->function[0] && !found)
		add_frame(r, r->function);
	for (; i < p->nraw; i++) {
		/* Not a caller: a return trampoline in its place. */
		if (p->raw_at_end[i] && p->at_end_is_trampoline &&
		    p->at_end_is_trampoline(p->raw[i], p->at_end_ud))
			continue;
		add_frame(r, p->raw[i]);
	}

	len = strlen(r->kind_name);
	memcpy(r->key, r->kind_name, len + 1);
	for (j = 0; j < r->nframes && j < 3; j++) {
		n = strlen(r->frames[j]);
		r->key[len++] = ':';
		memcpy(r->key + len, r->frames[j], n + 1);
		len += n;
	}
	if (!r->nframes)
		memcpy(r->key + len, ":?", 3);
}

static int deliver(struct kmsg_parser *p, bool complete, kmsg_report_cb cb, void *userdata)
{
	p->open = false;
	finish(p, complete);
	return cb ? cb(p->r, userdata) : 0;
}

int kmsg_parser_init(struct kmsg_parser *p)
{
	memset(p, 0, sizeof(*p));
	p->r = malloc(sizeof(*p->r));
	return p->r ? 0 : -ENOMEM;
}

void kmsg_parser_free(struct kmsg_parser *p)
{
	free(p->r);
	p->r = NULL;
	p->open = false;
}

int kmsg_feed(struct kmsg_parser *p, const char *line, uint64_t ts_usec,
	      kmsg_report_cb cb, void *userdata)
{
	const struct start_rule *rule;
	size_t len = strcspn(line, "\n");
	const char *b;
	int r = 0, e;

	if (len >= sizeof(p->line))
		len = sizeof(p->line) - 1;
	memcpy(p->line, line, len);
	if (len && p->line[len - 1] == '\r')
		len--;
	p->line[len] = '\0';
	b = prefix(p->line, KSW_PREFIX) ? p->line + strlen(KSW_PREFIX) : p->line;

	if (p->open && ends(p, b)) {
		add_text(p->r, p->line, len, 1);
		return deliver(p, true, cb, userdata);
	}
	rule = match_start(b, p->open);
	if (!rule && !p->open) {
		hold(p, p->line, ts_usec);
		return 0;
	}
	if (rule) {
		if (p->open)
			r = deliver(p, false, cb, userdata);
		begin(p, rule, b, ts_usec);
	}
	add_text(p->r, p->line, len, 1);
	parse_line(p, b);
	if (p->r->lines >= KMSG_LINES_MAX) {
		e = deliver(p, false, cb, userdata);
		if (!r)
			r = e;
	}
	return r;
}

int kmsg_flush(struct kmsg_parser *p, kmsg_report_cb cb, void *userdata)
{
	p->pending_lines = 0;
	return p->open ? deliver(p, false, cb, userdata) : 0;
}

/* "[   12.345678] " and CONFIG_PRINTK_CALLER's "[    T1] " after it. */
static const char *console_strip(const char *rec, uint64_t *ts_usec)
{
	const char *s = rec, *f, *c;
	uint64_t sec, frac;
	long digits;

	if (*s != '[')
		return rec;
	s = skip_spaces(s + 1);
	if (!num(&s, &sec) || *s != '.')
		return rec;
	f = ++s;
	if (!num(&s, &frac) || *s != ']')
		return rec;
	for (digits = s++ - f; digits < 6; digits++)
		frac *= 10;
	for (; digits > 6; digits--)
		frac /= 10;
	if (ts_usec)
		*ts_usec = sec * 1000000 + frac;
	if (*s == '[') {
		c = skip_spaces(s + 1);
		if ((*c == 'T' || *c == 'C') && isdigit((unsigned char)c[1])) {
			for (c++; isdigit((unsigned char)*c); c++)
				;
			if (*c == ']')
				s = c + 1;
		}
	}
	return *s == ' ' ? s + 1 : s;
}

/* A number and the ',' after it. */
static bool field(const char **s, uint64_t *v)
{
	if (!num(s, v) || **s != ',')
		return false;
	(*s)++;
	return true;
}

const char *kmsg_strip(const char *rec, uint64_t *ts_usec, uint64_t *seq)
{
	const char *s = rec, *semi;
	uint64_t prio, sq, ts;

	if (ts_usec)
		*ts_usec = 0;
	if (seq)
		*seq = KMSG_SEQ_NONE;
	if (field(&s, &prio) && field(&s, &sq) && field(&s, &ts)) {
		semi = s + strcspn(s, ";\n");
		if (*semi == ';') {
			if (ts_usec)
				*ts_usec = ts;
			if (seq)
				*seq = sq;
			/* The facility: not the kernel's. */
			return prio >> 3 ? NULL : semi + 1;
		}
	}
	/* The syslog form of pstore's dumps: "<PRIO>", then the console's
	 * timestamp with CONFIG_PRINTK_TIME. */
	s = rec + 1;
	if (*rec == '<' && num(&s, &prio) && *s == '>') {
		s = console_strip(s + 1, ts_usec);
		return prio >> 3 ? NULL : s;
	}
	return console_strip(rec, ts_usec);
}

void kmsg_dedup_init(struct kmsg_dedup *d)
{
	memset(d, 0, sizeof(*d));
}

void kmsg_dedup_free(struct kmsg_dedup *d)
{
	unsigned int i;

	for (i = 0; i < KMSG_DEDUP_SLOTS; i++)
		free(d->slot[i].key);
	kmsg_dedup_init(d);
}

int kmsg_dedup_seen(struct kmsg_dedup *d, const char *key)
{
	uint64_t h = kw_hash(key, strlen(key));
	unsigned int i = h & (KMSG_DEDUP_SLOTS - 1);
	struct kmsg_dedup_slot *s;

	/* Open addressing; never full, as SLOTS > MAX. */
	for (;; i = (i + 1) & (KMSG_DEDUP_SLOTS - 1)) {
		s = &d->slot[i];
		if (!s->key)
			break;
		if (s->hash == h && strcmp(s->key, key) == 0) {
			if (s->count < INT_MAX)
				s->count++;
			return s->count;
		}
	}
	if (d->used >= KMSG_DEDUP_MAX) {
		d->untracked++;
		return 1;
	}
	s->key = strdup(key);
	if (!s->key)
		return -ENOMEM;
	s->hash = h;
	s->count = 1;
	d->used++;
	return 1;
}

bool kmsg_stack_protector(const char *text, char *func, size_t n, char *mod, size_t mn)
{
	const char *p = text ? strstr(text, KMSG_STACK_PROTECTOR) : NULL, *e, *m, *eol;
	size_t len;

	*func = *mod = '\0';
	if (!p)
		return false;
	p += strlen(KMSG_STACK_PROTECTOR);
	/* %pB: FUNC+0xOFF/0xSIZE [MODULE] */
	for (e = p; isalnum((unsigned char)*e) || *e == '_' || *e == '.'; e++)
		;
	len = e - p;
	if (!len || len >= n || len > (KMSG_NAME_MAX - 1) || isdigit((unsigned char)*p))
		return false;
	memcpy(func, p, len);
	func[len] = '\0';
	/* " [MODULE]" after the offset, on the same line. */
	eol = strchr(e, '\n');
	m = strchr(e, '[');
	if (m && (!eol || m < eol) && (e = strchr(m, ']')) && (!eol || e < eol)) {
		len = e - m - 1;
		if (len && len < mn && len <= 55) {
			memcpy(mod, m + 1, len);
			mod[len] = '\0';
			if (!kw_ident_ok(mod, 55, ""))
				*mod = '\0';
		}
	}
	return true;
}

/* --- KASAN's stack frame ------------------------------------------------------ */

/* The next line of *s into buf: its message (prefix off, leading spaces
 * skipped) in *msg, NULL for a line a process wrote; *s moves past it.
 * False at the end of the text. */
static bool next_msg(const char **s, char *buf, size_t n, const char **msg)
{
	size_t len = strcspn(*s, "\n");
	const char *m;

	if (!**s)
		return false;
	copy(buf, n, *s, len && (*s)[len - 1] == '\r' ? len - 1 : len);
	*s += len + ((*s)[len] == '\n');
	m = kmsg_strip(buf, NULL, NULL);
	*msg = m ? skip_spaces(m) : NULL;
	return true;
}

/* The first line from *s on that starts with p: what follows p. */
static bool find_msg(const char **s, char *buf, size_t n, const char *p, const char **rest)
{
	const char *m;

	while (next_msg(s, buf, n, &m))
		if (m && prefix(m, p)) {
			*rest = m + strlen(p);
			return true;
		}
	return false;
}

/* The next line, which must start with p: what follows p. */
static bool expect_msg(const char **s, char *buf, size_t n, const char *p, const char **rest)
{
	const char *m;

	if (!next_msg(s, buf, n, &m) || !m || !prefix(m, p))
		return false;
	*rest = m + strlen(p);
	return true;
}

/* s is spaces, or empty. */
static bool only_spaces(const char *s)
{
	return !*skip_spaces(s);
}

/* s starts with p, and nothing follows it but spaces. */
static bool is_tail(const char *s, const char *p)
{
	return prefix(s, p) && only_spaces(s + strlen(p));
}

/* 1 to 16 hex digits at *s, which is moved past them. */
static bool hex_digits(const char **s)
{
	const char *p = *s;

	while (isxdigit((unsigned char)*p) && p - *s < 16)
		p++;
	if (p == *s || isxdigit((unsigned char)*p))
		return false;
	*s = p;
	return true;
}

/* "T/PID": a task's name and its PID. */
static bool task_pid_ok(const char *s)
{
	const char *slash = strrchr(s, '/');
	uint64_t pid;

	if (!slash)
		return false;
	s = slash + 1;
	return num(&s, &pid) && only_spaces(s);
}

/* %pS of the frame's function: FUNC+0xOFF/0xSIZE, then " [MODULE]" (or
 * " [MODULE BUILD_ID]") when a module's. */
static bool frame_function(const char *l, char *func, size_t n, char *mod, size_t mn)
{
	const char *e;
	size_t len;

	for (e = l; isalnum((unsigned char)*e) || *e == '_' || *e == '.'; e++)
		;
	len = e - l;
	if (!len || len >= n || len > KMSG_NAME_MAX - 1 ||
	    !(isalpha((unsigned char)*l) || *l == '_'))
		return false;
	if (!prefix(e, "+0x"))
		return false;
	e += 3;
	if (!hex_digits(&e) || !prefix(e, "/0x"))
		return false;
	e += 3;
	if (!hex_digits(&e))
		return false;
	copy(func, n, l, len);
	if (only_spaces(e))
		return true;
	if (!prefix(e, " ["))
		return false;
	e += 2;
	len = strcspn(e, " ]");
	if (!len || len >= mn || len > 55 || !e[len])
		return false;
	copy(mod, mn, e, len);
	if (!kw_ident_ok(mod, 55, ""))
		return false;
	e = strchr(e + len, ']');
	return e && only_spaces(e + 1);
}

/* "[START, END) 'NAME'" (NAME cut at a ':LINE' suffix): @name is "" when
 * NAME does not fit in @n. */
static bool frame_object(const char *l, uint64_t *start, uint64_t *end, char *name, size_t n)
{
	const char *q;
	size_t len;

	if (*l++ != '[' || !num(&l, start) || !prefix(l, ", "))
		return false;
	l += 2;
	if (!num(&l, end) || !prefix(l, ") '") || *end < *start)
		return false;
	l += 3;
	q = strchr(l, '\'');
	if (!q || !only_spaces(q + 1))
		return false;
	len = strcspn(l, ":'");
	if (len >= n)
		len = 0;
	copy(name, n, l, len);
	return true;
}

bool kmsg_kasan_stack_at(const char *text, char *func, size_t n, char *var, size_t vn,
			 char *mod, size_t mn, int64_t *rel, uint64_t *size)
{
	char line[KMSG_LINE_MAX], name[KMSG_VAR_MAX];
	char in[KMSG_VAR_MAX] = "", below[KMSG_VAR_MAX] = "", above[KMSG_VAR_MAX] = "";
	uint64_t off, objs, i, start, end, below_end = 0, above_start = 0;
	uint64_t in_at[2] = { 0 }, below_at[2] = { 0 }, above_at[2] = { 0 }, *at;
	bool has_in = false, has_below = false, has_above = false;
	const char *s = text, *l, *pick;

	*func = *var = *mod = '\0';
	if (!text || !find_msg(&s, line, sizeof(line), KMSG_KASAN_STACK, &l) ||
	    !find_msg(&s, line, sizeof(line), "The buggy address belongs to stack of task ", &l) ||
	    !task_pid_ok(l))
		return false;
	/* kasan_print_address_stack_frame(): its lines one after the other. */
	if (!expect_msg(&s, line, sizeof(line), "and is located at offset ", &l) ||
	    !num(&l, &off) || !is_tail(l, " in frame:"))
		return false;
	if (!expect_msg(&s, line, sizeof(line), "", &l) || !frame_function(l, func, n, mod, mn))
		goto fail;
	/* A blank line, then print_decoded_frame_descr()'s. */
	do {
		if (!next_msg(&s, line, sizeof(line), &l) || !l)
			goto fail;
	} while (!*l);
	if (!prefix(l, "This frame has "))
		goto fail;
	l += strlen("This frame has ");
	if (!num(&l, &objs) || !objs || objs > KMSG_OBJECTS_MAX ||
	    !is_tail(l, objs == 1 ? " object:" : " objects:"))
		goto fail;
	for (i = 0; i < objs; i++) {
		if (!expect_msg(&s, line, sizeof(line), "", &l) ||
		    !frame_object(l, &start, &end, name, sizeof(name)))
			goto fail;
		if (start <= off && off < end) {
			if (!has_in) {
				strcpy(in, name);
				in_at[0] = start;
				in_at[1] = end;
			}
			has_in = true;
		} else if (end <= off) {
			/* An overflow past its end: the nearest below. */
			if (!has_below || end > below_end) {
				strcpy(below, name);
				below_end = end;
				below_at[0] = start;
				below_at[1] = end;
			}
			has_below = true;
		} else if (!has_above || start < above_start) {
			/* An underflow: the first above. */
			strcpy(above, name);
			has_above = true;
			above_start = start;
			above_at[0] = start;
			above_at[1] = end;
		}
	}
	pick = has_in ? in : has_below ? below : above;
	at = has_in ? in_at : has_below ? below_at : above_at;
	if (rel)
		*rel = (int64_t)(off - at[0]);
	if (size)
		*size = at[1] - at[0];
	if (!kw_ident_ok(pick, KMSG_VAR_MAX - 1, "") || isdigit((unsigned char)*pick) ||
	    strlen(pick) >= vn)
		goto fail;
	strcpy(var, pick);
	return true;
fail:
	*func = *var = *mod = '\0';
	return false;
}

bool kmsg_kasan_stack(const char *text, char *func, size_t n, char *var, size_t vn, char *mod,
		      size_t mn)
{
	return kmsg_kasan_stack_at(text, func, n, var, vn, mod, mn, NULL, NULL);
}
