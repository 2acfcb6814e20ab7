/* http.c: requests over a dlopen'ed libcurl; retries, caps, timeouts, redaction. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>
#include <curl/curl.h>

#include "http.h"
#include "json.h"
#include "msg.h"
#include "redact.h"
#include "url.h"
#include "util.h"
#include "banned.h"

#ifndef AI_LIBCURL_PATH
#define AI_LIBCURL_PATH "libcurl.so.4"
#endif

/* The part of libcurl's API we use, resolved at run time. */
struct ai_curl_api {
	CURLcode (*global_init)(long);
	CURL *(*easy_init)(void);
	CURLcode (*easy_setopt)(CURL *, CURLoption, ...);
	CURLcode (*easy_perform)(CURL *);
	CURLcode (*easy_getinfo)(CURL *, CURLINFO, ...);
	void (*easy_cleanup)(CURL *);
	void (*easy_reset)(CURL *);
	const char *(*easy_strerror)(CURLcode);
	struct curl_slist *(*slist_append)(struct curl_slist *, const char *);
	void (*slist_free_all)(struct curl_slist *);
	CURLM *(*multi_init)(void);
	CURLMcode (*multi_add_handle)(CURLM *, CURL *);
	CURLMcode (*multi_remove_handle)(CURLM *, CURL *);
	CURLMcode (*multi_perform)(CURLM *, int *);
	CURLMcode (*multi_poll)(CURLM *, struct curl_waitfd *, unsigned int, int, int *);
	CURLMsg *(*multi_info_read)(CURLM *, int *);
	CURLMcode (*multi_cleanup)(CURLM *);
};

static struct ai_curl_api curl_api;
static int curl_loaded;

static int
sym(void *lib, const char *name, void *fnptr, struct ai_err *e)
{
	void *p = dlsym(lib, name);

	if (p == NULL)
		return ai_err_set(e, AI_EXIT_OSERR, "libcurl lacks '%s'", name);
	/* ISO C has no conversion from void * to a function pointer; copy the bits. */
	memcpy(fnptr, &p, sizeof(p));
	return 0;
}

static const struct ai_curl_api *
load_curl(struct ai_err *e)
{
	void *lib;

	if (curl_loaded)
		return &curl_api;
	lib = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
	if (lib == NULL)
		lib = dlopen(AI_LIBCURL_PATH, RTLD_NOW | RTLD_LOCAL);
	if (lib == NULL) {
		ai_err_set(e, AI_EXIT_OSERR, "cannot load libcurl (install libcurl4): %s", dlerror());
		return NULL;
	}
	if (sym(lib, "curl_global_init", &curl_api.global_init, e) < 0 ||
	    sym(lib, "curl_easy_init", &curl_api.easy_init, e) < 0 ||
	    sym(lib, "curl_easy_setopt", &curl_api.easy_setopt, e) < 0 ||
	    sym(lib, "curl_easy_perform", &curl_api.easy_perform, e) < 0 ||
	    sym(lib, "curl_easy_getinfo", &curl_api.easy_getinfo, e) < 0 ||
	    sym(lib, "curl_easy_cleanup", &curl_api.easy_cleanup, e) < 0 ||
	    sym(lib, "curl_easy_reset", &curl_api.easy_reset, e) < 0 ||
	    sym(lib, "curl_easy_strerror", &curl_api.easy_strerror, e) < 0 ||
	    sym(lib, "curl_slist_append", &curl_api.slist_append, e) < 0 ||
	    sym(lib, "curl_slist_free_all", &curl_api.slist_free_all, e) < 0 ||
	    sym(lib, "curl_multi_init", &curl_api.multi_init, e) < 0 ||
	    sym(lib, "curl_multi_add_handle", &curl_api.multi_add_handle, e) < 0 ||
	    sym(lib, "curl_multi_remove_handle", &curl_api.multi_remove_handle, e) < 0 ||
	    sym(lib, "curl_multi_perform", &curl_api.multi_perform, e) < 0 ||
	    sym(lib, "curl_multi_poll", &curl_api.multi_poll, e) < 0 ||
	    sym(lib, "curl_multi_info_read", &curl_api.multi_info_read, e) < 0 ||
	    sym(lib, "curl_multi_cleanup", &curl_api.multi_cleanup, e) < 0)
		return NULL;
	if (curl_api.global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
		ai_err_set(e, AI_EXIT_OSERR, "cannot initialize libcurl");
		return NULL;
	}
	curl_loaded = 1;
	return &curl_api;
}

int
ai_http_init(struct ai_http *h, struct ai_err *e)
{
	h->api = load_curl(e);
	h->curl = NULL;
	h->seed = ai_wall_ms() ^ ((int64_t)getpid() << 16);
	if (h->api == NULL)
		return -1;
	h->curl = h->api->easy_init();
	if (h->curl == NULL)
		return ai_err_set(e, AI_EXIT_OSERR, "cannot create a libcurl handle");
	return 0;
}

void
ai_http_cleanup(struct ai_http *h)
{
	if (h->api != NULL && h->curl != NULL)
		h->api->easy_cleanup(h->curl);
	h->curl = NULL;
}

void
ai_http_resp_init(struct ai_http_resp *r)
{
	memset(r, 0, sizeof(*r));
	ai_buf_init(&r->body, 32u << 20);
	r->retry_after_s = -1;
	r->rl_remaining = r->rl_tokens_remaining = -1;
	r->rl_reset_ms = r->rl_tokens_reset_ms = -1;
	r->rl_limit = -1;
}

void
ai_http_resp_free(struct ai_http_resp *r)
{
	ai_buf_release(&r->body);
	free(r->url);
	r->url = NULL;
}

/* State of one attempt, shared with the callbacks. */
struct xfer {
	const struct ai_http *h;
	const struct ai_http_req *req;
	struct ai_http_resp *resp;
	size_t max;
	size_t received;
	long code;
	int stream;        /* -1 until the status is known */
	int too_big;
	int consumer_failed;
	int idle_fired;
	int began;         /* some byte of the answer arrived */
	int64_t last_ms;
	int64_t idle_ms;
	curl_off_t last_dl;
	struct ai_err cerr;
};

static size_t
on_body(char *p, size_t size, size_t nmemb, void *ud)
{
	struct xfer *x = ud;
	size_t n = size * nmemb;

	x->began = 1;
	x->last_ms = ai_now_ms();
	if (x->stream < 0) {
		x->h->api->easy_getinfo(x->h->curl, CURLINFO_RESPONSE_CODE, &x->code);
		x->stream = x->req->on_data != NULL && x->code >= 200 && x->code < 300;
	}
	if (n > x->max - x->received) {
		x->too_big = 1;
		return 0;
	}
	x->received += n;
	if (x->code >= 300 && x->code < 400)
		return n; /* a redirect's body is not wanted */
	if (x->stream) {
		x->resp->streamed += n;
		if (x->req->on_data(x->req->data_ctx, p, n, &x->cerr) != 0) {
			x->consumer_failed = 1;
			return 0;
		}
		return n;
	}
	if (ai_buf_add(&x->resp->body, p, n) < 0) {
		x->too_big = 1;
		return 0;
	}
	return n;
}

/*
 * A duration as OpenAI writes its resets ("1s", "6m0s", "20ms", "1.5s"), or
 * an RFC 3339 time as Anthropic does, or plain seconds: in ms from now, -1
 * when it is neither.
 */
int64_t
ai_http_reset_ms(const char *v, size_t n)
{
	char buf[64], *end;
	double total = 0;
	size_t i = 0;

	if (n == 0 || n >= sizeof(buf))
		return -1;
	memcpy(buf, v, n);
	buf[n] = '\0';
	if (n >= 20 && buf[4] == '-' && buf[10] == 'T') {
		struct tm tm;
		const char *rest;
		int64_t ms;

		memset(&tm, 0, sizeof(tm));
		rest = strptime(buf, "%Y-%m-%dT%H:%M:%S", &tm);
		if (rest == NULL)
			return -1;
		ms = (int64_t)timegm(&tm) * 1000 - ai_wall_ms();
		return ms < 0 ? 0 : ms > 86400000 ? 86400000 : ms;
	}
	while (i < n) {
		double d;

		if (buf[i] < '0' || buf[i] > '9')
			return -1;
		d = strtod(buf + i, &end);
		i = (size_t)(end - buf);
		if (i >= n)
			total += d * 1000; /* plain seconds */
		else if (strncmp(buf + i, "ms", 2) == 0) {
			total += d;
			i += 2;
		} else if (buf[i] == 'h') {
			total += d * 3600000;
			i++;
		} else if (buf[i] == 'm') {
			total += d * 60000;
			i++;
		} else if (buf[i] == 's') {
			total += d * 1000;
			i++;
		} else
			return -1;
	}
	return total > 864e5 ? (int64_t)864e5 : (int64_t)(total + 0.999);
}

/* The providers' rate-limit headers: what is left of the requests and tokens, and when. */
static int
ratelimit_header(struct ai_http_resp *r, const char *p, size_t n)
{
	static const char *const names[] = {
		"x-ratelimit-remaining-requests", "anthropic-ratelimit-requests-remaining",
		"x-ratelimit-reset-requests", "anthropic-ratelimit-requests-reset",
		"x-ratelimit-remaining-tokens", "anthropic-ratelimit-tokens-remaining",
		"x-ratelimit-reset-tokens", "anthropic-ratelimit-tokens-reset",
		"x-ratelimit-limit-requests", "anthropic-ratelimit-requests-limit",
	};
	const char *colon = memchr(p, ':', n), *v;
	size_t i, nl, vl;

	if (colon == NULL)
		return 0;
	nl = (size_t)(colon - p);
	for (i = 0; i < AI_ARRAY_SIZE(names); i++)
		if (strlen(names[i]) == nl && strncasecmp(p, names[i], nl) == 0)
			break;
	if (i == AI_ARRAY_SIZE(names))
		return 0;
	v = colon + 1;
	vl = n - nl - 1;
	while (vl > 0 && (*v == ' ' || *v == '\t')) {
		v++;
		vl--;
	}
	while (vl > 0 && (v[vl - 1] == '\r' || v[vl - 1] == '\n' || v[vl - 1] == ' '))
		vl--;
	if (i < 2 || (i >= 4 && i < 6) || i >= 8) {
		char num[24];
		int64_t *to = i < 2 ? &r->rl_remaining : i < 6 ? &r->rl_tokens_remaining : &r->rl_limit;

		if (vl == 0 || vl >= sizeof(num))
			return 1;
		memcpy(num, v, vl);
		num[vl] = '\0';
		if (strspn(num, "0123456789") == vl)
			*to = (int64_t)strtoll(num, NULL, 10);
	} else {
		int64_t ms = ai_http_reset_ms(v, vl);

		if (ms >= 0)
			*(i < 4 ? &r->rl_reset_ms : &r->rl_tokens_reset_ms) = ms;
	}
	return 1;
}

static size_t
on_header(char *p, size_t size, size_t nmemb, void *ud)
{
	struct xfer *x = ud;
	size_t n = size * nmemb;

	x->began = 1;
	x->last_ms = ai_now_ms();
	if (n >= 5 && memcmp(p, "HTTP/", 5) == 0) {
		/* a new response (after 100 Continue, or a redirect) */
		x->resp->content_type[0] = '\0';
	} else if (ratelimit_header(x->resp, p, n)) {
		/* noted */
	} else if (n > 13 && strncasecmp(p, "content-type:", 13) == 0) {
		const char *v = p + 13;
		size_t l = n - 13;

		while (l > 0 && (*v == ' ' || *v == '\t')) {
			v++;
			l--;
		}
		while (l > 0 && (v[l - 1] == '\r' || v[l - 1] == '\n' || v[l - 1] == ' '))
			l--;
		if (l >= sizeof(x->resp->content_type))
			l = sizeof(x->resp->content_type) - 1;
		memcpy(x->resp->content_type, v, l);
		x->resp->content_type[l] = '\0';
	}
	return n;
}

static int
on_progress(void *ud, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal, curl_off_t ulnow)
{
	struct xfer *x = ud;
	int64_t now = ai_now_ms();

	(void)dltotal;
	(void)ultotal;
	(void)ulnow;
	if (dlnow != x->last_dl) {
		x->last_dl = dlnow;
		x->last_ms = now;
	}
	if (x->began && now - x->last_ms > x->idle_ms) {
		x->idle_fired = 1;
		return 1;
	}
	return 0;
}

static const char *const secret_headers[] = {
	"authorization", "proxy-authorization", "x-api-key", "api-key",
	"x-subscription-token", "x-goog-api-key", "cookie", "set-cookie",
};

/* Print one header line of a verbose trace, with credentials replaced. */
static void
trace_line(char dir, const char *s, size_t n)
{
	const char *colon = memchr(s, ':', n);
	size_t i;

	while (n > 0 && (s[n - 1] == '\r' || s[n - 1] == '\n'))
		n--;
	if (n == 0)
		return;
	if (colon != NULL && dir != '*') {
		size_t nl = (size_t)(colon - s);

		for (i = 0; i < AI_ARRAY_SIZE(secret_headers); i++)
			if (strlen(secret_headers[i]) == nl && strncasecmp(s, secret_headers[i], nl) == 0) {
				ai_error("%c %.*s: %s", dir, (int)nl, s, AI_REDACTED);
				return;
			}
	}
	ai_error("%c %.*s", dir, (int)n, s);
}

static int
on_debug(CURL *c, curl_infotype type, char *data, size_t size, void *ud)
{
	char dir;
	size_t i, start = 0;

	(void)c;
	(void)ud;
	switch (type) {
	case CURLINFO_TEXT:
		dir = '*';
		break;
	case CURLINFO_HEADER_IN:
		dir = '<';
		break;
	case CURLINFO_HEADER_OUT:
		dir = '>';
		break;
	default:
		return 0;
	}
	for (i = 0; i <= size; i++)
		if (i == size || data[i] == '\n') {
			trace_line(dir, data + start, i - start);
			start = i + 1;
		}
	return 0;
}

static int
is_retry_status(long s)
{
	return s == 408 || s == 429 || s == 500 || s == 502 || s == 503 || s == 504 || s == 529;
}

static int64_t
backoff(struct ai_http *h, const struct ai_http_req *req, int attempt)
{
	int64_t base = req->backoff_ms > 0 ? req->backoff_ms : 500, d = base;
	uint64_t r;
	int i;

	for (i = 1; i < attempt && d < 8000; i++)
		d *= 2;
	if (d > 8000)
		d = 8000;
	/* xorshift64: jitter only spreads the timing; requests stay the same */
	r = (uint64_t)h->seed;
	r ^= r << 13;
	r ^= r >> 7;
	r ^= r << 17;
	h->seed = (int64_t)r;
	return d / 2 + (int64_t)(r % (uint64_t)(d / 2 + 1));
}

void
ai_http_detail(const char *body, size_t n, char *out, size_t outsz)
{
	struct ai_err e = AI_ERR_INIT;
	cJSON *v = NULL;
	const cJSON *err;
	const char *msg = NULL, *type = NULL;
	size_t i, o = 0;

	out[0] = '\0';
	while (n > 0 && (body[n - 1] == '\n' || body[n - 1] == '\r' || body[n - 1] == ' '))
		n--;
	if (n > 0 && (body[0] == '{' || body[0] == '['))
		v = ai_json_parse(body, n, &e);
	if (v != NULL) {
		const cJSON *o1 = cJSON_IsArray(v) ? cJSON_GetArrayItem(v, 0) : v;

		err = ai_json_get(o1, "error");
		if (cJSON_IsObject(err)) {
			msg = ai_json_str(err, "message");
			type = ai_json_str(err, "type");
			if (type == NULL)
				type = ai_json_str(err, "status");
		} else if (cJSON_IsString(err)) {
			msg = err->valuestring;
		}
		if (msg == NULL)
			msg = ai_json_str(o1, "message");
		if (msg == NULL)
			msg = ai_json_str(o1, "detail");
		if (msg != NULL && type != NULL)
			snprintf(out, outsz, "%s: %s", type, msg);
		else if (msg != NULL || type != NULL)
			snprintf(out, outsz, "%s", msg ? msg : type);
		cJSON_Delete(v);
		if (out[0])
			goto oneline;
	}
	if (n > 200)
		n = 200;
	for (i = 0; i < n && o + 1 < outsz; i++)
		out[o++] = body[i];
	if (o < outsz)
		out[o] = '\0';
oneline:
	for (i = 0; out[i]; i++)
		if (out[i] == '\n' || out[i] == '\r' || out[i] == '\t')
			out[i] = ' ';
}

/* Final error for an HTTP status. */
static int
status_error(const char *who, const struct ai_http_resp *resp, int attempts, struct ai_err *e)
{
	char detail[512], extra[64] = "";
	long s = resp->status;
	int code;

	ai_http_detail(resp->body.buf, resp->body.len, detail, sizeof(detail));
	if (attempts > 1)
		snprintf(extra, sizeof(extra), " after %d attempts", attempts);
	if (s == 401 || s == 403) {
		code = AI_EXIT_CONFIG;
		ai_err_set(e, code, "%s refused the API key (HTTP %ld)%s%s", who, s,
		    detail[0] ? ": " : "", detail);
	} else if (s == 429) {
		char ra[48] = "";

		if (resp->retry_after_s >= 0)
			snprintf(ra, sizeof(ra), "; retry after %lld s", (long long)resp->retry_after_s);
		code = AI_EXIT_TEMPFAIL;
		ai_err_set(e, code, "rate limited by %s (HTTP 429)%s%s%s%s", who, extra, ra,
		    detail[0] ? ": " : "", detail);
	} else {
		code = s == 408 ? AI_EXIT_TEMPFAIL :
		    (s >= 500 ? AI_EXIT_UNAVAILABLE : AI_EXIT_DATAERR);
		ai_err_set(e, code, "%s answered HTTP %ld%s%s%s", who, s, extra,
		    detail[0] ? ": " : "", detail);
	}
	e->status = (int)s;
	return -1;
}

static struct curl_slist *
make_headers(const struct ai_curl_api *api, const struct ai_http_req *req)
{
	struct curl_slist *l = NULL;
	size_t i;

	for (i = 0; req->headers != NULL && req->headers[i] != NULL; i++)
		l = api->slist_append(l, req->headers[i]);
	/* No "Expect: 100-continue" round trip for larger bodies. */
	l = api->slist_append(l, "Expect:");
	return l;
}

static int
setup(struct ai_http *h, const struct ai_http_req *req, const char *url, int post,
    struct curl_slist *hdrs, int64_t remaining, struct xfer *x, char *errbuf)
{
	const struct ai_curl_api *a = h->api;
	CURL *c = h->curl;
	int64_t ct = req->connect_timeout_ms > 0 ? req->connect_timeout_ms : 10000;

	a->easy_reset(c);
	if (ct > remaining)
		ct = remaining;
	if (a->easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https") != CURLE_OK ||
	    a->easy_setopt(c, CURLOPT_REDIR_PROTOCOLS_STR, "http,https") != CURLE_OK)
		return -1;
	a->easy_setopt(c, CURLOPT_URL, url);
	a->easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
	a->easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
	a->easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	a->easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, (long)ct);
	a->easy_setopt(c, CURLOPT_TIMEOUT_MS, (long)remaining);
	a->easy_setopt(c, CURLOPT_USERAGENT, "aicli/" AI_VERSION);
	a->easy_setopt(c, CURLOPT_ACCEPT_ENCODING, "");
	a->easy_setopt(c, CURLOPT_HTTPHEADER, hdrs);
	if (post) {
		a->easy_setopt(c, CURLOPT_POST, 1L);
		a->easy_setopt(c, CURLOPT_POSTFIELDS, req->body ? req->body : "");
		a->easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)req->body_len);
	} else {
		a->easy_setopt(c, CURLOPT_HTTPGET, 1L);
	}
	if (req->no_proxy)
		a->easy_setopt(c, CURLOPT_PROXY, "");
	a->easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
	a->easy_setopt(c, CURLOPT_WRITEDATA, x);
	a->easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
	a->easy_setopt(c, CURLOPT_HEADERDATA, x);
	a->easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
	a->easy_setopt(c, CURLOPT_XFERINFOFUNCTION, on_progress);
	a->easy_setopt(c, CURLOPT_XFERINFODATA, x);
	if (req->verbose) {
		a->easy_setopt(c, CURLOPT_VERBOSE, 1L);
		a->easy_setopt(c, CURLOPT_DEBUGFUNCTION, on_debug);
	}
	return 0;
}

/* The service's name in messages: the caller's, or the host (and port). */
static void
who_of(const struct ai_http_req *req, const struct ai_url *u, char *out, size_t n)
{
	int def = u->port == (strcmp(u->scheme, "https") == 0 ? 443 : 80);

	if (req->service != NULL)
		snprintf(out, n, "%s", req->service);
	else if (def)
		snprintf(out, n, "'%s'", u->host);
	else
		snprintf(out, n, "'%s:%d'", u->host, u->port);
}

static int
is_connect_failure(CURLcode cc)
{
	return cc == CURLE_COULDNT_RESOLVE_HOST || cc == CURLE_COULDNT_CONNECT ||
	    cc == CURLE_SEND_ERROR || cc == CURLE_RECV_ERROR || cc == CURLE_GOT_NOTHING ||
	    cc == CURLE_PARTIAL_FILE || cc == CURLE_SSL_CONNECT_ERROR ||
	    cc == CURLE_OPERATION_TIMEDOUT || cc == CURLE_HTTP2 || cc == CURLE_HTTP2_STREAM;
}

/*
 * One request, attempt by attempt: what ai_http_request (one easy handle,
 * blocking) and the multi driver (many at once) share, so that retries,
 * redirects, timeouts and errors are decided in one place.
 */
struct call {
	struct ai_http *h;
	const struct ai_http_req *req;
	struct ai_http_resp *resp;
	struct curl_slist *hdrs;
	char who[300], errbuf[CURL_ERROR_SIZE];
	char *url;
	int64_t deadline, timeout;
	int64_t named;            /* the limit a timeout's message names */
	int max_attempts, attempt, redirects, post;
	int rc;
	struct xfer x;
};

enum { STEP_DONE, STEP_RETRY, STEP_AGAIN };

static int
call_begin(struct call *c, struct ai_http *h, const struct ai_http_req *req,
    struct ai_http_resp *resp, struct ai_err *e)
{
	struct ai_url u;

	memset(c, 0, sizeof(*c));
	c->rc = -1;
	if (ai_url_parse(req->url, &u, e) < 0) {
		ai_err_prefix(e, "bad URL");
		return -1;
	}
	who_of(req, &u, c->who, sizeof(c->who));
	ai_url_free(&u);
	c->h = h;
	c->req = req;
	c->resp = resp;
	c->timeout = req->timeout_ms > 0 ? req->timeout_ms : 300000;
	c->named = req->limit_ms > 0 ? req->limit_ms : c->timeout;
	c->deadline = 0; /* set by the first attempt: waiting for the limiter takes none of it */
	c->max_attempts = req->max_attempts > 0 ? req->max_attempts : 4;
	c->url = ai_xstrdup(req->url);
	c->post = req->method != NULL && strcmp(req->method, "POST") == 0;
	c->hdrs = make_headers(h->api, req);
	resp->attempts = 0;
	resp->streamed = 0;
	resp->cut = 0;
	return 0;
}

/* Set up the easy handle for the next attempt; -1 with e set when none may start. */
static int
call_attempt(struct call *c, struct ai_err *e)
{
	struct ai_http_resp *resp = c->resp;
	int64_t now = ai_now_ms(), remaining;
	char dur[32];

	if (c->deadline == 0)
		c->deadline = now + c->timeout;
	remaining = c->deadline - now;

	if (remaining <= 0)
		return ai_err_set(e, AI_EXIT_TEMPFAIL, "%s did not answer within %s", c->who,
		    ai_fmt_ms(c->named, dur, sizeof(dur)));
	c->attempt++;
	memset(&c->x, 0, sizeof(c->x));
	c->x.h = c->h;
	c->x.req = c->req;
	c->x.resp = resp;
	c->x.max = c->req->max_bytes > 0 ? c->req->max_bytes : (32u << 20);
	c->x.stream = -1;
	c->x.idle_ms = c->req->idle_timeout_ms > 0 ? c->req->idle_timeout_ms : 60000;
	c->x.last_ms = ai_now_ms();
	resp->body.max = c->x.max;
	ai_buf_reset(&resp->body);
	resp->content_type[0] = '\0';
	resp->status = 0;
	resp->rl_remaining = resp->rl_tokens_remaining = -1;
	resp->rl_reset_ms = resp->rl_tokens_reset_ms = -1;
	resp->rl_limit = -1;
	c->errbuf[0] = '\0';
	if (setup(c->h, c->req, c->url, c->post, c->hdrs, remaining, &c->x, c->errbuf) < 0)
		return ai_err_set(e, AI_EXIT_SOFTWARE, "libcurl refused the protocol settings");
	return 0;
}

/*
 * What the attempt that ended with cc means: STEP_DONE (c->rc, e set on
 * failure), STEP_RETRY after *wait ms, or STEP_AGAIN at once (a redirect).
 */
static int
call_after(struct call *c, CURLcode cc, int64_t *wait, struct ai_err *e)
{
	const struct ai_curl_api *a = c->h->api;
	const struct ai_http_req *req = c->req;
	struct ai_http_resp *resp = c->resp;
	struct xfer *x = &c->x;
	const char *who = c->who, *errbuf = c->errbuf;
	curl_off_t ra = -1, connect_us = 0;
	int connected, attempt = c->attempt;
	char dur[32];

	a->easy_getinfo(c->h->curl, CURLINFO_RESPONSE_CODE, &resp->status);
	a->easy_getinfo(c->h->curl, CURLINFO_RETRY_AFTER, &ra);
	a->easy_getinfo(c->h->curl, CURLINFO_CONNECT_TIME_T, &connect_us);
	connected = connect_us > 0;
	resp->retry_after_s = ra > 0 ? (int64_t)ra : -1;
	resp->attempts = attempt;
	if (x->consumer_failed) {
		*e = x->cerr;
		if (e->code == 0)
			ai_err_set(e, AI_EXIT_SOFTWARE, "stream consumer failed");
		return STEP_DONE;
	}
	if (x->too_big) {
		ai_err_set(e, AI_EXIT_PROTOCOL,
		    "the response from %s is larger than the limit of %zu bytes", who, x->max);
		return STEP_DONE;
	}
	if (cc == CURLE_OK) {
		long s = resp->status;

		if (s >= 200 && s < 300) {
			c->rc = 0;
			return STEP_DONE;
		}
		if (s >= 300 && s < 400) {
			char *loc = NULL;

			a->easy_getinfo(c->h->curl, CURLINFO_REDIRECT_URL, &loc);
			if (loc == NULL) {
				status_error(who, resp, 1, e);
				e->code = AI_EXIT_PROTOCOL;
				return STEP_DONE;
			}
			if (req->max_redirects <= 0) {
				ai_err_set(e, AI_EXIT_PROTOCOL,
				    "%s answered with a redirect (HTTP %ld), which is not followed", who, s);
				e->status = (int)s;
				return STEP_DONE;
			}
			if (++c->redirects > req->max_redirects) {
				ai_err_set(e, AI_EXIT_PROTOCOL, "%s: more than %d redirects", who,
				    req->max_redirects);
				return STEP_DONE;
			}
			loc = ai_xstrdup(loc);
			if (req->redirect_ok != NULL && req->redirect_ok(req->redirect_ctx, loc, e) < 0) {
				free(loc);
				return STEP_DONE;
			}
			free(c->url);
			c->url = loc;
			if (c->post && s != 307 && s != 308)
				c->post = 0;
			c->attempt = 0;
			return STEP_AGAIN;
		}
		if (!is_retry_status(s) || attempt >= c->max_attempts) {
			status_error(who, resp, attempt, e);
			return STEP_DONE;
		}
	} else if (x->idle_fired) {
		if (resp->streamed > 0 || attempt >= c->max_attempts) {
			ai_err_set(e, AI_EXIT_TEMPFAIL, "no data from %s for %s", who,
			    ai_fmt_ms(x->idle_ms, dur, sizeof(dur)));
			resp->cut = resp->streamed > 0;
			return STEP_DONE;
		}
	} else if (cc == CURLE_OPERATION_TIMEDOUT &&
	    (connected || ai_now_ms() >= c->deadline - 50)) {
		/* connected, so not the connect timeout: the deadline passed */
		ai_err_set(e, AI_EXIT_TEMPFAIL, "%s did not answer within %s", who,
		    ai_fmt_ms(c->named, dur, sizeof(dur)));
		return STEP_DONE;
	} else if (cc == CURLE_UNSUPPORTED_PROTOCOL) {
		ai_err_set(e, AI_EXIT_DATAERR, "only http and https are allowed: %s",
		    errbuf[0] ? errbuf : a->easy_strerror(cc));
		return STEP_DONE;
	} else if (is_connect_failure(cc) && resp->streamed == 0) {
		if (attempt >= c->max_attempts) {
			if (resp->status >= 200 && resp->status < 300 &&
			    (cc == CURLE_PARTIAL_FILE || cc == CURLE_RECV_ERROR)) {
				/* it did answer, but never completely */
				ai_err_set(e, AI_EXIT_PROTOCOL, "the answer from %s was cut short: %s%s", who,
				    errbuf[0] ? errbuf : a->easy_strerror(cc),
				    attempt > 1 ? " (after several attempts)" : "");
				resp->cut = 1;
			} else {
				ai_err_set(e, AI_EXIT_UNAVAILABLE, "cannot reach %s: %s%s", who,
				    errbuf[0] ? errbuf : a->easy_strerror(cc),
				    attempt > 1 ? " (after several attempts)" : "");
			}
			return STEP_DONE;
		}
	} else if (resp->streamed > 0) {
		ai_err_set(e, AI_EXIT_PROTOCOL,
		    "the connection to %s broke in the middle of the response: %s", who,
		    errbuf[0] ? errbuf : a->easy_strerror(cc));
		resp->cut = 1;
		return STEP_DONE;
	} else {
		ai_err_set(e, AI_EXIT_UNAVAILABLE, "request to %s failed: %s", who,
		    errbuf[0] ? errbuf : a->easy_strerror(cc));
		return STEP_DONE;
	}
	/* retry */
	*wait = resp->status == 0 || resp->retry_after_s < 0 ? backoff(c->h, req, attempt)
							     : resp->retry_after_s * 1000;
	if (ai_now_ms() + *wait >= c->deadline) {
		/* No time left to wait for: report what the last attempt said. */
		if (resp->status >= 400)
			status_error(who, resp, attempt, e);
		else
			ai_err_set(e, x->idle_fired ? AI_EXIT_TEMPFAIL : AI_EXIT_UNAVAILABLE,
			    "cannot reach %s: %s", who,
			    x->idle_fired ? "no data" : (errbuf[0] ? errbuf : a->easy_strerror(cc)));
		return STEP_DONE;
	}
	if (req->verbose)
		ai_error("retrying %s in %s (attempt %d of %d)", who,
		    ai_fmt_ms(*wait, dur, sizeof(dur)), attempt + 1, c->max_attempts);
	return STEP_RETRY;
}

static void
call_end(struct call *c)
{
	c->h->api->slist_free_all(c->hdrs);
	c->hdrs = NULL;
	free(c->resp->url);
	c->resp->url = c->url;
	c->url = NULL;
}

int
ai_http_request(struct ai_http *h, const struct ai_http_req *req, struct ai_http_resp *resp,
    struct ai_err *e)
{
	struct call c;
	int64_t wait = 0;

	if (call_begin(&c, h, req, resp, e) < 0)
		return -1;
	for (;;) {
		int step;

		if (call_attempt(&c, e) < 0)
			break;
		step = call_after(&c, h->api->easy_perform(h->curl), &wait, e);
		if (step == STEP_DONE)
			break;
		if (step == STEP_RETRY)
			ai_sleep_ms(wait, NULL);
	}
	call_end(&c);
	return c.rc;
}

/* ---- many requests at once ---- */

/* A request under the multi driver, with its own easy handle (kept for the next one). */
struct slot {
	struct ai_http h;
	struct call c;
	int used;          /* a request owns it */
	int running;       /* its easy handle is in the multi handle */
	int64_t at;        /* no attempt before this time */
	double tokens;     /* what an attempt counts against the token ceiling */
	void (*done)(void *ctx, int rc, struct ai_err *e);
	void *ctx;
	struct ai_err e;
};

struct ai_http_multi {
	const struct ai_curl_api *api;
	CURLM *multi;
	struct slot **s;
	size_t n;
	double rpm, tpm;          /* the ceilings given */
	double learned;           /* the requests a minute the provider says it allows, or 0 */
	double tat_req, tat_tok;  /* the limiter's clocks: the earliest next start (ms) */
	int64_t hold_until;       /* the provider asked every request to wait until then */
	int64_t left;             /* requests the provider said were left (-1: unknown) */
	int64_t left_until;       /* ... until then, when it has all of them again */
	int64_t running;          /* attempts in flight */
	int probe;                /* after a hold: one attempt at a time until one succeeds */
	uint64_t limited;         /* 429 answers seen */
};

struct ai_http_multi *
ai_http_multi_new(struct ai_err *e)
{
	struct ai_http_multi *m;
	const struct ai_curl_api *a = load_curl(e);

	if (a == NULL)
		return NULL;
	m = ai_xcalloc(1, sizeof(*m));
	m->api = a;
	m->left = -1;
	m->multi = a->multi_init();
	if (m->multi == NULL) {
		free(m);
		ai_err_set(e, AI_EXIT_OSERR, "cannot create a libcurl multi handle");
		return NULL;
	}
	return m;
}

void
ai_http_multi_free(struct ai_http_multi *m)
{
	size_t i;

	if (m == NULL)
		return;
	for (i = 0; i < m->n; i++) {
		if (m->s[i]->running)
			m->api->multi_remove_handle(m->multi, m->s[i]->h.curl);
		if (m->s[i]->used)
			call_end(&m->s[i]->c);
		ai_http_cleanup(&m->s[i]->h);
		free(m->s[i]);
	}
	free(m->s);
	m->api->multi_cleanup(m->multi);
	free(m);
}

void
ai_http_multi_limit(struct ai_http_multi *m, uint64_t rpm, uint64_t tpm)
{
	m->rpm = (double)rpm;
	m->tpm = (double)tpm;
}

uint64_t
ai_http_multi_limited(const struct ai_http_multi *m)
{
	return m->limited;
}

int
ai_http_multi_add(struct ai_http_multi *m, const struct ai_http_req *req,
    struct ai_http_resp *resp, uint64_t tokens,
    void (*done)(void *ctx, int rc, struct ai_err *e), void *ctx, struct ai_err *e)
{
	struct slot *sl = NULL;
	size_t i;

	for (i = 0; i < m->n && sl == NULL; i++)
		if (!m->s[i]->used)
			sl = m->s[i];
	if (sl == NULL) {
		sl = ai_xcalloc(1, sizeof(*sl));
		if (ai_http_init(&sl->h, e) < 0) {
			ai_http_cleanup(&sl->h);
			free(sl);
			return -1;
		}
		m->s = ai_xrealloc(m->s, (m->n + 1) * sizeof(*m->s));
		m->s[m->n++] = sl;
	}
	if (call_begin(&sl->c, &sl->h, req, resp, e) < 0)
		return -1;
	sl->used = 1;
	sl->at = 0;
	sl->tokens = (double)tokens;
	sl->done = done;
	sl->ctx = ctx;
	ai_err_clear(&sl->e);
	return 0;
}

static int
call_after_msg(struct slot *sl, CURLcode cc, int64_t *wait)
{
	return call_after(&sl->c, cc, wait, &sl->e);
}

/* The time (ms) from which the limiter lets an attempt of so many tokens start. */
static double
limit_at(const struct ai_http_multi *m, double tokens)
{
	double t = (double)m->hold_until;

	/*
	 * What the provider said is left is taken by the attempts in flight:
	 * wait until it has all of it again.
	 */
	if (m->left >= 0 && m->running >= m->left && (double)m->left_until > t)
		t = (double)m->left_until;
	if (m->probe && m->running > 0)
		t = 1e18; /* until an answer comes */
	if ((m->rpm > 0 || m->learned > 0) && m->tat_req > t)
		t = m->tat_req;
	if (m->tpm > 0 && tokens > 0 && m->tat_tok > t)
		t = m->tat_tok;
	return t;
}

static void
limit_take(struct ai_http_multi *m, double tokens, int64_t now)
{
	double rpm = m->rpm > 0 && (m->learned <= 0 || m->rpm < m->learned) ? m->rpm : m->learned;

	if (rpm > 0)
		m->tat_req = (m->tat_req > (double)now ? m->tat_req : (double)now) + 60000.0 / rpm;
	if (m->tpm > 0 && tokens > 0)
		m->tat_tok = (m->tat_tok > (double)now ? m->tat_tok : (double)now) +
		    tokens * 60000.0 / m->tpm;
}

/* What an answer says about the provider's limits: a 429 or nothing left holds everyone. */
static void
limit_learn(struct ai_http_multi *m, const struct ai_http_resp *r, int64_t wait, int64_t now)
{
	int64_t until = 0;

	if (r->status == 429) {
		m->limited++;
		until = now + wait;
		m->probe = 1;
	} else if (r->status >= 200 && r->status < 300 && r->rl_remaining != 0) {
		m->probe = 0;
	}
	if (r->rl_remaining == 0)
		m->probe = 1;
	/* the provider's own limit paces the requests as --rpm does */
	if (r->rl_limit > 0)
		m->learned = (double)r->rl_limit;
	if (r->rl_remaining >= 0 && r->rl_reset_ms >= 0) {
		m->left = r->rl_remaining;
		m->left_until = now + r->rl_reset_ms;
	}
	if (r->rl_tokens_remaining == 0 && r->rl_tokens_reset_ms >= 0 &&
	    now + r->rl_tokens_reset_ms > until)
		until = now + r->rl_tokens_reset_ms;
	if (until > m->hold_until)
		m->hold_until = until;
}

static void
slot_finish(struct ai_http_multi *m, struct slot *sl, int rc)
{
	struct ai_err e = sl->e;

	(void)m;
	call_end(&sl->c);
	sl->used = 0;
	sl->done(sl->ctx, rc, &e);
}

/* Start every attempt that is due and that the limiter allows; the time to the next one. */
static int64_t
start_due(struct ai_http_multi *m)
{
	int64_t now = ai_now_ms(), next = INT64_MAX;
	size_t i;

	for (i = 0; i < m->n; i++) {
		struct slot *sl = m->s[i];
		double at;

		if (!sl->used || sl->running)
			continue;
		at = limit_at(m, sl->tokens);
		if ((double)sl->at > at)
			at = (double)sl->at;
		if (at > (double)now) {
			int64_t d = (int64_t)(at - (double)now) + 1;

			if (d < next)
				next = d;
			continue;
		}
		if (call_attempt(&sl->c, &sl->e) < 0) {
			slot_finish(m, sl, -1);
			next = 0;
			continue;
		}
		limit_take(m, sl->tokens, now);
		if (m->api->easy_setopt(sl->h.curl, CURLOPT_PRIVATE, (void *)sl) != CURLE_OK ||
		    m->api->multi_add_handle(m->multi, sl->h.curl) != CURLM_OK) {
			ai_err_set(&sl->e, AI_EXIT_SOFTWARE, "libcurl refused a transfer");
			slot_finish(m, sl, -1);
			next = 0;
			continue;
		}
		sl->running = 1;
		m->running++;
		next = 0;
	}
	return next;
}

size_t
ai_http_multi_pending(const struct ai_http_multi *m)
{
	size_t i, k = 0;

	for (i = 0; i < m->n; i++)
		k += m->s[i]->used;
	return k;
}

int64_t
ai_http_multi_run(struct ai_http_multi *m, int64_t max_ms)
{
	const struct ai_curl_api *a = m->api;
	int64_t next, t0 = ai_now_ms();
	int running = 0, nfds, left, finished = 0;
	CURLMsg *msg;

	for (;;) {
		next = start_due(m);
		a->multi_perform(m->multi, &running);
		while ((msg = a->multi_info_read(m->multi, &left)) != NULL) {
			struct slot *sl = NULL;
			int64_t wait = 0;
			int step;

			if (msg->msg != CURLMSG_DONE)
				continue;
			a->easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, (char **)&sl);
			step = call_after_msg(sl, msg->data.result, &wait);
			a->multi_remove_handle(m->multi, sl->h.curl);
			sl->running = 0;
			m->running--;
			limit_learn(m, sl->c.resp, wait, ai_now_ms());
			if (step == STEP_DONE) {
				slot_finish(m, sl, sl->c.rc);
				finished++;
			} else {
				sl->at = step == STEP_RETRY ? ai_now_ms() + wait : 0;
			}
		}
		if (finished > 0 || ai_http_multi_pending(m) == 0)
			return 0;
		{
			int64_t left_ms = max_ms - (ai_now_ms() - t0), w = 1000;

			if (left_ms <= 0)
				return 0;
			if (next < w)
				w = next;
			if (left_ms < w)
				w = left_ms;
			if (w > 0 || running > 0)
				a->multi_poll(m->multi, NULL, 0, (int)(w > 0 ? w : 0), &nfds);
		}
	}
}
