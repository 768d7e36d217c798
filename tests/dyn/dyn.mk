# tests/dyn/dyn.mk: dynamic programs, built the ordinary way with
# Debian's gcc and g++ (no -static: PIE, glibc's ld.so and shared
# libraries), and the libraries of their own they load. Included by the
# root Makefile. The same binaries run on the host (tests/dyn/run-host.sh)
# and on baremon (tests/qemu/dyn.sh) with the same output.
#
#   build/dyn/dyn-NAME     from tests/dyn/NAME.c (or .cc)
#   build/dyn/libdyn*.so   beside them, found through RUNPATH $ORIGIN

DYN_DIR    := $(BUILD)/dyn
DYN_WARN   := -Wall -Wextra -Werror -Wno-unused-parameter
DYN_CFLAGS := -O2 -g $(DYN_WARN) -Itests/lib
DYN_LIBS   := $(DYN_DIR)/libdyntls.so $(DYN_DIR)/libdynplug.so $(DYN_DIR)/libdynthrow.so
DYN_PROGS  := $(addprefix $(DYN_DIR)/dyn-,hello hello-nopie threads tls dlopen cxx vdso execerr aslr)
DYN_RPATH  := -Wl,-rpath,'$$ORIGIN'

.PHONY: dyn-tests
dyn-tests: $(DYN_PROGS) $(DYN_LIBS)

$(DYN_DIR)/lib%.so: tests/dyn/lib%.c | $(DEPS_OK)
	@mkdir -p $(dir $@)
	$(call say,SO,$<)
	$(Q)gcc -shared -fPIC $(DYN_CFLAGS) -o $@ $<
$(DYN_DIR)/lib%.so: tests/dyn/lib%.cc | $(DEPS_OK)
	@mkdir -p $(dir $@)
	$(call say,SO,$<)
	$(Q)g++ -shared -fPIC $(DYN_CFLAGS) -o $@ $<
$(DYN_DIR)/dyn-hello: tests/dyn/hello.c $(TESTLIB_HOST) | $(DEPS_OK)
	@mkdir -p $(dir $@)
	$(call say,GCC,$< [dynamic PIE])
	$(Q)gcc -pie -fPIE -DPIE=1 $(DYN_CFLAGS) -o $@ $< $(TESTLIB_HOST)
$(DYN_DIR)/dyn-hello-nopie: tests/dyn/hello.c $(TESTLIB_HOST) | $(DEPS_OK)
	@mkdir -p $(dir $@)
	$(call say,GCC,$< [dynamic, not PIE])
	$(Q)gcc -no-pie -fno-PIE -DPIE=0 $(DYN_CFLAGS) -o $@ $< $(TESTLIB_HOST)
$(DYN_DIR)/dyn-tls: tests/dyn/tls.c $(DYN_DIR)/libdyntls.so $(TESTLIB_HOST)
	$(call say,GCC,$< [dynamic])
	$(Q)gcc $(DYN_CFLAGS) -pthread -o $@ $< $(TESTLIB_HOST) -L$(DYN_DIR) -ldyntls $(DYN_RPATH)
$(DYN_DIR)/dyn-cxx: tests/dyn/cxx.cc $(DYN_DIR)/libdynthrow.so $(TESTLIB_HOST)
	$(call say,G++,$< [dynamic])
	$(Q)g++ $(DYN_CFLAGS) -pthread -o $@ $< $(TESTLIB_HOST) -L$(DYN_DIR) -ldynthrow $(DYN_RPATH)
# dlopen's library is beside it, not a dependency of the link.
$(DYN_DIR)/dyn-dlopen: $(DYN_DIR)/libdynplug.so
$(DYN_DIR)/dyn-%: tests/dyn/%.c $(TESTLIB_HOST) | $(DEPS_OK)
	@mkdir -p $(dir $@)
	$(call say,GCC,$< [dynamic])
	$(Q)gcc $(DYN_CFLAGS) -pthread -o $@ $< $(TESTLIB_HOST)
