# Guest test tools: each tests/vm/tools/NAME.c becomes /opt/kwatch/bin/NAME
# in the guest image.  Included by the top-level Makefile.

GUEST_TOOLS := $(patsubst tests/vm/tools/%.c,$(B)/guest/opt/kwatch/bin/%,\
	$(wildcard tests/vm/tools/*.c))

$(B)/guest/opt/kwatch/bin/%: tests/vm/tools/%.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(WARN) -o $@ $<

GUEST_TARGETS += $(GUEST_TOOLS)
