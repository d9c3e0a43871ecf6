// SPDX-License-Identifier: GPL-2.0
/*
 * Module loads and unloads: the kernel's uevents (NETLINK_KOBJECT_UEVENT),
 * which reach the daemon's network namespace too, read from the first
 * watch or wprobe on a module's function or symbol, and told to the
 * objects that wait for a module: a watch arms when its module is loaded
 * and waits again when it goes; a wprobe, which the kernel itself moves
 * into each load of its module, is reported armed or waiting.  Only the
 * kernel's own messages count (port 0): no process can fake a load.
 */
#include <errno.h>
#include <linux/netlink.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <string.h>

#include "kwatchd.h"
#include "log.h"
#include "util.h"
#include "kwatchd-module.h"

static void told(struct kwd *d, const char *name, bool loaded)
{
	kwd_watches_module(d, name, loaded);
	kwd_wprobes_module(d, name, loaded);
}

/* One uevent: "ACTION@DEVPATH", then KEY=VALUE strings, NUL-separated.
 * A module's: SUBSYSTEM=module, DEVPATH=/module/NAME; add once its init
 * has run, remove once it is gone. */
static void uevent(struct kwd *d, const char *buf, size_t len)
{
	const char *action = NULL, *devpath = NULL, *subsystem = NULL, *p, *end = buf + len;

	for (p = buf; p < end; p += strnlen(p, end - p) + 1) {
		if (!strncmp(p, "ACTION=", 7))
			action = p + 7;
		else if (!strncmp(p, "DEVPATH=", 8))
			devpath = p + 8;
		else if (!strncmp(p, "SUBSYSTEM=", 10))
			subsystem = p + 10;
	}
	if (!action || !devpath || !subsystem || strcmp(subsystem, "module") ||
	    strncmp(devpath, "/module/", 8) || !kw_ident_ok(devpath + 8, KW_MODULE_MAX, ""))
		return;
	if (!strcmp(action, "add"))
		told(d, devpath + 8, true);
	else if (!strcmp(action, "remove"))
		told(d, devpath + 8, false);
}

#define UEVENTS_PER_WAKEUP 64

static int on_uevents(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	char buf[8192 + 1];
	struct sockaddr_nl sa;
	struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) - 1 };
	struct msghdr mh = { .msg_name = &sa, .msg_namelen = sizeof(sa), .msg_iov = &iov,
			     .msg_iovlen = 1 };
	struct kwd *d = userdata;
	ssize_t n;
	int i;

	(void)s;
	(void)revents;
	for (i = 0; i < UEVENTS_PER_WAKEUP; i++) {
		mh.msg_namelen = sizeof(sa);
		n = recvmsg(fd, &mh, MSG_DONTWAIT);
		if (n < 0) {
			if (errno == ENOBUFS) {
				log_warning("module uevents lost (ENOBUFS): looking at each module");
				kwd_watches_resync(d);
				kwd_wprobes_resync(d);
				continue;
			}
			break;
		}
		/* The kernel's only (port 0). */
		if (mh.msg_namelen != sizeof(sa) || sa.nl_pid != 0 || (mh.msg_flags & MSG_TRUNC))
			continue;
		buf[n] = '\0';
		uevent(d, buf, n);
	}
	return 0;
}

void kwd_modules_follow(struct kwd *d)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = 1 };
	_cleanup_close_ int fd = -1;
	int r;

	if (d->module_events)
		return;
	fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, NETLINK_KOBJECT_UEVENT);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		r = neg_errno();
	else
		r = sd_event_add_io(d->ev, &d->module_events, fd, EPOLLIN, on_uevents, d);
	if (r < 0) {
		/* Said once: every reload tries again. */
		if (!d->module_events_failed)
			log_warning_errno(r, "cannot follow module loads (uevents): %m; a watch "
					  "or wprobe on a module is armed or reported at the next "
					  "reload after its module is loaded");
		d->module_events_failed = true;
		return;
	}
	d->module_events_failed = false;
	sd_event_source_set_io_fd_own(d->module_events, true);
	fd = -1;
}

void kwd_modules_stop(struct kwd *d)
{
	d->module_events = sd_event_source_disable_unref(d->module_events);
}
