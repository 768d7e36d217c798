# baremon: one `make` builds the loader, the kernel and the EFI system
# partition; `make run` boots it; `make test` runs every test.
# Dependencies are installed on first use by tools/deps.sh.

BUILD      := build
ESP        := $(BUILD)/esp
GCC_INC    := $(shell gcc -print-file-name=include)
UAPI_INC   := -idirafter /usr/include -idirafter /usr/include/x86_64-linux-gnu
VERSION    := $(shell git describe --always --dirty 2>/dev/null || echo dev)
WARN       := -Wall -Wextra -Werror -Wno-unused-parameter
# Kernel code also declares every cross-file function in a header and
# shadows no outer name.
KWARN      := $(WARN) -Wmissing-prototypes -Wshadow

# Kernel: freestanding, higher half, no red zone, no SSE; frame pointers
# kept and no tail calls, so the panic backtrace shows every caller.
KCFLAGS    := -std=c11 -O2 -g $(KWARN) -ffreestanding -nostdinc \
	      -isystem $(GCC_INC) -I. -Ilibc-lite/include $(UAPI_INC) \
	      -fno-pic -fno-pie -mcmodel=kernel -mno-red-zone -mgeneral-regs-only \
	      -fno-stack-protector -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer \
	      -fno-optimize-sibling-calls \
	      -fno-asynchronous-unwind-tables -fno-builtin-printf \
	      -DBAREMON_VERSION='"$(VERSION)"' -MMD -MP
# make DEBUG=1: the kernel's self-checks (heap red zones, poison and
# double frees, spinlock owners, kernel stack guards; docs/testing.md).
# Build it apart: make BUILD=build-debug DEBUG=1.
ifeq ($(DEBUG),1)
KCFLAGS    += -DBAREMON_DEBUG
endif
# make SELFTEST=1: the kernel with its self-tests (every test_*.c and
# the knobs of core/selftest.h); without it (the default: make, make run,
# make image) the kernel links no test code and `selftest` says so.
# `make test` builds one apart, in $(SELFTEST_BUILD) (selftest-esp).
ifeq ($(SELFTEST),1)
KCFLAGS    += -DBAREMON_SELFTEST
endif
KLDFLAGS   := -nostdlib -static -z max-page-size=4096 -T linker.ld \
	      --no-warn-rwx-segments -z noexecstack
NASMFLAGS  := -f elf64 -g -F dwarf -Icore/arch/ -I$(BUILD)/kernel/

# Loader: a GNU-EFI application (PE32+ made from a PIC shared object).
EFI_INC    := -I/usr/include/efi -I/usr/include/efi/x86_64
LCFLAGS    := -std=c11 -O2 $(WARN) -ffreestanding -nostdinc -isystem $(GCC_INC) \
	      $(EFI_INC) -Ilibc-lite/include -Iboot $(UAPI_INC) \
	      -fpic -fshort-wchar -mno-red-zone -maccumulate-outgoing-args \
	      -fno-stack-protector -fno-strict-aliasing -DGNU_EFI_USE_MS_ABI \
	      -MMD -MP
LLDFLAGS   := -nostdlib -shared -Bsymbolic -znocombreloc -L/usr/lib \
	      -T /usr/lib/elf_x86_64_efi.lds /usr/lib/crt0-efi-x86_64.o

LIBC_SRCS  := $(wildcard libc-lite/*.c)
# EXTRA_SRCS/EXTRA_ASM (repo-relative) add work-in-progress files to a
# private build: make BUILD=build-wip EXTRA_SRCS="wip/a.c".
CORE_SRCS  := $(filter-out core/arch/asm_offsets.c,\
	      $(wildcard core/*.c core/*/*.c pmu/*.c pmu/*/*.c pmu/*/*/*.c \
	      ringbuf/*.c export/*.c wire/*.c)) $(EXTRA_SRCS)
ifneq ($(SELFTEST),1)
CORE_SRCS  := $(foreach f,$(filter-out core/selftest_knobs.c,$(CORE_SRCS)),\
	      $(if $(filter test_%.c,$(notdir $(f))),,$(f)))
endif
CORE_ASM   := $(wildcard core/*/*.asm pmu/*/*.asm) $(EXTRA_ASM)
KOBJS      := $(BUILD)/kernel/trampoline.o $(BUILD)/kernel/vdso_image.o \
	      $(CORE_SRCS:%.c=$(BUILD)/kernel/%.o) \
	      $(CORE_ASM:%.asm=$(BUILD)/kernel/%.o) \
	      $(LIBC_SRCS:%.c=$(BUILD)/kernel/%.o)
LOADER_SRCS := boot/loader.c boot/memmap.c boot/pagetables.c \
	       libc-lite/string.c libc-lite/elf64.c
LOBJS      := $(LOADER_SRCS:%.c=$(BUILD)/loader/%.o)

DEPS_OK    := $(BUILD)/.deps-ok

# `make V=1` shows full commands.
ifeq ($(V),1)
Q :=
say = @true
else
Q := @
say = @echo "  $(1)	$(2)"
endif

.PHONY: all boot-big deps kernel loader esp image run test test-loaded unit qemu-test clean musl-tests bench host install \
	lava noise-compare fork-bench fuzz fuzz-build debug-esp selftest-esp selftest-image soak export-bench export-bench-icount \
	perf-test-linux perf-test-compare
all: esp host

# User programs (apps/, libc-lite's user side) and the ABI test programs.
include apps/apps.mk
include tests/abi/abi.mk
include tests/perf/perf.mk
include tests/apps/apps-tests.mk
include tests/dyn/dyn.mk
include tests/cpumodel/cpumodel.mk

# Unmodified musl programs for the process tests: build/musl/NAME.
MUSL_NAMES := $(basename $(notdir $(wildcard tests/musl/*.c)))
MUSL_BINS  := $(MUSL_NAMES:%=$(BUILD)/musl/%)
# The uapi headers (<linux/perf_event.h>) come after musl's own, as for
# tests/perf (perf.mk).
$(BUILD)/musl/%: tests/musl/%.c $(wildcard tests/musl/*.h) $(TESTLIB_MUSL) | $(DEPS_OK) $(PERF_UAPI)/.links
	@mkdir -p $(dir $@)
	$(call say,MUSL,$<)
	$(Q)musl-gcc -static -O2 -g -Wall -Wextra -Werror -Itests/lib $(MUSL_EXTRA) -idirafter $(PERF_UAPI) -o $@ $< $(TESTLIB_MUSL) -lpthread
# record's workload keeps frame pointers: call chains walk through it.
$(BUILD)/musl/recwork: MUSL_EXTRA := -fno-omit-frame-pointer
# kbench tests /dev/kbench through the kernel's interface header.
$(BUILD)/musl/kbench: MUSL_EXTRA := -I.
$(BUILD)/musl/kbench: pmu/kbench/kbench_uapi.h
$(BUILD)/musl/twofunc: MUSL_EXTRA := -fno-omit-frame-pointer
# A static PIE (glibc's gcc -static-pie) for the loader's ET_DYN path.
$(BUILD)/musl/hello-pie: tests/musl/hello.c | $(DEPS_OK)
	@mkdir -p $(dir $@)
	$(call say,PIE,$<)
	$(Q)gcc -static-pie -O2 -Wall -Wextra -Werror -o $@ $<
musl-tests: $(MUSL_BINS) $(BUILD)/musl/hello-pie $(BUILD)/fuzz/fuzz $(BUILD)/fuzz/errnos \
	$(BUILD)/fuzz/exhaust

# The system-call fuzzer (tests/fuzz/, run by tests/qemu/fuzz.sh).
FUZZ_SRCS := tests/fuzz/fuzz.c tests/fuzz/calls.c tests/fuzz/attrgen.c tests/fuzz/mix.c \
	     tests/fuzz/mixcalls.c
$(BUILD)/fuzz/fuzz: $(FUZZ_SRCS) tests/fuzz/fuzz.h tests/fuzz/attrgen.h | $(DEPS_OK) $(PERF_UAPI)/.links
	@mkdir -p $(dir $@)
	$(call say,MUSL,$<)
	$(Q)musl-gcc -static -O2 -g -Wall -Wextra -Werror -Wno-unused-parameter -idirafter $(PERF_UAPI) -o $@ $(FUZZ_SRCS)
# The differential errno fuzzer: one static binary for the host and baremon.
ERRNOS_SRCS := tests/fuzz/errnos.c tests/fuzz/attrgen.c
$(BUILD)/fuzz/errnos: $(ERRNOS_SRCS) tests/fuzz/attrgen.h | $(DEPS_OK) $(PERF_UAPI)/.links
	@mkdir -p $(dir $@)
	$(call say,MUSL,$<)
	$(Q)musl-gcc -static -O2 -g -Wall -Wextra -Werror -Wno-unused-parameter -idirafter $(PERF_UAPI) -o $@ $(ERRNOS_SRCS)
$(BUILD)/fuzz/exhaust: tests/fuzz/exhaust.c $(TESTLIB_MUSL) | $(DEPS_OK) $(PERF_UAPI)/.links
	@mkdir -p $(dir $@)
	$(call say,MUSL,$<)
	$(Q)musl-gcc -static -O2 -g -Wall -Wextra -Werror -Wno-unused-parameter -Itests/lib -idirafter $(PERF_UAPI) -o $@ $< $(TESTLIB_MUSL)

# Instruction counts of basic operations under -icount (DESIGN.md's
# table), on baremon and on Debian's Linux in the same QEMU settings
# (tools/linux-ref.sh; the first run downloads the kernel), as one table
# (docs/bench.md). The program is /bin/opbench: /bin/bench is the harness.
COMPARE := $(BUILD)/compare
bench: esp musl-tests
	@mkdir -p $(COMPARE)
	./run-qemu.sh --icount --smp 2 --cmdline isolcpus=1 --timeout 3600 \
		--add $(BUILD)/musl/bench:/bin/opbench --add $(BUILD)/musl/big1m --run 'opbench 1' | tee $(COMPARE)/bench-baremon.txt
	tools/linux-ref.sh --icount 0 --timeout 3600 --add $(BUILD)/musl/big1m -- $(BUILD)/musl/bench 1 \
		| tee $(COMPARE)/bench-linux.txt || true
	@echo; sh tools/linux-ref/table.sh $(COMPARE)/bench-baremon.txt $(COMPARE)/bench-linux.txt

# The cost of fork as unreaped children pile up (docs/bench.md): the
# same program on baremon and on Debian's Linux in the same QEMU, under
# -icount (TSC ticks are guest instructions), with 2 GiB for the zombies.
FORK_N ?= 100000
FORK_MEM ?= 2G
fork-bench: esp $(BUILD)/musl/forkbench
	@mkdir -p $(COMPARE)
	./run-qemu.sh --icount --smp 2 --mem $(FORK_MEM) --timeout 7200 \
		--add $(BUILD)/musl/forkbench --run 'forkbench $(FORK_N)' | tee $(COMPARE)/fork-baremon.txt
	tools/linux-ref.sh --icount 0 --mem $(FORK_MEM) --timeout 7200 -- $(BUILD)/musl/forkbench $(FORK_N) \
		| tee $(COMPARE)/fork-linux.txt || true

# The export path's figures (docs/export.md, "Measured"): throughput
# over QEMU's socket and a pty, paced or not, upload time, instructions
# per exported byte and the LOST knee under -icount.
export-bench: esp host
	bash host/bench/export-bench.sh
# The -icount figures alone (one boot, ~10 minutes): the cost a byte and
# the sample-rate sweep with its LOST counts.
export-bench-icount: esp host
	bash host/bench/export-bench.sh icount

# noise on both CPUs (CPU 1 isolated) of baremon and of Linux, under
# -icount 4 (docs/noise.md's side-by-side table).
noise-compare: esp
	@mkdir -p $(COMPARE)
	./run-qemu.sh --icount 4 --smp 2 --cmdline isolcpus=1 --timeout 3600 \
		--run 'noise -c 0,1 -s 2' | tee $(COMPARE)/noise-baremon.txt
	tools/linux-ref.sh --icount 4 --timeout 3600 -- $(BUILD)/apps/noise -c 0,1 -s 2 \
		| tee $(COMPARE)/noise-linux.txt || true

# Boot time to the prompt against the CPU count under TCG, QEMU 7.2 and
# QEMU 10 (tools/boot-big.sh; minutes to hours; not in `make test`).
# BOOT_BIG="1 16 64 288" picks the counts.
boot-big: esp
	tools/boot-big.sh $(BOOT_BIG)

deps: $(DEPS_OK)
$(DEPS_OK): tools/deps.sh
	@sh tools/deps.sh
	@mkdir -p $(BUILD) && touch $@

# --- kernel ----------------------------------------------------------------
# The perf fd's quick read is a leaf on the SYSCALL entry's quick path:
# no frame of its own (the backtrace loses nothing, it calls nothing).
$(BUILD)/kernel/pmu/events/self_count_read.o: KCFLAGS += -momit-leaf-frame-pointer
# The switches an object was built with: a change rebuilds every one.
KSWITCHES  := $(BUILD)/kernel/switches
$(shell mkdir -p $(BUILD)/kernel && echo 'DEBUG=$(DEBUG) SELFTEST=$(SELFTEST)' | \
	cmp -s - $(KSWITCHES) 2>/dev/null || echo 'DEBUG=$(DEBUG) SELFTEST=$(SELFTEST)' > $(KSWITCHES))
$(BUILD)/kernel/%.o: %.c Makefile $(KSWITCHES) | $(DEPS_OK)
	@mkdir -p $(dir $@)
	$(call say,CC,$<)
	$(Q)gcc $(KCFLAGS) -c $< -o $@

$(BUILD)/kernel/%.o: %.asm Makefile $(BUILD)/kernel/asm_offsets.inc | $(DEPS_OK)
	@mkdir -p $(dir $@)
	$(call say,NASM,$<)
	$(Q)nasm $(NASMFLAGS) $< -o $@

# Linux's system-call names by number, from the uapi header, for the
# ENOSYS log (core/missing.c): lines '[NR] = "name",'.
$(BUILD)/kernel/syscall_names.h: Makefile | $(DEPS_OK)
	@mkdir -p $(dir $@)
	$(call say,GEN,$@)
	$(Q)echo '#include <asm/unistd_64.h>' | gcc $(UAPI_INC) -E -dM - | \
		sed -n 's/^#define __NR_\([a-z0-9_]*\) \([0-9]*\)$$/[\2] = "\1",/p' | sort -t'[' -k2 -n > $@.tmp
	$(Q)mv $@.tmp $@
$(BUILD)/kernel/core/missing.o: $(BUILD)/kernel/syscall_names.h
$(BUILD)/kernel/core/missing.o: KCFLAGS += -I$(BUILD)/kernel

# Offsets of C structures for the entry code (core/arch/asm_offsets.c).
$(BUILD)/kernel/asm_offsets.inc: core/arch/asm_offsets.c Makefile | $(DEPS_OK)
	@mkdir -p $(dir $@)
	$(call say,GEN,$@)
	$(Q)gcc $(KCFLAGS) -MT $@ -MF $(BUILD)/kernel/asm_offsets.d -S $< -o $@.s
	$(Q)sed -n 's/^[[:space:]]*\.ascii "->\([A-Z_]*\) \$$\{0,1\}\([0-9]*\)"$$/%define \1 \2/p' $@.s > $@.tmp
	$(Q)mv $@.tmp $@

# The SMP trampoline is a flat binary for physical 0x8000, embedded as data.
$(BUILD)/kernel/trampoline.bin: core/arch/trampoline.nasm | $(DEPS_OK)
	@mkdir -p $(dir $@)
	$(call say,NASM,$<)
	$(Q)nasm -f bin $< -o $@
$(BUILD)/kernel/trampoline.o: $(BUILD)/kernel/trampoline.bin
	$(Q)printf 'section .rodata\nglobal trampoline_start, trampoline_end\ntrampoline_start:\nincbin "%s"\ntrampoline_end:\n' $< > $@.asm
	$(Q)nasm $(NASMFLAGS) $@.asm -o $@

# The vDSO (vdso/, core/proc/vdso.h): a shared object of its own, linked
# by its own script with no relocations (it runs wherever it is mapped,
# and its one page of text is shared by every process), embedded as data.
VDSO_CFLAGS := -std=gnu11 -O2 -g $(WARN) -I. $(UAPI_INC) -fPIC -ffreestanding \
	       -fno-stack-protector -fno-builtin -fasynchronous-unwind-tables \
	       -fno-plt -nostdinc -isystem $(GCC_INC) -MMD -MP
$(BUILD)/vdso/vdso.o: vdso/vdso.c vdso/vvar.h Makefile | $(DEPS_OK)
	@mkdir -p $(dir $@)
	$(call say,CC,$< [vdso])
	$(Q)gcc $(VDSO_CFLAGS) -c $< -o $@
# vdso.so.dbg keeps the debug information (gdb's add-symbol-file);
# the kernel carries vdso.so, without it.
$(BUILD)/vdso/vdso.so.dbg: $(BUILD)/vdso/vdso.o vdso/vdso.lds
	$(call say,LD,$@)
	$(Q)ld -shared -T vdso/vdso.lds -soname=linux-vdso.so.1 --hash-style=both \
		--build-id --eh-frame-hdr -z max-page-size=4096 -z noexecstack -o $@ $<
	$(Q)if readelf -r $@ | grep -q '^Relocation section'; then \
		echo "vdso: $@ has relocations" >&2; rm -f $@; exit 1; fi
$(BUILD)/vdso/vdso.so: $(BUILD)/vdso/vdso.so.dbg
	$(Q)objcopy --strip-debug $< $@
$(BUILD)/kernel/vdso_image.o: $(BUILD)/vdso/vdso.so
	@mkdir -p $(dir $@)
	$(Q)printf 'section .rodata align=4096\nglobal vdso_image_start, vdso_image_end\nvdso_image_start:\nincbin "%s"\nvdso_image_end:\n' $< > $@.asm
	$(Q)nasm $(NASMFLAGS) $@.asm -o $@

# Two link passes: the first has an empty symbol table; the second embeds
# the first's function symbols. linker.ld keeps text addresses identical,
# which the last step checks.
$(BUILD)/kernel/ksyms0.asm: tools/gen-ksyms.sh | $(DEPS_OK)
	@mkdir -p $(dir $@)
	$(Q)sh tools/gen-ksyms.sh > $@
$(BUILD)/kernel/pass1.elf: $(KOBJS) $(BUILD)/kernel/ksyms0.o linker.ld
	$(call say,LD,$@)
	$(Q)ld $(KLDFLAGS) -o $@ $(KOBJS) $(BUILD)/kernel/ksyms0.o
$(BUILD)/kernel/ksyms.asm: $(BUILD)/kernel/pass1.elf tools/gen-ksyms.sh
	$(call say,KSYMS,$@)
	$(Q)sh tools/gen-ksyms.sh $< > $@
$(BUILD)/kernel/ksyms%.o: $(BUILD)/kernel/ksyms%.asm
	$(call say,NASM,$<)
	$(Q)nasm $(NASMFLAGS) $< -o $@
$(BUILD)/kernel/ksyms.o: $(BUILD)/kernel/ksyms.asm
	$(call say,NASM,$<)
	$(Q)nasm $(NASMFLAGS) $< -o $@
$(BUILD)/kernel.elf: $(BUILD)/kernel/pass1.elf $(BUILD)/kernel/ksyms.o
	$(call say,LD,$@)
	$(Q)ld $(KLDFLAGS) -o $@ $(KOBJS) $(BUILD)/kernel/ksyms.o
	@sh tools/gen-ksyms.sh $(BUILD)/kernel/pass1.elf | grep '^	dq' > $@.syms1
	@sh tools/gen-ksyms.sh $@ | grep '^	dq' > $@.syms2
	@cmp -s $@.syms1 $@.syms2 || { echo "ksyms: text moved between link passes" >&2; rm -f $@; exit 1; }
kernel: $(BUILD)/kernel.elf

# --- loader ----------------------------------------------------------------
$(BUILD)/loader/%.o: %.c Makefile | $(DEPS_OK)
	@mkdir -p $(dir $@)
	$(call say,CC,$< [loader])
	$(Q)gcc $(LCFLAGS) -c $< -o $@
# libefi defines memcpy and memset itself (init.o): weaken libc-lite's copies
# in the loader so the linker takes one definition without complaint.
$(BUILD)/loader/libc-lite/string.o: libc-lite/string.c | $(DEPS_OK)
	@mkdir -p $(dir $@)
	$(call say,CC,$< [loader])
	$(Q)gcc $(LCFLAGS) -c $< -o $@
	$(Q)objcopy -W memcpy -W memset $@
$(BUILD)/loader/loader.so: $(LOBJS)
	$(call say,LD,$@)
	$(Q)ld $(LLDFLAGS) $(LOBJS) -o $@ -lgnuefi -lefi
$(BUILD)/BOOTX64.EFI: $(BUILD)/loader/loader.so
	$(call say,EFI,$@)
	$(Q)objcopy -j .text -j .sdata -j .data -j .rodata -j .dynamic -j .dynsym \
		-j .rel -j .rela -j '.rel.*' -j '.rela.*' -j .reloc \
		--target efi-app-x86_64 --subsystem=10 $< $@
loader: $(BUILD)/BOOTX64.EFI

# --- EFI system partition (a directory for QEMU's fat: drive) -------------
# Every initrd holds the apps under /bin (tools/mkinitrd.sh).
$(BUILD)/initrd.cpio: tools/mkinitrd.sh $(shell find initrd -type f 2>/dev/null) $(APPS_BINS) | $(DEPS_OK)
	$(call say,INITRD,$@)
	$(Q)sh tools/mkinitrd.sh $@
$(ESP)/.stamp: $(BUILD)/BOOTX64.EFI $(BUILD)/kernel.elf $(BUILD)/initrd.cpio
	@mkdir -p $(ESP)/EFI/BOOT $(ESP)/baremon
	$(call say,ESP,$(ESP))
	$(Q)cp $(BUILD)/BOOTX64.EFI $(ESP)/EFI/BOOT/BOOTX64.EFI
	$(Q)cp $(BUILD)/kernel.elf $(ESP)/baremon/kernel.elf
	$(Q)cp $(BUILD)/initrd.cpio $(ESP)/baremon/initrd.cpio
	@touch $@
esp: $(ESP)/.stamp

# A GPT disk image with GRUB and the same files (dd it to a USB stick).
$(BUILD)/baremon.img: $(ESP)/.stamp tools/mkimage.sh boot/grub.cfg.in
	$(call say,IMAGE,$@)
	$(Q)sh tools/mkimage.sh $(ESP) $@
image: $(BUILD)/baremon.img

# --- host tool: baremon (host/, docs/host.md) --------------------------------
# Built for the host with its C library; wire/'s frame and link code is
# the same source the kernel and the guest agent compile.
PREFIX     ?= /usr/local
# The target's stat, record and bench option parsers and perf's event
# names are compiled in too (host/opts_*.c, host/evcheck.c): the tool
# refuses what the target would, before it boots anything.
HOST_SRCS  := $(wildcard host/*.c) wire/frame.c wire/link.c wire/pack.c \
	      $(addprefix apps/lib/perftool/,opts.c events.c hwcache.c) $(HOST_EXTRA_SRCS)
HOST_OBJS  := $(HOST_SRCS:%.c=$(BUILD)/host/%.o)
HOST_CFLAGS := -std=gnu11 -O2 -g $(WARN) -I. -Iapps/lib/perftool -D_GNU_SOURCE \
	       -DBAREMON_TOP='"$(CURDIR)"' -DBAREMON_VERSION='"$(VERSION)"' -MMD -MP
$(BUILD)/host/%.o: %.c Makefile | $(DEPS_OK)
	@mkdir -p $(dir $@)
	$(call say,HOSTCC,$<)
	$(Q)gcc $(HOST_CFLAGS) -c $< -o $@
$(BUILD)/baremon: $(HOST_OBJS)
	$(call say,LD,$@)
	$(Q)gcc -o $@ $(HOST_OBJS) -lzstd
host: $(BUILD)/baremon
install: $(BUILD)/baremon
	install -D -m 0755 $(BUILD)/baremon $(DESTDIR)$(PREFIX)/bin/baremon

# --- fuzz targets (clang's libFuzzer): the line reader and perf data -----------
FUZZ_CFLAGS := -std=gnu11 -g -O1 -Wall -Wextra -Werror -I. -D_GNU_SOURCE \
	       -DBAREMON_VERSION='"fuzz"' -fsanitize=fuzzer,address,undefined
FUZZ_BINS  := $(BUILD)/fuzz/fuzz_frame $(BUILD)/fuzz/fuzz_perfdata $(BUILD)/fuzz/fuzz_export_rx \
	      $(BUILD)/fuzz/fuzz_pack
$(BUILD)/fuzz/fuzz_frame: tests/fuzz/fuzz_frame.c wire/frame.c wire/link.c | $(DEPS_OK)
	@mkdir -p $(dir $@)
	$(call say,FUZZ,$@)
	$(Q)clang $(FUZZ_CFLAGS) -o $@ $^
$(BUILD)/fuzz/fuzz_perfdata: tests/fuzz/fuzz_perfdata.c host/perfdata.c host/buildid.c host/perfzstd.c \
		wire/frame.c | $(DEPS_OK)
	@mkdir -p $(dir $@)
	$(call say,FUZZ,$@)
	$(Q)clang $(FUZZ_CFLAGS) -o $@ $^ -lzstd
# Misaligned or overflowing accesses stop the run (not only reported).
$(BUILD)/fuzz/fuzz_export_rx: tests/fuzz/fuzz_export_rx.c host/export_rx.c wire/pack.c | $(DEPS_OK)
	@mkdir -p $(dir $@)
	$(call say,FUZZ,$@)
	$(Q)clang $(FUZZ_CFLAGS) -fno-sanitize-recover=undefined -o $@ $^
$(BUILD)/fuzz/fuzz_pack: tests/fuzz/fuzz_pack.c wire/pack.c | $(DEPS_OK)
	@mkdir -p $(dir $@)
	$(call say,FUZZ,$@)
	$(Q)clang $(FUZZ_CFLAGS) -fno-sanitize-recover=undefined -o $@ $^
fuzz-build: $(FUZZ_BINS)
fuzz: $(FUZZ_BINS)
	sh tests/fuzz/run.sh

# --- running and testing -----------------------------------------------------
# From a terminal, stay at the prompt after the default session.
# Under -icount shift=4 the vpmu's counts are exact (docs/pmu.md).
run: esp
	./run-qemu.sh --icount 4 --cmdline isolcpus=1 --session sessions/default.session $$([ -t 0 ] && echo --stay)

unit: | $(DEPS_OK)
	$(MAKE) -C tests/unit check

qemu-test: esp selftest-esp host abi perf-tests musl-tests dyn-tests cpumodel-tests
	sh tests/qemu/run-all.sh

# The LAVA job (tools/lava/, docs/lava.md) under Debian's lava-run: the
# templates validated, the QEMU job run, its test cases checked (about a
# minute; also part of make test, as tests/qemu/lava.sh).
lava: esp
	bash tests/qemu/lava.sh

test: esp selftest-esp debug-esp host fuzz-build abi perf-tests musl-tests stat-tests dyn-tests cpumodel-tests
	sh tests/run-tests.sh

# Debian's perf (the build machine's /usr/bin/perf) runs `perf test` in
# Linux 6.1 under QEMU (tools/perf-test.sh linux, ~12 minutes) and its
# results become the reference tests/qemu/perftest.sh holds baremon to;
# perf-test-compare runs it in both guests live and compares them
# (docs/testing.md).
PERF_TEST_LINUX := tests/perf-test/linux-6.1.tsv
perf-test-linux:
	bash tools/perf-test.sh linux
	{ sed -n '/^# versions:/d; /^#/p' $(PERF_TEST_LINUX); \
	  echo "# versions: $$(/usr/bin/perf --version), $$(cat build/linux-ref/version)"; \
	  cat build/perf-test/linux.tsv; } > build/perf-test/linux-6.1.tsv
	mv build/perf-test/linux-6.1.tsv $(PERF_TEST_LINUX)
perf-test-compare: esp
	bash tools/perf-test.sh linux
	bash tools/perf-test.sh baremon
	PERF_TEST_KNOWN=tests/perf-test/known-gaps.tsv \
		sh tools/perf-test-compare.sh build/perf-test/linux.tsv build/perf-test/baremon.tsv

# The same suite beside a CPU hog (a busy loop per core): it must pass on
# a loaded machine too.
test-loaded: esp selftest-esp debug-esp host fuzz-build abi perf-tests musl-tests stat-tests dyn-tests cpumodel-tests
	sh tests/run-loaded.sh

# The debug kernel (DEBUG=1) in its own build directory: selftest.sh runs
# its checks' self-tests, fuzz.sh fuzzes it, `make soak` fuzzes it for
# SOAK_SECONDS (default an hour) on 4 CPUs, from seed SOAK_SEED (default
# the time).
DEBUG_BUILD ?= build-debug
# Its user programs are the ordinary build's (run-qemu.sh takes them
# from $BAREMON_BUILD/apps; apps.mk builds them in build/apps). It has
# the self-tests too.
debug-esp: apps
	$(MAKE) --no-print-directory BUILD=$(DEBUG_BUILD) DEBUG=1 SELFTEST=1 esp
	ln -sfn $(CURDIR)/build/apps $(DEBUG_BUILD)/apps

# The kernel with its self-tests (SELFTEST=1) in its own build
# directory, for the tests that run them (tests/qemu/lib.sh's
# selftest_build: selftest.sh, session.sh, pmu.sh, boot.sh, image.sh).
SELFTEST_BUILD ?= build-selftest
selftest-esp: apps
	$(MAKE) --no-print-directory BUILD=$(SELFTEST_BUILD) SELFTEST=1 esp
	ln -sfn $(CURDIR)/build/apps $(SELFTEST_BUILD)/apps
selftest-image: selftest-esp
	$(MAKE) --no-print-directory BUILD=$(SELFTEST_BUILD) SELFTEST=1 image
SOAK_SECONDS ?= 3600
SOAK_SEED ?= $(shell date +%s)
soak: debug-esp $(BUILD)/fuzz/fuzz
	BAREMON_BUILD=$(CURDIR)/$(DEBUG_BUILD) ./run-qemu.sh --smp 4 --mem 1G \
		--timeout $$(($(SOAK_SECONDS) + 900)) --add $(BUILD)/fuzz/fuzz \
		--run 'fuzz --soak $(SOAK_SECONDS) --trials 200 $(SOAK_SEED) 2000 4 60'

clean:
	rm -rf $(BUILD) $(DEBUG_BUILD) $(SELFTEST_BUILD)

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
