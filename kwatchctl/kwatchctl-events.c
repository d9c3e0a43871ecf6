// SPDX-License-Identifier: GPL-2.0
/* kwatchctl: reading events.  The readable line that `follow` prints, and
 * `summary` of a finished NDJSON stream, such as the one a VM run leaves in
 * $KWATCH_CACHE/runs/<run>/events.ndjson.
 *
 * Events are read as schema 1 defines them (docs/event-schema.json); the
 * crash and catch sentences also take the names streams had before it, so
 * a saved old stream still reads, and whatever is not understood is
 * printed as key=value. */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "kwatchctl.h"

#define LIST_MAX 8	/* ranges listed per line in the summary */
#define VALUE_MAX 200	/* bytes of one string value on a readable line */

/* Keys already shown; the rest of the payload follows as key=value. */
struct shown {
	const char *keys[32];
	int n;
};

/* Schema 1's names first; the names before it (streams saved from an
 * older kwatchd) after them. */
static const char *const common_keys[] = { "schema", "start_id", "seq", "id", "timestamp", "ts",
					   "host", "boot_id", "type", NULL };
static const char *const watched_keys[] = { "watched", "func", "function", NULL };
static const char *const corrupting_keys[] = { "location", "ip_sym", "corrupting", "ip", NULL };
static const char *const function_keys[] = { "function", "func", NULL };
static const char *const address_keys[] = { "address", "addr", NULL };
static const char *const count_keys[] = { "count", "repeat", NULL };
static const char *const stack_keys[] = { "frames", "stack", NULL };

void kwc_schema_check(json_object *o)
{
	static bool said_old, said_new;
	json_object *v;
	int64_t n;

	if (!json_object_object_get_ex(o, "schema", &v) || !v) {
		if (!said_old)
			fprintf(stderr, "kwatchctl: events without a \"schema\" field: a stream "
				"from a kwatchd before schema %d; read as well as it can be\n",
				KWC_SCHEMA);
		said_old = true;
		return;
	}
	n = json_object_get_int64(v);
	if (!json_object_is_type(v, json_type_int) || n < 1 || n > KWC_SCHEMA) {
		if (!said_new)
			fprintf(stderr, "kwatchctl: events of schema %s: this kwatchctl reads "
				"schema %d; fields it does not know are shown as they are, and "
				"renamed ones may be missed\n", json_object_get_string(v),
				KWC_SCHEMA);
		said_new = true;
	}
}

static void mark(struct shown *s, const char *key)
{
	if (s->n < (int)(sizeof(s->keys) / sizeof(s->keys[0])))
		s->keys[s->n++] = key;
}

static bool is_shown(const struct shown *s, const char *key)
{
	int i;

	for (i = 0; i < s->n; i++)
		if (strcmp(s->keys[i], key) == 0)
			return true;
	return false;
}

static const char *str(json_object *v)
{
	const char *s = json_object_get_string(v);

	return s ? s : "null";
}

/* The first of names present (and not null), marked as shown. */
static const char *field(json_object *o, const char *const *names, struct shown *s)
{
	json_object *v;

	for (; *names; names++)
		if (json_object_object_get_ex(o, *names, &v) && v) {
			mark(s, *names);
			return str(v);
		}
	return NULL;
}

static bool get_u64(json_object *o, const char *key, uint64_t *ret)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !v)
		return false;
	*ret = json_object_get_uint64(v);
	return true;
}

static const char *type_of(json_object *o)
{
	json_object *v;

	return json_object_object_get_ex(o, "type", &v) && v ? str(v) : "-";
}

/* "crash", and "crash_repeat" (a report the daemon has seen before). */
static bool is_crash(const char *type)
{
	return strncmp(type, "crash", 5) == 0;
}

/* "catch" (BPF), "ksw_catch", "bpf_catch". */
static bool is_catch(const char *type)
{
	size_t n = strlen(type);

	return n >= 5 && strcmp(type + n - 5, "catch") == 0;
}

/* A string as one bounded line: its first line, at most VALUE_MAX bytes,
 * and how much was left out (a whole kernel report can be a field). */
static void put_string(FILE *out, const char *v)
{
	size_t len = strcspn(v, "\n"), all = strlen(v);

	if (len > VALUE_MAX)
		len = VALUE_MAX;
	fwrite(v, 1, len, out);
	if (len < all)
		fprintf(out, "...[%zu more bytes]", all - len);
}

static void put_value(FILE *out, json_object *v, const char *sep)
{
	size_t i, n;

	if (!json_object_is_type(v, json_type_array)) {
		put_string(out, str(v));
		return;
	}
	n = json_object_array_length(v);
	for (i = 0; i < n; i++) {
		fputs(i ? sep : "", out);
		put_string(out, str(json_object_array_get_idx(v, i)));
	}
}

/* "KASAN: slab-out-of-bounds in f (file.c:12): read of size 1 at 0x..." */
static void crash_sentence(FILE *out, json_object *o, struct shown *s)
{
	const char *kind = field(o, (const char *const[]){ "kind", "title", NULL }, s);
	const char *fn = field(o, function_keys, s);
	const char *loc = field(o, (const char *const[]){ "location", NULL }, s);
	const char *access = field(o, (const char *const[]){ "access", NULL }, s);
	const char *size = field(o, (const char *const[]){ "access_size", "size", NULL }, s);
	const char *addr = field(o, address_keys, s);

	if (kind)
		mark(s, "title");	/* the same words as kind and function */
	fprintf(out, " %s", kind ? kind : "crash");
	if (fn)
		fprintf(out, " in %s", fn);
	if (loc)
		fprintf(out, " (%s)", loc);
	if (access || size || addr)
		fputc(':', out);
	if (access)
		fprintf(out, " %s", access);
	if (size)
		fprintf(out, " of size %s", size);
	if (addr)
		fprintf(out, " at %s", addr);
}

/* "watched f, corrupted by g+0x12 at 0x..." */
static void catch_sentence(FILE *out, json_object *o, struct shown *s)
{
	const char *watched = field(o, watched_keys, s);
	const char *by = field(o, corrupting_keys, s);
	const char *addr = field(o, address_keys, s);

	fprintf(out, " watched %s", watched ? watched : "?");
	if (by)
		fprintf(out, ", corrupted by %s", by);
	if (addr)
		fprintf(out, " at %s", addr);
}

/* The payload: a sentence for crashes and catches, then key=value.  In the
 * summary a "stack" or "frames" array goes on a line of its own, and a
 * crash's count is left to the summary's own count of its reports. */
static void print_body(FILE *out, json_object *o, bool in_summary)
{
	const char *type = type_of(o);
	struct shown s = { .n = 0 };
	const char *const *k;
	json_object *v;

	for (k = common_keys; *k; k++)
		mark(&s, *k);
	if (is_crash(type)) {
		crash_sentence(out, o, &s);
		/* What was being fuzzed comes first. */
		for (k = (const char *const[]){ "target", "blob", NULL }; *k; k++) {
			if (json_object_object_get_ex(o, *k, &v) && v) {
				fprintf(out, " %s=%s", *k, str(v));
				mark(&s, *k);
			}
		}
	} else if (is_catch(type)) {
		catch_sentence(out, o, &s);
	}
	if (in_summary) {
		for (k = stack_keys; *k; k++)
			mark(&s, *k);
		if (is_crash(type))
			for (k = count_keys; *k; k++)
				mark(&s, *k);
	}
	json_object_object_foreach(o, key, val) {
		if (is_shown(&s, key))
			continue;
		fprintf(out, " %s=", key);
		put_value(out, val, ",");
	}
	for (k = stack_keys; in_summary && *k; k++) {
		if (json_object_object_get_ex(o, *k, &v) && v) {
			fprintf(out, "\n      %s: ", *k);
			put_value(out, v, " < ");
		}
	}
}

void kwc_print_readable(FILE *out, json_object *o)
{
	json_object *v;
	const char *ts = NULL;

	if (json_object_object_get_ex(o, "timestamp", &v) && v)
		ts = str(v);
	else if (json_object_object_get_ex(o, "ts", &v) && v)
		ts = str(v);
	fprintf(out, "%-6" PRIu64 " %s %-16s",
		json_object_object_get_ex(o, "seq", &v) ? (uint64_t)json_object_get_uint64(v) : 0,
		ts ? ts : "-", type_of(o));
	print_body(out, o, false);
	fputc('\n', out);
}

/* --- summary ------------------------------------------------------------- */

struct range {
	uint64_t a, b;
};

/* A distinct crash: its first report, and how many reports of it the
 * stream accounts for (its count, raised by later crash_repeat events). */
struct crash {
	json_object *o;
	uint64_t reports;
	bool first_missing;	/* known only from a crash_repeat */
};

struct type_count {
	char *type;
	uint64_t n;
};

struct summary {
	uint64_t bad, events, no_seq;
	struct type_count *types;
	size_t ntypes, cap_types;
	/* seq accounting, per daemon start (seq counts from 1 at each) */
	bool have_seq;
	uint64_t last;		/* highest position accounted for */
	struct range *segs, *gaps, *lost;
	size_t nsegs, ngaps, nlost, cap_segs, cap_gaps, cap_lost;
	uint64_t missing, lost_records, lost_events;
	char sources[128];
	/* kept for printing */
	json_object **catches;
	size_t ncatches, cap_catches;
	struct crash *crashes;
	size_t ncrashes, cap_crashes;
};

static int grow(void **p, size_t *cap, size_t n, size_t size)
{
	void *q;
	size_t c;

	if (n < *cap)
		return 0;
	c = *cap ? *cap * 2 : 16;
	q = realloc(*p, c * size);
	if (!q)
		return -ENOMEM;
	*p = q;
	*cap = c;
	return 0;
}

static int add_range(struct range **v, size_t *n, size_t *cap, uint64_t a, uint64_t b)
{
	if (grow((void **)v, cap, *n, sizeof(**v)) < 0)
		return -ENOMEM;
	(*v)[(*n)++] = (struct range){ a, b };
	return 0;
}

static int add_gap(struct summary *s, uint64_t a, uint64_t b)
{
	s->missing += b - a + 1;
	return add_range(&s->gaps, &s->ngaps, &s->cap_gaps, a, b);
}

static int count_type(struct summary *s, const char *type)
{
	size_t i;

	for (i = 0; i < s->ntypes; i++)
		if (strcmp(s->types[i].type, type) == 0) {
			s->types[i].n++;
			return 0;
		}
	if (grow((void **)&s->types, &s->cap_types, s->ntypes, sizeof(*s->types)) < 0)
		return -ENOMEM;
	s->types[s->ntypes].type = strdup(type);
	if (!s->types[s->ntypes].type)
		return -ENOMEM;
	s->types[s->ntypes++].n = 1;
	return 0;
}

static int keep(json_object ***v, size_t *n, size_t *cap, json_object *o)
{
	if (grow((void **)v, cap, *n, sizeof(**v)) < 0)
		return -ENOMEM;
	(*v)[(*n)++] = json_object_get(o);
	return 0;
}

/* Account for the positions an event stands for.  A plain event is its own
 * seq; a lost record stands for first_seq..last_seq (it carries seq =
 * last_seq: event.h's reuse_seq); a status or reply record answers one
 * client's command, reusing the last seq: no position.  Positions at or below the last one mean the
 * daemon started again (seq counts from 1 at each start). */
static int track_seq(struct summary *s, json_object *o, const char *type)
{
	uint64_t seq, lo, hi, first, last;

	if (!get_u64(o, "seq", &seq)) {
		s->no_seq++;
		return 0;
	}
	if (strcmp(type, "status") == 0 || strcmp(type, "reply") == 0)
		return 0;
	lo = hi = seq;
	if (strcmp(type, "lost") == 0 && get_u64(o, "first_seq", &first) &&
	    get_u64(o, "last_seq", &last) && first <= last) {
		lo = first;
		hi = last > seq ? last : seq;
		if (add_range(&s->lost, &s->nlost, &s->cap_lost, first, last) < 0)
			return -ENOMEM;
	}
	if (s->have_seq && lo > s->last) {
		if (lo > s->last + 1 && add_gap(s, s->last + 1, lo - 1) < 0)
			return -ENOMEM;
		s->last = hi;
		s->segs[s->nsegs - 1].b = hi;
		return 0;
	}
	/* The first event, or a new daemon start. */
	if (add_range(&s->segs, &s->nsegs, &s->cap_segs, lo, hi) < 0)
		return -ENOMEM;
	if (lo > 1 && add_gap(s, 1, lo - 1) < 0)
		return -ENOMEM;
	s->have_seq = true;
	s->last = hi;
	return 0;
}

static void add_source(struct summary *s, json_object *o)
{
	json_object *v;
	const char *src;
	char pat[72];
	size_t len = strlen(s->sources);

	if (!json_object_object_get_ex(o, "source", &v) || !v)
		return;
	src = str(v);
	snprintf(pat, sizeof(pat), ",%s,", src);
	{
		char have[sizeof(s->sources) + 2];

		snprintf(have, sizeof(have), ",%s,", s->sources);
		if (strstr(have, pat))
			return;
	}
	snprintf(s->sources + len, sizeof(s->sources) - len, "%s%s", len ? "," : "", src);
}

static bool same_str(json_object *a, json_object *b, const char *key)
{
	json_object *x, *y;

	return json_object_object_get_ex(a, key, &x) && x &&
	       json_object_object_get_ex(b, key, &y) && y && strcmp(str(x), str(y)) == 0;
}

/* Reports of the same crash: the same dedup key, or without keys the same
 * kind and function. */
static bool same_crash(json_object *a, json_object *b)
{
	json_object *v;

	if (json_object_object_get_ex(a, "key", &v) && v &&
	    json_object_object_get_ex(b, "key", &v) && v)
		return same_str(a, b, "key");
	return same_str(a, b, "kind") && same_str(a, b, "function");
}

static int on_crash(struct summary *s, json_object *o, const char *type)
{
	bool repeat = strcmp(type, "crash") != 0;
	struct shown ignore = { .n = 0 };
	const char *c = field(o, count_keys, &ignore);
	uint64_t n = c ? strtoull(c, NULL, 10) : 0;
	size_t i;

	if (repeat) {
		for (i = s->ncrashes; i-- > 0;) {
			if (same_crash(s->crashes[i].o, o)) {
				/* count is the total so far; without it, one more */
				s->crashes[i].reports = n > s->crashes[i].reports ? n :
							s->crashes[i].reports + 1;
				return 0;
			}
		}
	}
	if (grow((void **)&s->crashes, &s->cap_crashes, s->ncrashes, sizeof(*s->crashes)) < 0)
		return -ENOMEM;
	s->crashes[s->ncrashes++] = (struct crash){
		.o = json_object_get(o), .reports = n ? n : 1, .first_missing = repeat,
	};
	return 0;
}

static int on_event(struct summary *s, json_object *o)
{
	const char *type = type_of(o);
	uint64_t n;

	s->events++;
	if (count_type(s, type) < 0 || track_seq(s, o, type) < 0)
		return -ENOMEM;
	if (strcmp(type, "lost") == 0) {
		s->lost_records++;
		if (get_u64(o, "count", &n))
			s->lost_events += n;
		add_source(s, o);
	} else if (is_catch(type)) {
		return keep(&s->catches, &s->ncatches, &s->cap_catches, o);
	} else if (is_crash(type)) {
		return on_crash(s, o, type);
	}
	return 0;
}

static void print_ranges(FILE *out, const struct range *r, size_t n)
{
	size_t i;

	for (i = 0; i < n && i < LIST_MAX; i++) {
		fprintf(out, "%s%" PRIu64, i ? ", " : ": ", r[i].a);
		if (r[i].b != r[i].a)
			fprintf(out, "..%" PRIu64, r[i].b);
	}
	if (n > LIST_MAX)
		fprintf(out, ", ... (%zu more)", n - LIST_MAX);
}

static int cmp_type(const void *a, const void *b)
{
	return strcmp(((const struct type_count *)a)->type, ((const struct type_count *)b)->type);
}

static void print_summary(FILE *out, struct summary *s)
{
	uint64_t reports;
	size_t i;

	fprintf(out, "events: %" PRIu64, s->events);
	if (s->bad)
		fprintf(out, " (%" PRIu64 " line%s not JSON)", s->bad, s->bad == 1 ? "" : "s");
	fputc('\n', out);

	fputs("seq: ", out);
	if (!s->nsegs)
		fputs("none", out);
	for (i = 0; i < s->nsegs; i++)
		fprintf(out, "%s%" PRIu64 "..%" PRIu64, i ? " then " : "", s->segs[i].a, s->segs[i].b);
	if (s->nsegs == 1)
		fputs(", one daemon start", out);
	else if (s->nsegs > 1)
		fprintf(out, ", %zu daemon starts", s->nsegs);
	if (s->no_seq)
		fprintf(out, "; %" PRIu64 " events without seq", s->no_seq);
	fputc('\n', out);

	fprintf(out, "gaps: %zu", s->ngaps);
	if (s->ngaps) {
		fprintf(out, ", %" PRIu64 " events lost with no lost record", s->missing);
		print_ranges(out, s->gaps, s->ngaps);
	}
	fputc('\n', out);

	fprintf(out, "lost records: %" PRIu64, s->lost_records);
	if (s->lost_records) {
		fprintf(out, ", %" PRIu64 " events dropped and reported", s->lost_events);
		if (s->sources[0])
			fprintf(out, " (%s)", s->sources);
		print_ranges(out, s->lost, s->nlost);
	}
	fputc('\n', out);

	fputs("by type:\n", out);
	if (s->ntypes)
		qsort(s->types, s->ntypes, sizeof(*s->types), cmp_type);
	for (i = 0; i < s->ntypes; i++)
		fprintf(out, "  %-20s %" PRIu64 "\n", s->types[i].type, s->types[i].n);

	fprintf(out, "catches: %zu\n", s->ncatches);
	for (i = 0; i < s->ncatches; i++) {
		json_object *v = NULL;

		json_object_object_get_ex(s->catches[i], "seq", &v);
		fprintf(out, "  seq %s %s:", v ? str(v) : "-", type_of(s->catches[i]));
		print_body(out, s->catches[i], true);
		fputc('\n', out);
	}

	reports = 0;
	for (i = 0; i < s->ncrashes; i++)
		reports += s->crashes[i].reports;
	fprintf(out, "crashes: %zu", s->ncrashes);
	if (reports > s->ncrashes)
		fprintf(out, " distinct, %" PRIu64 " reports", reports);
	fputc('\n', out);
	for (i = 0; i < s->ncrashes; i++) {
		json_object *v = NULL;

		json_object_object_get_ex(s->crashes[i].o, "seq", &v);
		fprintf(out, "  seq %s", v ? str(v) : "-");
		if (s->crashes[i].reports > 1)
			fprintf(out, ", %" PRIu64 " reports", s->crashes[i].reports);
		if (s->crashes[i].first_missing)
			fputs(", the first not in this stream", out);
		fputc(':', out);
		print_body(out, s->crashes[i].o, true);
		fputc('\n', out);
	}
}

static void summary_free(struct summary *s)
{
	size_t i;

	for (i = 0; i < s->ntypes; i++)
		free(s->types[i].type);
	for (i = 0; i < s->ncatches; i++)
		json_object_put(s->catches[i]);
	for (i = 0; i < s->ncrashes; i++)
		json_object_put(s->crashes[i].o);
	free(s->types);
	free(s->segs);
	free(s->gaps);
	free(s->lost);
	free(s->catches);
	free(s->crashes);
}

int kwc_summary(FILE *in, FILE *out)
{
	struct summary s = { .events = 0 };
	uint64_t lineno = 0;
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int r = 0;

	while ((n = getline(&line, &cap, in)) >= 0) {
		json_object *o;

		lineno++;
		while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
			line[--n] = '\0';
		if (n == 0)
			continue;
		o = json_tokener_parse(line);
		if (!o || !json_object_is_type(o, json_type_object)) {
			s.bad++;
			fprintf(stderr, "kwatchctl: line %" PRIu64 " is not a JSON object: %.80s\n",
				lineno, line);
			json_object_put(o);
			continue;
		}
		kwc_schema_check(o);
		r = on_event(&s, o);
		json_object_put(o);
		if (r < 0)
			break;
	}
	if (r == 0 && ferror(in))
		r = -EIO;
	if (r == 0)
		print_summary(out, &s);
	free(line);
	summary_free(&s);
	return r;
}
