/* libFuzzer target: the URL parser (url.c).  A canonical URL parses to itself. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "url.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ai_err e = AI_ERR_INIT;
	struct ai_url u, v;
	char *s = ai_xmemdup(data, size), *c1, *c2;

	if (strlen(s) == size && ai_url_parse(s, &u, &e) == 0) {
		c1 = ai_url_string(&u);
		if (ai_url_parse(c1, &v, &e) != 0)
			abort();
		c2 = ai_url_string(&v);
		if (strcmp(c1, c2) != 0)
			abort();
		free(c1);
		free(c2);
		ai_url_free(&u);
		ai_url_free(&v);
	}
	free(s);
	return 0;
}
