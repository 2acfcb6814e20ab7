/*
 * brave.c: the Brave Web Search API.
 *
 * GET https://api.search.brave.com/res/v1/web/search?q=Q&count=N with the
 * key in the X-Subscription-Token header.  count is at most 20; offset
 * counts pages of count results (at most 9), so every page of one query
 * asks for the same count.  search_lang takes Brave's own codes: "jp" for
 * Japanese, "zh-hans"/"zh-hant", "pt-br"/"pt-pt", "en-gb".  freshness is
 * pd/pw/pm/py.  Descriptions carry <strong> markup and entities; page_age
 * is an ISO 8601 date.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "search.h"
#include "buf.h"
#include "json.h"
#include "util.h"
#include "banned.h"

/* Brave's search_lang for a language tag. */
static void
brave_lang(const char *tag, char *out, size_t n)
{
	char lang[9], script[5], region[4];

	sr_lang_parts(tag, lang, script, region);
	if (strcmp(lang, "ja") == 0)
		snprintf(out, n, "jp");
	else if (strcmp(lang, "zh") == 0)
		snprintf(out, n, "zh-%s", strcmp(script, "hant") == 0 || strcmp(region, "tw") == 0 ||
		    strcmp(region, "hk") == 0 || strcmp(region, "mo") == 0 ? "hant" : "hans");
	else if (strcmp(lang, "pt") == 0)
		snprintf(out, n, "pt-%s", strcmp(region, "pt") == 0 ? "pt" : "br");
	else if (strcmp(lang, "en") == 0 && strcmp(region, "gb") == 0)
		snprintf(out, n, "en-gb");
	else if (strcmp(lang, "no") == 0)
		snprintf(out, n, "nb");
	else
		snprintf(out, n, "%s", lang);
}

static void
build(const struct sr_search *s, const char *query, const struct sr_page *p, struct ai_buf *qs,
    struct ai_buf *body, char **hdr)
{
	static const char *const fresh[] = { NULL, "pd", "pw", "pm", "py" };
	struct ai_buf h = AI_BUF_INIT(AI_BUF_NOLIMIT);

	(void)body;
	sr_param(qs, "q", query);
	sr_param_u(qs, "count", p->size);
	if (p->index > 0)
		sr_param_u(qs, "offset", p->index);
	if (s->lang != NULL) {
		char lang[16];

		brave_lang(s->lang, lang, sizeof(lang));
		sr_param(qs, "search_lang", lang);
	}
	if (s->freshness != SR_FRESH_NONE)
		sr_param(qs, "freshness", fresh[s->freshness]);
	ai_buf_addf(&h, "X-Subscription-Token: %s", s->key);
	hdr[0] = ai_buf_detach(&h, NULL);
}

static int
parse(const struct sr_search *s, const cJSON *root, sr_hit_fn fn, void *ctx, int *more,
    struct ai_err *e)
{
	const cJSON *web = ai_json_get(root, "web"), *results;

	if (!cJSON_IsObject(root))
		return sr_shape_error(s, e, "not a JSON object");
	/* Brave leaves "web" out when nothing matched */
	if (web == NULL)
		return 0;
	results = ai_json_get(web, "results");
	if (!cJSON_IsArray(results))
		return sr_shape_error(s, e, "no \"web.results\" array");
	if (sr_each_hit(results, "title", "url", "description", "page_age", fn, ctx, e) < 0)
		return -1;
	*more = ai_json_bool(ai_json_get(root, "query"), "more_results_available", 0) == 1;
	return 0;
}

/*
 * Brave's errors: {"type":"ErrorResponse","error":{"code":"RATE_LIMITED",
 * "detail":"...","status":429,"meta":{"plan":"Free","rate_limit":1,
 * "quota_limit":2000,"quota_current":15,...}}}; a bad key is 422
 * SUBSCRIPTION_TOKEN_INVALID, a bad parameter 422 VALIDATION with
 * meta.errors[] naming it.
 */
static int
failed(const struct sr_search *s, const struct ai_http_resp *r, struct ai_err *e)
{
	cJSON *j = sr_error_json(r);
	const cJSON *err = ai_json_get(j, "error"), *meta = ai_json_get(err, "meta"), *it;
	const char *code = ai_json_str(err, "code"), *detail = ai_json_str(err, "detail");
	const char *plan = ai_json_str(meta, "plan");
	struct ai_buf why = AI_BUF_INIT(2048);
	uint64_t rate = 0, limit = 0, used = 0;
	int have_quota;

	if (!cJSON_IsObject(err) || code == NULL) {
		cJSON_Delete(j);
		return 0;
	}
	ai_buf_adds(&why, detail ? detail : "");
	cJSON_ArrayForEach(it, ai_json_get(meta, "errors")) {
		const cJSON *loc = ai_json_get(it, "loc");
		const cJSON *last = cJSON_GetArrayItem(loc, cJSON_GetArraySize(loc) - 1);
		const char *m = ai_json_str(it, "msg");

		if (m != NULL)
			ai_buf_addf(&why, "; %s%s%s", cJSON_IsString(last) ? last->valuestring : "",
			    cJSON_IsString(last) ? ": " : "", m);
	}
	ai_json_u64(meta, "rate_limit", &rate);
	have_quota = ai_json_u64(meta, "quota_limit", &limit) == 1 &&
	    ai_json_u64(meta, "quota_current", &used) == 1 && limit > 0;
	if (strcmp(code, "SUBSCRIPTION_TOKEN_INVALID") == 0 || r->status == 401 || r->status == 403) {
		sr_error_set(s, e, AI_EXIT_CONFIG, "%s refused the API key (HTTP %ld %s): %s", s->who,
		    r->status, code, why.buf);
	} else if (r->status == 429 || strcmp(code, "RATE_LIMITED") == 0) {
		if (have_quota && used >= limit) {
			sr_error_set(s, e, AI_EXIT_TEMPFAIL,
			    "the monthly quota of %llu requests is used up (%s answered HTTP %ld %s): %s",
			    (unsigned long long)limit, s->who, r->status, code, why.buf);
		} else {
			/* what the plan allows is what a script can act on */
			if (plan || rate > 0 || have_quota)
				ai_buf_addf(&why, "; %s%s", plan ? "plan " : "the plan", plan ? plan : "");
			if (rate > 0)
				ai_buf_addf(&why, " allows %llu request%s per second",
				    (unsigned long long)rate, rate == 1 ? "" : "s");
			if (have_quota)
				ai_buf_addf(&why, "%s %llu of %llu requests used this month",
				    rate > 0 ? "," : ":", (unsigned long long)used,
				    (unsigned long long)limit);
			sr_error_set(s, e, AI_EXIT_TEMPFAIL,
			    "rate limited by %s (HTTP %ld %s after %d attempt%s): %s", s->who,
			    r->status, code, r->attempts, r->attempts == 1 ? "" : "s", why.buf);
		}
	} else {
		sr_error_set(s, e, e->code, "%s answered HTTP %ld %s: %s", s->who, r->status, code,
		    why.buf);
	}
	ai_buf_release(&why);
	cJSON_Delete(j);
	return 1;
}

const struct sr_provider sr_brave = {
	.name = "brave",
	.method = "GET",
	.origin = "https://api.search.brave.com",
	.path = "/res/v1/web/search",
	.paging = SR_PAGE_FIXED,
	.page_max = 20,
	.total_max = 200,
	.pages_max = 10,
	.has_lang = 1,
	.build = build,
	.parse = parse,
	.failed = failed,
};
