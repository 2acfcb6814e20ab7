/*
 * searxng.c: a SearXNG instance's search API.
 *
 * GET INSTANCE/search?q=Q&format=json, with pageno (from 1) for later
 * pages, language and time_range (day, week, month, year).  There is no
 * key and no count: the instance decides how many results a page holds, so
 * pages are fetched until enough results arrived or a page brings nothing
 * new.  An instance that has not enabled the JSON format answers 403.
 * Titles and content may hold entities; publishedDate is ISO 8601 or null.
 */
#include <string.h>

#include "search.h"
#include "json.h"
#include "msg.h"
#include "util.h"
#include "banned.h"

static void
build(const struct sr_search *s, const char *query, const struct sr_page *p, struct ai_buf *qs,
    struct ai_buf *body, char **hdr)
{
	static const char *const fresh[] = { NULL, "day", "week", "month", "year" };

	(void)body;
	(void)hdr;
	sr_param(qs, "q", query);
	sr_param(qs, "format", "json");
	if (p->index > 0)
		sr_param_u(qs, "pageno", p->index + 1);
	if (s->lang != NULL)
		sr_param(qs, "language", s->lang);
	if (s->freshness != SR_FRESH_NONE)
		sr_param(qs, "time_range", fresh[s->freshness]);
}

static int
parse(const struct sr_search *s, const cJSON *root, sr_hit_fn fn, void *ctx, int *more,
    struct ai_err *e)
{
	const cJSON *results = ai_json_get(root, "results"), *it;

	if (!cJSON_IsArray(results))
		return sr_shape_error(s, e, "no \"results\" array");
	if (s->verbose)
		/* engines that failed explain thin results: [["startpage", "CAPTCHA"]] */
		cJSON_ArrayForEach(it, ai_json_get(root, "unresponsive_engines")) {
			const char *name, *why;

			name = cJSON_IsString(cJSON_GetArrayItem(it, 0)) ?
			    cJSON_GetArrayItem(it, 0)->valuestring : NULL;
			why = cJSON_IsString(cJSON_GetArrayItem(it, 1)) ?
			    cJSON_GetArrayItem(it, 1)->valuestring : "";
			if (name != NULL)
				ai_error("searxng: engine '%s' did not answer: %s", name, why);
		}
	if (sr_each_hit(results, "title", "url", "content", "publishedDate", fn, ctx, e) < 0)
		return -1;
	*more = cJSON_GetArraySize(results) > 0;
	return 0;
}

/* 403 is an instance without the JSON format, not a refused key (there is none). */
static int
failed(const struct sr_search *s, const struct ai_http_resp *r, struct ai_err *e)
{
	if (r->status != 403)
		return 0;
	sr_error_set(s, e, AI_EXIT_CONFIG,
	    "the instance at %s refused format=json (HTTP 403); enable \"json\" in search.formats "
	    "of its settings.yml", s->who);
	return 1;
}

const struct sr_provider sr_searxng = {
	.name = "searxng",
	.method = "GET",
	.origin = NULL,
	.path = "/search",
	.paging = SR_PAGE_NUMBER,
	.page_max = 0,
	.total_max = 1000,
	.pages_max = 10,
	.has_lang = 1,
	.build = build,
	.parse = parse,
	.failed = failed,
};
