# tests/cpumodel/cpumodel.mk: programs built the ordinary way (dynamic,
# Debian's gcc) against the performance libraries tools use, run inside
# baremon on the CPU each vpmu mode shows (tests/qemu/cpumodel.sh,
# tests/qemu/papi.sh). Included by the root Makefile.
#
#   build/cpumodel/pfmcount    libpfm4 (libpfm4-dev)
#   build/cpumodel/papicount   PAPI (libpapi-dev)

CPUMODEL_DIR    := $(BUILD)/cpumodel
CPUMODEL_CFLAGS := -O2 -g -Wall -Wextra -Werror
CPUMODEL_PROGS  := $(CPUMODEL_DIR)/pfmcount $(CPUMODEL_DIR)/papicount

.PHONY: cpumodel-tests
cpumodel-tests: $(CPUMODEL_PROGS)

$(CPUMODEL_DIR)/pfmcount: tests/cpumodel/pfmcount.c tests/cpumodel/loop.h | $(DEPS_OK)
	@mkdir -p $(dir $@)
	$(call say,GCC,$< [dynamic with libpfm])
	$(Q)gcc $(CPUMODEL_CFLAGS) -o $@ $< -lpfm
$(CPUMODEL_DIR)/papicount: tests/cpumodel/papicount.c tests/cpumodel/loop.h | $(DEPS_OK)
	@mkdir -p $(dir $@)
	$(call say,GCC,$< [dynamic with PAPI])
	$(Q)gcc $(CPUMODEL_CFLAGS) -o $@ $< -lpapi
