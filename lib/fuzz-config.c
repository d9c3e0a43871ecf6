// SPDX-License-Identifier: GPL-2.0
/*
 * A fuzz.d file's [fuzz] section: its defaults, its keys and the checks of
 * the file as a whole.  Pure, apart from the daemon (kwatchd-fuzz.c): config.c
 * calls it for every fuzz.d file, and test_config and the fuzz_config
 * harness link it with config.c and no struct kwd.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "fuzz-config.h"
#include "util.h"

void kw_fuzz_defaults(struct kw_fuzz *z)
{
	z->repeat = 1;
	z->keep = KW_FUZZ_KEEP_DEFAULT;
	z->enabled = true;
	z->buffer_size = KW_FUZZ_BUFFER_DEFAULT;
	z->batch = KW_FUZZ_BATCH_DEFAULT;
	z->stats_interval = KW_FUZZ_STATS_DEFAULT;
}

/* Refuse the key: why, and -EINVAL. */
static int bad(char *why, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int bad(char *why, size_t n, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, n, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

int kw_fuzz_key(struct kw_fuzz *z, const char *key, const char *v, char *why, size_t n)
{
	if (strcmp(key, "target") == 0) {
		if (!kw_ident_ok(v, KW_NAME_MAX, NULL))
			return bad(why, n, "target: want [A-Za-z0-9_], got '%s'", v);
		strcpy(z->target, v);
	} else if (strcmp(key, "spool") == 0) {
		if (!kw_path_ok(v))
			return bad(why, n, "spool: not an absolute path: '%s'", v);
		if (strstr(v, "/../") || strstr(v, "/./") || strstr(v, "//") ||
		    kw_ends_with(v, "/..") || kw_ends_with(v, "/."))
			return bad(why, n, "spool: '.', '..' or '//' in the path: '%s'", v);
		strcpy(z->spool, v);
	} else if (strcmp(key, "producer_group") == 0) {
		if (!kw_ident_ok(v, sizeof(z->producer_group) - 1, "-") || *v == '-')
			return bad(why, n, "producer_group: want a group name, got '%s'", v);
		strcpy(z->producer_group, v);
	} else if (strcmp(key, "keep") == 0) {
		if (kw_parse_uint(v, 10000000, &z->keep) < 0)
			return bad(why, n, "keep: want 0 (all) to 10000000 entries, got '%s'", v);
	} else if (strcmp(key, "rate") == 0) {
		if (kw_parse_uint(v, 100000, &z->rate) < 0)
			return bad(why, n, "rate: want 0..100000 blobs/s, got '%s'", v);
	} else if (strcmp(key, "repeat") == 0) {
		if (kw_parse_uint(v, 1000, &z->repeat) < 0 || z->repeat < 1)
			return bad(why, n, "repeat: want 1..1000, got '%s'", v);
	} else if (strcmp(key, "enabled") == 0) {
		if (kw_parse_bool(v, &z->enabled) < 0)
			return bad(why, n, "enabled: want yes or no, got '%s'", v);
	} else if (strcmp(key, "input") == 0) {
		if (strcmp(v, "structured") && strcmp(v, "simple"))
			return bad(why, n, "input: want structured or simple, got '%s'", v);
		z->simple = v[1] == 'i';
	} else if (strcmp(key, "generate") == 0) {
		z->guided = strcmp(v, "guided") == 0;
		if (z->guided)
			z->generate = true;
		else if (kw_parse_bool(v, &z->generate) < 0)
			return bad(why, n, "generate: want yes, guided or no, got '%s'", v);
	} else if (strcmp(key, "stats_interval") == 0) {
		if (kw_parse_uint(v, 3600, &z->stats_interval) < 0 || z->stats_interval < 1)
			return bad(why, n, "stats_interval: want 1..3600 seconds, got '%s'", v);
	} else if (strcmp(key, "buffer_size") == 0) {
		if (kw_parse_uint(v, 65536, &z->buffer_size) < 0 || z->buffer_size < 2)
			return bad(why, n, "buffer_size: want 2..65536 bytes, got '%s'", v);
	} else if (strcmp(key, "batch") == 0) {
		if (kw_parse_uint(v, 1000000, &z->batch) < 0 || z->batch < 1)
			return bad(why, n, "batch: want 1..1000000 inputs, got '%s'", v);
	} else {
		return bad(why, n, "unknown key '%s' in [fuzz]", key);
	}
	return 0;
}

int kw_fuzz_validate(struct kw_fuzz *z, const char *stem, char *why, size_t n)
{
	if (!z->target[0]) {
		if (!kw_ident_ok(stem, KW_NAME_MAX, NULL))
			return bad(why, n, "no target= and the file name is not a valid target name");
		strcpy(z->target, stem);
	}
	if (z->generate && (z->spool[0] || z->producer_group[0] || z->rate || z->repeat != 1))
		return bad(why, n, "generate = %s has no spool: spool=, producer_group=, rate= and repeat= do not apply",
			   z->guided ? "guided" : "yes");
	return 0;
}
