/*
 * exa.c: the Exa search API.
 *
 * POST https://api.exa.ai/search with the key in the x-api-key header and a
 * JSON body: query, numResults (1 to 100) and contents {"highlights": true},
 * which gives each result the sentences of its page that best answer the
 * query; those are the snippet.  There is no paging and no language
 * parameter.  Freshness is startPublishedDate, an ISO 8601 time that many
 * days back.  Results carry title, url, publishedDate (ISO 8601 or null),
 * highlights (an array of strings), and with other contents summary or
 * text.  Errors are {"requestId", "error", "tag"}; 402 means the credits or
 * the key's budget are used up.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "search.h"
#include "buf.h"
#include "json.h"
#include "util.h"
#include "banned.h"

/* Cap on a snippet made of highlights, before cleaning. */
#define SNIPPET_MAX 2000

static void
build(const struct sr_search *s, const char *query, const struct sr_page *p, struct ai_buf *qs,
    struct ai_buf *body, char **hdr)
{
	static const int days[] = { 0, 1, 7, 30, 365 };
	cJSON *o = cJSON_CreateObject(), *contents = cJSON_CreateObject();
	struct ai_buf h = AI_BUF_INIT(AI_BUF_NOLIMIT);
	char *text;

	(void)qs;
	ai_json_addstr(o, "query", query);
	ai_json_addnum(o, "numResults", p->size);
	cJSON_AddItemToObject(contents, "highlights", cJSON_CreateTrue());
	cJSON_AddItemToObject(o, "contents", contents);
	if (s->freshness != SR_FRESH_NONE) {
		time_t t = (time_t)(ai_wall_ms() / 1000) - (time_t)days[s->freshness] * 86400;
		struct tm tm;
		char since[32];

		gmtime_r(&t, &tm);
		strftime(since, sizeof(since), "%Y-%m-%dT%H:%M:%S.000Z", &tm);
		ai_json_addstr(o, "startPublishedDate", since);
	}
	text = ai_json_print(o);
	ai_buf_adds(body, text);
	free(text);
	cJSON_Delete(o);
	hdr[0] = ai_xstrdup("Content-Type: application/json");
	ai_buf_addf(&h, "x-api-key: %s", s->key);
	hdr[1] = ai_buf_detach(&h, NULL);
}

/* The snippet: the highlights joined, else the summary, else the start of the text. */
static void
snippet(const cJSON *it, struct ai_buf *b)
{
	const cJSON *hl;
	const char *alt;

	cJSON_ArrayForEach(hl, ai_json_get(it, "highlights")) {
		if (!cJSON_IsString(hl) || hl->valuestring[0] == '\0')
			continue;
		if (b->len > 0)
			ai_buf_adds(b, " ... ");
		if (ai_buf_adds(b, hl->valuestring) < 0)
			break;
	}
	if (b->len > 0)
		return;
	if ((alt = ai_json_str(it, "summary")) == NULL)
		alt = ai_json_str(it, "text");
	if (alt != NULL)
		ai_buf_add(b, alt, strnlen(alt, SNIPPET_MAX));
}

static int
parse(const struct sr_search *s, const cJSON *root, sr_hit_fn fn, void *ctx, int *more,
    struct ai_err *e)
{
	const cJSON *results = ai_json_get(root, "results"), *it;
	int rc = 0;

	*more = 0;
	if (!cJSON_IsArray(results))
		return sr_shape_error(s, e, "no \"results\" array");
	cJSON_ArrayForEach(it, results) {
		struct ai_buf b = AI_BUF_INIT(SNIPPET_MAX);
		struct sr_hit h;

		if (!cJSON_IsObject(it))
			continue;
		snippet(it, &b);
		h.title = ai_json_str(it, "title");
		h.url = ai_json_str(it, "url");
		h.snippet = b.buf;
		h.date = ai_json_str(it, "publishedDate");
		rc = fn(ctx, &h, e);
		ai_buf_release(&b);
		if (rc != 0)
			break;
	}
	return rc < 0 ? -1 : 0;
}

static int
failed(const struct sr_search *s, const struct ai_http_resp *r, struct ai_err *e)
{
	cJSON *j = sr_error_json(r);
	const char *msg = ai_json_str(j, "error"), *tag = ai_json_str(j, "tag");
	const char *sep = msg ? ": " : "", *m = msg ? msg : "";
	char st[80];
	int code = e->code;

	if (r->status == 429 || r->status == 402)
		code = AI_EXIT_TEMPFAIL;
	if (msg == NULL && tag == NULL && code == e->code) {
		cJSON_Delete(j);
		return 0;
	}
	snprintf(st, sizeof(st), "HTTP %ld%s%.40s", r->status, tag ? " " : "", tag ? tag : "");
	if (r->status == 401 || r->status == 403)
		sr_error_set(s, e, code, "%s refused the API key (%s)%s%s", s->who, st, sep, m);
	else if (r->status == 402)
		sr_error_set(s, e, code, "the credits or the key's budget are used up (%s answered "
		    "%s)%s%s", s->who, st, sep, m);
	else if (r->status == 429)
		sr_error_set(s, e, code, "rate limited by %s (%s after %d attempt%s)%s%s", s->who, st,
		    r->attempts, r->attempts == 1 ? "" : "s", sep, m);
	else
		sr_error_set(s, e, code, "%s answered %s%s%s", s->who, st, sep, m);
	cJSON_Delete(j);
	return 1;
}

const struct sr_provider sr_exa = {
	.name = "exa",
	.method = "POST",
	.origin = "https://api.exa.ai",
	.path = "/search",
	.paging = SR_PAGE_NONE,
	.page_max = 100,
	.total_max = 100,
	.pages_max = 1,
	.has_lang = 0,
	.build = build,
	.parse = parse,
	.failed = failed,
};
