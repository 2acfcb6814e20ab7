/* libFuzzer target: the strict JSON checker and record parser (json.c, record.c). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "record.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ai_err e = AI_ERR_INIT;
	const char *s = (const char *)data;
	cJSON *v;
	size_t off;
	const char *why;
	int ok;

	ok = ai_json_check(s, size, &off, &why) == 0;
	v = ai_json_parse(s, size, &e);
	/* the checker and the parser agree (duplicate keys aside) */
	if (v == NULL && ok && strstr(e.msg, "duplicate key") == NULL)
		abort();
	if (v != NULL) {
		char *p = ai_json_print(v);
		cJSON *again = ai_json_parse(p, strlen(p), &e);

		/* what we print, we read back */
		if (again == NULL)
			abort();
		cJSON_Delete(again);
		free(p);
		cJSON_Delete(v);
	}
	v = ai_record_parse(s, size, 1, &e);
	cJSON_Delete(v);
	(void)ai_input_is_records(s, size);
	return 0;
}
