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

void kwd_triage_report(struct kwd *d, const char *title, const char *panic, bool previous_boot)
{
	char func[KW_SYM_MAX + 1], mod[KW_MODULE_MAX + 1], dir[PATH_MAX], name[KW_SYM_MAX + 8];
	char text[TRIAGE_FILE_MAX];
	size_t i;
	int r, len;

	if (!d->set.triage_stack_protector)
		return;
	if (!kmsg_stack_protector(title, func, sizeof(func), mod, sizeof(mod)) &&
	    !kmsg_stack_protector(panic, func, sizeof(func), mod, sizeof(mod)))
		return;
	/* The user watches it already: theirs is the watch. */
	for (i = 0; i < d->n_cur; i++)
		if (d->cur[i].kind == KW_WATCH && strcmp(d->cur[i].watch.function, func) == 0 &&
		    strncmp(d->cur[i].name, KWD_TRIAGE_PREFIX, strlen(KWD_TRIAGE_PREFIX))) {
			log_info("triage: %s is watched by %s already", func, d->cur[i].path);
			return;
		}
	r = triage_dir(d, dir, sizeof(dir));
	if (r == 0)
		r = kw_mkdir_p(dir, 0700);
	if (r < 0) {
		log_warning_errno(r, "triage: no state directory for a watch on %s: %m", func);
		return;
	}
	snprintf(name, sizeof(name), "%s.conf", func);
	{
		char path[PATH_MAX];

		snprintf(path, sizeof(path), "%.3900s/%.150s", dir, name);
		if (access(path, F_OK) == 0) {
			log_info("triage: %s has a triage watch already (%s)", func, path);
			return;
		}
	}
	len = snprintf(text, sizeof(text),
		       "# kwatchd triage: stack-protector: Kernel stack is corrupted in: %s%s%s%s "
		       "(%s); remove this file to stop watching\n[watch]\nfunction = %s\n%s%s%s",
		       func, mod[0] ? " [" : "", mod, mod[0] ? "]" : "",
		       previous_boot ? "a panic of the previous boot, from pstore" : "the kernel log",
		       func, mod[0] ? "module = " : "", mod, mod[0] ? "\n" : "");
	if (len < 0 || (size_t)len >= sizeof(text))
		return;
	{
		_cleanup_close_ int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);

		r = dfd < 0 ? neg_errno() : kw_write_file_at(dfd, name, text, len);
	}
	if (r < 0) {
		log_warning_errno(r, "triage: cannot write %s/%s: %m", dir, name);
		return;
	}
	log_notice("triage: %s's stack canary was overwritten: watching it (%s/%s)", func, dir,
		   name);
	kwd_watch_reload_later(d, 1000);
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
		snprintf(path, sizeof(path), "%.3900s/%.150s", dir, ents[i]->d_name);
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
	log_notice("triage: the canary of %s is watched (%s)", f->watch.function, line);
}
