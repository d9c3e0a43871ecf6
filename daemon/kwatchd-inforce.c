// SPDX-License-Identifier: GPL-2.0
/* The set in force across restarts, saved as the files' text and parsed
 * again on load (inforce.h has the format). */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apply.h"
#include "kwatchd-inforce.h"
#include "kwatchd.h"
#include "log.h"
#include "util.h"

/* --- the texts of the files in force ---------------------------------------- */

static bool same_version(const struct kw_text *x, const struct kw_file *f)
{
	return x->kind == f->kind && x->hash == f->hash && strcmp(x->name, f->name) == 0;
}

const struct kw_text *kw_texts_find(const struct kw_texts *t, const struct kw_file *f)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		if (same_version(&t->v[i], f))
			return &t->v[i];
	return NULL;
}

int kw_texts_add(struct kw_texts *t, const struct kw_file *f, const char *text, size_t len)
{
	struct kw_text *tmp, *x;
	char *copy;

	if (len > KW_CONF_MAX || kw_hash(text, len) != f->hash)
		return -EINVAL;
	if (kw_texts_find(t, f))
		return 0;
	copy = malloc(len ? len : 1);
	if (!copy)
		return -ENOMEM;
	tmp = realloc(t->v, (t->n + 1) * sizeof(*tmp));
	if (!tmp) {
		free(copy);
		return -ENOMEM;
	}
	t->v = tmp;
	x = &t->v[t->n++];
	memcpy(copy, text, len);
	x->kind = f->kind;
	snprintf(x->name, sizeof(x->name), "%s", f->name);
	x->hash = f->hash;
	x->text = copy;
	x->len = len;
	return 0;
}

void kw_texts_keep(struct kw_texts *t, const struct kw_file *set, size_t n)
{
	size_t i, j, kept = 0;

	for (i = 0; i < t->n; i++) {
		bool used = false;

		for (j = 0; j < n && !used; j++)
			used = same_version(&t->v[i], &set[j]);
		if (used)
			t->v[kept++] = t->v[i];
		else
			free(t->v[i].text);
	}
	t->n = kept;
	if (!kept) {
		free(t->v);
		t->v = NULL;
	}
}

void kw_texts_free(struct kw_texts *t)
{
	kw_texts_keep(t, NULL, 0);
}

/* --- names and paths the format can hold ----------------------------------- */

static bool no_control(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			return false;
	return true;
}

/* A drop-in's name, as kw_config_load() reads them. */
static bool name_ok(const char *s, size_t n)
{
	return n > 5 && n <= NAME_MAX && s[0] != '.' && !memchr(s, '/', n) &&
		no_control(s, n) && memcmp(s + n - 5, ".conf", 5) == 0;
}

/* The path of the drop-in called name: .../name. */
static bool path_ok(const char *p, size_t n, const char *name, size_t name_len)
{
	return n > name_len && n < PATH_MAX && p[n - name_len - 1] == '/' &&
		memcmp(p + n - name_len, name, name_len) == 0 && no_control(p, n);
}

/* --- writing ----------------------------------------------------------------- */

/* Why f cannot be saved, or NULL. */
static const char *unsaved(const struct kw_file *set, size_t i, const struct kw_texts *t,
			   size_t n_saved)
{
	const struct kw_file *f = &set[i];

	if ((unsigned int)f->kind >= _KW_KIND_MAX)
		return "not a drop-in kind";
	if (!name_ok(f->name, strlen(f->name)) ||
	    !path_ok(f->path, strlen(f->path), f->name, strlen(f->name)))
		return "a name or path the file cannot hold";
	if (kw_file_find(set, i, f->kind, f->name))
		return "given twice";
	if (!kw_texts_find(t, f))
		return "its text is not known";
	if (n_saved == KW_INFORCE_FILES_MAX)
		return "too many files";
	return NULL;
}

int kw_inforce_format(const struct kw_file *set, size_t n, const struct kw_texts *t,
		      char **ret, size_t *ret_len)
{
	char *buf = NULL;
	size_t len = 0, i, saved = 0;
	FILE *out;
	int r = 0;

	out = open_memstream(&buf, &len);
	if (!out)
		return -ENOMEM;
	fputs(KW_INFORCE_MAGIC, out);
	for (i = 0; i < n; i++) {
		const struct kw_file *f = &set[i];
		const char *why = unsaved(set, i, t, saved);
		const struct kw_text *x;

		if (why) {
			log_warning("in-force: %s not saved: %s", f->path, why);
			continue;
		}
		x = kw_texts_find(t, f);
		fprintf(out, "file %s %zu %s\npath %s\n", kw_kind_name[f->kind], x->len,
			f->name, f->path);
		fwrite(x->text, 1, x->len, out);
		fputc('\n', out);
		saved++;
	}
	fputs("end\n", out);
	if (ferror(out))
		r = -ENOMEM;
	if (fclose(out) != 0 && r == 0)
		r = -ENOMEM;
	if (r < 0) {
		free(buf);
		return r;
	}
	*ret = buf;
	*ret_len = len;
	return 0;
}

/* --- reading ------------------------------------------------------------------ */

struct cursor {
	const char *p, *end;
};

struct record {
	enum kw_kind kind;
	const char *name, *path, *text;
	size_t name_len, path_len, len;
};

/* The next line, without its '\n'; false if there is none. */
static bool next_line(struct cursor *c, const char **line, size_t *n)
{
	const char *nl = memchr(c->p, '\n', c->end - c->p);

	if (!nl)
		return false;
	*line = c->p;
	*n = nl - c->p;
	c->p = nl + 1;
	return true;
}

/* The word of s up to the next space, which it steps over. */
static bool next_word(const char **s, size_t *n, const char **word, size_t *word_len)
{
	const char *sp = memchr(*s, ' ', *n);

	if (!sp)
		return false;
	*word = *s;
	*word_len = sp - *s;
	*n -= *word_len + 1;
	*s = sp + 1;
	return true;
}

static bool word_is(const char *w, size_t n, const char *want)
{
	return n == strlen(want) && memcmp(w, want, n) == 0;
}

static int kind_of(const char *w, size_t n)
{
	int k;

	for (k = 0; k < _KW_KIND_MAX; k++)
		if (word_is(w, n, kw_kind_name[k]))
			return k;
	return -EBADMSG;
}

/* Decimal, no sign, no leading zero, at most KW_CONF_MAX. */
static int len_of(const char *w, size_t n, size_t *ret)
{
	size_t i, v = 0;

	if (!n || (w[0] == '0' && n > 1))
		return -EBADMSG;
	for (i = 0; i < n; i++) {
		if (w[i] < '0' || w[i] > '9')
			return -EBADMSG;
		v = v * 10 + (w[i] - '0');
		if (v > KW_CONF_MAX)
			return -EBADMSG;
	}
	*ret = v;
	return 0;
}

/* One record, from after its "file " to after its text's '\n'. */
static int read_record(struct cursor *c, const char *l, size_t n, struct record *rec)
{
	const char *w, *p;
	size_t wn, pn;
	int k;

	if (!next_word(&l, &n, &w, &wn) || (k = kind_of(w, wn)) < 0)
		return -EBADMSG;
	rec->kind = k;
	if (!next_word(&l, &n, &w, &wn) || len_of(w, wn, &rec->len) < 0 || !name_ok(l, n))
		return -EBADMSG;
	rec->name = l;
	rec->name_len = n;
	if (!next_line(c, &p, &pn) || !next_word(&p, &pn, &w, &wn) || !word_is(w, wn, "path") ||
	    !path_ok(p, pn, rec->name, rec->name_len))
		return -EBADMSG;
	rec->path = p;
	rec->path_len = pn;
	if ((size_t)(c->end - c->p) <= rec->len || c->p[rec->len] != '\n')
		return -EBADMSG;
	rec->text = c->p;
	c->p += rec->len + 1;
	return 0;
}

static bool duplicate(const struct record *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i].kind == v[n].kind && v[i].name_len == v[n].name_len &&
		    memcmp(v[i].name, v[n].name, v[n].name_len) == 0)
			return true;
	return false;
}

/* The records of buf, pointing into it: all of them, or -EBADMSG. */
static int read_records(const char *buf, size_t len, struct record **ret, size_t *ret_n)
{
	const size_t magic_len = strlen(KW_INFORCE_MAGIC);
	struct cursor c = { buf, buf + len };
	struct record *v = NULL, *tmp;
	size_t n = 0, cap = 0, ln;
	const char *l;
	int r = -EBADMSG;

	if (len < magic_len || memcmp(buf, KW_INFORCE_MAGIC, magic_len) != 0)
		goto fail;
	c.p += magic_len;
	for (;;) {
		if (!next_line(&c, &l, &ln))
			goto fail;
		if (word_is(l, ln, "end"))
			break;
		if (ln < 5 || memcmp(l, "file ", 5) != 0 || n == KW_INFORCE_FILES_MAX)
			goto fail;
		if (n == cap) {
			cap = cap ? 2 * cap : 8;
			tmp = realloc(v, cap * sizeof(*v));
			if (!tmp) {
				r = -ENOMEM;
				goto fail;
			}
			v = tmp;
		}
		if (read_record(&c, l + 5, ln - 5, &v[n]) < 0 || duplicate(v, n))
			goto fail;
		n++;
	}
	if (c.p != c.end)
		goto fail;
	*ret = v;
	*ret_n = n;
	return 0;
fail:
	free(v);
	return r;
}

int kw_inforce_parse(const char *buf, size_t len, struct kw_file **ret, size_t *ret_n,
		     struct kw_texts *texts)
{
	_cleanup_free_ struct record *recs = NULL;
	struct kw_file *set;
	size_t n = 0, i, kept = 0;
	int r;

	r = read_records(buf, len, &recs, &n);
	if (r < 0)
		return r;
	set = calloc(n ? n : 1, sizeof(*set));
	if (!set)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		const struct record *rec = &recs[i];
		struct kw_file *f = &set[kept];
		char path[PATH_MAX];

		memcpy(path, rec->path, rec->path_len);
		path[rec->path_len] = '\0';
		kw_file_parse(rec->kind, path, rec->text, rec->len, f);
		if (f->err) {
			log_warning("in-force: the saved version of %s does not parse (line %d: %s), "
				    "not used", path, f->err_line, f->err_reason);
			continue;
		}
		r = kw_texts_add(texts, f, rec->text, rec->len);
		if (r < 0)
			goto fail;
		kept++;
	}
	*ret = set;
	*ret_n = kept;
	return 0;
fail:
	free(set);
	return r;
}

/* --- the daemon's ------------------------------------------------------------- */

static struct kw_texts kwd_texts;

static void inforce_path(struct kwd *d, char *buf, size_t n)
{
	snprintf(buf, n, "%.4000s/in-force", d->state_dir);
}

static void keep_text(const struct kw_file *f, const char *text, size_t len, void *user)
{
	int r;

	if (f->err)
		return;		/* never in force */
	r = kw_texts_add(user, f, text, len);
	if (r < 0)
		log_warning_errno(r, "%s: cannot keep its text (%m), it may not be saved", f->path);
}

int kwd_inforce_config_load(struct kwd *d, struct kw_file **ret, size_t *ret_n)
{
	return kw_config_load_texts(d->confdir, keep_text, &kwd_texts, ret, ret_n);
}

void kwd_inforce_save(struct kwd *d)
{
	_cleanup_free_ char *buf = NULL;
	char path[PATH_MAX];
	size_t len = 0;
	int r;

	kw_texts_keep(&kwd_texts, d->cur, d->n_cur);
	if (!d->state_dir[0])
		return;
	inforce_path(d, path, sizeof(path));
	r = kw_inforce_format(d->cur, d->n_cur, &kwd_texts, &buf, &len);
	if (r == 0)
		r = kw_replace_file(path, buf, len);
	kwd_state_saved(d, &d->inforce_failing, path, r);
}

void kwd_inforce_forget(void)
{
	kw_texts_free(&kwd_texts);
}

int kwd_lastgood_load(struct kwd *d)
{
	_cleanup_free_ char *buf = NULL;
	struct kw_file *set = NULL;
	char path[PATH_MAX];
	size_t len = 0, n = 0;
	int r;

	if (!d->state_dir[0])
		return 0;
	inforce_path(d, path, sizeof(path));
	r = kw_read_regular(path, KW_INFORCE_SIZE_MAX, &buf, &len);
	if (r < 0)
		return r == -ENOENT ? 0 : r;
	r = kw_inforce_parse(buf, len, &set, &n, &kwd_texts);
	if (r < 0)
		return r;
	free(d->lastgood);
	d->lastgood = set;
	d->n_lastgood = n;
	return 0;
}
