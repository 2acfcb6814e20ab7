/*
 * ai-loop: let a model call tools until it can answer, by running ai-ask,
 * ai-exec, ai-search and ai-context as child processes.
 *
 * main parses the options (so that --help and --version do no other work),
 * checks them against each other, reads the configuration (for where the
 * children are and how long a model call may take), finds the children,
 * and hands over to loop_run (loop.c).  A run that a signal ended ends by
 * the same signal, once its children are gone and its records are out.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "config.h"
#include "json.h"
#include "loop.h"
#include "msg.h"
#include "num.h"
#include "opt.h"
#include "sig.h"
#include "util.h"
#include "banned.h"

static const char *const synopsis[] = {
	"ai-loop [-jnv] [-t NAME] [--max-steps N] [--file PATH]... [--allow-url PREFIX]... "
	"[--search | --auto-search] [--policy FILE [--unconfined]] [--budget TOKENS] "
	"[--max-calls N] [--max-actions N] [--transcript FILE] [--continue FILE] [-m MODEL] "
	"[--provider NAME] [-a FILE]... [-s TEXT] [option ...] [TASK ...]",
	"ai-loop --templates",
	NULL
};

static int
usage_error(struct ai_err *e, const char *fmt, const char *a, const char *b)
{
	/* ai_finish prints it, with the --help hint every usage error gets */
	return ai_err_set(e, AI_EXIT_USAGE, fmt, a, b);
}

/* Two paths naming one file (when it exists), or the same string. */
static int
same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	if (strcmp(a, b) == 0)
		return 1;
	return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
	    sa.st_ino == sb.st_ino;
}

/*
 * The settings that come from the environment or the configuration file:
 * the libexec directory, and the model call's timeout (ai-ask reads it
 * itself; ai-loop needs it to know when a call has hung).
 */
static int
settings(struct lopts *o, struct ai_config *cfg, struct ai_err *e)
{
	static const char *const libexec_env[] = { "AICLI_LIBEXEC", NULL };
	static const char *const timeout_env[] = { "AICLI_TIMEOUT", NULL };
	int64_t ms;

	if (ai_config_load(cfg, e) < 0)
		return -1;
	const cJSON *p;

	/* every secret the suite knows, so that no record shows one */
	ai_config_secrets();
	o->libexec = ai_config_get(cfg, NULL, NULL, libexec_env, "libexec", NULL, &o->libexec_from);
	cJSON_ArrayForEach(p, ai_config_object(cfg, "providers"))
		if (ai_json_str(p, "key_env") != NULL)
			child_model_var(ai_json_str(p, "key_env"));
	/* ai-ask's own check, so that ai-loop refuses the same values in the same words */
	if (!o->timeout_given) {
		if (ai_config_seconds(cfg, NULL, NULL, timeout_env, "timeout", 300, 0.001, 86400, &ms,
		    e) < 0)
			return -1;
		o->timeout = (double)ms / 1000;
	}
	return 0;
}

/* A child: in the libexec directory only when one is set, else next to ai-loop, else in PATH. */
static char *
find(const struct lopts *o, const char *name, int needed, struct ai_err *e)
{
	char *p = ai_find_program(name, o->libexec);

	if (p == NULL && needed)
		ai_err_set(e, AI_EXIT_UNAVAILABLE, "cannot find '%s' (%s)", name,
		    o->libexec == NULL ? "looked next to ai-loop and in PATH" :
		    strcmp(o->libexec_from, "config file") == 0 ?
		    "looked in the directory \"libexec\" of the config file names" :
		    "looked in $AICLI_LIBEXEC");
	return p;
}

static int
run(int argc, char **argv, struct ai_err *e)
{
	struct lopts o;
	struct loop L;
	struct ai_config cfg = AI_CONFIG_INIT;
	struct ai_buf task = AI_BUF_INIT(AI_BUF_NOLIMIT);
	int nops, exitcode, code;
	char **ops;
	const struct ai_option options[] = {
		AI_OPTION_TEMPLATE(&o.template_name),
		{ .type = AI_OPT_STR, .long_name = "plan-model", .value = &o.plan_model,
		  .arg = "MODEL", .help = "a model that plans first; -m's model then carries it out" },
		{ .type = AI_OPT_U64, .long_name = "max-steps", .value = &o.max_steps, .arg = "N",
		  .min = 1, .max = 1000,
		  .help = "model calls with tools before the final answer (10)" },
		{ .type = AI_OPT_LIST, .long_name = "file", .value = &o.files, .arg = "PATH",
		  .help = "a file the execute tool may read; repeatable" },
		{ .type = AI_OPT_LIST, .long_name = "allow-url", .value = &o.urls, .arg = "PREFIX",
		  .help = "a URL prefix the execute tool's curl may fetch; repeatable" },
		{ .type = AI_OPT_FLAG, .long_name = "search", .value = &o.search,
		  .help = "offer the web_search tool" },
		{ .type = AI_OPT_FLAG, .long_name = "auto-search", .value = &o.auto_search,
		  .help = "ask the model first whether to search, and search once if so" },
		{ .type = AI_OPT_STR, .long_name = "policy", .value = &o.policy, .arg = "FILE",
		  .help = "offer the run tool; ai-exec's policy of allowed programs" },
		{ .type = AI_OPT_STR, .long_name = "approve", .value = &o.approve, .arg = "LEVEL",
		  .help = "with --policy: run programs of this risk level too (L1)", .values = "L1" },
		{ .type = AI_OPT_FLAG, .long_name = "unconfined", .value = &o.unconfined,
		  .help = "with --policy: run programs without ai-exec's sandbox" },
		{ .type = AI_OPT_STR, .long_name = "audit", .value = &o.audit, .arg = "FILE",
		  .help = "ai-exec's audit log of every tool call" },
		{ .type = AI_OPT_U64, .long_name = "budget", .value = &o.budget, .arg = "TOKENS",
		  .min = 1, .max = 1000000000000ULL,
		  .help = "weighted tokens for the whole run (1000000)" },
		{ .type = AI_OPT_STR, .long_name = "budget-file", .value = &o.budget_file,
		  .arg = "FILE", .help = "draw on the budget in FILE (env AICLI_BUDGET_FILE)" },
		{ .type = AI_OPT_U64, .long_name = "context-budget", .value = &o.context_budget,
		  .arg = "TOKENS", .min = 1000, .max = 4000000,
		  .help = "compact the conversation above 80% of this (32000)" },
		{ .type = AI_OPT_U64, .long_name = "max-calls", .value = &o.max_calls, .arg = "N",
		  .min = 1, .max = 100000, .help = "model calls for the whole run (50)" },
		{ .type = AI_OPT_U64, .long_name = "max-actions", .value = &o.max_actions,
		  .arg = "N", .min = 1, .max = 64, .help = "tool calls run in one step (5)" },
		{ .type = AI_OPT_STR, .long_name = "transcript", .value = &o.transcript,
		  .arg = "FILE", .help = "write the conversation to FILE as records" },
		{ .type = AI_OPT_STR, .long_name = "continue", .value = &o.cont, .arg = "FILE",
		  .help = "continue the conversation in FILE and append this run to it" },
		{ .type = AI_OPT_LIST, .short_name = 'a', .long_name = "attach", .value = &o.attach,
		  .arg = "FILE", .help = "an image or PDF sent with the task; repeatable" },
		{ .type = AI_OPT_STR, .long_name = "max-attach", .value = &o.max_attach,
		  .arg = "SIZE", .help = "largest attachment (default 20M)" },
		AI_OPTION_MODEL(&o.model),
		AI_OPTION_PROVIDER(&o.provider),
		AI_OPTION_SYSTEM(&o.system),
		{ .type = AI_OPT_STR, .long_name = "system-file", .value = &o.system_file,
		  .arg = "FILE", .help = "system prompt from FILE" },
		{ .type = AI_OPT_DOUBLE, .long_name = "temperature", .value = &o.temperature,
		  .arg = "T", .dmin = 0, .dmax = 2, .given = &o.temperature_given,
		  .help = "sampling temperature, 0 to 2" },
		{ .type = AI_OPT_U64, .long_name = "max-tokens", .value = &o.max_tokens, .arg = "N",
		  .min = 1, .max = 1000000, .help = "longest answer of one model call, in tokens" },
		{ .type = AI_OPT_DOUBLE, .long_name = "timeout", .value = &o.timeout,
		  .arg = "SECONDS", .dmin = 0.001, .dmax = 86400, .given = &o.timeout_given,
		  .help = "time for one model call (env AICLI_TIMEOUT, default 300)" },
		{ .type = AI_OPT_DOUBLE, .long_name = "tool-timeout", .value = &o.tool_timeout,
		  .arg = "SECONDS", .dmin = 0.1, .dmax = 3600,
		  .help = "time for one tool call (30)" },
		AI_OPTION_JSON(&o.json),
		{ .type = AI_OPT_FLAG, .short_name = 'n', .long_name = "no-stdin",
		  .value = &o.no_stdin, .help = "do not read standard input" },
		{ .type = AI_OPT_FLAG, .long_name = "usage", .value = &o.usage,
		  .help = "steps, calls, tokens and cost on stderr at the end" },
		AI_OPTION_VERBOSE(&o.verbose),
		AI_OPTION_TEMPLATES,
		AI_OPTION_HELP,
		AI_OPTION_VERSION,
		AI_OPTION_END
	};
	const struct ai_command cmd = { synopsis,
		"Let a model call tools until it can answer, running ai-ask, ai-exec, ai-search "
		"and ai-context as children.", options, 0 };

	memset(&o, 0, sizeof(o));
	memset(&L, 0, sizeof(L));
	o.max_steps = 10;
	o.max_calls = 50;
	o.max_actions = 5;
	o.budget = 1000000;
	o.context_budget = 32000;
	o.tool_timeout = 30;
	if (ai_opt_run(&cmd, argc, argv, &nops, &ops, &exitcode)) {
		ai_strlist_free(&o.files);
		ai_strlist_free(&o.urls);
		ai_strlist_free(&o.attach);
		return exitcode;
	}
	code = 0;
	if (o.search && o.auto_search)
		code = usage_error(e, "--search and --auto-search cannot be used together%s%s", "",
		    "");
	else if (o.approve != NULL && o.policy == NULL)
		code = usage_error(e, "--approve needs --policy%s%s", "", "");
	else if (o.unconfined && o.policy == NULL)
		code = usage_error(e, "--unconfined needs --policy%s%s", "", "");
	else if (o.audit != NULL && o.files.n == 0 && o.urls.n == 0 && o.policy == NULL)
		code = usage_error(e, "--audit needs a tool that ai-exec runs (--file, --allow-url "
		    "or --policy)%s%s", "", "");
	else if (o.transcript != NULL && o.cont != NULL && same_file(o.transcript, o.cont))
		code = usage_error(e, "--transcript '%s' and --continue '%s' are the same file",
		    o.transcript, o.cont);
	if (code < 0) {
		ai_strlist_free(&o.files);
		ai_strlist_free(&o.urls);
		ai_strlist_free(&o.attach);
		return code;
	}
	ai_opt_join(&task, nops, ops);
	o.task = nops > 0 ? task.buf : NULL;
	L.o = &o;
	code = settings(&o, &cfg, e) < 0 ? -1 : 0;
	if (code == 0 && (L.ask = find(&o, "ai-ask", 1, e)) == NULL)
		code = -1;
	if (code == 0 && (o.files.n > 0 || o.urls.n > 0 || o.policy != NULL) &&
	    (L.exec = find(&o, "ai-exec", 1, e)) == NULL)
		code = -1;
	if (code == 0 && (o.search || o.auto_search) &&
	    (L.search = find(&o, "ai-search", 1, e)) == NULL)
		code = -1;
	if (code == 0) {
		L.context = find(&o, "ai-context", 0, e);
		code = loop_run(&L, e);
	}
	free(L.ask);
	free(L.exec);
	free(L.search);
	free(L.context);
	ai_config_free(&cfg);
	ai_buf_release(&task);
	ai_strlist_free(&o.files);
	ai_strlist_free(&o.urls);
	ai_strlist_free(&o.attach);
	return code;
}

int
main(int argc, char **argv)
{
	struct ai_err e = AI_ERR_INIT;
	int code;

	ai_init(argv[0]);
	code = ai_finish(run(argc, argv, &e), &e);
	/* ended by a signal: end by it, as the shell expects (130, 143, 129) */
	ai_sig_end();
	return code;
}
