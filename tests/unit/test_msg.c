/* Unit tests: msg.h (ai_relay). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "msg.h"
#include "redact.h"
#include "util.h"
#include "t.h"

/* What ai_relay writes to stderr for p[0..n). */
static char *
relayed(const char *p, size_t n)
{
	char path[] = "/tmp/test_msg.XXXXXX", *got;
	int fd = mkstemp(path), saved = dup(2);
	FILE *f;
	long len;

	fflush(stderr);
	dup2(fd, 2);
	ai_relay(p, n);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	f = fdopen(fd, "r");
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	rewind(f);
	got = calloc(1, (size_t)len + 1);
	if (fread(got, 1, (size_t)len, f) != (size_t)len)
		got[0] = '\0';
	fclose(f);
	unlink(path);
	return got;
}

int
main(void)
{
	char *s;

	ai_init("test_msg");
	ai_secret_add("sk-secret-value-12345");
	/* a child's lines pass as they are, with a newline added at the end */
	s = relayed("ai-ask: one\nai-ask: two", 23);
	CHECK_STR(s, "ai-ask: one\nai-ask: two\n");
	free(s);
	/* secrets are redacted, escape sequences made visible */
	s = relayed("ai-ask: key sk-secret-value-12345 \033[31mred\n", 43);
	CHECK_STR(s, "ai-ask: key [REDACTED] ^[[31mred\n");
	free(s);
	/* nothing: nothing at all */
	s = relayed("", 0);
	CHECK_STR(s, "");
	free(s);
	ai_secret_clear();
	T_DONE();
}
