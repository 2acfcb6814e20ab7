# aicli: make, make check, make SANITIZE=1 check, make install, make uninstall,
# make deb, make bench, make fuzz.
#
# Every tool lives in ai-*/ with a main.c; its binary is built into bin/ from the
# .c files of its folder and of the folders one level below it (ai-exec/lang/...).
# A tool may add link libraries in its own ai-*/tool.mk (e.g. TOOL_LIBS_ai-exec = $(JQ_LIBS)).

# The suite's version: this line is the one place it is written.  The
# programs get it as AI_VERSION; debian/changelog and NEWS must agree with it
# (tests/package.bats checks them).
VERSION    = 0.1.0
PREFIX    ?= /usr/local
DESTDIR   ?=
BINDIR     = $(PREFIX)/bin
DATADIR    = $(PREFIX)/share
MANDIR     = $(DATADIR)/man
SHAREDIR   = $(DATADIR)/aicli
DOCDIR     = $(DATADIR)/doc/aicli
# Where each shell looks for completions installed under PREFIX (a package
# for a distribution may name its own, as debian/rules does for zsh).
BASHCOMPDIR ?= $(DATADIR)/bash-completion/completions
ZSHCOMPDIR  ?= $(DATADIR)/zsh/site-functions
FISHCOMPDIR ?= $(DATADIR)/fish/vendor_completions.d

CC        ?= cc
PKG_CONFIG ?= pkg-config

CURL_CFLAGS  := $(shell $(PKG_CONFIG) --cflags libcurl 2>/dev/null)
CURL_LIBDIR  := $(shell $(PKG_CONFIG) --variable=libdir libcurl 2>/dev/null)
CJSON_CFLAGS := $(shell $(PKG_CONFIG) --cflags libcjson 2>/dev/null)
CJSON_LIBS   := $(shell $(PKG_CONFIG) --libs libcjson 2>/dev/null || echo -lcjson)
# bookworm's libjq 1.6 ships no .pc file; jq 1.7 does.
JQ_CFLAGS    := $(shell $(PKG_CONFIG) --cflags libjq 2>/dev/null)
JQ_LIBS      := $(shell $(PKG_CONFIG) --libs libjq 2>/dev/null || echo -ljq)

WARN      = -std=c11 -Wall -Wextra -Wpedantic -Werror -Wstrict-prototypes -Wmissing-prototypes
CFLAGS   ?= -O2 -g
CPPFLAGS += -D_GNU_SOURCE -Ilib $(CURL_CFLAGS) $(CJSON_CFLAGS) $(JQ_CFLAGS) \
	    -DAI_LIBCURL_PATH='"$(CURL_LIBDIR)/libcurl.so.4"' -DAI_VERSION='"$(VERSION)"'
LDFLAGS  ?=
LDLIBS    = $(CJSON_LIBS)

ifeq ($(SANITIZE),1)
CFLAGS  += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
LDFLAGS += -fsanitize=address,undefined
endif

ALL_CFLAGS = $(WARN) $(CFLAGS)

LIB_SRC  := $(sort $(wildcard lib/*.c))
LIB_OBJ  := $(LIB_SRC:.c=.o)
LIB      := lib/libaicli.a

TOOLS    := $(sort $(patsubst %/main.c,%,$(wildcard ai-*/main.c)))
BINS     := $(addprefix bin/,$(TOOLS))
# A tool.mk may add rules (e.g. a unit test that links the tool's own module): they
# must not become the default goal.
.DEFAULT_GOAL := all
-include $(wildcard ai-*/tool.mk)

UNIT_SRC := $(sort $(wildcard tests/unit/test_*.c))
UNIT_BIN := $(UNIT_SRC:.c=)
HELPER_SRC := $(sort $(wildcard tests/helpers/*.c))
HELPER_BIN := $(HELPER_SRC:.c=)

MANPAGES := $(sort $(wildcard man/*.1 man/*.7))

# Shell completions, made by each tool from its own option table.
COMPLETIONS := $(addprefix completions/bash/,$(TOOLS)) \
	$(addprefix completions/zsh/_,$(TOOLS)) \
	$(patsubst %,completions/fish/%.fish,$(TOOLS))

.PHONY: all deps check check-unit check-man check-text check-bats install uninstall bench fuzz \
	clean valgrind deb check-deb
.DELETE_ON_ERROR:

all: $(LIB) $(BINS) $(COMPLETIONS)

# Rebuild everything when the flags change (a SANITIZE=1 build after a plain one).
.build-flags: FORCE
	@printf '%s\n' '$(CC) $(ALL_CFLAGS) $(CPPFLAGS) $(LDFLAGS)' | cmp -s - $@ || \
		printf '%s\n' '$(CC) $(ALL_CFLAGS) $(CPPFLAGS) $(LDFLAGS)' > $@
FORCE:

%.o: %.c .build-flags $(wildcard lib/*.h)
	$(CC) $(ALL_CFLAGS) $(CPPFLAGS) -c -o $@ $<

$(LIB): $(LIB_OBJ)
	rm -f $@
	ar rcs $@ $^

# A tool is its folder's objects, the library, and the tool's own extra libraries.
.SECONDEXPANSION:
bin/%: $$(subst .c,.o,$$(wildcard $$*/*.c $$*/*/*.c)) $(LIB)
	@mkdir -p bin
	$(CC) $(LDFLAGS) -o $@ $(filter %.o,$^) $(LIB) $(TOOL_LIBS_$*) $(LDLIBS)

completions/bash/%: bin/%
	@mkdir -p $(@D)
	./$< --aicli-completion bash > $@
completions/zsh/_%: bin/%
	@mkdir -p $(@D)
	./$< --aicli-completion zsh > $@
completions/fish/%.fish: bin/%
	@mkdir -p $(@D)
	./$< --aicli-completion fish > $@

tests/unit/test_%: tests/unit/test_%.o $(LIB)
	$(CC) $(LDFLAGS) -o $@ $< $(LIB) $(LDLIBS)

tests/helpers/%: tests/helpers/%.o $(LIB)
	$(CC) $(LDFLAGS) -o $@ $< $(LIB) $(LDLIBS)

deps:
	sh tests/deps.sh

check: all $(UNIT_BIN) $(HELPER_BIN)
	@$(MAKE) --no-print-directory check-unit check-man check-text check-bats

check-unit: $(UNIT_BIN)
	@sh tests/run-unit.sh $(if $(filter 1,$(SANITIZE)),--no-valgrind,) $(UNIT_BIN)

# Every page through mandoc and groff: no warning from either, the same text
# from both, no table cell wider than its column, quotes that close, the
# section's standard header.
check-man:
	@python3 tests/man/check.py $(MANPAGES)

# Product text (manuals, README, NEWS, code and its comments, --help) speaks
# of the programs, never of the notes they were planned from.
check-text: $(BINS)
	@sh tests/product-text.sh

check-bats: all $(HELPER_BIN)
	@SANITIZE="$(SANITIZE)" PATH="$(CURDIR)/bin:$$PATH" bats tests/*.bats

valgrind: $(UNIT_BIN)
	@sh tests/run-unit.sh --valgrind $(UNIT_BIN)

install: all
	mkdir -p $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man7 \
		$(DESTDIR)$(SHAREDIR) $(DESTDIR)$(DOCDIR)/examples $(DESTDIR)$(BASHCOMPDIR) \
		$(DESTDIR)$(ZSHCOMPDIR) $(DESTDIR)$(FISHCOMPDIR)
	for b in $(BINS); do install -m 755 $$b $(DESTDIR)$(BINDIR)/; done
	install -m 644 ai-exec/policy.json $(DESTDIR)$(SHAREDIR)/policy.json
	install -m 644 examples/config.json $(DESTDIR)$(DOCDIR)/examples/config.json
	install -m 644 NEWS $(DESTDIR)$(DOCDIR)/NEWS
	for m in $(filter %.1,$(MANPAGES)); do install -m 644 $$m $(DESTDIR)$(MANDIR)/man1/; done
	for m in $(filter %.7,$(MANPAGES)); do install -m 644 $$m $(DESTDIR)$(MANDIR)/man7/; done
	for t in $(TOOLS); do \
		install -m 644 completions/bash/$$t $(DESTDIR)$(BASHCOMPDIR)/$$t && \
		install -m 644 completions/zsh/_$$t $(DESTDIR)$(ZSHCOMPDIR)/_$$t && \
		install -m 644 completions/fish/$$t.fish $(DESTDIR)$(FISHCOMPDIR)/$$t.fish || exit 1; \
	done

# Everything install put, and the folders of its own it made; shared folders
# (bin, man1, the completion folders) stay.
uninstall:
	for t in $(TOOLS); do \
		rm -f $(DESTDIR)$(BINDIR)/$$t $(DESTDIR)$(BASHCOMPDIR)/$$t \
			$(DESTDIR)$(ZSHCOMPDIR)/_$$t $(DESTDIR)$(FISHCOMPDIR)/$$t.fish; \
	done
	for m in $(notdir $(filter %.1,$(MANPAGES))); do rm -f $(DESTDIR)$(MANDIR)/man1/$$m; done
	for m in $(notdir $(filter %.7,$(MANPAGES))); do rm -f $(DESTDIR)$(MANDIR)/man7/$$m; done
	rm -f $(DESTDIR)$(SHAREDIR)/policy.json $(DESTDIR)$(DOCDIR)/examples/config.json \
		$(DESTDIR)$(DOCDIR)/NEWS
	for d in $(DESTDIR)$(SHAREDIR) $(DESTDIR)$(DOCDIR)/examples $(DESTDIR)$(DOCDIR); do \
		rmdir $$d 2>/dev/null || true; \
	done

# The Debian package, unsigned: dpkg-buildpackage -us -uc -b in a copy of the
# source under build/deb (its clean step empties the tree it builds in, and it
# writes the package to the folder above), so the .deb lands in build/deb.
DEBBUILD = build/deb
deb:
	rm -rf $(DEBBUILD)
	mkdir -p $(DEBBUILD)/aicli-$(VERSION)
	tar -cf - --exclude=./.git --exclude=./build --exclude=./bin --exclude=./completions \
		--exclude='*.o' --exclude='*.a' --exclude=./tests/fuzz/build . | \
		tar -xf - -C $(DEBBUILD)/aicli-$(VERSION)
	cd $(DEBBUILD)/aicli-$(VERSION) && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL \
		dpkg-buildpackage -us -uc -b
	@ls $(DEBBUILD)/*.deb

# The package built, checked with lintian, installed into a scratch root and
# removed again (tests/deb/package.bats).  Not part of "make check": building
# the package from scratch takes minutes; .ci/run runs it.
check-deb: deb
	@bats tests/deb/package.bats

bench: all $(HELPER_BIN) bench/measure
	@sh bench/run.sh

bench/measure: bench/measure.c
	$(CC) $(WARN) -O2 -D_GNU_SOURCE -o $@ $<

FUZZ_SECONDS ?= 60
fuzz:
	@sh tests/fuzz/run.sh $(FUZZ_SECONDS)

clean:
	rm -f $(LIB) $(LIB_OBJ) ai-*/*.o ai-*/*/*.o tests/unit/*.o tests/helpers/*.o $(UNIT_BIN) $(HELPER_BIN)
	rm -rf bin completions build bench/measure tests/fuzz/build .build-flags
