// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "dwarfvars.h"
#include "ksw.h"
#include "module.h"
#include "util.h"

/* --- the [watch] section -------------------------------------------------- */

static int parse_local(struct kw_watch *w, const char *v)
{
	unsigned long off, len;
	const char *colon;
	char buf[32];

	if (strcmp(v, "canary") == 0) {
		w->canary = true;
		return 0;
	}
	colon = strchr(v, ':');
	if (!colon || (size_t)(colon - v) >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, v, colon - v);
	buf[colon - v] = '\0';
	if (kw_parse_ulong(buf, 1 << 16, &off) < 0 || kw_parse_ulong(colon + 1, 8, &len) < 0)
		return -EINVAL;
	if (len != 1 && len != 2 && len != 4 && len != 8)
		return -EINVAL;
	w->canary = false;
	w->local_offset = off;
	w->local_len = len;
	return 0;
}

/* NAME, then .MEMBER and [INDEX] steps; the resolver checks the rest. */
static bool var_name_ok(const char *v)
{
	size_t n = strlen(v);

	return n && n <= KW_VAR_MAX && (isalpha((unsigned char)v[0]) || v[0] == '_') &&
	       strspn(v, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.[]x") == n;
}

int kw_watch_key(struct parse_state *ps, struct kw_watch *w, const char *key, const char *v)
{
	unsigned long ul;

	if (strcmp(key, "function") == 0) {
		if (!kw_ident_ok(v, KW_SYM_MAX, "."))
			return kw_bad(ps, "function: not a symbol name: '%s'", v);
		strcpy(w->function, v);
	} else if (strcmp(key, "ip_offset") == 0) {
		if (kw_parse_ulong(v, 0xffff, &ul) < 0)
			return kw_bad(ps, "ip_offset: want a number 0..65535, got '%s'", v);
		w->ip_offset = ul;
		w->has_ip_offset = true;
	} else if (strcmp(key, "variable") == 0) {
		if (strcmp(v, "canary") == 0) {
			w->variable[0] = '\0';
		} else if (!var_name_ok(v)) {
			return kw_bad(ps, "variable: want 'canary' or a local variable's name "
				   "(NAME, then .MEMBER and [INDEX] steps), got '%s'", v);
		} else {
			strcpy(w->variable, v);
		}
	} else if (strcmp(key, "depth") == 0) {
		if (kw_parse_uint(v, 64, &w->depth) < 0)
			return kw_bad(ps, "depth: want 0..64, got '%s'", v);
	} else if (strcmp(key, "local") == 0) {
		if (parse_local(w, v) < 0)
			return kw_bad(ps, "local: want 'canary' or OFFSET:LEN with LEN 1, 2, 4 or 8, got '%s'", v);
	} else if (strcmp(key, "module") == 0) {
		if (!kw_ident_ok(v, KW_MODULE_MAX, ""))
			return kw_bad(ps, "module: not a module name: '%s'", v);
		strcpy(w->module, v);
	} else if (strcmp(key, "module_path") == 0) {
		char name[KW_MODULE_MAX + 1];

		if (v[0] != '/' || strlen(v) >= sizeof(w->module_path) ||
		    kw_module_name_of(v, name, sizeof(name)) < 0)
			return kw_bad(ps, "module_path: want the absolute path of a module's .ko file, got '%s'", v);
		strcpy(w->module_path, v);
	} else if (strcmp(key, "after") == 0) {
		const char *colon = strrchr(v, ':');
		unsigned int line;

		if (!colon || colon == v || (size_t)(colon - v) > KW_SYM_MAX ||
		    kw_parse_uint(colon + 1, 10000000, &line) < 0 || !line)
			return kw_bad(ps, "after: want FILE:LINE (a source file and a line from 1 on), got '%s'", v);
		memcpy(w->after_file, v, colon - v);
		w->after_file[colon - v] = '\0';
		w->after_line = line;
	} else if (strcmp(key, "enabled") == 0) {
		if (kw_parse_bool(v, &w->enabled) < 0)
			return kw_bad(ps, "enabled: want yes or no, got '%s'", v);
	} else {
		return kw_bad(ps, "unknown key '%s' in [watch]", key);
	}
	return 1;
}

int kw_watch_validate(struct parse_state *ps, struct kw_watch *w)
{
	char name[KW_MODULE_MAX + 1];

	if (!w->function[0])
		return kw_bad(ps, "[watch] needs function="), -EINVAL;
	if (w->module[0] && w->module_path[0] &&
	    kw_module_name_of(w->module_path, name, sizeof(name)) == 0 && strcmp(name, w->module))
		return kw_bad(ps, "module=%s, but module_path= is the file of module %s", w->module,
			      name), -EINVAL;
	if (w->variable[0] && !w->canary)
		return kw_bad(ps, "[watch] takes variable= or local=, not both"), -EINVAL;
	if (w->after_line && (w->has_ip_offset || !w->canary))
		return kw_bad(ps, "after= is the point to arm at: leave ip_offset= and local= out"), -EINVAL;
	if (w->variable[0] && w->has_ip_offset)
		return kw_bad(ps, "variable= is watched from the probe point the kernel picks: "
			      "leave ip_offset= out, or give local=OFFSET:LEN with it"), -EINVAL;
	return 0;
}

/* --- /proc/kstackwatch ---------------------------------------------------- */

/* The file has one opener at a time: a reader (cat, a collector) holding
 * it makes our open fail with EBUSY.  Most holds are short: wait up to
 * KSW_BUSY_TRIES * KSW_BUSY_WAIT_NS here, in the event loop; a longer one
 * is -EBUSY to the caller, which retries from a timer (kwatchd-watch.c). */
#define KSW_BUSY_TRIES		10
#define KSW_BUSY_WAIT_NS	10000000L	/* 10 ms: 100 ms in all */

static void ksw_busy_wait(void)
{
	struct timespec ts = { .tv_nsec = KSW_BUSY_WAIT_NS };

	nanosleep(&ts, NULL);
}

/* Read into *ret if ret is set, else write buf (appended with @add);
 * EBUSY is waited out. */
static int ksw_io(const char *path, const char *buf, size_t len, bool add, char **ret)
{
	int i, r;

	for (i = 0;; i++) {
		if (ret)
			r = kw_read_file(path, 4096 * KSW_WATCHES_MAX, ret, NULL);
		else if (add)
			r = kw_append_once(path, buf, len);
		else
			r = kw_write_once(path, buf, len);
		if (r != -EBUSY || i + 1 == KSW_BUSY_TRIES)
			return r;
		ksw_busy_wait();
	}
}

int ksw_read(const char *path, char **ret)
{
	return ksw_io(path, NULL, 0, false, ret);
}

unsigned int ksw_max_watches(const char *path, const char *param)
{
	_cleanup_close_ int fd = -1;
	_cleanup_free_ char *text = NULL;
	unsigned long v;
	char *end;

	fd = open(path, O_PATH | O_CLOEXEC);
	if (fd < 0 || !kw_is_kernel_fs(fd))
		return 1;
	if (kw_read_file(param, 64, &text, NULL) < 0)
		return 1;
	errno = 0;
	v = strtoul(text, &end, 10);
	if (errno || end == text || (*end && *end != '\n') || v < 1)
		return 1;
	return v > KSW_WATCHES_MAX ? KSW_WATCHES_MAX : (unsigned int)v;
}

const char *ksw_readback_find(const char *back, const char *line)
{
	const char *p;

	for (p = back; *p; p += strcspn(p, "\n"), p += *p == '\n')
		if (strcspn(p, "\n") && ksw_readback_ok(p, line))
			return p;
	return NULL;
}

size_t ksw_readback_lines(const char *back, char (*lines)[KSW_LINE_MAX], size_t max)
{
	const char *p, *c;
	size_t n = 0, len;

	for (p = back; *p && n < max; p += strcspn(p, "\n"), p += *p == '\n') {
		len = strcspn(p, "\n");
		c = memmem(p, len, " # ", 3);
		if (c)
			len = c - p;
		if (!len || len >= sizeof(lines[0]))
			continue;
		memcpy(lines[n], p, len);
		lines[n++][len] = '\0';
	}
	return n;
}

bool ksw_readback_ok(const char *back, const char *line)
{
	size_t n = strcspn(back, "\n"), l = strlen(line);

	/* Empty: a file that does not show its config is not checked. */
	if (n == 0)
		return true;
	if (n < l || strncmp(back, line, l) != 0)
		return false;
	return n == l || strncmp(back + l, " # ", 3) == 0;
}

bool ksw_present(const char *path)
{
	return access(path, W_OK) == 0;
}

int ksw_arm(const char *path, const struct kw_watch *w, bool add, char *line, size_t n,
	    char *picked, size_t picked_n)
{
	_cleanup_free_ char *back = NULL;
	const char *mine;
	char buf[256];
	size_t l;
	int len, r;

	if (picked_n)
		picked[0] = '\0';
	len = kw_watch_line(w, line, n);
	if (len < 0)
		return len;
	snprintf(buf, sizeof(buf), "%s\n", line);
	r = ksw_io(path, buf, strlen(buf), add, NULL);
	if (r < 0 && !(add && r == -EEXIST))
		return r;
	/* Read back: a kernel that shows its config must show ours.  A file
	 * that cannot be read (write-only) or reads empty is not checked. */
	if (ksw_read(path, &back) < 0 || !back[strspn(back, "\n")])
		return 0;
	mine = add ? ksw_readback_find(back, line) : back;
	if (!mine || !ksw_readback_ok(mine, line))
		return -EIO;
	/* The probe point the kernel picked: "LINE # fo=0x.. [so=..]". */
	l = strlen(line);
	if (picked_n && strncmp(mine + l, " # ", 3) == 0)
		snprintf(picked, picked_n, "%.*s", (int)strcspn(mine + l + 3, "\n"), mine + l + 3);
	return 0;
}

int ksw_disarm(const char *path)
{
	return ksw_io(path, "\n", 1, false, NULL);
}

int ksw_remove(const char *path, const char *line)
{
	char buf[KSW_LINE_MAX + 2];
	int r;

	if (snprintf(buf, sizeof(buf), "-%s\n", line) >= (int)sizeof(buf))
		return -ENAMETOOLONG;
	r = ksw_io(path, buf, strlen(buf), true, NULL);
	return r == -ENOENT ? 0 : r;
}

/* The kernel's words for a watch: FUNCTION+0xOFF[+DEPTH][ OFF:LEN] with
 * an ip_offset; else fn=FUNCTION[ dp=DEPTH][ so=OFF wl=LEN | co=OFF wl=LEN]. */
int kw_watch_line(const struct kw_watch *w, char *buf, size_t n)
{
	char depth[16] = "", local[48] = "", fn[KW_MODULE_MAX + KW_SYM_MAX + 2];
	const char *sym = w->symbol[0] ? w->symbol : w->function;

	/* A module's function: MODULE:FUNCTION, that module's only. */
	if (w->in_module[0])
		snprintf(fn, sizeof(fn), "%s:%s", w->in_module, sym);
	else
		snprintf(fn, sizeof(fn), "%s", sym);
	if (w->has_ip_offset || w->at_set) {
		if (w->depth)
			snprintf(depth, sizeof(depth), "+%u", w->depth);
		if (w->at_set && w->resolved)
			snprintf(local, sizeof(local), " %lu:%u", w->at_so, w->local_len);
		else if (!w->at_set && !w->canary)
			snprintf(local, sizeof(local), " %lu:%u", w->local_offset, w->local_len);
		return kw_fit(snprintf(buf, n, "%s+0x%lx%s%s", fn, w->at_set ? w->at_off : w->ip_offset,
				       depth, local), n);
	}
	if (w->variable[0] && !w->resolved)
		return -EINVAL;
	if (w->variable[0] || w->canary) {
		struct kw_svar_watch sw = {
			.canary = !w->variable[0], .cfa_off = w->cfa_off, .len = w->local_len,
			.sp_rel = w->sp_rel,
		};

		if (kw_strlcpy(sw.func, fn, sizeof(sw.func)) < 0)
			return -ENAMETOOLONG;
		return kw_svar_line(&sw, w->depth, buf, n);
	}
	if (w->depth)
		snprintf(depth, sizeof(depth), " dp=%u", w->depth);
	return kw_fit(snprintf(buf, n, "fn=%s%s so=%lu wl=%u", fn, depth, w->local_offset,
			       w->local_len), n);
}

void ksw_vars_free(struct ksw_vars *vars)
{
	unsigned int i;

	kw_stackvars_free(&vars->sv);
	memset(&vars->st, 0, sizeof(vars->st));
	for (i = 0; i < KSW_MODULES_CACHED; i++)
		kw_module_vars_free(&vars->mods[i]);
}

/* (Re)read the index if it is not the file read last. */
static int vars_load(struct ksw_vars *vars, const char *path, char *why, size_t n)
{
	struct stat st;
	int r;

	if (lstat(path, &st) < 0) {
		r = neg_errno();
		ksw_vars_free(vars);
		if (r == -ENOENT)
			snprintf(why, n, "no stack variable index for this kernel: %s does not exist "
				 "(make it with 'kwatchctl stackvars vmlinux' from the kernel's build)",
				 path);
		else
			snprintf(why, n, "cannot read the stack variable index %s: %s", path,
				 strerror(-r));
		return r;
	}
	if (vars->st.st_ino && st.st_ino == vars->st.st_ino && st.st_dev == vars->st.st_dev &&
	    st.st_size == vars->st.st_size && st.st_mtim.tv_sec == vars->st.st_mtim.tv_sec &&
	    st.st_mtim.tv_nsec == vars->st.st_mtim.tv_nsec)
		return 0;
	ksw_vars_free(vars);
	r = kw_stackvars_load(&vars->sv, path, why, n);
	if (r < 0)
		return r;
	vars->st = st;
	return 0;
}

/* The table of module file @path: the cached one, or the slot reused. */
static int module_vars(struct ksw_vars *vars, const char *path, struct kw_module_vars **ret,
		       char *why, size_t n)
{
	struct kw_module_vars *mv = NULL;
	unsigned int i;
	int r;

	for (i = 0; i < KSW_MODULES_CACHED && !mv; i++)
		if (vars->mods[i].read && strcmp(vars->mods[i].path, path) == 0)
			mv = &vars->mods[i];
	if (!mv) {
		mv = &vars->mods[vars->next_mod];
		vars->next_mod = (vars->next_mod + 1) % KSW_MODULES_CACHED;
	}
	r = kw_module_vars_load(mv, path, why, n);
	*ret = r < 0 ? NULL : mv;
	return r;
}

/* after = FILE:LINE in ELF file @file: the point, and the variable's
 * offset from the stack pointer there. */
static int after_point(struct kw_watch *w, const char *file, char *why, size_t n)
{
	const char *sym = w->symbol[0] ? w->symbol : w->function;
	char err[400] = "";
	int r;

	if (!file) {
		snprintf(why, n, "after=%s:%u: no file with %s's debug information (a module's: "
			 "give module_path=)", w->after_file, w->after_line, w->function);
		return -ENOENT;
	}
	r = kw_dwarf_line_point(file, sym, w->after_file, w->after_line, &w->at_off, err,
				sizeof(err));
	if (r == 0 && w->resolved)
		r = kw_dwarf_sp_offset(file, sym, w->at_off, w->cfa_off, w->sp_rel, &w->at_so,
				       err, sizeof(err));
	if (r < 0) {
		snprintf(why, n, "after=%s:%u: %s", w->after_file, w->after_line, err);
		return r;
	}
	w->at_set = true;
	return 0;
}

/* What the resolver found, into @w: a clone's name, the variable's place. */
static void resolved_into(struct kw_watch *w, const struct kw_svar_watch *sw)
{
	if (sw->clone) {
		kw_strlcpy(w->symbol, sw->func, sizeof(w->symbol));
		kw_strlcpy(w->clones_unwatched, sw->others, sizeof(w->clones_unwatched));
	}
	if (!w->variable[0])
		return;
	w->cfa_off = sw->cfa_off;
	w->sp_rel = sw->sp_rel;
	w->local_len = sw->len;
	w->resolved = true;
}

/* @w's function in the stack variable index at @path (the default: NULL). */
static int resolve_in_index(struct ksw_vars *vars, const char *path, struct kw_watch *w,
			    struct kw_svar_watch *sw, char *why, size_t n)
{
	char def[PATH_MAX];
	int r;

	if (!path || !path[0]) {
		kw_stackvars_default_path(def, sizeof(def));
		path = def;
	}
	r = vars_load(vars, path, why, n);
	if (r < 0)
		return r;
	return kw_stackvars_resolve(&vars->sv, w->function, w->variable[0] ? w->variable : NULL,
				    sw, why, n);
}

/*
 * @w's function is module @name's: resolved in its file, if one is known,
 * else in the index at @index (the image's test modules are in it).
 */
static int resolve_in_module(struct ksw_vars *vars, const char *index, struct kw_watch *w,
			     const char *name, char *why, size_t n)
{
	const char *sysfs = vars->sysfs_module ? vars->sysfs_module : "/sys/module";
	char file[PATH_MAX] = "", fwhy[400] = "";
	struct kw_module_vars *mv;
	struct kw_svar_watch sw;
	int r;

	if (w->module_path[0])
		kw_strlcpy(file, w->module_path, sizeof(file));
	else if (kw_module_find(name, file, sizeof(file), fwhy, sizeof(fwhy)) < 0)
		file[0] = '\0';
	/* Offsets given, or the canary: the file only names gcc's clone. */
	if (!file[0] && (w->variable[0] && !w->has_ip_offset)) {
		struct kw_svar_watch sw;

		r = resolve_in_index(vars, index, w, &sw, why, n);
		/* The function in the index: its answer (a variable too
		 * large names its parts).  Else the file's reason. */
		if (r < 0 && !(vars->st.st_ino &&
				kw_stackvars_has_function(&vars->sv, w->function))) {
			snprintf(why, n, "function %s of module %s: %s", w->function, name, fwhy);
			return -ENOENT;
		}
		if (r < 0)
			return r;
		resolved_into(w, &sw);
	}
	if (file[0] && !w->has_ip_offset) {
		r = module_vars(vars, file, &mv, why, n);
		if (r < 0)
			return r;
		r = kw_stackvars_resolve(&mv->sv, w->function, w->variable[0] ? w->variable : NULL,
					 &sw, why, n);
		if (r < 0 && w->variable[0]) {
			char tmp[400];

			snprintf(tmp, sizeof(tmp), "%s", why);
			snprintf(why, n, "in %s: %s", file, tmp);
			return r;
		}
		if (r == 0)
			resolved_into(w, &sw);
	}
	if (w->after_line) {
		r = after_point(w, file[0] ? file : NULL, why, n);
		if (r < 0)
			return r;
	}
	kw_strlcpy(w->in_module, name, sizeof(w->in_module));
	if (!kw_module_live(sysfs, name)) {
		w->waiting = true;
		snprintf(why, n, "module %s is not loaded: the watch arms when it is", name);
		return 0;
	}
	if (file[0])
		return kw_module_check_loaded(sysfs, name, file, why, n);
	return 0;
}

int ksw_resolve(struct ksw_vars *vars, const char *path, struct kw_watch *w, char *why,
		size_t n)
{
	struct kw_svar_watch sw;
	int r;

	char mod[KW_MODULE_MAX + 1];
	int err;

	w->resolved = false;
	w->sp_rel = false;
	w->symbol[0] = '\0';
	w->clones_unwatched[0] = '\0';
	w->in_module[0] = '\0';
	w->waiting = false;
	w->at_set = false;
	if (w->module[0] || w->module_path[0]) {
		if (w->module[0])
			kw_strlcpy(mod, w->module, sizeof(mod));
		else
			kw_module_name_of(w->module_path, mod, sizeof(mod));
		return resolve_in_module(vars, path, w, mod, why, n);
	}
	if (w->after_line) {
		/* The point needs the function's machine code and line table:
		 * a module's file; the guest has no vmlinux with DWARF. */
		err = kw_module_of_function(vars->kallsyms ? vars->kallsyms : "/proc/kallsyms",
					    w->function, mod, sizeof(mod));
		if (err == 0 && mod[0])
			return resolve_in_module(vars, path, w, mod, why, n);
		snprintf(why, n, "after=%s:%u: %s is not a loaded module's function: kwatchd reads "
			 "the point from a module's file (module_path= or module=); for vmlinux, "
			 "take ip_offset= and local= from 'kwatchctl resolve -e vmlinux --after' on "
			 "the build host", w->after_file, w->after_line, w->function);
		return -EOPNOTSUPP;
	}
	if (w->has_ip_offset || (!w->variable[0] && !w->canary))
		return 0;	/* offsets given: they are the symbol's as named */
	/* A canary needs no index: only a clone's name, when it has one. */
	r = resolve_in_index(vars, path, w, &sw, why, n);
	/* Not in the index: a loaded module's, maybe (one built out of tree). */
	if (r == -ENOENT && w->variable[0]) {
		err = kw_module_of_function(vars->kallsyms ? vars->kallsyms : "/proc/kallsyms",
					    w->function, mod, sizeof(mod));
		if (err == 0 && mod[0])
			return resolve_in_module(vars, path, w, mod, why, n);
	}
	if (r < 0)
		return w->variable[0] ? r : 0;
	resolved_into(w, &sw);
	return 0;
}
