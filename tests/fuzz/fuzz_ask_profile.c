/*
 * libFuzzer target: what ai-ask reads of the configuration's "providers"
 * and "aliases" (ai-ask/profile.c), and the size of --max-attach
 * (ai-ask/attach.c).  The input is a configuration object; every profile
 * it names is resolved.  A profile that resolves has an adapter and a base
 * URL; a size that parses is from 1 byte to 100 MiB.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../ai-ask/ask.h"
#include "config.h"
#include "json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ai_config cfg = AI_CONFIG_INIT;
	struct ai_err e = AI_ERR_INIT;
	char *s = malloc(size + 1);
	const cJSON *it;
	uint64_t v;

	memcpy(s, data, size);
	s[size] = '\0';
	if (attach_parse_size(s, &v) == 0 && (v == 0 || v > ((uint64_t)100 << 20)))
		abort();
	cfg.path = "fuzz.json";
	cfg.file = ai_json_parse(s, size, &e);
	if (cJSON_IsObject(cfg.file)) {
		cJSON_ArrayForEach(it, ai_config_object(&cfg, "providers")) {
			struct prof pr;
			struct ai_err pe = AI_ERR_INIT;

			if (profile_get(&cfg, it->string, "config file", &pr, &pe) == 0 &&
			    (pr.p == NULL || pr.base_def == NULL))
				abort();
		}
		cJSON_ArrayForEach(it, ai_config_object(&cfg, "aliases")) {
			const char *model = it->string, *prov;
			struct ai_err ae = AI_ERR_INIT;

			if (profile_alias(&cfg, &model, &prov, &ae) == 0 && (model == NULL || *model == '\0'))
				abort();
		}
	}
	cJSON_Delete(cfg.file);
	free(s);
	return 0;
}
