/*
 * libFuzzer target: ai-exec's scanner of git configuration files (gitcfg.c),
 * which finds the drivers it must neutralize.  Invariants: no crash, no
 * leak, no read past the input; every driver found is "filter.", "diff." or
 * "merge." and a name, at most 256 of them, at most 64 includes, none empty.
 *
 * fuzz-sources: ai-exec/prog/gitcfg.c
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../ai-exec/prog/prog.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct x_gitcfg g;
	char *copy = ai_xmemdup(data, size); /* exactly size bytes: ASan sees any overread */
	size_t i;

	memset(&g, 0, sizeof(g));
	x_gitcfg_scan(copy, size, &g);
	if (g.ndrivers > 256 || g.nincludes > 64)
		abort();
	for (i = 0; i < g.ndrivers; i++)
		if (strncmp(g.drivers[i], "filter.", 7) != 0 && strncmp(g.drivers[i], "diff.", 5) != 0 &&
		    strncmp(g.drivers[i], "merge.", 6) != 0)
			abort();
	for (i = 0; i < g.nincludes; i++)
		if (g.includes[i][0] == '\0')
			abort();
	x_gitcfg_free(&g);
	free(copy);
	return 0;
}
