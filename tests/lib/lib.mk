# tests/lib/lib.mk: the helper library of the test programs (tests/lib:
# the CHECK harness, perf_event_open helpers, clocks, sysfs, children),
# compiled once for each C library the tests are built with:
#   build/testlib/libc-lite/libtest.a   libc-lite (apps/apps.mk's USER_*)
#   build/testlib/musl/libtest.a        musl-gcc -static
#   build/testlib/host/libtest.a        Debian's gcc and glibc, -fPIC, so
#                                       static and dynamic programs link it
# A test program compiles with -Itests/lib (its "abi.h", "perf.h",
# "rdpmc.h") and links the archive of its flavour after its own objects:
# $(TESTLIB_LITE), $(TESTLIB_MUSL), $(TESTLIB_HOST). Included by
# tests/abi/abi.mk, tests/perf/perf.mk and the root Makefile.

ifndef TESTLIB_MK_INCLUDED
TESTLIB_MK_INCLUDED := 1
include apps/apps.mk
TESTLIB_SAVED_GOAL := $(.DEFAULT_GOAL)

TESTLIB_NAMES  := $(basename $(notdir $(wildcard tests/lib/*.c)))
TESTLIB_HDRS   := $(wildcard tests/lib/*.h) tests/lib/lib.mk
TESTLIB_CFLAGS := -std=gnu11 -O2 -g -Wall -Wextra -Werror -Wno-unused-parameter -Itests/lib
TESTLIB_UAPI   := build/perf/uapi
TESTLIB_LITE   := build/testlib/libc-lite/libtest.a
TESTLIB_MUSL   := build/testlib/musl/libtest.a
TESTLIB_HOST   := build/testlib/host/libtest.a

build/testlib/libc-lite/%.o: tests/lib/%.c $(TESTLIB_HDRS)
	@mkdir -p $(dir $@)
	$(call USER_SAY,CC,$< [libc-lite])
	$(USER_Q)gcc $(USER_CFLAGS) -Itests/lib -c $< -o $@

build/testlib/musl/%.o: tests/lib/%.c $(TESTLIB_HDRS) $(TESTLIB_UAPI)/.links
	@mkdir -p $(dir $@)
	$(call USER_SAY,MUSL,$<)
	$(USER_Q)musl-gcc -static $(TESTLIB_CFLAGS) -idirafter $(TESTLIB_UAPI) -c $< -o $@

build/testlib/host/%.o: tests/lib/%.c $(TESTLIB_HDRS)
	@mkdir -p $(dir $@)
	$(call USER_SAY,GCC,$< [glibc])
	$(USER_Q)gcc -fPIC $(TESTLIB_CFLAGS) -c $< -o $@

$(TESTLIB_LITE): $(TESTLIB_NAMES:%=build/testlib/libc-lite/%.o)
	$(call USER_SAY,AR,$@)
	$(USER_Q)rm -f $@ && ar rcs $@ $^
$(TESTLIB_MUSL): $(TESTLIB_NAMES:%=build/testlib/musl/%.o)
	$(call USER_SAY,AR,$@)
	$(USER_Q)rm -f $@ && ar rcs $@ $^
$(TESTLIB_HOST): $(TESTLIB_NAMES:%=build/testlib/host/%.o)
	$(call USER_SAY,AR,$@)
	$(USER_Q)rm -f $@ && ar rcs $@ $^

.PHONY: testlib
testlib: $(TESTLIB_LITE) $(TESTLIB_MUSL) $(TESTLIB_HOST)

.PRECIOUS: build/testlib/%.o
-include $(TESTLIB_NAMES:%=build/testlib/libc-lite/%.d)
.DEFAULT_GOAL := $(TESTLIB_SAVED_GOAL)
endif
