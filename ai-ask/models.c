/*
 * models.c: ai-ask --models, the models a provider offers.
 *
 * Each adapter's own listing: GET {base}/models for OpenAI and every
 * OpenAI-compatible profile, {base}/v1/models for Anthropic (pages of up to
 * 1000 after after_id), {base}/v1beta/models for Gemini (pages by
 * pageToken), {base}/api/tags for Ollama.  One "model" record per model,
 * in the provider's order, or one name per line on a terminal.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ask.h"
#include "http.h"
#include "io.h"
#include "json.h"
#include "msg.h"
#include "record.h"
#include "text.h"
#include "url.h"
#include "util.h"
#include "banned.h"

#define MODELS_MAX_PAGES 50

struct listing {
	struct opts *o;
	int text;               /* one name per line */
	size_t count;
};

static int
emit(struct listing *l, const char *id, const char *name, const char *owner, struct ai_err *e)
{
	cJSON *r;
	int rc;

	if (id == NULL || *id == '\0')
		return 0;
	l->count++;
	if (l->text) {
		struct ai_buf b = AI_BUF_INIT(AI_BUF_NOLIMIT);

		ai_term_sanitize(&b, id, strlen(id));
		ai_buf_addc(&b, '\n');
		rc = ai_out_write(stdout, b.buf, b.len, e);
		ai_buf_release(&b);
		return rc < 0 ? -1 : 0;
	}
	r = ai_record_new("model");
	ai_json_addstr(r, "id", id);
	ai_json_addstr(r, "provider", l->o->profile);
	if (name != NULL && strcmp(name, id) != 0)
		ai_json_addstr(r, "name", name);
	if (owner != NULL)
		ai_json_addstr(r, "owned_by", owner);
	rc = ai_record_write(stdout, r, e);
	cJSON_Delete(r);
	return rc;
}

/* One page: its models written; *next the token or id of the next page, or NULL. */
static int
take_page(struct listing *l, const cJSON *v, char **next, struct ai_err *e)
{
	const struct provider *p = l->o->k.p;
	const cJSON *m;
	const char *s;

	*next = NULL;
	if (p == &provider_gemini) {
		cJSON_ArrayForEach(m, ai_json_get(v, "models")) {
			const char *name = ai_json_str(m, "name");

			if (name != NULL && strncmp(name, "models/", 7) == 0)
				name += 7;
			if (emit(l, name, ai_json_str(m, "displayName"), NULL, e) < 0)
				return -1;
		}
		if ((s = ai_json_str(v, "nextPageToken")) != NULL && *s)
			*next = ai_xstrdup(s);
		return 0;
	}
	if (p == &provider_ollama) {
		cJSON_ArrayForEach(m, ai_json_get(v, "models"))
			if (emit(l, ai_json_str(m, "name") ? ai_json_str(m, "name") :
			    ai_json_str(m, "model"), NULL, NULL, e) < 0)
				return -1;
		return 0;
	}
	cJSON_ArrayForEach(m, ai_json_get(v, "data"))
		if (emit(l, ai_json_str(m, "id"), ai_json_str(m, "display_name"),
		    ai_json_str(m, "owned_by"), e) < 0)
			return -1;
	if (p == &provider_anthropic && ai_json_bool(v, "has_more", 0) == 1 &&
	    (s = ai_json_str(v, "last_id")) != NULL && *s)
		*next = ai_xstrdup(s);
	return 0;
}

static char *
page_url(const struct opts *o, const char *next)
{
	struct ai_buf b = AI_BUF_INIT(AI_BUF_NOLIMIT);
	const struct provider *p = o->k.p;

	if (p == &provider_gemini)
		ai_buf_addf(&b, "%s/models?pageSize=1000", gemini_root(o->base, &b));
	else if (p == &provider_anthropic)
		ai_buf_addf(&b, "%s/v1/models?limit=1000", o->base);
	else if (p == &provider_ollama)
		ai_buf_addf(&b, "%s/api/tags", o->base);
	else
		ai_buf_addf(&b, "%s/models", o->base);
	if (next != NULL) {
		ai_buf_adds(&b, p == &provider_gemini ? "&pageToken=" : "&after_id=");
		ai_url_encode(&b, next);
	}
	return ai_buf_detach(&b, NULL);
}

int
models_run(struct opts *o, struct ai_err *e)
{
	struct listing l = { o, isatty(1) && !o->json, 0 };
	char **headers = ask_headers(o), *next = NULL;
	struct ai_http h;
	int pages = 0, rc = 0;

	if (ai_http_init(&h, e) < 0) {
		ask_headers_free(headers);
		return -1;
	}
	do {
		struct ai_http_req req;
		struct ai_http_resp resp;
		char *url = page_url(o, next);
		cJSON *v = NULL;

		free(next);
		next = NULL;
		memset(&req, 0, sizeof(req));
		req.method = "GET";
		req.url = url;
		req.headers = (const char *const *)headers + 1; /* no Content-Type on a GET */
		req.timeout_ms = o->timeout_ms;
		req.idle_timeout_ms = o->idle_ms;
		req.max_attempts = o->attempts;
		req.verbose = o->verbose > 0;
		ai_http_resp_init(&resp);
		if (o->verbose)
			ai_error("GET %s (%s)", url, o->profile);
		rc = ai_http_request(&h, &req, &resp, e);
		if (rc < 0 && resp.status >= 400 && o->k.p->http_error != NULL)
			o->k.p->http_error(resp.body.buf, resp.body.len, e);
		if (rc == 0 && (v = ai_json_parse(resp.body.buf, resp.body.len, e)) == NULL) {
			ai_err_prefix(e, "cannot parse the list of models from %s", o->profile);
			e->code = AI_EXIT_PROTOCOL;
			rc = -1;
		}
		if (rc == 0 && !cJSON_IsObject(v))
			rc = ai_err_set(e, AI_EXIT_PROTOCOL, "the list of models from %s is not a JSON "
			    "object", o->profile);
		if (rc == 0)
			rc = take_page(&l, v, &next, e);
		cJSON_Delete(v);
		ai_http_resp_free(&resp);
		free(url);
	} while (rc == 0 && next != NULL && ++pages < MODELS_MAX_PAGES);
	if (rc == 0 && next != NULL)
		ai_warn("the list of models from %s stops after %d pages", o->profile, MODELS_MAX_PAGES);
	free(next);
	ai_http_cleanup(&h);
	ask_headers_free(headers);
	if (rc == 0 && l.count == 0)
		ai_warn("%s lists no models", o->profile);
	if (rc == 0)
		rc = ai_out_flush(stdout, e);
	return rc;
}
