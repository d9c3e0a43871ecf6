// SPDX-License-Identifier: GPL-2.0
/*
 * Stack variables by name: the table, its index file, and the resolution
 * of FUNCTION VARIABLE into a watch (stackvars.h).
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "stackvars.h"
#include "util.h"

static const char *const loc_name[] = {
	[KW_SVAR_REG] = "reg",
	[KW_SVAR_NONE] = "none",
	[KW_SVAR_MULTI] = "multi",
};

static int say(char *buf, size_t n, int err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int say(char *buf, size_t n, int err, const char *fmt, ...)
{
	va_list ap;

	if (buf && n) {
		va_start(ap, fmt);
		vsnprintf(buf, n, fmt, ap);
		va_end(ap);
	}
	return err;
}

static int grow(struct kw_stackvars *sv)
{
	size_t cap = sv->cap ? sv->cap * 2 : 256;
	struct kw_svar *v;

	if (sv->n < sv->cap)
		return 0;
	v = reallocarray(sv->v, cap, sizeof(*v));
	if (!v)
		return -ENOMEM;
	sv->v = v;
	sv->cap = cap;
	return 0;
}

int kw_stackvars_add(struct kw_stackvars *sv, const char *func, const char *path,
		     enum kw_svar_loc loc, long cfa_off, unsigned long size,
		     unsigned long count)
{
	struct kw_svar *e;
	int r;

	if (strlen(func) > KW_SVAR_FUNC_MAX || strlen(path) > KW_SVAR_PATH_MAX)
		return -ENAMETOOLONG;
	r = grow(sv);
	if (r < 0)
		return r;
	e = &sv->v[sv->n];
	e->func = strdup(func);
	e->path = strdup(path);
	if (!e->func || !e->path) {
		free(e->func);
		free(e->path);
		return -ENOMEM;
	}
	e->loc = loc;
	e->cfa_off = cfa_off;
	e->size = size;
	e->count = count;
	sv->n++;
	sv->own_strings = true;
	return 0;
}

static int svar_cmp(const void *a, const void *b)
{
	const struct kw_svar *x = a, *y = b;
	int c = strcmp(x->func, y->func);

	return c ? c : strcmp(x->path, y->path);
}

void kw_stackvars_sort(struct kw_stackvars *sv)
{
	if (sv->n)
		qsort(sv->v, sv->n, sizeof(*sv->v), svar_cmp);
}

void kw_stackvars_free(struct kw_stackvars *sv)
{
	size_t i;

	if (sv->own_strings)
		for (i = 0; i < sv->n; i++) {
			free(sv->v[i].func);
			free(sv->v[i].path);
		}
	free(sv->v);
	free(sv->strings);
	memset(sv, 0, sizeof(*sv));
}

static bool name_char(int c, const char *extra)
{
	return isalnum(c) || c == '_' || (c && strchr(extra, c));
}

static bool all_chars(const char *s, const char *extra)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!name_char((unsigned char)*s, extra))
			return false;
	return true;
}

static int parse_loc(const char *s, struct kw_svar *e)
{
	size_t i;
	char *end;

	for (i = 0; i < ARRAY_SIZE(loc_name); i++)
		if (loc_name[i] && strcmp(s, loc_name[i]) == 0) {
			e->loc = i;
			return 0;
		}
	if (strncmp(s, "cfa", 3) == 0) {
		e->loc = KW_SVAR_STACK;
		s += 3;
	} else if (strncmp(s, "part", 4) == 0) {
		e->loc = KW_SVAR_PART;
		s += 4;
	} else if (strncmp(s, "sp", 2) == 0) {
		e->loc = KW_SVAR_SP;
		s += 2;
	} else if (strncmp(s, "fp", 2) == 0) {
		e->loc = KW_SVAR_FP;
		s += 2;
	} else {
		return -EINVAL;
	}
	if (*s != '-' && *s != '+')
		return -EINVAL;
	errno = 0;
	e->cfa_off = strtol(s, &end, 10);
	return errno || *end || end == s + 1 || !isdigit((unsigned char)s[1]) ? -EINVAL : 0;
}

static int parse_ulong(const char *s, unsigned long *v)
{
	char *end;

	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	*v = strtoul(s, &end, 10);
	return errno || *end ? -EINVAL : 0;
}

/* FUNCTION PATH LOCATION SIZE [COUNT], split at single spaces. */
static int parse_line(char *line, struct kw_svar *e)
{
	char *f[6];
	int n = 0;

	while (n < 6 && (f[n] = strsep(&line, " ")))
		n++;
	if (n < 4 || n > 5)
		return -EINVAL;
	memset(e, 0, sizeof(*e));
	e->func = f[0];
	e->path = f[1];
	if (strlen(e->func) > KW_SVAR_FUNC_MAX || strlen(e->path) > KW_SVAR_PATH_MAX ||
	    !all_chars(e->func, ".$") || !all_chars(e->path, ".[]"))
		return -EINVAL;
	if (parse_loc(f[2], e) < 0 || parse_ulong(f[3], &e->size) < 0 || !e->size)
		return -EINVAL;
	if (n == 5 && (parse_ulong(f[4], &e->count) < 0 || !e->count))
		return -EINVAL;
	/* An element entry has a count, and only it. */
	if ((n == 5) != kw_ends_with(e->path, "[]"))
		return -EINVAL;
	return 0;
}

int kw_stackvars_parse(struct kw_stackvars *sv, char *text, char *err, size_t errlen)
{
	char *line, *next;
	unsigned int lineno = 1;
	bool unsorted = false;
	int r;

	kw_stackvars_free(sv);
	sv->strings = text;
	if (strncmp(text, KW_SVAR_HEADER "\n", strlen(KW_SVAR_HEADER) + 1) != 0)
		return say(err, errlen, -EINVAL, "not a stack variable index: the first line is not '%s'",
			   KW_SVAR_HEADER);
	for (line = strchr(text, '\n') + 1; *line; line = next) {
		lineno++;
		next = strchr(line, '\n');
		if (!next)
			return say(err, errlen, -EINVAL, "line %u: no newline at its end", lineno);
		*next++ = '\0';
		if (*line == '#' || !*line)
			continue;
		r = grow(sv);
		if (r < 0)
			return r;
		if (parse_line(line, &sv->v[sv->n]) < 0)
			return say(err, errlen, -EINVAL,
				   "line %u: want 'FUNCTION PATH LOCATION SIZE [COUNT]'", lineno);
		sv->n++;
		if (sv->n > 1 && svar_cmp(&sv->v[sv->n - 2], &sv->v[sv->n - 1]) > 0)
			unsorted = true;
	}
	/* kwatchctl stackvars writes it sorted: no sort then. */
	if (unsorted)
		kw_stackvars_sort(sv);
	return 0;
}

int kw_stackvars_load(struct kw_stackvars *sv, const char *path, char *err, size_t errlen)
{
	char *text = NULL;
	int r;

	r = kw_read_regular(path, KW_SVAR_INDEX_MAX, &text, NULL);
	if (r == -EFBIG) {
		kw_stackvars_free(sv);
		return say(err, errlen, r, "%s: larger than %lu MiB, the most read of a stack "
			   "variable index", path, KW_SVAR_INDEX_MAX >> 20);
	}
	if (r < 0) {
		kw_stackvars_free(sv);
		return say(err, errlen, r, "%s: %s", path, kw_read_regular_error(r));
	}
	r = kw_stackvars_parse(sv, text, err, errlen);
	if (r < 0 && err && errlen) {
		char tmp[256];

		snprintf(tmp, sizeof(tmp), "%s", err);
		snprintf(err, errlen, "%s: %s", path, tmp);
	}
	return r;
}

int kw_stackvars_write(const struct kw_stackvars *sv, FILE *out)
{
	size_t i;

	fprintf(out, "%s\n", KW_SVAR_HEADER);
	for (i = 0; i < sv->n; i++) {
		const struct kw_svar *e = &sv->v[i];

		fprintf(out, "%s %s ", e->func, e->path);
		if (e->loc == KW_SVAR_STACK || e->loc == KW_SVAR_PART)
			fprintf(out, "%s%+ld", e->loc == KW_SVAR_STACK ? "cfa" : "part", e->cfa_off);
		else if (e->loc == KW_SVAR_SP || e->loc == KW_SVAR_FP)
			fprintf(out, "%s%+ld", e->loc == KW_SVAR_SP ? "sp" : "fp", e->cfa_off);
		else
			fputs(loc_name[e->loc], out);
		fprintf(out, " %lu", e->size);
		if (e->count)
			fprintf(out, " %lu", e->count);
		fputc('\n', out);
	}
	return fflush(out) == 0 && !ferror(out) ? 0 : -EIO;
}

/* The entries of @func: [*first, *first + return). */
static size_t func_range(const struct kw_stackvars *sv, const char *func, size_t *first)
{
	size_t lo = 0, hi = sv->n, n = 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(sv->v[mid].func, func) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	*first = lo;
	while (lo + n < sv->n && strcmp(sv->v[lo + n].func, func) == 0)
		n++;
	return n;
}

/* The entry for @path among [@first, @first + @n): one, or the same several
 * times (functions of one name whose frames agree).  NULL if none;
 * *@conflict if they disagree. */
static const struct kw_svar *find(const struct kw_stackvars *sv, size_t first, size_t n,
				  const char *path, bool *conflict)
{
	const struct kw_svar *e = NULL;
	size_t i;

	*conflict = false;
	for (i = first; i < first + n; i++) {
		const struct kw_svar *x = &sv->v[i];

		if (strcmp(x->path, path) != 0)
			continue;
		if (e && (e->loc != x->loc || e->cfa_off != x->cfa_off || e->size != x->size ||
			  e->count != x->count))
			*conflict = true;
		e = x;
	}
	return e;
}

/* The variables of a function, for a message: "a, b, c" (top level only). */
static void list_vars(const struct kw_stackvars *sv, size_t first, size_t n, char *buf,
		      size_t len)
{
	size_t i, used = 0;

	buf[0] = '\0';
	for (i = first; i < first + n && used + 1 < len; i++) {
		const char *p = sv->v[i].path;

		if (strpbrk(p, ".[") || (i > first && strcmp(p, sv->v[i - 1].path) == 0))
			continue;
		used += snprintf(buf + used, len - used, "%s%s", used ? ", " : "", p);
	}
	if (used >= len && len > 4)
		strcpy(buf + len - 4, "...");
}

/* Members of @path, for a message: "s.a, s.b" (one level). */
static void list_members(const struct kw_stackvars *sv, size_t first, size_t n,
			 const char *path, char *buf, size_t len)
{
	size_t i, used = 0, pl = strlen(path);

	buf[0] = '\0';
	for (i = first; i < first + n && used + 1 < len; i++) {
		const char *p = sv->v[i].path;

		if (strncmp(p, path, pl) != 0 || p[pl] != '.' || strpbrk(p + pl + 1, ".["))
			continue;
		used += snprintf(buf + used, len - used, "%s%s", used ? ", " : "", p);
	}
}

static const char *where_not(enum kw_svar_loc loc)
{
	switch (loc) {
	case KW_SVAR_REG:
		return "lives only in registers (it has no stack slot to watch)";
	case KW_SVAR_NONE:
		return "is optimised out (the compiler kept no location for it)";
	default:
		return "is kept in more than one stack slot";
	}
}

/* A watch covers 1, 2, 4 or 8 bytes: say what to name instead. */
static int too_big(const struct kw_stackvars *sv, size_t first, size_t n, const char *key,
		   const char *var, const char *func, unsigned long size, char *why,
		   size_t whylen)
{
	char elem[KW_SVAR_PATH_MAX + 3], members[200];
	const struct kw_svar *el;
	bool conflict;

	snprintf(elem, sizeof(elem), "%s[]", key);
	el = find(sv, first, n, elem, &conflict);
	if (el)
		return say(why, whylen, -E2BIG,
			   "'%s' of %s is %lu bytes; a watch covers 1, 2, 4 or 8: name an element, %s[0] to %s[%lu]",
			   var, func, size, var, var, el->count - 1);
	list_members(sv, first, n, key, members, sizeof(members));
	if (members[0])
		return say(why, whylen, -E2BIG,
			   "'%s' of %s is %lu bytes; a watch covers 1, 2, 4 or 8: name a member (%s)",
			   var, func, size, members);
	return say(why, whylen, -E2BIG, "'%s' of %s is %lu bytes; a watch covers 1, 2, 4 or 8 bytes",
		   var, func, size);
}

bool kw_svar_clone_of(const char *sym, const char *func)
{
	static const char *const kinds[] = { "constprop", "isra", "part", "lto_priv" };
	size_t n = strlen(func), i, k;
	const char *s = sym + n;

	if (strncmp(sym, func, n) != 0 || *s != '.')
		return false;
	while (*s == '.') {
		s++;
		for (k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
			i = strlen(kinds[k]);
			if (strncmp(s, kinds[k], i) == 0 && s[i] == '.' && isdigit((unsigned char)s[i + 1]))
				break;
		}
		if (k == sizeof(kinds) / sizeof(kinds[0]))
			return false;
		s += i + 1;
		while (isdigit((unsigned char)*s))
			s++;
	}
	return *s == '\0';
}

#define KW_SVAR_CLONES_MAX 8

/* The distinct clones of @func in the index (sorted, so all names that
 * start with "func." are together), at most KW_SVAR_CLONES_MAX. */
static size_t clones_of(const struct kw_stackvars *sv, const char *func,
			const char *clones[KW_SVAR_CLONES_MAX])
{
	size_t first, i, n = 0, len = strlen(func);
	char prefix[KW_SVAR_FUNC_MAX + 2];

	if (len + 1 >= sizeof(prefix))
		return 0;
	memcpy(prefix, func, len);
	memcpy(prefix + len, ".", 2);
	func_range(sv, prefix, &first);	/* the first entry at or after "func." */
	for (i = first; i < sv->n && strncmp(sv->v[i].func, prefix, len + 1) == 0; i++) {
		if (n && strcmp(sv->v[i].func, clones[n - 1]) == 0)
			continue;
		if (kw_svar_clone_of(sv->v[i].func, func) && n < KW_SVAR_CLONES_MAX)
			clones[n++] = sv->v[i].func;
	}
	return n;
}

static int resolve_exact(const struct kw_stackvars *sv, const char *func, const char *var,
			 struct kw_svar_watch *w, char *why, size_t whylen);

bool kw_stackvars_has_function(const struct kw_stackvars *sv, const char *func)
{
	const char *clones[KW_SVAR_CLONES_MAX];
	size_t first;

	return func_range(sv, func, &first) || clones_of(sv, func, clones);
}

/* @func is only there as clones: resolve in the first clone where @var
 * resolves, the others listed in w->others; if it resolves in none, the
 * first clone's error.  1 if @func has no clone in the index. */
static int resolve_clones(const struct kw_stackvars *sv, const char *func, const char *var,
			  struct kw_svar_watch *w, char *why, size_t whylen)
{
	const char *clones[KW_SVAR_CLONES_MAX];
	size_t n = clones_of(sv, func, clones), i, used = 0, chosen;
	char scratch[512];
	int r = 0, first_err = 0;

	if (!n)
		return 1;
	for (chosen = 0; chosen < n; chosen++) {
		r = resolve_exact(sv, clones[chosen], var, w, chosen ? scratch : why,
				  chosen ? sizeof(scratch) : whylen);
		if (r == 0)
			break;
		if (!first_err)
			first_err = r;
	}
	if (chosen == n)
		return first_err;
	w->clone = true;
	for (i = 0; i < n; i++) {
		if (i == chosen)
			continue;
		if (used < sizeof(w->others))
			used += snprintf(w->others + used, sizeof(w->others) - used, "%s%s",
					 used ? ", " : "", clones[i]);
	}
	if (used >= sizeof(w->others))
		strcpy(w->others + sizeof(w->others) - 4, "...");
	return 0;
}

int kw_stackvars_resolve(const struct kw_stackvars *sv, const char *func, const char *var,
			 struct kw_svar_watch *w, char *why, size_t whylen)
{
	size_t first;
	int r;

	if (func && *func && strlen(func) <= KW_SVAR_FUNC_MAX && all_chars(func, ".$") &&
	    !func_range(sv, func, &first)) {
		r = resolve_clones(sv, func, var, w, why, whylen);
		if (r <= 0)
			return r;
	}
	return resolve_exact(sv, func, var, w, why, whylen);
}

static int resolve_exact(const struct kw_stackvars *sv, const char *func, const char *var,
			 struct kw_svar_watch *w, char *why, size_t whylen)
{
	char key[KW_SVAR_PATH_MAX + 1], list[200];
	const struct kw_svar *e;
	size_t first, n, kl = 0;
	const char *s = var;
	long off = 0;
	bool conflict;

	memset(w, 0, sizeof(*w));
	if (!func || !*func || strlen(func) > KW_SVAR_FUNC_MAX || !all_chars(func, ".$"))
		return say(why, whylen, -EINVAL, "'%s' is not a function name", func ? func : "");
	strcpy(w->func, func);
	if (!var || !*var || strcmp(var, "canary") == 0) {
		w->canary = true;
		return 0;
	}
	n = func_range(sv, func, &first);
	if (!n)
		return say(why, whylen, -ENOENT,
			   "no function '%s' with stack variables in the debug information", func);

	/* NAME, then .MEMBER and [INDEX] steps; key gets each index as []. */
	while (*s) {
		if (kl && *s == '[') {
			unsigned long idx;
			char *end;

			if (kl + 2 >= sizeof(key))
				break;
			memcpy(key + kl, "[]", 3);	/* the element's entry */
			e = find(sv, first, n, key, &conflict);
			errno = 0;
			idx = strtoul(s + 1, &end, 0);
			if (!e)
				return say(why, whylen, -EINVAL, "'%.*s' in %s is not an array",
					   (int)kl, key, func);
			if (!isdigit((unsigned char)s[1]) || errno || *end != ']')
				return say(why, whylen, -EINVAL, "'%s': want [INDEX] after '%.*s'",
					   var, (int)kl, key);
			if (idx >= e->count)
				return say(why, whylen, -EINVAL,
					   "'%.*s' has %lu elements: [%lu] is out of bounds",
					   (int)kl, key, e->count, idx);
			off += (long)(idx * e->size);
			kl += 2;
			s = end + 1;
			continue;
		}
		if (kl && *s != '.')
			return say(why, whylen, -EINVAL, "'%s': want .MEMBER or [INDEX] after '%.*s'",
				   var, (int)kl, key);
		if (kl)
			key[kl++] = *s++;
		if (!name_char((unsigned char)*s, "") || isdigit((unsigned char)*s))
			return say(why, whylen, -EINVAL, "'%s' is not a variable name", var);
		while (name_char((unsigned char)*s, "") && kl + 1 < sizeof(key))
			key[kl++] = *s++;
		key[kl] = '\0';
	}
	if (*s)
		return say(why, whylen, -EINVAL, "'%s' is too long", var);

	e = find(sv, first, n, key, &conflict);
	if (!e && !strpbrk(key, ".[")) {
		list_vars(sv, first, n, list, sizeof(list));
		return say(why, whylen, -ENOENT, "%s has no variable '%s' (its variables: %s)",
			   func, key, list);
	}
	if (!e)
		return say(why, whylen, -ENOENT, "%s: '%s' names no member of the variable", func, var);
	if (conflict)
		return say(why, whylen, -ENOTUNIQ,
			   "several functions are named %s, and their frames place '%s' differently",
			   func, var);
	if (e->loc == KW_SVAR_FP)
		return say(why, whylen, -EADDRNOTAVAIL,
			   "'%s' of %s is placed from the frame pointer (fp%+ld) in a frame its prologue realigns: not watched by name",
			   var, func, off + e->cfa_off);
	if (e->loc != KW_SVAR_STACK && e->loc != KW_SVAR_PART && e->loc != KW_SVAR_SP)
		return say(why, whylen, -EADDRNOTAVAIL, "'%s' of %s %s", var, func,
			   where_not(e->loc));
	if (e->size > 8 || (e->size & (e->size - 1)))
		return too_big(sv, first, n, key, var, func, e->size, why, whylen);
	off += e->cfa_off;
	if (e->loc == KW_SVAR_SP) {
		/* From the stack pointer once the prologue has realigned it:
		 * so= at the point the kernel picks, after the prologue. */
		if (off < 0 || off % (long)e->size)
			return say(why, whylen, -EINVAL, "'%s' of %s (sp%+ld) is not an aligned slot",
				   var, func, off);
		w->sp_rel = true;
		w->cfa_off = off;
		w->len = e->size;
		return 0;
	}
	if (off >= 0)
		return say(why, whylen, -EADDRNOTAVAIL,
			   "'%s' of %s is passed on the stack (CFA+%ld), in the caller's part of the stack: not watched",
			   var, func, off);
	if (off % (long)e->size)
		return say(why, whylen, -EINVAL, "'%s' of %s (CFA%ld) is not aligned to its %lu bytes",
			   var, func, off, e->size);
	w->cfa_off = off;
	w->len = e->size;
	w->partly = e->loc == KW_SVAR_PART;
	return 0;
}

int kw_svar_line(const struct kw_svar_watch *w, unsigned int depth, char *buf, size_t n)
{
	char dp[16] = "", var[48] = "";

	if (depth)
		snprintf(dp, sizeof(dp), " dp=%u", depth);
	if (!w->canary)
		snprintf(var, sizeof(var), " %s=%ld wl=%u", w->sp_rel ? "so" : "co", w->cfa_off,
			 w->len);
	return kw_fit(snprintf(buf, n, "fn=%s%s%s", w->func, dp, var), n);
}

void kw_stackvars_default_path(char *buf, size_t n)
{
	struct utsname u;

	if (uname(&u) < 0)
		snprintf(u.release, sizeof(u.release), "unknown");
	snprintf(buf, n, "%s/%s", KW_SVAR_DIR, u.release);
}
