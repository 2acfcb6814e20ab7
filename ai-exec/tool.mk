TOOL_LIBS_ai-exec = $(JQ_LIBS)

# ai-exec's objects depend on its header; the parsers' test driver links the
# output parsers and the git configuration scanner (tests/ai-exec-parse.bats).
$(patsubst %.c,%.o,$(wildcard ai-exec/*.c)) tests/helpers/exec-parsers.o: ai-exec/exec.h

tests/helpers/exec-parsers: tests/helpers/exec-parsers.o ai-exec/outparse.o ai-exec/jtext.o \
		ai-exec/gitcfg.o $(LIB)
	$(CC) $(LDFLAGS) -o $@ $(filter %.o,$^) $(LIB) $(LDLIBS)
