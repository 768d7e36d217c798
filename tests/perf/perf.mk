# tests/perf/perf.mk: the perf_event_open ABI test programs, built three
# ways like tests/abi (abi.mk). Paths are relative to the repository root.
#
# Every tests/perf/NAME.c is one test program (attr, swcount, readfmt,
# ioctl, inherit, cpuwide) using <linux/perf_event.h>, the raw system call
# and POSIX only. It is built
#   build/perf/libc-lite/NAME   against libc-lite (see apps/apps.mk)
#   build/perf/musl/NAME        with musl-gcc -static
#   build/perf/host/NAME        with the host's gcc and glibc, -static
# The same static binaries run on the host Linux (the reference) and on
# baremon.
#
# musl's headers have no <linux/...> or <asm/...>: the musl build finds
# the uapi headers through build/perf/uapi, a directory of links to the
# host's linux/, asm/ and asm-generic/ (and nothing else, so no glibc
# header can stand in for a musl one), searched after musl's own.
#
# Targets:
#   perf-tests       build all three builds of every test
#   perf-host-test   build them and run them on the host:
#                    tests/perf/run-host.sh, last line
#                    "perf-host: N passed, N failed"

include apps/apps.mk   # USER_*; included once however often named
include tests/lib/lib.mk   # TESTLIB_*: the helpers every test links
PERF_SAVED_GOAL := $(.DEFAULT_GOAL)

PERF_NAMES  := $(basename $(notdir $(wildcard tests/perf/*.c)))
PERF_WARN   := -Wall -Wextra -Werror -Wno-unused-parameter
PERF_CFLAGS := -std=gnu11 -O2 -g $(PERF_WARN) -Itests/lib
PERF_LITE   := $(PERF_NAMES:%=build/perf/libc-lite/%)
PERF_MUSL   := $(PERF_NAMES:%=build/perf/musl/%)
PERF_HOST   := $(PERF_NAMES:%=build/perf/host/%)
PERF_DEPS   := $(TESTLIB_HDRS) tests/abi/bare_syscall.h tests/perf/perf.mk
PERF_UAPI   := build/perf/uapi
PERF_ARCH   := /usr/include/$(shell gcc -print-multiarch)

.PHONY: perf-tests perf-host-test
perf-tests: $(PERF_LITE) $(PERF_MUSL) $(PERF_HOST)

$(PERF_UAPI)/.links:
	@mkdir -p $(PERF_UAPI)
	$(USER_Q)ln -sfn /usr/include/linux $(PERF_UAPI)/linux
	$(USER_Q)ln -sfn /usr/include/asm-generic $(PERF_UAPI)/asm-generic
	$(USER_Q)ln -sfn $(PERF_ARCH)/asm $(PERF_UAPI)/asm
	@touch $@

build/perf/libc-lite/%.o: tests/perf/%.c $(PERF_DEPS)
	@mkdir -p $(dir $@)
	$(call USER_SAY,CC,$< [libc-lite])
	$(USER_Q)gcc $(USER_CFLAGS) -Itests/lib -c $< -o $@

build/perf/libc-lite/%: build/perf/libc-lite/%.o $(TESTLIB_LITE) $(USER_CRT0) $(USER_LIB)
	$(call USER_SAY,LD,$@)
	$(USER_Q)ld $(USER_LDFLAGS) -o $@ $(USER_CRT0) $< $(TESTLIB_LITE) $(USER_LIBS)

build/perf/musl/%: tests/perf/%.c $(PERF_DEPS) $(TESTLIB_MUSL) $(PERF_UAPI)/.links
	@mkdir -p $(dir $@)
	$(call USER_SAY,MUSL,$<)
	$(USER_Q)musl-gcc -static $(PERF_CFLAGS) -idirafter $(PERF_UAPI) $< $(TESTLIB_MUSL) -o $@

build/perf/host/%: tests/perf/%.c $(PERF_DEPS) $(TESTLIB_HOST)
	@mkdir -p $(dir $@)
	$(call USER_SAY,GCC,$< [glibc])
	$(USER_Q)gcc -static $(PERF_CFLAGS) $< $(TESTLIB_HOST) -o $@

perf-host-test: perf-tests
	sh tests/perf/run-host.sh

.PRECIOUS: build/perf/libc-lite/%.o
-include $(PERF_NAMES:%=build/perf/libc-lite/%.d)
.DEFAULT_GOAL := $(PERF_SAVED_GOAL)
