// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "log.h"

int kw_log_level = LOG_INFO;

size_t kw_log_escape(char *dst, size_t n, const char *src)
{
	static const char hex[] = "0123456789abcdef";
	size_t len = 0;

	if (!n)
		return 0;
	for (; *src; src++) {
		unsigned char c = (unsigned char)*src;
		char esc[5] = "\\";
		size_t k = 2;

		switch (c) {
		case '\n': esc[1] = 'n'; break;
		case '\r': esc[1] = 'r'; break;
		case '\t': esc[1] = 't'; break;
		case '\033': esc[1] = 'e'; break;
		case '\\': esc[1] = '\\'; break;
		default:
			if (c >= 0x20 && c != 0x7f) {
				esc[0] = (char)c;
				k = 1;
				break;
			}
			esc[1] = 'x';
			esc[2] = hex[c >> 4];
			esc[3] = hex[c & 0xf];
			k = 4;
		}
		/* Whole escapes only: a cut one would read as another. */
		if (len + k >= n)
			break;
		memcpy(dst + len, esc, k);
		len += k;
	}
	dst[len] = '\0';
	return len;
}

int kw_log_internal(int level, int err, const char *fmt, ...)
{
	char msg[1024], line[4 * sizeof(msg)];
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
	/* Names a producer chose (a blob, a comm, a peer's line) are in msg:
	 * escaped here, no caller can forget, and a "\n<0>" in one never
	 * makes a line of its own at another priority. */
	kw_log_escape(line, sizeof(line), msg);
	fprintf(stderr, "<%d>%s\n", level, line);
	errno = saved;
	return -err;
}
