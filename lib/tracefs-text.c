// SPDX-License-Identifier: GPL-2.0
/* tracefs's text, both ways, with no daemon state: the [wprobe] section of
 * a wprobe.d/ file, the lines kwatchd reads
 * from trace_pipe (a wprobe's hits, the hit-storm guard's reports, the
 * kernel's lost counts, cut into lines) and the ones it writes to
 * dynamic_events and the trigger files.  The daemon (kwatchd-wprobe.c), the host
 * tests and the fuzz harnesses link it. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
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
	char where[KW_MODULE_MAX + KW_SYM_MAX + 32], rate[16] = "";

	if (p->max_rate)
		snprintf(rate, sizeof(rate), "%u", p->max_rate);
	if (p->symbol[0] && p->offset)
		snprintf(where, sizeof(where), "%s%s%s%+ld", p->module, p->module[0] ? ":" : "",
			 p->symbol, p->offset);
	else if (p->symbol[0])
		snprintf(where, sizeof(where), "%s%s%s", p->module, p->module[0] ? ":" : "",
			 p->symbol);
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

/* --- the [wprobe] section ------------------------------------------------- */

/* SYSTEM/EVENT[:FIELD[+|-OFF]] [if FILTER] */
/* Whether one of the fetch args in v ("NAME=ARG ...") is called name. */
static bool fetch_names(const char *v, const char *name)
{
	size_t n = strlen(name);

	for (;;) {
		v += strspn(v, " \t");
		if (!*v)
			return false;
		if (strncmp(v, name, n) == 0 && v[n] == '=')
			return true;
		v += strcspn(v, " \t");
	}
}

static int parse_trigger(struct kw_trigger *t, const char *v, bool set)
{
	char spec[256], *p, *slash, *colon, *sign;
	const char *filter;
	size_t n;

	memset(t, 0, sizeof(*t));
	t->set = set;
	filter = strstr(v, " if ");
	n = filter ? (size_t)(filter - v) : strlen(v);
	if (n >= sizeof(spec))
		return -EINVAL;
	memcpy(spec, v, n);
	spec[n] = '\0';
	if (filter) {
		filter += 4;
		while (*filter == ' ')
			filter++;
		if (!*filter || strlen(filter) >= sizeof(t->filter) || strpbrk(filter, "\n"))
			return -EINVAL;
		strcpy(t->filter, filter);
	}
	p = spec;
	slash = strchr(p, '/');
	if (!slash)
		return -EINVAL;
	*slash = '\0';
	colon = strchr(slash + 1, ':');
	if (colon)
		*colon = '\0';
	if (!kw_ident_ok(p, KW_NAME_MAX, NULL) || !kw_ident_ok(slash + 1, KW_NAME_MAX, NULL))
		return -EINVAL;
	strcpy(t->system, p);
	strcpy(t->event, slash + 1);
	if (!colon)
		return set ? -EINVAL : 0;	/* set_wprobe needs a field */
	sign = strpbrk(colon + 1, "+-");
	if (sign) {
		char *end;

		errno = 0;
		t->offset = strtol(sign, &end, 0);
		if (errno || *end || end == sign + 1)
			return -EINVAL;
		*sign = '\0';
	}
	if (!kw_ident_ok(colon + 1, KW_NAME_MAX, NULL))
		return -EINVAL;
	strcpy(t->field, colon + 1);
	return 0;
}

int kw_wprobe_key(struct parse_state *ps, struct kw_wprobe *p, const char *key, const char *v)
{
	unsigned long ul;
	char *end;

	if (strcmp(key, "name") == 0) {
		if (!kw_ident_ok(v, KW_NAME_MAX, NULL))
			return kw_bad(ps, "name: want [A-Za-z0-9_], got '%s'", v);
		strcpy(p->name, v);
	} else if (strcmp(key, "access") == 0) {
		if (strcmp(v, "r") && strcmp(v, "w") && strcmp(v, "rw"))
			return kw_bad(ps, "access: want r, w or rw, got '%s'", v);
		strcpy(p->access, v);
	} else if (strcmp(key, "symbol") == 0) {
		const char *colon = strchr(v, ':');
		char mod[KW_MODULE_MAX + 1];

		/* MODULE:SYMBOL, as the kernel's probes write it */
		if (colon && (size_t)(colon - v) < sizeof(mod)) {
			memcpy(mod, v, colon - v);
			mod[colon - v] = '\0';
			if (!kw_ident_ok(mod, KW_MODULE_MAX, ""))
				return kw_bad(ps, "symbol: not a module name before ':': '%s'", v);
			if (p->module[0] && strcmp(p->module, mod))
				return kw_bad(ps, "symbol: module %s, but module = %s", mod,
					      p->module);
			strcpy(p->module, mod);
			v = colon + 1;
		} else if (colon) {
			return kw_bad(ps, "symbol: not a module name before ':': '%s'", v);
		}
		if (!kw_ident_ok(v, KW_SYM_MAX, "."))
			return kw_bad(ps, "symbol: not a symbol name: '%s'", v);
		strcpy(p->symbol, v);
	} else if (strcmp(key, "module") == 0) {
		if (!kw_ident_ok(v, KW_MODULE_MAX, ""))
			return kw_bad(ps, "module: not a module name: '%s'", v);
		if (p->module[0] && strcmp(p->module, v))
			return kw_bad(ps, "module: %s, but symbol names module %s", v, p->module);
		strcpy(p->module, v);
	} else if (strcmp(key, "address") == 0) {
		if (kw_parse_ulong(v, ULONG_MAX, &ul) < 0)
			return kw_bad(ps, "address: want a number, got '%s'", v);
		p->address = ul;
		p->has_address = true;
	} else if (strcmp(key, "offset") == 0) {
		errno = 0;
		p->offset = strtol(v, &end, 0);
		if (errno || *end || !*v || p->offset < -65536 || p->offset > 65536)
			return kw_bad(ps, "offset: want -65536..65536, got '%s'", v);
	} else if (strcmp(key, "length") == 0) {
		if (kw_parse_uint(v, 8, &p->length) < 0 ||
		    (p->length != 1 && p->length != 2 && p->length != 4 && p->length != 8))
			return kw_bad(ps, "length: want 1, 2, 4 or 8, got '%s'", v);
	} else if (strcmp(key, "max_rate") == 0) {
		if (kw_parse_uint(v, KW_WPROBE_MAX_RATE, &p->max_rate) < 0 || !p->max_rate)
			return kw_bad(ps, "max_rate: want 1..%u (hits a second), got '%s'",
				   KW_WPROBE_MAX_RATE, v);
	} else if (strcmp(key, "fetch") == 0) {
		if (strpbrk(v, "\n;"))
			return kw_bad(ps, "fetch: ';' and newlines are not allowed");
		if (fetch_names(v, KW_COMM_ARG))
			return kw_bad(ps, "fetch: the name " KW_COMM_ARG " is kwatchd's (the task's "
				      "comm, added to every wprobe)");
		strcpy(p->fetch, v);
	} else if (strcmp(key, "set_on") == 0 || strcmp(key, "clear_on") == 0) {
		bool set = key[0] == 's';

		if (p->n_trig >= KW_TRIGGERS_MAX)
			return kw_bad(ps, "%s: at most %d triggers", key, KW_TRIGGERS_MAX);
		if (parse_trigger(&p->trig[p->n_trig], v, set) < 0)
			return kw_bad(ps, "%s: want SYSTEM/EVENT%s[+|-OFFSET] [if FILTER], "
				      "got '%s'", key, set ? ":FIELD" : "[:FIELD", v);
		p->n_trig++;
	} else if (strcmp(key, "enabled") == 0) {
		if (kw_parse_bool(v, &p->enabled) < 0)
			return kw_bad(ps, "enabled: want yes or no, got '%s'", v);
	} else {
		return kw_bad(ps, "unknown key '%s' in [wprobe]", key);
	}
	return 1;
}

/* The [wprobe] section read whole: its name from the file's (stem) if it
 * gave none, and the keys that go together checked. */
int kw_wprobe_validate(struct parse_state *ps, struct kw_wprobe *p, const char *stem)
{
	if (!p->name[0]) {
		if (!kw_ident_ok(stem, KW_NAME_MAX, NULL))
			return kw_bad(ps, "no name= and the file name is not a valid event "
				      "name"), -EINVAL;
		strcpy(p->name, stem);
	}
	if (p->symbol[0] && p->has_address)
		return kw_bad(ps, "[wprobe] takes symbol= or address=, not both"), -EINVAL;
	if (!p->symbol[0] && !p->has_address) {
		bool set = false;
		unsigned int i;

		for (i = 0; i < p->n_trig; i++)
			set |= p->trig[i].set;
		if (!set)
			return kw_bad(ps, "[wprobe] needs symbol=, address= or a set_on= "
				      "trigger"), -EINVAL;
		/* Follows heap objects: created on a dummy address. */
		p->has_address = true;
		p->address = 0;
	}
	if (p->has_address && p->offset)
		return kw_bad(ps, "offset= applies to symbol= only"), -EINVAL;
	if (p->module[0] && !p->symbol[0])
		return kw_bad(ps, "module= names the module of symbol=: give symbol= too"),
		       -EINVAL;
	return 0;
}
