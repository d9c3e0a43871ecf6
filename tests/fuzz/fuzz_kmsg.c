// SPDX-License-Identifier: GPL-2.0
/* libFuzzer harness: the kernel log parser.  The input's lines go through
 * kmsg_strip() and kmsg_feed() (the whole input as one /dev/kmsg record
 * too), every report into the dedup table; then the input as a pstore
 * record split into its panic and that panic's cause.  Whatever the bytes,
 * reports keep to their bounds and their strings end, and so do the crash
 * to watch parsers' names (kmsg_stack_protector(), kmsg_kasan_stack()) of
 * each report. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kmsg.h"
#include "pstore.h"

static void check_str(const char *s, size_t n)
{
	if (!memchr(s, '\0', n))
		abort();
}

/* What triage takes from a report: names that end, found or not. */
static void check_triage(const struct kmsg_report *r)
{
	char func[KMSG_NAME_MAX], var[KMSG_VAR_MAX], mod[64];
	bool found;

	found = kmsg_stack_protector(r->title, func, sizeof(func), mod, sizeof(mod));
	check_str(func, sizeof(func));
	check_str(mod, sizeof(mod));
	if (found && !func[0])
		abort();
	found = kmsg_kasan_stack(r->text, func, sizeof(func), var, sizeof(var), mod, sizeof(mod));
	check_str(func, sizeof(func));
	check_str(var, sizeof(var));
	check_str(mod, sizeof(mod));
	if (found ? !func[0] || !var[0] : func[0] || var[0] || mod[0])
		abort();
}

static int check(const struct kmsg_report *r, void *userdata)
{
	unsigned int i;

	if ((unsigned int)r->kind >= _KMSG_KIND_MAX ||
	    (unsigned int)r->access >= _KMSG_ACCESS_MAX ||
	    r->kind_name != kmsg_kind_name[r->kind] || r->lines == 0 ||
	    r->lines > KMSG_LINES_MAX || r->nframes > KMSG_FRAMES_MAX ||
	    r->text_len >= KMSG_TEXT_MAX || strlen(r->text) != r->text_len ||
	    strncmp(r->key, r->kind_name, strlen(r->kind_name)) != 0)
		abort();
	check_str(r->title, sizeof(r->title));
	check_str(r->function, sizeof(r->function));
	check_str(r->location, sizeof(r->location));
	check_str(r->module, sizeof(r->module));
	check_str(r->watched, sizeof(r->watched));
	check_str(r->key, sizeof(r->key));
	for (i = 0; i < r->nframes; i++)
		check_str(r->frames[i], sizeof(r->frames[i]));
	if (kmsg_dedup_seen(userdata, r->key) < 1)
		abort();
	check_triage(r);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct kmsg_dedup d;
	struct kmsg_parser p;
	struct kmsg_report *cause = NULL, *panic = NULL;
	char *s = malloc(size + 1), *line, *next;
	const char *m;
	uint64_t ts;

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	if (kmsg_parser_init(&p) < 0) {
		free(s);
		return 0;
	}
	kmsg_dedup_init(&d);
	m = kmsg_strip(s, &ts, NULL);
	if (m)
		kmsg_feed(&p, m, ts, check, &d);
	for (line = s; line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		m = kmsg_strip(line, &ts, NULL);
		if (m)
			kmsg_feed(&p, m, ts, check, &d);
	}
	kmsg_flush(&p, check, &d);
	kmsg_parser_free(&p);

	memcpy(s, data, size);
	if (pstore_reports(s, &cause, &panic) == 0) {
		if (cause && (cause->kind == KMSG_PANIC || check(cause, &d)))
			abort();
		if (panic && (panic->kind != KMSG_PANIC || check(panic, &d)))
			abort();
	}
	free(cause);
	free(panic);
	kmsg_dedup_free(&d);
	free(s);
	return 0;
}
