# kwatchd's BPF programs, in the libbpf-bootstrap shape: kwatch.bpf.c is
# compiled with clang against a vmlinux.h dumped from the BTF of the kernel
# the series builds, and bpftool turns the object into kwatch.skel.h for
# the loader (kwatch.c, whose API for the daemon is kwatch-loader.h; it
# is built into kwatchd by daemon/daemon.mk).  Included by the top-level
# Makefile.

BPF_OUT := $(B)/bpf
BPF_CLANG := clang
BPF_ARCH := x86

# The kernel is built first when there is none yet; once there is, a newer
# vmlinux regenerates the header on the next make.
$(BPF_OUT)/vmlinux.h: $(wildcard $(KWATCH_KBUILD)/vmlinux)
	@mkdir -p $(@D)
	@[ -f $(KWATCH_KBUILD)/vmlinux ] || $(MAKE) --no-print-directory kernel
	bpftool btf dump file $(KWATCH_KBUILD)/vmlinux format c >$@.tmp
	mv $@.tmp $@

$(BPF_OUT)/kwatch.bpf.o: bpf/kwatch.bpf.c bpf/kwatch.h $(BPF_OUT)/vmlinux.h
	$(BPF_CLANG) -g -O2 -Wall -Werror -target bpf -D__TARGET_ARCH_$(BPF_ARCH) \
		-I$(BPF_OUT) -Ibpf -c $< -o $@.tmp
	bpftool gen object $@ $@.tmp
	rm -f $@.tmp

$(BPF_OUT)/kwatch.skel.h: $(BPF_OUT)/kwatch.bpf.o
	bpftool gen skeleton $< name kwatch_bpf >$@.tmp
	mv $@.tmp $@
