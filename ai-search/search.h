/*
 * search.h: one query against one web search provider, result by result.
 *
 * A provider (google.c, brave.c, searxng.c, tavily.c, exa.c) says how to ask for
 * one page of results and how to read the answer; sr_search_run() pages
 * through until it has the number of results asked for, cleans each one
 * (clean.h), drops duplicates and results without an http(s) URL, numbers
 * them from 1 and hands them to the caller as they come.
 */
#ifndef SR_SEARCH_H
#define SR_SEARCH_H

#include <stdint.h>
#include <cjson/cJSON.h>

#include "buf.h"
#include "err.h"
#include "http.h"

enum { SR_FRESH_NONE, SR_FRESH_DAY, SR_FRESH_WEEK, SR_FRESH_MONTH, SR_FRESH_YEAR };

/* How a provider pages. */
enum {
	SR_PAGE_START,  /* a start offset and a page size that may vary (Google) */
	SR_PAGE_FIXED,  /* a page number and one page size for every page (Brave) */
	SR_PAGE_NUMBER, /* a page number; the server decides the size (SearXNG) */
	SR_PAGE_NONE    /* one request gives everything (Tavily) */
};

struct sr_search;

/* One page to ask for. */
struct sr_page {
	unsigned index;  /* from 0 */
	unsigned offset; /* results asked for on the pages before */
	unsigned size;   /* results wanted on this page (0 with SR_PAGE_NUMBER) */
};

/* A result as the provider gave it; borrowed from the parsed answer. */
struct sr_hit {
	const char *title;
	const char *url;
	const char *snippet;
	const char *date; /* any format sr_date() reads, or NULL */
};

/* Called per hit in the provider's order: 0 goes on, 1 stops, -1 fails (e set). */
typedef int (*sr_hit_fn)(void *ctx, const struct sr_hit *h, struct ai_err *e);

struct sr_provider {
	const char *name;      /* as in records: "google_cse" */
	const char *method;    /* "GET" or "POST" */
	const char *origin;    /* the API's scheme://host */
	const char *path;      /* the endpoint's path */
	int paging;            /* SR_PAGE_* */
	unsigned page_max;     /* results one request can return */
	unsigned total_max;    /* results one query can return */
	unsigned pages_max;    /* requests one query may take */
	int has_lang;          /* it can restrict the language */
	/*
	 * The request for page p: the URL's query string (without '?') and, for
	 * POST, the body; extra header lines go to hdr (NULL-terminated, up to
	 * 3, allocated: the caller frees them).
	 */
	void (*build)(const struct sr_search *s, const char *query, const struct sr_page *p,
	    struct ai_buf *qs, struct ai_buf *body, char **hdr);
	/* Read a 2xx answer: fn per hit, *more when a next page may hold more. */
	int (*parse)(const struct sr_search *s, const cJSON *root, sr_hit_fn fn, void *ctx,
	    int *more, struct ai_err *e);
	/*
	 * Make an HTTP error clearer from the provider's error body: 1 when it
	 * rewrote e, 0 when lib's message stands.  May be NULL.
	 */
	int (*failed)(const struct sr_search *s, const struct ai_http_resp *r, struct ai_err *e);
};

extern const struct sr_provider sr_google, sr_brave, sr_searxng, sr_tavily, sr_exa;

struct sr_search {
	const struct sr_provider *p;
	const char *key;       /* API key (Google, Brave, Tavily, Exa) */
	const char *cx;        /* Google's engine id */
	char *origin;          /* the scheme://host[:port] in use */
	char *path;            /* the endpoint path in use */
	char who[300];         /* the host for messages, quoted */
	unsigned count;        /* results wanted per query */
	const char *lang;      /* a language tag, or NULL */
	int freshness;         /* SR_FRESH_* */
	int64_t timeout_ms;    /* per request, retries included */
	int retries;
	int verbose;           /* 1: notes, 2: the HTTP trace too */
	struct ai_http http;
};

/* A result ready to write: clean text, ranked. */
struct sr_result {
	unsigned rank;
	const char *title;
	const char *url;
	const char *snippet;
	const char *date; /* ISO 8601 or NULL */
};

typedef int (*sr_result_fn)(void *ctx, const struct sr_result *r, struct ai_err *e);

/*
 * Run one query: fn gets each result as soon as its page is read.  Returns
 * the number of results (0 is not an error), or -1 with e set; results
 * already handed over stay handed over.
 */
int sr_search_run(struct sr_search *s, const char *query, sr_result_fn fn, void *ctx,
    struct ai_err *e);

/* Append "&name=value" (no '&' when qs is empty), the value percent-encoded. */
void sr_param(struct ai_buf *qs, const char *name, const char *value);
void sr_param_u(struct ai_buf *qs, const char *name, unsigned value);

/*
 * The parts of a language tag ("en", "pt-BR", "zh-Hant-TW"), lower case:
 * the language, the script (4 letters) and the region (2 letters or 3 digits),
 * each "" when absent.
 */
void sr_lang_parts(const char *tag, char lang[9], char script[5], char region[4]);
/* Whether tag looks like a language tag: letters, then "-" subtags of letters or digits. */
int sr_lang_valid(const char *tag);

/*
 * Hand each object in arr to fn as a hit, its members named by the
 * arguments (date may be NULL); elements that are not objects are skipped.
 * Stops when fn does not return 0.  Returns -1 when fn failed, else 0.
 */
int sr_each_hit(const cJSON *arr, const char *title, const char *url, const char *snippet,
    const char *date, sr_hit_fn fn, void *ctx, struct ai_err *e);
/* An answer of the wrong shape: AI_EXIT_PROTOCOL, "unexpected response from ...: what". */
int sr_shape_error(const struct sr_search *s, struct ai_err *e, const char *what);

/* The JSON of an error body, or NULL (the caller deletes it). */
cJSON *sr_error_json(const struct ai_http_resp *r);
/* Replace e's message: "PROVIDER: " then the formatted text; code and status kept. */
void sr_error_set(const struct sr_search *s, struct ai_err *e, int code, const char *fmt, ...)
    AI_PRINTF(4, 5);

#endif
