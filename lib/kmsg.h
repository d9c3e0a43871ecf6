/* SPDX-License-Identifier: GPL-2.0 */
/* Kernel log text to whole crash reports (Linux 6.1 x86_64 formats).
 *
 * A streaming parser takes one message at a time, its /dev/kmsg header or
 * console "[ ts]" prefix already taken off by kmsg_strip(), and hands each
 * report to a callback once it has ended: KASAN ("=====" to "====="),
 * KStackWatch catches ("caught stack corruption" to "KStackWatch end"),
 * WARNINGs, "kernel BUG at", general protection faults and other oopses
 * (to "---[ end trace"), other "BUG: " lines (to the end of their stack
 * dump, or of the oops they turn into) and panics (to "---[ end Kernel
 * panic").  The "=====" or "[ cut here ]" line before a report, and up to
 * three lines between it and the report's first line, belong to it.
 *
 * Lines outside a report are ignored.  Lines inside one are all kept: other
 * CPUs' messages cannot be told apart.  A report ends early, delivered with
 * complete == false, when another report starts, when it reaches
 * KMSG_LINES_MAX lines, or on kmsg_flush().  Pure logic: no I/O. */
#ifndef KW_KMSG_H
#define KW_KMSG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum kmsg_kind {
	KMSG_KASAN,
	KMSG_KSTACKWATCH,
	KMSG_WARNING,
	KMSG_BUG,
	KMSG_GPF,
	KMSG_OOPS,
	KMSG_PANIC,
	_KMSG_KIND_MAX,
};

enum kmsg_access {
	KMSG_ACCESS_UNKNOWN,
	KMSG_ACCESS_READ,
	KMSG_ACCESS_WRITE,
	_KMSG_ACCESS_MAX,
};

/* "kasan", "kstackwatch", "warning", "bug", "gpf", "oops", "panic". */
extern const char *const kmsg_kind_name[_KMSG_KIND_MAX];
/* "unknown", "read", "write". */
extern const char *const kmsg_access_name[_KMSG_ACCESS_MAX];

#define KMSG_LINE_MAX	1024		/* longer messages are cut */
#define KMSG_LINES_MAX	400		/* lines of one report, at most */
#define KMSG_TEXT_MAX	(24 * 1024)	/* bytes of text, the NUL included */
#define KMSG_NAME_MAX	128		/* a function name, NUL included */
#define KMSG_FRAMES_MAX	8
#define KMSG_KEY_MAX	(16 + 3 * KMSG_NAME_MAX)
#define KMSG_SEQ_NONE	UINT64_MAX

struct kmsg_report {
	enum kmsg_kind kind;
	const char *kind_name;
	/* The report's first line ("BUG: KASAN: ...", "WARNING: CPU: ...");
	 * for KStackWatch "KStackWatch: caught stack corruption". */
	char title[256];
	/* Where it happened: the "in FUNC" of a KASAN title, the function of
	 * a WARNING line, KStackWatch's corrupting store, else the first
	 * "RIP: 0010:" line.  function is the bare name, location keeps
	 * "+0xoff/0xsize".  Empty when unknown, module when built in. */
	char function[KMSG_NAME_MAX];
	char location[KMSG_NAME_MAX + 48];
	char module[64];
	char watched[KMSG_NAME_MAX];	/* KStackWatch: the watched function */
	char watch_line[256];		/* KStackWatch: the line of the watch that fired */
	enum kmsg_access access;
	uint64_t size;			/* bytes accessed; 0 when unknown */
	uint64_t address;		/* accessed, when has_address */
	bool has_address;
	/* The call chain, innermost first, without "? " (unreliable) frames
	 * nor the reporting machinery: frames[0] is function when it is
	 * known, then its callers from the first "Call Trace:". */
	unsigned int nframes;
	char frames[KMSG_FRAMES_MAX][KMSG_NAME_MAX];
	/* kind:frame0:frame1:frame2 ("kind:?" with no frames), for dedup. */
	char key[KMSG_KEY_MAX];
	uint64_t ts_usec;		/* of its first line */
	unsigned int lines;
	bool complete;			/* its end line was seen */
	bool truncated;			/* text lacks lines that did not fit */
	size_t text_len;
	char text[KMSG_TEXT_MAX];	/* the lines, joined with '\n' */
};

/* Return 0, or a negative errno that kmsg_feed()/kmsg_flush() return. */
typedef int (*kmsg_report_cb)(const struct kmsg_report *r, void *userdata);

#define KMSG_RAW_MAX	32
#define KMSG_PENDING_MAX 1024

struct kmsg_parser {
	struct kmsg_report *r;		/* the report being built */
	bool open;
	/* private */
	int end;			/* how the open report ends */
	int trace;			/* before, in or after its Call Trace */
	bool from_regs;			/* the trace starts at a RIP: line */
	unsigned int nraw;
	char raw[KMSG_RAW_MAX][KMSG_NAME_MAX];
	bool raw_at_end[KMSG_RAW_MAX];	/* printed as "sym+0xN/0xN" */
	/* public: may a frame printed at its symbol's end be dropped?  Such a
	 * return address is the first byte of the next symbol: a return
	 * trampoline standing in for the real one (kretprobe, rethook,
	 * ftrace), which only the symbol table tells from a call that was
	 * its function's last instruction (a noreturn call).  NULL: kept. */
	bool (*at_end_is_trampoline)(const char *sym, void *ud);
	void *at_end_ud;
	unsigned int pending_lines;	/* a "=====" or "cut here" line and after */
	size_t pending_len;
	uint64_t pending_ts;
	char pending[KMSG_PENDING_MAX];
	char line[KMSG_LINE_MAX];
};

int kmsg_parser_init(struct kmsg_parser *p);
void kmsg_parser_free(struct kmsg_parser *p);

/* One message: line ends at its first '\n' or NUL (so continuation lines
 * of a /dev/kmsg record are ignored); a final '\r' is dropped.  Returns 0
 * or the callback's negative errno. */
int kmsg_feed(struct kmsg_parser *p, const char *line, uint64_t ts_usec,
	      kmsg_report_cb cb, void *userdata);
/* Deliver the open report, if any, as incomplete (e.g. at EOF). */
int kmsg_flush(struct kmsg_parser *p, kmsg_report_cb cb, void *userdata);

/* Take the header off one /dev/kmsg record ("PRIO,SEQ,TS_USEC,FLAGS[,..];"),
 * console line ("[   12.345678] ", an optional "[    T1]" after it) or line
 * of a pstore dump ("<PRIO>", the console form after it) and return the
 * message.  ts_usec and seq (either may be NULL) get the
 * header's values, 0 and KMSG_SEQ_NONE without one.  A line with no
 * header is returned whole.  NULL for a record or pstore line with a facility
 * other than the kernel's (ts_usec and seq still set): written by a
 * process, not to be trusted. */
const char *kmsg_strip(const char *rec, uint64_t *ts_usec, uint64_t *seq);

/* How many times each report key was seen.  Bounded: once KMSG_DEDUP_MAX
 * keys are held, keys not yet held are not stored and each of their
 * sightings counts 1 (and adds to untracked). */
#define KMSG_DEDUP_MAX	 1024
#define KMSG_DEDUP_SLOTS 2048

struct kmsg_dedup {
	struct kmsg_dedup_slot {
		uint64_t hash;
		char *key;
		unsigned int count;
	} slot[KMSG_DEDUP_SLOTS];
	unsigned int used;
	uint64_t untracked;
};

void kmsg_dedup_init(struct kmsg_dedup *d);
void kmsg_dedup_free(struct kmsg_dedup *d);
/* The number of sightings of key, this one included, or -ENOMEM. */
int kmsg_dedup_seen(struct kmsg_dedup *d, const char *key);

/* The panic of the stack protector: "stack-protector: Kernel stack is
 * corrupted in: FUNC+0xOFF/0xSIZE [MODULE]" in @text (a report's title, a
 * pstore record's panic line).  The function whose canary was overwritten
 * (@func) and its module (@mod, "" for vmlinux); false if @text has none. */
#define KMSG_STACK_PROTECTOR "stack-protector: Kernel stack is corrupted in: "
bool kmsg_stack_protector(const char *text, char *func, size_t n, char *mod, size_t mn);

/* A KASAN stack-out-of-bounds report, whole (@text: its lines joined with
 * '\n', each with or without its /dev/kmsg, console or pstore prefix):
 * from the frame that generic KASAN describes after "The buggy address
 * belongs to stack of task T/PID",
 *	 and is located at offset OFF in frame:
 *	 FUNC+0x0/0xSIZE [MODULE]
 *	This frame has N objects:
 *	 [START, END) 'NAME'
 * the function (@func), its module (@mod, "" for vmlinux) and the local
 * next to the bad access (@var): the object whose [START, END) holds OFF,
 * else the nearest one that ends at or before OFF (an overflow past its
 * end), else the first one after OFF (an underflow).  False if @text is no
 * such report, lacks the frame, or has anything unexpected in it. */
#define KMSG_KASAN_STACK "BUG: KASAN: stack-out-of-bounds in "
#define KMSG_VAR_MAX	64		/* a local's name as KASAN prints it, NUL included */
#define KMSG_OBJECTS_MAX 256		/* objects of a frame, at most */
bool kmsg_kasan_stack(const char *text, char *func, size_t n, char *var, size_t vn, char *mod,
		      size_t mn);
/* The same, and where the bad access is: @rel bytes from the start of the
 * local (negative: before it; @size or more: past its end), of @size. */
bool kmsg_kasan_stack_at(const char *text, char *func, size_t n, char *var, size_t vn,
			 char *mod, size_t mn, int64_t *rel, uint64_t *size);

#endif
