/* http.c: requests over a dlopen'ed libcurl; retries, caps, timeouts, redaction. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
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
	    sym(lib, "curl_slist_free_all", &curl_api.slist_free_all, e) < 0)
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

int
ai_http_request(struct ai_http *h, const struct ai_http_req *req, struct ai_http_resp *resp,
    struct ai_err *e)
{
	const struct ai_curl_api *a = h->api;
	int64_t start = ai_now_ms(), timeout = req->timeout_ms > 0 ? req->timeout_ms : 300000;
	int64_t named = req->limit_ms > 0 ? req->limit_ms : timeout;
	int64_t deadline = start + timeout;
	int max_attempts = req->max_attempts > 0 ? req->max_attempts : 4;
	int attempt = 0, redirects = 0, post, rc = -1;
	struct curl_slist *hdrs;
	char who[300], errbuf[CURL_ERROR_SIZE], dur[32];
	struct ai_url u;
	char *url;

	if (ai_url_parse(req->url, &u, e) < 0) {
		ai_err_prefix(e, "bad URL");
		return -1;
	}
	who_of(req, &u, who, sizeof(who));
	ai_url_free(&u);
	url = ai_xstrdup(req->url);
	post = req->method != NULL && strcmp(req->method, "POST") == 0;
	hdrs = make_headers(a, req);
	resp->attempts = 0;
	resp->streamed = 0;
	resp->cut = 0;
	for (;;) {
		struct xfer x;
		CURLcode cc;
		curl_off_t ra = -1, connect_us = 0;
		int connected;
		int64_t remaining = deadline - ai_now_ms(), wait;
		int retry = 0;

		if (remaining <= 0) {
			ai_err_set(e, AI_EXIT_TEMPFAIL, "%s did not answer within %s", who,
			    ai_fmt_ms(named, dur, sizeof(dur)));
			break;
		}
		attempt++;
		memset(&x, 0, sizeof(x));
		x.h = h;
		x.req = req;
		x.resp = resp;
		x.max = req->max_bytes > 0 ? req->max_bytes : (32u << 20);
		x.stream = -1;
		x.idle_ms = req->idle_timeout_ms > 0 ? req->idle_timeout_ms : 60000;
		x.last_ms = ai_now_ms();
		x.last_dl = 0;
		resp->body.max = x.max;
		ai_buf_reset(&resp->body);
		resp->content_type[0] = '\0';
		resp->status = 0;
		errbuf[0] = '\0';
		if (setup(h, req, url, post, hdrs, remaining, &x, errbuf) < 0) {
			ai_err_set(e, AI_EXIT_SOFTWARE, "libcurl refused the protocol settings");
			break;
		}
		cc = a->easy_perform(h->curl);
		a->easy_getinfo(h->curl, CURLINFO_RESPONSE_CODE, &resp->status);
		a->easy_getinfo(h->curl, CURLINFO_RETRY_AFTER, &ra);
		a->easy_getinfo(h->curl, CURLINFO_CONNECT_TIME_T, &connect_us);
		connected = connect_us > 0;
		resp->retry_after_s = ra > 0 ? (int64_t)ra : -1;
		resp->attempts = attempt;
		if (x.consumer_failed) {
			*e = x.cerr;
			if (e->code == 0)
				ai_err_set(e, AI_EXIT_SOFTWARE, "stream consumer failed");
			break;
		}
		if (x.too_big) {
			ai_err_set(e, AI_EXIT_PROTOCOL,
			    "the response from %s is larger than the limit of %zu bytes", who, x.max);
			break;
		}
		if (cc == CURLE_OK) {
			long s = resp->status;

			if (s >= 200 && s < 300) {
				rc = 0;
				break;
			}
			if (s >= 300 && s < 400) {
				char *loc = NULL;

				a->easy_getinfo(h->curl, CURLINFO_REDIRECT_URL, &loc);
				if (loc == NULL) {
					status_error(who, resp, 1, e);
					e->code = AI_EXIT_PROTOCOL;
					break;
				}
				if (req->max_redirects <= 0) {
					ai_err_set(e, AI_EXIT_PROTOCOL,
					    "%s answered with a redirect (HTTP %ld), which is not followed", who, s);
					e->status = (int)s;
					break;
				}
				if (++redirects > req->max_redirects) {
					ai_err_set(e, AI_EXIT_PROTOCOL, "%s: more than %d redirects", who,
					    req->max_redirects);
					break;
				}
				loc = ai_xstrdup(loc);
				if (req->redirect_ok != NULL &&
				    req->redirect_ok(req->redirect_ctx, loc, e) < 0) {
					free(loc);
					break;
				}
				free(url);
				url = loc;
				if (post && s != 307 && s != 308)
					post = 0;
				attempt = 0;
				continue;
			}
			if (is_retry_status(s) && attempt < max_attempts)
				retry = 1;
			else {
				status_error(who, resp, attempt, e);
				break;
			}
		} else if (x.idle_fired) {
			if (resp->streamed == 0 && attempt < max_attempts)
				retry = 1;
			else {
				ai_err_set(e, AI_EXIT_TEMPFAIL, "no data from %s for %s", who,
				    ai_fmt_ms(x.idle_ms, dur, sizeof(dur)));
				resp->cut = resp->streamed > 0;
				break;
			}
		} else if (cc == CURLE_OPERATION_TIMEDOUT && (connected || ai_now_ms() >= deadline - 50)) {
			/* connected, so not the connect timeout: the deadline passed */
			ai_err_set(e, AI_EXIT_TEMPFAIL, "%s did not answer within %s", who,
			    ai_fmt_ms(named, dur, sizeof(dur)));
			break;
		} else if (cc == CURLE_UNSUPPORTED_PROTOCOL) {
			ai_err_set(e, AI_EXIT_DATAERR, "only http and https are allowed: %s",
			    errbuf[0] ? errbuf : a->easy_strerror(cc));
			break;
		} else if (is_connect_failure(cc) && resp->streamed == 0) {
			if (attempt < max_attempts)
				retry = 1;
			else if (resp->status >= 200 && resp->status < 300 &&
			    (cc == CURLE_PARTIAL_FILE || cc == CURLE_RECV_ERROR)) {
				/* it did answer, but never completely */
				ai_err_set(e, AI_EXIT_PROTOCOL, "the answer from %s was cut short: %s%s", who,
				    errbuf[0] ? errbuf : a->easy_strerror(cc),
				    attempt > 1 ? " (after several attempts)" : "");
				resp->cut = 1;
				break;
			} else {
				ai_err_set(e, AI_EXIT_UNAVAILABLE, "cannot reach %s: %s%s", who,
				    errbuf[0] ? errbuf : a->easy_strerror(cc),
				    attempt > 1 ? " (after several attempts)" : "");
				break;
			}
		} else if (resp->streamed > 0) {
			ai_err_set(e, AI_EXIT_PROTOCOL,
			    "the connection to %s broke in the middle of the response: %s", who,
			    errbuf[0] ? errbuf : a->easy_strerror(cc));
			resp->cut = 1;
			break;
		} else {
			ai_err_set(e, AI_EXIT_UNAVAILABLE, "request to %s failed: %s", who,
			    errbuf[0] ? errbuf : a->easy_strerror(cc));
			break;
		}
		/* retry */
		(void)retry;
		wait = resp->status == 0 || resp->retry_after_s < 0 ? backoff(h, req, attempt)
								     : resp->retry_after_s * 1000;
		if (ai_now_ms() + wait >= deadline) {
			/* No time left to wait for: report what the last attempt said. */
			if (resp->status >= 400)
				status_error(who, resp, attempt, e);
			else
				ai_err_set(e, x.idle_fired ? AI_EXIT_TEMPFAIL : AI_EXIT_UNAVAILABLE,
				    "cannot reach %s: %s", who,
				    x.idle_fired ? "no data" : (errbuf[0] ? errbuf : a->easy_strerror(cc)));
			break;
		}
		if (req->verbose)
			ai_error("retrying %s in %s (attempt %d of %d)", who,
			    ai_fmt_ms(wait, dur, sizeof(dur)), attempt + 1, max_attempts);
		ai_sleep_ms(wait, NULL);
	}
	a->slist_free_all(hdrs);
	free(resp->url);
	resp->url = url;
	return rc;
}
