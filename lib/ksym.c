// SPDX-License-Identifier: GPL-2.0
/* Symbolisation of kernel addresses from a /proc/kallsyms listing. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ksym.h"
#include "util.h"

static void fclosep(FILE **f)
{
	if (*f)
		fclose(*f);
}

/* Copy len bytes of s and a NUL into the pool; *off gets their offset. */
static int pool_add(struct ksym *k, const char *s, size_t len, uint32_t *off)
{
	size_t cap = k->pool_cap ? k->pool_cap : 65536;
	char *p;

	while (cap < k->pool_len + len + 1)
		cap *= 2;
	if (cap >= KSYM_NONE)
		return -EFBIG;
	if (cap != k->pool_cap) {
		p = realloc(k->pool, cap);
		if (!p)
			return -ENOMEM;
		k->pool = p;
		k->pool_cap = cap;
	}
	memcpy(k->pool + k->pool_len, s, len);
	k->pool[k->pool_len + len] = '\0';
	*off = k->pool_len;
	k->pool_len += len + 1;
	return 0;
}

static int sym_add(struct ksym *k, size_t *cap, const struct ksym_sym *s)
{
	struct ksym_sym *v;

	if (k->n == *cap) {
		v = reallocarray(k->sym, *cap ? *cap * 2 : 4096, sizeof(*v));
		if (!v)
			return -ENOMEM;
		k->sym = v;
		*cap = *cap ? *cap * 2 : 4096;
	}
	k->sym[k->n++] = *s;
	return 0;
}

/* "ADDR TYPE NAME" and "\t[MOD]" for a module.  Lines that are not one,
 * and absolute or undefined symbols, are skipped.  *mod is the offset of
 * the last module name, shared by the symbols that follow it. */
static int parse_line(struct ksym *k, size_t *cap, const char *line, uint32_t *mod)
{
	struct ksym_sym s = { .name = KSYM_NONE, .mod = KSYM_NONE };
	const char *p = line;
	char *end, type;
	size_t len;
	int r;

	if (!isxdigit((unsigned char)*p))
		return 0;
	s.addr = strtoull(p, &end, 16);
	if (end - p > 16 || end[0] != ' ' || !end[1] || end[2] != ' ' || strchr("aAU", end[1]))
		return 0;
	type = end[1];
	p = end + 3;
	len = strcspn(p, " \t\n");
	if (!len)
		return 0;
	if (strchr("tTwW", type)) {
		r = pool_add(k, p, len, &s.name);
		if (r < 0)
			return r;
	}
	p += len;
	p += strspn(p, " \t");
	len = *p == '[' ? strcspn(p + 1, "]\n") : 0;
	if (len && p[1 + len] == ']') {
		if (*mod == KSYM_NONE || strncmp(k->pool + *mod, p + 1, len) ||
		    k->pool[*mod + len]) {
			r = pool_add(k, p + 1, len, mod);
			if (r < 0)
				return r;
		}
		s.mod = *mod;
	}
	return sym_add(k, cap, &s);
}

/* By address; of aliases, text first, in the order listed. */
static int sym_cmp(const void *a, const void *b)
{
	const struct ksym_sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->name != y->name)
		return x->name < y->name ? -1 : 1;
	return 0;
}

int ksym_load(struct ksym *k, const char *path)
{
	_cleanup_(fclosep) FILE *f = NULL;
	_cleanup_free_ char *line = NULL;
	uint32_t mod = KSYM_NONE;
	bool text = false, nonzero = false;
	size_t n = 0, cap = 0, i;
	uint64_t next = 0;
	int r;

	memset(k, 0, sizeof(*k));
	f = fopen(path, "re");
	if (!f)
		return neg_errno();
	while (getline(&line, &n, f) > 0) {
		r = parse_line(k, &cap, line, &mod);
		if (r < 0)
			goto fail;
	}
	r = -EIO;
	if (ferror(f))
		goto fail;
	for (i = 0; i < k->n; i++) {
		text |= k->sym[i].name != KSYM_NONE;
		nonzero |= k->sym[i].addr != 0;
	}
	r = -ENODATA;
	if (!text)
		goto fail;
	r = -EPERM;
	if (!nonzero)
		goto fail;
	qsort(k->sym, k->n, sizeof(*k->sym), sym_cmp);
	for (i = k->n; i-- > 0;) {
		if (i + 1 < k->n && k->sym[i + 1].addr != k->sym[i].addr)
			next = k->sym[i + 1].addr;
		k->sym[i].size = next ? next - k->sym[i].addr : 0;
	}
	return 0;
fail:
	ksym_free(k);
	return r;
}

void ksym_free(struct ksym *k)
{
	free(k->sym);
	free(k->pool);
	memset(k, 0, sizeof(*k));
}

int ksym_lookup(const struct ksym *k, uint64_t addr, struct ksym_hit *hit)
{
	size_t lo = 0, hi = k->n, mid;
	const struct ksym_sym *s;

	/* lo: the first symbol above addr */
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (k->sym[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return -ENOENT;
	s = &k->sym[lo - 1];
	while (s > k->sym && s[-1].addr == s->addr)
		s--;
	if (s->name == KSYM_NONE || !s->size)
		return -ENOENT;
	hit->name = k->pool + s->name;
	hit->module = s->mod == KSYM_NONE ? NULL : k->pool + s->mod;
	hit->offset = addr - s->addr;
	hit->size = s->size;
	return 0;
}

int ksym_format(const struct ksym *k, uint64_t addr, char *buf, size_t n)
{
	struct ksym_hit h;
	int r, len;

	r = ksym_lookup(k, addr, &h);
	if (r < 0)
		len = snprintf(buf, n, "0x%" PRIx64, addr);
	else
		len = snprintf(buf, n, "%s+0x%" PRIx64 "/0x%" PRIx64 "%s%s%s", h.name, h.offset,
			       h.size, h.module ? " [" : "", h.module ? h.module : "",
			       h.module ? "]" : "");
	if (len < 0 || (size_t)len >= n)
		return -ENOBUFS;
	return r;
}

const char *ksym_after(const struct ksym *k, const char *name)
{
	struct ksym_hit hit;
	size_t i;

	for (i = 0; i < k->n; i++) {
		const struct ksym_sym *s = &k->sym[i];

		if (s->name == KSYM_NONE || !s->size || strcmp(k->pool + s->name, name) != 0)
			continue;
		return ksym_lookup(k, s->addr + s->size, &hit) == 0 ? hit.name : NULL;
	}
	return NULL;
}

bool ksym_is_return_trampoline(const char *name)
{
	return strstr(name, "trampoline") || strcmp(name, "return_to_handler") == 0;
}

bool ksym_trampoline_after(const struct ksym *k, const char *name)
{
	const char *next = ksym_after(k, name);

	return next && ksym_is_return_trampoline(next);
}

/* The hash of the module list beside the table at path; false if it
 * cannot be read. */
static bool modules_hash(const char *path, uint64_t *hash)
{
	_cleanup_free_ char *text = NULL;
	const char *slash = strrchr(path, '/');
	char mods[PATH_MAX];
	size_t len = 0;

	if ((size_t)snprintf(mods, sizeof(mods), "%.*smodules", slash ? (int)(slash - path + 1) : 0,
			     path) >= sizeof(mods) ||
	    kw_read_file(mods, 4 << 20, &text, &len) < 0)
		return false;
	*hash = kw_hash(text, len);
	return true;
}

const struct ksym *ksym_cache_get(struct ksym_cache *c, const char *path, uint64_t now_usec,
				  bool miss, bool *warn)
{
	uint64_t hash = 0;
	bool have;

	*warn = false;
	if (c->tried && (!miss || now_usec - c->loaded_usec < KSYM_RELOAD_USEC))
		return c->ok ? &c->k : NULL;
	have = modules_hash(path, &hash);
	c->loaded_usec = now_usec;
	/* The same modules as at the last load: the table has not changed. */
	if (c->tried && c->ok && have && c->have_modules && hash == c->modules_hash)
		return &c->k;
	c->tried = true;
	c->have_modules = have;
	c->modules_hash = hash;
	c->loads++;
	ksym_free(&c->k);
	c->ok = ksym_load(&c->k, path) == 0;
	if (!c->ok && !c->warned)
		*warn = c->warned = true;
	return c->ok ? &c->k : NULL;
}

void ksym_cache_free(struct ksym_cache *c)
{
	ksym_free(&c->k);
	memset(c, 0, sizeof(*c));
}
