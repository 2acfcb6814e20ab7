# ai-search: the unit test of the snippet cleaner links the tool's own module.
tests/unit/test_snippet: tests/unit/test_snippet.o ai-search/clean.o $(LIB)
	$(CC) $(LDFLAGS) -o $@ $(filter %.o,$^) $(LIB) $(LDLIBS)

tests/unit/test_snippet.o: ai-search/clean.h
