/*
 * libFuzzer target: ai-exec's tokenizer and parser (lex.c, parse.c, spec.c
 * and the path and URL checks of policy.c), on a policy of two listed files
 * and two URL prefixes.  The input is a command, optionally followed by a
 * NUL and a "file" hint.  Invariants: no crash, no leak, and every failure
 * is one of the language's three kinds (65 malformed, 77 refused, 3 limit)
 * with a message; a success has 1 to 16 stages, each a built-in.
 *
 * fuzz-sources: ai-exec/lang/lex.c ai-exec/lang/parse.c ai-exec/lang/spec.c ai-exec/lang/policy.c
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../ai-exec/lang/lang.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct x_policy pol;

static void
setup(void)
{
	static const char *const names[] = { "notes.md", "/srv/data.json" };
	struct ai_err e = AI_ERR_INIT;
	size_t i;

	x_policy_init(&pol);
	free(pol.cwd);
	pol.cwd = ai_xstrdup("/home/u/work");
	pol.lim.max_size = 4096;
	pol.files = ai_xcalloc(2, sizeof(*pol.files));
	for (i = 0; i < 2; i++) {
		pol.files[i].name = ai_xstrdup(names[i]);
		pol.files[i].abs = ai_xstrdup(i == 0 ? "/home/u/work/notes.md" : names[i]);
		pol.files[i].real = ai_xstrdup(pol.files[i].abs);
		pol.files[i].fd = 100 + (int)i;
		pol.files[i].ino = i + 1;
	}
	pol.nfiles = 2;
	if (x_policy_add_url(&pol, "https://docs.example.com/api", &e) < 0 ||
	    x_policy_add_url(&pol, "http://127.0.0.1:8080/", &e) < 0)
		abort();
	x_policy_seal(&pol);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int ready;
	struct ai_err e = AI_ERR_INIT;
	struct x_pipeline pl;
	const char *nul = memchr(data, '\0', size);
	size_t n = nul ? (size_t)(nul - (const char *)data) : size;
	char *cmd = ai_xmemdup(data, n), *hint = NULL;
	size_t i;

	if (!ready) {
		setup();
		ready = 1;
	}
	if (nul != NULL)
		hint = ai_xmemdup(nul + 1, size - n - 1);
	if (x_parse(cmd, n, hint != NULL && strlen(hint) == size - n - 1 ? hint : NULL, &pol, &pl,
	    &e) == 0) {
		if (pl.nstages < 1 || pl.nstages > X_MAX_STAGES)
			abort();
		for (i = 0; i < pl.nstages; i++)
			if (pl.stages[i].b == NULL)
				abort();
		x_pipeline_free(&pl);
	} else if ((e.code != AI_EXIT_DATAERR && e.code != AI_EXIT_POLICY &&
	    e.code != AI_EXIT_LIMIT) || e.msg[0] == '\0') {
		abort();
	}
	free(cmd);
	free(hint);
	return 0;
}
