# tests/abi/abi.mk: the ABI test programs, built three ways.
# Included by the root Makefile; paths are relative to the repository root.
#
# Every tests/abi/NAME.c is one test program written against POSIX and
# Linux interfaces only. It is built
#   build/abi/libc-lite/NAME   against libc-lite (see apps/apps.mk)
#   build/abi/musl/NAME        with musl-gcc -static
#   build/abi/host/NAME        with the host's gcc and glibc, -static
# All three are static x86-64 Linux executables: the same binaries run on
# the host and, from the initrd, on baremon.
#
# Targets:
#   abi             build all three builds of every test
#   abi-host-test   build them and the apps, run everything on the host:
#                   tests/abi/run-host.sh (the ABI tests; last line
#                   "abi-host: N passed, N failed") and
#                   tests/abi/apps-host.sh (the shell and the apps)

include apps/apps.mk   # USER_*; included once however often named
include tests/lib/lib.mk   # TESTLIB_*: the harness every test links
ABI_SAVED_GOAL := $(.DEFAULT_GOAL)

ABI_NAMES  := $(basename $(notdir $(wildcard tests/abi/*.c)))
ABI_WARN   := -Wall -Wextra -Werror -Wno-unused-parameter
ABI_CFLAGS := -std=gnu11 -O2 -g $(ABI_WARN) -Itests/lib
ABI_LITE   := $(ABI_NAMES:%=build/abi/libc-lite/%)
ABI_MUSL   := $(ABI_NAMES:%=build/abi/musl/%)
ABI_HOST   := $(ABI_NAMES:%=build/abi/host/%)
ABI_DEPS   := $(TESTLIB_HDRS) tests/abi/bare_syscall.h tests/abi/abi.mk
# musl-gcc does not see the kernel's uapi headers (<linux/futex.h>):
# the links tests/perf/perf.mk makes for its own musl builds.
ABI_UAPI   := build/perf/uapi

.PHONY: abi abi-host-test
abi: $(ABI_LITE) $(ABI_MUSL) $(ABI_HOST)

build/abi/libc-lite/%.o: tests/abi/%.c $(ABI_DEPS)
	@mkdir -p $(dir $@)
	$(call USER_SAY,CC,$< [libc-lite])
	$(USER_Q)gcc $(USER_CFLAGS) -Itests/lib -c $< -o $@

build/abi/libc-lite/%: build/abi/libc-lite/%.o $(TESTLIB_LITE) $(USER_CRT0) $(USER_LIB)
	$(call USER_SAY,LD,$@)
	$(USER_Q)ld $(USER_LDFLAGS) -o $@ $(USER_CRT0) $< $(TESTLIB_LITE) $(USER_LIBS)

build/abi/musl/%: tests/abi/%.c $(ABI_DEPS) $(TESTLIB_MUSL) $(ABI_UAPI)/.links
	@mkdir -p $(dir $@)
	$(call USER_SAY,MUSL,$<)
	$(USER_Q)musl-gcc -static $(ABI_CFLAGS) -idirafter $(ABI_UAPI) $< $(TESTLIB_MUSL) -o $@

build/abi/host/%: tests/abi/%.c $(ABI_DEPS) $(TESTLIB_HOST)
	@mkdir -p $(dir $@)
	$(call USER_SAY,GCC,$< [glibc])
	$(USER_Q)gcc -static $(ABI_CFLAGS) $< $(TESTLIB_HOST) -o $@

abi-host-test: abi apps
	sh tests/abi/run-host.sh
	sh tests/abi/apps-host.sh

.PRECIOUS: build/abi/libc-lite/%.o
-include $(ABI_NAMES:%=build/abi/libc-lite/%.d)
.DEFAULT_GOAL := $(ABI_SAVED_GOAL)
