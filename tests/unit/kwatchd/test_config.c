// SPDX-License-Identifier: GPL-2.0
/* Config parsing and validation: drop-ins and kwatchd.conf. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "config.h"
#include "ksw.h"
#include "tracefs-text.h"
#include "ksw.h"
#include "util.h"
#include "tmpdir.h"

static int parse(enum kw_kind k, const char *text, struct kw_file *f)
{
	return kw_file_parse(k, "/etc/kwatchd/x.d/my-file.conf", text, strlen(text), f);
}

static void watch_ok(void **state)
{
	struct kw_file f;
	char line[256];

	(void)state;
	assert_int_equal(parse(KW_WATCH, "# c\n[watch]\nfunction = silent_corruption_victim\n"
			       "ip_offset = 0x7f\nlocal = 0:8\n", &f), 0);
	assert_int_equal(kw_watch_line(&f.watch, line, sizeof(line)), 33);
	assert_string_equal(line, "silent_corruption_victim+0x7f 0:8");
	assert_int_equal(parse(KW_WATCH, "[watch]\nfunction=recursive_corruption_test\n"
			       "ip_offset=0x21\ndepth=3\nlocal=0:8\n", &f), 0);
	kw_watch_line(&f.watch, line, sizeof(line));
	assert_string_equal(line, "recursive_corruption_test+0x21+3 0:8");
	assert_int_equal(parse(KW_WATCH, "[watch]\nfunction=canary_test_write\nip_offset=18\n", &f), 0);
	kw_watch_line(&f.watch, line, sizeof(line));
	assert_string_equal(line, "canary_test_write+0x12");
	assert_true(f.watch.enabled);
	assert_string_equal(f.name, "my-file.conf");
}

/* Without ip_offset= the kernel picks the probe point: key=value lines. */
static void watch_by_name(void **state)
{
	struct kw_file f;
	char line[256];

	(void)state;
	assert_int_equal(parse(KW_WATCH, "[watch]\nfunction = canary_test_write\n", &f), 0);
	assert_int_equal(kw_watch_line(&f.watch, line, sizeof(line)), 20);
	assert_string_equal(line, "fn=canary_test_write");
	assert_int_equal(parse(KW_WATCH, "[watch]\nfunction = f\ndepth = 3\nlocal = 16:4\n", &f), 0);
	kw_watch_line(&f.watch, line, sizeof(line));
	assert_string_equal(line, "fn=f dp=3 so=16 wl=4");
	assert_int_equal(parse(KW_WATCH, "[watch]\nfunction = f\nvariable = canary\n", &f), 0);
	kw_watch_line(&f.watch, line, sizeof(line));
	assert_string_equal(line, "fn=f");
	/* variable= is resolved when armed: no line before. */
	assert_int_equal(parse(KW_WATCH, "[watch]\nfunction = silent_corruption_victim\n"
			       "variable = data[2]\ndepth = 1\n", &f), 0);
	assert_string_equal(f.watch.variable, "data[2]");
	assert_int_equal(kw_watch_line(&f.watch, line, sizeof(line)), -EINVAL);
	f.watch.resolved = true;
	f.watch.cfa_off = -48;
	f.watch.local_len = 8;
	kw_watch_line(&f.watch, line, sizeof(line));
	assert_string_equal(line, "fn=silent_corruption_victim dp=1 co=-48 wl=8");
	/* Errors: both ways of naming the variable, or a name with an offset. */
	assert_int_equal(parse(KW_WATCH, "[watch]\nfunction = f\nvariable = x\nlocal = 0:8\n", &f),
			 -EINVAL);
	assert_non_null(strstr(f.err_reason, "not both"));
	assert_int_equal(parse(KW_WATCH, "[watch]\nfunction = f\nvariable = x\nip_offset = 4\n", &f),
			 -EINVAL);
	assert_non_null(strstr(f.err_reason, "leave ip_offset= out"));
	assert_int_equal(parse(KW_WATCH, "[watch]\nfunction = f\nvariable = 1x\n", &f), -EINVAL);
	assert_int_equal(parse(KW_WATCH, "[watch]\nfunction = f\nvariable = a b\n", &f), -EINVAL);
	assert_int_equal(parse(KW_WATCH, "[watch]\nfunction = f\nvariable = a-b\n", &f), -EINVAL);
	assert_int_equal(parse(KW_WATCH, "[watch]\nfunction = f\nip_offset = 0x10000\n", &f),
			 -EINVAL);
}

static void write_index(const char *path, const char *text)
{
	FILE *fp = fopen(path, "w");

	assert_non_null(fp);
	fputs(text, fp);
	assert_int_equal(fclose(fp), 0);
}

/* variable= against an index file: the answer, each refusal, a new index. */
static void watch_resolved(void **state)
{
	struct ksw_vars vars = {};
	struct kw_file f;
	char path[300], why[400], line[256];

	(void)state;
	snprintf(path, sizeof(path), "%s/stackvars", root);
	assert_int_equal(parse(KW_WATCH, "[watch]\nfunction = victim\nvariable = data[2]\n", &f), 0);
	/* No index: says where it looked and how to make one. */
	assert_int_equal(ksw_resolve(&vars, path, &f.watch, why, sizeof(why)), -ENOENT);
	print_message("%s\n", why);
	assert_non_null(strstr(why, "kwatchctl stackvars"));
	/* A canary needs no index: the name as given. */
	assert_int_equal(parse(KW_WATCH, "[watch]\nfunction = scan\n", &f), 0);
	assert_int_equal(ksw_resolve(&vars, path, &f.watch, why, sizeof(why)), 0);
	kw_watch_line(&f.watch, line, sizeof(line));
	assert_string_equal(line, "fn=scan");

	/* A function the kernel has only as gcc's clones, by its source
	 * name: its clone is watched (the canary too), the others named. */
	write_index(path, KW_SVAR_HEADER "\nscan.isra.0 buf[] cfa-40 8 4\nscan.isra.0 buf cfa-40 32\n"
		    "scan.part.0 buf cfa-48 32\n");
	assert_int_equal(ksw_resolve(&vars, path, &f.watch, why, sizeof(why)), 0);
	kw_watch_line(&f.watch, line, sizeof(line));
	assert_string_equal(line, "fn=scan.isra.0");
	assert_string_equal(f.watch.clones_unwatched, "scan.part.0");
	assert_int_equal(parse(KW_WATCH, "[watch]\nfunction = scan\nvariable = buf[1]\n", &f), 0);
	assert_int_equal(ksw_resolve(&vars, path, &f.watch, why, sizeof(why)), 0);
	kw_watch_line(&f.watch, line, sizeof(line));
	assert_string_equal(line, "fn=scan.isra.0 co=-32 wl=8");
	/* Offsets given are the symbol's as named. */
	assert_int_equal(parse(KW_WATCH, "[watch]\nfunction = scan\nip_offset = 0x10\n", &f), 0);
	assert_int_equal(ksw_resolve(&vars, path, &f.watch, why, sizeof(why)), 0);
	kw_watch_line(&f.watch, line, sizeof(line));
	assert_string_equal(line, "scan+0x10");
	assert_int_equal(parse(KW_WATCH, "[watch]\nfunction = victim\nvariable = data[2]\n", &f), 0);

	write_index(path, KW_SVAR_HEADER "\nvictim data cfa-64 32\nvictim data[] cfa-64 8 4\n"
	      "victim i reg 4\n");
	assert_int_equal(ksw_resolve(&vars, path, &f.watch, why, sizeof(why)), 0);
	assert_true(f.watch.resolved);
	kw_watch_line(&f.watch, line, sizeof(line));
	assert_string_equal(line, "fn=victim co=-48 wl=8");

	assert_int_equal(parse(KW_WATCH, "[watch]\nfunction = victim\nvariable = i\n", &f), 0);
	assert_int_equal(ksw_resolve(&vars, path, &f.watch, why, sizeof(why)), -EADDRNOTAVAIL);
	assert_non_null(strstr(why, "only in registers"));
	assert_int_equal(parse(KW_WATCH, "[watch]\nfunction = victim\nvariable = data\n", &f), 0);
	assert_int_equal(ksw_resolve(&vars, path, &f.watch, why, sizeof(why)), -E2BIG);
	assert_non_null(strstr(why, "data[0] to data[3]"));
	assert_int_equal(parse(KW_WATCH, "[watch]\nfunction = nosuch\nvariable = x\n", &f), 0);
	assert_int_equal(ksw_resolve(&vars, path, &f.watch, why, sizeof(why)), -ENOENT);
	assert_false(f.watch.resolved);

	/* The index is read again when it changes (a new kernel build). */
	write_index(path, KW_SVAR_HEADER "\nvictim data[] cfa-72 8 4\nvictim data cfa-72 32\n"
	      "nosuch x cfa-16 2\n");
	assert_int_equal(ksw_resolve(&vars, path, &f.watch, why, sizeof(why)), 0);
	assert_int_equal(f.watch.cfa_off, -16);
	assert_int_equal(f.watch.local_len, 2);
	/* A malformed index is refused, naming the line. */
	write_index(path, KW_SVAR_HEADER "\nvictim data cfa72 8\n");
	assert_int_equal(ksw_resolve(&vars, path, &f.watch, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "line 2"));
	/* A symlink in its place is not followed. */
	assert_int_equal(unlink(path), 0);
	assert_int_equal(symlink("/etc/hostname", path), 0);
	assert_true(ksw_resolve(&vars, path, &f.watch, why, sizeof(why)) < 0);
	print_message("%s\n", why);
	ksw_vars_free(&vars);
}

/* An index over the size kwatchd reads (it is read in the event loop,
 * during an apply) is refused before it is read, naming file and limit. */
static void index_size_capped(void **state)
{
	struct ksw_vars vars = {};
	struct kw_file f;
	char path[300], why[400], want[64];
	int fd;

	(void)state;
	snprintf(path, sizeof(path), "%s/stackvars", root);
	write_index(path, KW_SVAR_HEADER "\nvictim data cfa-64 32\n");
	fd = open(path, O_WRONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, 32L << 20 | 1), 0);
	close(fd);
	assert_int_equal(parse(KW_WATCH, "[watch]\nfunction = victim\nvariable = data\n", &f), 0);
	assert_int_equal(ksw_resolve(&vars, path, &f.watch, why, sizeof(why)), -EFBIG);
	print_message("%s\n", why);
	assert_non_null(strstr(why, path));
	snprintf(want, sizeof(want), "%lu MiB", KW_SVAR_INDEX_MAX >> 20);
	assert_non_null(strstr(why, want));
	assert_int_equal(KW_SVAR_INDEX_MAX, 32UL << 20);
	ksw_vars_free(&vars);
}

static void watch_errors(void **state)
{
	struct kw_file f;

	(void)state;
	assert_int_equal(parse(KW_WATCH, "[watch]\nfunction = f\nlocal = 8:3\n", &f), -EINVAL);
	assert_int_equal(f.err_line, 3);
	assert_non_null(strstr(f.err_reason, "local"));
	assert_int_equal(parse(KW_WATCH, "[watch]\nfunction = f\nbogus = 1\n", &f), -EINVAL);
	assert_int_equal(f.err_line, 3);
	assert_non_null(strstr(f.err_reason, "unknown key 'bogus'"));
	assert_int_equal(parse(KW_WATCH, "\n[watch]\nip_offset = 1\n", &f), -EINVAL);
	assert_int_equal(f.err_line, 2);
	assert_non_null(strstr(f.err_reason, "function"));
	assert_int_equal(parse(KW_WATCH, "[watch]\nfunction f\n", &f), -EINVAL);
	assert_int_equal(f.err_line, 2);
	assert_int_equal(parse(KW_WATCH, "[wprobe]\nfunction = f\n", &f), -EINVAL);
	assert_non_null(strstr(f.err_reason, "unknown section"));
	assert_int_equal(parse(KW_WATCH, "[watch]\nfunction = f;rm\n", &f), -EINVAL);
	assert_int_equal(parse(KW_WATCH, "[watch]\nfunction = f\nip_offset = -1\n", &f), -EINVAL);
	assert_int_equal(parse(KW_WATCH, "[watch]\nfunction = f\nenabled = maybe\n", &f), -EINVAL);
	assert_int_equal(parse(KW_WATCH, "", &f), -EINVAL);
	assert_non_null(strstr(f.err_reason, "no [watch]"));
	{
		char big[400];

		memset(big, 'a', sizeof(big));
		memcpy(big, "[watch]\nfunction = ", 19);
		big[sizeof(big) - 1] = '\0';
		assert_int_equal(parse(KW_WATCH, big, &f), -EINVAL);
		assert_int_equal(f.err_line, 2);
		assert_non_null(strstr(f.err_reason, "longer"));
	}
	assert_int_equal(kw_file_parse(KW_WATCH, "/x.conf", "[watch]\0x", 9, &f), -EINVAL);
}

static void wprobe_ok(void **state)
{
	struct kw_file f;
	char line[512];

	(void)state;
	assert_int_equal(parse(KW_WPROBE, "[wprobe]\naccess = w\nsymbol = jiffies\nlength = 8\n"
			       "fetch = value=+0($addr)\n", &f), 0);
	assert_string_equal(f.wprobe.name, "my_file");
	kw_wprobe_line(&f.wprobe, "kwatchd", line, sizeof(line));
	assert_string_equal(line, "w:kwatchd/my_file w@jiffies:8 value=+0($addr) kwatchd_comm=$comm");
	assert_int_equal(parse(KW_WPROBE, "[wprobe]\nname=obj\nset_on = kmem/kmalloc:ptr+8 if bytes > 8\n"
			       "clear_on = kmem/kfree\n", &f), 0);
	kw_wprobe_line(&f.wprobe, "kwatchd", line, sizeof(line));
	assert_string_equal(line, "w:kwatchd/obj rw@0x0:4 kwatchd_comm=$comm");
	assert_int_equal(f.wprobe.n_trig, 2);
	kw_trigger_line(&f.wprobe.trig[0], "obj", line, sizeof(line));
	assert_string_equal(line, "set_wprobe:obj:ptr+8 if bytes > 8");
	kw_trigger_line(&f.wprobe.trig[1], "obj", line, sizeof(line));
	assert_string_equal(line, "clear_wprobe:obj");
	assert_int_equal(parse(KW_WPROBE, "[wprobe]\nsymbol=x\noffset=-16\n", &f), 0);
	kw_wprobe_line(&f.wprobe, "g", line, sizeof(line));
	assert_string_equal(line, "w:g/my_file rw@x-16:4 kwatchd_comm=$comm");
	/* The hit-storm guard's limit goes after the "w", as the kernel shows it. */
	assert_int_equal(parse(KW_WPROBE, "[wprobe]\nsymbol=x\nmax_rate = 500\n", &f), 0);
	kw_wprobe_line(&f.wprobe, "g", line, sizeof(line));
	assert_string_equal(line, "w500:g/my_file rw@x:4 kwatchd_comm=$comm");
	assert_int_equal(parse(KW_WPROBE, "[wprobe]\nsymbol=x\nmax_rate = 1000000\n", &f), 0);
}

/* A module's symbol: MODULE:SYMBOL, or module= beside symbol=; written as
 * the kernel's probes take it. */
static void wprobe_module(void **state)
{
	struct kw_file f;
	char line[512];

	(void)state;
	assert_int_equal(parse(KW_WPROBE, "[wprobe]\naccess = w\nsymbol = my_mod:my_var\n"
			       "length = 8\n", &f), 0);
	assert_string_equal(f.wprobe.module, "my_mod");
	assert_string_equal(f.wprobe.symbol, "my_var");
	kw_wprobe_line(&f.wprobe, "kwatchd", line, sizeof(line));
	assert_string_equal(line, "w:kwatchd/my_file w@my_mod:my_var:8 kwatchd_comm=$comm");
	assert_int_equal(parse(KW_WPROBE, "[wprobe]\nmodule = my_mod\nsymbol = my_var\noffset = 8\n",
			       &f), 0);
	kw_wprobe_line(&f.wprobe, "g", line, sizeof(line));
	assert_string_equal(line, "w:g/my_file rw@my_mod:my_var+8:4 kwatchd_comm=$comm");
	/* The same module twice is fine; two are not. */
	assert_int_equal(parse(KW_WPROBE, "[wprobe]\nsymbol = m:v\nmodule = m\n", &f), 0);
	assert_int_equal(parse(KW_WPROBE, "[wprobe]\nsymbol = m:v\nmodule = n\n", &f), -EINVAL);
	assert_int_equal(f.err_line, 3);
	assert_int_equal(parse(KW_WPROBE, "[wprobe]\nmodule = n\nsymbol = m:v\n", &f), -EINVAL);
	assert_int_equal(parse(KW_WPROBE, "[wprobe]\nsymbol = :v\n", &f), -EINVAL);
	assert_int_equal(parse(KW_WPROBE, "[wprobe]\nsymbol = m:\n", &f), -EINVAL);
	assert_int_equal(parse(KW_WPROBE, "[wprobe]\nsymbol = m:v:w\n", &f), -EINVAL);
	assert_int_equal(parse(KW_WPROBE, "[wprobe]\nsymbol = m-x:v\n", &f), -EINVAL);
	assert_int_equal(parse(KW_WPROBE, "[wprobe]\nmodule = bad/name\nsymbol = v\n", &f), -EINVAL);
	/* module= names symbol='s module: an address has none. */
	assert_int_equal(parse(KW_WPROBE, "[wprobe]\nmodule = m\naddress = 0xffff888000000000\n", &f),
			 -EINVAL);
	assert_non_null(strstr(f.err_reason, "module="));
}

static void wprobe_errors(void **state)
{
	struct kw_file f;

	(void)state;
	assert_int_equal(parse(KW_WPROBE, "[wprobe]\naccess = x\nsymbol = s\n", &f), -EINVAL);
	assert_int_equal(f.err_line, 2);
	assert_int_equal(parse(KW_WPROBE, "[wprobe]\nlength = 3\n", &f), -EINVAL);
	assert_int_equal(parse(KW_WPROBE, "[wprobe]\nname = a\n", &f), -EINVAL);
	assert_non_null(strstr(f.err_reason, "symbol="));
	assert_int_equal(parse(KW_WPROBE, "[wprobe]\nsymbol = s\naddress = 1\n", &f), -EINVAL);
	assert_int_equal(parse(KW_WPROBE, "[wprobe]\nset_on = kmem/kmalloc\n", &f), -EINVAL);
	assert_int_equal(f.err_line, 2);
	assert_int_equal(parse(KW_WPROBE, "[wprobe]\nsymbol=s\nfetch = a;b\n", &f), -EINVAL);
	/* The comm's fetch arg is kwatchd's; a name that only starts so is not. */
	assert_int_equal(parse(KW_WPROBE, "[wprobe]\nsymbol=s\nfetch = v=$value kwatchd_comm=$comm\n",
			       &f), -EINVAL);
	assert_int_equal(parse(KW_WPROBE, "[wprobe]\nsymbol=s\nfetch = kwatchd_commx=$comm\n", &f), 0);
	assert_int_equal(parse(KW_WPROBE, "[wprobe]\nsymbol=s\nmax_rate = 0\n", &f), -EINVAL);
	assert_int_equal(f.err_line, 3);
	assert_non_null(strstr(f.err_reason, "max_rate"));
	assert_int_equal(parse(KW_WPROBE, "[wprobe]\nsymbol=s\nmax_rate = 1000001\n", &f), -EINVAL);
	assert_int_equal(parse(KW_WPROBE, "[wprobe]\nsymbol=s\nmax_rate = -5\n", &f), -EINVAL);
	assert_int_equal(parse(KW_WPROBE, "[wprobe]\nsymbol=s\nmax_rate = 10x\n", &f), -EINVAL);
}

static void fuzz_ok_and_errors(void **state)
{
	struct kw_file f;

	(void)state;
	assert_int_equal(parse(KW_FUZZ, "[fuzz]\nrate = 10\nrepeat = 2\n", &f), 0);
	assert_string_equal(f.fuzz.target, "my_file");
	assert_int_equal(f.fuzz.rate, 10);
	assert_int_equal(f.fuzz.repeat, 2);
	assert_int_equal(parse(KW_FUZZ, "[fuzz]\ntarget = a/b\n", &f), -EINVAL);
	assert_int_equal(parse(KW_FUZZ, "[fuzz]\nrepeat = 0\n", &f), -EINVAL);
	assert_int_equal(parse(KW_FUZZ, "[fuzz]\nspool = relative\n", &f), -EINVAL);
	/* generate = yes: no spool, its own keys. */
	assert_int_equal(parse(KW_FUZZ, "[fuzz]\n", &f), 0);
	assert_false(f.fuzz.generate);
	assert_int_equal(f.fuzz.buffer_size, KW_FUZZ_BUFFER_DEFAULT);
	assert_int_equal(f.fuzz.batch, KW_FUZZ_BATCH_DEFAULT);
	assert_int_equal(parse(KW_FUZZ, "[fuzz]\ngenerate = yes\nbuffer_size = 300\nbatch = 50\n",
			       &f), 0);
	assert_true(f.fuzz.generate);
	assert_int_equal(f.fuzz.buffer_size, 300);
	assert_int_equal(f.fuzz.batch, 50);
	assert_int_equal(parse(KW_FUZZ, "[fuzz]\ngenerate = maybe\n", &f), -EINVAL);
	assert_int_equal(parse(KW_FUZZ, "[fuzz]\ngenerate = yes\nbuffer_size = 1\n", &f), -EINVAL);
	assert_int_equal(parse(KW_FUZZ, "[fuzz]\ngenerate = yes\nbuffer_size = 65537\n", &f),
			 -EINVAL);
	assert_int_equal(parse(KW_FUZZ, "[fuzz]\ngenerate = yes\nbatch = 0\n", &f), -EINVAL);
	assert_int_equal(parse(KW_FUZZ, "[fuzz]\ngenerate = yes\nspool = /srv/s\n", &f), -EINVAL);
	assert_string_equal(f.err_reason,
			    "generate = yes has no spool: spool=, producer_group=, rate= and repeat= do not apply");
	assert_int_equal(parse(KW_FUZZ, "[fuzz]\ngenerate = yes\nrate = 5\n", &f), -EINVAL);
	assert_false(f.fuzz.simple);
	assert_int_equal(parse(KW_FUZZ, "[fuzz]\ninput = simple\n", &f), 0);
	assert_true(f.fuzz.simple);
	assert_int_equal(parse(KW_FUZZ, "[fuzz]\ninput = structured\n", &f), 0);
	assert_false(f.fuzz.simple);
	assert_int_equal(parse(KW_FUZZ, "[fuzz]\ninput = raw\n", &f), -EINVAL);
	/* generate = guided: libFuzzer and KCOV, stats every stats_interval. */
	assert_false(f.fuzz.guided);
	assert_int_equal(f.fuzz.stats_interval, KW_FUZZ_STATS_DEFAULT);
	assert_int_equal(parse(KW_FUZZ, "[fuzz]\ngenerate = guided\nstats_interval = 2\n", &f), 0);
	assert_true(f.fuzz.generate);
	assert_true(f.fuzz.guided);
	assert_int_equal(f.fuzz.stats_interval, 2);
	assert_int_equal(parse(KW_FUZZ, "[fuzz]\ngenerate = guided\nstats_interval = 0\n", &f),
			 -EINVAL);
	assert_string_equal(f.err_reason, "stats_interval: want 1..3600 seconds, got '0'");
	assert_int_equal(parse(KW_FUZZ, "[fuzz]\ngenerate = Guided\n", &f), -EINVAL);
	assert_string_equal(f.err_reason, "generate: want yes, guided or no, got 'Guided'");
	assert_int_equal(parse(KW_FUZZ, "[fuzz]\ngenerate = guided\nrepeat = 2\n", &f), -EINVAL);
	assert_string_equal(f.err_reason,
			    "generate = guided has no spool: spool=, producer_group=, rate= and repeat= do not apply");
}

static void settings(void **state)
{
	struct kw_settings s;
	char reason[256];
	int line = -1;

	(void)state;
	kw_settings_default(&s);
	assert_string_equal(s.kstackwatch, "/proc/kstackwatch");
	assert_int_equal(kw_settings_parse("[daemon]\nqueue_events = 64\n[kernel]\n"
					   "kstackwatch = /run/t/ksw\n", &s, &line, reason,
					   sizeof(reason)), 0);
	assert_int_equal(s.queue_events, 64);
	assert_string_equal(s.kstackwatch, "/run/t/ksw");
	assert_string_equal(s.fuzzer, "/usr/bin/kfuzztest-fuzz");
	assert_int_equal(kw_settings_parse("[kernel]\nfuzzer = /opt/k/kfuzztest-fuzz\n", &s, &line,
					   reason, sizeof(reason)), 0);
	assert_string_equal(s.fuzzer, "/opt/k/kfuzztest-fuzz");
	assert_int_equal(kw_settings_parse("[kernel]\nfuzzer = kfuzztest-fuzz\n", &s, &line,
					   reason, sizeof(reason)), -EINVAL);
	assert_string_equal(s.fuzzer, "/opt/k/kfuzztest-fuzz");
	assert_int_equal(kw_settings_parse("[daemon]\nqueue_events = 1\n", &s, &line, reason,
					   sizeof(reason)), -EINVAL);
	assert_int_equal(line, 2);
	assert_int_equal(s.queue_events, 64);	/* unchanged on error */
	assert_int_equal(kw_settings_parse("[nope]\na=b\n", &s, &line, reason, sizeof(reason)),
			 -EINVAL);
	assert_non_null(strstr(reason, "unknown section"));

	/* [capture] */
	assert_true(s.bpf && s.kmsg);
	assert_int_equal(s.ringbuf_kib, 256);
	assert_int_equal(kw_settings_parse("[capture]\nbpf = no\nringbuf_kib = 8\n"
					   "crash_dir = /tmp/c\n", &s, &line, reason,
					   sizeof(reason)), 0);
	assert_false(s.bpf);
	assert_int_equal(s.ringbuf_kib, 8);
	assert_string_equal(s.crash_dir, "/tmp/c");
	assert_int_equal(s.keep_crashes, KW_KEEP_CRASHES_DEFAULT);
	assert_int_equal(kw_settings_parse("[capture]\nkeep_crashes = 5\n", &s, &line, reason,
					   sizeof(reason)), 0);
	assert_int_equal(s.keep_crashes, 5);
	assert_int_equal(kw_settings_parse("[capture]\nkeep_crashes = -1\n", &s, &line, reason,
					   sizeof(reason)), -EINVAL);
	assert_int_equal(kw_settings_parse("[capture]\nringbuf_kib = 12\n", &s, &line, reason,
					   sizeof(reason)), -EINVAL);
	assert_non_null(strstr(reason, "power of two"));
	assert_int_equal(kw_settings_parse("[capture]\nkmsg = maybe\n", &s, &line, reason,
					   sizeof(reason)), -EINVAL);
	assert_int_equal(kw_settings_parse("[capture]\ncrash_dir = rel\n", &s, &line, reason,
					   sizeof(reason)), -EINVAL);
	assert_int_equal(s.ringbuf_kib, 8);	/* unchanged on error */
	/* pmsg: the spool's batches; "no" for a blob at a time. */
	assert_string_equal(s.pmsg, "/dev/pmsg0");
	assert_int_equal(kw_settings_parse("[capture]\npmsg = pmsg0\n", &s, &line, reason,
					   sizeof(reason)), -EINVAL);
	assert_non_null(strstr(reason, "not an absolute path"));
	assert_string_equal(s.pmsg, "/dev/pmsg0");
	assert_int_equal(kw_settings_parse("[capture]\npmsg = no\n", &s, &line, reason,
					   sizeof(reason)), 0);
	assert_string_equal(s.pmsg, "");
	/* [triage] stack_protector: watch or no, off by default. */
	assert_false(s.triage_stack_protector);
	assert_int_equal(kw_settings_parse("[triage]\nstack_protector = watch\n", &s, &line, reason,
					   sizeof(reason)), 0);
	assert_true(s.triage_stack_protector);
	assert_int_not_equal(kw_settings_parse("[triage]\nstack_protector = yes\n", &s, &line,
					       reason, sizeof(reason)), 0);
	assert_non_null(strstr(reason, "stack_protector: want watch or no, got 'yes'"));
	/* [triage] kasan_stack: the same, a setting of its own. */
	assert_false(s.triage_kasan_stack);
	assert_int_equal(kw_settings_parse("[triage]\nkasan_stack = watch\n", &s, &line, reason,
					   sizeof(reason)), 0);
	assert_true(s.triage_kasan_stack);
	assert_true(s.triage_stack_protector);
	assert_int_equal(kw_settings_parse("[triage]\nstack_protector = no\n", &s, &line, reason,
					   sizeof(reason)), 0);
	assert_true(s.triage_kasan_stack);
	assert_false(s.triage_stack_protector);
	assert_int_equal(kw_settings_parse("[triage]\nkasan_stack = no\n", &s, &line, reason,
					   sizeof(reason)), 0);
	assert_false(s.triage_kasan_stack);
	assert_int_not_equal(kw_settings_parse("[triage]\nkasan_stack = yes\n", &s, &line,
					       reason, sizeof(reason)), 0);
	assert_non_null(strstr(reason, "kasan_stack: want watch or no, got 'yes'"));
	assert_int_not_equal(kw_settings_parse("[triage]\nkasan_stack = WATCH\n", &s, &line,
					       reason, sizeof(reason)), 0);
	assert_int_not_equal(kw_settings_parse("[triage]\nkasan_stack =\n", &s, &line,
					       reason, sizeof(reason)), 0);
}

/* A value of @k other than its default, for edit_applies_or_pends(). */
static void other_value(const struct kw_setting_key *k, const struct kw_settings *def, char *v,
			size_t n)
{
	const char *field = (const char *)def + k->off;
	unsigned int u;

	switch (k->type) {
	case KW_KEY_PATH:
	case KW_KEY_PATH_OPT:
	case KW_KEY_PATH_NO:
		snprintf(v, n, "/kw-test/%s", k->key);
		break;
	case KW_KEY_NAME:
		snprintf(v, n, "kwtest");
		break;
	case KW_KEY_UINT:
	case KW_KEY_POW2:
		memcpy(&u, field, sizeof(u));
		snprintf(v, n, "%u", u == k->min ? k->max : k->min);
		break;
	case KW_KEY_BOOL:
		snprintf(v, n, "%s", *(const bool *)field ? "no" : "yes");
		break;
	case KW_KEY_DIRS:
		snprintf(v, n, "/kw-test/a /kw-test/b");
		break;
	case KW_KEY_JOURNAL:
		snprintf(v, n, "none");
		break;
	case KW_KEY_TRIAGE:
		snprintf(v, n, "%s", *(const bool *)field ? "no" : "watch");
		break;
	}
}

static bool names(const char *list, const char *key)
{
	size_t len = strlen(key);
	const char *p;

	for (p = list; (p = strstr(p, key)); p += len)
		if ((p == list || p[-1] == ' ') && (!p[len] || p[len] == ' '))
			return true;
	return false;
}

/* kwatchd.conf edited, one key at a time, for every key the parser knows:
 * the change is either in force at once or named as pending a restart,
 * never dropped in silence. */
static void edit_applies_or_pends(void **state)
{
	static const char *const must[] = { "stackvars", "bridge", "fuzz_table", "fuzzer" };
	struct kw_settings def, cur, next;
	char text[512], v[256], pending[512], reason[256], dropped[512] = "";
	unsigned int found = 0;
	size_t i, j;
	int line;

	(void)state;
	kw_settings_default(&def);
	for (i = 0; i < kw_n_setting_keys; i++) {
		const struct kw_setting_key *k = &kw_setting_keys[i];
		bool live, pend;

		for (j = 0; j < ARRAY_SIZE(must); j++)
			found += !strcmp(k->key, must[j]);
		other_value(k, &def, v, sizeof(v));
		snprintf(text, sizeof(text), "[%s]\n%s = %s\n", k->section, k->key, v);
		next = def;
		if (kw_settings_parse(text, &next, &line, reason, sizeof(reason)) < 0)
			fail_msg("%s: %s", text, reason);
		/* The edit changed the key's field, and only it. */
		assert_memory_not_equal((char *)&next + k->off, (char *)&def + k->off, k->size);
		cur = def;
		kw_settings_update(&cur, &next, pending, sizeof(pending));
		live = !memcmp((char *)&cur + k->off, (char *)&next + k->off, k->size);
		pend = names(pending, k->key);
		if (live == pend)
			snprintf(dropped + strlen(dropped), sizeof(dropped) - strlen(dropped),
				 " %s(%s)", k->key, live ? "both" : "neither live nor pending");
		else
			assert_int_equal(live, k->live);
	}
	if (dropped[0])
		fail_msg("edits not applied nor announced:%s", dropped);
	assert_int_equal(found, ARRAY_SIZE(must));

	/* Several at once: the live ones in force, the others named. */
	next = def;
	assert_int_equal(kw_settings_parse("[daemon]\nquiet_ms = 7\n[kernel]\nbridge = /b\n"
					   "fuzzer = /f\n", &next, &line, reason,
					   sizeof(reason)), 0);
	cur = def;
	kw_settings_update(&cur, &next, pending, sizeof(pending));
	assert_int_equal(cur.quiet_ms, 7);
	assert_string_equal(cur.bridge, def.bridge);
	assert_string_equal(pending, "bridge fuzzer");
	kw_settings_update(&cur, &cur, pending, sizeof(pending));
	assert_string_equal(pending, "");
}

/* /proc/kstackwatch's read-back must be the line written, not a longer
 * one that contains it. */
static void ksw_readback(void **state)
{
	(void)state;
	assert_true(ksw_readback_ok("f+0x1\n", "f+0x1"));
	assert_true(ksw_readback_ok("f+0x1", "f+0x1"));
	assert_false(ksw_readback_ok("f+0x10\n", "f+0x1"));
	assert_false(ksw_readback_ok("g+0x1\n", "f+0x1"));
	assert_false(ksw_readback_ok("f+0x1 0:8\n", "f+0x1"));
	assert_true(ksw_readback_ok("", "f+0x1"));
	assert_true(ksw_readback_ok("\n", "f+0x1"));
	/* The point the kernel picked follows a key=value line. */
	assert_true(ksw_readback_ok("fn=f # fo=0x1d\n", "fn=f"));
	assert_true(ksw_readback_ok("fn=f co=-48 wl=8 # fo=0x2a so=24\n", "fn=f co=-48 wl=8"));
	assert_false(ksw_readback_ok("fn=f co=-48 wl=8 # fo=0x2a\n", "fn=f"));
	assert_false(ksw_readback_ok("fn=fg # fo=0x1d\n", "fn=f"));
	assert_false(ksw_readback_ok("fn=f #fo=0x1d\n", "fn=f"));
}

/* Several watches read back one line each: each line is found whole, and
 * the lines come without what the kernel added. */
static void ksw_readback_several(void **state)
{
	const char *back = "f+0x10\nfn=f # fo=0x1d\nfn=g co=-48 wl=8 # fo=0x2a so=24\n";
	char lines[4][256];

	(void)state;
	assert_ptr_equal(ksw_readback_find(back, "f+0x10"), back);
	assert_null(ksw_readback_find(back, "f+0x1"));
	assert_ptr_equal(ksw_readback_find(back, "fn=f"), back + 7);
	assert_non_null(ksw_readback_find(back, "fn=g co=-48 wl=8"));
	assert_null(ksw_readback_find(back, "fn=g"));
	assert_null(ksw_readback_find("", "fn=g"));
	assert_int_equal(ksw_readback_lines(back, lines, 4), 3);
	assert_string_equal(lines[0], "f+0x10");
	assert_string_equal(lines[1], "fn=f");
	assert_string_equal(lines[2], "fn=g co=-48 wl=8");
	assert_int_equal(ksw_readback_lines(back, lines, 2), 2);
	assert_int_equal(ksw_readback_lines("\n\n", lines, 4), 0);
}

/* A stand-in file (no kernel file) takes one watch, whatever the kernel's
 * parameter says; the parameter of a kernel file is read and bounded. */
static void ksw_max_watches_of(void **state)
{
	char dir[] = "/tmp/kw-maxw-XXXXXX", standin[64], param[64];
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(standin, sizeof(standin), "%s/ksw", dir);
	snprintf(param, sizeof(param), "%s/max", dir);
	f = fopen(standin, "w");
	assert_non_null(f);
	fclose(f);
	f = fopen(param, "w");
	assert_non_null(f);
	fputs("4\n", f);
	fclose(f);
	assert_int_equal(ksw_max_watches(standin, param), 1);
	/* /proc/self/stat is a kernel file: the parameter counts. */
	assert_int_equal(ksw_max_watches("/proc/self/stat", param), 4);
	f = fopen(param, "w");
	fputs("1000\n", f);
	fclose(f);
	assert_int_equal(ksw_max_watches("/proc/self/stat", param), KSW_WATCHES_MAX);
	f = fopen(param, "w");
	fputs("x\n", f);
	fclose(f);
	assert_int_equal(ksw_max_watches("/proc/self/stat", param), 1);
	unlink(param);
	/* A v4 kernel has no such parameter: one watch. */
	assert_int_equal(ksw_max_watches("/proc/self/stat", param), 1);
	unlink(standin);
	rmdir(dir);
}

static void spool_paths(void **state)
{
	struct kw_file f;

	(void)state;
	assert_true(kw_path_within("/etc/kwatchd/watch.d", "/etc/kwatchd"));
	assert_true(kw_path_within("/etc/kwatchd", "/etc/kwatchd/"));
	assert_false(kw_path_within("/etc/kwatchdx", "/etc/kwatchd"));
	assert_false(kw_path_within("/etc", "/etc/kwatchd"));
	assert_true(kw_path_within("/var/lib/kwatchd/spool/t", "/var/lib/kwatchd"));
	assert_true(kw_path_within("/x", "/"));
	assert_int_equal(parse(KW_FUZZ, "[fuzz]\ntarget = t\nspool = /srv/spool/t\n", &f), 0);
	assert_int_equal(parse(KW_FUZZ, "[fuzz]\ntarget = t\nspool = /srv/../etc/kwatchd\n", &f),
			 -EINVAL);
	assert_non_null(strstr(f.err_reason, "'..'"));
	assert_int_equal(parse(KW_FUZZ, "[fuzz]\ntarget = t\nspool = /srv/x/..\n", &f), -EINVAL);
	assert_int_equal(parse(KW_FUZZ, "[fuzz]\ntarget = t\nspool = /srv//x\n", &f), -EINVAL);
	assert_int_equal(parse(KW_FUZZ, "[fuzz]\ntarget = t\nproducer_group = fuzz-ers\n", &f), 0);
	assert_string_equal(f.fuzz.producer_group, "fuzz-ers");
	assert_int_equal(f.fuzz.keep, KW_FUZZ_KEEP_DEFAULT);
	assert_int_equal(parse(KW_FUZZ, "[fuzz]\ntarget = t\nkeep = 0\n", &f), 0);
	assert_int_equal(f.fuzz.keep, 0);
	assert_int_equal(parse(KW_FUZZ, "[fuzz]\ntarget = t\nkeep = 10000001\n", &f), -EINVAL);
	assert_int_equal(parse(KW_FUZZ, "[fuzz]\ntarget = t\nproducer_group = ../x\n", &f), -EINVAL);
	assert_int_equal(parse(KW_FUZZ, "[fuzz]\ntarget = t\nproducer_group = -x\n", &f), -EINVAL);
	assert_int_equal(parse(KW_FUZZ, "[fuzz]\ntarget = t\nproducer_group = "
			       "a234567890123456789012345678901234\n", &f), -EINVAL);
}

/* What libinih would read other than as written is refused. */
static void lines_read_as_written(void **state)
{
	struct kw_settings s;
	struct kw_file f;
	char reason[256];
	int line = 0;

	(void)state;
	/* An indented line would be appended to the previous value. */
	assert_int_equal(parse(KW_WATCH, "[watch]\nfunction = f\n  enabled = no\n", &f), -EINVAL);
	assert_int_equal(f.err_line, 3);
	assert_non_null(strstr(f.err_reason, "indented line"));
	/* Indented comments and blank lines are fine. */
	assert_int_equal(parse(KW_WATCH, "[watch]\n  # note\n\t; note\n   \nfunction = f\n", &f), 0);
	assert_int_equal(parse(KW_WATCH, "[watch]\r\nfunction = f\r\n", &f), 0);
	assert_int_equal(parse(KW_WATCH, "[watch]\nfunction = f\x1b[2J\n", &f), -EINVAL);
	assert_non_null(strstr(f.err_reason, "control character 0x1b"));
	assert_int_equal(parse(KW_WATCH, "[watch]\nfunction = f\nfunction = g\n", &f), -EINVAL);
	assert_int_equal(f.err_line, 3);
	assert_non_null(strstr(f.err_reason, "function: given twice in [watch]"));
	assert_int_equal(parse(KW_WPROBE, "[wprobe]\nsymbol = x\n[wprobe]\nlength = 8\n", &f),
			 -EINVAL);
	assert_int_equal(f.err_line, 3);
	assert_non_null(strstr(f.err_reason, "section [wprobe] given twice"));
	/* Trigger keys are lists. */
	assert_int_equal(parse(KW_WPROBE, "[wprobe]\nset_on = kmem/kmalloc:ptr\n"
			       "set_on = kmem/kmalloc_node:ptr\n", &f), 0);

	kw_settings_default(&s);
	assert_int_equal(kw_settings_parse("[daemon]\nquiet_ms = 5\nquiet_ms = 6\n", &s, &line,
					   reason, sizeof(reason)), -EINVAL);
	assert_int_equal(line, 3);
	assert_non_null(strstr(reason, "given twice"));
	assert_int_equal(kw_settings_parse("[daemon]\nquiet_ms = 5\n[capture]\nbpf = no\n"
					   "[daemon]\npush =\n", &s, &line, reason,
					   sizeof(reason)), -EINVAL);
	assert_non_null(strstr(reason, "section [daemon] given twice"));
}

/* A drop-in directory holding a FIFO, a symlink and an oversized file:
 * loading does not block, and each is an error that says why. */
static void only_regular_files(void **state)
{
	char dir[256], path[300], *big;
	struct kw_file *files = NULL;
	size_t n = 0, i;
	FILE *fp;

	(void)state;
	snprintf(dir, sizeof(dir), "%s/watch.d", root);
	assert_int_equal(mkdir(dir, 0700), 0);
	snprintf(path, sizeof(path), "%s/fifo.conf", dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	snprintf(path, sizeof(path), "%s/link.conf", dir);
	assert_int_equal(symlink("/etc/hostname", path), 0);
	snprintf(path, sizeof(path), "%s/big.conf", dir);
	fp = fopen(path, "w");
	assert_non_null(fp);
	big = malloc(KW_CONF_MAX + 100);
	assert_non_null(big);
	memset(big, '#', KW_CONF_MAX + 100);
	memcpy(big, "[watch]\nfunction = f\n", 22);
	fwrite(big, 1, KW_CONF_MAX + 100, fp);
	fclose(fp);
	free(big);

	assert_int_equal(kw_config_load(root, &files, &n), 0);
	assert_int_equal(n, 3);
	for (i = 0; i < n; i++) {
		assert_int_not_equal(files[i].err, 0);
		print_message("%s: %s\n", files[i].name, files[i].err_reason);
		if (!strcmp(files[i].name, "fifo.conf"))
			assert_non_null(strstr(files[i].err_reason, "not a regular file"));
		else if (!strcmp(files[i].name, "link.conf"))
			assert_non_null(strstr(files[i].err_reason, "a symlink"));
		else
			assert_non_null(strstr(files[i].err_reason, "larger than the limit"));
	}
	free(files);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(watch_ok),
		cmocka_unit_test(watch_by_name),
		cmocka_unit_test_setup_teardown(watch_resolved, tmpdir_setup, tmpdir_teardown),
		cmocka_unit_test(watch_errors),
		cmocka_unit_test(wprobe_ok),
		cmocka_unit_test(wprobe_module),
		cmocka_unit_test(wprobe_errors),
		cmocka_unit_test(fuzz_ok_and_errors),
		cmocka_unit_test(settings),
		cmocka_unit_test_setup_teardown(index_size_capped, tmpdir_setup, tmpdir_teardown),
		cmocka_unit_test(edit_applies_or_pends),
		cmocka_unit_test(lines_read_as_written),
		cmocka_unit_test(ksw_readback),
		cmocka_unit_test(ksw_readback_several),
		cmocka_unit_test(ksw_max_watches_of),
		cmocka_unit_test(spool_paths),
		cmocka_unit_test_setup_teardown(only_regular_files, tmpdir_setup, tmpdir_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
