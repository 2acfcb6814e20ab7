/*
 * google.c: the Custom Search JSON API (Programmable Search Engine).
 *
 * GET https://www.googleapis.com/customsearch/v1?key=KEY&cx=CX&q=Q&num=N
 * with start (1-based) for later pages, lr/hl for a language and
 * dateRestrict for freshness.  num is at most 10 and a query gives at
 * most 100 results: start=91&num=10 is the last page (the reference says
 * start + num may not pass 100, but the API serves it; see
 * googleapis/google-api-go-client#2025).  Titles and snippets are
 * read from htmlTitle/htmlSnippet, which are HTML (the plain ones cannot
 * tell a literal "<b>" from markup).  Google gives no date field: the date
 * comes from the page's article:published_time meta tag, or from the
 * "Jul 15, 2015 ..." that Google puts in front of some snippets.
 */
#include <stdio.h>
#include <string.h>

#include "search.h"
#include "clean.h"
#include "json.h"
#include "util.h"
#include "banned.h"

static void
build(const struct sr_search *s, const char *query, const struct sr_page *p, struct ai_buf *qs,
    struct ai_buf *body, char **hdr)
{
	static const char *const fresh[] = { NULL, "d1", "w1", "m1", "y1" };

	(void)body;
	(void)hdr;
	sr_param(qs, "key", s->key);
	sr_param(qs, "cx", s->cx);
	sr_param(qs, "q", query);
	sr_param_u(qs, "num", p->size);
	if (p->offset > 0)
		sr_param_u(qs, "start", p->offset + 1);
	if (s->lang != NULL) {
		char lang[9], script[5], region[4], lr[32];

		sr_lang_parts(s->lang, lang, script, region);
		if (strcmp(lang, "zh") == 0)
			/* Google knows Chinese only as lang_zh-CN and lang_zh-TW */
			snprintf(lr, sizeof(lr), "lang_zh-%s",
			    strcmp(script, "hant") == 0 || strcmp(region, "tw") == 0 ||
			    strcmp(region, "hk") == 0 || strcmp(region, "mo") == 0 ? "TW" : "CN");
		else
			snprintf(lr, sizeof(lr), "lang_%s", lang);
		sr_param(qs, "lr", lr);
		sr_param(qs, "hl", s->lang);
	}
	if (s->freshness != SR_FRESH_NONE)
		sr_param(qs, "dateRestrict", fresh[s->freshness]);
}

/* The date of an item: its page's publication time, or the date Google starts the snippet with. */
static const char *
item_date(const cJSON *item)
{
	const cJSON *meta = cJSON_GetArrayItem(ai_json_get(ai_json_get(item, "pagemap"), "metatags"), 0);
	const char *d = ai_json_str(meta, "article:published_time"), *snip;
	char out[32];
	size_t used;

	if (d != NULL)
		return d;
	snip = ai_json_str(item, "snippet");
	if (snip != NULL && sr_date(snip, out, sizeof(out), &used) == 0 &&
	    strncmp(snip + used, " ...", 4) == 0)
		return snip;
	return NULL;
}

static int
parse(const struct sr_search *s, const cJSON *root, sr_hit_fn fn, void *ctx, int *more,
    struct ai_err *e)
{
	const cJSON *items = ai_json_get(root, "items"), *it;
	struct sr_hit h;
	int rc;

	if (!cJSON_IsObject(root))
		return sr_shape_error(s, e, "not a JSON object");
	/* no "items" is how Google says there are no results */
	if (items == NULL || cJSON_IsNull(items))
		return 0;
	if (!cJSON_IsArray(items))
		return sr_shape_error(s, e, "\"items\" is not an array");
	cJSON_ArrayForEach(it, items) {
		if (!cJSON_IsObject(it))
			continue;
		h.title = ai_json_str(it, "htmlTitle");
		if (h.title == NULL)
			h.title = ai_json_str(it, "title");
		h.url = ai_json_str(it, "link");
		h.snippet = ai_json_str(it, "htmlSnippet");
		if (h.snippet == NULL)
			h.snippet = ai_json_str(it, "snippet");
		h.date = item_date(it);
		if ((rc = fn(ctx, &h, e)) != 0)
			return rc < 0 ? -1 : 0;
	}
	*more = cJSON_GetArraySize(ai_json_get(ai_json_get(root, "queries"), "nextPage")) > 0;
	return 0;
}

/* Whether one of Google's reasons for an error is r. */
static int
has_reason(const cJSON *err, const char *r)
{
	const cJSON *it;
	const char *st = ai_json_str(err, "status");

	if (st != NULL && strcmp(st, r) == 0)
		return 1;
	cJSON_ArrayForEach(it, ai_json_get(err, "errors")) {
		const char *v = ai_json_str(it, "reason");

		if (v != NULL && strcmp(v, r) == 0)
			return 1;
	}
	cJSON_ArrayForEach(it, ai_json_get(err, "details")) {
		const char *v = ai_json_str(it, "reason");

		if (v != NULL && strcmp(v, r) == 0)
			return 1;
	}
	return 0;
}

/* The most specific reason Google gives: errors[].reason, details[].reason, then status. */
static const char *
first_reason(const cJSON *err)
{
	const char *r = ai_json_str(cJSON_GetArrayItem(ai_json_get(err, "errors"), 0), "reason");

	if (r == NULL)
		r = ai_json_str(cJSON_GetArrayItem(ai_json_get(err, "details"), 0), "reason");
	if (r == NULL)
		r = ai_json_str(err, "status");
	return r ? r : "";
}

/*
 * Google reports a used-up quota as 403 dailyLimitExceeded (lib reads 403
 * as a refused key) or as 429 RESOURCE_EXHAUSTED/rateLimitExceeded, and a
 * bad key as 400 API_KEY_INVALID (lib reads 400 as a rejected request).
 */
static int
failed(const struct sr_search *s, const struct ai_http_resp *r, struct ai_err *e)
{
	static const char *const quota[] = {
		"dailyLimitExceeded", "rateLimitExceeded", "userRateLimitExceeded", "quotaExceeded",
		"RESOURCE_EXHAUSTED", "RATE_LIMIT_EXCEEDED",
	};
	static const char *const badkey[] = { "API_KEY_INVALID", "keyInvalid", "keyExpired" };
	cJSON *j = sr_error_json(r);
	const cJSON *err = ai_json_get(j, "error");
	const char *msg = ai_json_str(err, "message"), *why = first_reason(err);
	size_t i;
	int done = 0;

	if (msg == NULL)
		msg = "";
	for (i = 0; i < AI_ARRAY_SIZE(quota) && !done; i++) {
		if (!has_reason(err, quota[i]))
			continue;
		if (has_reason(err, "dailyLimitExceeded") || strstr(msg, "per day") != NULL)
			sr_error_set(s, e, AI_EXIT_TEMPFAIL,
			    "the daily query quota is used up (%s answered HTTP %ld %s): %s%s", s->who,
			    r->status, why, msg, strstr(msg, "midnight") ? "" :
			    "; Google resets it at midnight Pacific time");
		else
			sr_error_set(s, e, AI_EXIT_TEMPFAIL,
			    "the query rate limit was reached (%s answered HTTP %ld %s after %d attempt%s): %s",
			    s->who, r->status, why, r->attempts, r->attempts == 1 ? "" : "s", msg);
		done = 1;
	}
	for (i = 0; i < AI_ARRAY_SIZE(badkey) && !done; i++) {
		if (!has_reason(err, badkey[i]))
			continue;
		sr_error_set(s, e, AI_EXIT_CONFIG, "%s refused the API key (HTTP %ld %s): %s", s->who,
		    r->status, why, msg);
		done = 1;
	}
	cJSON_Delete(j);
	return done;
}

const struct sr_provider sr_google = {
	.name = "google_cse",
	.method = "GET",
	.origin = "https://www.googleapis.com",
	.path = "/customsearch/v1",
	.paging = SR_PAGE_START,
	.page_max = 10,
	.total_max = 100,
	.pages_max = 10,
	.has_lang = 1,
	.build = build,
	.parse = parse,
	.failed = failed,
};
