# libFuzzer harness of KFuzzTest's input parser: lib/kfuzztest/parse.c from
# the kernel tree (the series applied), on the host, through the shim
# headers in tests/fuzz/kfuzztest-shim.  Smoke-run by fuzz-smoke.sh in
# make check (fuzz_kfuzztest_tags too, for a 16-byte KASAN granule); run
# longer by hand:
#	mkdir -p /tmp/c && cp tests/fuzz/corpus/kfuzztest/* /tmp/c
#	build/fuzz/fuzz_kfuzztest -max_total_time=600 /tmp/c
# Included by the top-level Makefile.

$(B)/fuzz/fuzz_kfuzztest: tests/fuzz/fuzz_kfuzztest.c $(wildcard tests/fuzz/kfuzztest-shim/linux/*.h) \
		$(wildcard $(KSRC)/lib/kfuzztest/parse.c $(KSRC)/include/linux/kfuzztest.h) | kernel-tree
	@mkdir -p $(@D)
	clang $(FUZZ_FLAGS) -Itests/fuzz/kfuzztest-shim -I$(KSRC)/include -o $@ $< \
		$(KSRC)/lib/kfuzztest/parse.c

# The same parser and harness for a KASAN granule of 16 bytes (the
# tag-based modes, which x86 has not): the shim's KASAN_GRANULE_SIZE.
$(B)/fuzz/fuzz_kfuzztest_tags: tests/fuzz/fuzz_kfuzztest.c \
		$(wildcard tests/fuzz/kfuzztest-shim/linux/*.h) \
		$(wildcard $(KSRC)/lib/kfuzztest/parse.c $(KSRC)/include/linux/kfuzztest.h) | kernel-tree
	@mkdir -p $(@D)
	clang $(FUZZ_FLAGS) -DCONFIG_KASAN -DSHIM_GRANULE=16 -Itests/fuzz/kfuzztest-shim \
		-I$(KSRC)/include -o $@ $< $(KSRC)/lib/kfuzztest/parse.c

$(B)/unit/kwatchd/fuzz_smoke: $(B)/fuzz/fuzz_kfuzztest $(B)/fuzz/fuzz_kfuzztest_tags
