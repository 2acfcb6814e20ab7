/*
 * libFuzzer target: the template parser (lib/template.c).
 * A text is either refused with a configuration error and a message, or
 * accepted as an object whose known keys have their types: strings, a
 * schema object or file name, an array of string options.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "template.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ai_err e = AI_ERR_INIT;
	const cJSON *k, *a;
	cJSON *t;

	ai_json_init();
	t = ai_template_parse((const char *)data, size, &e);
	if (t == NULL) {
		if (e.code != AI_EXIT_CONFIG || e.msg[0] == '\0')
			abort();
		return 0;
	}
	if (!cJSON_IsObject(t))
		abort();
	for (k = t->child; k != NULL; k = k->next) {
		if (strncmp(k->string, "//", 2) == 0)
			continue;
		if (strcmp(k->string, "options") == 0) {
			cJSON_ArrayForEach(a, k)
				if (!cJSON_IsString(a))
					abort();
		} else if (strcmp(k->string, "schema") == 0) {
			if (!cJSON_IsObject(k) && !cJSON_IsString(k))
				abort();
		} else if (!cJSON_IsString(k)) {
			abort();
		}
	}
	cJSON_Delete(t);
	return 0;
}
