/*
 * ai-ask: one request to a language model, the answer on stdout.
 *
 * main parses the options first (so that --help and --version do no other
 * work), then resolves every setting by flag > environment > configuration
 * file > default, and hands over to ask_run (ask.c).  In JSON mode a
 * failure also ends the record stream with an error record.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ask.h"
#include "budget.h"
#include "buf.h"
#include "config.h"
#include "msg.h"
#include "num.h"
#include "json.h"
#include "profiles.h"
#include "opt.h"
#include "record.h"
#include "url.h"
#include "util.h"
#include "banned.h"

static const char *const synopsis[] = {
	"ai-ask [-jnv] [-t NAME] [-m MODEL] [-s TEXT] [--provider NAME] [-a FILE]... "
	"[--tools FILE | --schema FILE] [--continue FILE] [option ...] [PROMPT ...]",
	"ai-ask --each [-P N] [--unordered] [--skip-done FILE] [--rpm N] [--tpm N] "
	"[option ...] [PROMPT ...]",
	"ai-ask --batch submit [--batch-state FILE] [option ...] [PROMPT ...]",
	"ai-ask --batch status|results [-j] [option ...] ID | --batch-state FILE",
	"ai-ask --templates",
	"ai-ask --models [-jv] [--provider NAME]",
	NULL
};

/* Flag values before resolution. */
struct flags {
	const char *model, *provider, *base_url;
	const char *timeout, *idle, *retries, *max_attach;
	const char *template_name; /* -t: applied by the option parser */
};

/* "$NAME" for an environment variable, else the source as ai_config_get named it. */
static const char *
source_name(const char *from, char *buf, size_t n)
{
	if (strcmp(from, "config file") == 0 || strcmp(from, "default") == 0 || from[0] == '-')
		snprintf(buf, n, "%s", from);
	else
		snprintf(buf, n, "$%s", from);
	return buf;
}

static int
is_loopback(const char *url)
{
	struct ai_url u;
	struct ai_err e = AI_ERR_INIT;
	int yes;

	if (ai_url_parse(url, &u, &e) < 0)
		return 0;
	yes = strcmp(u.host, "localhost") == 0 || strncmp(u.host, "127.", 4) == 0 ||
	    strcmp(u.host, "::1") == 0;
	ai_url_free(&u);
	return yes;
}

/*
 * The key of profile pr: its variables, then its configuration entry's
 * "key", then its flat configuration key.  Never another profile's.
 */
static const char *
find_key(const struct ai_config *cfg, const struct prof *pr, const char **from)
{
	const char *key = ai_config_get(cfg, NULL, NULL, pr->key_env, NULL, NULL, from);

	if (key == NULL && pr->key != NULL) {
		*from = "config file";
		key = pr->key;
	}
	if (key == NULL && pr->key_file[0])
		key = ai_config_get(cfg, NULL, NULL, NULL, pr->key_file, NULL, from);
	return key;
}

static int
no_key(const struct ai_config *cfg, const struct prof *pr, struct ai_err *e)
{
	struct ai_buf b = AI_BUF_INIT(AI_BUF_NOLIMIT);
	char file[1536];
	size_t i;
	int rc;

	for (i = 0; pr->key_env[i] != NULL; i++)
		ai_buf_addf(&b, "%s%s", i == 0 ? "" : " or ", pr->key_env[i]);
	ai_config_hint(cfg, file, sizeof(file));
	if (pr->key_file[0])
		ai_buf_addf(&b, "%s\"%s\" in %s", b.len ? ", or " : "", pr->key_file, file);
	else
		ai_buf_addf(&b, "%s\"key\" in providers.%s of %s", b.len ? ", or " : "",
		    pr->name, file);
	rc = ai_err_set(e, AI_EXIT_CONFIG, "no API key for %s: set %s%s", pr->name, b.buf,
	    pr->p == &provider_gemini && getenv("GOOGLE_API_KEY") != NULL ?
	    "; GOOGLE_API_KEY is ai-search's key and is never sent to Gemini" : "");
	ai_buf_release(&b);
	return rc;
}

/* Provider, model, endpoint, key, timeouts, retries, prices. */
static int
resolve(struct opts *o, const struct ai_config *cfg, const struct flags *f, struct prof *pr,
    char **base_out, struct ai_err *e)
{
	static const char *const provider_env[] = { "AICLI_PROVIDER", NULL };
	static const char *const model_env[] = { "AICLI_MODEL", NULL };
	static const char *const timeout_env = "AICLI_TIMEOUT", *retries_env = "AICLI_RETRIES";
	const char *pname, *model, *base, *key, *from, *mfrom, *alias_provider = NULL;
	const char *base_envs[2] = { NULL, NULL };
	struct ai_buf b = AI_BUF_INIT(AI_BUF_NOLIMIT);
	char src[64], why_buf[AI_ERR_MSG_MAX + 32], *tmp;
	struct ai_url u;
	size_t n;

	pname = ai_config_get(cfg, f->provider, "--provider", provider_env, "provider", NULL, &from);
	model = ai_config_get(cfg, f->model, "--model", model_env, "model", NULL, &mfrom);
	if (model != NULL && profile_alias(cfg, &model, &alias_provider, e) < 0)
		return -1;
	if (alias_provider != NULL && f->provider == NULL) {
		pname = alias_provider;
		from = "config file";
	}
	if (pname == NULL && (pname = profile_for_model(model)) == NULL)
		pname = "openai";
	if (profile_get(cfg, pname, from, pr, e) < 0)
		return -1;
	o->k.p = pr->p;
	o->profile = pr->name;
	o->pflags = pr->flags;
	o->headers = pr->headers;
	if (model == NULL)
		model = pr->model;
	if (model == NULL)
		return ai_err_set(e, AI_EXIT_CONFIG, "no model for %s: give -m MODEL, set AICLI_MODEL, "
		    "or \"model\" in the config file's providers.%s", pr->name, pr->name);
	for (n = 0; model[n]; n++)
		if ((unsigned char)model[n] < 0x20 || model[n] == 0x7f)
			return ai_config_bad(cfg, mfrom, "model", model, "holds control characters", e);
	if (*model == '\0')
		return ai_config_bad(cfg, mfrom, "model", model, "is empty", e);
	o->k.model = model;

	/* the base URL: the flag, the profile's own variable, its entry, its flat key */
	base_envs[0] = pr->base_env;
	base = ai_config_get(cfg, f->base_url, "--base-url", base_envs, NULL, NULL, &from);
	if (base == NULL && ai_json_str(ai_json_get(ai_config_object(cfg, "providers"), pr->name),
	    "base_url") != NULL) {
		base = pr->base_def;
		from = "config file";
	}
	if (base == NULL)
		base = ai_config_get(cfg, NULL, NULL, NULL, pr->base_file[0] ? pr->base_file : NULL,
		    pr->base_def, &from);
	/* OLLAMA_HOST may be "host" or "host:port", as Ollama itself reads it */
	if ((pr->flags & AI_PROFILE_HOST_ONLY) && strstr(base, "://") == NULL)
		ai_buf_addf(&b, "http://%s%s", base, strchr(base, ':') ? "" : ":11434");
	else
		ai_buf_adds(&b, base);
	while (b.len > 0 && b.buf[b.len - 1] == '/')
		ai_buf_truncate(&b, b.len - 1);
	*base_out = tmp = ai_buf_detach(&b, NULL);
	if (ai_url_parse(tmp, &u, e) < 0) {
		snprintf(why_buf, sizeof(why_buf), "is not a usable URL (%s)", e->msg);
		return ai_config_bad(cfg, from, pr->base_file[0] ? pr->base_file : "base_url", base,
		    why_buf, e);
	}
	ai_url_free(&u);
	o->base = tmp;

	key = (pr->flags & AI_PROFILE_NO_KEY) ? NULL : find_key(cfg, pr, &from);
	if (key == NULL && !(pr->flags & AI_PROFILE_NO_KEY) &&
	    !((pr->flags & AI_PROFILE_KEYLESS_LOOPBACK) && is_loopback(tmp)))
		return no_key(cfg, pr, e);
	if (key != NULL) {
		for (n = 0; key[n]; n++)
			if ((unsigned char)key[n] < 0x20 || key[n] == 0x7f)
				return ai_err_set(e, AI_EXIT_CONFIG,
				    "the API key in %s holds a control character",
				    source_name(from, src, sizeof(src)));
		o->k.key = key;
		o->key_from = from;
	}

	{
		const char *const tenv[] = { timeout_env, NULL }, *const renv[] = { retries_env, NULL };
		uint64_t r;

		if (ai_config_seconds(cfg, f->timeout, "--timeout", tenv, "timeout", 300, 0.001, 86400,
		    &o->timeout_ms, e) < 0 ||
		    ai_config_seconds(cfg, f->idle, "--idle-timeout", NULL, NULL, 60, 0.001, 86400,
		    &o->idle_ms, e) < 0 ||
		    ai_config_count(cfg, f->retries, "--retries", renv, "retries", 3, 0, 10, &r, e) < 0)
			return -1;
		o->attempts = (int)r + 1;
	}
	o->max_attach = (uint64_t)20 << 20;
	if (f->max_attach != NULL && attach_parse_size(f->max_attach, &o->max_attach) < 0)
		return ai_config_bad(cfg, "--max-attach", "max_attach", f->max_attach,
		    "is not a size from 1 byte to 100M (such as 512k or 20M)", e);
	o->prices = ai_config_object(cfg, "prices");
	return o->prices != NULL ? price_check_config(o->prices, e) : 0;
}

static int
run(int argc, char **argv, struct ai_err *e)
{
	struct opts o;
	struct flags f;
	struct ai_config cfg = AI_CONFIG_INIT;
	struct ai_buf prompt = AI_BUF_INIT(AI_BUF_NOLIMIT);
	int nops, exitcode, temp_given = 0, ttl_given = 0, rc;
	uint64_t cache_ttl = 30 * 86400;
	char **ops, *base = NULL;
	struct prof pr;
	const struct ai_option options[] = {
		AI_OPTION_TEMPLATE(&f.template_name),
		AI_OPTION_MODEL(&f.model),
		AI_OPTION_PROVIDER(&f.provider),
		AI_OPTION_SYSTEM(&o.system),
		{ .type = AI_OPT_STR, .long_name = "system-file", .value = &o.system_file,
		  .arg = "FILE", .help = "system prompt from FILE" },
		{ .type = AI_OPT_STR, .long_name = "base-url", .value = &f.base_url, .arg = "URL",
		  .help = "the provider's base URL (env OPENAI_BASE_URL, ...)" },
		{ .type = AI_OPT_DOUBLE, .long_name = "temperature", .value = &o.k.temperature,
		  .arg = "T", .dmin = 0, .dmax = 2, .given = &temp_given,
		  .help = "sampling temperature, 0 to 2" },
		{ .type = AI_OPT_U64, .long_name = "max-tokens", .value = &o.k.max_tokens, .arg = "N",
		  .min = 1, .max = 1000000, .help = "longest answer, in tokens" },
		{ .type = AI_OPT_STR, .long_name = "tools", .value = &o.tools_file, .arg = "FILE",
		  .help = "tools the model may call: a JSON array of {name, description, parameters}" },
		{ .type = AI_OPT_STR, .long_name = "schema", .value = &o.schema_file, .arg = "FILE",
		  .help = "answer with JSON following the JSON Schema in FILE" },
		{ .type = AI_OPT_STR, .long_name = "continue", .value = &o.continue_file, .arg = "FILE",
		  .help = "continue the transcript in FILE and append this exchange to it" },
		{ .type = AI_OPT_LIST, .short_name = 'a', .long_name = "attach", .value = &o.attach,
		  .arg = "FILE", .help = "send an image or PDF with the prompt; repeatable" },
		{ .type = AI_OPT_STR, .long_name = "max-attach", .value = &f.max_attach,
		  .arg = "SIZE", .help = "largest attachment (default 20M)" },
		{ .type = AI_OPT_FLAG, .long_name = "models", .value = &o.models,
		  .help = "list the provider's models and exit" },
		AI_OPTION_JSON(&o.json),
		{ .type = AI_OPT_FLAG, .long_name = "stream", .value = &o.deltas,
		  .help = "with --json: delta records as the answer arrives" },
		{ .type = AI_OPT_FLAG, .long_name = "usage", .value = &o.usage,
		  .help = "tokens and cost on stderr at the end" },
		{ .type = AI_OPT_FLAG, .short_name = 'n', .long_name = "no-stdin", .value = &o.no_stdin,
		  .help = "do not read standard input" },
		{ .type = AI_OPT_STR, .long_name = "timeout", .value = &f.timeout, .arg = "SECONDS",
		  .help = "total time for the request (env AICLI_TIMEOUT, default 300)" },
		{ .type = AI_OPT_STR, .long_name = "idle-timeout", .value = &f.idle,
		  .arg = "SECONDS", .help = "longest silence once the answer has begun (default 60)" },
		{ .type = AI_OPT_STR, .long_name = "retries", .value = &f.retries, .arg = "N",
		  .help = "attempts after the first (env AICLI_RETRIES, default 3)" },
		{ .type = AI_OPT_U64, .long_name = "max-pauses", .value = &o.max_pauses, .arg = "N",
		  .max = 100, .help = "times a turn the provider paused is continued (default 8)" },
		{ .type = AI_OPT_FLAG, .long_name = "each", .value = &o.each,
		  .help = "every input line or record is a prompt of its own" },
		{ .type = AI_OPT_U64, .short_name = 'P', .long_name = "parallel", .value = &o.parallel,
		  .arg = "N", .min = 1, .max = 256, .help = "with --each: requests in flight (default 4)" },
		{ .type = AI_OPT_FLAG, .long_name = "unordered", .value = &o.unordered,
		  .help = "with --each: answers as they finish, not in input order" },
		{ .type = AI_OPT_STR, .long_name = "skip-done", .value = &o.skip_done, .arg = "FILE",
		  .help = "with --each: skip the prompts FILE holds answers for" },
		{ .type = AI_OPT_U64, .long_name = "rpm", .value = &o.rpm, .arg = "N", .min = 1,
		  .max = 1000000, .help = "with --each: at most N requests a minute" },
		{ .type = AI_OPT_U64, .long_name = "tpm", .value = &o.tpm, .arg = "N", .min = 1,
		  .max = 1000000000, .help = "with --each: at most N tokens a minute" },
		{ .type = AI_OPT_FLAG, .long_name = "cache", .value = &o.cache,
		  .help = "answer a request made before from the cache (env AICLI_CACHE_DIR)" },
		{ .type = AI_OPT_U64, .long_name = "cache-ttl", .value = &cache_ttl, .arg = "SECONDS",
		  .max = 315360000, .given = &ttl_given,
		  .help = "with --cache: older entries are not used (default 30 days, 0: any)" },
		{ .type = AI_OPT_STR, .long_name = "budget-file", .value = &o.budget_file,
		  .arg = "FILE", .help = "draw on the budget in FILE (env AICLI_BUDGET_FILE)" },
		{ .type = AI_OPT_STR, .long_name = "batch", .value = &o.batch, .arg = "ACTION",
		  .values = "submit status results",
		  .help = "the prompts of --each as one provider batch: submit, status, results" },
		{ .type = AI_OPT_STR, .long_name = "batch-state", .value = &o.batch_state,
		  .arg = "FILE", .help = "with --batch: the batch's state, kept by submit" },
		AI_OPTION_VERBOSE(&o.verbose),
		AI_OPTION_TEMPLATES,
		AI_OPTION_HELP,
		AI_OPTION_VERSION,
		AI_OPTION_END
	};
	const struct ai_command cmd = { synopsis,
		"Send one request to a language model and print the answer.", options, 0 };

	memset(&o, 0, sizeof(o));
	memset(&f, 0, sizeof(f));
	o.max_pauses = 8;
	if (ai_opt_run(&cmd, argc, argv, &nops, &ops, &exitcode)) {
		ai_strlist_free(&o.attach);
		return exitcode;
	}
	o.k.has_temperature = temp_given;
	if (o.tools_file != NULL && o.schema_file != NULL) {
		ai_strlist_free(&o.attach);
		ai_err_set(e, AI_EXIT_USAGE, "--tools and --schema cannot be used together");
		return AI_EXIT_USAGE;
	}
	if (o.models && (nops > 0 || o.attach.n > 0 || o.tools_file || o.schema_file ||
	    o.continue_file || o.system || o.system_file)) {
		ai_strlist_free(&o.attach);
		ai_err_set(e, AI_EXIT_USAGE, "--models takes no prompt, attachment, tools, schema, "
		    "system prompt or transcript");
		return AI_EXIT_USAGE;
	}
	if ((o.parallel || o.unordered || o.skip_done || o.rpm || o.tpm) && !o.each) {
		ai_strlist_free(&o.attach);
		ai_err_set(e, AI_EXIT_USAGE,
		    "-P, --unordered, --skip-done, --rpm and --tpm go with --each");
		return AI_EXIT_USAGE;
	}
	if (o.each && (o.models || o.attach.n > 0 || o.tools_file || o.continue_file || o.deltas ||
	    o.no_stdin)) {
		ai_strlist_free(&o.attach);
		ai_err_set(e, AI_EXIT_USAGE, "--each takes no --models, -a, --tools, --continue, "
		    "--stream or -n");
		return AI_EXIT_USAGE;
	}
	if (o.batch_state != NULL && o.batch == NULL) {
		ai_strlist_free(&o.attach);
		ai_err_set(e, AI_EXIT_USAGE, "--batch-state goes with --batch");
		return AI_EXIT_USAGE;
	}
	if (o.batch != NULL && strcmp(o.batch, "submit") != 0 && strcmp(o.batch, "status") != 0 &&
	    strcmp(o.batch, "results") != 0) {
		ai_strlist_free(&o.attach);
		ai_err_set(e, AI_EXIT_USAGE, "--batch takes submit, status or results, not '%s'",
		    o.batch);
		return AI_EXIT_USAGE;
	}
	if (o.batch != NULL && (o.each || o.models || o.attach.n > 0 || o.tools_file ||
	    o.continue_file || o.deltas || o.no_stdin || o.cache || o.parallel || o.unordered ||
	    o.skip_done || o.rpm || o.tpm)) {
		ai_strlist_free(&o.attach);
		ai_err_set(e, AI_EXIT_USAGE, "--batch takes no --each, -P, --unordered, --skip-done, "
		    "--rpm, --tpm, --models, -a, --tools, --continue, --stream, -n or --cache");
		return AI_EXIT_USAGE;
	}
	if (o.batch != NULL && strcmp(o.batch, "submit") != 0 &&
	    (o.batch_state != NULL ? nops != 0 : nops != 1)) {
		ai_strlist_free(&o.attach);
		ai_err_set(e, AI_EXIT_USAGE, "--batch %s takes the batch's ID or --batch-state FILE",
		    o.batch);
		return AI_EXIT_USAGE;
	}
	if (ttl_given && !o.cache) {
		ai_strlist_free(&o.attach);
		ai_err_set(e, AI_EXIT_USAGE, "--cache-ttl goes with --cache");
		return AI_EXIT_USAGE;
	}
	o.cache_ttl_ms = (int64_t)cache_ttl * 1000;
	if (o.each) {
		o.json = 1; /* its answers are records */
		if (o.parallel == 0)
			o.parallel = 4;
	}
	if (o.batch != NULL && strcmp(o.batch, "submit") != 0) {
		o.json |= strcmp(o.batch, "results") == 0; /* its answers are records */
		o.batch_id = nops == 1 ? ops[0] : NULL;
		nops = 0;
	}
	ai_opt_join(&prompt, nops, ops);
	o.prompt = nops > 0 ? prompt.buf : NULL;

	rc = 0;
	if (o.batch_state != NULL && strcmp(o.batch, "submit") != 0) {
		/* the batch, its provider and model, as submit kept them */
		rc = batch_state_load(o.batch_state, &o.state, e);
		if (rc == 0) {
			o.batch_id = ai_json_str(o.state, "batch");
			if (f.provider == NULL)
				f.provider = ai_json_str(o.state, "provider");
			if (f.model == NULL)
				f.model = ai_json_str(o.state, "model");
		}
	}
	if (rc == 0)
		rc = ai_config_load(&cfg, e);
	if (rc == 0)
		rc = resolve(&o, &cfg, &f, &pr, &base, e);
	if (o.budget_file == NULL && getenv("AICLI_BUDGET_FILE") != NULL &&
	    *getenv("AICLI_BUDGET_FILE"))
		o.budget_file = getenv("AICLI_BUDGET_FILE");
	/* a spent or broken budget fails first, before anything is read or asked */
	if (rc == 0 && o.budget_file != NULL && !o.models)
		rc = ai_budget_check(o.budget_file, e);
	if (rc == 0 && o.cache && !o.models)
		rc = cache_open(&o, e);
	if (rc == 0)
		rc = o.models ? models_run(&o, e) : o.batch ? batch_run(&o, e) :
		    o.each ? each_run(&o, e) : ask_run(&o, e);
	if (rc != 0 && o.json && e->code != AI_EXIT_PIPE && e->msg[0] && !e->passed) {
		struct ai_err we = AI_ERR_INIT;
		cJSON *r = ai_record_error("ai-ask", e);

		ai_record_write(stdout, r, &we);
		cJSON_Delete(r);
	}
	ai_config_free(&cfg);
	ai_buf_release(&prompt);
	ai_strlist_free(&o.attach);
	free(base);
	free(o.url_buf);
	free(o.cache_dir);
	cJSON_Delete(o.state);
	return rc;
}

int
main(int argc, char **argv)
{
	struct ai_err e = AI_ERR_INIT;

	ai_init(argv[0]);
	return ai_finish(run(argc, argv, &e), &e);
}
