# SPDX-License-Identifier: LGPL-2.1-or-later
# malloc.mk - libsecpath-malloc.so, the LD_PRELOAD allocator (src/malloc/, docs/MALLOC.md).
# Built from its own sources plus the slab part, all hidden, without the variant's sanitizer
# flags (an ASan runtime cannot be preloaded under arbitrary programs), so every variant builds
# the same kind of library.  `make test` builds it through EXTRA_TEST_DEPS.
MALLOC_SO := $(OUT)/libsecpath-malloc.so
MALLOC_SO_SRC := src/malloc/malloc.c src/slab/arena.c src/slab/cache.c \
	src/slab/harden.c src/base/base.c
MALLOC_SO_HDR := $(wildcard src/slab/*.h src/base/*.h include/secpath/*.h)

$(MALLOC_SO): $(MALLOC_SO_SRC) $(MALLOC_SO_HDR) mk/malloc.mk
	@mkdir -p $(@D)
	$(quiet) LD $@
	$(Q)$(CC) $(CPPFLAGS_ALL) $(CSTD) $(OPT) -g $(WARN) -fno-strict-aliasing -fPIC -fvisibility=hidden \
		-ftls-model=initial-exec -shared -Wl,-z,now -o $@ $(MALLOC_SO_SRC) -lpthread

EXTRA_TEST_DEPS += $(MALLOC_SO)

# `make` (all) builds it too, so `secpath bench malloc` never measures a stale library.
all: $(MALLOC_SO)
