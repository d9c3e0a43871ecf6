/* SPDX-License-Identifier: GPL-2.0 */
/* Logging to stderr with syslog priority prefixes ("<3>..."), which
 * journald turns into PRIORITY= when kwatchd runs under systemd.  The
 * log_*_errno() forms log and return the negative errno, systemd-style.
 * The message is one line: its control characters are escaped. */
#ifndef KW_LOG_H
#define KW_LOG_H

#include <stddef.h>
#include <syslog.h>

extern int kw_log_level;

/* src into dst (n bytes, NUL-terminated), one line: \n \r \t \e \\ and
 * other control characters as \xNN; cut before an escape that does not
 * fit.  Returns the length written. */
size_t kw_log_escape(char *dst, size_t n, const char *src);

int kw_log_internal(int level, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#define log_full_errno(lvl, err, ...) kw_log_internal(lvl, err, __VA_ARGS__)
#define log_error_errno(err, ...) log_full_errno(LOG_ERR, err, __VA_ARGS__)
#define log_warning_errno(err, ...) log_full_errno(LOG_WARNING, err, __VA_ARGS__)
#define log_error(...) (void)log_full_errno(LOG_ERR, 0, __VA_ARGS__)
#define log_warning(...) (void)log_full_errno(LOG_WARNING, 0, __VA_ARGS__)
#define log_notice(...) (void)log_full_errno(LOG_NOTICE, 0, __VA_ARGS__)
#define log_info(...) (void)log_full_errno(LOG_INFO, 0, __VA_ARGS__)
#define log_debug(...) (void)log_full_errno(LOG_DEBUG, 0, __VA_ARGS__)

#endif
