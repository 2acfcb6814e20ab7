/*
 * profile.c: the provider profile of a run, and model aliases.
 *
 * A profile is built in (lib/profiles.c) or defined by the configuration
 * file's "providers" object, whose entry of the same name changes a built-in
 * one member by member:
 *
 *   "providers": {
 *     "deepseek": {"model": "deepseek-reasoner"},
 *     "work": {"adapter": "openai-chat", "base_url": "https://llm.example/v1",
 *              "key_env": "WORK_LLM_KEY", "headers": {"X-Team": "infra"}}
 *   }
 *
 * Each profile has its own key and base URL, so a key only ever goes to
 * the host its own profile names.  A profile of the configuration's own
 * needs a key unless it is an Ollama server, or an OpenAI-compatible one on
 * a loopback address, or one whose headers carry its credential; with "key"
 * or "key_env" it needs and sends that key.
 */
#include <stdlib.h>
#include <string.h>

#include "ask.h"
#include "config.h"
#include "json.h"
#include "profiles.h"
#include "util.h"
#include "banned.h"

static const struct {
	const char *name;
	const struct provider *p;
} adapters[] = {
	{ "openai", &provider_openai },
	{ "openai-chat", &provider_chat },
	{ "anthropic", &provider_anthropic },
	{ "gemini", &provider_gemini },
	{ "ollama", &provider_ollama },
};

static const struct provider *
adapter(const char *name)
{
	size_t i;

	for (i = 0; i < AI_ARRAY_SIZE(adapters); i++)
		if (strcmp(adapters[i].name, name) == 0)
			return adapters[i].p;
	return NULL;
}

const char *
profile_names(void)
{
	static char buf[512];
	size_t i, n = 0;

	if (buf[0])
		return buf;
	for (i = 0; i < ai_nprofiles && n < sizeof(buf); i++)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%s", i == 0 ? "" :
		    i + 1 == ai_nprofiles ? " or " : ", ", ai_profiles[i].name);
	return buf;
}

static void
lower(char *out, size_t n, const char *var)
{
	size_t i;

	for (i = 0; var != NULL && var[i] && i + 1 < n; i++)
		out[i] = var[i] >= 'A' && var[i] <= 'Z' ? (char)(var[i] - 'A' + 'a') : var[i];
	out[var != NULL && i < n ? i : 0] = '\0';
}

static int
bad_entry(const struct ai_config *cfg, const char *name, const char *what, struct ai_err *e)
{
	return ai_err_set(e, AI_EXIT_CONFIG, "config file '%s': providers: '%.64s': %s",
	    cfg->path ? cfg->path : "?", name, what);
}

/* A header name is a token; a value holds no control character. */
static int
check_headers(const struct ai_config *cfg, const char *name, const cJSON *h, struct ai_err *e)
{
	const cJSON *it;

	if (!cJSON_IsObject(h))
		return bad_entry(cfg, name, "\"headers\" must be an object of strings", e);
	cJSON_ArrayForEach(it, h) {
		const char *s;

		if (!cJSON_IsString(it))
			return bad_entry(cfg, name, "\"headers\" must be an object of strings", e);
		for (s = it->string; *s; s++)
			if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
			    (*s >= '0' && *s <= '9') || strchr("!#$%&'*+-.^_`|~", *s)))
				return bad_entry(cfg, name, "a header name may hold only letters, digits "
				    "and !#$%&'*+-.^_`|~", e);
		if (it->string[0] == '\0')
			return bad_entry(cfg, name, "a header name is empty", e);
		for (s = it->valuestring; *s; s++)
			if ((unsigned char)*s < 0x20 || *s == 0x7f)
				return bad_entry(cfg, name, "a header value holds a control character", e);
	}
	return 0;
}

/*
 * A profile whose headers carry its credential (Azure's "api-key", a
 * gateway's "Authorization") needs no key of the suite's; one with a key
 * may not set the header the key goes in.
 */
static int
own_credentials(const struct ai_config *cfg, const char *name, const cJSON *ent, const cJSON *h,
    struct prof *pr, struct ai_err *e)
{
	static const char *const auth[] = { "authorization", "x-api-key", "x-goog-api-key", "api-key",
		NULL };
	int with_key = ai_json_get(ent, "key") != NULL || ai_json_get(ent, "key_env") != NULL;
	const cJSON *it;
	size_t i;

	cJSON_ArrayForEach(it, h)
		for (i = 0; auth[i] != NULL; i++) {
			if (strcasecmp(it->string, auth[i]) != 0)
				continue;
			if (with_key)
				return bad_entry(cfg, name, "\"headers\" may not set the header of the key "
				    "(Authorization, x-api-key, x-goog-api-key, api-key) with \"key\" or "
				    "\"key_env\"", e);
			pr->flags |= AI_PROFILE_NO_KEY;
		}
	return 0;
}

/* Check an entry of "providers" and lay it over pr. */
static int
overlay(const struct ai_config *cfg, const char *name, const cJSON *ent, struct prof *pr,
    struct ai_err *e)
{
	static const char *const members[] = { "adapter", "base_url", "key", "key_env", "model",
		"headers", NULL };
	const cJSON *it;
	const char *s;
	size_t i;

	if (!cJSON_IsObject(ent))
		return bad_entry(cfg, name, "must be an object", e);
	cJSON_ArrayForEach(it, ent) {
		for (i = 0; members[i] != NULL; i++)
			if (strcmp(members[i], it->string) == 0)
				break;
		if (members[i] == NULL) {
			char why[160];

			snprintf(why, sizeof(why), "unknown member '%.40s' (adapter, base_url, key, "
			    "key_env, model, headers)", it->string);
			return bad_entry(cfg, name, why, e);
		}
		if (strcmp(it->string, "headers") != 0 && (!cJSON_IsString(it) || !it->valuestring[0])) {
			char why[96];

			snprintf(why, sizeof(why), "\"%s\" must be a non-empty string", it->string);
			return bad_entry(cfg, name, why, e);
		}
	}
	if ((s = ai_json_str(ent, "adapter")) != NULL && (pr->p = adapter(s)) == NULL)
		return bad_entry(cfg, name, "\"adapter\" must be openai, openai-chat, anthropic, "
		    "gemini or ollama", e);
	if (pr->p == NULL)
		return bad_entry(cfg, name, "a profile of its own needs an \"adapter\"", e);
	if (pr->base_env == NULL && pr->p == &provider_ollama)
		pr->flags |= AI_PROFILE_NO_KEY;
	else if (pr->base_env == NULL && pr->p == &provider_chat)
		pr->flags |= AI_PROFILE_KEYLESS_LOOPBACK;
	if ((s = ai_json_str(ent, "base_url")) != NULL)
		pr->base_def = s;
	if (pr->base_def == NULL)
		return bad_entry(cfg, name, "a profile of its own needs a \"base_url\"", e);
	if ((s = ai_json_str(ent, "key_env")) != NULL) {
		pr->key_env[0] = s;
		pr->key_env[1] = NULL;
		pr->key_file[0] = '\0';
		pr->flags &= ~(unsigned)(AI_PROFILE_NO_KEY | AI_PROFILE_KEYLESS_LOOPBACK);
	}
	if ((s = ai_json_str(ent, "key")) != NULL) {
		pr->key = s;
		pr->flags &= ~(unsigned)(AI_PROFILE_NO_KEY | AI_PROFILE_KEYLESS_LOOPBACK);
	}
	if ((s = ai_json_str(ent, "model")) != NULL)
		pr->model = s;
	if ((it = ai_json_get(ent, "headers")) != NULL) {
		if (check_headers(cfg, name, it, e) < 0 ||
		    own_credentials(cfg, name, ent, it, pr, e) < 0)
			return -1;
		pr->headers = it;
	}
	return 0;
}

int
profile_get(const struct ai_config *cfg, const char *name, const char *from, struct prof *pr,
    struct ai_err *e)
{
	const struct ai_profile *b = ai_profile_find(name);
	const cJSON *ent = ai_json_get(ai_config_object(cfg, "providers"), name);

	memset(pr, 0, sizeof(*pr));
	pr->name = name;
	if (b != NULL) {
		pr->p = adapter(b->adapter);
		pr->base_def = b->base_url;
		pr->key_env[0] = b->key_env;
		pr->key_env[1] = b->key_env2;
		pr->base_env = b->base_env;
		lower(pr->key_file, sizeof(pr->key_file), b->key_env);
		lower(pr->base_file, sizeof(pr->base_file), b->base_env);
		pr->model = b->model;
		pr->flags = b->flags;
	} else if (ent == NULL) {
		char why[700];

		snprintf(why, sizeof(why), "is not a provider: %s, or one of the config file's "
		    "\"providers\"", profile_names());
		return ai_config_bad(cfg, from, "provider", name, why, e);
	}
	return ent != NULL ? overlay(cfg, name, ent, pr, e) : 0;
}

const char *
profile_for_model(const char *model)
{
	if (model == NULL)
		return NULL;
	if (strncmp(model, "claude-", 7) == 0)
		return "anthropic";
	if (strncmp(model, "gemini-", 7) == 0 || strncmp(model, "models/gemini-", 14) == 0)
		return "gemini";
	return NULL;
}

int
profile_alias(const struct ai_config *cfg, const char **model, const char **provider,
    struct ai_err *e)
{
	const cJSON *a = ai_json_get(ai_config_object(cfg, "aliases"), *model);
	const char *m;

	*provider = NULL;
	if (a == NULL)
		return 0;
	if (cJSON_IsString(a) && a->valuestring[0]) {
		*model = a->valuestring;
		return 0;
	}
	m = ai_json_str(a, "model");
	if (!cJSON_IsObject(a) || m == NULL || *m == '\0' ||
	    (ai_json_get(a, "provider") != NULL && ai_json_str(a, "provider") == NULL))
		return ai_err_set(e, AI_EXIT_CONFIG, "config file '%s': aliases: '%.64s' must be a "
		    "model name, or an object {\"model\": ..., \"provider\": ...}",
		    cfg->path ? cfg->path : "?", *model);
	*model = m;
	*provider = ai_json_str(a, "provider");
	return 0;
}

/*
 * Models that take no tool declarations.  DeepSeek's reasoning model (R1)
 * rejects them.
 */
int
profile_model_tools(const char *model)
{
	return strcmp(model, "deepseek-reasoner") != 0 && strncmp(model, "deepseek-r1", 11) != 0;
}
