/*
 * ai-search: query a web search provider; results as records into a pipe,
 * or as a list on a terminal.
 *
 * The query is the operands, or else one per line of standard input (plain
 * lines, or "query" records; other records pass through).  Options,
 * configuration and the stdin loop are here; paging and cleaning are in
 * search.c, the providers in google.c, brave.c, searxng.c, tavily.c and exa.c,
 * writing in output.c.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "http.h"
#include "io.h"
#include "json.h"
#include "msg.h"
#include "num.h"
#include "opt.h"
#include "record.h"
#include "url.h"
#include "util.h"
#include "output.h"
#include "search.h"
#include "banned.h"

#define DEFAULT_COUNT 10
#define DEFAULT_TIMEOUT 30
#define DEFAULT_RETRIES 3
#define MAX_COUNT 100

/*
 * The providers, in the order the default is chosen in: the first whose
 * settings are all configured (in the environment or the config file).
 * Google's Custom Search JSON API takes no new customers and ends on
 * 1 January 2027, so a new user gets one of the others.
 */
static const struct provider {
	const char *name;
	const struct sr_provider *p;
	const char *env[2];     /* the settings it needs: environment names */
	const char *key[2];     /* and their config file keys */
	const char *what[2];    /* and what they are, for messages (or NULL) */
	const char *get;        /* where to get them */
} providers[] = {
	{ "google_cse", &sr_google, { "GOOGLE_API_KEY", "GOOGLE_CSE_CX" },
	  { "google_api_key", "google_cse_cx" }, { NULL, "the search engine ID" },
	  "closed to new customers, ends on 1 January 2027" },
	{ "brave", &sr_brave, { "BRAVE_API_KEY", NULL }, { "brave_api_key", NULL }, { NULL, NULL },
	  "https://brave.com/search/api/" },
	{ "tavily", &sr_tavily, { "TAVILY_API_KEY", NULL }, { "tavily_api_key", NULL },
	  { NULL, NULL }, "https://app.tavily.com/" },
	{ "exa", &sr_exa, { "EXA_API_KEY", NULL }, { "exa_api_key", NULL }, { NULL, NULL },
	  "https://dashboard.exa.ai/api-keys" },
	{ "searxng", &sr_searxng, { "AICLI_SEARXNG_URL", NULL }, { "searxng_url", NULL },
	  { "the instance's URL such as http://localhost:8888", NULL },
	  "a SearXNG instance with JSON output, https://docs.searxng.org/" },
};

struct flags {
	const char *provider, *lang, *freshness, *base_url, *timeout, *retries;
	uint64_t count;
	int json, text, verbose;
};

struct ctx {
	struct sr_search s;
	struct sr_out out;
	struct ai_config cfg;
	const char *query; /* the query being searched */
	int none;          /* no provider is configured at all */
};

/*
 * Split a base URL into its origin and its path without trailing slashes
 * (appended to path; nothing for "/").  It may not hold more than that.
 */
static int
split_base(struct ctx *c, const char *url, const char *from, const char *key, char **origin,
    struct ai_buf *path, struct ai_err *e)
{
	struct ai_url u;
	size_t l;

	if (ai_url_parse(url, &u, e) < 0) {
		char why[AI_ERR_MSG_MAX + 32];

		snprintf(why, sizeof(why), "is not a usable URL (%s)", e->msg);
		return ai_config_bad(&c->cfg, from, key, url, why, e);
	}
	if (u.query != NULL || u.fragment != NULL || u.userinfo != NULL) {
		ai_url_free(&u);
		return ai_config_bad(&c->cfg, from, key, url,
		    "must not hold a query, a fragment or user:password", e);
	}
	free(*origin);
	*origin = ai_url_origin(&u);
	for (l = strlen(u.path); l > 0 && u.path[l - 1] == '/'; l--)
		;
	ai_buf_add(path, u.path, l);
	ai_url_free(&u);
	return 0;
}

/*
 * The endpoint: the provider's origin and path (for SearXNG the instance's
 * URL and "/search"); a base URL puts its scheme, host and port in place of
 * the origin, and its path, if any, in front of the endpoint's path.
 */
static int
set_endpoint(struct ctx *c, const char *base, const char *base_from, struct ai_err *e)
{
	static const char *const inst_env[] = { "AICLI_SEARXNG_URL", NULL };
	struct sr_search *s = &c->s;
	struct ai_buf path = AI_BUF_INIT(AI_BUF_NOLIMIT), full = AI_BUF_INIT(AI_BUF_NOLIMIT);
	const char *inst, *inst_from;
	struct ai_url u;
	int def, rc = -1;

	if (s->p->origin != NULL) {
		s->origin = ai_xstrdup(s->p->origin);
	} else {
		inst = ai_config_get(&c->cfg, NULL, NULL, inst_env, "searxng_url", NULL, &inst_from);
		if (inst == NULL && base == NULL) {
			char file[1536];

			return ai_err_set(e, AI_EXIT_CONFIG,
			    "searxng needs AICLI_SEARXNG_URL, the instance's URL such as "
			    "http://localhost:8888: set it, or searxng_url in %s",
			    ai_config_hint(&c->cfg, file, sizeof(file)));
		}
		if (inst != NULL &&
		    split_base(c, inst, inst_from, "searxng_url", &s->origin, &path, e) < 0)
			goto out;
	}
	ai_buf_adds(&path, s->p->path);
	if (base != NULL &&
	    split_base(c, base, base_from, "search_base_url", &s->origin, &full, e) < 0)
		goto out;
	ai_buf_add(&full, path.buf, path.len);
	s->path = ai_buf_detach(&full, NULL);
	if (ai_url_parse(s->origin, &u, e) < 0)
		goto out;
	def = u.port == (strcmp(u.scheme, "https") == 0 ? 443 : 80);
	snprintf(s->who, sizeof(s->who), def ? "'%s%s%s'" : "'%s%s%s:%d'", u.ipv6 ? "[" : "",
	    u.host, u.ipv6 ? "]" : "", u.port);
	ai_url_free(&u);
	rc = 0;
out:
	ai_buf_release(&path);
	ai_buf_release(&full);
	return rc;
}

/*
 * A credential from the environment or the config file, NULL when unset.
 * One with a blank or a control character in it is refused (*rc = -1): it
 * would break the header or the URL it goes into.
 */
static const char *
credential(struct ctx *c, const char *env, const char *key, int *rc, struct ai_err *e)
{
	const char *envs[2] = { env, NULL }, *from, *v;
	const unsigned char *p;

	v = ai_config_get(&c->cfg, NULL, NULL, envs, key, NULL, &from);
	for (p = (const unsigned char *)v; p != NULL && *p; p++)
		if (*p <= 0x20 || *p == 0x7f) {
			if (strcmp(from, "config file") == 0)
				*rc = ai_err_set(e, AI_EXIT_CONFIG,
				    "config file '%s': %s holds a blank or a control character",
				    c->cfg.path, key);
			else
				*rc = ai_err_set(e, AI_EXIT_CONFIG,
				    "$%s holds a blank or a control character", env);
			break;
		}
	return v;
}

/* How many of the provider's settings are configured; *all says whether every one is. */
static int
configured(struct ctx *c, const struct provider *pv, int *all)
{
	int i, n = 0;

	for (i = 0; i < 2 && pv->env[i] != NULL; i++) {
		const char *envs[2] = { pv->env[i], NULL };

		n += ai_config_get(&c->cfg, NULL, NULL, envs, pv->key[i], NULL, NULL) != NULL;
	}
	*all = n == i;
	return n;
}

/*
 * The keys a provider needs, or a configuration error naming exactly the
 * missing ones and the file they could go in.  SearXNG's instance URL is
 * read with the endpoint (set_endpoint).
 */
static int
set_keys(struct ctx *c, const struct provider *pv, struct ai_err *e)
{
	struct sr_search *s = &c->s;
	const char *v[2] = { NULL, NULL };
	char file[1536];
	int rc = 0, i, missing = 0, last = 0;

	if (s->p == &sr_searxng)
		return 0;
	for (i = 0; i < 2 && pv->env[i] != NULL; i++) {
		v[i] = credential(c, pv->env[i], pv->key[i], &rc, e);
		if (rc < 0)
			return -1;
		if (v[i] == NULL) {
			missing++;
			last = i;
		}
	}
	s->key = v[0];
	s->cx = v[1];
	if (missing == 0)
		return 0;
	ai_config_hint(&c->cfg, file, sizeof(file));
	if (missing == 2)
		return ai_err_set(e, AI_EXIT_CONFIG, "%s needs %s and %s: set them, or %s and %s "
		    "in %s", pv->name, pv->env[0], pv->env[1], pv->key[0], pv->key[1], file);
	return ai_err_set(e, AI_EXIT_CONFIG, "%s needs %s%s%s: set it, or %s in %s", pv->name,
	    pv->env[last], pv->what[last] ? ", " : "", pv->what[last] ? pv->what[last] : "",
	    pv->key[last], file);
}

/*
 * The provider: the flag's, the environment's or the config file's; else
 * the first one configured, else the first one partly configured (whose
 * missing setting the error then names).  With none at all, the error is
 * a list of them all (c->none).
 */
static const struct provider *
choose(struct ctx *c, const char *flag, struct ai_err *e)
{
	static const char *const prov_env[] = { "AICLI_SEARCH_PROVIDER", NULL };
	const struct provider *part = NULL;
	const char *v, *from;
	size_t i;

	v = ai_config_get(&c->cfg, flag, "--provider", prov_env, "search_provider", NULL, &from);
	if (v != NULL) {
		if (strcmp(v, "google") == 0)
			v = "google_cse";
		for (i = 0; i < AI_ARRAY_SIZE(providers); i++)
			if (strcmp(v, providers[i].name) == 0)
				return &providers[i];
		ai_config_bad(&c->cfg, from, "search_provider", v,
		    "is not a provider: google_cse (or google), brave, tavily, exa or searxng", e);
		return NULL;
	}
	for (i = 0; i < AI_ARRAY_SIZE(providers); i++) {
		int all, n = configured(c, &providers[i], &all);

		if (all)
			return &providers[i];
		if (n > 0 && part == NULL)
			part = &providers[i];
	}
	if (part != NULL)
		return part;
	c->none = 1;
	ai_err_set(e, AI_EXIT_CONFIG, "no search provider is configured: set the keys of one of "
	    "these, in the environment or in the config file");
	return NULL;
}

/* After the no-provider error: each provider, what it needs and where to get it. */
static void
list_providers(struct ctx *c)
{
	char file[1536];
	size_t i;

	for (i = 0; i < AI_ARRAY_SIZE(providers); i++) {
		const struct provider *pv = &providers[i];

		ai_error("  %-11s%s%s%s (%s%s%s), %s", pv->name, pv->env[0], pv->env[1] ? " and " : "",
		    pv->env[1] ? pv->env[1] : "", pv->key[0], pv->key[1] ? ", " : "",
		    pv->key[1] ? pv->key[1] : "", pv->get);
	}
	ai_error("the config file: %s", ai_config_hint(&c->cfg, file, sizeof(file)));
}

/* Everything from flags, environment and the config file into c; warnings said once here. */
static int
setup(struct ctx *c, const struct flags *f, struct ai_err *e)
{
	static const char *const base_env[] = { "AICLI_SEARCH_BASE_URL", NULL };
	static const char *const timeout_env[] = { "AICLI_TIMEOUT", NULL };
	static const char *const retries_env[] = { "AICLI_RETRIES", NULL };
	static const char *const fresh[] = { "", "day", "week", "month", "year" };
	struct sr_search *s = &c->s;
	const struct provider *pv;
	const char *base, *base_from;
	const char *nocolor = getenv("NO_COLOR");
	uint64_t n;
	size_t i;

	if (f->json && f->text)
		return ai_err_set(e, AI_EXIT_USAGE, "--json and --text cannot be used together");
	c->out.json = f->json || (!f->text && !isatty(STDOUT_FILENO));
	c->out.color = !c->out.json && isatty(STDOUT_FILENO) && (nocolor == NULL || !*nocolor);
	if (f->lang != NULL && !sr_lang_valid(f->lang))
		return ai_err_set(e, AI_EXIT_USAGE, "option '--lang': '%s' is not a language tag such as en, ja or pt-BR",
		    f->lang);
	s->lang = f->lang;
	if (f->freshness != NULL) {
		for (i = 1; i < AI_ARRAY_SIZE(fresh); i++)
			if (strcmp(f->freshness, fresh[i]) == 0)
				s->freshness = (int)i;
		if (s->freshness == SR_FRESH_NONE)
			return ai_err_set(e, AI_EXIT_USAGE, "option '--freshness': '%s' is not day, week, month or year",
			    f->freshness);
	}
	if (ai_config_load(&c->cfg, e) < 0)
		return -1;
	if (ai_config_seconds(&c->cfg, f->timeout, "--timeout", timeout_env, "timeout",
	    DEFAULT_TIMEOUT, 0.1, 3600, &s->timeout_ms, e) < 0 ||
	    ai_config_count(&c->cfg, f->retries, "--retries", retries_env, "retries",
	    DEFAULT_RETRIES, 0, 10, &n, e) < 0)
		return -1;
	if ((pv = choose(c, f->provider, e)) == NULL)
		return -1;
	s->p = pv->p;
	if (f->verbose && f->provider == NULL)
		ai_error("provider: %s", pv->name);
	s->retries = (int)n;
	s->count = (unsigned)f->count;
	s->verbose = f->verbose;
	if (set_keys(c, pv, e) < 0)
		return -1;
	base = ai_config_get(&c->cfg, f->base_url, "--base-url", base_env, "search_base_url", NULL,
	    &base_from);
	if (set_endpoint(c, base, base_from, e) < 0)
		return -1;

	if (s->count > s->p->total_max)
		ai_warn("%s gives at most %u results per query; --count %u gives %u", s->p->name,
		    s->p->total_max, s->count, s->p->total_max);
	if (s->lang != NULL && !s->p->has_lang)
		ai_warn("%s cannot restrict the language; --lang is ignored", s->p->name);

	c->out.provider = s->p->name;
	return ai_http_init(&s->http, e);
}

static int
on_result(void *ctx, const struct sr_result *r, struct ai_err *e)
{
	struct ctx *c = ctx;

	return sr_out_result(&c->out, c->query, r, e);
}

/* One query, its results written as they come; none is not an error. */
static int
search(struct ctx *c, const char *query, struct ai_err *e)
{
	int n;

	c->query = query;
	n = sr_search_run(&c->s, query, on_result, c, e);
	if (n < 0)
		return -1;
	if (n == 0 && c->s.verbose)
		ai_error("no results for '%s'", query);
	return 0;
}

/* s[0..n) without blanks at either end, as a new string. */
static char *
trimmed(const char *s, size_t n)
{
	while (n > 0 && isspace((unsigned char)*s)) {
		s++;
		n--;
	}
	while (n > 0 && isspace((unsigned char)s[n - 1]))
		n--;
	return ai_xmemdup(s, n);
}

/*
 * Queries from standard input, one per line: plain lines, or records when
 * the first line is one.  In records, "query" records are searched and
 * every other record passes through unchanged (into records output).
 */
static int
from_stdin(struct ctx *c, struct ai_err *e)
{
	struct ai_reader rd;
	const char *line;
	size_t len;
	int rc, records = -1;

	ai_reader_init(&rd, STDIN_FILENO, AI_MAX_LINE, "standard input");
	c->out.headings = !c->out.json;
	while ((rc = ai_reader_next(&rd, &line, &len, e)) > 0) {
		cJSON *rec;
		const char *type, *q;
		char *query;

		if (records < 0)
			records = ai_input_is_records(line, len);
		if (!records) {
			query = trimmed(line, len);
			rc = query[0] ? search(c, query, e) : 0;
			free(query);
			if (rc < 0)
				break;
			continue;
		}
		if (ai_line_is_blank(line, len))
			continue;
		rec = ai_record_parse(line, len, rd.lineno, e);
		if (rec == NULL) {
			rc = -1;
			break;
		}
		type = ai_record_type(rec);
		if (strcmp(type, "query") != 0) {
			cJSON_Delete(rec);
			if (!c->out.json)
				continue;
			if (ai_out_write(stdout, line, len, e) < 0 || ai_out_write(stdout, "\n", 1, e) < 0 ||
			    ai_out_flush(stdout, e) < 0) {
				rc = -1;
				break;
			}
			continue;
		}
		q = ai_json_str(rec, "query");
		query = q ? trimmed(q, strlen(q)) : NULL;
		cJSON_Delete(rec);
		if (query == NULL || query[0] == '\0') {
			free(query);
			rc = ai_err_set(e, AI_EXIT_DATAERR, "standard input: line %lu: %s", rd.lineno,
			    q ? "the query is empty" : "a query record needs a string \"query\"");
			break;
		}
		rc = search(c, query, e);
		free(query);
		if (rc < 0)
			break;
	}
	ai_reader_release(&rd);
	return rc < 0 ? -1 : 0;
}

/* The operands, joined by spaces: "ai-search openbsd pledge" is one query. */
static char *
joined(int n, char **ops)
{
	struct ai_buf b = AI_BUF_INIT(AI_BUF_NOLIMIT);
	char *q;

	ai_opt_join(&b, n, ops);
	q = trimmed(b.buf, b.len);
	ai_buf_release(&b);
	return q;
}

static int
run(int argc, char **argv, struct ai_err *e)
{
	static const char *const synopsis[] = {
		"ai-search [--provider NAME] [-n N] [--lang LANG] [--freshness WHEN] [-j | --text] "
		"[--base-url URL] [--timeout SECONDS] [--retries N] [-v] [QUERY ...]",
		NULL
	};
	struct flags f;
	struct ctx c;
	const struct ai_option options[] = {
		{ .type = AI_OPT_STR, .long_name = "provider", .value = &f.provider, .arg = "NAME",
		  .help = "google_cse, brave, tavily, exa or searxng (env AICLI_SEARCH_PROVIDER; "
		  "default: the first with its keys set)",
		  .values = "google_cse brave tavily exa searxng" },
		{ .type = AI_OPT_U64, .short_name = 'n', .long_name = "count", .value = &f.count,
		  .arg = "N", .min = 1, .max = MAX_COUNT, .help = "results per query (default 10, at most 100)" },
		{ .type = AI_OPT_STR, .long_name = "lang", .value = &f.lang, .arg = "LANG",
		  .help = "results in this language (en, ja, pt-BR...)" },
		{ .type = AI_OPT_STR, .long_name = "freshness", .value = &f.freshness, .arg = "WHEN",
		  .help = "only results from the past day, week, month or year" },
		AI_OPTION_JSON(&f.json),
		{ .type = AI_OPT_FLAG, .long_name = "text", .value = &f.text,
		  .help = "write the list for people, also into a pipe" },
		{ .type = AI_OPT_STR, .long_name = "base-url", .value = &f.base_url, .arg = "URL",
		  .help = "send requests to this scheme://host:port (env AICLI_SEARCH_BASE_URL)" },
		{ .type = AI_OPT_STR, .long_name = "timeout", .value = &f.timeout, .arg = "SECONDS",
		  .help = "time for one request, retries included (env AICLI_TIMEOUT, default 30)" },
		{ .type = AI_OPT_STR, .long_name = "retries", .value = &f.retries, .arg = "N",
		  .help = "attempts after the first for a failing request (env AICLI_RETRIES, default 3)" },
		AI_OPTION_VERBOSE(&f.verbose),
		AI_OPTION_HELP,
		AI_OPTION_VERSION,
		AI_OPTION_END
	};
	const struct ai_command cmd = {
		synopsis, "Query a web search provider: records into a pipe, a list on a terminal.",
		options, 0
	};
	char **ops, *query = NULL;
	int nops, exitcode, rc = -1;

	memset(&f, 0, sizeof(f));
	memset(&c, 0, sizeof(c));
	f.count = DEFAULT_COUNT;
	if (ai_opt_run(&cmd, argc, argv, &nops, &ops, &exitcode))
		return exitcode;
	if (nops > 0) {
		query = joined(nops, ops);
		if (query[0] == '\0') {
			free(query);
			return ai_err_set(e, AI_EXIT_USAGE, "the query is empty");
		}
	} else if (isatty(STDIN_FILENO)) {
		return ai_err_set(e, AI_EXIT_USAGE, "no query: give QUERY, or queries on standard input, one per line");
	}
	if (setup(&c, &f, e) == 0)
		rc = query != NULL ? search(&c, query, e) : from_stdin(&c, e);
	if (rc < 0 && c.out.json && e->code != AI_EXIT_PIPE && e->code != AI_EXIT_USAGE) {
		/* the next tool in the pipe learns of the failure too */
		struct ai_err ignored = AI_ERR_INIT;
		cJSON *rec = ai_record_error("ai-search", e);

		ai_record_write(stdout, rec, &ignored);
		cJSON_Delete(rec);
	}
	if (rc < 0 && c.none) {
		/* the message, then the list it announces */
		ai_err_print(e);
		list_providers(&c);
		e->msg[0] = '\0';
	}
	free(query);
	ai_http_cleanup(&c.s.http);
	free(c.s.origin);
	free(c.s.path);
	ai_config_free(&c.cfg);
	return rc < 0 ? -1 : AI_EXIT_OK;
}

int
main(int argc, char **argv)
{
	struct ai_err e = AI_ERR_INIT;

	ai_init(argv[0]);
	return ai_finish(run(argc, argv, &e), &e);
}
