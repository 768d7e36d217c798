# apps/apps.mk: libc-lite for user programs, and the programs in apps/.
# Included by the root Makefile; paths are relative to the repository root.
#
# Targets:
#   user-libc   build/user/libc-lite.a and build/user/crt0.o: libc-lite
#               (libc-lite/*.c and libc-lite/user/*) built for Linux user
#               mode, the C library of every program below. Its headers:
#               libc-lite/user/include (stdio.h, stdlib.h, string.h with
#               the user-only parts), then libc-lite/include, then the
#               uapi headers from /usr/include (<linux/...>, <asm/...>)
#   apps        build/apps/NAME for each apps/NAME.c (a one-file program)
#               and each directory apps/NAME/ (its *.c make one program)
#   apps-libs   build/apps/lib/libNAME.a for each directory apps/lib/NAME/:
#               code programs share (apps/lib/perftool: stat and record).
#               Every program sees their headers (-Iapps/lib/NAME) and
#               links them all; an archive only gives what is used
#
# To build another program against libc-lite (abi.mk does):
#   gcc $(USER_CFLAGS) -c prog.c -o prog.o
#   ld $(USER_LDFLAGS) -o prog $(USER_CRT0) prog.o $(USER_LIBS)
# The result is a static x86-64 Linux executable: it runs on the host and
# on baremon. `make V=1` shows the commands.

ifndef APPS_MK_INCLUDED
APPS_MK_INCLUDED := 1

# Including this file must not change the includer's default goal.
APPS_SAVED_GOAL := $(.DEFAULT_GOAL)

USER_OUT     := build/user
USER_GCC_INC := $(shell gcc -print-file-name=include)
USER_LIBGCC  := $(shell gcc -print-libgcc-file-name)
USER_CFLAGS  := -std=gnu11 -O2 -g -Wall -Wextra -Werror -Wno-unused-parameter \
		-ffreestanding -nostdinc -isystem $(USER_GCC_INC) \
		-Ilibc-lite/user/include -Ilibc-lite/include \
		-idirafter /usr/include -idirafter /usr/include/x86_64-linux-gnu \
		-fno-pic -fno-pie -static -fno-stack-protector -fno-builtin \
		-fno-omit-frame-pointer -MMD -MP
USER_LDFLAGS := -static -nostdlib -z noexecstack
USER_CRT0    := $(USER_OUT)/crt0.o
USER_LIB     := $(USER_OUT)/libc-lite.a
USER_LIBS    := $(USER_LIB) $(USER_LIBGCC)

USER_SRCS    := $(wildcard libc-lite/*.c) $(wildcard libc-lite/user/*.c)
USER_OBJS    := $(USER_SRCS:%.c=$(USER_OUT)/%.o)

# Quiet unless V=1 (self-contained: the root Makefile's Q/say not needed).
USER_Q   = $(if $(filter 1,$(V)),,@)
USER_SAY = $(if $(filter 1,$(V)),@true,@printf '  %-6s %s\n' '$(1)' '$(2)')

.PHONY: user-libc apps
user-libc: $(USER_LIB) $(USER_CRT0)

$(USER_OUT)/%.o: %.c apps/apps.mk
	@mkdir -p $(dir $@)
	$(call USER_SAY,CC,$<)
	$(USER_Q)gcc $(USER_CFLAGS) -c $< -o $@

$(USER_CRT0): libc-lite/user/crt0.asm
	@mkdir -p $(dir $@)
	$(call USER_SAY,NASM,$<)
	$(USER_Q)nasm -f elf64 -g -F dwarf $< -o $@

$(USER_LIB): $(USER_OBJS)
	$(call USER_SAY,AR,$@)
	$(USER_Q)rm -f $@ && ar rcs $@ $(USER_OBJS)

# --- libraries of the programs ----------------------------------------------
APPS_LIBDIRS := $(patsubst apps/lib/%/,%,$(sort $(dir $(wildcard apps/lib/*/*.c))))
APPS_LIBS    := $(APPS_LIBDIRS:%=build/apps/lib/lib%.a)
APPS_LIB_INC := $(APPS_LIBDIRS:%=-Iapps/lib/%)

.PHONY: apps-libs
apps-libs: $(APPS_LIBS)

define APPS_LIB_AR
build/apps/lib/lib$(1).a: $(patsubst %.c,build/apps/obj/%.o,$(wildcard apps/lib/$(1)/*.c))
	$$(call USER_SAY,AR,$$@)
	$$(USER_Q)mkdir -p $$(dir $$@) && rm -f $$@ && ar rcs $$@ $$^
endef
$(foreach l,$(APPS_LIBDIRS),$(eval $(call APPS_LIB_AR,$(l))))

# --- programs ---------------------------------------------------------------
APPS_ONEFILE := $(basename $(notdir $(wildcard apps/*.c)))
APPS_DIRS    := $(filter-out lib,$(patsubst apps/%/,%,$(sort $(dir $(wildcard apps/*/*.c)))))
APPS_NAMES   := $(APPS_ONEFILE) $(APPS_DIRS)
APPS_BINS    := $(APPS_NAMES:%=build/apps/%)

apps: $(APPS_BINS)

# Objects of apps/NAME.c and apps/NAME/*.c: build/apps/obj/<source>.o
build/apps/obj/%.o: %.c apps/apps.mk
	@mkdir -p $(dir $@)
	$(call USER_SAY,CC,$<)
	$(USER_Q)gcc $(USER_CFLAGS) -I$(dir $<) $(APPS_LIB_INC) $(APPS_EXTRA_INC) -c $< -o $@

# bench shares /dev/kbench's interface header with the kernel.
build/apps/obj/apps/bench/%.o: APPS_EXTRA_INC := -I.

define APPS_LINK
build/apps/$(1): $$(USER_CRT0) $(2) $$(APPS_LIBS) $$(USER_LIB)
	$$(call USER_SAY,LD,$$@)
	$$(USER_Q)ld $$(USER_LDFLAGS) -o $$@ $$(USER_CRT0) $(2) $$(APPS_LIBS) $$(USER_LIBS)
endef
$(foreach a,$(APPS_ONEFILE),$(eval $(call APPS_LINK,$(a),build/apps/obj/apps/$(a).o)))
# APPS_EXTRA_NAME: sources from elsewhere in the tree a program links
# (agent shares wire/'s frame code with the kernel and host/).
APPS_EXTRA_agent := wire/frame.c wire/link.c
build/apps/obj/apps/agent/%.o: USER_CFLAGS += -I.
$(foreach a,$(APPS_DIRS),$(eval $(call APPS_LINK,$(a),\
	$(patsubst %.c,build/apps/obj/%.o,$(wildcard apps/$(a)/*.c) $(APPS_EXTRA_$(a))))))

-include $(USER_OBJS:.o=.d) $(wildcard build/apps/obj/apps/*.d build/apps/obj/apps/*/*.d \
	build/apps/obj/apps/lib/*/*.d)

.DEFAULT_GOAL := $(APPS_SAVED_GOAL)
endif
