/*
 * tavily.c: the Tavily search API.
 *
 * POST https://api.tavily.com/search with the key as "Authorization:
 * Bearer KEY" (what Tavily's own client sends) and a JSON body: query,
 * max_results (at most 20) and time_range (day, week, month, year).  There
 * is no paging and no language parameter.  Results carry title, url and
 * content (text, sometimes with Markdown); published_date only comes with
 * the "news" topic, which ai-search does not ask for.  Errors are
 * {"detail":{"error":"..."}}; 432 and 433 mean a plan or spending limit.
 */
#include <stdlib.h>
#include <string.h>

#include "search.h"
#include "buf.h"
#include "json.h"
#include "util.h"
#include "banned.h"

static void
build(const struct sr_search *s, const char *query, const struct sr_page *p, struct ai_buf *qs,
    struct ai_buf *body, char **hdr)
{
	static const char *const fresh[] = { NULL, "day", "week", "month", "year" };
	cJSON *o = cJSON_CreateObject();
	struct ai_buf h = AI_BUF_INIT(AI_BUF_NOLIMIT);
	char *text;

	(void)qs;
	ai_json_addstr(o, "query", query);
	ai_json_addnum(o, "max_results", p->size);
	if (s->freshness != SR_FRESH_NONE)
		ai_json_addstr(o, "time_range", fresh[s->freshness]);
	text = ai_json_print(o);
	ai_buf_adds(body, text);
	free(text);
	cJSON_Delete(o);
	hdr[0] = ai_xstrdup("Content-Type: application/json");
	ai_buf_addf(&h, "Authorization: Bearer %s", s->key);
	hdr[1] = ai_buf_detach(&h, NULL);
}

static int
parse(const struct sr_search *s, const cJSON *root, sr_hit_fn fn, void *ctx, int *more,
    struct ai_err *e)
{
	const cJSON *results = ai_json_get(root, "results");

	*more = 0;
	if (!cJSON_IsArray(results))
		return sr_shape_error(s, e, "no \"results\" array");
	return sr_each_hit(results, "title", "url", "content", "published_date", fn, ctx, e);
}

static int
failed(const struct sr_search *s, const struct ai_http_resp *r, struct ai_err *e)
{
	cJSON *j = sr_error_json(r);
	const char *detail = ai_json_str(ai_json_get(j, "detail"), "error");
	int code = e->code;

	if (detail == NULL)
		detail = ai_json_str(j, "detail");
	if (r->status == 429 || r->status == 432 || r->status == 433)
		code = AI_EXIT_TEMPFAIL;
	if (detail == NULL && code == e->code) {
		cJSON_Delete(j);
		return 0;
	}
	if (r->status == 401 || r->status == 403)
		sr_error_set(s, e, code, "%s refused the API key (HTTP %ld): %s", s->who, r->status,
		    detail ? detail : "");
	else if (r->status == 432 || r->status == 433)
		sr_error_set(s, e, code, "the %s limit is reached (%s answered HTTP %ld): %s",
		    r->status == 432 ? "plan's usage" : "pay-as-you-go", s->who, r->status,
		    detail ? detail : "");
	else if (r->status == 429)
		sr_error_set(s, e, code, "rate limited by %s (HTTP 429 after %d attempt%s): %s", s->who,
		    r->attempts, r->attempts == 1 ? "" : "s", detail ? detail : "");
	else
		sr_error_set(s, e, code, "%s answered HTTP %ld: %s", s->who, r->status,
		    detail ? detail : "");
	cJSON_Delete(j);
	return 1;
}

const struct sr_provider sr_tavily = {
	.name = "tavily",
	.method = "POST",
	.origin = "https://api.tavily.com",
	.path = "/search",
	.paging = SR_PAGE_NONE,
	.page_max = 20,
	.total_max = 20,
	.pages_max = 1,
	.has_lang = 0,
	.build = build,
	.parse = parse,
	.failed = failed,
};
