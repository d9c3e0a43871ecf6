/* SPDX-License-Identifier: GPL-2.0 */
/* The one-line commands a socket client may send, and who may send which.
 * Reading is the socket's right (mode 0660, group kwatch): status,
 * backlog and subscribe only read.  Changing or loading the daemon (reload, bench) is
 * root's: the peer's credentials (SO_PEERCRED) decide, not the group. */
#ifndef KW_COMMAND_H
#define KW_COMMAND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum kw_cmd_kind {
	KW_CMD_STATUS,
	KW_CMD_BACKLOG,
	KW_CMD_RELOAD,
	KW_CMD_BENCH,
	KW_CMD_SUBSCRIBE,
};

/* Synthetic events one bench command, and all pending together, may ask for. */
#define KW_BENCH_MAX 10000000ULL
#define KW_BENCH_RATE_MAX 1000000ULL

struct kw_cmd {
	enum kw_cmd_kind kind;
	char verb[16];			/* as sent, cut to fit; for the reply */
	uint64_t n, rate;		/* bench N [RATE] */
	uint64_t types;			/* subscribe: a mask of kw_journal_types
					 * indexes ("lost" always in it), 0: all */
};

/*
 * Parse one command line for a peer that is @privileged (root) or not.
 * Returns 0, or -EINVAL (unknown or malformed; the reason says what is
 * known), -EPERM (a root-only command from anyone else).  cmd->verb is
 * always filled, so the refusal can name what was refused.
 */
int kw_cmd_parse(const char *line, bool privileged, struct kw_cmd *cmd, char *reason,
		 size_t reason_len);

#endif
