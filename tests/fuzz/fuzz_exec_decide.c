/*
 * libFuzzer target: ai-exec's decisions on program calls (decide.c) under
 * the example policy (ai-exec/policy.json, loaded by prog.c).  The input is
 * a program name and its arguments separated by NUL bytes.  Invariants: no
 * crash, no leak; a call allowed is L0 or L1; a refusal is 77 (and names its
 * rule), 65 or 3, with a message.
 *
 * fuzz-sources: ai-exec/prog/decide.c ai-exec/prog/prog.c ai-exec/prog/path.c
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../ai-exec/prog/prog.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct x_progs ps;

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int ready;
	struct ai_err e = AI_ERR_INIT;
	struct x_decision d;
	char *copy, *argv[64];
	size_t n = 0, i = 0;
	int rc;

	if (!ready) {
		/* make fuzz runs in tests/fuzz/build */
		if (x_progs_load(&ps, "../../../ai-exec/policy.json", &e) < 0) {
			fprintf(stderr, "%s\n", e.msg);
			abort();
		}
		ready = 1;
	}
	copy = ai_xmalloc(size + 1);
	memcpy(copy, data, size);
	copy[size] = '\0';
	while (i <= size && n < 64) {
		argv[n++] = copy + i;
		i += strlen(copy + i) + 1;
	}
	rc = x_decide(&ps, "/nonexistent/root", argv[0], argv + 1, n - 1, NULL, &d, &e);
	if (rc == 0 && (d.level < XL_L0 || d.level > XL_L1 || d.rule == NULL || d.cwd == NULL))
		abort();
	if (rc < 0 && (e.msg[0] == '\0' || (e.code != AI_EXIT_POLICY &&
	    e.code != AI_EXIT_DATAERR && e.code != AI_EXIT_LIMIT) ||
	    (e.code == AI_EXIT_POLICY && d.rule == NULL)))
		abort();
	x_decision_free(&d);
	free(copy);
	return 0;
}
