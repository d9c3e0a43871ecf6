/* SPDX-License-Identifier: GPL-2.0 */
/* Events as structured journal entries: one entry per event of a chosen
 * type, with a MESSAGE_ID per type (docs/event-schema.json has the same
 * table), a PRIORITY, a readable MESSAGE, the envelope as KWATCH_SCHEMA,
 * KWATCH_START_ID, KWATCH_SEQ, KWATCH_ID, KWATCH_TYPE, and each payload
 * field as KWATCH_<FIELD> (arrays and objects as their JSON text). */
#ifndef KW_JOURNAL_H
#define KW_JOURNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <json-c/json.h>

#include "event.h"

struct kw_journal_type {
	const char *type;
	const char *message_id;	/* 32 lowercase hex digits */
	int priority;		/* syslog level */
	bool by_default;	/* journaled with journal = default */
};

extern const struct kw_journal_type kw_journal_types[];
extern const size_t kw_journal_n_types;

/* The index of type in kw_journal_types, or -1 (per-client records and
 * unknown types are never journaled). */
int kw_journal_index(const char *type);

/* "default", "all", "none", or type names separated by spaces or commas
 * (each may also be "default"), into a mask of kw_journal_types indexes.
 * -EINVAL with the reason for an unknown name. */
int kw_journal_parse(const char *v, uint64_t *mask, char *reason, size_t reason_len);
uint64_t kw_journal_default_mask(void);

/* The entry's fields ("KEY=value", malloc'ed) for event ev (its payload,
 * type included) now encoded at seq; *ret_n fields in *ret.  Free with
 * kw_journal_fields_free(). */
int kw_journal_fields(const struct kw_event_ctx *c, json_object *ev, uint64_t seq,
		      char ***ret, size_t *ret_n);
void kw_journal_fields_free(char **f, size_t n);

/* Send the entry; 0 or a negative errno. */
int kw_journal_send(const struct kw_event_ctx *c, json_object *ev, uint64_t seq);

#endif
