/*
 * http.h: HTTP requests over libcurl, bounded in every dimension.
 *
 * libcurl is loaded with dlopen on first use, not linked: it pulls in some
 * thirty shared libraries, which costs about 3 ms at every start of a
 * program even when it makes no request (measured on bookworm: 1.5 ms ->
 * 4.3 ms), and start-up in about a millisecond is a goal of the suite.
 *
 * Every request has a connect timeout, a total deadline (covering retries
 * and their waits), an idle timeout (no byte for that long once the answer
 * has begun), and a cap on the decoded response size enforced in the write
 * callback (libcurl 7.88 does not cap chunked bodies).  Only http and https
 * are spoken, also after redirects, which are followed by hand so that a
 * caller can check every hop.  Retries with exponential backoff and jitter
 * happen on 408, 429, 500, 502, 503, 504, 529 and connection failures,
 * honouring Retry-After, until max_attempts or the deadline; never after
 * body bytes were handed to a streaming consumer.  Verbose tracing goes to
 * stderr with Authorization, x-api-key and similar headers, and key query
 * parameters, redacted.
 */
#ifndef AI_HTTP_H
#define AI_HTTP_H

#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "err.h"

struct ai_http {
	void *curl;                   /* CURL *, kept so connections are reused */
	const struct ai_curl_api *api;
	int64_t seed;                 /* jitter */
};

struct ai_http_req {
	const char *method;           /* "GET" or "POST" */
	const char *url;
	const char *const *headers;   /* NULL-terminated "Name: value" lines, or NULL */
	const char *body;             /* POST body */
	size_t body_len;
	int64_t connect_timeout_ms;   /* 0: 10 s */
	int64_t timeout_ms;           /* total deadline, all attempts; 0: 300 s */
	int64_t limit_ms;             /* the limit its message names, when the deadline is
	                                 what is left of it; 0: timeout_ms */
	int64_t idle_timeout_ms;      /* 0: 60 s */
	size_t max_bytes;             /* response cap; 0: 32 MiB */
	int max_attempts;             /* 0: 4; 1 disables retries */
	int64_t backoff_ms;           /* first backoff; 0: 500 ms (doubling, at most 8 s) */
	int max_redirects;            /* 0: a redirect is an error */
	/* Called with each redirect target; return -1 (with e set) to refuse it. */
	int (*redirect_ok)(void *ctx, const char *url, struct ai_err *e);
	void *redirect_ctx;
	int no_proxy;                 /* ignore proxy settings in the environment */
	int verbose;                  /* redacted trace on stderr */
	const char *service;          /* name in messages ("openai"); NULL: the host */
	/*
	 * Streaming: when set, the body of a 2xx answer is handed over as it
	 * arrives instead of being kept.  Return 0 to go on; -1 (with e set)
	 * aborts the transfer and the request fails with that error.
	 */
	int (*on_data)(void *ctx, const char *p, size_t n, struct ai_err *e);
	void *data_ctx;
};

struct ai_http_resp {
	long status;           /* final HTTP status, 0 if none arrived */
	struct ai_buf body;    /* the body, unless it was streamed (error bodies always) */
	char content_type[128];
	int64_t retry_after_s; /* from the last answer, -1 if none */
	int attempts;
	size_t streamed;       /* bytes handed to on_data */
	int cut;               /* the answer began, then broke or stalled before its end */
	char *url;             /* the URL finally fetched (after redirects) */
	/* the provider's rate-limit headers of the last answer, -1 when absent */
	int64_t rl_remaining, rl_reset_ms;               /* requests */
	int64_t rl_tokens_remaining, rl_tokens_reset_ms; /* tokens */
	int64_t rl_limit;                                /* requests a minute allowed */
};

int ai_http_init(struct ai_http *h, struct ai_err *e);
void ai_http_cleanup(struct ai_http *h);
void ai_http_resp_init(struct ai_http_resp *r);
void ai_http_resp_free(struct ai_http_resp *r);

/*
 * Make the request.  Returns 0 on a 2xx answer; -1 otherwise, with e set:
 * 401/403 AI_EXIT_CONFIG (the key was refused), 408/429 and timeouts
 * AI_EXIT_TEMPFAIL, 5xx/529 and connection failures AI_EXIT_UNAVAILABLE,
 * other statuses AI_EXIT_DATAERR, a cut or oversized answer AI_EXIT_PROTOCOL.
 * e->status carries the HTTP status; resp keeps the error body.  The message
 * quotes the service's own explanation from the body (see ai_http_detail).
 */
int ai_http_request(struct ai_http *h, const struct ai_http_req *req, struct ai_http_resp *resp,
    struct ai_err *e);

/*
 * The explanation in an error body: error.message, error.type, message,
 * detail or error of a JSON body ("overloaded_error: Overloaded"), else the
 * start of the text, on one line.  Into out (always NUL-terminated).
 */
void ai_http_detail(const char *body, size_t n, char *out, size_t outsz);

/*
 * A rate-limit reset as the providers write it: OpenAI's durations ("1s",
 * "6m0s", "20ms"), Anthropic's RFC 3339 times, plain seconds; in ms from
 * now (at most a day), or -1 when it is none of these.
 */
int64_t ai_http_reset_ms(const char *v, size_t n);

/*
 * Many requests at once in one process, over libcurl's multi interface,
 * each with the same attempts, retries, timeouts and errors as
 * ai_http_request.  One limiter holds every attempt of every request: the
 * ceilings of ai_http_multi_limit (requests and tokens a minute, never
 * exceeded), and what the provider says: its limit of requests a minute
 * paces them as a ceiling does; after a 429 (its Retry-After, else
 * the backoff) or a rate-limit header saying nothing is left (its reset),
 * no attempt starts until then.
 */
struct ai_http_multi;

struct ai_http_multi *ai_http_multi_new(struct ai_err *e);
void ai_http_multi_free(struct ai_http_multi *m);
/* Ceilings: requests and tokens a minute; 0 for none. */
void ai_http_multi_limit(struct ai_http_multi *m, uint64_t rpm, uint64_t tpm);
/*
 * Queue a request (req and resp are borrowed until done is called; tokens:
 * what each attempt counts against the token ceiling).  done is called from
 * ai_http_multi_run with 0 or -1 and the error, as ai_http_request returns.
 */
int ai_http_multi_add(struct ai_http_multi *m, const struct ai_http_req *req,
    struct ai_http_resp *resp, uint64_t tokens,
    void (*done)(void *ctx, int rc, struct ai_err *e), void *ctx, struct ai_err *e);
/* Move transfers on until one request is done, none is left, or max_ms passed. */
int64_t ai_http_multi_run(struct ai_http_multi *m, int64_t max_ms);
/* The requests queued or in flight. */
size_t ai_http_multi_pending(const struct ai_http_multi *m);
/* The 429 answers seen. */
uint64_t ai_http_multi_limited(const struct ai_http_multi *m);

#endif
