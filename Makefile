# kwatch: the one entry point.  `make help` lists the targets.
#
# Expensive outputs (kernel tree and build, ccache, rootfs, image, VM runs)
# live in $(KWATCH_CACHE), outside the checkout; small userspace outputs in
# build/.  Every target installs the Debian packages it needs first.

KWATCH_CACHE ?= /var/cache/kwatch
export KWATCH_CACHE
SUITE ?= all

CC := gcc
CFLAGS ?= -O2 -g
WARN := -Wall -Wextra -Werror
SAN := -fsanitize=address,undefined -fno-omit-frame-pointer
B := build

KSRC := $(KWATCH_CACHE)/src/linux
KWATCH_KBUILD := $(KWATCH_CACHE)/build/linux$(if $(KWATCH_FLAVOR),-$(KWATCH_FLAVOR))

# --- what the installed packages decide ------------------------------------
#
# Nothing that make computes while it reads the makefiles may depend on a
# package that scripts/deps.sh installs: on a fresh machine that package is
# not there yet when make reads them, and a $(shell pkg-config ...) would
# silently expand to nothing for the whole run.  So every such value
# (pkg-config flags, tool checks) is computed by scripts/host-mk.sh into
# $(B)/host.mk, after scripts/deps.sh has run, and included here.  make
# brings an included makefile up to date before anything else and, when it
# changed, reads all the makefiles again (GNU make's "remaking makefiles"),
# so the run goes on with the real values.  host.mk is re-made on every run
# (deps.sh is quiet and quick when all is there) and rewritten only when
# its contents change.  If a package is missing or pkg-config fails,
# host-mk.sh fails with its message and make stops there.
#
# Adding a package or a flag: the package goes into scripts/deps.sh, the
# flag into scripts/host-mk.sh; never $(shell ...) of an installed tool in a
# makefile, never $(wildcard) of an installed file.
NO_DEPS_GOALS := help clean series-export series-status
ifneq ($(filter-out $(NO_DEPS_GOALS),$(or $(MAKECMDGOALS),help)),)
include $(B)/host.mk
endif

$(B)/host.mk: FORCE
	@[ -n "$(MAKE_RESTARTS)" ] || [ $(MAKELEVEL) -ne 0 ] || scripts/plan.sh $(MAKECMDGOALS)
	@scripts/deps.sh
	@scripts/host-mk.sh $@

# Each part of the project adds to these from its own make fragment:
#   UNIT_TESTS     host test programs run by `make check` (cmocka binaries
#                  print TAP; any other program counts as one test, passing
#                  when it exits 0, e.g. a fuzz smoke run)
#   GUEST_TARGETS  files built under build/guest/, copied into the guest
#                  image at the same path (build/guest/usr/sbin/x -> /usr/sbin/x)
UNIT_TESTS :=
GUEST_TARGETS :=
include bpf/bpf.mk
include daemon/daemon.mk
include tests/vm/tools/tools.mk
include tests/fuzz/fuzz.mk

.PHONY: help deps kernel-tree series-export series-reset series-status \
	kernel modules rootfs image host check unit unit-build checkpatch test vm-test \
	debug-test kcsan-test fault-test syzkaller-check byname-corpus cross-test storm-ab fault-sweep vm run bench stream-profile loop-bench clean \
	fresh-check install deb \
	deb-test FORCE

help:
	@echo "make test            everything: host checks, then the VM suites (SUITE=name[,name] picks suites)"
	@echo "make check           host only: cmocka unit tests, checkpatch --strict over kernel-series/"
	@echo "make run             the demonstration: the guest's output and kwatchd's events live, then their summary"
	@echo "make bench           run the measuring VM suites; figures also in build/bench-report.txt"
	@echo "make stream-profile  kwatchd's event path on the host beside a bare writer, and its perf profile"
	@echo "make loop-bench      kwatchd's loop under 5000 queued blobs and status askers (LOOP_BENCH_OLD=: side by side)"
	@echo "make debug-test      the KStackWatch suites on a lockdep kernel (KWATCH_FLAVOR=debug; DEBUG_SUITE=)"
	@echo "make kcsan-test      the stress suites on a KCSAN kernel, its races classified (KWATCH_FLAVOR=kcsan; KCSAN_SUITE=)"
	@echo "make fault-sweep     kwatchd on the host with each system call of a scenario failed in turn (strace --inject)"
	@echo "make storm-ab        the storm suite, a host thread per vCPU, under Debian's QEMU 7.2 and bookworm-backports' 10.0"
	@echo "make cross-test      the series cross-built for arm64 and its KUnit suites booted under qemu-system-aarch64"
	@echo "make byname-corpus   watching by name measured over vmlinux: shares armed, reasons (build/byname-report.txt)"
	@echo "make syzkaller-check the fleet kernel and image for syz-manager, booted as it does, its targets checked (SYZ_VMS=)"
	@echo "make fault-test      every control operation with its Nth allocation failed, N=1,2,..; kmemleak (KWATCH_FLAVOR=fault)"
	@echo "make install         kwatchd, kwatchctl, kfuzztest-bridge, kfuzztest-fuzz, units, config and docs (DESTDIR=, PREFIX=/usr)"
	@echo "make deb             the kwatch .deb (debhelper) in build/deb/"
	@echo "make deb-test        kernel and kwatch packages installed by apt into a plain bookworm VM, booted, checked"
	@echo "make vm              boot the guest with a root shell on the console (Ctrl-a x quits)"
	@echo "make fresh-check     the README's set-up proved from nothing: everything built, then make run, in a fresh bookworm minbase"
	@echo "make kernel          apply kernel-series/ and build the test kernel"
	@echo "make kernel-tree     make $(KSRC) an editable git tree with the series applied"
	@echo "make series-export   turn the commits in that tree back into kernel-series/*.patch"
	@echo "make series-reset    drop local work in the tree and re-apply kernel-series/"
	@echo "make series-status   show the tree's state against kernel-series/"
	@echo "KWATCH_CACHE=$(KWATCH_CACHE) holds the kernel tree, builds, ccache, rootfs and VM runs"

deps:
	@scripts/deps.sh

# --- kernel series and kernel ------------------------------------------------

kernel-tree:
	@scripts/series.sh tree

series-export:
	@scripts/series.sh export

series-reset:
	@scripts/series.sh reset

series-status:
	@scripts/series.sh status

kernel: kernel-tree
	@scripts/kernel.sh build

modules: kernel
	@scripts/modules.sh

rootfs:
	@scripts/rootfs.sh >/dev/null

image: modules host $(GUEST_TARGETS)
	@scripts/image.sh >/dev/null

# --- host userspace -----------------------------------------------------------

HOST_BINS := $(B)/host/ktap-summary

host: $(HOST_BINS)

$(B)/host/ktap-summary: tests/runner/ktap-summary.c tests/runner/ktap.c tests/runner/ktap.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(WARN) -o $@ tests/runner/ktap-summary.c tests/runner/ktap.c

# --- tests --------------------------------------------------------------------

UNIT_TESTS += $(B)/unit/test_ktap

$(B)/unit/test_ktap: tests/unit/test_ktap.c tests/runner/ktap.c tests/runner/ktap.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(WARN) $(SAN) -o $@ tests/unit/test_ktap.c tests/runner/ktap.c -lcmocka

# The kernel-series workflow (scripts/series.sh) on a tiny stand-in tree.
UNIT_TESTS += $(B)/unit/series_workflow

$(B)/unit/series_workflow: tests/unit/series-workflow.sh tests/unit/check.sh scripts/series.sh scripts/lib.sh
	@mkdir -p $(@D)
	sed 's|@TOP@|$(CURDIR)|' $< >$@
	chmod +x $@

# The kernel's checkstack.pl over the series' objects: no large frames.
UNIT_TESTS += $(B)/unit/series_stack

$(B)/unit/series_stack: tests/unit/series-stack.sh | kernel-tree
	@mkdir -p $(@D)
	sed -e 's|@TOP@|$(CURDIR)|' -e 's|@KSRC@|$(KSRC)|' -e 's|@KBUILD@|$(KWATCH_KBUILD)|' $< >$@
	chmod +x $@

# make kcsan-test's classifier of KCSAN reports, on a made-up console log.
UNIT_TESTS += $(B)/unit/kcsan_reports

$(B)/unit/kcsan_reports: tests/unit/kcsan-reports.sh tests/unit/check.sh scripts/kcsan-reports.sh
	@mkdir -p $(@D)
	sed 's|@TOP@|$(CURDIR)|' $< >$@
	chmod +x $@

unit: $(UNIT_TESTS)
	@set -e; for t in $(UNIT_TESTS); do echo "== $$t"; $$t; done

# Every host test program built, none run (make fresh-check).
unit-build: $(UNIT_TESTS)

checkpatch: kernel-tree
	@scripts/checkpatch.sh

check: kernel-tree host $(UNIT_TESTS)
	@scripts/check.sh $(UNIT_TESTS)

vm-test: image
	@scripts/vm.sh test $(SUITE)

# The KStackWatch suites on the debug kernel (lockdep, atomic-sleep checks):
# its own build and image directories; the first build is a full one.
DEBUG_SUITE ?= kstackwatch,kstackwatch_stress
debug-test:
	@$(MAKE) --no-print-directory vm-test KWATCH_FLAVOR=debug SUITE=$(DEBUG_SUITE)

# KCSAN (issue 29, item 10): the kcsan suite (the stress suites nested)
# and the storm, each in a boot of the KCSAN kernel; every KCSAN report is
# classified, series' or 6.1's, into build/kcsan-report.txt.
KCSAN_SUITE ?= kcsan
kcsan-test:
	@$(MAKE) --no-print-directory image KWATCH_FLAVOR=kcsan
	@KWATCH_FLAVOR=kcsan KCSAN_SUITE=$(KCSAN_SUITE) scripts/kcsan-test.sh

# Fault injection (issue 29, item 11): the fault suite on the fault
# kernel (fail-nth, kmemleak, lockdep; KASAN on).  Hours of TCG: the
# suite's loops are long, so the VM's time limit is too.
FAULT_SUITE ?= fault
fault-test:
	@$(MAKE) --no-print-directory vm-test KWATCH_FLAVOR=fault SUITE=$(FAULT_SUITE) \
		KWATCH_VM_TIMEOUT=$${KWATCH_VM_TIMEOUT:-14400}

# syzkaller over many VMs (issue 32, item 2): the fleet kernel
# (KWATCH_FLAVOR=syzkaller: a NIC, whole-kernel KCOV), syzkaller's rules
# over its vmlinux, its syzlang descriptions, an image with sshd, one VM
# booted as syz-manager's qemu type boots it and checked by ssh, and the
# manager configurations for SYZ_VMS VMs, all in $(KWATCH_CACHE)/syzkaller/
# (docs/kfuzztest-syzkaller.md).
SYZ_VMS ?= 8
SYZ_VMLINUX = $(KWATCH_CACHE)/build/linux-syzkaller/vmlinux
syzkaller-check: $(B)/host/kfuzztest-list kernel-tree
	@KWATCH_FLAVOR=syzkaller scripts/kernel.sh build
	$(B)/host/kfuzztest-list --check-syzkaller $(SYZ_VMLINUX)
	@mkdir -p $(KWATCH_CACHE)/syzkaller
	$(B)/host/kfuzztest-list --syzlang $(SYZ_VMLINUX) >$(B)/syzkaller-kfuzztest.txt
	$(B)/host/kfuzztest-list $(SYZ_VMLINUX) >$(B)/syzkaller-targets.txt
	tests/unit/syzlang-check.py $(B)/syzkaller-kfuzztest.txt $(B)/syzkaller-targets.txt
	@KWATCH_FLAVOR=syzkaller scripts/syzkaller.sh image
	@KWATCH_FLAVOR=syzkaller scripts/syzkaller.sh check $(B)/syzkaller-kfuzztest.txt
	@KWATCH_FLAVOR=syzkaller scripts/syzkaller.sh config $(SYZ_VMS)

# Watching by name over the whole kernel (issue 31, item 1): the list of
# vmlinux's canaried functions into the image, then the MANUAL suite
# byname_corpus arms a sample of them and of the index's stack variables
# by name; the shares and reasons go to build/byname-report.txt.  A
# smaller sample: KWATCH_CMDLINE=kwatch.corpus_n=N.
byname-corpus: modules host $(GUEST_TARGETS)
	@scripts/byname-corpus.sh list
	@$(MAKE) --no-print-directory image
	@scripts/byname-corpus.sh run

# The storm's cause (issue 29, item 15): the same kernel, image and suite
# under two QEMUs, multi-threaded TCG (scripts/storm-ab.sh).
storm-ab: image
	@scripts/storm-ab.sh

# The series on arm64 (issue 29, item 3): KFuzzTest's generic sections,
# tag-based KASAN and the breakpoint code, cross-built and booted.
cross-test: kernel-tree
	@scripts/cross-test.sh

# kwatchd's system-call fault sweep (issue 30): every call site of a fixed
# scenario failed with each errno that can happen there, one at a time.
fault-sweep: $(B)/unit/kwatchd/kwatchd-san $(B)/daemon/kwatchctl
	@tests/unit/kwatchd/fault-sweep.py --kwatchd $(B)/unit/kwatchd/kwatchd-san \
		--kwatchctl $(B)/daemon/kwatchctl --report $(B)/fault-sweep.txt

test: kernel-tree host $(UNIT_TESTS)
	@$(MAKE) --no-print-directory image
	@scripts/test.sh $(SUITE) $(UNIT_TESTS)

bench: image
	@scripts/bench.sh

stream-profile: host $(B)/guest/opt/kwatch/bin/kwatch-bare
	@scripts/stream-profile.sh

loop-bench: $(B)/daemon/kwatchd
	@scripts/loop-bench.py --kwatchd $(B)/daemon/kwatchd \
		$(if $(LOOP_BENCH_OLD),--old $(LOOP_BENCH_OLD)) | tee $(B)/loop-bench.txt

vm: image
	@scripts/vm.sh shell

# The host's kwatchctl shows the guest's event stream and sums it up.
run: image $(B)/daemon/kwatchctl
	@scripts/vm.sh run

# A bookworm minbase system with only make and git, the checkout cloned in,
# everything built and `make run` run there (CI runs it first).
fresh-check:
	@scripts/fresh-check.sh

clean:
	rm -rf $(B)

FORCE:
