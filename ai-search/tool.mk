# ai-search: its objects depend on its own headers too, and the unit test of
# the snippet cleaner links the tool's clean.o.
$(patsubst %.c,%.o,$(wildcard ai-search/*.c)): $(wildcard ai-search/*.h)

tests/unit/test_snippet: tests/unit/test_snippet.o ai-search/clean.o $(LIB)
	$(CC) $(LDFLAGS) -o $@ $(filter %.o,$^) $(LIB) $(LDLIBS)

tests/unit/test_snippet.o: ai-search/clean.h
