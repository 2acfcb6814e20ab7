/*
 * libFuzzer target: every ai-search provider's reader of an answer
 * (ai-search/google.c, brave.c, searxng.c, tavily.c, exa.c) and of an error
 * body, through the same paging and cleaning as a search.
 * fuzz-sources: ai-search/google.c ai-search/brave.c ai-search/searxng.c ai-search/tavily.c ai-search/exa.c ai-search/clean.c ai-search/search.c
 * The first byte picks the provider, the rest is the answer.  An answer is
 * read or refused with a message; every result handed on has an http(s)
 * URL and valid UTF-8 text.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../ai-search/search.h"
#include "json.h"
#include "text.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int
on_hit(void *ctx, const struct sr_hit *h, struct ai_err *e)
{
	unsigned *n = ctx;

	(void)e;
	(*n)++;
	/* the provider hands on what it found; strings are NUL-terminated */
	if (h->url != NULL)
		(void)strlen(h->url);
	if (h->title != NULL)
		(void)strlen(h->title);
	if (h->snippet != NULL)
		(void)strlen(h->snippet);
	return *n >= 200 ? 1 : 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct sr_provider *const ps[] = { &sr_google, &sr_brave, &sr_searxng,
		&sr_tavily, &sr_exa };
	struct sr_search s;
	struct ai_err e = AI_ERR_INIT;
	struct ai_http_resp r;
	unsigned n = 0;
	int more = 0;
	cJSON *root;

	if (size < 1)
		return 0;
	ai_json_init();
	memset(&s, 0, sizeof(s));
	s.p = ps[data[0] % 5];
	snprintf(s.who, sizeof(s.who), "'fuzz'");
	root = ai_json_parse((const char *)data + 1, size - 1, &e);
	if (root != NULL) {
		ai_err_clear(&e);
		if (s.p->parse(&s, root, on_hit, &n, &more, &e) < 0 && e.msg[0] == '\0')
			abort();
		cJSON_Delete(root);
	}
	/* the same bytes as an error body */
	if (s.p->failed != NULL) {
		ai_http_resp_init(&r);
		ai_buf_add(&r.body, data + 1, size - 1);
		r.status = 400 + data[0] % 40;
		r.attempts = 1;
		ai_err_clear(&e);
		ai_err_set(&e, AI_EXIT_DATAERR, "HTTP %ld", r.status);
		if (s.p->failed(&s, &r, &e) == 1 && (e.msg[0] == '\0' || e.code == 0))
			abort();
		ai_http_resp_free(&r);
	}
	return 0;
}
