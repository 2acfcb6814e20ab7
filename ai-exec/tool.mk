TOOL_LIBS_ai-exec = $(JQ_LIBS)

# ai-exec's objects depend on its headers; the parsers' test driver links the
# output parsers and the git configuration scanner (tests/ai-exec-parse.bats).
$(patsubst %.c,%.o,$(wildcard ai-exec/*.c ai-exec/*/*.c)) tests/helpers/exec-parsers.o: \
	$(wildcard ai-exec/*.h ai-exec/*/*.h)

tests/helpers/exec-parsers: tests/helpers/exec-parsers.o ai-exec/prog/outparse.o ai-exec/jtext.o \
		ai-exec/prog/path.o \
		ai-exec/prog/gitcfg.o $(LIB)
	$(CC) $(LDFLAGS) -o $@ $(filter %.o,$^) $(LIB) $(LDLIBS)

# The regular expressions' unit test links the engine alone.
tests/unit/test_regex: tests/unit/test_regex.o ai-exec/lang/regex.o $(LIB)
	$(CC) $(LDFLAGS) -o $@ $(filter %.o,$^) $(LIB) $(LDLIBS)
