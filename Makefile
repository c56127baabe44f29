# learned_idx: a disk-based learned index access method for PostgreSQL 15-19 (PGXS)

EXTENSION = learned_idx
EXTVERSION = 0.1
MODULE_big = learned_idx
OBJS = src/handler.o src/module.o src/keymap.o src/keypack.o src/pla.o src/leco.o \
       src/leafcodec.o src/leaf.o src/page.o src/alloc.o src/directory.o src/writer.o \
       src/build.o src/insert.o src/tail.o src/unique.o src/pending.o src/run.o \
       src/scan.o src/vacuum.o src/merge.o src/inspect.o src/holes.o
DATA = sql/learned_idx--0.1.sql
PGFILEDESC = "learned_idx - learned index access method"

REGRESS = $(patsubst sql/%.sql,%,$(filter-out sql/learned_idx--%.sql,$(sort $(wildcard sql/*.sql))))
REGRESS_OPTS = --inputdir=. --load-extension=$(EXTENSION)
ISOLATION = insert_scan_merge insert_scan_flush scan_sweep merge_vacuum unique_insert unique_build unique_multicol hints privileges rescan_interleave stale_keymap
ISOLATION_OPTS = --load-extension=learned_idx
TAP_TESTS = 1

# The models are stored on disk and re-evaluated on standbys: no FMA contraction.
PG_CFLAGS = -Wall -Wextra -Wno-unused-parameter -Wno-sign-compare \
            -Wno-missing-field-initializers -ffp-contract=off
PG_CPPFLAGS = -DLEARNED_IDX_VERSION='"$(EXTVERSION)"'

# Calls between the library's own functions bind at link time, not through
# the dynamic linker: 16 and later build modules with -fvisibility=hidden,
# which does this, but 15 does not, and with Debian's -z now the loader then
# looked up 195 of the library's own symbols in every scope of the server
# at each backend's first use of the index (0.5M of the 4.7M instructions
# that a new connection's first lookup costs beyond btree's, callgrind; the
# rest is 15's registration of the GUCs).  It also keeps a server symbol of
# the same name from replacing one of ours.
SHLIB_LINK += -Wl,-Bsymbolic

# With -Bsymbolic nothing can interpose on the library's own functions, so
# the compiler may assume so too: 15 compiles modules with -fPIC and
# default visibility, under which GCC neither inlines a global function
# into its callers in the same file nor calls it directly.  (16 and later
# hide the module's symbols, which does the same.)
PG_CFLAGS += -fno-semantic-interposition

# No LLVM bitcode: it would need clang at build time and gains nothing here.
override with_llvm = no

PG_CONFIG ?= pg_config
PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

# Pure-algorithm unit tests (no server needed).
.PHONY: unit-test
unit-test:
	$(MAKE) -C test/unit run

# PGXS does not track header dependencies: without this, an edit to an
# on-disk struct in learned.h leaves stale objects with the old layout.
$(OBJS): src/learned.h src/compat.h src/pla.h src/leco.h src/keypack.h src/leafcodec.h src/holes.h
