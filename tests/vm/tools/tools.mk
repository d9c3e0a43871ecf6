# Guest test tools: each tests/vm/tools/NAME.c becomes /opt/kwatch/bin/NAME
# in the guest image.  Included by the top-level Makefile.

GUEST_TOOLS := $(patsubst tests/vm/tools/%.c,$(B)/guest/opt/kwatch/bin/%,\
	$(wildcard tests/vm/tools/*.c))

$(B)/guest/opt/kwatch/bin/%: tests/vm/tools/%.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(WARN) -o $@ $<

GUEST_TARGETS += $(GUEST_TOOLS)

# kwatch-bare: the bare libbpf reader kwatchd's event path is measured
# against; it loads kwatchd's own BPF object through the skeleton.
$(B)/guest/opt/kwatch/bin/kwatch-bare: tests/vm/tools/bpf/kwatch-bare.c \
		$(BPF_OUT)/kwatch.skel.h bpf/kwatch.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(WARN) -std=gnu11 -D_GNU_SOURCE -I$(BPF_OUT) -Ibpf -o $@ $< $(LIBBPF_LIBS)

GUEST_TARGETS += $(B)/guest/opt/kwatch/bin/kwatch-bare

# kfuzztest-bridge, from the series' tools/kfuzztest-bridge in the kernel
# tree (which exists once kernel-tree has run).
BRIDGE_SRCS = $(wildcard $(KSRC)/tools/kfuzztest-bridge/*.[ch])
BRIDGE_DIR = $(KSRC)/tools/kfuzztest-bridge
BRIDGE_COMMON = $(addprefix $(BRIDGE_DIR)/,derive.c encoder.c report.c schema.c)

$(B)/guest/opt/kwatch/bin/kfuzztest-bridge: $(BRIDGE_SRCS) | kernel-tree
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(WARN) -std=gnu11 -o $@ $(BRIDGE_DIR)/bridge.c $(BRIDGE_COMMON) \
		$(LIBBPF_LIBS)

# kfuzztest-fuzz: the same encoder under libFuzzer (clang's runtime, from
# libclang-rt-14-dev), steered by KCOV.  The objects are gcc's; clang links.
FUZZ_OBJ_DIR = $(B)/host/kfuzztest-fuzz.o
$(B)/guest/opt/kwatch/bin/kfuzztest-fuzz: $(BRIDGE_SRCS) | kernel-tree
	@mkdir -p $(@D) $(FUZZ_OBJ_DIR)
	for f in fuzz $(basename $(notdir $(BRIDGE_COMMON))); do \
		$(CC) $(CFLAGS) $(WARN) -std=gnu11 -c -o $(FUZZ_OBJ_DIR)/$$f.o $(BRIDGE_DIR)/$$f.c \
			|| exit 1; \
	done
	clang -fsanitize=fuzzer -o $@ $(FUZZ_OBJ_DIR)/*.o $(LIBBPF_LIBS)

GUEST_TARGETS += $(B)/guest/opt/kwatch/bin/kfuzztest-bridge $(B)/guest/opt/kwatch/bin/kfuzztest-fuzz

# The host test of the bridge: encodes known schemas from a known stream
# and checks the bytes, the errors and their positions; derives schemas
# from the BTF of structures compiled in the test (gcc -gbtf).
$(B)/unit/kfuzztest_bridge: tests/unit/kfuzztest-bridge.sh tests/unit/check.sh $(BRIDGE_SRCS) | kernel-tree
	@mkdir -p $(@D)/kfuzztest-bridge.d
	$(CC) $(CFLAGS) $(WARN) $(SAN) -std=gnu11 -o $(@D)/kfuzztest-bridge.d/kfuzztest-bridge \
		$(BRIDGE_DIR)/bridge.c $(BRIDGE_COMMON) $(LIBBPF_LIBS)
	sed -e 's|@BRIDGE@|$(CURDIR)/$(@D)/kfuzztest-bridge.d/kfuzztest-bridge|' \
		-e 's|@TOP@|$(CURDIR)|' $< >$@
	chmod +x $@

UNIT_TESTS += $(B)/unit/kfuzztest_bridge

# kfuzztest-list: the targets, constraints and annotations recorded in a
# built vmlinux or module (host tool, libelf).  The image carries its listing of the
# kernel it boots, for the kfuzztest suite to compare with debugfs.

# With --check-syzkaller and --syzlang, syzkaller's view of them
# (kfuzztest-syz.c, libdw).
KFT_LIST_SRCS := tests/host/kfuzztest-list.c tests/host/kfuzztest-syz.c
$(B)/host/kfuzztest-list: $(KFT_LIST_SRCS) tests/host/kfuzztest-list.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(WARN) -o $@ $(KFT_LIST_SRCS) -ldw -lelf

# Its host test on a module (.ko) of records compiled in the test, and on
# the same records linked as a vmlinux; the tool built with the sanitizers.
$(B)/unit/kfuzztest_list_ko: tests/unit/kfuzztest-list-ko.sh tests/unit/check.sh \
		$(KFT_LIST_SRCS) tests/host/kfuzztest-list.h
	@mkdir -p $(@D)/kfuzztest-list-ko.d
	$(CC) $(CFLAGS) $(WARN) $(SAN) -o $(@D)/kfuzztest-list-ko.d/kfuzztest-list \
		$(KFT_LIST_SRCS) -ldw -lelf
	sed -e 's|@KLIST@|$(CURDIR)/$(@D)/kfuzztest-list-ko.d/kfuzztest-list|' \
		-e 's|@TOP@|$(CURDIR)|' $< >$@
	chmod +x $@

UNIT_TESTS += $(B)/unit/kfuzztest_list_ko

# syzkaller's rules over the built test kernel, and the syzlang it derives.
$(B)/unit/kfuzztest_syzkaller: tests/unit/kfuzztest-syzkaller.sh tests/unit/syzlang-check.py \
		$(B)/host/kfuzztest-list | kernel-tree
	@mkdir -p $(@D)
	sed -e 's|@KLIST@|$(CURDIR)/$(B)/host/kfuzztest-list|' -e 's|@TOP@|$(CURDIR)|' \
		-e 's|@KSRC@|$(KSRC)|' -e 's|@KBUILD@|$(KWATCH_KBUILD)|' $< >$@
	chmod +x $@

UNIT_TESTS += $(B)/unit/kfuzztest_syzkaller

$(B)/guest/opt/kwatch/kfuzztest-targets.txt: $(B)/host/kfuzztest-list FORCE | modules
	@mkdir -p $(@D)
	$< $(KWATCH_KBUILD)/vmlinux >$@.tmp && mv $@.tmp $@

GUEST_TARGETS += $(B)/guest/opt/kwatch/kfuzztest-targets.txt

# The same tool in the guest, for a module's targets (kfuzztest-list M.ko).
$(B)/guest/opt/kwatch/bin/kfuzztest-list: $(B)/host/kfuzztest-list
	@mkdir -p $(@D)
	cp $< $@

GUEST_TARGETS += $(B)/guest/opt/kwatch/bin/kfuzztest-list

# The series' function names in the kernel the image boots, for the fault
# suite to tell the series' leaks from 6.1's (scripts/series-functions.sh).
$(B)/guest/opt/kwatch/series-functions.txt: FORCE | modules
	@mkdir -p $(@D)
	@scripts/series-functions.sh >$@.tmp && mv $@.tmp $@

GUEST_TARGETS += $(B)/guest/opt/kwatch/series-functions.txt

# Where the packages put them, for kwatchd's generate = yes (fuzz.d).
$(B)/guest/usr/bin/kfuzztest-bridge: $(B)/guest/opt/kwatch/bin/kfuzztest-bridge
	@mkdir -p $(@D)
	cp $< $@
$(B)/guest/usr/bin/kfuzztest-fuzz: $(B)/guest/opt/kwatch/bin/kfuzztest-fuzz
	@mkdir -p $(@D)
	cp $< $@
$(B)/guest/usr/share/kwatch/kfuzztest-targets.txt: $(B)/guest/opt/kwatch/kfuzztest-targets.txt
	@mkdir -p $(@D)
	cp $< $@

GUEST_TARGETS += $(B)/guest/usr/bin/kfuzztest-bridge $(B)/guest/usr/bin/kfuzztest-fuzz \
	$(B)/guest/usr/share/kwatch/kfuzztest-targets.txt

# Valid inputs for the crypto targets, made once with openssl: a PKCS#1
# RSA key pair (DER) and a PKCS#7 signed message with its certificate.
KFT_INPUTS := $(B)/guest/opt/kwatch/kfuzztest-inputs
$(KFT_INPUTS)/pkcs7.der:
	@mkdir -p $(@D)
	openssl genrsa -out $(@D)/key.pem 2048 2>/dev/null
	openssl rsa -in $(@D)/key.pem -traditional -outform DER -out $(@D)/rsa_priv.der 2>/dev/null
	openssl rsa -in $(@D)/key.pem -RSAPublicKey_out -outform DER -out $(@D)/rsa_pub.der 2>/dev/null
	openssl req -new -x509 -key $(@D)/key.pem -subj /CN=kwatch -days 3650 -out $(@D)/cert.pem
	echo "signed by kwatch" >$(@D)/data
	openssl smime -sign -binary -noattr -md sha256 -nodetach -in $(@D)/data \
		-signer $(@D)/cert.pem -inkey $(@D)/key.pem -outform DER -out $@
	rm -f $(@D)/key.pem

GUEST_TARGETS += $(KFT_INPUTS)/pkcs7.der

# The README, for the readme suite, which runs its quick starts' guest
# blocks as written.
$(B)/guest/opt/kwatch/README.md: README.md
	@mkdir -p $(@D)
	cp $< $@

GUEST_TARGETS += $(B)/guest/opt/kwatch/README.md
