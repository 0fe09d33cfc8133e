# mlviz - build, test, bench and install.
#
#   make            build ./mlviz
#   make run        install missing packages (when root on Debian), build, start mlviz
#   make test       the whole test suite with -Werror (what CI runs)
#   make asan       the test suite under AddressSanitizer + UBSan
#   make valgrind   unit tests and headless commands under valgrind
#   make bench      speed figures (eval_per_s, sim_ticks_per_s, frame_ms, ...)
#   make install    PREFIX=/usr/local DESTDIR= ; make uninstall
#   make deps       check (and on Debian as root, install) the libraries

PREFIX   ?= /usr/local
DESTDIR  ?=
BINDIR   ?= $(PREFIX)/bin
DATADIR  ?= $(PREFIX)/share/mlviz
MANDIR   ?= $(PREFIX)/share/man/man1
VERSION  := 0.1.0

CC       ?= cc
PKGS     := ncursesw yaml-0.1 lua5.4
TEST_PKGS := cmocka
BUILD    ?= build
WERROR   ?= 0
SANITIZE ?=

PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null)
TEST_LIBS  := $(shell pkg-config --libs $(TEST_PKGS) 2>/dev/null)

WARN     := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wformat=2 \
            -Wno-format-nonliteral -Wpointer-arith -Wvla
ifeq ($(WERROR),1)
WARN     += -Werror
endif
OPT      ?= -O2 -g
CPPFLAGS += -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -Iengine -Itui \
            -DMLVIZ_VERSION='"$(VERSION)"' -DMLVIZ_DATADIR='"$(DATADIR)"'
CFLAGS   += -std=c11 $(OPT) $(WARN) $(PKG_CFLAGS)
LDLIBS   += $(PKG_LIBS) -lm
ifneq ($(SANITIZE),)
CFLAGS   += -fsanitize=$(SANITIZE) -fno-omit-frame-pointer -fno-sanitize-recover=all
LDFLAGS  += -fsanitize=$(SANITIZE)
endif

ENGINE_SRC := $(sort $(wildcard engine/*.c))
TUI_SRC    := $(sort $(wildcard tui/*.c))
ENGINE_OBJ := $(ENGINE_SRC:%.c=$(BUILD)/%.o)
TUI_OBJ    := $(TUI_SRC:%.c=$(BUILD)/%.o)
TUI_LIB_OBJ := $(filter-out $(BUILD)/tui/main.o,$(TUI_OBJ))
ENGINE_LIB := $(BUILD)/libmlviz-engine.a
TUI_LIB    := $(BUILD)/libmlviz-tui.a

TEST_SRC   := $(sort $(wildcard tests/unit/test_*.c tests/validation/test_*.c))
TEST_BIN   := $(TEST_SRC:tests/%.c=$(BUILD)/tests/%)
BENCH_SRC  := $(sort $(wildcard tests/bench/*.c))
BENCH_BIN  := $(BENCH_SRC:tests/%.c=$(BUILD)/tests/%)
FUZZ_SRC   := $(sort $(wildcard tests/fuzz/*.c))

BIN        := mlviz

.PHONY: all run test test-build asan valgrind bench install uninstall clean deps deps-test \
        check-tools fuzz format

all: $(BIN) $(BUILD)/mlviz.1

# The man page's key list comes from the key table (tui/keys.c) via `mlviz keys --man`.
$(BUILD)/mlviz.1: docs/mlviz.1.in $(BIN)
	@mkdir -p $(dir $@)
	@$(abspath $(BIN)) keys --man > $@.keys
	@sed -e 's/@VERSION@/$(VERSION)/' -e '/@KEYS@/{r $@.keys' -e 'd}' docs/mlviz.1.in > $@
	@rm -f $@.keys

$(BIN): $(TUI_OBJ) $(ENGINE_LIB)
	$(CC) $(LDFLAGS) -o $@ $(TUI_OBJ) $(ENGINE_LIB) $(LDLIBS)

$(ENGINE_LIB): $(ENGINE_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(TUI_LIB): $(TUI_LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -c -o $@ $<

# Unit and validation tests: one cmocka program per file, linked with the
# engine and the (ncurses-free parts of the) front end.
$(BUILD)/tests/%: tests/%.c $(ENGINE_LIB) $(TUI_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $< $(TUI_LIB) $(ENGINE_LIB) $(LDFLAGS) $(LDLIBS) $(TEST_LIBS)

-include $(ENGINE_OBJ:.o=.d) $(TUI_OBJ:.o=.d)

# ---- packages -------------------------------------------------------------
# Debian package names for what the build and the tests need.
DEB_BUILD := build-essential pkg-config libncurses-dev libyaml-dev liblua5.4-dev
DEB_TEST  := libcmocka-dev tmux python3 valgrind

deps:
	@MISSING_PKGS="$(PKGS)" DEB="$(DEB_BUILD)" sh tests/deps.sh

deps-test:
	@MISSING_PKGS="$(PKGS) $(TEST_PKGS)" DEB="$(DEB_BUILD) $(DEB_TEST)" \
	 TOOLS="tmux python3" sh tests/deps.sh

run: deps
	@$(MAKE) --no-print-directory all
	./$(BIN)

# ---- tests ------------------------------------------------------------------
test: deps-test
	@$(MAKE) --no-print-directory WERROR=1 test-build
	@BUILD=$(BUILD) sh tests/run.sh

test-build: $(BIN) $(BUILD)/mlviz.1 $(TEST_BIN)

asan: deps-test
	@$(MAKE) --no-print-directory WERROR=1 BUILD=build-asan SANITIZE=address,undefined \
	  OPT="-O1 -g" test-build BIN=build-asan/mlviz
	@ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1 \
	  BUILD=build-asan MLVIZ_BIN=build-asan/mlviz sh tests/run.sh

valgrind: deps-test
	@$(MAKE) --no-print-directory WERROR=1 test-build
	@BUILD=$(BUILD) VALGRIND=1 sh tests/run.sh

bench: deps
	@$(MAKE) --no-print-directory OPT="-O3 -g -march=native" BUILD=build-bench \
	  BIN=build-bench/mlviz build-bench/mlviz $(BENCH_SRC:tests/%.c=build-bench/tests/%)
	@BUILD=build-bench MLVIZ_BIN=build-bench/mlviz sh tests/bench/run.sh

fuzz:
	@$(MAKE) --no-print-directory CC=clang BUILD=build-fuzz \
	  SANITIZE=fuzzer-no-link,address,undefined build-fuzz/libmlviz-engine.a
	@for f in $(FUZZ_SRC); do n=$$(basename $$f .c); \
	  clang $(CPPFLAGS) -std=c11 -g -O1 $(PKG_CFLAGS) -fsanitize=fuzzer,address,undefined \
	    -o build-fuzz/$$n $$f build-fuzz/libmlviz-engine.a $(PKG_LIBS) -lm || exit 1; \
	  mkdir -p build-fuzz/corpus-$$n; \
	  build-fuzz/$$n -max_total_time=$${FUZZ_SECONDS:-30} build-fuzz/corpus-$$n \
	    tests/setups/bad tests/setups/good || exit 1; done

format:
	clang-format -i engine/*.[ch] tui/*.[ch] tests/*/*.c

# ---- install ----------------------------------------------------------------
install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(DATADIR) $(DESTDIR)$(MANDIR)
	install -m 755 $(BIN) $(DESTDIR)$(BINDIR)/mlviz
	cp -R assets scenarios scripts $(DESTDIR)$(DATADIR)/
	install -m 644 $(BUILD)/mlviz.1 $(DESTDIR)$(MANDIR)/mlviz.1

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/mlviz $(DESTDIR)$(MANDIR)/mlviz.1
	rm -rf $(DESTDIR)$(DATADIR)

clean:
	rm -rf build build-asan build-bench build-fuzz $(BIN)
