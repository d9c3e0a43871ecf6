// SPDX-License-Identifier: GPL-2.0
/*
 * kwatchctl resolve: FUNCTION and VARIABLE into the /proc/kstackwatch line
 * that watches it, with no offset to find by hand; kwatchctl stackvars:
 * the index file the guest resolves from (stackvars.h).
 *
 *   kwatchctl resolve [-e ELF]... [-x INDEX] [-d DEPTH] [-a OFFSET] [-v] FUNCTION [VARIABLE]
 *   kwatchctl resolve -e ELF... --after FILE:LINE [-d DEPTH] [-v] FUNCTION [VARIABLE]
 *   kwatchctl resolve -b [-e ELF]... [-x INDEX] [-d DEPTH] <PAIRS
 *   kwatchctl stackvars ELF... >INDEX
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "dwarfvars.h"
#include "kwatchctl.h"
#include "module.h"
#include "stackvars.h"
#include "util.h"

#define MAX_ELF 64

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Read each ELF file's DWARF into @sv (of @func only, unless NULL), sorted. */
static int from_elf(struct kw_stackvars *sv, char **elf, int n, const char *func)
{
	char err[512];
	int i, r;

	for (i = 0; i < n; i++) {
		r = kw_dwarf_stackvars(elf[i], func, sv, err, sizeof(err));
		if (r < 0) {
			fprintf(stderr, "kwatchctl: %s\n", err);
			return r;
		}
	}
	kw_stackvars_sort(sv);
	return 0;
}

/* FUNCTION of a loaded module that no index holds: resolved in the
 * module's file under /lib/modules/ (its name in @mod). */
static int from_module(struct kw_stackvars *sv, const char *func, const char *var,
		       struct kw_svar_watch *w, char *mod, size_t mn, char *err, size_t errlen)
{
	char path[4096], why[512];
	int r;

	r = kw_module_of_function("/proc/kallsyms", func, mod, mn);
	if (r < 0 || !mod[0])
		return -ENOENT;	/* the index's reason stands */
	r = kw_module_find(mod, path, sizeof(path), why, sizeof(why));
	if (r < 0) {
		snprintf(err, errlen, "%.100s is module %.56s's: %.280s (or give its .ko with -e)",
			 func, mod, why);
		return r;
	}
	kw_stackvars_free(sv);
	memset(sv, 0, sizeof(*sv));
	r = kw_dwarf_stackvars(path, func, sv, why, sizeof(why));
	if (r < 0) {
		snprintf(err, errlen, "%s", why);
		return r;
	}
	kw_stackvars_sort(sv);
	return kw_stackvars_resolve(sv, func, var, w, err, errlen);
}

static void resolve_usage(void)
{
	fprintf(stderr,
		"usage: kwatchctl resolve [-e ELF]... [-x INDEX] [-d DEPTH] [-a OFFSET] [-v] FUNCTION [VARIABLE]\n"
		"       kwatchctl resolve -e ELF... --after FILE:LINE [-d DEPTH] [-v] FUNCTION [VARIABLE]\n"
		"       kwatchctl resolve -b [-e ELF]... [-x INDEX] [-d DEPTH] <PAIRS\n"
		"  VARIABLE: NAME, then .MEMBER and [INDEX] steps (buf[2], req.len); none or\n"
		"  'canary' for the stack canary.  From the DWARF of each ELF (vmlinux, a .ko),\n"
		"  else from INDEX (default /usr/lib/kwatch/stackvars/RELEASE), else, for\n"
		"  a loaded module's function, from its .ko under /lib/modules.  A module's\n"
		"  function (a .ko given alone, or found so) is named MODULE:FUNCTION.  The line\n"
		"  leaves the probe point to the kernel; -a OFFSET (with -e) arms after the\n"
		"  instruction at FUNCTION+OFFSET instead and prints the v4 line, the stack\n"
		"  pointer's distance to the CFA there from the call frame information.\n"
		"  --after FILE:LINE (with -e): the same, armed once source line LINE of\n"
		"  FILE (its end: lib/foo.c or foo.c) is done with: after a loop, when the\n"
		"  line is in one; a line without code moves to the next that has some\n"
		"  -v: the variable's place and the time taken, on stderr\n"
		"  -b: many at once, the table read once: 'FUNCTION [VARIABLE]' a line on\n"
		"  stdin, for each its line on stdout, or '! ' and why it cannot be watched\n");
}

/* -b: each "FUNCTION [VARIABLE]" line of stdin, resolved in sv. */
static int resolve_batch(const struct kw_stackvars *sv, unsigned int depth)
{
	char in[1024], func[512], var[512], line[1024], err[512];
	struct kw_svar_watch w;
	int r, n, failed = 0;

	while (fgets(in, sizeof(in), stdin)) {
		var[0] = '\0';
		n = sscanf(in, "%511s %511s", func, var);
		if (n < 1)
			continue;
		r = kw_stackvars_resolve(sv, func, var[0] ? var : NULL, &w, err, sizeof(err));
		if (r == 0)
			r = kw_svar_line(&w, depth, line, sizeof(line));
		if (r < 0) {
			printf("! %s\n", err);
			failed = 1;
		} else {
			puts(line);
		}
	}
	return failed;
}

/* FUNCTION+0xAT[+DEPTH][ SO:LEN]: the variable from the stack pointer after
 * the instruction at AT, from the call frame information. */
static int v4_line(const char *elf, const struct kw_svar_watch *w, unsigned long at,
		   unsigned int depth, char *buf, size_t n, char *err, size_t errlen)
{
	char dp[16] = "", var[48] = "";
	unsigned long so;
	int r;

	if (depth)
		snprintf(dp, sizeof(dp), "+%u", depth);
	if (!w->canary) {
		r = kw_dwarf_sp_offset(elf, w->func, at, w->cfa_off, w->sp_rel, &so, err, errlen);
		if (r < 0)
			return r;
		snprintf(var, sizeof(var), " %lu:%u", so, w->len);
	}
	return kw_fit(snprintf(buf, n, "%.400s+0x%lx%s%s", w->func, at, dp, var), n);
}

/* --after FILE:LINE: the line from the last ':'. */
static int after_arg(char *arg, char **file, unsigned int *line)
{
	char *colon = strrchr(arg, ':'), *end;
	unsigned long v;

	if (!colon || colon == arg || !colon[1])
		goto bad;
	errno = 0;
	v = strtoul(colon + 1, &end, 10);
	if (errno || *end || !v || v > 0xffffffffUL)
		goto bad;
	*colon = '\0';
	*file = arg;
	*line = v;
	return 0;
bad:
	fprintf(stderr, "kwatchctl: --after: want FILE:LINE (foo.c:42), got '%s'\n", arg);
	return -EINVAL;
}

/* -OPT's number: 0 to @max, decimal or 0x hex; says so on stderr if not. */
static int number_arg(char opt, const char *what, const char *arg, unsigned long max,
		      unsigned long *v)
{
	char *end;

	errno = 0;
	*v = strtoul(arg, &end, 0);
	if (errno || *end || !*arg || *v > max) {
		fprintf(stderr, "kwatchctl: -%c: want %s 0..%#lx, got '%s'\n", opt, what, max, arg);
		return -EINVAL;
	}
	return 0;
}

int kwc_resolve(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "after", required_argument, NULL, 'A' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	char *elf[MAX_ELF], index[256] = "", err[512], line[1024], note[512] = "", mod[64] = "";
	char *after_file = NULL;
	unsigned int after_line = 0;
	struct kw_stackvars sv = {};
	struct kw_svar_watch w;
	unsigned int depth = 0;
	unsigned long at = 0;
	double t0, t1, t2;
	bool verbose = false, has_at = false, batch = false;
	int opt, nelf = 0, r;
	unsigned long num;

	optind = 0;	/* glibc: start a new scan (with permutation) */
	while ((opt = getopt_long(argc, argv, "be:x:d:a:vh", longopts, NULL)) != -1) {
		switch (opt) {
		case 'b':
			batch = true;
			break;
		case 'e':
			if (nelf == MAX_ELF) {
				fprintf(stderr, "kwatchctl: at most %d ELF files\n", MAX_ELF);
				return 2;
			}
			elf[nelf++] = optarg;
			break;
		case 'x':
			snprintf(index, sizeof(index), "%s", optarg);
			break;
		case 'd':
			if (number_arg('d', "a depth", optarg, 65535, &num) < 0)
				return 2;
			depth = num;
			break;
		case 'a':
			if (number_arg('a', "an offset", optarg, 0xffff, &at) < 0)
				return 2;
			has_at = true;
			break;
		case 'A':
			if (after_arg(optarg, &after_file, &after_line) < 0)
				return 2;
			break;
		case 'v':
			verbose = true;
			break;
		default:
			resolve_usage();
			return opt == 'h' ? 0 : 2;
		}
	}
	if (batch ? optind != argc || has_at || after_file :
	    optind >= argc || argc - optind > 2 || ((has_at || after_file) && !nelf) ||
	    (has_at && after_file)) {
		resolve_usage();
		return 2;
	}

	t0 = now();
	if (nelf) {
		r = from_elf(&sv, elf, nelf, batch ? NULL : argv[optind]);
	} else {
		if (!index[0])
			kw_stackvars_default_path(index, sizeof(index));
		r = kw_stackvars_load(&sv, index, err, sizeof(err));
		if (r < 0)
			fprintf(stderr, "kwatchctl: %s%s\n", err,
				r == -ENOENT ? " (give the kernel's vmlinux or a .ko with -e)" : "");
	}
	if (r < 0) {
		kw_stackvars_free(&sv);
		return 1;
	}
	if (batch) {
		r = resolve_batch(&sv, depth);
		kw_stackvars_free(&sv);
		return r;
	}
	t1 = now();
	r = kw_stackvars_resolve(&sv, argv[optind], optind + 1 < argc ? argv[optind + 1] : NULL,
				 &w, err, sizeof(err));
	/* Not in the index: a loaded module's (one built out of tree), from
	 * its file under /lib/modules. */
	if (r == -ENOENT && !nelf)
		r = from_module(&sv, argv[optind], optind + 1 < argc ? argv[optind + 1] : NULL,
				&w, mod, sizeof(mod), err, sizeof(err));
	else if (nelf == 1 && kw_module_name_of(elf[0], mod, sizeof(mod)) < 0)
		mod[0] = '\0';
	t2 = now();
	if (r == 0 && after_file) {
		/* The point from the line table and the control flow; what it
		 * says besides (the line moved to) is a note. */
		r = kw_dwarf_line_point(elf[0], w.func, after_file, after_line, &at, note,
					sizeof(note));
		if (r < 0)
			snprintf(err, sizeof(err), "%s", note);
		if (r == 0 && at > 0xffff) {
			snprintf(err, sizeof(err), "%.400s+0x%lx: past what fo= takes (0xffff)",
				 w.func, at);
			r = -ERANGE;
		}
		has_at = r == 0;
	}
	/* A module's function: MODULE:FUNCTION, that module's only. */
	if (r == 0 && mod[0] && strlen(mod) + strlen(w.func) + 1 < sizeof(w.func)) {
		char f[sizeof(w.func)];
		size_t ml = strlen(mod);

		memcpy(f, mod, ml);
		f[ml] = ':';
		strcpy(f + ml + 1, w.func);
		strcpy(w.func, f);
	}
	if (r == 0 && has_at)
		r = v4_line(elf[0], &w, at, depth, line, sizeof(line), err, sizeof(err));
	else if (r == 0)
		r = kw_svar_line(&w, depth, line, sizeof(line));
	if (r < 0) {
		fprintf(stderr, "kwatchctl: resolve: %s\n", err);
	} else {
		puts(line);
		if (note[0])
			fprintf(stderr, "kwatchctl: note: %s\n", note);
		if (verbose && after_file)
			fprintf(stderr, "kwatchctl: armed after %s:%u: at %s+0x%lx\n", after_file,
				after_line, w.func, at);
		if (w.clone)
			fprintf(stderr, "kwatchctl: note: %s is compiled only as gcc's clone %s: watching it%s%s\n",
				argv[optind], w.func, w.others[0] ? "; not watched: " : "", w.others);
		if (w.partly)
			fprintf(stderr, "kwatchctl: note: '%s' is in registers at some points of %s; "
				"stores made while it is there are not seen\n",
				argv[optind + 1], w.func);
		if (verbose && w.canary)
			fprintf(stderr, "kwatchctl: the stack canary of %s\n", w.func);
		else if (verbose)
			fprintf(stderr, "kwatchctl: %s of %s: %u bytes at CFA%ld\n",
				argv[optind + 1], w.func, w.len, w.cfa_off);
		if (verbose)
			fprintf(stderr, "kwatchctl: %zu entries read in %.3f ms, resolved in %.3f ms\n",
				sv.n, (t1 - t0) * 1e3, (t2 - t1) * 1e3);
	}
	kw_stackvars_free(&sv);
	return r < 0 ? 1 : 0;
}

int kwc_stackvars(int argc, char **argv)
{
	struct kw_stackvars sv = {};
	int r;

	if (argc < 2 || argc - 1 > MAX_ELF || argv[1][0] == '-') {
		fprintf(stderr, "usage: kwatchctl stackvars ELF... >INDEX\n"
			"  the stack variables of each ELF file's functions, from its DWARF,\n"
			"  as the index 'kwatchctl resolve' and kwatchd read\n");
		return 2;
	}
	r = from_elf(&sv, argv + 1, argc - 1, NULL);
	if (r == 0) {
		r = kw_stackvars_write(&sv, stdout);
		if (r < 0)
			fprintf(stderr, "kwatchctl: stackvars: writing the index: %s\n", strerror(-r));
	}
	kw_stackvars_free(&sv);
	return r < 0 ? 1 : 0;
}
