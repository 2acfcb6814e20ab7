/*
 * usage.c: weighing and pricing the tokens of one call.
 *
 * Weighted tokens are the suite's quota unit: input 1, cached input 0.25,
 * output 4 (cached tokens are part of the input tokens).  Prices are USD per
 * million tokens, from the configuration file's "prices" object first, then
 * from the table below.  A model matches an entry by its exact name, or by the
 * entry's name followed by a date or "latest" ("gpt-4o-mini-2024-07-18",
 * "claude-3-5-haiku-latest"), so that a dated snapshot is not mistaken for
 * a different model of the same family.
 */
#include <math.h>
#include <string.h>

#include "ask.h"
#include "json.h"
#include "util.h"
#include "banned.h"

/*
 * List prices, USD per million tokens: input, cached input, output, and
 * input written to the cache.  Read on 2026-11-26 from the providers' price
 * pages (OpenAI, Anthropic's "pricing" page with its 5-minute cache-write
 * column, Google's Gemini Developer API page, DeepSeek's, xAI's, Mistral's,
 * Groq's, Alibaba Cloud Model Studio's international page, Z.ai's and
 * Moonshot's) as stored in the reference copies available then.  Gemini's
 * tiered models are priced at their tier for prompts up to 200k tokens.
 * Providers that publish prices in yuan only (Ark, StepFun, 01.AI,
 * Baichuan, MiniMax's mainland API) have none here: set them in the
 * configuration's "prices".  Cache writes are priced only by Anthropic;
 * elsewhere they cost as input.
 */
#define P(in, cached, out) { in, cached, out, in }
#define PW(in, cached, out, written) { in, cached, out, written }
static const struct {
	const char *model;
	struct price p;
} builtin[] = {
	{ "claude-3-5-haiku", PW(0.80, 0.08, 4.00, 1.00) },
	{ "claude-3-5-sonnet", PW(3.00, 0.30, 15.00, 3.75) },
	{ "claude-3-7-sonnet", PW(3.00, 0.30, 15.00, 3.75) },
	{ "claude-3-haiku", PW(0.25, 0.03, 1.25, 0.30) },
	{ "claude-3-opus", PW(15.00, 1.50, 75.00, 18.75) },
	{ "claude-haiku-4-5", PW(1.00, 0.10, 5.00, 1.25) },
	{ "claude-opus-4", PW(15.00, 1.50, 75.00, 18.75) },
	{ "claude-opus-4-1", PW(15.00, 1.50, 75.00, 18.75) },
	{ "claude-opus-4-5", PW(5.00, 0.50, 25.00, 6.25) },
	{ "claude-opus-4-6", PW(5.00, 0.50, 25.00, 6.25) },
	{ "claude-sonnet-4", PW(3.00, 0.30, 15.00, 3.75) },
	{ "claude-sonnet-4-5", PW(3.00, 0.30, 15.00, 3.75) },
	{ "claude-sonnet-4-6", PW(3.00, 0.30, 15.00, 3.75) },
	{ "deepseek-chat", P(0.28, 0.028, 0.42) },
	{ "deepseek-reasoner", P(0.28, 0.028, 0.42) },
	{ "gemini-2.0-flash", P(0.10, 0.025, 0.40) },
	{ "gemini-2.0-flash-lite", P(0.075, 0.075, 0.30) },
	{ "gemini-2.5-flash", P(0.30, 0.03, 2.50) },
	{ "gemini-2.5-flash-lite", P(0.10, 0.01, 0.40) },
	{ "gemini-2.5-pro", P(1.25, 0.125, 10.00) },
	{ "gemini-3-flash", P(0.50, 0.05, 3.00) },
	{ "gemini-3-flash-preview", P(0.50, 0.05, 3.00) },
	{ "gemini-3-pro-preview", P(2.00, 0.20, 12.00) },
	{ "gemini-3.1-flash-lite", P(0.25, 0.025, 1.50) },
	{ "gemini-3.1-pro", P(2.00, 0.20, 12.00) },
	{ "gemini-3.5-flash", P(1.50, 0.15, 9.00) },
	{ "glm-4-flash", P(0, 0, 0) },
	{ "glm-4.5", P(0.60, 0.11, 2.20) },
	{ "glm-4.6", P(0.60, 0.11, 2.20) },
	{ "gpt-3.5-turbo", P(0.50, 0.50, 1.50) },
	{ "gpt-4.1", P(2.00, 0.50, 8.00) },
	{ "gpt-4.1-mini", P(0.40, 0.10, 1.60) },
	{ "gpt-4.1-nano", P(0.10, 0.025, 0.40) },
	{ "gpt-4o", P(2.50, 1.25, 10.00) },
	{ "gpt-4o-mini", P(0.15, 0.075, 0.60) },
	{ "gpt-5", P(1.25, 0.125, 10.00) },
	{ "gpt-5-mini", P(0.25, 0.025, 2.00) },
	{ "gpt-5-nano", P(0.05, 0.005, 0.40) },
	{ "gpt-5.1", P(1.25, 0.125, 10.00) },
	{ "grok-3", P(3.00, 0.75, 15.00) },
	{ "grok-3-mini", P(0.30, 0.075, 0.50) },
	{ "grok-4", P(3.00, 0.75, 15.00) },
	{ "kimi-k2-0905-preview", P(0.60, 0.15, 2.50) },
	{ "llama-3.1-8b-instant", P(0.05, 0.05, 0.08) },
	{ "llama-3.3-70b-versatile", P(0.59, 0.59, 0.79) },
	{ "mistral-large-latest", P(2.00, 2.00, 6.00) },
	{ "mistral-small-latest", P(0.10, 0.10, 0.30) },
	{ "moonshot-v1-8k", P(0.20, 0.20, 2.00) },
	{ "o3", P(2.00, 0.50, 8.00) },
	{ "o3-mini", P(1.10, 0.55, 4.40) },
	{ "o4-mini", P(1.10, 0.275, 4.40) },
	{ "qwen-max", P(1.60, 1.60, 6.40) },
	{ "qwen-plus", P(0.40, 0.40, 1.20) },
	{ "qwen-turbo", P(0.05, 0.05, 0.20) },
};
#undef P
#undef PW

/* Whether model is name, or name followed by "-DATE" or "-latest". */
static int
matches(const char *name, const char *model)
{
	size_t n = strlen(name), digits = 0;
	const char *s;

	if (strncmp(model, name, n) != 0)
		return 0;
	if (model[n] == '\0')
		return 1;
	if (model[n] != '-')
		return 0;
	s = model + n + 1;
	if (strcmp(s, "latest") == 0)
		return 1;
	while (s[digits] >= '0' && s[digits] <= '9')
		digits++;
	if (digits < 4)
		return 0;
	for (; *s; s++)
		if (!((*s >= '0' && *s <= '9') || *s == '-'))
			return 0;
	return 1;
}

static int
from_config(const cJSON *prices, const char *model, struct price *p)
{
	const cJSON *it;

	cJSON_ArrayForEach(it, prices) {
		const cJSON *in = ai_json_get(it, "input"), *out = ai_json_get(it, "output");
		const cJSON *cached = ai_json_get(it, "cached"), *w = ai_json_get(it, "cache_write");

		if (!matches(it->string, model))
			continue;
		p->input = in->valuedouble;
		p->output = out->valuedouble;
		p->cached = cJSON_IsNumber(cached) ? cached->valuedouble : in->valuedouble;
		p->cache_write = cJSON_IsNumber(w) ? w->valuedouble : in->valuedouble;
		return 1;
	}
	return 0;
}

/* The longest built-in entry that matches. */
static int
from_table(const char *model, struct price *p)
{
	size_t i, best = 0, bestlen = 0;

	for (i = 0; i < AI_ARRAY_SIZE(builtin); i++)
		if (matches(builtin[i].model, model) && strlen(builtin[i].model) > bestlen) {
			best = i;
			bestlen = strlen(builtin[i].model);
		}
	if (bestlen > 0)
		*p = builtin[best].p;
	return bestlen > 0;
}

int
price_find(const cJSON *config_prices, const char *model, const char *reported, struct price *p)
{
	const char *names[2];
	size_t i;

	names[0] = model;
	names[1] = reported != NULL && *reported ? reported : model;
	for (i = 0; i < 2; i++)
		if (config_prices != NULL && from_config(config_prices, names[i], p))
			return 1;
	for (i = 0; i < 2; i++)
		if (from_table(names[i], p))
			return 1;
	return 0;
}

int
price_check_config(const cJSON *prices, struct ai_err *e)
{
	const cJSON *it;

	cJSON_ArrayForEach(it, prices) {
		static const char *const keys[] = { "input", "output", "cached", "cache_write" };
		size_t i;

		if (!cJSON_IsObject(it))
			return ai_err_set(e, AI_EXIT_CONFIG,
			    "config file: prices: '%.100s' must be an object like "
			    "{\"input\": 0.4, \"cached\": 0.1, \"output\": 1.6}", it->string);
		for (i = 0; i < AI_ARRAY_SIZE(keys); i++) {
			const cJSON *v = ai_json_get(it, keys[i]);

			if (v == NULL && i >= 2)
				continue;
			if (!cJSON_IsNumber(v) || v->valuedouble < 0 || !isfinite(v->valuedouble))
				return ai_err_set(e, AI_EXIT_CONFIG,
				    "config file: prices: '%.100s' needs \"%s\": a price in USD per million "
				    "tokens", it->string, keys[i]);
		}
	}
	return 0;
}

double
usage_weighted(uint64_t input, uint64_t cached, uint64_t output)
{
	if (cached > input)
		cached = input;
	return (double)(input - cached) + 0.25 * (double)cached + 4.0 * (double)output;
}

double
usage_cost(const struct price *p, uint64_t input, uint64_t cached, uint64_t written,
    uint64_t output)
{
	double usd;

	if (cached > input)
		cached = input;
	if (written > input - cached)
		written = input - cached;
	usd = ((double)(input - cached - written) * p->input + (double)cached * p->cached +
	    (double)written * p->cache_write + (double)output * p->output) / 1e6;
	/* whole nano-dollars, so that the JSON shows 1.2e-05, not 1.2000000000000001e-05 */
	return (double)(int64_t)(usd * 1e9 + 0.5) / 1e9;
}
