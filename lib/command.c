// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "command.h"
#include "journal.h"

static const struct {
	const char *verb;
	enum kw_cmd_kind kind;
	bool root;
} cmds[] = {
	{ "status", KW_CMD_STATUS, false },
	{ "backlog", KW_CMD_BACKLOG, false },
	{ "reload", KW_CMD_RELOAD, true },
	{ "bench", KW_CMD_BENCH, true },
	{ "subscribe", KW_CMD_SUBSCRIBE, false },
};

#define KNOWN "known: status, backlog, subscribe TYPE[,TYPE...]|all, reload, bench N [RATE]"

/* A decimal number with nothing after it but spaces or another word. */
static int parse_u64(const char **p, uint64_t max, uint64_t *ret)
{
	const char *s = *p;
	uint64_t v = 0;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	for (; *s >= '0' && *s <= '9'; s++) {
		if (v > (max - (uint64_t)(*s - '0')) / 10)
			return -ERANGE;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	if (*s && *s != ' ')
		return -EINVAL;
	while (*s == ' ')
		s++;
	*p = s;
	*ret = v;
	return 0;
}

static int parse_bench(const char *args, struct kw_cmd *cmd, char *reason, size_t n)
{
	int r;

	r = parse_u64(&args, KW_BENCH_MAX, &cmd->n);
	if (r == 0 && cmd->n == 0)
		r = -ERANGE;
	if (r == 0 && *args)
		r = parse_u64(&args, KW_BENCH_RATE_MAX, &cmd->rate);
	if (r == 0 && *args)
		r = -EINVAL;
	if (r == -ERANGE)
		snprintf(reason, n, "bench: N is 1 to %llu, RATE at most %llu a second",
			 KW_BENCH_MAX, KW_BENCH_RATE_MAX);
	else if (r < 0)
		snprintf(reason, n, "bench: usage: bench N [RATE]");
	return r < 0 ? -EINVAL : 0;
}

/* subscribe all, or event types separated by commas or spaces: the
 * client is sent only those, and every "lost" record. */
static int parse_subscribe(const char *args, struct kw_cmd *cmd, char *reason, size_t n)
{
	char buf[256], *tok, *save;
	int i;

	if (!*args) {
		snprintf(reason, n, "subscribe: usage: subscribe TYPE[,TYPE...] or subscribe all");
		return -EINVAL;
	}
	if (strcmp(args, "all") == 0)
		return 0;
	snprintf(buf, sizeof(buf), "%s", args);
	for (tok = strtok_r(buf, ", ", &save); tok; tok = strtok_r(NULL, ", ", &save)) {
		i = kw_journal_index(tok);
		if (i < 0) {
			snprintf(reason, n, "subscribe: no event type '%.64s' (docs/event-schema.md "
				 "lists them)", tok);
			return -EINVAL;
		}
		cmd->types |= 1ULL << i;
	}
	cmd->types |= 1ULL << kw_journal_index("lost");
	return 0;
}

int kw_cmd_parse(const char *text, bool privileged, struct kw_cmd *cmd, char *reason,
		 size_t reason_len)
{
	char buf[256], *line = buf;
	const char *args;
	size_t len, i;

	memset(cmd, 0, sizeof(*cmd));
	reason[0] = '\0';
	/* Tabs are spaces; a CRLF client's CR and trailing spaces go. */
	snprintf(buf, sizeof(buf), "%s", text);
	for (i = 0; buf[i]; i++)
		if (buf[i] == '\t')
			buf[i] = ' ';
	while (i && (buf[i - 1] == ' ' || buf[i - 1] == '\r'))
		buf[--i] = '\0';
	while (*line == ' ')
		line++;
	len = strcspn(line, " ");
	snprintf(cmd->verb, sizeof(cmd->verb), "%.*s", (int)len, line);
	args = line + len;
	while (*args == ' ')
		args++;
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		if (strlen(cmds[i].verb) != len || strncmp(cmds[i].verb, line, len) != 0)
			continue;
		cmd->kind = cmds[i].kind;
		if (cmds[i].root && !privileged) {
			snprintf(reason, reason_len,
				 "%s: only root may change the daemon; the socket's group may read events and status",
				 cmds[i].verb);
			return -EPERM;
		}
		if (cmd->kind == KW_CMD_BENCH)
			return parse_bench(args, cmd, reason, reason_len);
		if (cmd->kind == KW_CMD_SUBSCRIBE)
			return parse_subscribe(args, cmd, reason, reason_len);
		if (*args) {
			snprintf(reason, reason_len, "%s takes no arguments", cmds[i].verb);
			return -EINVAL;
		}
		return 0;
	}
	snprintf(reason, reason_len, "unknown command '%s'; " KNOWN, cmd->verb);
	return -EINVAL;
}
