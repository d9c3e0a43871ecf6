// SPDX-License-Identifier: GPL-2.0
/*
 * The input in flight at a panic, from the previous boot's pmsg lines
 * (see fuzzpanic.h).  pmsg is writable by anyone and its ring may have
 * cut the oldest line: every field is checked, a line that does not parse
 * is skipped, and the cost is one pass over text already bounded by the
 * reader.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzzpanic.h"
#include "log.h"
#include "util.h"

#define PMSG_INPUT_MAX 8192	/* the harness's REPORT_PMSG_MAX */

long fuzz_panic_pid(const char *report)
{
	const char *p = report ? strstr(report, " PID: ") : NULL;
	char *end;
	long pid;

	if (!p)
		return -1;
	pid = strtol(p + 6, &end, 10);
	return end > p + 6 && *end == ' ' && pid > 0 ? pid : -1;
}

/* The next blank-separated field of @*s, up to @eol, into @f (false if
 * it does not fit or there is none). */
static bool field(const char **s, const char *eol, char *f, size_t n)
{
	const char *b = *s, *e;

	e = memchr(b, ' ', eol - b);
	if (!e)
		e = eol;
	if (e == b || (size_t)(e - b) >= n)
		return false;
	memcpy(f, b, e - b);
	f[e - b] = '\0';
	*s = e < eol ? e + 1 : e;
	return true;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/*
 * One line, from its tag's end.  Returns 1 for an input (in filled, data
 * not yet decoded: *hex and *hexlen), 0 for an "end", -EINVAL if it is no
 * line of @boot and @pid or does not parse.
 */
static int parse_line(const char *s, const char *eol, const char *boot, long pid,
		      struct fuzz_panic_input *in, const char **hex, size_t *hexlen)
{
	char f_boot[64], f_pid[24], f_seq[24], *end;
	long p;

	if (!field(&s, eol, f_boot, sizeof(f_boot)) || strcmp(f_boot, boot) ||
	    !field(&s, eol, f_pid, sizeof(f_pid)))
		return -EINVAL;
	p = strtol(f_pid, &end, 10);
	if (*end || p != pid)
		return -EINVAL;
	if (!field(&s, eol, in->target, sizeof(in->target)) ||
	    !kw_ident_ok(in->target, KW_NAME_MAX, NULL) ||
	    !field(&s, eol, in->name, sizeof(in->name)) ||
	    !kw_ident_ok(in->name, NAME_MAX, "-.") || in->name[0] == '.' ||
	    !field(&s, eol, f_seq, sizeof(f_seq)))
		return -EINVAL;
	if (!strcmp(f_seq, "end"))
		return s == eol ? 0 : -EINVAL;
	if (f_seq[0] < '1' || f_seq[0] > '9')
		return -EINVAL;
	in->seq = strtoull(f_seq, &end, 10);
	if (*end || s == eol)
		return -EINVAL;
	*hex = s;
	*hexlen = eol - s;
	if (*hexlen == 1 && **hex == '-')
		return 1;
	if (*hexlen % 2 || *hexlen > 2 * PMSG_INPUT_MAX)
		return -EINVAL;
	for (; s < eol; s++)
		if (hexval(*s) < 0)
			return -EINVAL;
	return 1;
}

int fuzz_panic_find(const char *pmsg, const char *boot, long pid, struct fuzz_panic_input *in)
{
	static const char tag[] = FUZZ_PMSG_TAG " ";
	const char *s, *eol, *hex = NULL;
	struct fuzz_panic_input cur;
	size_t hexlen = 0, i;
	int r, found = -ENOENT;

	memset(in, 0, sizeof(*in));
	if (!pmsg || !boot || !boot[0] || pid <= 0)
		return -ENOENT;
	for (s = pmsg; *s; s = *eol ? eol + 1 : eol) {
		const char *h;
		size_t hl;

		eol = strchrnul(s, '\n');
		if ((size_t)(eol - s) <= sizeof(tag) - 1 || strncmp(s, tag, sizeof(tag) - 1))
			continue;
		memset(&cur, 0, sizeof(cur));
		r = parse_line(s + sizeof(tag) - 1, eol, boot, pid, &cur, &h, &hl);
		if (r < 0)
			continue;
		/* The last line of the task wins: an "end" closes the run. */
		found = r ? 0 : -ENOENT;
		*in = cur;
		hex = h;
		hexlen = hl;
	}
	if (found < 0) {
		memset(in, 0, sizeof(*in));
		return found;
	}
	if (hexlen == 1 && hex[0] == '-')
		return -E2BIG;
	in->data = malloc(hexlen / 2 + 1);
	if (!in->data)
		return -ENOMEM;
	for (i = 0; i < hexlen / 2; i++)
		in->data[i] = hexval(hex[2 * i]) << 4 | hexval(hex[2 * i + 1]);
	in->len = hexlen / 2;
	return 0;
}

void fuzz_pmsg_end(const char *dev, const char *boot, pid_t pid, const char *target,
		   const char *name)
{
	char line[512];
	int fd, n;

	if (!dev || !dev[0] || !boot[0] || pid <= 0)
		return;
	n = snprintf(line, sizeof(line), FUZZ_PMSG_TAG " %s %ld %s %s end\n", boot, (long)pid,
		     target, name);
	if (n < 0 || n >= (int)sizeof(line))
		return;
	/* A character device of ramoops memory: the write does not block. */
	fd = open(dev, O_WRONLY | O_APPEND | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return;
	if (write(fd, line, n) < 0)
		log_full_errno(LOG_DEBUG, -errno, "%s: %m", dev);
	close(fd);
}
