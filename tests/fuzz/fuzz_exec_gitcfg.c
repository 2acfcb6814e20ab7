/*
 * libFuzzer target: ai-exec's scanner of git configuration files (gitcfg.c),
 * which finds the named sections whose keys it must override, the
 * includes, and the keys it must refuse.  Invariants: no crash, no leak, no
 * read past the input (a BOM and CRs included); every name found is one of
 * the sections ("filter.", "diff.", "merge.", "http.", "credential.",
 * "submodule.") and a name, at most 256 of them, at most 64 includes and
 * files, none empty; a key refused names a remote's program.
 *
 * fuzz-sources: ai-exec/prog/gitcfg.c ai-exec/prog/path.c
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
	for (i = 0; i < g.ndrivers; i++) {
		static const char *const sections[] = { "filter.", "diff.", "merge.", "http.",
			"credential.", "submodule.", NULL };
		size_t k;

		for (k = 0; sections[k] != NULL; k++)
			if (strncmp(g.drivers[i], sections[k], strlen(sections[k])) == 0)
				break;
		if (sections[k] == NULL)
			abort();
	}
	if (g.nfiles > 64)
		abort();
	for (i = 0; i < g.nincludes; i++)
		if (g.includes[i][0] == '\0')
			abort();
	for (i = 0; i < g.nfiles; i++)
		if (g.files[i][0] == '\0')
			abort();
	if (g.unsafe != NULL && strncmp(g.unsafe, "remote.", 7) != 0)
		abort();
	x_gitcfg_free(&g);
	free(copy);
	return 0;
}
