/* search.c: paging through a provider's results, cleaning and ranking them. */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "search.h"
#include "clean.h"
#include "json.h"
#include "msg.h"
#include "util.h"
#include "banned.h"

/* Cap on a provider's answer: a page of results is tens of kilobytes. */
#define ANSWER_MAX ((size_t)8 << 20)

struct run {
	struct sr_search *s;
	const char *query;
	sr_result_fn fn;
	void *ctx;
	unsigned want;     /* results to deliver */
	unsigned got;      /* results delivered */
	unsigned hits;     /* hits on the current page, before filtering */
	unsigned fresh;    /* results the current page added */
	char **seen;       /* URLs delivered, to drop repeats */
	size_t nseen;
};

void
sr_param(struct ai_buf *qs, const char *name, const char *value)
{
	static const char hex[] = "0123456789ABCDEF";
	const unsigned char *v = (const unsigned char *)value;

	if (qs->len > 0)
		ai_buf_addc(qs, '&');
	ai_buf_adds(qs, name);
	ai_buf_addc(qs, '=');
	for (; *v; v++) {
		if (isalnum(*v) || *v == '-' || *v == '.' || *v == '_' || *v == '~') {
			ai_buf_addc(qs, *v);
		} else {
			ai_buf_addc(qs, '%');
			ai_buf_addc(qs, hex[*v >> 4]);
			ai_buf_addc(qs, hex[*v & 15]);
		}
	}
}

void
sr_param_u(struct ai_buf *qs, const char *name, unsigned value)
{
	char num[16];

	snprintf(num, sizeof(num), "%u", value);
	sr_param(qs, name, num);
}

int
sr_lang_valid(const char *tag)
{
	size_t i = 0, sub = 0;

	if (strlen(tag) > 35)
		return 0;
	while (isalpha((unsigned char)tag[i]))
		i++;
	if (i < 2 || i > 8)
		return 0;
	while (tag[i] == '-' || tag[i] == '_') {
		i++;
		for (sub = 0; isalnum((unsigned char)tag[i]); sub++)
			i++;
		if (sub < 1 || sub > 8)
			return 0;
	}
	return tag[i] == '\0';
}

void
sr_lang_parts(const char *tag, char lang[9], char script[5], char region[4])
{
	const char *p = tag;
	int first = 1;

	lang[0] = script[0] = region[0] = '\0';
	while (*p) {
		size_t n = strcspn(p, "-_"), i;
		char *to = NULL;
		size_t cap = 0;

		if (first && n <= 8) {
			to = lang;
			cap = 9;
		} else if (!first && n == 4 && isalpha((unsigned char)p[0]) && script[0] == '\0') {
			to = script;
			cap = 5;
		} else if (!first && region[0] == '\0' &&
		    ((n == 2 && isalpha((unsigned char)p[0])) || (n == 3 && isdigit((unsigned char)p[0])))) {
			to = region;
			cap = 4;
		}
		if (to != NULL) {
			for (i = 0; i < n && i + 1 < cap; i++)
				to[i] = (char)tolower((unsigned char)p[i]);
			to[i] = '\0';
		}
		first = 0;
		p += n;
		if (*p)
			p++;
	}
}

cJSON *
sr_error_json(const struct ai_http_resp *r)
{
	struct ai_err e = AI_ERR_INIT;
	size_t i = 0;

	while (i < r->body.len && isspace((unsigned char)r->body.buf[i]))
		i++;
	if (i == r->body.len || r->body.buf[i] != '{')
		return NULL;
	return ai_json_parse(r->body.buf, r->body.len, &e);
}

void
sr_error_set(const struct sr_search *s, struct ai_err *e, int code, const char *fmt, ...)
{
	char msg[AI_ERR_MSG_MAX];
	int status = e->status;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	ai_err_set(e, code, "%s: %s", s->p->name, msg);
	e->status = status;
}

int
sr_each_hit(const cJSON *arr, const char *title, const char *url, const char *snippet,
    const char *date, sr_hit_fn fn, void *ctx, struct ai_err *e)
{
	const cJSON *it;
	struct sr_hit h;
	int rc;

	cJSON_ArrayForEach(it, arr) {
		if (!cJSON_IsObject(it))
			continue;
		h.title = ai_json_str(it, title);
		h.url = ai_json_str(it, url);
		h.snippet = ai_json_str(it, snippet);
		h.date = date ? ai_json_str(it, date) : NULL;
		if ((rc = fn(ctx, &h, e)) != 0)
			return rc < 0 ? -1 : 0;
	}
	return 0;
}

int
sr_shape_error(const struct sr_search *s, struct ai_err *e, const char *what)
{
	ai_err_set(e, AI_EXIT_PROTOCOL, "%s: unexpected response from %s: %s", s->p->name, s->who,
	    what);
	return -1;
}

/* Whether url is one to give on: http or https, no blanks or control characters. */
static int
url_ok(const char *url)
{
	const unsigned char *p;

	if (strncasecmp(url, "http://", 7) != 0 && strncasecmp(url, "https://", 8) != 0)
		return 0;
	for (p = (const unsigned char *)url; *p; p++)
		if (*p <= 0x20 || *p == 0x7f)
			return 0;
	return 1;
}

/* One hit from the provider: check it, clean it, rank it, hand it on. */
static int
on_hit(void *c, const struct sr_hit *h, struct ai_err *e)
{
	struct run *r = c;
	struct sr_result res;
	char *title, *snippet, date[32];
	size_t i;
	int rc;

	r->hits++;
	if (h->url == NULL || !url_ok(h->url)) {
		if (r->s->verbose)
			ai_error("%s: skipped a result without an http(s) URL", r->s->p->name);
		return 0;
	}
	for (i = 0; i < r->nseen; i++)
		if (strcmp(r->seen[i], h->url) == 0) {
			if (r->s->verbose)
				ai_error("%s: skipped '%s', already given", r->s->p->name, h->url);
			return 0;
		}
	r->seen = ai_xrealloc(r->seen, (r->nseen + 1) * sizeof(*r->seen));
	r->seen[r->nseen++] = ai_xstrdup(h->url);
	title = sr_clean_str(h->title ? h->title : "");
	snippet = sr_clean_str(h->snippet ? h->snippet : "");
	r->got++;
	r->fresh++;
	res.rank = r->got;
	res.title = title;
	res.url = h->url;
	res.snippet = snippet;
	res.date = h->date != NULL && sr_date(h->date, date, sizeof(date), NULL) == 0 ? date : NULL;
	rc = r->fn(r->ctx, &res, e);
	free(title);
	free(snippet);
	if (rc < 0)
		return -1;
	return r->got >= r->want ? 1 : 0;
}

/* Ask for one page and hand its hits to on_hit; *more says whether to go on. */
static int
fetch(struct run *r, const struct sr_page *pg, struct ai_http_resp *resp, int *more,
    struct ai_err *e)
{
	struct sr_search *s = r->s;
	const struct sr_provider *p = s->p;
	struct ai_buf qs = AI_BUF_INIT(AI_BUF_NOLIMIT), body = AI_BUF_INIT(AI_BUF_NOLIMIT),
	    url = AI_BUF_INIT(AI_BUF_NOLIMIT);
	char *hdr[4] = { NULL, NULL, NULL, NULL };
	const char *headers[6];
	struct ai_http_req req;
	cJSON *root = NULL;
	size_t i, nh = 0;
	int rc = -1;

	p->build(s, r->query, pg, &qs, &body, hdr);
	ai_buf_addf(&url, "%s%s%s%s", s->origin, s->path, qs.len ? "?" : "", qs.buf);
	headers[nh++] = "Accept: application/json";
	for (i = 0; hdr[i] != NULL && i < 3; i++)
		headers[nh++] = hdr[i];
	headers[nh] = NULL;
	memset(&req, 0, sizeof(req));
	req.method = p->method;
	req.url = url.buf;
	req.headers = headers;
	req.body = body.buf;
	req.body_len = body.len;
	req.timeout_ms = s->timeout_ms;
	req.max_attempts = s->retries + 1;
	req.max_bytes = ANSWER_MAX;
	req.verbose = s->verbose >= 2;
	if (s->verbose)
		ai_error("%s: %s %s", p->name, p->method, url.buf);
	if (ai_http_request(&s->http, &req, resp, e) < 0) {
		if (e->status == 0 || p->failed == NULL || !p->failed(s, resp, e))
			ai_err_prefix(e, "%s", p->name);
		goto out;
	}
	root = ai_json_parse(resp->body.buf, resp->body.len, e);
	if (root == NULL) {
		char ex[80];

		sr_error_set(s, e, AI_EXIT_PROTOCOL, "cannot parse the response from %s: %s (it begins '%s')",
		    s->who, e->msg, ai_excerpt(resp->body.buf, resp->body.len, ex, sizeof(ex)));
		goto out;
	}
	*more = 0;
	r->hits = r->fresh = 0;
	rc = p->parse(s, root, on_hit, r, more, e);
	if (rc >= 0 && s->verbose)
		ai_error("%s: page %u: %u result(s), %u new", p->name, pg->index + 1, r->hits, r->fresh);
out:
	cJSON_Delete(root);
	for (i = 0; hdr[i] != NULL; i++)
		free(hdr[i]);
	ai_buf_release(&qs);
	ai_buf_release(&body);
	ai_buf_release(&url);
	return rc < 0 ? -1 : 0;
}

int
sr_search_run(struct sr_search *s, const char *query, sr_result_fn fn, void *ctx,
    struct ai_err *e)
{
	const struct sr_provider *p = s->p;
	struct run r;
	struct ai_http_resp resp;
	struct sr_page pg = { 0, 0, 0 };
	unsigned fixed = 0;
	size_t i;
	int rc = 0;

	memset(&r, 0, sizeof(r));
	r.s = s;
	r.query = query;
	r.fn = fn;
	r.ctx = ctx;
	r.want = s->count < p->total_max ? s->count : p->total_max;
	if (p->paging == SR_PAGE_FIXED) {
		/* the same size on every page: as even as the pages needed allow */
		unsigned pages = (r.want + p->page_max - 1) / p->page_max;

		fixed = (r.want + pages - 1) / pages;
	}
	ai_http_resp_init(&resp);
	while (r.got < r.want && pg.index < p->pages_max) {
		int more = 0;

		switch (p->paging) {
		case SR_PAGE_START:
			pg.size = r.want - r.got < p->page_max ? r.want - r.got : p->page_max;
			break;
		case SR_PAGE_FIXED:
			pg.size = fixed;
			break;
		case SR_PAGE_NUMBER:
			pg.size = 0;
			break;
		default:
			pg.size = r.want;
			break;
		}
		if (fetch(&r, &pg, &resp, &more, e) < 0) {
			rc = -1;
			break;
		}
		/* a short page, or one with nothing new, is the last */
		if (!more || r.hits == 0 || r.fresh == 0 || (pg.size > 0 && r.hits < pg.size) ||
		    p->paging == SR_PAGE_NONE)
			break;
		pg.offset += pg.size ? pg.size : r.hits;
		pg.index++;
	}
	ai_http_resp_free(&resp);
	for (i = 0; i < r.nseen; i++)
		free(r.seen[i]);
	free(r.seen);
	return rc < 0 ? -1 : (int)r.got;
}
