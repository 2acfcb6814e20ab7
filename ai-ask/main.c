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
#include "buf.h"
#include "config.h"
#include "msg.h"
#include "num.h"
#include "opt.h"
#include "record.h"
#include "url.h"
#include "util.h"
#include "banned.h"

static const char *const synopsis[] = {
	"ai-ask [-jnv] [-t NAME] [-m MODEL] [-s TEXT] [--provider NAME] "
	"[--tools FILE | --schema FILE] [--continue FILE] [option ...] [PROMPT ...]",
	"ai-ask --templates",
	NULL
};

/* The environment names and file keys of each provider's settings. */
static const struct {
	const struct provider *p;
	const char *model;                   /* default model */
	const char *const key_env[3];
	const char *key_file;
	const char *const base_env[2];
	const char *base_file;
	const char *base_def;
} providers[] = {
	{ &provider_openai, "gpt-4.1-mini", { "OPENAI_API_KEY", "AICLI_OPENAI_API_KEY", NULL },
	  "openai_api_key", { "OPENAI_BASE_URL", NULL }, "openai_base_url",
	  "https://api.openai.com/v1" },
	{ &provider_chat, "gpt-4.1-mini", { "OPENAI_API_KEY", "AICLI_OPENAI_API_KEY", NULL },
	  "openai_api_key", { "OPENAI_BASE_URL", NULL }, "openai_base_url",
	  "https://api.openai.com/v1" },
	{ &provider_anthropic, "claude-haiku-4-5", { "ANTHROPIC_API_KEY", NULL, NULL },
	  "anthropic_api_key", { "ANTHROPIC_BASE_URL", NULL }, "anthropic_base_url",
	  "https://api.anthropic.com" },
	{ &provider_ollama, "llama3.2", { NULL, NULL, NULL }, NULL, { "OLLAMA_HOST", NULL },
	  "ollama_host", "http://127.0.0.1:11434" },
};

/* Flag values before resolution. */
struct flags {
	const char *model, *provider, *base_url;
	const char *timeout, *idle, *retries;
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

/* OLLAMA_HOST may be "host", "host:port" or a URL, as Ollama itself reads it. */
static char *
ollama_url(const char *v)
{
	struct ai_buf b = AI_BUF_INIT(AI_BUF_NOLIMIT);

	if (strstr(v, "://") != NULL)
		ai_buf_adds(&b, v);
	else
		ai_buf_addf(&b, "http://%s%s", v, strchr(v, ':') ? "" : ":11434");
	return ai_buf_detach(&b, NULL);
}

/* Provider, model, endpoint, key, timeouts, retries, prices. */
static int
resolve(struct opts *o, const struct ai_config *cfg, const struct flags *f, char **url,
    struct ai_err *e)
{
	static const char *const provider_env[] = { "AICLI_PROVIDER", NULL };
	static const char *const model_env[] = { "AICLI_MODEL", NULL };
	static const char *const timeout_env = "AICLI_TIMEOUT", *retries_env = "AICLI_RETRIES";
	const char *pname, *model, *base, *key, *from, *mfrom;
	struct ai_buf b = AI_BUF_INIT(AI_BUF_NOLIMIT);
	char src[64], why_buf[AI_ERR_MSG_MAX + 32], *tmp;
	struct ai_url u;
	size_t i, n;

	pname = ai_config_get(cfg, f->provider, "--provider", provider_env, "provider", NULL, &from);
	model = ai_config_get(cfg, f->model, "--model", model_env, "model", NULL, &mfrom);
	if (pname == NULL)
		pname = model != NULL && strncmp(model, "claude-", 7) == 0 ? "anthropic" : "openai";
	for (i = 0; i < AI_ARRAY_SIZE(providers); i++)
		if (strcmp(providers[i].p->name, pname) == 0)
			break;
	if (i == AI_ARRAY_SIZE(providers))
		return ai_config_bad(cfg, from, "provider", pname,
		    "is not a provider: openai, openai-chat, anthropic or ollama", e);
	o->k.p = providers[i].p;
	if (model == NULL)
		model = providers[i].model;
	for (n = 0; model[n]; n++)
		if ((unsigned char)model[n] < 0x20)
			return ai_config_bad(cfg, mfrom, "model", model, "holds control characters", e);
	if (*model == '\0')
		return ai_config_bad(cfg, mfrom, "model", model, "is empty", e);
	o->k.model = model;

	base = ai_config_get(cfg, f->base_url, "--base-url", providers[i].base_env,
	    providers[i].base_file, providers[i].base_def, &from);
	tmp = o->k.p == &provider_ollama ? ollama_url(base) : ai_xstrdup(base);
	ai_buf_adds(&b, tmp);
	free(tmp);
	while (b.len > 0 && b.buf[b.len - 1] == '/')
		ai_buf_truncate(&b, b.len - 1);
	ai_buf_adds(&b, o->k.p->path);
	*url = ai_buf_detach(&b, NULL);
	if (ai_url_parse(*url, &u, e) < 0) {
		snprintf(why_buf, sizeof(why_buf), "is not a usable URL (%s)", e->msg);
		return ai_config_bad(cfg, from, providers[i].base_file ? providers[i].base_file : "base_url",
		    base, why_buf, e);
	}
	ai_url_free(&u);
	o->url = *url;

	key = NULL;
	if (providers[i].key_file != NULL)
		key = ai_config_get(cfg, NULL, NULL, providers[i].key_env, providers[i].key_file, NULL,
		    &from);
	if (key == NULL && o->k.p->auth != AUTH_NONE &&
	    !(o->k.p == &provider_chat && is_loopback(*url))) {
		char file[1536];

		return ai_err_set(e, AI_EXIT_CONFIG,
		    "no API key for %s: set %s%s%s, or \"%s\" in %s", o->k.p->name,
		    providers[i].key_env[0], providers[i].key_env[1] ? " or " : "",
		    providers[i].key_env[1] ? providers[i].key_env[1] : "", providers[i].key_file,
		    ai_config_hint(cfg, file, sizeof(file)));
	}
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
	int nops, exitcode, temp_given = 0, rc;
	char **ops, *url = NULL;
	const struct ai_option options[] = {
		AI_OPTION_TEMPLATE(&f.template_name),
		AI_OPTION_MODEL(&f.model),
		AI_OPTION_PROVIDER(&f.provider),
		AI_OPTION_SYSTEM(&o.system),
		{ .type = AI_OPT_STR, .long_name = "system-file", .value = &o.system_file,
		  .arg = "FILE", .help = "system prompt from FILE" },
		{ .type = AI_OPT_STR, .long_name = "base-url", .value = &f.base_url, .arg = "URL",
		  .help = "the provider's base URL (env OPENAI_BASE_URL, ANTHROPIC_BASE_URL, OLLAMA_HOST)" },
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
	if (ai_opt_run(&cmd, argc, argv, &nops, &ops, &exitcode))
		return exitcode;
	o.k.has_temperature = temp_given;
	if (o.tools_file != NULL && o.schema_file != NULL) {
		ai_err_set(e, AI_EXIT_USAGE, "--tools and --schema cannot be used together");
		return AI_EXIT_USAGE;
	}
	ai_opt_join(&prompt, nops, ops);
	o.prompt = nops > 0 ? prompt.buf : NULL;

	rc = ai_config_load(&cfg, e);
	if (rc == 0)
		rc = resolve(&o, &cfg, &f, &url, e);
	if (rc == 0)
		rc = ask_run(&o, e);
	if (rc != 0 && o.json && e->code != AI_EXIT_PIPE && e->msg[0]) {
		struct ai_err we = AI_ERR_INIT;
		cJSON *r = ai_record_error("ai-ask", e);

		ai_record_write(stdout, r, &we);
		cJSON_Delete(r);
	}
	ai_config_free(&cfg);
	ai_buf_release(&prompt);
	free(url);
	return rc;
}

int
main(int argc, char **argv)
{
	struct ai_err e = AI_ERR_INIT;

	ai_init(argv[0]);
	return ai_finish(run(argc, argv, &e), &e);
}
