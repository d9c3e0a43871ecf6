/* SPDX-License-Identifier: GPL-2.0 */
/* tracefs's text, with no daemon state: parsing the lines of trace_pipe (a
 * wprobe's hits, the hit-storm guard's reports, the kernel's lost counts)
 * and writing the lines of dynamic_events and the trigger files. */
#ifndef KW_TRACEFS_TEXT_H
#define KW_TRACEFS_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"

struct wprobe_hit {
	char comm[32];
	int pid;
	int cpu;
	char ts[32];
	char event[KW_NAME_MAX + 1];
	char ip[160];
	char args[1024];
};

/* A wprobe:wprobe_storm line: the kernel's hit-storm guard disarmed a
 * wprobe, which stays disarmed until its event is enabled again. */
struct wprobe_storm {
	char group[KW_NAME_MAX + 1];
	char name[KW_NAME_MAX + 1];
	bool repoints;		/* re-pointed too often, not hit too often */
	unsigned int count;	/* within one second, on cpu */
	unsigned int limit;	/* the wprobe's max rate */
	int cpu;
	char ts[32];
};

/* Parse one trace_pipe line of a kwatchd wprobe; -EINVAL if it is not one. */
int wprobe_parse_hit(const char *line, struct wprobe_hit *h);
/* Parse the kernel's "CPU:N [LOST K EVENTS]" (K events overwritten before
 * they were read; "[LOST EVENTS]": a number unknown, given as 1); -EINVAL
 * if the line is not one. */
int wprobe_parse_lost(const char *line, int *cpu, uint64_t *count);

/* trace_pipe's bytes cut into lines.  A line that does not fit in buf is
 * dropped whole, up to its newline, and reported once. */
#define WPROBE_LINE_BUF 8192
struct wprobe_lines {
	char buf[WPROBE_LINE_BUF];
	size_t len;
	bool skipping;		/* in a line too long, dropped up to its newline */
};

/* Where to read into, and how many bytes at most (one is kept for a NUL). */
static inline char *wprobe_lines_room(struct wprobe_lines *l, size_t *n)
{
	*n = sizeof(l->buf) - 1 - l->len;
	return l->buf + l->len;
}
/* n bytes were read into the room: fn(line, data) for each whole line (its
 * newline cut), and fn(NULL, data) once for each line too long to keep. */
void wprobe_lines_feed(struct wprobe_lines *l, size_t n,
		       void (*fn)(const char *line, void *data), void *data);
/* Parse a wprobe_storm line; -EINVAL if it is not one.  From a line
 * already parsed as a hit: wprobe_storm_from_hit(). */
int wprobe_parse_storm(const char *line, struct wprobe_storm *s);
int wprobe_storm_from_hit(const struct wprobe_hit *h, struct wprobe_storm *s);

/* The dynamic_events line for p in group, and a trigger's line for the
 * event file of its SYSTEM/EVENT; their length or -ENAMETOOLONG. */
int kw_wprobe_line(const struct kw_wprobe *p, const char *group, char *buf, size_t n);
int kw_trigger_line(const struct kw_trigger *t, const char *wprobe, char *buf, size_t n);

struct parse_state;
/* The [wprobe] section (config.c's drop-in parser calls these): one key,
 * 1 if taken, else 0 with the reason given to kw_bad(); then the section
 * read whole, 0 or -EINVAL (the name from the file's stem if none given). */
int kw_wprobe_key(struct parse_state *ps, struct kw_wprobe *p, const char *key, const char *v);
int kw_wprobe_validate(struct parse_state *ps, struct kw_wprobe *p, const char *stem);

#endif
