/*
 * libFuzzer target: ai-ask's conversation reader (ai-ask/conv.c) and the
 * request bodies built from it by each adapter.  Whatever the records, the
 * reader either refuses them or yields a conversation every adapter can
 * turn into a body that is valid JSON.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../ai-ask/ask.h"
#include "json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct provider *const providers[] = {
		&provider_openai, &provider_chat, &provider_anthropic, &provider_ollama,
		&provider_gemini
	};
	struct ai_err e = AI_ERR_INIT;
	struct conv c;
	struct ask k;
	size_t i;

	conv_init(&c);
	if (conv_add_records(&c, (const char *)data, size, "fuzz", &e) == 0 &&
	    conv_check(&c, &e) == 0) {
		memset(&k, 0, sizeof(k));
		k.model = "m";
		for (i = 0; i < sizeof(providers) / sizeof(providers[0]); i++) {
			cJSON *b = providers[i]->body(&k, &c), *again;
			char *s = ai_json_print(b);

			again = ai_json_parse(s, strlen(s), &e);
			if (again == NULL)
				abort();
			cJSON_Delete(again);
			cJSON_Delete(b);
			free(s);
		}
	}
	conv_free(&c);
	return 0;
}
