/*
 * libFuzzer target: ai-exec's parsers of program output (outparse.c).  The
 * first byte chooses the kind and its flags (with a file name, a column,
 * sections, quoted names, a cap of 0 to 7 items); the rest is the output.
 * Invariants: no crash, no leak; the "parsed" object prints as strict JSON
 * (valid UTF-8, no \u0000) that reads back; it holds at most the cap of
 * items and a total no smaller.
 *
 * fuzz-sources: ai-exec/prog/outparse.c ai-exec/jtext.c
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../ai-exec/prog/prog.h"
#include "json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct x_outhint h;
	struct ai_err e = AI_ERR_INIT;
	cJSON *p, *back;
	size_t max;
	char *s;

	if (size < 1)
		return 0;
	memset(&h, 0, sizeof(h));
	h.kind = 1 + data[0] % 3;
	h.with_file = (data[0] >> 2) & 1;
	h.column = (data[0] >> 3) & 1;
	h.sections = (data[0] >> 4) & 1;
	h.quoted = (data[0] >> 5) & 1;
	h.file = (data[0] >> 6) & 1 ? "named.txt" : NULL;
	max = (size_t)(data[0] >> 5);
	p = x_outparse(&h, (const char *)data + 1, size - 1, max);
	if (p == NULL)
		abort();
	s = ai_json_print(p);
	back = ai_json_parse(s, strlen(s), &e);
	if (back == NULL)
		abort();
	if ((size_t)cJSON_GetArraySize(ai_json_get(back, "items")) > max ||
	    (double)cJSON_GetArraySize(ai_json_get(back, "items")) >
	    cJSON_GetNumberValue(ai_json_get(back, "total")))
		abort();
	cJSON_Delete(back);
	cJSON_Delete(p);
	free(s);
	return 0;
}
