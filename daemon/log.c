// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "log.h"

int kw_log_level = LOG_INFO;

int kw_log_internal(int level, int err, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	int saved = errno;

	if (err < 0)
		err = -err;
	if (level > kw_log_level)
		return -err;
	/* %m in fmt refers to err, as in systemd's log_*_errno(). */
	errno = err;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fprintf(stderr, "<%d>%s\n", level, msg);
	errno = saved;
	return -err;
}
