// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <ini.h>

#include "config.h"
#include "fuzz-config.h"
#include "journal.h"
#include "ksw.h"
#include "tracefs-text.h"
#include "util.h"

const char *const kw_kind_dir[_KW_KIND_MAX] = {
	[KW_WATCH] = "watch.d",
	[KW_WPROBE] = "wprobe.d",
	[KW_FUZZ] = "fuzz.d",
};

const char *const kw_kind_name[_KW_KIND_MAX] = {
	[KW_WATCH] = "watch",
	[KW_WPROBE] = "wprobe",
	[KW_FUZZ] = "fuzz",
};

void kw_settings_default(struct kw_settings *s)
{
	memset(s, 0, sizeof(*s));
	strcpy(s->socket_path, "/run/kwatchd/events.sock");
	s->queue_events = 4096;
	s->queue_kib = 4096;
	s->quiet_ms = 150;
	s->journal = kw_journal_default_mask();
	strcpy(s->kstackwatch, "/proc/kstackwatch");
	strcpy(s->tracefs, "/sys/kernel/tracing");
	strcpy(s->instance, "kwatchd");
	strcpy(s->kfuzztest, "/sys/kernel/debug/kfuzztest");
	strcpy(s->spool_root, "/var/lib/kwatchd/spool");
	strcpy(s->bridge, "/usr/bin/kfuzztest-bridge");
	strcpy(s->fuzz_table, "/usr/share/kwatch/kfuzztest-targets.txt");
	strcpy(s->fuzzer, "/usr/bin/kfuzztest-fuzz");
	s->bpf = true;
	s->ringbuf_kib = 256;
	s->kmsg = true;
	strcpy(s->kmsg_path, "/dev/kmsg");
	strcpy(s->kallsyms, "/proc/kallsyms");
	strcpy(s->crash_dir, "/var/lib/kwatchd/crashes");
	s->keep_crashes = KW_KEEP_CRASHES_DEFAULT;
	strcpy(s->pstore, "/sys/fs/pstore /var/lib/systemd/pstore");
	strcpy(s->pmsg, "/dev/pmsg0");
}

/* State shared by the inih handlers: the first error wins. */
#define KW_KEYS_MAX 32

struct parse_state {
	const char *section;	/* the one section a drop-in may have */
	bool seen_section;
	char reason[256];
	char keys[KW_KEYS_MAX][2 * (KW_NAME_MAX + 1)];	/* seen, for dup_key() */
	unsigned int nkeys;
	union {
		struct kw_settings *settings;
		struct kw_file *file;
	};
};

/* The short names config.c gives the helpers it lends the objects' key
 * parsers (config.h: kw_watch_key() in ksw.c, kw_wprobe_key() in
 * tracefs-text.c, kw_fuzz_key() in fuzz-config.c). */
#define bad kw_bad
#define parse_ulong kw_parse_ulong
#define parse_uint kw_parse_uint
#define parse_bool kw_parse_bool

int kw_bad(struct parse_state *ps, const char *fmt, ...)
{
	va_list ap;

	if (!ps->reason[0]) {
		va_start(ap, fmt);
		vsnprintf(ps->reason, sizeof(ps->reason), fmt, ap);
		va_end(ap);
	}
	return 0;	/* tells inih this line is the error */
}

/* The first line of @text that libinih would read other than as written,
 * with why: too long for its buffer (it would split it), indented (it
 * would append it to the previous value), holding a control character,
 * or a [section] given twice.  0: none. */
static int bad_line(struct parse_state *ps, const char *text, size_t len)
{
	char sections[8][KW_NAME_MAX + 1];
	unsigned int nsec = 0, i;
	size_t pos = 0;
	int line = 1;

	while (pos < len) {
		const char *l = text + pos, *nl = memchr(l, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - l) : len - pos, k;
		const char *p = l;

		if (n > KW_LINE_MAX) {
			bad(ps, "line longer than %d characters", KW_LINE_MAX);
			return line;
		}
		for (k = 0; k < n; k++) {
			unsigned char c = l[k];

			if ((c < 0x20 && c != '\t' && !(c == '\r' && k == n - 1)) || c == 0x7f) {
				bad(ps, "control character 0x%02x", c);
				return line;
			}
		}
		while (p < l + n && (*p == ' ' || *p == '\t'))
			p++;
		if (p > l && p < l + n && *p != ';' && *p != '#' && *p != '\r') {
			bad(ps, "indented line: continuation lines are not supported, "
				"write key = value at the start of the line");
			return line;
		}
		if (p < l + n && *p == '[') {
			const char *end = memchr(p, ']', l + n - p);
			size_t sl = end ? (size_t)(end - p - 1) : 0;

			for (i = 0; end && i < nsec; i++) {
				if (strlen(sections[i]) == sl && !strncmp(sections[i], p + 1, sl)) {
					bad(ps, "section [%.*s] given twice", (int)sl, p + 1);
					return line;
				}
			}
			if (end && nsec < 8 && sl <= KW_NAME_MAX) {
				memcpy(sections[nsec], p + 1, sl);
				sections[nsec++][sl] = '\0';
			}
		}
		pos += n + 1;
		line++;
	}
	return 0;
}

/*
 * A key given twice in one section (1, with the reason set): which one
 * would win is an accident.
 * The trigger keys of a wprobe are lists and may repeat.  Keys are kept
 * as "section\nkey" in a small table; past its size nothing is checked.
 */
static int dup_key(struct parse_state *ps, const char *section, const char *key)
{
	char k[2 * (KW_NAME_MAX + 1)];
	unsigned int i;

	if (!strcmp(key, "set_on") || !strcmp(key, "clear_on"))
		return 0;
	snprintf(k, sizeof(k), "%s\n%s", section, key);
	for (i = 0; i < ps->nkeys; i++) {
		if (!strcmp(ps->keys[i], k)) {
			bad(ps, "%s: given twice in [%s]", key, section);
			return 1;
		}
	}
	if (ps->nkeys < KW_KEYS_MAX)
		snprintf(ps->keys[ps->nkeys++], sizeof(ps->keys[0]), "%s", k);
	return 0;
}

int parse_ulong(const char *v, unsigned long max, unsigned long *ret)
{
	unsigned long x;
	char *end;

	if (!*v || *v == '-' || *v == '+')
		return -EINVAL;
	errno = 0;
	x = strtoul(v, &end, 0);
	if (errno || *end || x > max)
		return -ERANGE;
	*ret = x;
	return 0;
}

int parse_uint(const char *v, unsigned int max, unsigned int *ret)
{
	unsigned long x;
	int r = parse_ulong(v, max, &x);

	if (r == 0)
		*ret = x;
	return r;
}

int parse_bool(const char *v, bool *ret)
{
	static const char *const yes[] = { "1", "yes", "true", "on" };
	static const char *const no[] = { "0", "no", "false", "off" };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(yes); i++) {
		if (strcasecmp(v, yes[i]) == 0)
			return *ret = true, 0;
		if (strcasecmp(v, no[i]) == 0)
			return *ret = false, 0;
	}
	return -EINVAL;
}

static bool path_ok(const char *v)
{
	return v[0] == '/' && strlen(v) < PATH_MAX;
}

bool kw_path_ok(const char *v)
{
	return path_ok(v);
}

/* A space-separated list of absolute directories into dst; "" or "no": none. */
static int parse_dirs(struct parse_state *ps, const char *key, const char *v, char *dst,
		      size_t n)
{
	const char *p;
	size_t len;

	if (strcmp(v, "no") == 0)
		v = "";
	if (strlen(v) >= n)
		return bad(ps, "%s: longer than %zu characters", key, n - 1);
	for (p = v; *(p += strspn(p, " \t")); p += len) {
		len = strcspn(p, " \t");
		if (*p != '/')
			return bad(ps, "%s: not an absolute path: '%.*s'", key, (int)len, p);
	}
	strcpy(dst, v);
	return 1;
}

/* --- kwatchd.conf ------------------------------------------------------- */

#define KEY(sec, name, t, field, is_live, ...) { \
		.section = sec, .key = name, .type = t, \
		.off = offsetof(struct kw_settings, field), \
		.size = sizeof(((struct kw_settings *)0)->field), .live = is_live, __VA_ARGS__ }

/*
 * Every key of kwatchd.conf, the one place each is defined: the parser
 * reads a key only through its entry, and an edit of the file is taken in
 * (kw_settings_update()) by its .live: applied now, or named in a
 * settings_pending event and applied at the next restart.  A key needs a
 * restart when what it names is opened or started once: the socket, the
 * kernel's files, the BPF programs, the capture; and the paths a running
 * generator or an armed watch was started with (stackvars, bridge,
 * fuzz_table, fuzzer).
 */
const struct kw_setting_key kw_setting_keys[] = {
	KEY("daemon", "socket", KW_KEY_PATH, socket_path, false),
	KEY("daemon", "push", KW_KEY_PATH_OPT, push_path, true),
	KEY("daemon", "queue_events", KW_KEY_UINT, queue_events, true, .min = 16, .max = 1 << 20),
	KEY("daemon", "queue_kib", KW_KEY_UINT, queue_kib, true, .min = 64, .max = 1 << 20),
	KEY("daemon", "journal", KW_KEY_JOURNAL, journal, true),
	KEY("daemon", "quiet_ms", KW_KEY_UINT, quiet_ms, true, .max = 60000),
	KEY("kernel", "kstackwatch", KW_KEY_PATH, kstackwatch, false),
	KEY("kernel", "stackvars", KW_KEY_PATH, stackvars, false),
	KEY("kernel", "tracefs", KW_KEY_PATH, tracefs, false),
	KEY("kernel", "kfuzztest", KW_KEY_PATH, kfuzztest, false),
	KEY("kernel", "spool", KW_KEY_PATH, spool_root, false),
	KEY("kernel", "bridge", KW_KEY_PATH, bridge, false),
	KEY("kernel", "fuzz_table", KW_KEY_PATH, fuzz_table, false),
	KEY("kernel", "fuzzer", KW_KEY_PATH, fuzzer, false),
	KEY("kernel", "instance", KW_KEY_NAME, instance, false),
	KEY("capture", "bpf", KW_KEY_BOOL, bpf, false),
	KEY("capture", "kmsg", KW_KEY_BOOL, kmsg, false),
	KEY("capture", "ringbuf_kib", KW_KEY_POW2, ringbuf_kib, false, .min = 4, .max = 1 << 20),
	KEY("capture", "keep_crashes", KW_KEY_UINT, keep_crashes, true, .max = 10000000,
	    .want = "0 (all) to 10000000"),
	KEY("capture", "pstore", KW_KEY_DIRS, pstore, false),
	KEY("capture", "pmsg", KW_KEY_PATH_NO, pmsg, false),
	KEY("capture", "kmsg_path", KW_KEY_PATH, kmsg_path, false),
	KEY("capture", "kallsyms", KW_KEY_PATH, kallsyms, false),
	KEY("capture", "crash_dir", KW_KEY_PATH, crash_dir, false),
	KEY("triage", "stack_protector", KW_KEY_TRIAGE, triage_stack_protector, true),
	KEY("triage", "kasan_stack", KW_KEY_TRIAGE, triage_kasan_stack, true),
};
const size_t kw_n_setting_keys = ARRAY_SIZE(kw_setting_keys);

#undef KEY

static bool key_is_string(const struct kw_setting_key *k)
{
	return k->type == KW_KEY_PATH || k->type == KW_KEY_PATH_OPT ||
	       k->type == KW_KEY_PATH_NO || k->type == KW_KEY_NAME || k->type == KW_KEY_DIRS;
}

/* One key's value into its field of *s: 1, or bad()'s 0. */
static int parse_key(struct parse_state *ps, const struct kw_setting_key *k, const char *v,
		     struct kw_settings *s)
{
	void *dst = (char *)s + k->off;
	unsigned int u = 0;
	char why[200];
	bool b;

	switch (k->type) {
	case KW_KEY_PATH_OPT:
	case KW_KEY_PATH_NO:
		if (k->type == KW_KEY_PATH_OPT ? !*v : strcmp(v, "no") == 0) {
			v = "";
			break;
		}
		/* fall through */
	case KW_KEY_PATH:
		if (!path_ok(v) || strlen(v) >= k->size)
			return bad(ps, "%s: not an absolute path: '%s'", k->key, v);
		break;
	case KW_KEY_NAME:
		if (!kw_ident_ok(v, k->size - 1, NULL))
			return bad(ps, "%s: not a name: '%s'", k->key, v);
		break;
	case KW_KEY_DIRS:
		return parse_dirs(ps, k->key, v, dst, k->size);
	case KW_KEY_UINT:
	case KW_KEY_POW2:
		if (parse_uint(v, k->max, &u) < 0 || u < k->min ||
		    (k->type == KW_KEY_POW2 && (u & (u - 1)))) {
			if (k->want)
				return bad(ps, "%s: want %s, got '%s'", k->key, k->want, v);
			return bad(ps, "%s: want %s%u..%u, got '%s'", k->key,
				   k->type == KW_KEY_POW2 ? "a power of two, " : "", k->min,
				   k->max, v);
		}
		*(unsigned int *)dst = u;
		return 1;
	case KW_KEY_BOOL:
		if (parse_bool(v, &b) < 0)
			return bad(ps, "%s: want yes or no, got '%s'", k->key, v);
		*(bool *)dst = b;
		return 1;
	case KW_KEY_JOURNAL:
		if (kw_journal_parse(v, dst, why, sizeof(why)) < 0)
			return bad(ps, "%s", why);
		return 1;
	case KW_KEY_TRIAGE:
		if (strcmp(v, "watch") && strcmp(v, "no"))
			return bad(ps, "%s: want watch or no, got '%s'", k->key, v);
		*(bool *)dst = strcmp(v, "watch") == 0;
		return 1;
	}
	strcpy(dst, v);
	return 1;
}

static int settings_handler(void *user, const char *section, const char *key, const char *v)
{
	struct parse_state *ps = user;
	bool known_section = false;
	size_t i;

	if (dup_key(ps, section, key))
		return 0;
	for (i = 0; i < kw_n_setting_keys; i++) {
		const struct kw_setting_key *k = &kw_setting_keys[i];

		if (strcmp(section, k->section) != 0)
			continue;
		known_section = true;
		if (strcmp(key, k->key) == 0)
			return parse_key(ps, k, v, ps->settings);
	}
	if (known_section)
		return bad(ps, "unknown key '%s' in [%s]", key, section);
	return bad(ps, "unknown section [%s]", section);
}

void kw_settings_update(struct kw_settings *cur, const struct kw_settings *next, char *pending,
			size_t n)
{
	size_t i, len = 0;

	if (n)
		pending[0] = '\0';
	for (i = 0; i < kw_n_setting_keys; i++) {
		const struct kw_setting_key *k = &kw_setting_keys[i];
		const char *a = (const char *)cur + k->off, *b = (const char *)next + k->off;

		if (key_is_string(k) ? strncmp(a, b, k->size) == 0 : memcmp(a, b, k->size) == 0)
			continue;
		if (k->live) {
			memcpy((char *)cur + k->off, b, k->size);
			continue;
		}
		if (len < n)
			len += snprintf(pending + len, n - len, "%s%s", len ? " " : "", k->key);
	}
}

int kw_settings_parse(const char *text, struct kw_settings *s, int *ret_line,
		      char *reason, size_t reason_len)
{
	struct kw_settings tmp = *s;
	struct parse_state ps = { .settings = &tmp };
	int line;

	line = bad_line(&ps, text, strlen(text));
	if (!line) {
		line = ini_parse_string(text, settings_handler, &ps);
		if (line < 0) {
			line = 0;
			bad(&ps, "out of memory");
		}
	}
	if (line > 0 || ps.reason[0]) {
		if (!ps.reason[0])
			bad(&ps, "syntax error");
		*ret_line = line;
		snprintf(reason, reason_len, "%s", ps.reason);
		return -EINVAL;
	}
	*s = tmp;
	return 0;
}

/* --- drop-ins ----------------------------------------------------------- */

static int dropin_handler(void *user, const char *section, const char *key, const char *v)
{
	struct parse_state *ps = user;
	struct kw_file *f = ps->file;
	char why[sizeof(ps->reason)];

	if (strcmp(section, ps->section) != 0)
		return bad(ps, "unknown section [%s], want [%s]", section, ps->section);
	ps->seen_section = true;
	if (dup_key(ps, section, key))
		return 0;
	switch (f->kind) {
	case KW_WATCH:
		return kw_watch_key(ps, &f->watch, key, v);
	case KW_WPROBE:
		return kw_wprobe_key(ps, &f->wprobe, key, v);
	case KW_FUZZ:
		return kw_fuzz_key(&f->fuzz, key, v, why, sizeof(why)) < 0 ? bad(ps, "%s", why) : 1;
	default:
		return bad(ps, "internal: bad kind");
	}
}

/* The line of the first "[" (for errors about the file as a whole). */
static int section_line(const char *text)
{
	int line = 1;

	for (; *text; text++) {
		if (*text == '[')
			return line;
		if (*text == '\n')
			line++;
	}
	return 0;
}

/* "foo-bar.conf" -> "foo_bar" */
static void stem_name(const char *name, char *out, size_t n)
{
	size_t i;

	for (i = 0; name[i] && name[i] != '.' && i + 1 < n; i++)
		out[i] = (name[i] == '-') ? '_' : name[i];
	out[i] = '\0';
}

static int validate(struct parse_state *ps, struct kw_file *f)
{
	char stem[KW_NAME_MAX + 1], why[sizeof(ps->reason)];

	stem_name(f->name, stem, sizeof(stem));
	if (!ps->seen_section)
		return bad(ps, "no [%s] section", ps->section), -EINVAL;
	switch (f->kind) {
	case KW_WATCH:
		return kw_watch_validate(ps, &f->watch);
	case KW_WPROBE:
		return kw_wprobe_validate(ps, &f->wprobe, stem);
	case KW_FUZZ:
		if (kw_fuzz_validate(&f->fuzz, stem, why, sizeof(why)) < 0)
			return bad(ps, "%s", why), -EINVAL;
		break;
	default:
		return -EINVAL;
	}
	return 0;
}

int kw_file_parse(enum kw_kind kind, const char *path, const char *text, size_t len,
		  struct kw_file *f)
{
	struct parse_state ps = { .section = kw_kind_name[kind], .file = f };
	_cleanup_free_ char *copy = NULL;
	const char *base = strrchr(path, '/');
	int line = 0, r;

	memset(f, 0, sizeof(*f));
	f->kind = kind;
	snprintf(f->name, sizeof(f->name), "%s", base ? base + 1 : path);
	snprintf(f->path, sizeof(f->path), "%s", path);
	f->hash = kw_hash(text, len);
	switch (kind) {
	case KW_WATCH:
		f->watch.canary = true;
		f->watch.enabled = true;
		break;
	case KW_WPROBE:
		strcpy(f->wprobe.access, "rw");
		f->wprobe.length = 4;
		f->wprobe.enabled = true;
		break;
	case KW_FUZZ:
		kw_fuzz_defaults(&f->fuzz);
		break;
	default:
		return -EINVAL;
	}

	if (memchr(text, '\0', len)) {
		bad(&ps, "file contains a NUL byte");
		r = -EINVAL;
		goto fail;
	}
	line = bad_line(&ps, text, len);
	if (line) {
		r = -EINVAL;
		goto fail;
	}
	copy = strndup(text, len);
	if (!copy)
		return f->err = -ENOMEM;
	line = ini_parse_string(copy, dropin_handler, &ps);
	if (line < 0) {
		r = -ENOMEM;
		line = 0;
		bad(&ps, "out of memory");
		goto fail;
	}
	if (line > 0) {
		if (!ps.reason[0])
			bad(&ps, "syntax error: want [section] or key = value");
		r = -EINVAL;
		goto fail;
	}
	if (!ps.seen_section) {
		/* A section with no keys calls no handler: look for its header. */
		char hdr[16];

		snprintf(hdr, sizeof(hdr), "[%s]", ps.section);
		ps.seen_section = strstr(copy, hdr) != NULL;
	}
	r = validate(&ps, f);
	if (r < 0) {
		line = section_line(copy);
		goto fail;
	}
	return 0;
fail:
	f->err = r;
	f->err_line = line;
	snprintf(f->err_reason, sizeof(f->err_reason), "%s", ps.reason);
	return r;
}

int kw_file_cmp(const void *a, const void *b)
{
	const struct kw_file *x = a, *y = b;

	if (x->kind != y->kind)
		return x->kind - y->kind;
	return strcmp(x->name, y->name);
}

bool kw_dropin_name(const char *n)
{
	size_t len = strlen(n);

	return n[0] != '.' && len > 5 && !strchr(n, '/') && strcmp(n + len - 5, ".conf") == 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The *.conf names of one drop-in directory, sorted; -ENOENT if none. */
static int list_dir(const char *dir, char ***ret, size_t *ret_n)
{
	char **names = NULL, **tmp;
	size_t n = 0, cap = 0;
	struct dirent *de;
	DIR *d;
	int r = 0;

	d = opendir(dir);
	if (!d)
		return neg_errno();
	while ((de = readdir(d))) {
		if (!kw_dropin_name(de->d_name))
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 16;
			tmp = realloc(names, cap * sizeof(*names));
			if (!tmp) {
				r = -ENOMEM;
				break;
			}
			names = tmp;
		}
		names[n] = strdup(de->d_name);
		if (!names[n]) {
			r = -ENOMEM;
			break;
		}
		n++;
	}
	closedir(d);
	if (r < 0) {
		while (n)
			free(names[--n]);
		free(names);
		return r;
	}
	if (n)
		qsort(names, n, sizeof(*names), cmp_str);
	*ret = names;
	*ret_n = n;
	return 0;
}

static void error_file(struct kw_file *f, enum kw_kind k, const char *name, const char *path,
		       int err)
{
	memset(f, 0, sizeof(*f));
	f->kind = k;
	snprintf(f->name, sizeof(f->name), "%s", name);
	snprintf(f->path, sizeof(f->path), "%s", path);
	f->err = err;
}

int kw_config_load_texts(const char *confdir, kw_text_fn fn, void *user, struct kw_file **ret,
			 size_t *ret_n)
{
	struct kw_file *files = NULL, *tmp;
	size_t n = 0, cap = 0;
	int k, r = 0;

	for (k = 0; k < _KW_KIND_MAX; k++) {
		char dir[PATH_MAX], **names = NULL;
		size_t i, n_names = 0, take;

		snprintf(dir, sizeof(dir), "%s/%s", confdir, kw_kind_dir[k]);
		r = list_dir(dir, &names, &n_names);
		if (r == -ENOENT)
			continue;
		if (r < 0)
			goto fail;
		/* Bounded: the first KW_DROPINS_MAX by name, and one error
		 * for the rest. */
		take = n_names > KW_DROPINS_MAX ? KW_DROPINS_MAX + 1 : n_names;
		if (n + take > cap) {
			cap = n + take + cap;
			tmp = realloc(files, cap * sizeof(*files));
			if (!tmp)
				r = -ENOMEM;
			else
				files = tmp;
		}
		for (i = 0; r == 0 && i < take; i++) {
			_cleanup_free_ char *text = NULL;
			char path[PATH_MAX];
			size_t len = 0;
			int rr;

			if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, names[i]) >=
			    sizeof(path))
				continue;
			if (i == KW_DROPINS_MAX) {
				error_file(&files[n], k, names[i], path, -E2BIG);
				snprintf(files[n].err_reason, sizeof(files[n].err_reason),
					 "%zu files in %s: only the first %d by name are read; "
					 "this one and the %zu after it are ignored", n_names,
					 kw_kind_dir[k], KW_DROPINS_MAX, n_names - KW_DROPINS_MAX - 1);
				n++;
				continue;
			}
			rr = kw_read_regular(path, KW_CONF_MAX, &text, &len);
			if (rr == -ENOENT)
				continue;	/* renamed away meanwhile */
			if (rr < 0) {
				error_file(&files[n], k, names[i], path, rr);
				snprintf(files[n].err_reason, sizeof(files[n].err_reason),
					 "cannot read: %s", kw_read_regular_error(rr));
			} else {
				kw_file_parse(k, path, text, len, &files[n]);
				if (fn)
					fn(&files[n], text, len, user);
			}
			n++;
		}
		for (i = 0; i < n_names; i++)
			free(names[i]);
		free(names);
		if (r < 0)
			goto fail;
	}
	if (n)
		qsort(files, n, sizeof(*files), kw_file_cmp);
	*ret = files;
	*ret_n = n;
	return 0;
fail:
	free(files);
	return r;
}

int kw_config_load(const char *confdir, struct kw_file **ret, size_t *ret_n)
{
	return kw_config_load_texts(confdir, NULL, NULL, ret, ret_n);
}

/* --- the kernel's words ---------------------------------------------------- */
