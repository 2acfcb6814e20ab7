/*
 * libFuzzer target: --schema's checks (ai-ask/schema.c).  The input is a
 * schema and an answer, split at the first NUL: the schema is linted, the
 * answer's one fenced block found, and the answer (or the block) checked
 * against the schema.  Invariants: a check never fails without a message
 * that starts with the path "$", and a fenced block lies inside the answer.
 */
#include <stdint.h>
#include <string.h>

#include "../../ai-ask/ask.h"
#include "json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data, *nul = memchr(p, '\0', size);
	size_t sl = nul ? (size_t)(nul - p) : size, al, off, len;
	const char *ans = nul ? nul + 1 : p + size;
	struct ai_err e = AI_ERR_INIT;
	cJSON *schema, *v;

	ai_json_init();
	al = nul ? size - sl - 1 : 0;
	if (schema_fenced(ans, al, &off, &len) && (off > al || len > al - off))
		__builtin_trap();
	schema = ai_json_parse(p, sl, &e);
	if (schema == NULL)
		return 0;
	ai_err_clear(&e);
	if (schema_lint(schema, &e) < 0) {
		cJSON_Delete(schema);
		return 0;
	}
	v = ai_json_parse(ans, al, &e);
	if (v != NULL) {
		ai_err_clear(&e);
		if (schema_check(schema, v, &e) < 0 &&
		    strstr(e.msg, "the answer does not follow the schema: $") != e.msg)
			__builtin_trap();
		cJSON_Delete(v);
	}
	cJSON_Delete(schema);
	return 0;
}
