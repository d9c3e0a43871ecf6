// SPDX-License-Identifier: GPL-2.0
/* tracefs's text, both ways, with no daemon state: the lines kwatchd reads
 * from trace_pipe (a wprobe's hits, the hit-storm guard's reports, the
 * kernel's lost counts, cut into lines) and the ones it writes to
 * dynamic_events and the trigger files.  The daemon (wprobe.c), the host
 * tests and the fuzz harnesses link it. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "tracefs-text.h"
#include "util.h"

/* The run of up to max decimal digits at p, at least min: its end, or NULL;
 * *val saturates at UINT64_MAX. */
static const char *digits(const char *p, size_t min, size_t max, uint64_t *val)
{
	uint64_t d;
	size_t n;

	*val = 0;
	for (n = 0; n < max && p[n] >= '0' && p[n] <= '9'; n++) {
		d = (uint64_t)(p[n] - '0');
		*val = *val > (UINT64_MAX - d) / 10 ? UINT64_MAX : *val * 10 + d;
	}
	return n >= min && !(p[n] >= '0' && p[n] <= '9') ? p + n : NULL;
}

static const char *skip_spaces(const char *p)
{
	while (*p == ' ')
		p++;
	return p;
}

/* The '[' of "[cpu]" is at most this far into a hit line: a comm of up to 15
 * bytes padded to 16, '-', a pid padded to 7 and a space make 25. */
#define HIT_CPU_MAX 64

/*
 * The fixed part of a hit line around br, a '[' after a space:
 * "-<pid> [<cpu>] <flags> <ts>: <event>: ", and where the comm ends (its
 * '-') in *dash.  The rest of the line, or NULL if br is not that '['.
 */
static const char *hit_context(const char *line, const char *br, struct wprobe_hit *h,
			       const char **dash)
{
	const char *p = br - 1, *q, *ts;
	uint64_t v;

	/* Back from the '[': spaces, the pid's digits, its '-'. */
	while (p > line && *p == ' ')
		p--;
	for (q = p; q > line && *q >= '0' && *q <= '9'; q--)
		;
	if (*q != '-' || q == p || p - q > 9 || !digits(q + 1, 1, 9, &v))
		return NULL;
	h->pid = (int)v;
	*dash = q;
	p = digits(br + 1, 3, 9, &v);
	if (!p || p[0] != ']' || p[1] != ' ')
		return NULL;
	h->cpu = (int)v;
	/* The flags ("d.h2."): letters, digits and dots. */
	p = skip_spaces(p + 1);
	for (q = p; (*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') ||
		    (*q >= '0' && *q <= '9') || *q == '.'; q++)
		if (q - p > 16)
			return NULL;
	if (q == p || *q != ' ')
		return NULL;
	/* The timestamp, "SECONDS[.FRACTION]: ". */
	ts = skip_spaces(q);
	p = digits(ts, 1, 20, &v);
	if (p && *p == '.')
		p = digits(p + 1, 1, 9, &v);
	if (!p || p[0] != ':' || p[1] != ' ')
		return NULL;
	snprintf(h->ts, sizeof(h->ts), "%.*s", (int)(p - ts), ts);
	/* The event's name, "[A-Za-z0-9_]+:". */
	p = skip_spaces(p + 1);
	for (q = p; (*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') ||
		    (*q >= '0' && *q <= '9') || *q == '_'; q++)
		if (q - p >= KW_NAME_MAX)
			return NULL;
	if (q == p || *q != ':')
		return NULL;
	snprintf(h->event, sizeof(h->event), "%.*s", (int)(q - p), p);
	return q + 1;
}

/*
 * The comm kwatchd's wprobes fetch, last: "... kwatchd_comm="COMM"" ends
 * the args.  The comm (up to 15 bytes) may hold quotes and the marker
 * itself, and a user's string arg before it anything: the marker taken is
 * the first whose value, up to the closing quote at the line's end, could
 * be a comm.  It replaces the header's comm and leaves the args.
 */
static void comm_from_fetch(struct wprobe_hit *h)
{
	static const char marker[] = " " KW_COMM_ARG "=\"";
	const size_t mlen = sizeof(marker) - 1, most = 15 + 1;
	size_t len = strlen(h->args), p;

	if (len < mlen || h->args[len - 1] != '"')
		return;
	p = len > mlen + most ? len - mlen - most : 0;
	for (; p + mlen <= len; p++) {
		size_t start;

		if (p == 0 && strncmp(h->args, marker + 1, mlen - 1) == 0)
			start = mlen - 1;
		else if (strncmp(h->args + p, marker, mlen) == 0)
			start = p + mlen;
		else
			continue;
		if (len - start < 1 || len - start > most)
			continue;
		snprintf(h->comm, sizeof(h->comm), "%.*s", (int)(len - start - 1), h->args + start);
		h->args[p] = '\0';
		return;
	}
}

/*
 *            comm-123     [001] d.h2.  1234.567890: name: (ip+0x1/0x2) a=1 b=2
 * The comm is the task's to choose: it may hold '-', spaces and what looks
 * like the rest ("x-1 [000] y").  The first '[' after which the whole fixed
 * part follows is the cpu's: a false one inside the comm would need 16
 * bytes for "-1 [000] . 0: e:", and a comm holds 15 (TASK_COMM_LEN - 1).
 * The pid is after the last '-' before that '['.
 */
int wprobe_parse_hit(const char *line, struct wprobe_hit *h)
{
	const char *br, *dash = NULL, *p = NULL;

	memset(h, 0, sizeof(*h));
	while (*line == ' ')
		line++;
	for (br = strchr(line, '['); br && br - line < HIT_CPU_MAX; br = strchr(br + 1, '[')) {
		if (br > line && br[-1] == ' ' && (p = hit_context(line, br, h, &dash)))
			break;
	}
	if (!p) {
		memset(h, 0, sizeof(*h));
		return -EINVAL;
	}
	snprintf(h->comm, sizeof(h->comm), "%.*s", (int)(dash - line), line);
	p = skip_spaces(p);
	if (*p == '(') {
		const char *close = strchr(p, ')');

		if (!close)
			return -EINVAL;
		snprintf(h->ip, sizeof(h->ip), "%.*s", (int)(close - p - 1), p + 1);
		p = skip_spaces(close + 1);
	}
	snprintf(h->args, sizeof(h->args), "%s", p);
	h->args[strcspn(h->args, "\n")] = '\0';
	comm_from_fetch(h);
	return 0;
}

/* "CPU:%d [LOST %lu EVENTS]" or "CPU:%d [LOST EVENTS]" (trace.c), the whole line. */
int wprobe_parse_lost(const char *line, int *cpu, uint64_t *count)
{
	const char *p;
	uint64_t v;

	if (strncmp(line, "CPU:", 4) || !(p = digits(line + 4, 1, 9, &v)))
		return -EINVAL;
	*cpu = (int)v;
	if (strncmp(p, " [LOST ", 7))
		return -EINVAL;
	p += 7;
	*count = 1;
	if (*p != 'E') {
		if (!(p = digits(p, 1, 20, &v)) || !v || *p++ != ' ')
			return -EINVAL;
		*count = v;
	}
	return strcmp(p, "EVENTS]") ? -EINVAL : 0;
}

void wprobe_lines_feed(struct wprobe_lines *l, size_t n,
		       void (*fn)(const char *line, void *data), void *data)
{
	char *start = l->buf, *end, *nl;

	l->len += n;
	end = l->buf + l->len;
	*end = '\0';
	while ((nl = memchr(start, '\n', end - start))) {
		*nl = '\0';
		/* The end of a line too long: reported when it filled buf. */
		if (!l->skipping)
			fn(start, data);
		l->skipping = false;
		start = nl + 1;
	}
	l->len = end - start;
	if (!l->skipping && l->len == sizeof(l->buf) - 1) {
		fn(NULL, data);
		l->skipping = true;
	}
	if (l->skipping)
		l->len = 0;
	memmove(l->buf, start, l->len);
}

/*
 *   <idle>-0 [001] d.h2. 5.000001: wprobe_storm: kwatchd/v disarmed: 501 hits in a second, limit 500
 * (or "re-points"): the kernel's hit-storm guard disarmed wprobe group/v.
 */
int wprobe_storm_from_hit(const struct wprobe_hit *h, struct wprobe_storm *s)
{
	char what[16], end;
	int n;

	memset(s, 0, sizeof(*s));
	if (strcmp(h->event, "wprobe_storm") || h->ip[0])
		return -EINVAL;
	n = sscanf(h->args, "%63[^/ ]/%63s disarmed: %u %15s in a second, limit %u%c",
		   s->group, s->name, &s->count, what, &s->limit, &end);
	if (n != 5)
		return -EINVAL;
	if (strcmp(what, "hits") == 0)
		s->repoints = false;
	else if (strcmp(what, "re-points") == 0)
		s->repoints = true;
	else
		return -EINVAL;
	s->cpu = h->cpu;
	memcpy(s->ts, h->ts, sizeof(s->ts));
	return 0;
}

int wprobe_parse_storm(const char *line, struct wprobe_storm *s)
{
	struct wprobe_hit h;

	if (wprobe_parse_hit(line, &h) < 0) {
		memset(s, 0, sizeof(*s));
		return -EINVAL;
	}
	return wprobe_storm_from_hit(&h, s);
}

/* The kernel's words for a wprobe and its triggers (dynamic_events,
 * the trigger files). */
int kw_wprobe_line(const struct kw_wprobe *p, const char *group, char *buf, size_t n)
{
	char where[160], rate[16] = "";

	if (p->max_rate)
		snprintf(rate, sizeof(rate), "%u", p->max_rate);
	if (p->symbol[0] && p->offset)
		snprintf(where, sizeof(where), "%s%+ld", p->symbol, p->offset);
	else if (p->symbol[0])
		snprintf(where, sizeof(where), "%s", p->symbol);
	else
		snprintf(where, sizeof(where), "0x%lx", p->address);
	return kw_fit(snprintf(buf, n, "w%s:%s/%s %s@%s:%u%s%s " KW_COMM_ARG "=$comm", rate, group,
			       p->name, p->access, where, p->length, p->fetch[0] ? " " : "", p->fetch),
		      n);
}

int kw_trigger_line(const struct kw_trigger *t, const char *wprobe, char *buf, size_t n)
{
	char field[96] = "", filter[140] = "";

	if (t->field[0] && t->offset)
		snprintf(field, sizeof(field), ":%s%+ld", t->field, t->offset);
	else if (t->field[0])
		snprintf(field, sizeof(field), ":%s", t->field);
	if (t->filter[0])
		snprintf(filter, sizeof(filter), " if %s", t->filter);
	return kw_fit(snprintf(buf, n, "%s_wprobe:%s%s%s", t->set ? "set" : "clear", wprobe,
			    field, filter), n);
}
