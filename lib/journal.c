// SPDX-License-Identifier: GPL-2.0
/* Events as structured journal entries (see journal.h). */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <syslog.h>
#include <systemd/sd-journal.h>

#include "journal.h"
#include "log.h"
#include "util.h"

/* The MESSAGE_IDs are fixed for good: a catalog or an alert matches on
 * them.  docs/event-schema.json lists the same (x-journal), and the
 * event_schema host test compares the two. */
const struct kw_journal_type kw_journal_types[] = {
	{ "bench", "f3219c624f910e42d678ed117bb9c84d", LOG_DEBUG, false },
	{ "bpf_attached", "ea1ffa47542a427aeb5f1d2f35c8888a", LOG_INFO, true },
	{ "bpf_detached", "cbb15b799003df4119ad724b6862198e", LOG_INFO, true },
	{ "bpf_unavailable", "73ad217792f210e33967b5ad64bee2a7", LOG_WARNING, true },
	{ "catch", "14ee25ee18061daad4c5a4e0ec0f7f1e", LOG_ERR, true },
	{ "config_applied", "528ceaa7ba523f7e6075f78d376305c0", LOG_INFO, true },
	{ "config_error", "9ff4fb2201c430223a206230e5f1894b", LOG_WARNING, true },
	{ "crash", "1fad4cd66d0f6c2f40c1b956875fd512", LOG_ERR, true },
	{ "crash_repeat", "0d3a4e5047a490ab0c4f8df881f4b5a0", LOG_NOTICE, true },
	{ "daemon_reload", "b62811be4ba063f55d0660fdfc3d2616", LOG_INFO, true },
	{ "daemon_start", "5bb65b86ffef0f5d76fda8a19d7f3f02", LOG_INFO, true },
	{ "daemon_stop", "e1df58aa55cfd6a1b507de7318faf7ed", LOG_INFO, true },
	{ "fuzz_batch", "8f1c2a6d4b3e4f0a9c7d5e6b1a2f3c4d", LOG_INFO, true },
	{ "fuzz_deferred", "d23dd31c1f0b4f6b30330c5638b779fa", LOG_WARNING, true },
	{ "fuzz_done", "063c7c7d38aa4f0d94c0fe84f0bac8bf", LOG_DEBUG, false },
	{ "fuzz_entry", "7357a5ae200c9f41a4dc23c351d021a1", LOG_DEBUG, false },
	{ "fuzz_exec", "0564596e0d376f80d3a9200a1e9203e5", LOG_DEBUG, false },
	{ "fuzz_interrupted", "2e70844823dd40f89debfc3319d060ba", LOG_WARNING, true },
	{ "fuzz_rejected", "9fcdc82fca50298a40c98a8c2cc6a9db", LOG_WARNING, true },
	{ "fuzz_resumed", "ebb9963499f14dde15c51139469b94ff", LOG_NOTICE, true },
	{ "fuzz_stalled", "064699d1f05e0531cb1dd2fa5b9f84bf", LOG_WARNING, true },
	{ "fuzz_started", "28f856fb1bd7a6b6804e36749ac49af9", LOG_INFO, true },
	{ "fuzz_stats", "e14278649e5c4912ac64fc948d489069", LOG_INFO, false },
	{ "fuzz_stopped", "22bb9ea2ea1e186f3ee52720a880c206", LOG_INFO, true },
	{ "lost", "43485895e33fceb5ac670b2d8c81c0cc", LOG_WARNING, true },
	{ "push_failed", "45c979e7d8fedc530209215fb087414a", LOG_WARNING, true },
	{ "push_recovered", "d7423460f2f59aefabafdfdd9f2faa56", LOG_NOTICE, true },
	{ "settings_pending", "899a24d5d3b2599fbf7113d4f2868166", LOG_WARNING, true },
	{ "state_error", "222b9459e58917ed1ef611223fb653be", LOG_WARNING, true },
	{ "triage_armed", "e0079e8127eb4bce8dab2a184142a9b4", LOG_NOTICE, true },
	{ "watch_armed", "6e3ad676be52f7876ca2c5c7a59537b2", LOG_INFO, true },
	{ "watch_disarmed", "509e566a6f0fdb58f5b07a1b4c93376b", LOG_INFO, true },
	{ "watch_waiting", "a56df85fcd8c42918f69bb61050012aa", LOG_INFO, true },
	{ "wprobe_armed", "8770f2594600b343c859c1727b220e35", LOG_INFO, true },
	{ "wprobe_created", "24500ecc21df3d1ea4c4337e7559e777", LOG_INFO, true },
	{ "wprobe_hit", "1974620924f373f93d390a1042f3d578", LOG_DEBUG, false },
	{ "wprobe_removed", "f86d9eac35126a9cfca6d1b2fdf5b851", LOG_INFO, true },
	{ "wprobe_sample", "00982dd15ea9023ae1035ce822292f27", LOG_DEBUG, false },
	{ "wprobe_storm", "af6717ecf60380ef249b0f48afa172ae", LOG_WARNING, true },
	{ "wprobe_waiting", "45a337fa5123966f2e274fcf5b31e2e8", LOG_INFO, true },
};

const size_t kw_journal_n_types = sizeof(kw_journal_types) / sizeof(kw_journal_types[0]);

/* The type bits must fit the mask. */
_Static_assert(sizeof(kw_journal_types) / sizeof(kw_journal_types[0]) <= 64,
	       "journal types do not fit a 64-bit mask");

#define MESSAGE_MAX 480

int kw_journal_index(const char *type)
{
	size_t i;

	for (i = 0; i < kw_journal_n_types; i++)
		if (strcmp(kw_journal_types[i].type, type) == 0)
			return (int)i;
	return -1;
}

uint64_t kw_journal_default_mask(void)
{
	uint64_t m = 0;
	size_t i;

	for (i = 0; i < kw_journal_n_types; i++)
		if (kw_journal_types[i].by_default)
			m |= 1ULL << i;
	return m;
}

int kw_journal_parse(const char *v, uint64_t *mask, char *reason, size_t reason_len)
{
	char word[64];
	uint64_t m = 0;
	const char *p = v;
	size_t n;
	int i;

	while (*p) {
		p += strspn(p, " \t,");
		n = strcspn(p, " \t,");
		if (!n)
			break;
		if (n >= sizeof(word)) {
			snprintf(reason, reason_len, "journal: not an event type: '%.*s'", (int)n, p);
			return -EINVAL;
		}
		memcpy(word, p, n);
		word[n] = '\0';
		p += n;
		if (strcmp(word, "none") == 0)
			continue;
		if (strcmp(word, "all") == 0) {
			m |= kw_journal_n_types == 64 ? ~0ULL : (1ULL << kw_journal_n_types) - 1;
			continue;
		}
		if (strcmp(word, "default") == 0) {
			m |= kw_journal_default_mask();
			continue;
		}
		i = kw_journal_index(word);
		if (i < 0) {
			snprintf(reason, reason_len,
				 "journal: not an event type of the stream: '%s' (want types, all, "
				 "default or none)", word);
			return -EINVAL;
		}
		m |= 1ULL << i;
	}
	*mask = m;
	return 0;
}

struct fields {
	char **v;
	size_t n, cap;
};

static int add_field(struct fields *f, const char *key, const char *val, size_t len)
{
	char *s;

	if (f->n == f->cap) {
		size_t cap = f->cap ? f->cap * 2 : 32;
		char **v = realloc(f->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		f->v = v;
		f->cap = cap;
	}
	s = malloc(strlen(key) + 1 + len + 1);
	if (!s)
		return -ENOMEM;
	sprintf(s, "%s=", key);
	memcpy(s + strlen(key) + 1, val, len);
	s[strlen(key) + 1 + len] = '\0';
	f->v[f->n++] = s;
	return 0;
}

static int add_fieldf(struct fields *f, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int add_fieldf(struct fields *f, const char *key, const char *fmt, ...)
{
	char buf[256];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return add_field(f, key, buf, n < 0 ? 0 : (size_t)n < sizeof(buf) ? (size_t)n :
			 sizeof(buf) - 1);
}

/* A value as the journal gets it: strings as they are, the rest as JSON. */
static const char *value_text(json_object *v, size_t *len)
{
	if (json_object_is_type(v, json_type_string)) {
		*len = json_object_get_string_len(v);
		return json_object_get_string(v);
	}
	return json_object_to_json_string_length(v, JSON_C_TO_STRING_PLAIN |
						 JSON_C_TO_STRING_NOSLASHESCAPE, len);
}

static const char *str_of(json_object *ev, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(ev, key, &v) || !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

/* MESSAGE: a line for a person reading journalctl. */
static void message(json_object *ev, const char *type, char *buf, size_t n)
{
	const char *a = str_of(ev, "title"), *b;
	size_t len;

	if (strcmp(type, "crash") == 0 && a) {
		b = str_of(ev, "blob");
		snprintf(buf, n, "crash: %s%s%s%s%s", a, b ? " (blob " : "",
			 b ? str_of(ev, "target") ?: "" : "", b ? "/" : "", b ? b : "");
		if (b)
			snprintf(buf + strlen(buf), n - strlen(buf), ")");
		return;
	}
	if (strcmp(type, "catch") == 0) {
		snprintf(buf, n, "catch: watched %s, corrupted by %s at %s",
			 str_of(ev, "watched") ?: "?", str_of(ev, "location") ?: "?",
			 str_of(ev, "address") ?: "?");
		return;
	}
	snprintf(buf, n, "%s:", type);
	json_object_object_foreach(ev, key, val) {
		const char *t;

		len = strlen(buf);
		if (strcmp(key, "type") == 0 || strcmp(key, "text") == 0 ||
		    json_object_is_type(val, json_type_array) ||
		    json_object_is_type(val, json_type_object))
			continue;
		t = value_text(val, &len);
		if (strlen(buf) + strlen(key) + len + 3 >= n)
			break;
		snprintf(buf + strlen(buf), n - strlen(buf), " %s=%.*s", key, (int)len, t);
	}
}

int kw_journal_fields(const struct kw_event_ctx *c, json_object *ev, uint64_t seq,
		      char ***ret, size_t *ret_n)
{
	struct fields f = { 0 };
	const char *type = str_of(ev, "type") ?: "unknown";
	char msg[MESSAGE_MAX + 1], line[4 * sizeof(msg)], key[80];
	int i = kw_journal_index(type), r;
	size_t k;

	message(ev, type, msg, sizeof(msg));
	/* One line for journalctl, whatever a producer put in a name; the
	 * KWATCH_ fields keep the bytes. */
	k = kw_log_escape(line, sizeof(line), msg);
	r = add_field(&f, "MESSAGE", line, k);
	if (!r && i >= 0)
		r = add_field(&f, "MESSAGE_ID", kw_journal_types[i].message_id, 32);
	if (!r)
		r = add_fieldf(&f, "PRIORITY", "%d", i >= 0 ? kw_journal_types[i].priority :
			       LOG_INFO);
	if (!r)
		r = add_fieldf(&f, "KWATCH_SCHEMA", "%d", KW_EVENT_SCHEMA);
	if (!r)
		r = add_field(&f, "KWATCH_START_ID", c->start_id, strlen(c->start_id));
	if (!r)
		r = add_fieldf(&f, "KWATCH_SEQ", "%" PRIu64, seq);
	if (!r)
		r = add_fieldf(&f, "KWATCH_ID", "%s-%" PRIu64, c->start_id, seq);
	json_object_object_foreach(ev, name, val) {
		const char *t;
		size_t len;

		if (r)
			break;
		/* KWATCH_ and the name in capitals: a valid journal field name
		 * (A-Z, 0-9, _; at most 64 bytes) for every name of the schema. */
		snprintf(key, sizeof(key), "KWATCH_%.56s", name);
		for (k = 7; key[k]; k++)
			key[k] = isalnum((unsigned char)key[k]) ? toupper((unsigned char)key[k]) : '_';
		t = value_text(val, &len);
		r = t ? add_field(&f, key, t, len) : -ENOMEM;
	}
	if (r) {
		kw_journal_fields_free(f.v, f.n);
		return r;
	}
	*ret = f.v;
	*ret_n = f.n;
	return 0;
}

void kw_journal_fields_free(char **f, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(f[i]);
	free(f);
}

int kw_journal_send(const struct kw_event_ctx *c, json_object *ev, uint64_t seq)
{
	struct iovec *iov = NULL;
	char **f = NULL;
	size_t n = 0, i;
	int r;

	r = kw_journal_fields(c, ev, seq, &f, &n);
	if (r < 0)
		return r;
	iov = calloc(n, sizeof(*iov));
	if (!iov) {
		r = -ENOMEM;
		goto out;
	}
	for (i = 0; i < n; i++) {
		iov[i].iov_base = f[i];
		iov[i].iov_len = strlen(f[i]);
	}
	r = sd_journal_sendv(iov, (int)n);
out:
	free(iov);
	kw_journal_fields_free(f, n);
	return r;
}
