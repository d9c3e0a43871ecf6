// SPDX-License-Identifier: GPL-2.0
/* Crash to watch: see kwatchd-triage.h. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kmsg.h"
#include "kwatchd.h"
#include "kwatchd-triage.h"
#include "kwatchd-watch.h"
#include "ksw.h"
#include "log.h"
#include "util.h"

#define TRIAGE_FILE_MAX	1024

static int triage_dir(struct kwd *d, char *dir, size_t n)
{
	if (!d->state_dir[0])
		return -ENOENT;
	return kw_fit(snprintf(dir, n, "%s/%s", d->state_dir, KWD_TRIAGE_DIR), n) < 0 ?
		-ENAMETOOLONG : 0;
}

/*
 * Write <state>/triage/FUNC.conf (FUNC-VAR.conf with @var): a watch on
 * @func of module @mod ("" for vmlinux), on its canary or on its local
 * @var (""), whose first line gives @reason and @source; then a reload.
 * Not when a watch file of the user's watches @func already (theirs is
 * the watch), nor over a triage file of that name.  0 or a negative errno.
 */
static int triage_write(struct kwd *d, const char *func, const char *mod, const char *var,
			const char *reason, const char *source)
{
	char dir[PATH_MAX], name[KW_SYM_MAX + KMSG_VAR_MAX + 8], text[TRIAGE_FILE_MAX];
	_cleanup_close_ int dfd = -1;
	size_t i;
	int r, len;

	for (i = 0; i < d->n_cur; i++)
		if (d->cur[i].kind == KW_WATCH && strcmp(d->cur[i].watch.function, func) == 0 &&
		    strncmp(d->cur[i].name, KWD_TRIAGE_PREFIX, strlen(KWD_TRIAGE_PREFIX))) {
			log_info("triage: %s is watched by %s already", func, d->cur[i].path);
			return 0;
		}
	/* FUNC-VAR.conf, by the local's name (not an element's). */
	if (kw_fit(snprintf(name, sizeof(name), "%s%s%.*s.conf", func, var[0] ? "-" : "",
			    (int)strcspn(var, "["), var), sizeof(name)) < 0)
		return -ENAMETOOLONG;
	r = triage_dir(d, dir, sizeof(dir));
	if (r == 0)
		r = kw_mkdir_p(dir, 0700);
	if (r < 0) {
		log_warning_errno(r, "triage: no state directory for a watch on %s: %m", func);
		return r;
	}
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	if (dfd < 0) {
		r = neg_errno();
		log_warning_errno(r, "triage: cannot open %s: %m", dir);
		return r;
	}
	if (faccessat(dfd, name, F_OK, AT_SYMLINK_NOFOLLOW) == 0) {
		log_info("triage: %s has a triage watch already (%s/%s)", func, dir, name);
		return 0;
	}
	len = snprintf(text, sizeof(text),
		       "# kwatchd triage: %s (%s); remove this file to stop watching\n"
		       "[watch]\nfunction = %s\n%s%s%s%s%s%s",
		       reason, source, func, var[0] ? "variable = " : "", var, var[0] ? "\n" : "",
		       mod[0] ? "module = " : "", mod, mod[0] ? "\n" : "");
	if (len < 0 || (size_t)len >= sizeof(text))
		return -ENAMETOOLONG;
	r = kw_write_file_at(dfd, name, text, len);
	if (r < 0) {
		log_warning_errno(r, "triage: cannot write %s/%s: %m", dir, name);
		return r;
	}
	if (var[0])
		log_notice("triage: a stack access out of bounds next to %s in %s: watching it "
			   "(%s/%s)", var, func, dir, name);
	else
		log_notice("triage: %s's stack canary was overwritten: watching it (%s/%s)", func,
			   dir, name);
	kwd_watch_reload_later(d, 1000);
	return 0;
}

/*
 * The part of local @var of @func a watch covers (1, 2, 4 or 8 bytes)
 * next to the bad access, @rel bytes from its start (of @size): the local
 * itself if it is that small; an array's element there (its last past
 * its end, its first before it); else @var as it is, and the watch file's
 * config_error says what to name.
 */
static void triage_part(struct kwd *d, const char *func, const char *mod, char *var,
			size_t vn, int64_t rel, uint64_t size)
{
	struct kw_watch w = { .enabled = true };
	char why[512], part[KMSG_VAR_MAX + 24];
	unsigned long elem, last, idx;

	snprintf(w.function, sizeof(w.function), "%s", func);
	snprintf(w.variable, sizeof(w.variable), "%s", var);
	snprintf(w.module, sizeof(w.module), "%s", mod);
	if (ksw_resolve(&d->watches->ksw_vars, d->set.stackvars, &w, why, sizeof(why)) == 0)
		return;
	/* An array: its first element's size gives the element there. */
	if (kw_fit(snprintf(w.variable, sizeof(w.variable), "%s[0]", var), sizeof(w.variable)) < 0 ||
	    ksw_resolve(&d->watches->ksw_vars, d->set.stackvars, &w, why, sizeof(why)) < 0 ||
	    !w.resolved || !w.local_len || size < w.local_len)
		return;
	elem = w.local_len;
	last = size / elem - 1;
	idx = rel < 0 ? 0 : (uint64_t)rel >= size ? last : (uint64_t)rel / elem;
	if (kw_fit(snprintf(part, sizeof(part), "%s[%lu]", var, idx), sizeof(part)) < 0 ||
	    strlen(part) >= vn)
		return;
	strcpy(var, part);
}

void kwd_triage_report(struct kwd *d, const char *title, const char *text, const char *panic,
		       bool previous_boot)
{
	char func[KW_SYM_MAX + 1], mod[KW_MODULE_MAX + 1], var[KMSG_VAR_MAX + 24];
	char reason[KW_SYM_MAX + KW_MODULE_MAX + KMSG_VAR_MAX + 96];
	uint64_t size = 0;
	int64_t rel = 0;
	const char *source = previous_boot ? "a panic of the previous boot, from pstore" :
					     "the kernel log";

	if (d->set.triage_stack_protector &&
	    (kmsg_stack_protector(title, func, sizeof(func), mod, sizeof(mod)) ||
	     kmsg_stack_protector(panic, func, sizeof(func), mod, sizeof(mod)))) {
		snprintf(reason, sizeof(reason), KMSG_STACK_PROTECTOR "%s%s%s%s", func,
			 mod[0] ? " [" : "", mod, mod[0] ? "]" : "");
		triage_write(d, func, mod, "", reason, source);
	}
	if (d->set.triage_kasan_stack &&
	    kmsg_kasan_stack_at(text, func, sizeof(func), var, sizeof(var), mod, sizeof(mod), &rel,
				&size)) {
		/* "variable = canary" is the canary's watch, not a local's. */
		if (strcmp(var, "canary") == 0) {
			log_info("triage: %s's local 'canary' is not one a watch file can name: "
				 "not watched", func);
			return;
		}
		snprintf(reason, sizeof(reason),
			 "KASAN: stack-out-of-bounds next to %s in %s%s%s%s", var, func,
			 mod[0] ? " [" : "", mod, mod[0] ? "]" : "");
		triage_part(d, func, mod, var, sizeof(var), rel, size);
		triage_write(d, func, mod, var, reason, source);
	}
}

/* A triage file's first line, the reason after "# kwatchd triage: ". */
static void reason_of(const char *path, char *out, size_t n)
{
	_cleanup_free_ char *text = NULL;
	const char *p, *e;
	size_t len;

	snprintf(out, n, "kept from an earlier triage");
	if (kw_read_regular(path, TRIAGE_FILE_MAX, &text, &len) < 0)
		return;
	p = strstr(text, "# kwatchd triage: ");
	if (p != text)
		return;
	p += strlen("# kwatchd triage: ");
	e = strchr(p, '\n');
	snprintf(out, n, "%.*s", (int)(e ? e - p : (long)strlen(p)), p);
}

bool kwd_triage_is(const struct kw_file *f)
{
	return f->kind == KW_WATCH &&
	       strncmp(f->name, KWD_TRIAGE_PREFIX, strlen(KWD_TRIAGE_PREFIX)) == 0;
}

int kwd_triage_add(struct kwd *d, struct kw_file **files, size_t *n)
{
	unsigned int max = kwd_watches_max(d), used = 0;
	struct dirent **ents = NULL;
	char dir[PATH_MAX];
	struct kw_file *tmp;
	int i, k;
	size_t j;

	if (triage_dir(d, dir, sizeof(dir)) < 0)
		return 0;
	for (j = 0; j < *n; j++)
		used += (*files)[j].kind == KW_WATCH && !(*files)[j].err &&
			(*files)[j].watch.enabled;
	k = scandir(dir, &ents, NULL, alphasort);
	if (k < 0)
		return errno == ENOENT ? 0 : -errno;
	for (i = 0; i < k; i++) {
		_cleanup_free_ char *text = NULL;
		char path[PATH_MAX];
		struct kw_file f;
		size_t len;

		if (!kw_ends_with(ents[i]->d_name, ".conf") || ents[i]->d_name[0] == '.' ||
		    i >= KWD_TRIAGE_MAX)
			continue;
		/* One debug register stays free for the user's watches. */
		if (used + 1 >= max) {
			log_warning("triage: %s not armed: it would take the last free debug "
				    "register (%u of %u in use)", ents[i]->d_name, used, max);
			continue;
		}
		snprintf(path, sizeof(path), "%.3800s/%.255s", dir, ents[i]->d_name);
		if (kw_read_regular(path, KW_CONF_MAX, &text, &len) < 0)
			continue;
		if (kw_file_parse(KW_WATCH, path, text, len, &f) < 0 || f.err) {
			log_warning("triage: %s: %s, ignored", path, f.err_reason);
			continue;
		}
		snprintf(f.name, sizeof(f.name), "%s%.200s", KWD_TRIAGE_PREFIX, ents[i]->d_name);
		tmp = realloc(*files, (*n + 1) * sizeof(**files));
		if (!tmp)
			break;
		*files = tmp;
		(*files)[(*n)++] = f;
		used++;
	}
	for (i = 0; i < k; i++)
		free(ents[i]);
	free(ents);
	return 0;
}

void kwd_triage_armed(struct kwd *d, const struct kw_file *f, const char *line)
{
	char why[400];
	json_object *ev;

	reason_of(f->path, why, sizeof(why));
	ev = kw_event_new("triage_armed");
	if (ev) {
		kwd_file_fields(ev, f);
		kw_event_add_str(ev, "function", f->watch.function);
		if (f->watch.in_module[0])
			kw_event_add_str(ev, "module", f->watch.in_module);
		kw_event_add_str(ev, "definition", line);
		kw_event_add_str(ev, "reason", why);
		kwd_emit(d, ev);
	}
	if (f->watch.variable[0])
		log_notice("triage: %s in %s is watched (%s)", f->watch.variable, f->watch.function,
			   line);
	else
		log_notice("triage: the canary of %s is watched (%s)", f->watch.function, line);
}
