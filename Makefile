# SPDX-License-Identifier: LGPL-2.1-or-later
# secpath - non-recursive Makefile.  Variants build into out/<variant>/:
#   make                 release build (out/release)
#   make SAN=asan        ASan+UBSan, -fno-sanitize-recover=all (out/asan)
#   make DEBUG=3         graded assertions on (out/debug)
# Targets: all, test, run, deps, bench, fuzz-smoke, install, uninstall, clean, check-layering.
# New sources need no edits here: src/*/*.c and src/*/*/*.c (but src/malloc/) form the library, cli/*.c the tool,
# tests/unit/test_*.c and tests/cases/test_*.c cmocka programs, tests/crash/*.c crash programs.

.DEFAULT_GOAL := all
-include config/default.mk

SAN ?=
DEBUG ?= 0
WERROR ?= 1
ifeq ($(SAN),asan)
VARIANT ?= asan
else ifeq ($(SAN),tsan)
VARIANT ?= tsan
else ifneq ($(DEBUG),0)
VARIANT ?= debug
else
VARIANT ?= release
endif
# URCU_LGPL=1 (the default): liburcu's read side inlined (_LGPL_SOURCE) in the units that use
# RCU, which liburcu's README allows for LGPL/GPL-compatible code, as secpath
# (LGPL-2.1-or-later) is.  URCU_LGPL=0 calls liburcu's library functions instead, built into its
# own directory (out/<variant>-nolgpl).  See docs/DESIGN.md (RCU).
URCU_LGPL ?= 1
ifeq ($(SAN),tsan)
# ThreadSanitizer sees RCU through liburcu's calls, annotated by mk/tsan.mk
override URCU_LGPL := 0
endif
OUT := out/$(VARIANT)$(if $(filter 0,$(URCU_LGPL)),$(if $(filter tsan,$(SAN)),,-nolgpl))

CC ?= cc
# Quiet build lines ("  CC  src/slab/cache.c"); V=1 prints the full commands.
V ?= 0
ifeq ($(V),1)
Q :=
quiet = @:
else
Q := @
quiet = @printf '  %-5s %s\n'
endif
OPT ?= -O2
CSTD := -std=c11 -D_GNU_SOURCE
WARN := -Wall -Wextra -Wshadow -Wpointer-arith -Wwrite-strings -Wstrict-prototypes \
	-Wmissing-prototypes -Wformat=2 -Wno-unused-parameter
ifeq ($(WERROR),1)
WARN += -Werror
endif
CPPFLAGS_ALL := -Iinclude -Isrc -DSP_DEBUG=$(DEBUG) -DSP_URCU_LGPL=$(URCU_LGPL) $(EXTRA_CPPFLAGS)
CFLAGS_ALL := $(CSTD) $(OPT) -g -fno-strict-aliasing -fstack-protector-strong -MMD -MP $(WARN) $(EXTRA_CFLAGS)
LDFLAGS_ALL := $(EXTRA_LDFLAGS)
ifeq ($(SAN),asan)
CFLAGS_ALL += -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
LDFLAGS_ALL += -fsanitize=address,undefined
endif
ifeq ($(SAN),tsan)
CFLAGS_ALL += -fsanitize=thread -fno-omit-frame-pointer
LDFLAGS_ALL += -fsanitize=thread
endif
LIBS := -lurcu -llzma -lpthread -lm
TEST_LIBS := -lcmocka -laudit -lsepol

# src/malloc/ is the LD_PRELOAD shim, built on its own by mk/malloc.mk, never part of libsecpath.
LIB_SRC := $(filter-out src/malloc/%,$(sort $(wildcard src/*/*.c src/*/*/*.c)))
LIB_OBJ := $(LIB_SRC:%.c=$(OUT)/obj/%.o)
CLI_SRC := $(sort $(wildcard cli/*.c))
CLI_OBJ := $(CLI_SRC:%.c=$(OUT)/obj/%.o)
TEST_SRC := $(sort $(wildcard tests/unit/test_*.c tests/cases/test_*.c))
TEST_BIN := $(patsubst %.c,$(OUT)/tests/%,$(notdir $(TEST_SRC)))
CRASH_SRC := $(sort $(wildcard tests/crash/*.c))
CRASH_BIN := $(patsubst tests/crash/%.c,$(OUT)/crash/%,$(CRASH_SRC))
TEST_SUPPORT_SRC := $(sort $(wildcard tests/support/*.c))
TEST_SUPPORT_OBJ := $(TEST_SUPPORT_SRC:%.c=$(OUT)/obj/%.o)

FUZZ_SRC := $(sort $(wildcard fuzz/fuzz_*.c))
FUZZ_REPLAY_BIN := $(patsubst fuzz/%.c,$(OUT)/fuzz-replay/%,$(FUZZ_SRC))

STATIC_LIB := $(OUT)/libsecpath.a
VERSION := $(shell sed -n 's/^\#define SP_VERSION_STRING "\(.*\)"/\1/p' include/secpath/secpath.h)
SONAME := libsecpath.so.0
SHARED_LIB := $(OUT)/$(SONAME)
BIN := $(OUT)/secpath

# Per-part make fragments (mk/*.mk) may add targets and append to test-build's prerequisites
# through EXTRA_TEST_DEPS.
-include mk/*.mk

.SECONDARY:
.PHONY: check-functions test-kernel fuzz-build fuzz all lib test test-build run deps bench clean check-layering install uninstall fuzz-smoke
all: $(STATIC_LIB) $(SHARED_LIB) $(BIN)
lib: $(STATIC_LIB) $(SHARED_LIB)

# $(OUT)/build-flags holds the compile flags and changes only when they do; every object depends
# on it, so a change of flags (URCU_LGPL, OPT, EXTRA_CFLAGS...) rebuilds (git's GIT-CFLAGS).
BUILD_FLAGS := $(CC) $(CPPFLAGS_ALL) $(CFLAGS_ALL)
$(OUT)/build-flags: FORCE
	@mkdir -p $(@D)
	@echo '$(BUILD_FLAGS)' | cmp -s - $@ || echo '$(BUILD_FLAGS)' > $@

$(OUT)/obj/src/%.o: src/%.c $(OUT)/build-flags
	@mkdir -p $(@D)
	$(quiet) CC $<
	$(Q)$(CC) $(CPPFLAGS_ALL) -DSECPATH_BUILDING -fPIC -fvisibility=hidden $(CFLAGS_ALL) -c $< -o $@

# The commit the bench HTML page names (src/bench/report_html.c): in a git checkout of this tree
# the abbreviated HEAD, "-dirty" with uncommitted changes; elsewhere (a tarball) "unknown".
# $(OUT)/build-commit changes only when that name does, and report_html.o depends on it.
BUILD_COMMIT := $(or $(shell test -e .git && git describe --always --dirty --exclude='*' 2>/dev/null),unknown)
$(OUT)/build-commit: FORCE
	@mkdir -p $(@D)
	@echo '$(BUILD_COMMIT)' | cmp -s - $@ || echo '$(BUILD_COMMIT)' > $@
$(OUT)/obj/src/bench/report_html.o: $(OUT)/build-commit
$(OUT)/obj/src/bench/report_html.o: CPPFLAGS_ALL += -DSP_BUILD_COMMIT='"$(BUILD_COMMIT)"'
.PHONY: FORCE
FORCE:

$(OUT)/obj/%.o: %.c $(OUT)/build-flags
	@mkdir -p $(@D)
	$(quiet) CC $<
	$(Q)$(CC) $(CPPFLAGS_ALL) $(CFLAGS_ALL) -c $< -o $@

# The units that read under RCU reach liburcu's per-thread reader state (and their own) with the
# initial-exec TLS model: an %fs-relative access instead of a __tls_get_addr call.  libsecpath
# needs static TLS already (the slab's thread caches are initial-exec).
RCU_OBJ := $(OUT)/obj/src/audit/filter/engine.o $(OUT)/obj/src/policy/avc.o
$(RCU_OBJ): CFLAGS_ALL += -ftls-model=initial-exec

$(STATIC_LIB): $(LIB_OBJ)
	@mkdir -p $(@D)
	$(quiet) AR $@
	$(Q)rm -f $@ && ar rcs $@ $^

$(SHARED_LIB): $(LIB_OBJ)
	$(quiet) LD $@
	$(Q)$(CC) -shared -Wl,-soname,$(SONAME) $(LDFLAGS_ALL) -o $@ $^ $(LIBS)
	$(Q)ln -sf $(SONAME) $(OUT)/libsecpath.so

$(BIN): $(CLI_OBJ) $(STATIC_LIB)
	$(quiet) LD $@
	$(Q)$(CC) $(LDFLAGS_ALL) -o $@ $(CLI_OBJ) $(STATIC_LIB) $(LIBS)

$(OUT)/tests/%: $(OUT)/obj/tests/unit/%.o $(TEST_SUPPORT_OBJ) $(STATIC_LIB)
	@mkdir -p $(@D)
	$(quiet) LD $@
	$(Q)$(CC) $(LDFLAGS_ALL) -o $@ $< $(TEST_SUPPORT_OBJ) $(STATIC_LIB) $(TEST_LIBS) $(LIBS)

$(OUT)/tests/%: $(OUT)/obj/tests/cases/%.o $(TEST_SUPPORT_OBJ) $(STATIC_LIB)
	@mkdir -p $(@D)
	$(quiet) LD $@
	$(Q)$(CC) $(LDFLAGS_ALL) -o $@ $< $(TEST_SUPPORT_OBJ) $(STATIC_LIB) $(TEST_LIBS) $(LIBS)

$(OUT)/crash/%: $(OUT)/obj/tests/crash/%.o $(STATIC_LIB)
	@mkdir -p $(@D)
	$(quiet) LD $@
	$(Q)$(CC) $(LDFLAGS_ALL) -o $@ $< $(STATIC_LIB) $(LIBS)

# A fuzz target built with the variant's compiler and fuzz/replay_main.c: replays fuzz/corpus/<name>/.
$(OUT)/fuzz-replay/%: $(OUT)/obj/fuzz/%.o $(OUT)/obj/fuzz/replay_main.o $(STATIC_LIB)
	@mkdir -p $(@D)
	$(quiet) LD $@
	$(Q)$(CC) $(LDFLAGS_ALL) -o $@ $^ $(LIBS)

# libFuzzer builds (clang): make fuzz-smoke [SECONDS=60]; make fuzz TARGET=fuzz_x SECONDS=1800
SECONDS ?= 60
FUZZ_OUT := out/fuzz
fuzz-build:
	@$(MAKE) --no-print-directory CC=clang VARIANT=fuzz WERROR=0 \
		EXTRA_CFLAGS="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all" \
		EXTRA_LDFLAGS="-fsanitize=address,undefined" lib
	@for f in $(FUZZ_SRC); do n=$$(basename $$f .c); \
		clang $(CPPFLAGS_ALL) -std=c11 -D_GNU_SOURCE -O1 -g -fsanitize=fuzzer,address,undefined \
		-fno-sanitize-recover=all $$f -o $(FUZZ_OUT)/$$n $(FUZZ_OUT)/libsecpath.a $(LIBS) || exit 1; done

fuzz-smoke: deps fuzz-build
	@sh scripts/fuzz.sh $(FUZZ_OUT) $(SECONDS) $(FUZZ_SRC)

fuzz: deps fuzz-build
	@sh scripts/fuzz.sh $(FUZZ_OUT) $(SECONDS) fuzz/$(TARGET).c

deps:
	@sh scripts/deps.sh

test-build: all $(TEST_BIN) $(CRASH_BIN) $(FUZZ_REPLAY_BIN) $(EXTRA_TEST_DEPS)

test: deps
	@$(MAKE) --no-print-directory test-build
	@sh scripts/run-tests.sh $(OUT)

run: deps
	@$(MAKE) --no-print-directory all
	$(BIN) bench

bench: all
	$(BIN) bench

test-kernel: all
	@sh scripts/test-kernel.sh

PREFIX ?= /usr/local
DESTDIR ?=
LIBDIR ?= $(PREFIX)/lib
INCDIR ?= $(PREFIX)/include
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man
# The bundled data (rule sets, syscall mixes, policies) goes to DATADIR; the installed tool finds it
# as BINDIR/../share/secpath (or $$SECPATH_DATADIR), so keep DATADIR there.  The LD_PRELOAD
# allocator goes to LIBDIR/secpath/ (it is not a library to link against).
DATADIR ?= $(PREFIX)/share/secpath
DATA_FILES := $(shell find data -type f | sort)
MANPAGES := $(sort $(wildcard man/*.1))
install: all
	install -d $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(INCDIR)/secpath $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1
	install -d $(DESTDIR)$(LIBDIR)/secpath
	install -m 755 $(MALLOC_SO) $(DESTDIR)$(LIBDIR)/secpath/libsecpath-malloc.so
	for f in $(DATA_FILES:data/%=%); do \
		install -D -m 644 data/$$f $(DESTDIR)$(DATADIR)/$$f || exit 1; done
	install -m 644 $(STATIC_LIB) $(DESTDIR)$(LIBDIR)/libsecpath.a
	install -m 755 $(SHARED_LIB) $(DESTDIR)$(LIBDIR)/$(SONAME)
	ln -sf $(SONAME) $(DESTDIR)$(LIBDIR)/libsecpath.so
	install -m 644 include/secpath/*.h $(DESTDIR)$(INCDIR)/secpath/
	install -m 755 $(BIN) $(DESTDIR)$(BINDIR)/secpath
	install -m 644 $(MANPAGES) $(DESTDIR)$(MANDIR)/man1/
	sed -e 's|@PREFIX@|$(PREFIX)|; s|@LIBDIR@|$(LIBDIR)|; s|@INCDIR@|$(INCDIR)|; s|@VERSION@|$(VERSION)|' \
		config/secpath.pc.in > $(DESTDIR)$(LIBDIR)/pkgconfig/secpath.pc

uninstall:
	rm -f $(DESTDIR)$(LIBDIR)/libsecpath.a $(DESTDIR)$(LIBDIR)/$(SONAME) $(DESTDIR)$(LIBDIR)/libsecpath.so
	rm -f $(DESTDIR)$(LIBDIR)/pkgconfig/secpath.pc $(DESTDIR)$(BINDIR)/secpath
	rm -rf $(DESTDIR)$(INCDIR)/secpath
	for m in $(notdir $(MANPAGES)); do rm -f $(DESTDIR)$(MANDIR)/man1/$$m; done
	rm -rf $(DESTDIR)$(DATADIR) $(DESTDIR)$(LIBDIR)/secpath

check-layering:
	@sh scripts/check-layering.sh

# Every function fits in 120 lines (scripts/check-functions.sh names the exemptions' rule).
check-functions:
	@sh scripts/check-functions.sh 120

clean:
	rm -rf out

-include $(LIB_OBJ:.o=.d) $(CLI_OBJ:.o=.d) $(TEST_SRC:%.c=$(OUT)/obj/%.d) $(CRASH_SRC:%.c=$(OUT)/obj/%.d) $(FUZZ_SRC:%.c=$(OUT)/obj/%.d)
