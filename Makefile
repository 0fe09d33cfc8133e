# mlviz - build, test, bench and install.
#
#   make            build ./mlviz
#   make run        install missing packages (when root on Debian), build, start mlviz
#   make docs       rewrite README's and docs/' generated blocks (tests/docsync.py)
#   make test       the whole test suite with -Werror (what CI runs); the suites
#                   run side by side (MLVIZ_TEST_JOBS=10; MLVIZ_TEST_TIMES=1 shows
#                   each one's time); see tests/run.sh
#   make check-layers, check-sizes, check-format   the structure checks alone
#   make asan       the test suite under AddressSanitizer + UBSan
#                   (MLVIZ_TEST_HEADLESS=1: without the tmux suites)
#   make clang      everything built with clang and -Werror (build-clang/)
#   make valgrind   unit tests and headless commands under valgrind
#   make tsan       the planner's threads under ThreadSanitizer (tests/tsan.sh)
#   make fuzz       every tests/fuzz/fuzz_*.c for FUZZ_SECONDS (default 30) each
#   make bench      speed figures in CPU and wall time, the median of
#                   BENCH_RUNS=3, against tests/bench/goals (exit 1 on a miss)
#   make install    PREFIX=/usr/local DESTDIR= ; make uninstall
#   make deps       check (and on Debian as root, install) the libraries
#
# CPPFLAGS, CFLAGS, LDFLAGS and LDLIBS given on the command line or in the
# environment are added to the flags mlviz needs (make CFLAGS=-O0 works).

PREFIX   ?= /usr/local
DESTDIR  ?=
BINDIR   ?= $(PREFIX)/bin
DATADIR  ?= $(PREFIX)/share/mlviz
MANDIR   ?= $(PREFIX)/share/man/man1
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR  ?= $(PREFIX)/share/zsh/site-functions
FISHCOMPDIR ?= $(PREFIX)/share/fish/vendor_completions.d
VERSION  := 0.1.0

CC       ?= cc
PKGS     := ncursesw yaml-0.1 lua5.4
TEST_PKGS := cmocka
BUILD    ?= build
WERROR   ?= 0
SANITIZE ?=

# Each layer compiles with the flags of the libraries it may use, and no more:
# the engine sees libyaml only, engine/lua/ adds Lua, tui/cli/ (the headless
# commands) never sees ncurses, and the screen (tui/, tui/views/) sees all.
# `make check-layers` (tests/layers.sh) checks which headers each layer includes.
YAML_CFLAGS := $(shell pkg-config --cflags yaml-0.1 2>/dev/null)
LUA_CFLAGS  := $(shell pkg-config --cflags lua5.4 2>/dev/null)
PKG_CFLAGS  := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
YAML_LIBS   := $(shell pkg-config --libs yaml-0.1 2>/dev/null)
LUA_LIBS    := $(shell pkg-config --libs lua5.4 2>/dev/null)
PKG_LIBS    := $(shell pkg-config --libs $(PKGS) 2>/dev/null)
TEST_LIBS   := $(shell pkg-config --libs $(TEST_PKGS) 2>/dev/null)

WARN     := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wformat=2 \
            -Wno-format-nonliteral -Wpointer-arith -Wvla
ifeq ($(WERROR),1)
WARN     += -Werror
endif
OPT      ?= -O2 -g

ENGINE_DIRS := engine/core engine/model engine/sched engine/sim engine/io engine/plan
LUA_DIRS    := engine/lua
CLI_DIRS    := tui/cli
SCREEN_DIRS := tui tui/views
# The flags mlviz needs live in their own variables; the user's come after.
MLVIZ_CPPFLAGS := -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE \
            -DMLVIZ_VERSION='"$(VERSION)"' -DMLVIZ_DATADIR='"$(DATADIR)"'
ALL_INC  := $(addprefix -I,$(ENGINE_DIRS) $(LUA_DIRS) $(CLI_DIRS) $(SCREEN_DIRS))
# Layers the compiler enforces: each directory compiles with -I for itself
# and the layers below it only (docs/STYLE.md, Layers), so an upward
# include ("views.h" in engine/model/) is not found; the directories of
# tests/layers/ put an #error in front of the library headers a layer may
# not use (<curses.h> in the engine and tui/cli, <lua.h> in the engine
# below engine/lua). tests/layers_compile.sh tries both; tests/layers.sh
# checks what paths cannot say (tui/cli sees tui.h only, views no app.h).
INC_CORE   := engine/core
INC_MODEL  := $(INC_CORE) engine/model
INC_SCHED  := $(INC_MODEL) engine/sched
INC_SIM    := $(INC_MODEL) engine/sim
INC_PLAN   := $(INC_SCHED) engine/plan
INC_IO     := $(INC_SCHED) engine/sim engine/plan engine/io
INC_LUA    := $(ENGINE_DIRS) $(LUA_DIRS)
INC_CLI    := tests/layers/no-screen $(INC_LUA) $(CLI_DIRS) tui
INC_SCREEN := $(INC_LUA) $(SCREEN_DIRS)
NO_LIBS    := tests/layers/no-screen tests/layers/no-lua
$(BUILD)/engine/core/%.o:  LAYER_INC = $(NO_LIBS) $(INC_CORE)
$(BUILD)/engine/model/%.o: LAYER_INC = $(NO_LIBS) $(INC_MODEL)
$(BUILD)/engine/sched/%.o: LAYER_INC = $(NO_LIBS) $(INC_SCHED)
$(BUILD)/engine/sim/%.o:   LAYER_INC = $(NO_LIBS) $(INC_SIM)
$(BUILD)/engine/plan/%.o:  LAYER_INC = $(NO_LIBS) $(INC_PLAN)
$(BUILD)/engine/io/%.o:    LAYER_INC = $(NO_LIBS) $(INC_IO)
$(BUILD)/engine/lua/%.o:   LAYER_INC = tests/layers/no-screen $(INC_LUA)
$(BUILD)/tui/cli/%.o:      LAYER_INC = $(INC_CLI)
$(BUILD)/tui/%.o:          LAYER_INC = $(INC_SCREEN)
MLVIZ_CFLAGS   := -std=c11 $(OPT) $(WARN)
MLVIZ_LDFLAGS  :=
MLVIZ_LDLIBS   := $(PKG_LIBS) -lm
ifneq ($(SANITIZE),)
MLVIZ_CFLAGS   += -fsanitize=$(SANITIZE) -fno-omit-frame-pointer -fno-sanitize-recover=all
MLVIZ_LDFLAGS  += -fsanitize=$(SANITIZE)
endif
COMPILE  = $(CC) $(MLVIZ_CPPFLAGS) $(addprefix -I,$(LAYER_INC)) $(CPPFLAGS) $(MLVIZ_CFLAGS) \
           $(LAYER_CFLAGS) $(CFLAGS)

layer_src = $(sort $(foreach d,$(1),$(wildcard $(d)/*.c)))
ENGINE_SRC := $(call layer_src,$(ENGINE_DIRS))
LUA_SRC    := $(call layer_src,$(LUA_DIRS))
CLI_SRC    := $(filter-out tui/cli/main.c,$(call layer_src,$(CLI_DIRS)))
SCREEN_SRC := $(call layer_src,$(SCREEN_DIRS))
ENGINE_OBJ := $(ENGINE_SRC:%.c=$(BUILD)/%.o)
LUA_OBJ    := $(LUA_SRC:%.c=$(BUILD)/%.o)
CLI_OBJ    := $(CLI_SRC:%.c=$(BUILD)/%.o)
SCREEN_OBJ := $(SCREEN_SRC:%.c=$(BUILD)/%.o)
MAIN_OBJ   := $(BUILD)/tui/cli/main.o
ALL_OBJ    := $(ENGINE_OBJ) $(LUA_OBJ) $(CLI_OBJ) $(SCREEN_OBJ) $(MAIN_OBJ)
ENGINE_LIB := $(BUILD)/libmlviz-engine.a
LUA_LIB    := $(BUILD)/libmlviz-lua.a
CLI_LIB    := $(BUILD)/libmlviz-cli.a
SCREEN_LIB := $(BUILD)/libmlviz-screen.a

$(ENGINE_OBJ): LAYER_CFLAGS = $(YAML_CFLAGS)
$(LUA_OBJ):    LAYER_CFLAGS = $(YAML_CFLAGS) $(LUA_CFLAGS)
$(CLI_OBJ) $(MAIN_OBJ): LAYER_CFLAGS = $(YAML_CFLAGS) $(LUA_CFLAGS)
$(SCREEN_OBJ): LAYER_CFLAGS = $(PKG_CFLAGS)

# Unit tests live in tests/unit/LAYER/ and link that layer's library and the
# ones below it: engine tests never link Lua or ncurses, lua tests never ncurses.
ENGINE_TEST_SRC := $(sort $(wildcard tests/unit/engine/test_*.c tests/validation/test_*.c))
LUA_TEST_SRC    := $(sort $(wildcard tests/unit/lua/test_*.c))
CLI_TEST_SRC    := $(sort $(wildcard tests/unit/cli/test_*.c))
SCREEN_TEST_SRC := $(sort $(wildcard tests/unit/tui/test_*.c))
TEST_SRC   := $(ENGINE_TEST_SRC) $(LUA_TEST_SRC) $(CLI_TEST_SRC) $(SCREEN_TEST_SRC)
TEST_BIN   := $(TEST_SRC:tests/%.c=$(BUILD)/tests/%)
BENCH_SRC  := $(sort $(wildcard tests/bench/*.c))
BENCH_BIN  := $(BENCH_SRC:tests/%.c=$(BUILD)/tests/%)
# Fuzz targets (tests/fuzz/fuzz_NAME.c), built with clang and libFuzzer.
FUZZ_SRC   := $(sort $(wildcard tests/fuzz/fuzz_*.c))
FUZZ_BIN   := $(FUZZ_SRC:tests/fuzz/%.c=$(BUILD)/%)
FUZZ_SANITIZE := address,undefined
FUZZ_SECONDS ?= 30

BIN        := mlviz

.PHONY: deb check-deb docs all run test test-build asan clang valgrind bench install uninstall clean deps \
        deps-test check-tools tsan fuzz fuzz-build fuzz-targets format check-layers check-sizes \
        check-format

COMPLETIONS := $(BUILD)/completions/mlviz.bash $(BUILD)/completions/_mlviz \
               $(BUILD)/completions/mlviz.fish

all: $(BIN) $(BUILD)/mlviz.1 $(COMPLETIONS)

# Shell completions, generated from the command and option tables.
$(BUILD)/completions/mlviz.bash: $(BIN)
	@mkdir -p $(dir $@)
	@$(abspath $(BIN)) completion bash > $@
$(BUILD)/completions/_mlviz: $(BIN)
	@mkdir -p $(dir $@)
	@$(abspath $(BIN)) completion zsh > $@
$(BUILD)/completions/mlviz.fish: $(BIN)
	@mkdir -p $(dir $@)
	@$(abspath $(BIN)) completion fish > $@

# The man page's synopsis, key list and options come from the command table
# (tui/cli/commands.c, the view's options its row "") and the key table
# (tui/keys.c): `mlviz options --synopsis`, `mlviz keys --man`,
# `mlviz options --man`, `mlviz plan --man`, `mlviz options --commands`.
$(BUILD)/mlviz.1: docs/mlviz.1.in $(BIN)
	@mkdir -p $(dir $@)
	@$(abspath $(BIN)) options --synopsis > $@.synopsis
	@$(abspath $(BIN)) keys --man > $@.keys
	@$(abspath $(BIN)) options --man > $@.options
	@$(abspath $(BIN)) plan --man > $@.plan
	@$(abspath $(BIN)) options --commands > $@.commands
	@sed -e 's/@VERSION@/$(VERSION)/' -e '/@SYNOPSIS@/{r $@.synopsis' -e 'd}' \
	  -e '/@KEYS@/{r $@.keys' -e 'd}' \
	  -e '/@OPTIONS@/{r $@.options' -e 'd}' -e '/@PLAN_OPTIONS@/{r $@.plan' -e 'd}' \
	  -e '/@COMMANDS@/{r $@.commands' -e 'd}' \
	  docs/mlviz.1.in > $@
	@rm -f $@.synopsis $@.keys $@.options $@.plan $@.commands

LINK_ALL = $(CLI_LIB) $(SCREEN_LIB) $(CLI_LIB) $(LUA_LIB) $(ENGINE_LIB)
$(BIN): $(MAIN_OBJ) $(CLI_LIB) $(SCREEN_LIB) $(LUA_LIB) $(ENGINE_LIB)
	$(CC) $(MLVIZ_LDFLAGS) $(LDFLAGS) -o $@ $(MAIN_OBJ) $(LINK_ALL) $(LDLIBS) $(MLVIZ_LDLIBS)

$(ENGINE_LIB): $(ENGINE_OBJ)
$(LUA_LIB): $(LUA_OBJ)
$(CLI_LIB): $(CLI_OBJ)
$(SCREEN_LIB): $(SCREEN_OBJ)
$(ENGINE_LIB) $(LUA_LIB) $(CLI_LIB) $(SCREEN_LIB):
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(COMPILE) -MMD -MP -c -o $@ $<

# One cmocka program per test file, linked with its layer's libraries only.
TEST_COMPILE = $(CC) $(MLVIZ_CPPFLAGS) $(ALL_INC) $(CPPFLAGS) $(MLVIZ_CFLAGS) $(CFLAGS)
ENGINE_TEST_BIN := $(ENGINE_TEST_SRC:tests/%.c=$(BUILD)/tests/%)
LUA_TEST_BIN    := $(LUA_TEST_SRC:tests/%.c=$(BUILD)/tests/%)
CLI_TEST_BIN    := $(CLI_TEST_SRC:tests/%.c=$(BUILD)/tests/%)
SCREEN_TEST_BIN := $(SCREEN_TEST_SRC:tests/%.c=$(BUILD)/tests/%)
$(ENGINE_TEST_BIN): $(BUILD)/tests/%: tests/%.c $(ENGINE_LIB)
	@mkdir -p $(dir $@)
	$(TEST_COMPILE) $(YAML_CFLAGS) -o $@ $< $(ENGINE_LIB) $(MLVIZ_LDFLAGS) $(LDFLAGS) \
	  $(LDLIBS) $(YAML_LIBS) -lm $(TEST_LIBS)
$(LUA_TEST_BIN): $(BUILD)/tests/%: tests/%.c $(LUA_LIB) $(ENGINE_LIB)
	@mkdir -p $(dir $@)
	$(TEST_COMPILE) $(YAML_CFLAGS) $(LUA_CFLAGS) -o $@ $< $(LUA_LIB) $(ENGINE_LIB) \
	  $(MLVIZ_LDFLAGS) $(LDFLAGS) $(LDLIBS) $(YAML_LIBS) $(LUA_LIBS) -lm $(TEST_LIBS)
# The CLI tests link the CLI library and the layers below it, never the
# screen (the commands that start the view are not linked into them).
$(CLI_TEST_BIN): $(BUILD)/tests/%: tests/%.c $(CLI_LIB) $(LUA_LIB) $(ENGINE_LIB)
	@mkdir -p $(dir $@)
	$(TEST_COMPILE) $(YAML_CFLAGS) $(LUA_CFLAGS) -o $@ $< $(CLI_LIB) $(LUA_LIB) $(ENGINE_LIB) \
	  $(MLVIZ_LDFLAGS) $(LDFLAGS) $(LDLIBS) $(YAML_LIBS) $(LUA_LIBS) -lm $(TEST_LIBS)
$(SCREEN_TEST_BIN) $(BENCH_BIN): $(BUILD)/tests/%: tests/%.c $(CLI_LIB) $(SCREEN_LIB) $(LUA_LIB) $(ENGINE_LIB)
	@mkdir -p $(dir $@)
	$(TEST_COMPILE) $(PKG_CFLAGS) -o $@ $< $(LINK_ALL) $(MLVIZ_LDFLAGS) $(LDFLAGS) $(LDLIBS) \
	  $(MLVIZ_LDLIBS) $(TEST_LIBS)

# Fuzz targets link the engine library (and the Lua host for fuzz_lua) only;
# fuzz_lesson drives `mlviz lesson`'s preparation (tui/cli/) and links the
# CLI library too.
$(BUILD)/fuzz_%: tests/fuzz/fuzz_%.c $(ENGINE_LIB) $(LUA_LIB)
	$(CC) $(MLVIZ_CPPFLAGS) $(ALL_INC) $(CPPFLAGS) -std=c11 -g -O1 $(WARN) $(PKG_CFLAGS) $(CFLAGS) \
	  -fsanitize=fuzzer,$(FUZZ_SANITIZE) -o $@ $< $(FUZZ_CLI_LIB) $(LUA_LIB) $(ENGINE_LIB) \
	  $(LDFLAGS) $(MLVIZ_LDLIBS)
$(BUILD)/fuzz_lesson: $(CLI_LIB)
$(BUILD)/fuzz_lesson: FUZZ_CLI_LIB = $(CLI_LIB)

# The property tests of issue 20 include their generator and invariants.
PROPERTY_SRC := tests/unit/engine/gen_setup.c tests/unit/engine/gen_setup.h \
                tests/unit/engine/invariants.c tests/unit/engine/invariants.h
$(BUILD)/tests/unit/engine/test_invariants $(BUILD)/fuzz_invariants: $(PROPERTY_SRC)
$(BUILD)/tests/validation/test_plan_table: $(PROPERTY_SRC) tests/validation/docs_table.h

-include $(ALL_OBJ:.o=.d)

# ---- packages -------------------------------------------------------------
# Debian package names for what the build and the tests need.
DEB_BUILD := build-essential pkg-config libncurses-dev libyaml-dev liblua5.4-dev
DEB_TEST  := libcmocka-dev tmux python3 valgrind clang-format python3-pil fonts-dejavu-core

deps:
	@MISSING_PKGS="$(PKGS)" DEB="$(DEB_BUILD)" sh tests/deps.sh

deps-test:
	@MISSING_PKGS="$(PKGS) $(TEST_PKGS)" DEB="$(DEB_BUILD) $(DEB_TEST)" \
	 TOOLS="tmux python3 clang-format" DEB_CHECK="python3-pil fonts-dejavu-core" sh tests/deps.sh

run: deps
	@$(MAKE) --no-print-directory all
	./$(BIN)

# ---- tests ------------------------------------------------------------------
# `make test` builds in build-test/ (with -Werror) so it never fights a plain
# `make` over the objects in build/. It also replays the fuzz targets over
# their committed corpora when clang with libFuzzer works (tests/fuzz/run.sh).
TEST_BUILD := build-test
test: deps-test
	@$(MAKE) --no-print-directory WERROR=1 BUILD=$(TEST_BUILD) BIN=$(TEST_BUILD)/mlviz test-build
	@BUILD=$(TEST_BUILD) MLVIZ_BIN=$(TEST_BUILD)/mlviz sh tests/run.sh

test-build: $(BIN) $(BUILD)/mlviz.1 $(TEST_BIN)

# Every generated block of README.md and docs/ rewritten from its source
# (tests/docsync.py: command output, validation tables, screen captures).
docs:
	@$(MAKE) --no-print-directory WERROR=1 BUILD=$(TEST_BUILD) BIN=$(TEST_BUILD)/mlviz test-build
	@BUILD=$(TEST_BUILD) MLVIZ_BIN=$(TEST_BUILD)/mlviz sh tests/cli/docs.sh --write

asan: deps-test
	@$(MAKE) --no-print-directory WERROR=1 BUILD=build-asan SANITIZE=address,undefined \
	  OPT="-O1 -g" test-build BIN=build-asan/mlviz
	@ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1 \
	  BUILD=build-asan MLVIZ_BIN=build-asan/mlviz sh tests/run.sh

# The second compiler: the binary, the man page and every test program
# built with clang and -Werror in build-clang/ (CI builds both: .ci/run).
clang:
	@$(MAKE) --no-print-directory CC=clang WERROR=1 BUILD=build-clang BIN=build-clang/mlviz \
	  test-build

# The cmocka programs and the headless suites (the binary runs under
# valgrind through a wrapper, tests/run.sh); the tmux suites are skipped.
valgrind: deps-test
	@$(MAKE) --no-print-directory WERROR=1 BUILD=build-valgrind BIN=build-valgrind/mlviz test-build
	@BUILD=build-valgrind MLVIZ_BIN=build-valgrind/mlviz VALGRIND=1 sh tests/run.sh

# ThreadSanitizer over the planner's threads and the screen that watches
# them: the planner's cmocka tests and the TUI plan suite, built with
# -fsanitize=thread in build-tsan/; any report fails it (tests/tsan.sh).
TSAN_TESTS := build-tsan/tests/unit/engine/test_plan
tsan: deps-test
	@$(MAKE) --no-print-directory WERROR=1 BUILD=build-tsan SANITIZE=thread OPT="-O1 -g" \
	  BIN=build-tsan/mlviz build-tsan/mlviz $(TSAN_TESTS)
	@BUILD=build-tsan TSAN_TESTS="$(TSAN_TESTS)" sh tests/tsan.sh

bench: deps
	@$(MAKE) --no-print-directory OPT="-O3 -g -march=native" BUILD=build-bench \
	  BIN=build-bench/mlviz build-bench/mlviz $(BENCH_SRC:tests/%.c=build-bench/tests/%)
	@BUILD=build-bench MLVIZ_BIN=build-bench/mlviz sh tests/bench/run.sh

# Fuzzing: every tests/fuzz/fuzz_NAME.c with clang and libFuzzer, each for
# FUZZ_SECONDS over a scratch corpus seeded from tests/fuzz/corpus/fuzz_NAME/.
fuzz-build:
	@$(MAKE) --no-print-directory CC=clang BUILD=build-fuzz WERROR=0 \
	  SANITIZE=fuzzer-no-link,$(FUZZ_SANITIZE) fuzz-targets

fuzz-targets: $(FUZZ_BIN)

fuzz: fuzz-build
	@FUZZ_BUILD=build-fuzz FUZZ_SECONDS=$(FUZZ_SECONDS) sh tests/fuzz/run.sh fuzz

format:
	clang-format -i $(shell git ls-files '*.[ch]')

# ---- structure -------------------------------------------------------------
# check-layers: every #include points down the layers (tests/layers.sh).
# check-sizes: no .c file over 800 lines, no function over 80 (tests/sizes.py).
# check-format: every tracked .c/.h as .clang-format says (tests/format.sh).
# `make test` runs all three (tests/run.sh); any finding fails it.
check-layers:
	@sh tests/layers.sh

check-sizes:
	@python3 tests/sizes.py

check-format:
	@sh tests/format.sh

# ---- install ----------------------------------------------------------------
# install records the directories it had to create (in DATADIR's
# .created-dirs) so that uninstall removes those, once empty, and no other:
# a DESTDIR install then uninstall leaves the tree as it found it.
INSTALL_DIRS := $(BINDIR) $(DATADIR) $(MANDIR) $(BASHCOMPDIR) $(ZSHCOMPDIR) $(FISHCOMPDIR)
install: all
	@created=; for d in $(INSTALL_DIRS); do p="$(DESTDIR)$$d"; \
	  while [ ! -e "$$p" ]; do created="$$created $$p"; p=$$(dirname "$$p"); done; \
	  mkdir -p "$(DESTDIR)$$d" || exit 1; done; \
	  printf '%s\n' $$created | sed '/^$$/d' | sort -u > "$(DESTDIR)$(DATADIR)/.created-dirs"
	install -m 755 $(BIN) $(DESTDIR)$(BINDIR)/mlviz
	cp -R assets scenarios scripts $(DESTDIR)$(DATADIR)/
	install -m 644 $(BUILD)/mlviz.1 $(DESTDIR)$(MANDIR)/mlviz.1
	install -m 644 $(BUILD)/completions/mlviz.bash $(DESTDIR)$(BASHCOMPDIR)/mlviz
	install -m 644 $(BUILD)/completions/_mlviz $(DESTDIR)$(ZSHCOMPDIR)/_mlviz
	install -m 644 $(BUILD)/completions/mlviz.fish $(DESTDIR)$(FISHCOMPDIR)/mlviz.fish

uninstall:
	@created=$$(cat "$(DESTDIR)$(DATADIR)/.created-dirs" 2>/dev/null); \
	  rm -f $(DESTDIR)$(BINDIR)/mlviz $(DESTDIR)$(MANDIR)/mlviz.1 \
	    $(DESTDIR)$(BASHCOMPDIR)/mlviz $(DESTDIR)$(ZSHCOMPDIR)/_mlviz \
	    $(DESTDIR)$(FISHCOMPDIR)/mlviz.fish; \
	  rm -rf $(DESTDIR)$(DATADIR); \
	  for d in $$(printf '%s\n' $$created | sort -r); do rmdir "$$d" 2>/dev/null || true; done

# A Debian package as Debian builds its own: the install tree under /usr
# with a stripped binary, a gzipped man page and changelog, the copyright
# file (packaging/copyright), md5sums, and Depends computed by
# dpkg-shlibdeps from the libraries the binary links. `make check-deb` runs
# lintian on it (docs/PACKAGING.md lists what lintian still says).
DEB_ARCH    := $(shell dpkg --print-architecture 2>/dev/null || echo amd64)
DEB_FILE    := $(BUILD)/mlviz_$(VERSION)_$(DEB_ARCH).deb
DEB_ROOT    := $(abspath $(BUILD))/deb
DEB_DOC     := $(DEB_ROOT)/usr/share/doc/mlviz
deb: all
	@command -v dpkg-deb >/dev/null && command -v dpkg-shlibdeps >/dev/null || \
	  { echo "make deb needs dpkg-deb and dpkg-shlibdeps (apt-get install dpkg-dev)"; exit 2; }
	rm -rf $(DEB_ROOT) $(BUILD)/deb-shlibs
	$(MAKE) --no-print-directory install DESTDIR=$(DEB_ROOT) PREFIX=/usr \
	  DATADIR=/usr/share/mlviz ZSHCOMPDIR=/usr/share/zsh/vendor-completions
	rm -f $(DEB_ROOT)/usr/share/mlviz/.created-dirs
	strip --remove-section=.comment --remove-section=.note --strip-unneeded \
	  $(DEB_ROOT)/usr/bin/mlviz
	gzip -9n $(DEB_ROOT)/usr/share/man/man1/mlviz.1
	mkdir -p $(DEB_DOC) $(DEB_ROOT)/DEBIAN $(BUILD)/deb-shlibs/debian
	install -m 644 packaging/copyright $(DEB_DOC)/copyright
	gzip -9n < packaging/changelog > $(DEB_DOC)/changelog.gz
	chmod 644 $(DEB_DOC)/changelog.gz
	find $(DEB_ROOT)/usr -type d -exec chmod 755 {} +
	find $(DEB_ROOT)/usr -type f ! -path '*/usr/bin/*' -exec chmod 644 {} +
	printf 'Source: mlviz\n\nPackage: mlviz\nArchitecture: any\n' \
	  > $(BUILD)/deb-shlibs/debian/control
	cd $(BUILD)/deb-shlibs && dpkg-shlibdeps -O $(DEB_ROOT)/usr/bin/mlviz \
	  | sed -n 's/^shlibs:Depends=//p' > depends
	printf '%s\n' 'Package: mlviz' 'Version: $(VERSION)' 'Architecture: $(DEB_ARCH)' \
	  'Maintainer: mlviz developers <mlviz@example.org>' 'Section: science' 'Priority: optional' \
	  "Installed-Size: $$(du -sk $(DEB_ROOT)/usr | cut -f1)" \
	  "Depends: $$(cat $(BUILD)/deb-shlibs/depends)" \
	  'Homepage: https://example.org/mlviz' \
	  'Description: terminal visualizer and simulator of ML training hardware' \
	  ' mlviz shows the storage, CPUs, accelerators, links and power behind a training' \
	  ' run in a terminal, with an analytic model, a step simulator and Lua scenarios.' \
	  > $(DEB_ROOT)/DEBIAN/control
	cd $(DEB_ROOT) && find usr -type f -exec md5sum {} + | sort -k 2 > DEBIAN/md5sums
	dpkg-deb --root-owner-group --build $(DEB_ROOT) $(DEB_FILE)

# lintian on the package (not part of `make test`: lintian is large; the
# install suite runs it when it is installed).
check-deb: deb
	@command -v lintian >/dev/null || { echo "make check-deb needs lintian (apt-get install lintian)"; exit 2; }
	lintian --fail-on error $(DEB_FILE)

clean:
	rm -rf build build-test build-valgrind build-asan build-tsan build-bench build-fuzz build-clang $(BIN)
