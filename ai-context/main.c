/*
 * ai-context: compact a conversation transcript to a token budget.
 *
 * A filter: the transcript on stdin, a smaller one on stdout.  The whole
 * input is read and the whole plan is made (including the summarising
 * model call) before the first byte is written, so that a failure leaves
 * stdout empty rather than half-compacted.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compact.h"
#include "config.h"
#include "io.h"
#include "msg.h"
#include "num.h"
#include "opt.h"
#include "proc.h"
#include "record.h"
#include "redact.h"
#include "summarize.h"
#include "text.h"
#include "transcript.h"
#include "util.h"
#include "banned.h"

#define DEFAULT_BUDGET 32000
#define DEFAULT_KEEP 5
#define DEFAULT_TAIL 10
#define DEFAULT_TIMEOUT 300
#define DEFAULT_MAX_CALLS 32
/* The whole transcript is held in memory. */
#define MAX_INPUT ((size_t)1 << 30)

/* --stats: one line each for tokens, records and the estimate, on stderr. */
static void
print_stats(const struct ac_opts *o, const struct ac_result *r, const struct ac_summarizer *s)
{
	fprintf(stderr, "%s: tokens: %llu before, %llu after (budget %llu, compacts above %llu)\n",
	    ai_progname, (unsigned long long)r->tokens_before, (unsigned long long)r->tokens_after,
	    (unsigned long long)o->budget, (unsigned long long)(o->budget * 4 / 5));
	fprintf(stderr, "%s: records: %zu before, %zu after (digested %zu, trimmed %zu, folded %zu, "
	    "dropped %zu, stale usage %zu)\n", ai_progname, r->records_before, r->records_after,
	    r->digested, r->trimmed, r->folded, r->dropped, r->stale);
	fprintf(stderr, "%s: estimate: characters / 4", ai_progname);
	if (r->k_in_line > 0)
		fprintf(stderr, " x %.3f (the usage record on line %lu)", r->k_in, r->k_in_line);
	if (r->changed && r->k_out != r->k_in)
		fprintf(stderr, "; the output x %.3f, as a later run will measure it", r->k_out);
	fputc('\n', stderr);
	if (s->have_usage)
		fprintf(stderr, "%s: summary: %llu input tokens, %llu output tokens, %u call%s\n",
		    ai_progname, (unsigned long long)s->in_tokens, (unsigned long long)s->out_tokens,
		    s->calls, s->calls == 1 ? "" : "s");
	fflush(stderr);
}

/* Where ai-ask is: AICLI_LIBEXEC (or "libexec") alone, else next to us, else PATH. */
static char *
find_ask(const struct ai_config *cfg, const char **where)
{
	static const char *const envs[] = { "AICLI_LIBEXEC", NULL };
	const char *from = NULL, *dir = ai_config_get(cfg, NULL, NULL, envs, "libexec", NULL, &from);

	if (dir == NULL)
		*where = "looked next to ai-context and in PATH";
	else if (strcmp(from, "config file") == 0)
		*where = "looked in the directory \"libexec\" of the config file names";
	else
		*where = "looked in $AICLI_LIBEXEC";
	return ai_find_program("ai-ask", dir);
}

/*
 * The summariser's settings: the configuration (also for its secrets, which
 * redaction then knows), the timeout, where ai-ask is.  ask gets the path
 * to free().
 */
static int
setup(struct ac_summarizer *s, const char *timeout, int no_summarize,
    uint64_t budget, char **ask, struct ai_err *e)
{
	static const char *const timeout_envs[] = { "AICLI_TIMEOUT", NULL };
	struct ai_config cfg = AI_CONFIG_INIT;
	int64_t ms;

	if (ai_config_load(&cfg, e) < 0) {
		ai_config_free(&cfg); /* what it read before it failed */
		return -1;
	}
	if (ai_config_seconds(&cfg, timeout, "--timeout", timeout_envs, "timeout", DEFAULT_TIMEOUT,
	    0.001, 86400, &ms, e) < 0) {
		ai_config_free(&cfg);
		return -1;
	}
	*ask = no_summarize ? NULL : find_ask(&cfg, &s->where);
	s->program = *ask;
	s->timeout_s = (double)ms / 1000.0;
	/* the summariser reads about a budget's worth of the old conversation */
	s->doc_max = budget * 4 < 32768 ? 32768 : budget * 4 > (8u << 20) ? (8u << 20) : budget * 4;
	ai_config_free(&cfg);
	return 0;
}

static int
run(int argc, char **argv, struct ai_err *e)
{
	static const char *const synopsis[] = {
		"ai-context [--budget TOKENS] [--keep N] [--tail-lines N] [--no-summarize] [--stats] "
		"[-m MODEL] [--provider NAME] [--max-calls N] [--timeout SECONDS] [-v]",
		NULL
	};
	uint64_t budget = DEFAULT_BUDGET, keep = DEFAULT_KEEP, tail = DEFAULT_TAIL;
	uint64_t max_calls = DEFAULT_MAX_CALLS;
	const char *timeout = NULL;
	int no_summarize = 0, stats = 0, verbose = 0, exitcode, nops, rc;
	const char *model = NULL, *provider = NULL;
	const struct ai_option options[] = {
		{ .type = AI_OPT_U64, .long_name = "budget", .value = &budget, .arg = "TOKENS",
		  .min = 100, .max = 100000000, .help = "the token budget (default 32000)" },
		{ .type = AI_OPT_U64, .long_name = "keep", .value = &keep, .arg = "N",
		  .min = 0, .max = 1000000, .help = "keep the last N turns verbatim (default 5)" },
		{ .type = AI_OPT_U64, .long_name = "tail-lines", .value = &tail, .arg = "N",
		  .min = 0, .max = 100000, .help = "lines of tool output a digest keeps (default 10)" },
		{ .type = AI_OPT_FLAG, .long_name = "no-summarize", .value = &no_summarize,
		  .help = "drop the oldest records instead of summarising them" },
		{ .type = AI_OPT_FLAG, .long_name = "stats", .value = &stats,
		  .help = "tokens and records before and after, on stderr" },
		AI_OPTION_MODEL(&model),
		AI_OPTION_PROVIDER(&provider),
		{ .type = AI_OPT_U64, .long_name = "max-calls", .value = &max_calls, .arg = "N",
		  .min = 1, .max = 10000,
		  .help = "summarising calls one compaction may make (default 32)" },
		{ .type = AI_OPT_STR, .long_name = "timeout", .value = &timeout, .arg = "SECONDS",
		  .help = "time for the summarising call (env AICLI_TIMEOUT, default 300)" },
		AI_OPTION_VERBOSE(&verbose),
		AI_OPTION_HELP,
		AI_OPTION_VERSION,
		AI_OPTION_END
	};
	const struct ai_command cmd = { synopsis,
		"Compact a conversation transcript (records on stdin) to a token budget.", options, 0 };
	struct ai_buf in = AI_BUF_INIT(MAX_INPUT);
	struct ac_transcript t;
	struct ac_opts o;
	struct ac_result res;
	struct ac_summarizer s;
	char **ops, *ask = NULL;
	static char outbuf[1 << 16];

	memset(&t, 0, sizeof(t));
	memset(&o, 0, sizeof(o));
	memset(&res, 0, sizeof(res));
	if (ai_opt_run(&cmd, argc, argv, &nops, &ops, &exitcode))
		return exitcode;
	if (nops > 0) {
		ai_err_set(e, AI_EXIT_USAGE, "unexpected argument '%s': the transcript is read from "
		    "standard input", ops[0]);
		return AI_EXIT_USAGE;
	}
	if (isatty(0)) {
		ai_err_set(e, AI_EXIT_USAGE, "standard input is a terminal: give the transcript on "
		    "standard input (ai-context < chat.ndjson)");
		return AI_EXIT_USAGE;
	}
	memset(&s, 0, sizeof(s));
	rc = setup(&s, timeout, no_summarize, budget, &ask, e);
	s.model = model;
	s.provider = provider;
	s.max_calls = max_calls;
	s.explicit_model = model != NULL || provider != NULL;
	s.verbose = verbose;
	if (rc == 0)
		rc = ai_read_fd(0, &in, "standard input", e);
	if (rc == 0)
		rc = ai_text_check(in.buf, in.len, "standard input", 0, 1, e);
	if (rc == 0) {
		const char *line;
		size_t len;

		/* an earlier tool failed: it is passed on, nothing is summarised */
		if (ai_records_upstream(in.buf, in.len, &line, &len, e))
			rc = ai_error_pass(line, len, 1, e);
	}
	if (rc == 0)
		rc = ac_transcript_read(&t, in.buf, in.len, e);
	if (rc == 0) {
		o.budget = budget;
		o.keep = keep;
		o.tail_lines = tail;
		o.summarize = !no_summarize;
		ac_window(&t, keep);
		rc = ac_compact(&t, &o, ac_summarize, &s, &res, e);
	}
	if (rc == 0 && res.no_model)
		ai_warn("no model is configured (%s); dropping the oldest records instead of "
		    "summarising them", s.program ? "'ai-ask' has no API key" : "'ai-ask' not found");
	if (rc == 0) {
		setvbuf(stdout, outbuf, _IOFBF, sizeof(outbuf));
		rc = ac_write(stdout, &t, &res, e);
		if (rc == 0)
			rc = ai_out_flush(stdout, e);
	}
	if (rc == 0 && stats)
		print_stats(&o, &res, &s);
	if (rc == 0 && res.over_budget) {
		ai_warn("the transcript needs about %llu tokens, more than the budget of %llu, even "
		    "with only the system messages, the last %llu turns and what cannot be removed",
		    (unsigned long long)res.tokens_after, (unsigned long long)budget,
		    (unsigned long long)keep);
		rc = AI_EXIT_LIMIT;
	}
	if (rc < 0 && e->code != AI_EXIT_PIPE && e->code != AI_EXIT_USAGE && !e->passed) {
		/* the next tool in the pipe learns of the failure too */
		struct ai_err we = AI_ERR_INIT;
		cJSON *r = ai_record_error("ai-context", e);

		ai_record_write(stdout, r, &we);
		cJSON_Delete(r);
	}
	ac_result_free(&res);
	ac_transcript_free(&t);
	ai_buf_release(&in);
	free(ask);
	return rc;
}

int
main(int argc, char **argv)
{
	struct ai_err e = AI_ERR_INIT;

	ai_init(argv[0]);
	return ai_finish(run(argc, argv, &e), &e);
}
