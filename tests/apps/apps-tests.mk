# tests/apps/apps-tests.mk: what tests/apps/stat-host.sh needs besides
# build/apps/stat: build/tests/apps/stat-rows, stat's own row and output
# code (apps/stat/*.c but main.c) driven by readings given on its
# command line (tests/apps/stat-rows.c). Paths are relative to the
# repository root.
#
# Targets:
#   stat-tests         build/apps/stat and build/tests/apps/stat-rows
#   stat-host-test     build them and run tests/apps/stat-host.sh
#   record-host-test   build record, b64 and the musl workload recwork
#                      (the root Makefile's rule) and run
#                      tests/apps/record-host.sh (needs perf: linux-perf)

include apps/apps.mk   # USER_*; included once however often named
APPS_TESTS_SAVED_GOAL := $(.DEFAULT_GOAL)

STAT_ROWS      := build/tests/apps/stat-rows
STAT_LIB_OBJS  := $(patsubst %.c,build/apps/obj/%.o,$(filter-out apps/stat/main.c,$(wildcard apps/stat/*.c)))

.PHONY: stat-tests stat-host-test record-host-test
stat-tests: build/apps/stat $(STAT_ROWS)

build/tests/apps/stat-rows.o: tests/apps/stat-rows.c apps/stat/stat.h tests/apps/apps-tests.mk
	@mkdir -p $(dir $@)
	$(call USER_SAY,CC,$<)
	$(USER_Q)gcc $(USER_CFLAGS) -Iapps/stat $(APPS_LIB_INC) -c $< -o $@

$(STAT_ROWS): build/tests/apps/stat-rows.o $(STAT_LIB_OBJS) $(APPS_LIBS) $(USER_CRT0) $(USER_LIB)
	$(call USER_SAY,LD,$@)
	$(USER_Q)ld $(USER_LDFLAGS) -o $@ $(USER_CRT0) $< $(STAT_LIB_OBJS) $(APPS_LIBS) $(USER_LIBS)

stat-host-test: stat-tests
	sh tests/apps/stat-host.sh

record-host-test: build/apps/record build/apps/b64 build/musl/recwork
	sh tests/apps/record-host.sh

.DEFAULT_GOAL := $(APPS_TESTS_SAVED_GOAL)
