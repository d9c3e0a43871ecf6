/* SPDX-License-Identifier: GPL-2.0 */
/* wprobes through tracefs: the event is defined in dynamic_events (group
 * "kwatchd"), enabled in a tracefs instance of the daemon's own, and its
 * hits are read from that instance's trace_pipe. */
#ifndef KW_WPROBE_H
#define KW_WPROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"

#define KW_WPROBE_GROUP "kwatchd"

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

/* tracefs/README mentions the w: syntax. */
bool wprobe_supported(const char *tracefs);
/* mkdir <tracefs>/instances/<instance>; fills the trace_pipe path. */
int wprobe_instance_open(const char *tracefs, const char *instance, char *pipe, size_t n);
/* Create, attach triggers and enable.  On failure nothing is left behind;
 * reason gets the kernel's error_log line when there is one. */
int wprobe_create(const char *tracefs, const char *instance, const struct kw_wprobe *p,
		  char *reason, size_t n);
/* Enable wprobe:wprobe_storm in the instance; -ENOENT: no guard here. */
int wprobe_storm_enable(const char *tracefs, const char *instance);
/* Remove the instance and the KW_WPROBE_GROUP wprobes a killed daemon
 * left; returns how many wprobes, or a negative errno. */
int wprobe_remove_stale(const char *tracefs, const char *instance,
			void (*removed)(const char *name, void *data), void *data);
int wprobe_remove(const char *tracefs, const char *instance, const struct kw_wprobe *p);
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

#endif
