/*
 * aicli-http: a test driver for lib/http.c, lib/sse.c and lib/lines.c.
 *
 * It makes one request with the library, exactly as a tool would, and
 * prints the body (or, with --sse, one "event|data" line per event, or with
 * --ndjson one line per record) so that the bats tests can check retries,
 * timeouts, caps, redirects, cut streams and verbose redaction against the
 * mock server.  The exit status is the library's exit code for the failure.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "http.h"
#include "io.h"
#include "json.h"
#include "lines.h"
#include "msg.h"
#include "opt.h"
#include "record.h"
#include "sse.h"
#include "url.h"
#include "util.h"
#include "banned.h"

struct ctx {
	struct ai_sse sse;
	struct ai_lines lines;
	int mode; /* 0 raw, 1 sse, 2 ndjson */
	struct ai_strlist allow;
};

static int
print_event(void *c, const char *event, const char *data, size_t len, struct ai_err *e)
{
	(void)c;
	if (ai_out_write(stdout, event, strlen(event), e) < 0 || ai_out_write(stdout, "|", 1, e) < 0 ||
	    ai_out_write(stdout, data, len, e) < 0 || ai_out_write(stdout, "\n", 1, e) < 0)
		return -1;
	return ai_out_flush(stdout, e);
}

static int
print_record(void *c, const char *line, size_t len, struct ai_err *e)
{
	struct ctx *x = c;
	cJSON *r;

	if (ai_line_is_blank(line, len))
		return 0;
	r = ai_json_parse(line, len, e);
	if (r == NULL) {
		ai_err_prefix(e, "line %lu", x->lines.lineno);
		e->code = AI_EXIT_PROTOCOL;
		return -1;
	}
	cJSON_Delete(r);
	if (ai_out_write(stdout, line, len, e) < 0 || ai_out_write(stdout, "\n", 1, e) < 0)
		return -1;
	return ai_out_flush(stdout, e);
}

static int
on_data(void *c, const char *p, size_t n, struct ai_err *e)
{
	struct ctx *x = c;

	if (x->mode == 1)
		return ai_sse_feed(&x->sse, p, n, e);
	if (x->mode == 2)
		return ai_lines_feed(&x->lines, p, n, print_record, x, e);
	if (ai_out_write(stdout, p, n, e) < 0)
		return -1;
	return ai_out_flush(stdout, e);
}

/* Redirects are allowed only to URLs under one of the --allow prefixes. */
static int
redirect_ok(void *c, const char *url, struct ai_err *e)
{
	struct ctx *x = c;
	size_t i;

	for (i = 0; i < x->allow.n; i++)
		if (strncmp(url, x->allow.v[i], strlen(x->allow.v[i])) == 0)
			return 0;
	return ai_err_set(e, AI_EXIT_POLICY, "redirect to '%s' is not allowed", url);
}

static int
run(int argc, char **argv, struct ai_err *e)
{
	static const char *const synopsis[] = {
		"aicli-http [--post BODY] [-H HEADER]... [--sse | --ndjson | --buffer] [--timeout MS] [--idle MS] "
		"[--max-bytes N] [--attempts N] [--backoff MS] [--redirects N] [--allow PREFIX]... [-v] URL",
		NULL
	};
	const char *post = NULL;
	struct ai_strlist hdrs = { NULL, 0 };
	int sse = 0, ndjson = 0, buffer = 0, verbose = 0, exitcode, nops, rc;
	uint64_t timeout = 0, idle = 0, maxb = 0, attempts = 0, backoff = 0, redirects = 0,
	    connect = 0;
	struct ctx x;
	const struct ai_option options[] = {
		{ .type = AI_OPT_STR, .long_name = "post", .value = &post, .arg = "BODY", .help = "POST BODY" },
		{ .type = AI_OPT_LIST, .short_name = 'H', .value = &hdrs, .arg = "HEADER", .help = "header" },
		{ .type = AI_OPT_FLAG, .long_name = "sse", .value = &sse, .help = "print SSE events" },
		{ .type = AI_OPT_FLAG, .long_name = "ndjson", .value = &ndjson, .help = "print NDJSON lines" },
		{ .type = AI_OPT_FLAG, .long_name = "buffer", .value = &buffer, .help = "print the body at the end, not as it arrives" },
		{ .type = AI_OPT_U64, .long_name = "timeout", .value = &timeout, .arg = "MS", .max = 600000, .help = "deadline" },
		{ .type = AI_OPT_U64, .long_name = "connect-timeout", .value = &connect, .arg = "MS", .max = 600000, .help = "connect" },
		{ .type = AI_OPT_U64, .long_name = "idle", .value = &idle, .arg = "MS", .max = 600000, .help = "idle timeout" },
		{ .type = AI_OPT_U64, .long_name = "max-bytes", .value = &maxb, .arg = "N", .max = 1u << 30, .help = "cap" },
		{ .type = AI_OPT_U64, .long_name = "attempts", .value = &attempts, .arg = "N", .max = 20, .help = "attempts" },
		{ .type = AI_OPT_U64, .long_name = "backoff", .value = &backoff, .arg = "MS", .max = 60000, .help = "backoff" },
		{ .type = AI_OPT_U64, .long_name = "redirects", .value = &redirects, .arg = "N", .max = 20, .help = "redirects" },
		{ .type = AI_OPT_LIST, .long_name = "allow", .value = &x.allow, .arg = "PREFIX", .help = "redirect allowlist" },
		AI_OPTION_VERBOSE(&verbose),
		AI_OPTION_HELP,
		AI_OPTION_VERSION,
		AI_OPTION_END
	};
	const struct ai_command cmd = { synopsis, "Make one HTTP request with lib/http.c.", options, 0 };
	struct ai_http h;
	struct ai_http_req req;
	struct ai_http_resp resp;
	const char **headers;
	char **ops;
	size_t i;

	memset(&x, 0, sizeof(x));
	if (ai_opt_run(&cmd, argc, argv, &nops, &ops, &exitcode))
		return exitcode;
	if (nops != 1) {
		ai_err_set(e, AI_EXIT_USAGE, "one URL expected");
		return -1;
	}
	x.mode = sse ? 1 : ndjson ? 2 : 0;
	ai_sse_init(&x.sse, 1 << 20, print_event, &x);
	ai_lines_init(&x.lines, AI_LINES_LF, 1 << 20);
	headers = ai_xcalloc(hdrs.n + 1, sizeof(*headers));
	for (i = 0; i < hdrs.n; i++)
		headers[i] = hdrs.v[i];
	memset(&req, 0, sizeof(req));
	req.method = post ? "POST" : "GET";
	req.url = ops[0];
	req.headers = headers;
	req.body = post;
	req.body_len = post ? strlen(post) : 0;
	req.timeout_ms = (int64_t)timeout;
	req.connect_timeout_ms = (int64_t)connect;
	req.idle_timeout_ms = (int64_t)idle;
	req.max_bytes = (size_t)maxb;
	req.max_attempts = (int)attempts;
	req.backoff_ms = (int64_t)backoff;
	req.max_redirects = (int)redirects;
	req.redirect_ok = redirect_ok;
	req.redirect_ctx = &x;
	req.verbose = verbose;
	req.no_proxy = 1;
	req.on_data = buffer ? NULL : on_data;
	req.data_ctx = &x;
	ai_http_resp_init(&resp);
	rc = ai_http_init(&h, e);
	if (rc == 0)
		rc = ai_http_request(&h, &req, &resp, e);
	if (rc == 0 && buffer)
		rc = ai_out_write(stdout, resp.body.buf, resp.body.len, e);
	if (rc == 0 && x.mode == 1)
		rc = ai_sse_end(&x.sse, e);
	if (rc == 0 && x.mode == 2) {
		rc = ai_lines_end(&x.lines, print_record, &x, NULL, e);
	}
	if (verbose)
		ai_error("status %ld, %d attempt(s), %zu bytes streamed", resp.status, resp.attempts,
		    resp.streamed);
	ai_http_resp_free(&resp);
	ai_http_cleanup(&h);
	ai_sse_release(&x.sse);
	ai_lines_release(&x.lines);
	ai_strlist_free(&hdrs);
	ai_strlist_free(&x.allow);
	free(headers);
	return rc == 0 ? AI_EXIT_OK : -1;
}

int
main(int argc, char **argv)
{
	struct ai_err e = AI_ERR_INIT;

	ai_init(argv[0]);
	return ai_finish(run(argc, argv, &e), &e);
}
