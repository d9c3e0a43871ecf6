/* SPDX-License-Identifier: GPL-2.0 */
/* The configuration: kwatchd.conf ([daemon] and [kernel] settings) and the
 * drop-in directories watch.d/, wprobe.d/ and fuzz.d/ (*.conf, one object
 * per file).  Parsing is pure: a file that fails is kept as a record with
 * its error (line and reason), so the caller can report it and keep the
 * last good version in force. */
#ifndef KW_CONFIG_H
#define KW_CONFIG_H

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define KW_NAME_MAX 63
#define KW_SYM_MAX 127
#define KW_MODULE_MAX 55	/* the kernel's MODULE_NAME_LEN - 1 */
#define KW_TRIGGERS_MAX 4
#define KW_WPROBE_MAX_RATE 1000000	/* the kernel's bound on a wprobe's max rate */
#define KW_CONF_MAX 65536	/* bytes of one configuration file */
#define KW_LINE_MAX 196		/* libinih's line buffer, less CR LF NUL */
/* The fetch arg kwatchd adds last to each wprobe: the task's comm at the
 * hit.  trace_pipe's header gives the comm saved at the task's last
 * context switch, "<...>" for a task not switched out since its hit. */
#define KW_COMM_ARG "kwatchd_comm"

enum kw_kind {
	KW_WATCH,
	KW_WPROBE,
	KW_FUZZ,
	_KW_KIND_MAX,
	_KW_KIND_INVALID = -EINVAL,
};

extern const char *const kw_kind_dir[_KW_KIND_MAX];	/* "watch.d", ... */
extern const char *const kw_kind_name[_KW_KIND_MAX];	/* "watch", ... */

/* A variable's name in watch.d: NAME, then .MEMBER and [INDEX] steps. */
#define KW_VAR_MAX 255

struct kw_watch {
	char function[KW_SYM_MAX + 1];
	unsigned long ip_offset;
	bool has_ip_offset;		/* else the kernel picks the probe point */
	unsigned int depth;		/* 0: not given */
	bool canary;			/* watch the canary (no local var) */
	unsigned long local_offset;
	unsigned int local_len;
	char variable[KW_VAR_MAX + 1];	/* by name: resolved when armed */
	/* variable= resolved (stackvars.h): its offset from the CFA */
	bool resolved;
	long cfa_off;
	bool sp_rel;			/* cfa_off is from the stack pointer (so=) */
	/* By name: the function as kallsyms names it when the source's name
	 * is only there as gcc's clone (foo.constprop.0); "" otherwise. */
	char symbol[KW_SYM_MAX + 1];
	char clones_unwatched[128];	/* its other clones, not watched */
	/* A module's function: module= and module_path= as given; then, once
	 * resolved, the module (fn=MODULE:FUNCTION) and whether it waits for
	 * the module to be loaded. */
	char module[KW_MODULE_MAX + 1];
	char module_path[PATH_MAX];
	char in_module[KW_MODULE_MAX + 1];
	bool waiting;
	/* after = FILE:LINE: armed once that source line is done with (from
	 * the module file's DWARF), resolved into a point and the variable's
	 * offset from the stack pointer there. */
	char after_file[KW_SYM_MAX + 1];
	unsigned int after_line;
	bool at_set;
	unsigned long at_off, at_so;
	bool enabled;
};

struct kw_trigger {
	bool set;			/* set_wprobe, else clear_wprobe */
	char system[KW_NAME_MAX + 1];
	char event[KW_NAME_MAX + 1];
	char field[KW_NAME_MAX + 1];	/* empty: clear unconditionally */
	long offset;
	char filter[128];
};

struct kw_wprobe {
	char name[KW_NAME_MAX + 1];
	char access[3];			/* r, w, rw */
	char symbol[KW_SYM_MAX + 1];	/* empty: address */
	char module[KW_MODULE_MAX + 1];	/* symbol's module; "": vmlinux or any loaded */
	unsigned long address;
	bool has_address;
	long offset;
	unsigned int length;
	unsigned int max_rate;		/* hit-storm guard, a second; 0: the kernel's */
	char fetch[KW_LINE_MAX + 1];
	struct kw_trigger trig[KW_TRIGGERS_MAX];
	unsigned int n_trig;
	bool enabled;
};

struct kw_fuzz {
	char target[KW_NAME_MAX + 1];
	char spool[PATH_MAX];		/* empty: <spool root>/<target> */
	char producer_group[33];	/* a group that may drop blobs, "": none */
	unsigned int rate;		/* blobs per second, 0: unlimited */
	unsigned int repeat;		/* writes per blob */
	unsigned int keep;		/* entries kept in done/, rejected/, interrupted/; 0: all */
	bool enabled;
	/* generate = yes: inputs from the target's schema derived from BTF,
	 * written by kfuzztest-bridge in a child process, not a spool. */
	bool generate;
	/* generate = guided: kfuzztest-fuzz (libFuzzer steered by KCOV) in
	 * the child instead, its corpus kept under <state>/corpus/<target>. */
	bool guided;
	bool simple;			/* input = simple: raw bytes to input_simple */
	unsigned int buffer_size;	/* bytes of each buffer a pointer points at */
	unsigned int batch;		/* inputs per bridge run */
	unsigned int stats_interval;	/* seconds between fuzz_stats (guided) */
};

#define KW_FUZZ_KEEP_DEFAULT 10000
#define KW_FUZZ_BUFFER_DEFAULT 64
#define KW_FUZZ_BATCH_DEFAULT 1000
#define KW_FUZZ_STATS_DEFAULT 10

struct kw_file {
	enum kw_kind kind;
	char name[NAME_MAX + 1];	/* file name in its drop-in directory */
	char path[PATH_MAX];
	uint64_t hash;			/* of the content: unchanged files are reused */
	int err;			/* 0, or negative errno */
	int err_line;			/* 0: the file as a whole */
	char err_reason[256];
	union {
		struct kw_watch watch;
		struct kw_wprobe wprobe;
		struct kw_fuzz fuzz;
	};
};

struct kw_settings {
	char socket_path[PATH_MAX];
	char push_path[PATH_MAX];	/* empty: no push */
	unsigned int queue_events;
	unsigned int queue_kib;
	unsigned int quiet_ms;
	uint64_t journal;	/* event types journaled (kw_journal_types bits) */
	char kstackwatch[PATH_MAX];
	char stackvars[PATH_MAX];	/* the index variable= resolves in; "": the kernel's */
	char tracefs[PATH_MAX];
	char instance[KW_NAME_MAX + 1];
	char kfuzztest[PATH_MAX];
	char spool_root[PATH_MAX];
	char bridge[PATH_MAX];		/* kfuzztest-bridge, for generate = yes */
	char fuzz_table[PATH_MAX];	/* the kernel's target table, for the bridge */
	char fuzzer[PATH_MAX];		/* kfuzztest-fuzz, for generate = guided */
	/* [capture]: BPF programs and crash capture */
	bool bpf;
	unsigned int ringbuf_kib;	/* a power of two, >= 4 */
	bool kmsg;
	char kmsg_path[PATH_MAX];
	char kallsyms[PATH_MAX];
	char crash_dir[PATH_MAX];
	unsigned int keep_crashes;	/* blobs kept per target in crash_dir; 0: all */
	char pstore[PATH_MAX];		/* directories, space-separated; "": off */
	char pmsg[PATH_MAX];		/* pstore's pmsg device; "": no spool batches */
	/* [triage]: a stack-protector panic arms a canary watch on the
	 * function it names, a KASAN stack-out-of-bounds report a watch on
	 * the local next to the bad access (kwatchd-triage.c) */
	bool triage_stack_protector;
	bool triage_kasan_stack;
};

#define KW_KEEP_CRASHES_DEFAULT 1000

/* How a kwatchd.conf value is read. */
enum kw_key_type {
	KW_KEY_PATH,		/* an absolute path */
	KW_KEY_PATH_OPT,	/* an absolute path, or empty: none */
	KW_KEY_PATH_NO,		/* an absolute path, or "no": none (stored empty) */
	KW_KEY_NAME,		/* a name: letters, digits, _ and - */
	KW_KEY_UINT,		/* min..max */
	KW_KEY_POW2,		/* a power of two, min..max */
	KW_KEY_BOOL,		/* yes or no */
	KW_KEY_DIRS,		/* absolute directories, space-separated; "no": none */
	KW_KEY_JOURNAL,		/* event types (kw_journal_parse()) */
	KW_KEY_TRIAGE,		/* watch or no (stored as a bool) */
};

/* A key of kwatchd.conf: where it is, how it is read, its field in struct
 * kw_settings, and whether an edit applies it live (else at the next
 * restart, which a settings_pending event names). */
struct kw_setting_key {
	const char *section;
	const char *key;
	enum kw_key_type type;
	size_t off, size;
	unsigned int min, max;	/* KW_KEY_UINT, KW_KEY_POW2 */
	const char *want;	/* the range in an error; NULL: "min..max" */
	bool live;
};

/* Every key, each once: the parser and kw_settings_update() read only this. */
extern const struct kw_setting_key kw_setting_keys[];
extern const size_t kw_n_setting_keys;

void kw_settings_default(struct kw_settings *s);

/* Parse kwatchd.conf text over *s.  On error returns -EINVAL with the line
 * (0: whole file) and reason; *s is left as it was. */
int kw_settings_parse(const char *text, struct kw_settings *s, int *ret_line,
		      char *reason, size_t reason_len);

/* kwatchd.conf was edited to *next: the keys that apply live are copied
 * into *cur; the others that differ stay as they are, their names listed
 * in @pending, space-separated ("": none). */
void kw_settings_update(struct kw_settings *cur, const struct kw_settings *next, char *pending,
			size_t n);

/* Parse one drop-in file's text (len bytes, may hold NULs) into *f.  Always
 * fills f (kind, name, path, hash); returns 0 or the negative errno also
 * stored in f->err. */
int kw_file_parse(enum kw_kind kind, const char *path, const char *text, size_t len,
		  struct kw_file *f);

/* For an object's key parser, called by the drop-in parser for each key of
 * its section (kw_watch_key() in ksw.c, kw_wprobe_key() in tracefs-text.c,
 * kw_fuzz_key() in fuzz-config.c): kw_bad() keeps the first error's reason
 * and returns 0, which tells libinih this line is the error; the parse_
 * helpers return 0 or -EINVAL/-ERANGE. */
struct parse_state;
int kw_bad(struct parse_state *ps, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int kw_parse_ulong(const char *v, unsigned long max, unsigned long *ret);
int kw_parse_uint(const char *v, unsigned int max, unsigned int *ret);
int kw_parse_bool(const char *v, bool *ret);
/* Whether a value is an absolute path (fuzz-config.c). */
bool kw_path_ok(const char *v);

/* qsort() order of drop-ins: by kind, then name. */
int kw_file_cmp(const void *a, const void *b);

/* A name kw_config_load() reads in a drop-in directory: NAME.conf, NAME
 * not empty, not hidden (a leading '.'), no '/'. */
bool kw_dropin_name(const char *name);

/* Drop-ins read per directory: the first this many by name; one more is a
 * config error that names how many were left out. */
#define KW_DROPINS_MAX 1024

/* Read and parse every *.conf of every drop-in directory under confdir,
 * sorted by kind then name.  Unreadable files become error records. */
int kw_config_load(const char *confdir, struct kw_file **ret, size_t *ret_n);
/* The same, handing each file read to fn with its text (len bytes) right
 * after it is parsed, valid or not; the text is not the callee's to keep. */
typedef void (*kw_text_fn)(const struct kw_file *f, const char *text, size_t len, void *user);
int kw_config_load_texts(const char *confdir, kw_text_fn fn, void *user, struct kw_file **ret,
			 size_t *ret_n);

#endif
