# kwatchd and kwatchctl, their host tests and fuzz smoke runs, and the
# files staged into the guest.  Included by the top-level Makefile.

# KWD_PKG_CFLAGS, KWD_PKG_LIBS and LIBBPF_LIBS come from pkg-config through
# $(B)/host.mk (scripts/host-mk.sh; the top-level Makefile says why).
COMMA := ,
KWD_CFLAGS = -std=gnu11 -D_GNU_SOURCE $(KWD_PKG_CFLAGS)
# libdw and libkmod: the library reads a module's DWARF (dwarfvars.c, module.c).
KWD_LIBS = $(KWD_PKG_LIBS) $(LIBDW_LIBS) $(KMOD_LIBS)
KWD_HDRS := $(wildcard lib/*.h daemon/*.h) bpf/kwatch-loader.h

# The pure parts: no struct kwd, no event loop.  Built once per flavour into
# libkw.a ($(B)/lib/ with CFLAGS, $(B)/san/ with the sanitizers), linked by
# kwatchd, kwatchctl and the host tests.
KW_LIB_SRCS := lib/util.c lib/log.c lib/event.c lib/event-text.c lib/queue.c \
	lib/config.c lib/apply.c lib/spool.c lib/spool-batch.c lib/spool-pack.c \
	lib/spool-queue.c lib/kmsg.c lib/ksym.c lib/pstore.c lib/command.c lib/keep.c \
	lib/journal.c lib/stackvars.c lib/fuzzpanic.c lib/ksw.c lib/fuzz-config.c \
	lib/tracefs-text.c lib/dwarfvars.c lib/module.c lib/x86insn.c lib/asanframe.c
# kwatchd's own files, each compiled to an object beside the library's.
KWD_SRCS := daemon/kwatchd.c daemon/kwatchd-watch.c daemon/kwatchd-wprobe.c \
	daemon/kwatchd-fuzz.c daemon/kwatchd-fuzzgen.c daemon/kwatchd-fuzzguided.c \
	daemon/kwatchd-crash.c daemon/kwatchd-server.c daemon/kwatchd-reconcile.c \
	daemon/kwatchd-inforce.c daemon/kwatchd-status.c daemon/kwatchd-triage.c \
	daemon/kwatchd-module.c bpf/kwatch.c
KWCTL_SRCS := kwatchctl/kwatchctl.c kwatchctl/kwatchctl-events.c kwatchctl/kwatchctl-resolve.c
KWCTL_HDRS := $(wildcard kwatchctl/*.h) lib/util.h lib/stackvars.h lib/dwarfvars.h \
	lib/x86insn.h

# Every source of the library, kwatchd and kwatchctl is compiled once per
# flavour into an object whose header dependencies gcc records (-MMD -MP,
# read back below): one edit rebuilds the objects that see it, and the
# programs and tests only link.  OBJ is the CFLAGS flavour, SAN_OBJ the
# sanitizers'.
KWD_OBJ_FLAGS = $(WARN) $(KWD_CFLAGS) $(LIBDW_CFLAGS) -I$(BPF_OUT) -Ibpf -Ilib -Idaemon -MMD -MP
OBJ = $(patsubst %.c,$(B)/obj/%.o,$(1))
SAN_OBJ = $(patsubst %.c,$(B)/san/%.o,$(1))
$(B)/obj/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(KWD_OBJ_FLAGS) -c -o $@ $<
$(B)/san/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SAN) $(KWD_OBJ_FLAGS) -c -o $@ $<
# kwatchctl's files see libdw and the daemon's headers, not the BPF ones.
KWCTL_OBJ_FLAGS = $(WARN) $(KWD_CFLAGS) $(LIBDW_CFLAGS) -Ilib -Idaemon -MMD -MP
$(B)/obj/kwatchctl/%.o: kwatchctl/%.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(KWCTL_OBJ_FLAGS) -c -o $@ $<
$(B)/san/kwatchctl/%.o: kwatchctl/%.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SAN) $(KWCTL_OBJ_FLAGS) -c -o $@ $<
# The daemon carries the BPF programs: bpf/bpf.mk makes the skeleton, which
# must be there before the first compile records who includes it.
KWD_BPF_SRCS := bpf/kwatch.c
$(call OBJ,$(KWD_BPF_SRCS)) $(call SAN_OBJ,$(KWD_BPF_SRCS)): $(BPF_OUT)/kwatch.skel.h bpf/kwatch.h
-include $(patsubst %.o,%.d,$(call OBJ,$(KW_LIB_SRCS) $(KWD_SRCS) $(KWCTL_SRCS)) \
	$(call SAN_OBJ,$(KW_LIB_SRCS) $(KWD_SRCS) $(KWCTL_SRCS)))

# The archive is made anew, so a file dropped from the list leaves it.
$(B)/lib/libkw.a: $(call OBJ,$(KW_LIB_SRCS))
	@mkdir -p $(@D)
	rm -f $@ && $(AR) rcs $@ $^
$(B)/san/libkw.a: $(call SAN_OBJ,$(KW_LIB_SRCS))
	@mkdir -p $(@D)
	rm -f $@ && $(AR) rcs $@ $^

$(B)/daemon/kwatchd: $(call OBJ,$(KWD_SRCS)) $(B)/lib/libkw.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $^ $(KWD_LIBS) $(LIBBPF_LIBS)

$(B)/daemon/kwatchctl: $(call OBJ,$(KWCTL_SRCS)) $(B)/lib/libkw.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $^ $(KWD_LIBS)

# --- host tests (cmocka, ASan/UBSan) -------------------------------------------

# A host test links, beside its own file, the sanitizers' objects of what it
# tests (SAN_OBJ, compiled once) and the library's flavour with the
# sanitizers, rather than compiling them all again.
KWD_TEST_DEPS := $(KWD_HDRS) tests/unit/kwatchd/tmpdir.h tests/unit/kwatchd/fake_kwd.h \
	tests/unit/srcline.h
# kwd_unit NAME, OBJECTS beside the library[, LDFLAGS]
define kwd_unit
$(B)/unit/kwatchd/test_$(1): tests/unit/kwatchd/test_$(1).c $(2) $(B)/san/libkw.a $(KWD_TEST_DEPS)
	@mkdir -p $$(@D)
	$$(CC) $$(CFLAGS) $$(WARN) $$(SAN) $$(KWD_CFLAGS) -Ilib -Idaemon -Ibpf \
		-DKW_TEST_DATA=\"$(CURDIR)/tests/unit/kwatchd/data\" \
		-o $$@ $$< $(2) $(B)/san/libkw.a $$(KWD_LIBS) -lcmocka $(3)
UNIT_TESTS += $(B)/unit/kwatchd/test_$(1)
endef

KWD_TESTS := config apply spool event queue kmsg ksym pstore command keep journal
$(foreach t,$(KWD_TESTS),$(eval $(call kwd_unit,$(t))))
# A wprobe's tracefs text and its kernel I/O (stale wprobes), with
# stand-ins for the daemon (fake_kwd.h).
$(eval $(call kwd_unit,wprobe,$(call SAN_OBJ,daemon/kwatchd-wprobe.c)))
# What the spool costs the loop: its directory reads and syncs, counted by wrappers.
$(eval $(call kwd_unit,spool_cost,,-Wl$(COMMA)--wrap=readdir$(COMMA)--wrap=fdopendir$(COMMA)--wrap=syncfs))
# The event socket, on a real unix socket and sd-event loop.
$(eval $(call kwd_unit,server,$(call SAN_OBJ,daemon/kwatchd-server.c)))
# A fuzz spool runtime on a real loop and inotify (the daemon's other parts
# it calls are stand-ins in the test).
$(eval $(call kwd_unit,fuzz,$(call SAN_OBJ,daemon/kwatchd-fuzz.c daemon/kwatchd-fuzzgen.c \
	daemon/kwatchd-fuzzguided.c)))
# Crash capture from pstore into the crash directory (stand-ins for the
# rest of the daemon in the test; the blob tie is kwatchd-fuzz.c's, the watches kwatchd-watch.c's).
$(eval $(call kwd_unit,crash,$(call SAN_OBJ,daemon/kwatchd-crash.c daemon/kwatchd-fuzz.c \
	daemon/kwatchd-fuzzgen.c daemon/kwatchd-fuzzguided.c daemon/kwatchd-watch.c \
	daemon/kwatchd-triage.c),-Wl$(COMMA)--wrap=kmsg_parser_init))
# wprobe hits from a trace_pipe that is a FIFO (stand-ins for the rest of
# the daemon in the test).
$(eval $(call kwd_unit,hits,$(call SAN_OBJ,daemon/kwatchd-wprobe.c)))
# The set in force saved across restarts, and the daemon's side of it; the
# copies written and the directories listed are counted by wrappers.
$(eval $(call kwd_unit,inforce,$(call SAN_OBJ,daemon/kwatchd-inforce.c),-Wl$(COMMA)--wrap=kw_write_file_at$(COMMA)--wrap=fdopendir))

# A watch on a module's function: the kwatchctl fixture as the module's file.
$(B)/unit/kwatchd/test_module: $(B)/unit/kwatchctl/clones-O2 $(B)/unit/kwatchctl/lines-O2
$(eval $(call kwd_unit,module,,-DKW_CLONES='"$(CURDIR)/$(B)/unit/kwatchctl/clones-O2"' \
	-DKW_LINES='"$(CURDIR)/$(B)/unit/kwatchctl/lines-O2"' \
	-DKW_LINES_SRC='"$(CURDIR)/tests/unit/kwatchctl/lines.c"'))

# kwatchctl resolve: libdw on a fixture built at -O2 with and without frame
# pointers, against the layout it measures when run.
KWC_FIXTURES := $(B)/unit/kwatchctl/frames-O2 $(B)/unit/kwatchctl/frames-O2-fp
$(B)/unit/kwatchctl/frames-O2: tests/unit/kwatchctl/frames.c
	@mkdir -p $(@D)
	$(CC) -g -O2 -fomit-frame-pointer $(WARN) -o $@ $<
$(B)/unit/kwatchctl/frames-O2-fp: tests/unit/kwatchctl/frames.c
	@mkdir -p $(@D)
	$(CC) -g -O2 -fno-omit-frame-pointer $(WARN) -o $@ $<
# gcc's clones and hot/cold splits, as the kernel has them.
$(B)/unit/kwatchctl/clones-O2: tests/unit/kwatchctl/clones.c
	@mkdir -p $(@D)
	$(CC) -g -O2 -fno-omit-frame-pointer -fstack-protector-all $(WARN) -o $@ $<
# The point after a source line (resolve --after): a loop that fills an
# array, built as the kernel is (no SSE: no vectorised loop), with and
# without frame pointers.
$(B)/unit/kwatchctl/lines-O2: tests/unit/kwatchctl/lines.c
	@mkdir -p $(@D)
	$(CC) -g -O2 -fomit-frame-pointer -fstack-protector-all -mgeneral-regs-only $(WARN) -o $@ $<
$(B)/unit/kwatchctl/lines-O2-fp: tests/unit/kwatchctl/lines.c
	@mkdir -p $(@D)
	$(CC) -g -O2 -fno-omit-frame-pointer -fstack-protector-all -mgeneral-regs-only $(WARN) -o $@ $<
# Locals in KASAN's stack frame: gcc's stack instrumentation as the
# kernel's (no fake stack for use-after-return, no PIE), with and without
# frame pointers.
KWC_ASAN_FLAGS := -g -O2 -fno-pie -no-pie -fsanitize=address --param asan-stack=1 \
	--param asan-use-after-return=0
$(B)/unit/kwatchctl/asan-O2: tests/unit/kwatchctl/asan.c
	@mkdir -p $(@D)
	$(CC) $(KWC_ASAN_FLAGS) -fomit-frame-pointer $(WARN) -o $@ $<
$(B)/unit/kwatchctl/asan-O2-fp: tests/unit/kwatchctl/asan.c
	@mkdir -p $(@D)
	$(CC) $(KWC_ASAN_FLAGS) -fno-omit-frame-pointer $(WARN) -o $@ $<
$(B)/unit/kwatchctl/test_stackvars: tests/unit/kwatchctl/test_stackvars.c \
		$(B)/san/libkw.a $(KWCTL_HDRS) tests/unit/srcline.h $(KWC_FIXTURES) \
		$(B)/unit/kwatchctl/clones-O2 $(B)/unit/kwatchctl/lines-O2 \
		$(B)/unit/kwatchctl/lines-O2-fp $(B)/daemon/kwatchctl \
		$(B)/unit/kwatchctl/asan-O2 $(B)/unit/kwatchctl/asan-O2-fp
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(WARN) $(SAN) $(KWD_CFLAGS) $(LIBDW_CFLAGS) -Ilib -Idaemon -Ikwatchctl \
		-DKWATCHCTL='"$(CURDIR)/$(B)/daemon/kwatchctl"' \
		-DKW_CLONES='"$(CURDIR)/$(B)/unit/kwatchctl/clones-O2"' \
		-DKW_CLONES_SRC='"$(CURDIR)/tests/unit/kwatchctl/clones.c"' \
		-DKW_LINES='"$(CURDIR)/$(B)/unit/kwatchctl/lines-O2"' \
		-DKW_LINES_FP='"$(CURDIR)/$(B)/unit/kwatchctl/lines-O2-fp"' \
		-DKW_LINES_SRC='"$(CURDIR)/tests/unit/kwatchctl/lines.c"' \
		-DKW_ASAN='"$(CURDIR)/$(B)/unit/kwatchctl/asan-O2"' \
		-DKW_ASAN_FP='"$(CURDIR)/$(B)/unit/kwatchctl/asan-O2-fp"' \
		-DKW_FIXTURES='$(patsubst %,"$(CURDIR)/%"$(COMMA),$(KWC_FIXTURES))' -o $@ $< \
		$(B)/san/libkw.a $(KWD_LIBS) -lcmocka
UNIT_TESTS += $(B)/unit/kwatchctl/test_stackvars

# libFuzzer harnesses, smoke-run for a few seconds each by one wrapper.
# Their daemon files are a third flavour of objects (clang, coverage and
# sanitizers), each compiled once however many harnesses link it; not an
# archive, which would compile the whole library for the few files they use.
KWD_FUZZ := fuzz_config fuzz_event fuzz_kmsg fuzz_stackvars
FUZZ_FLAGS := -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
FUZZ_OBJ = $(patsubst %.c,$(B)/fuzz/obj/%.o,$(1))
$(B)/fuzz/obj/%.o: %.c
	@mkdir -p $(@D)
	clang $(subst fuzzer$(COMMA),fuzzer-no-link$(COMMA),$(FUZZ_FLAGS)) $(KWD_CFLAGS) -Ilib -Idaemon \
		-MMD -MP -c -o $@ $<
KWD_FUZZ_CONFIG := lib/config.c lib/ksw.c lib/tracefs-text.c lib/log.c lib/util.c \
	lib/journal.c lib/event.c lib/stackvars.c lib/fuzz-config.c lib/module.c lib/dwarfvars.c \
	lib/x86insn.c lib/asanframe.c
KWD_FUZZ_EVENT := lib/event.c lib/event-text.c lib/journal.c lib/log.c lib/util.c
KWD_FUZZ_KMSG := lib/kmsg.c lib/pstore.c lib/log.c lib/util.c
KWD_FUZZ_STACKVARS := lib/stackvars.c lib/util.c
-include $(patsubst %.o,%.d,$(call FUZZ_OBJ,$(sort $(KWD_FUZZ_CONFIG) $(KWD_FUZZ_EVENT) \
	$(KWD_FUZZ_KMSG) $(KWD_FUZZ_STACKVARS))))
# kwd_fuzz NAME, SOURCES its harness links
define kwd_fuzz
$(B)/fuzz/$(1): tests/fuzz/$(1).c $(call FUZZ_OBJ,$(2)) $(KWD_HDRS)
	@mkdir -p $$(@D)
	clang $$(FUZZ_FLAGS) $$(KWD_CFLAGS) -Ilib -Idaemon -o $$@ $$< $(call FUZZ_OBJ,$(2)) $$(KWD_LIBS)
endef
$(eval $(call kwd_fuzz,fuzz_config,$(KWD_FUZZ_CONFIG)))
$(eval $(call kwd_fuzz,fuzz_event,$(KWD_FUZZ_EVENT)))
$(eval $(call kwd_fuzz,fuzz_kmsg,$(KWD_FUZZ_KMSG)))
$(eval $(call kwd_fuzz,fuzz_stackvars,$(KWD_FUZZ_STACKVARS)))
$(B)/unit/kwatchd/fuzz_smoke: tests/fuzz/fuzz-smoke.sh $(addprefix $(B)/fuzz/,$(KWD_FUZZ))
	@mkdir -p $(@D)
	sed 's|@FUZZDIR@|$(CURDIR)/$(B)/fuzz|; s|@CORPUS@|$(CURDIR)/tests/fuzz/corpus|' $< >$@
	chmod +x $@
UNIT_TESTS += $(B)/unit/kwatchd/fuzz_smoke

# The unit file must pass systemd-analyze verify (run as a host test).
$(B)/unit/kwatchd/unit_verify: units/kwatchd.service units/kwatchd.socket tests/unit/kwatchd/unit-verify.sh $(B)/daemon/kwatchd
	@mkdir -p $(@D)
	sed 's|@TOP@|$(CURDIR)|' tests/unit/kwatchd/unit-verify.sh >$@
	chmod +x $@
UNIT_TESTS += $(B)/unit/kwatchd/unit_verify

# kwatchctl reading saved streams (summary, follow -f) against a fixture,
# with kwatchctl built with ASan/UBSan for it.
$(B)/unit/kwatchd/kwatchctl-san: $(call SAN_OBJ,$(KWCTL_SRCS)) $(B)/san/libkw.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SAN) -o $@ $^ $(KWD_LIBS)
$(B)/unit/kwatchd/kwatchctl_read: tests/unit/kwatchd/kwatchctl-read.sh \
		tests/unit/kwatchd/kwatchctl-events.ndjson $(B)/unit/kwatchd/kwatchctl-san
	@mkdir -p $(@D)
	sed 's|@KWATCHCTL@|$(CURDIR)/$(B)/unit/kwatchd/kwatchctl-san|; s|@FIXTURE@|$(CURDIR)/tests/unit/kwatchd/kwatchctl-events.ndjson|' $< >$@
	chmod +x $@
UNIT_TESTS += $(B)/unit/kwatchd/kwatchctl_read

# The event schema: lint, the docs table, a fixture of real events, and
# events that break the contract refused.
$(B)/unit/kwatchd/event_schema: tests/unit/kwatchd/event-schema.sh docs/event-schema.json \
		docs/event-schema.md tests/unit/kwatchd/events-v1.ndjson scripts/event-schema
	@mkdir -p $(@D)
	sed 's|@TOP@|$(CURDIR)|' $< >$@
	chmod +x $@
UNIT_TESTS += $(B)/unit/kwatchd/event_schema

# kwatchd itself under ASan/UBSan, for the system-call fault sweep
# (tests/unit/kwatchd/fault-sweep.py).
$(B)/unit/kwatchd/kwatchd-san: $(call SAN_OBJ,$(KWD_SRCS)) $(B)/san/libkw.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SAN) -o $@ $^ $(KWD_LIBS) $(LIBBPF_LIBS)

# The short sweep in make check: a fixed sample of the failure points.
$(B)/unit/kwatchd/fault_sweep_short: tests/unit/kwatchd/fault-sweep.py \
		$(B)/unit/kwatchd/kwatchd-san $(B)/daemon/kwatchctl
	@mkdir -p $(@D)
	printf '#!/bin/sh\nexec %s --short --kwatchd %s --kwatchctl %s\n' \
		'$(CURDIR)/tests/unit/kwatchd/fault-sweep.py' '$(CURDIR)/$(B)/unit/kwatchd/kwatchd-san' \
		'$(CURDIR)/$(B)/daemon/kwatchctl' >$@
	chmod +x $@
UNIT_TESTS += $(B)/unit/kwatchd/fault_sweep_short

# --- guest files ------------------------------------------------------------------

G := $(B)/guest
# config/collectors/ holds collectors' configurations (docs, the
# collectors suite), not kwatchd's.
KWD_CONFIG := $(shell find config -type f -not -path 'config/collectors/*' 2>/dev/null)

$(G)/usr/sbin/kwatchd: $(B)/daemon/kwatchd
	@mkdir -p $(@D)
	cp $< $@
$(G)/usr/bin/kwatchctl: $(B)/daemon/kwatchctl
	@mkdir -p $(@D)
	cp $< $@
$(G)/etc/systemd/system/kwatchd.service: units/kwatchd.service
	@mkdir -p $(@D)
	cp $< $@
$(G)/etc/systemd/system/kwatchd.socket: units/kwatchd.socket
	@mkdir -p $(@D)
	cp $< $@
$(G)/etc/systemd/system/multi-user.target.wants/kwatchd.service:
	@mkdir -p $(@D)
	ln -sf ../kwatchd.service $@
$(G)/etc/systemd/system/sockets.target.wants/kwatchd.socket:
	@mkdir -p $(@D)
	ln -sf ../kwatchd.socket $@
$(G)/usr/lib/sysusers.d/kwatchd.conf: units/kwatchd.sysusers
	@mkdir -p $(@D)
	cp $< $@
$(G)/etc/kwatchd/%: config/%
	@mkdir -p $(@D)
	cp $< $@
# The test VM's settings: the stream pushed to the host through the
# virtio-serial port.
$(G)/etc/kwatchd/kwatchd.conf: config/kwatchd.conf
	@mkdir -p $(@D)
	sed 's|^#push = /dev/virtio-ports/org.kwatch.events$$|push = /dev/virtio-ports/org.kwatch.events|' $< >$@
	grep -q '^push = /dev/virtio-ports/org.kwatch.events$$' $@

GUEST_TARGETS += $(G)/usr/sbin/kwatchd $(G)/usr/bin/kwatchctl \
	$(G)/etc/systemd/system/kwatchd.service $(G)/usr/lib/sysusers.d/kwatchd.conf \
	$(G)/etc/systemd/system/multi-user.target.wants/kwatchd.service \
	$(G)/etc/systemd/system/kwatchd.socket \
	$(G)/etc/systemd/system/sockets.target.wants/kwatchd.socket \
	$(patsubst config/%,$(G)/etc/kwatchd/%,$(KWD_CONFIG))

# --- make install ----------------------------------------------------------------

BRIDGE_BIN := $(B)/guest/opt/kwatch/bin/kfuzztest-bridge
FUZZ_BIN := $(B)/guest/opt/kwatch/bin/kfuzztest-fuzz
install: $(B)/daemon/kwatchd $(B)/daemon/kwatchctl $(BRIDGE_BIN) $(FUZZ_BIN)
	@scripts/install.sh $(B) $(BRIDGE_BIN)
DEB_SRCS := $(wildcard packaging/debian/* packaging/debian/source/*) scripts/install.sh \
	scripts/deb.sh units/kwatchd.service units/kwatchd.socket units/kwatchd.sysusers \
	$(KWD_CONFIG) $(wildcard config/collectors/*) docs/event-schema.json scripts/event-schema \
	README.md $(wildcard docs/*.md)
deb: $(B)/deb/stamp
$(B)/deb/stamp: $(B)/daemon/kwatchd $(B)/daemon/kwatchctl $(BRIDGE_BIN) $(FUZZ_BIN) $(DEB_SRCS) \
		$(B)/guest/opt/kwatch/kfuzztest-targets.txt
	@scripts/deb.sh $(B) $(BRIDGE_BIN)
	@touch $@
# Both packages in a plain bookworm VM (the kernel's from bindeb-pkg).
deb-test: $(B)/deb/stamp kernel host
	@scripts/deb-test.sh $$(ls $(B)/deb/kwatch_*_amd64.deb)
# The package's contents and maintainer scripts (a host test).
$(B)/unit/deb_package: tests/unit/deb-package.sh $(B)/deb/stamp
	@mkdir -p $(@D)
	sed "s|@DEB@|$$(ls $(CURDIR)/$(B)/deb/kwatch_*_amd64.deb)|" $< >$@
	chmod +x $@
UNIT_TESTS += $(B)/unit/deb_package
