# aicli: make, make check, make SANITIZE=1 check, make install, make bench, make fuzz,
# make faults.
#
# Every tool lives in ai-*/ with a main.c; its binary is built into bin/ from the
# .c files of its folder and of the folders one level below it (ai-exec/lang/...).
# A tool may add link libraries in its own ai-*/tool.mk (e.g. TOOL_LIBS_ai-exec = $(JQ_LIBS)).

VERSION    = 0.1.0
PREFIX    ?= /usr/local
DESTDIR   ?=
BINDIR     = $(PREFIX)/bin
MANDIR     = $(PREFIX)/share/man
SHAREDIR   = $(PREFIX)/share/aicli

CC        ?= cc
PKG_CONFIG ?= pkg-config

CURL_CFLAGS  := $(shell $(PKG_CONFIG) --cflags libcurl 2>/dev/null)
CURL_LIBDIR  := $(shell $(PKG_CONFIG) --variable=libdir libcurl 2>/dev/null)
CJSON_CFLAGS := $(shell $(PKG_CONFIG) --cflags libcjson 2>/dev/null)
CJSON_LIBS   := $(shell $(PKG_CONFIG) --libs libcjson 2>/dev/null || echo -lcjson)
# bookworm's libjq 1.6 ships no .pc file (LIBNOTES.md); jq 1.7 does.
JQ_CFLAGS    := $(shell $(PKG_CONFIG) --cflags libjq 2>/dev/null)
JQ_LIBS      := $(shell $(PKG_CONFIG) --libs libjq 2>/dev/null || echo -ljq)

WARN      = -std=c11 -Wall -Wextra -Wpedantic -Werror -Wstrict-prototypes -Wmissing-prototypes
CFLAGS   ?= -O2 -g
CPPFLAGS += -D_GNU_SOURCE -Ilib $(CURL_CFLAGS) $(CJSON_CFLAGS) $(JQ_CFLAGS) \
	    -DAI_LIBCURL_PATH='"$(CURL_LIBDIR)/libcurl.so.4"'
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

.PHONY: all deps check check-unit check-man check-bats install uninstall bench fuzz faults clean valgrind
.DELETE_ON_ERROR:

all: $(LIB) $(BINS)

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

tests/unit/test_%: tests/unit/test_%.o $(LIB)
	$(CC) $(LDFLAGS) -o $@ $< $(LIB) $(LDLIBS)

tests/helpers/%: tests/helpers/%.o $(LIB)
	$(CC) $(LDFLAGS) -o $@ $< $(LIB) $(LDLIBS)

deps:
	sh tests/deps.sh

check: all $(UNIT_BIN) $(HELPER_BIN)
	@$(MAKE) --no-print-directory check-unit check-man check-bats

check-unit: $(UNIT_BIN)
	@sh tests/run-unit.sh $(if $(filter 1,$(SANITIZE)),--no-valgrind,) $(UNIT_BIN)

check-man:
	@for m in $(MANPAGES); do mandoc -Tlint -Wwarning $$m || exit 1; done; \
		echo "man pages: $(words $(MANPAGES)) lint-clean"

check-bats: all $(HELPER_BIN)
	@PATH="$(CURDIR)/bin:$$PATH" bats tests/*.bats

valgrind: $(UNIT_BIN)
	@sh tests/run-unit.sh --valgrind $(UNIT_BIN)

install: all
	mkdir -p $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man7 \
		$(DESTDIR)$(SHAREDIR)
	for b in $(BINS); do install -m 755 $$b $(DESTDIR)$(BINDIR)/; done
	install -m 644 ai-exec/policy.json $(DESTDIR)$(SHAREDIR)/policy.json
	for m in $(filter %.1,$(MANPAGES)); do install -m 644 $$m $(DESTDIR)$(MANDIR)/man1/; done
	for m in $(filter %.7,$(MANPAGES)); do install -m 644 $$m $(DESTDIR)$(MANDIR)/man7/; done

uninstall:
	for t in $(TOOLS); do rm -f $(DESTDIR)$(BINDIR)/$$t; done
	for m in $(notdir $(MANPAGES)); do rm -f $(DESTDIR)$(MANDIR)/man*/$$m; done
	rm -f $(DESTDIR)$(SHAREDIR)/policy.json

bench: all $(HELPER_BIN) bench/measure
	@sh bench/run.sh

bench/measure: bench/measure.c
	$(CC) $(WARN) -O2 -D_GNU_SOURCE -o $@ $<

FUZZ_SECONDS ?= 60
fuzz:
	@sh tests/fuzz/run.sh $(FUZZ_SECONDS)

# ai-ask against a server that answers badly, many times (make check runs 40;
# FAULT_SEED=N repeats a run); with SANITIZE=1 under ASan and UBSan.
FAULT_RUNS ?= 2000
faults: all
	@FAULT_RUNS=$(FAULT_RUNS) PATH="$(CURDIR)/bin:$$PATH" bats tests/faults.bats

clean:
	rm -f $(LIB) $(LIB_OBJ) ai-*/*.o ai-*/*/*.o tests/unit/*.o tests/helpers/*.o $(UNIT_BIN) $(HELPER_BIN)
	rm -rf bin bench/measure tests/fuzz/build .build-flags
