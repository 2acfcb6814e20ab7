/*
 * fetch.c: curl [-sSLf] URL, a GET of an allowed URL.
 *
 * The URL fetched is the canonical form of the one the policy checked.
 * Redirects are followed only to URLs that pass the same check, at most 3;
 * a refused hop stops everything (policy).  The body is capped at --max-file
 * decoded bytes and refused when it looks binary, like a file.  Proxy
 * variables have no effect (and the child has no environment), no cookie
 * engine is started, and the time is bounded by the execution's deadline.
 * Every URL requested goes to the audit log through x->urls.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lang.h"
#include "http.h"
#include "json.h"
#include "util.h"
#include "banned.h"

#define MAX_REDIRECTS 3

struct fetch {
	struct x_run *x;
	struct x_stage *st;
	struct ai_buf body;
	cJSON *last;      /* the audit entry of the URL being requested */
	int hops;
	int refused;
	int too_big;
};

static cJSON *
log_url(struct x_run *x, const char *url)
{
	cJSON *u = cJSON_CreateObject();

	ai_json_addstr(u, "url", url);
	cJSON_AddItemToArray(x->urls, u);
	return u;
}

/* Each redirect target passes the --allow-url check, or the fetch stops. */
static int
redirect_ok(void *ctx, const char *url, struct ai_err *e)
{
	struct fetch *f = ctx;
	char *canon;

	f->hops++;
	if (f->last != NULL)
		ai_json_addstr(f->last, "status", "redirect");
	if (x_policy_url(f->x->pol, url, &canon, e) < 0) {
		cJSON *u = log_url(f->x, url);

		ai_json_addbool(u, "refused", 1);
		f->refused = 1;
		e->code = AI_EXIT_POLICY;
		ai_err_prefix(e, "redirect refused");
		return -1;
	}
	f->last = log_url(f->x, canon);
	free(canon);
	return 0;
}

static int
on_data(void *ctx, const char *p, size_t n, struct ai_err *e)
{
	struct fetch *f = ctx;
	struct x_run *x = f->x;
	uint64_t max = x->pol->lim.max_file;

	if ((uint64_t)f->body.len + n > max) {
		f->too_big = 1;
		return ai_err_set(e, AI_EXIT_LIMIT,
		    "the response is larger than the limit of %llu bytes (--max-file)",
		    (unsigned long long)max);
	}
	x->bytes_read += n;
	if (x->bytes_read > x->pol->lim.max_read)
		return ai_err_set(e, AI_EXIT_LIMIT,
		    "the command read more than the limit of %llu bytes (--max-read)",
		    (unsigned long long)x->pol->lim.max_read);
	ai_buf_add(&f->body, p, n);
	return 0;
}

/* The kind of a failed fetch: what the library said, made one of ours. */
static int
fetch_code(const struct fetch *f, const struct ai_http_resp *resp, int code)
{
	if (f->refused)
		return AI_EXIT_POLICY;
	if (code == AI_EXIT_PROTOCOL && f->hops >= MAX_REDIRECTS && resp->status >= 300 &&
	    resp->status < 400)
		return AI_EXIT_LIMIT;
	switch (code) {
	case AI_EXIT_LIMIT:
	case AI_EXIT_TEMPFAIL:
	case AI_EXIT_UNAVAILABLE:
		return code;
	default:
		return AI_EXIT_FAIL;
	}
}

/* curl reads no input: it fetches when the stage ends, and passes the body on. */
static int
curl_end(struct x_stage *st, struct x_run *x)
{
	struct fetch f = { x, st, AI_BUF_INIT(AI_BUF_NOLIMIT), NULL, 0, 0, 0 };
	struct ai_err e = AI_ERR_INIT;
	struct ai_http h;
	struct ai_http_req req;
	struct ai_http_resp resp;
	int64_t left = x->deadline_ms - ai_now_ms() - 250;
	int rc;

	if (left <= 0)
		return x_abort(x, st, AI_EXIT_TEMPFAIL, "no time is left for the request (--timeout)");
	memset(&req, 0, sizeof(req));
	req.method = "GET";
	req.url = st->url;
	req.connect_timeout_ms = left < 10000 ? left : 10000;
	req.timeout_ms = left;
	req.limit_ms = (int64_t)x->pol->lim.timeout_ms;
	req.idle_timeout_ms = left < 10000 ? left : 10000;
	req.max_bytes = (size_t)x->pol->lim.max_file + (1u << 20);
	req.max_attempts = 2;
	req.backoff_ms = 250;
	req.max_redirects = MAX_REDIRECTS;
	req.redirect_ok = redirect_ok;
	req.redirect_ctx = &f;
	req.no_proxy = 1;
	req.on_data = on_data;
	req.data_ctx = &f;
	f.last = log_url(x, st->url);
	ai_http_resp_init(&resp);
	rc = ai_http_init(&h, &e);
	if (rc == 0) {
		rc = ai_http_request(&h, &req, &resp, &e);
		ai_http_cleanup(&h);
	}
	if (resp.status > 0 && f.last != NULL && !f.refused)
		ai_json_addnum(f.last, "status", (double)resp.status);
	if (rc < 0) {
		int code = fetch_code(&f, &resp, e.code);

		ai_http_resp_free(&resp);
		ai_buf_release(&f.body);
		return x_abort(x, st, code, "%s", e.msg);
	}
	ai_http_resp_free(&resp);
	if (x_looks_binary(f.body.buf, f.body.len)) {
		ai_buf_release(&f.body);
		return x_abort(x, st, AI_EXIT_POLICY,
		    "the response from '%s' looks binary: only text is read", st->url);
	}
	rc = x_emit(x, st, f.body.buf, f.body.len);
	ai_buf_release(&f.body);
	return rc == XR_ABORT ? XR_ABORT : XR_OK;
}

const struct x_rt x_rt_curl = {
	.end = curl_end,
};
