/*
 * ask.h: what the parts of ai-ask share.
 *
 * The flow is: the input (records, plain text, the prompt) becomes a
 * provider-neutral conversation (conv.c); a provider adapter turns it into
 * its request body and turns the provider's answer, streamed or whole, back
 * into a provider-neutral answer (answer.c, openai.c, chat.c, anthropic.c,
 * gemini.c, ollama.c); ask.c makes the request and writes the answer as text
 * or records; usage.c weighs and prices the tokens.  profile.c resolves the
 * named provider profiles and aliases, models.c lists a provider's models,
 * attach.c reads the files given with -a.
 */
#ifndef ASK_H
#define ASK_H

#include <stdint.h>
#include <stdio.h>
#include <cjson/cJSON.h>

#include "buf.h"
#include "err.h"
#include "opt.h"

/* Caps on what ai-ask reads. */
#define ASK_MAX_INPUT ((size_t)16 << 20)  /* standard input, a transcript */
#define ASK_MAX_FILE ((size_t)1 << 20)    /* --system-file, --tools, --schema */
#define ASK_MAX_EVENT ((size_t)16 << 20)  /* one SSE event or NDJSON line of an answer */

/* ---- the conversation (conv.c) ---- */

/* TURN_RAW: a paused turn's content as the provider gave it (args), sent back as it is. */
enum { TURN_USER, TURN_ASSISTANT, TURN_CALL, TURN_RESULT, TURN_REASONING, TURN_RAW };

/* A file given with -a (attach.c). */
enum { ATT_IMAGE, ATT_PDF };

struct attach {
	const char *path;  /* as given */
	const char *name;  /* its last component */
	const char *mime;  /* "image/png", ... */
	int kind;          /* ATT_* */
	char *b64;         /* the bytes in base64 */
	size_t size;       /* the bytes */
};

struct turn {
	int kind;
	char *text;        /* USER, ASSISTANT: the text; RESULT: the content the model reads */
	char *id;          /* CALL, RESULT: the call's id */
	char *name;        /* CALL, RESULT: the tool */
	cJSON *args;       /* CALL: the arguments object */
	int failed;        /* RESULT: the record said "ok": false */
	char *sig;         /* CALL, REASONING: the provider's signature, or NULL */
	char *data;        /* REASONING: a redacted block's data, or NULL */
	char *provider;    /* REASONING: the adapter that wrote it */
	int sources;       /* USER: made of search_result records */
	const struct attach *att; /* USER: the files -a attached to it (borrowed) */
	size_t natt;
	const char *src;   /* where it came from, for messages ("standard input") */
	unsigned long line;
};

struct conv {
	struct ai_buf system;  /* system context: parts joined by blank lines */
	struct turn *t;
	size_t n, alloc;
	unsigned nsources;     /* search results numbered so far */
};

void conv_init(struct conv *c);
void conv_free(struct conv *c);
void conv_add_system(struct conv *c, const char *text, size_t n);
void conv_add_user(struct conv *c, const char *text, size_t n);
/* The content of a paused turn (takes raw). */
void conv_add_raw(struct conv *c, cJSON *raw);
/* Add a record stream (NDJSON) read from src; errors name src and the line. */
int conv_add_records(struct conv *c, const char *data, size_t len, const char *src,
    struct ai_err *e);
/* Check what every provider insists on: calls and results paired, something to answer. */
int conv_check(struct conv *c, struct ai_err *e);

/* ---- the request settings (ask.c) ---- */

enum { AUTH_NONE, AUTH_BEARER, AUTH_X_API_KEY, AUTH_GOOG_KEY };

struct provider;

struct ask {
	const struct provider *p;
	const char *model;
	const char *key;         /* NULL when none is needed or given */
	int has_temperature;
	double temperature;
	uint64_t max_tokens;     /* 0: the provider's default */
	const cJSON *tools;      /* the --tools array, or NULL */
	const cJSON *schema;     /* the --schema object, or NULL */
	int stream;              /* ask the provider to stream the answer */
	char idseed[16];         /* for ids ai-ask makes up (Ollama's calls have none) */
};

/* Everything main resolved from the command line, environment and configuration. */
struct opts {
	struct ask k;
	const char *prompt;        /* the operands joined by spaces, or NULL */
	const char *system;        /* -s */
	const char *system_file;
	const char *tools_file;
	const char *schema_file;
	const char *continue_file;
	int json;                  /* records on stdout */
	int deltas;                /* --stream: delta records */
	int usage;                 /* --usage */
	int no_stdin;
	int verbose;
	const char *base;          /* the profile's base URL, without a trailing slash */
	const char *url;           /* the endpoint */
	char *url_buf;             /* ... as ask_endpoint made it */
	const char *profile;       /* the profile's name */
	unsigned pflags;           /* its AI_PROFILE_* flags */
	const cJSON *headers;      /* its extra headers (an object of strings), or NULL */
	struct ai_strlist attach;  /* -a */
	uint64_t max_attach;       /* bytes */
	int models;                /* --models */
	const char *key_from;      /* where the key came from, for messages ("$OPENAI_API_KEY") */
	int64_t timeout_ms;
	int64_t idle_ms;
	int attempts;
	uint64_t max_pauses;       /* a paused turn is continued at most this often */
	const cJSON *prices;       /* the configuration's "prices", or NULL */
	int each;                  /* --each: every input line or record a prompt */
	uint64_t parallel;         /* -P: requests in flight */
	int unordered;
	const char *skip_done;     /* --skip-done FILE */
	uint64_t rpm, tpm;         /* ceilings a minute, 0: none */
	int cache;                 /* --cache */
	char *cache_dir;           /* ... its folder (allocated by cache_open) */
	int64_t cache_ttl_ms;      /* entries older than this are misses; 0: none */
	const char *budget_file;   /* --budget-file, AICLI_BUDGET_FILE: the shared budget */
	const char *batch;         /* --batch ACTION: submit, status, results */
	const char *batch_state;   /* --batch-state FILE */
	const char *batch_id;      /* the batch's id (an operand, or the state file's) */
	cJSON *state;              /* the state file, when read */
};

/* Ask, answer, write the answer (ask.c).  Returns the exit code, or -1 with e set. */
int ask_run(struct opts *o, struct ai_err *e);
/* --each: every line or record of standard input a prompt (each.c). */
int each_run(struct opts *o, struct ai_err *e);
/*
 * The prompts of standard input as --each reads them, for a batch: each
 * prompt's id and its exchange (its request built, none made), in input
 * order; NULL with e set.  Free with each_prompts_free.
 */
struct each_prompt {
	cJSON *id;
	struct run *r;
};
struct each_prompt *each_prompts(struct opts *o, struct run **tmpl, size_t *n,
    struct ai_err *e);
void each_prompts_free(struct each_prompt *p, size_t n, struct run *tmpl);
/* Batch results: write them as --each does; end with each_results_end. */
struct each *each_results_begin(struct opts *o, struct ai_err *e);
/* One prompt's answer body (body != NULL), or its failure (fail). */
void each_result(struct each *ea, const cJSON *id, const char *body, size_t n,
    const struct ai_err *fail);
/* The total usage record, the status (0, or -1 with e set); frees ea. */
int each_results_end(struct each *ea, struct ai_err *e);
/* --batch (batch.c). */
int batch_run(struct opts *o, struct ai_err *e);
/* Read a --batch-state file (checked): 0, or -1 with e set. */
int batch_state_load(const char *path, cJSON **out, struct ai_err *e);
/* o->url (in o->url_buf, which the caller frees) and the seed of the ids ai-ask makes up. */
void ask_endpoint(struct opts *o);
/* "usage: ..." on stderr, from a usage record. */
void ask_print_usage(const cJSON *u);
/* The request headers: content type, key, the provider's and the profile's (NULL-ended). */
char **ask_headers(const struct opts *o);
void ask_headers_free(char **h);

/* ---- one exchange: the unit every driver moves on (ask.c) ---- */

struct run;
struct ai_http_req;
struct ai_http_resp;

enum { EXCH_DONE, EXCH_FAILED, EXCH_RETRY, EXCH_AGAIN };

/*
 * What the exchanges of --each share (tools, schema, system prompt,
 * headers, endpoint), checked before any request; NULL with e set.
 */
struct run *exch_template(struct opts *o, struct ai_err *e);
/* One prompt's exchange, its first request ready; NULL with e set (bad text). */
struct run *exch_new(const struct run *tmpl, const char *user_text, struct ai_err *e);
void exch_free(struct run *r);
/*
 * The request to make now: 0; 1 when the cache answered it (no request:
 * call exch_end with 0); -1 with e set when no time is left (then call
 * exch_end with -1).
 */
int exch_begin(struct run *r, const struct ai_http_req **req, struct ai_http_resp **resp,
    struct ai_err *e);
/*
 * After the request ended with rc (0, or -1 and e): EXCH_DONE, EXCH_FAILED
 * (e set), EXCH_RETRY (begin again after *wait ms), EXCH_AGAIN (a paused
 * turn goes on: begin again now).
 */
int exch_end(struct run *r, int rc, int64_t *wait, struct ai_err *e);
/* The records of a complete answer and its status: 0, or -1 with e set. */
int exch_records(struct run *r, cJSON *out_recs, struct ai_err *e);
/* The bytes of the request bodies so far. */
size_t exch_body_len(const struct run *r);
/* The body of the request the exchange makes now (a provider batch sends it). */
const cJSON *exch_request(const struct run *r);
/* An exchange without a request, for an answer that came another way (a batch). */
struct run *exch_blank(const struct run *tmpl);
/* A whole (non-streamed) answer body through the provider's parser: 0, or -1 with e set. */
int exch_answer(struct run *r, const char *body, size_t n, struct ai_err *e);

/* ---- profiles (profile.c) ---- */

struct ai_config;

/* What a run's profile is: a built-in one, changed or added by the configuration. */
struct prof {
	const char *name;
	const struct provider *p;         /* its adapter */
	const char *base_def;             /* the default base URL */
	const char *key_env[3];           /* variables that may hold its key */
	const char *base_env;             /* the variable of its base URL, or NULL */
	char key_file[64], base_file[64]; /* the flat configuration keys, or "" */
	const char *key;                  /* the configuration entry's key, or NULL */
	const char *model;                /* the default model */
	const cJSON *headers;             /* extra headers, or NULL */
	unsigned flags;
};

/* The profile called name (from says where the name came from, for errors). */
int profile_get(const struct ai_config *cfg, const char *name, const char *from, struct prof *pr,
    struct ai_err *e);
/* The profile that a model's name implies when none is set: "anthropic" for claude-*. */
const char *profile_for_model(const char *model);
/* model through the configuration's aliases: its model and (or NULL) its provider. */
int profile_alias(const struct ai_config *cfg, const char **model, const char **provider,
    struct ai_err *e);
/* Whether the model can be given tools (deepseek-reasoner cannot). */
int profile_model_tools(const char *model);
/* "openai, openai-chat, ..." for messages. */
const char *profile_names(void);

/* ---- the models a provider offers (models.c) ---- */

int models_run(struct opts *o, struct ai_err *e);

/* ---- the response cache (cache.c) ---- */

/* Find and make the cache's folder (o->cache_dir); 78 when it cannot be used. */
int cache_open(struct opts *o, struct ai_err *e);
/* The entry of a request: 1 with its body in data and its content type, else 0. */
int cache_get(const struct opts *o, const char *url, const char *body, size_t n,
    struct ai_buf *data, char *ctype, size_t ctsz);
/* Keep an answer's body for the request; a failure is only a warning. */
void cache_put(const struct opts *o, const char *url, const char *body, size_t n,
    const char *ctype, const char *data, size_t len);

/* ---- attachments (attach.c) ---- */

/* Read and check the files of -a for provider p; refused (65) before any request. */
int attach_load(const struct opts *o, struct attach **out, size_t *n, struct ai_err *e);
void attach_free(struct attach *a, size_t n);
/* A size such as 20M, 512k or 1048576, in bytes. */
int attach_parse_size(const char *s, uint64_t *out);

/* ---- the answer (answer.c) ---- */

/*
 * How an answer stopped.  STOP_REFUSAL: the model declined (a refusal part,
 * Anthropic's stop_reason "refusal"); STOP_FILTER: the provider's safety
 * filter stopped it; both are refusals (exit 1, the message record marked
 * "refusal").  STOP_PAUSE: the provider paused a long turn, which is
 * continued (Anthropic's "pause_turn").
 */
enum { STOP_NONE, STOP_END, STOP_TOOLS, STOP_LENGTH, STOP_FILTER, STOP_REFUSAL, STOP_PAUSE };

struct call {
	char *id;
	char *name;
	long key;                /* the provider's index for streamed pieces */
	struct ai_buf args;      /* the arguments as JSON text, as they arrived */
	char *sig;               /* the provider's signature of the call (Gemini), or NULL */
	cJSON *obj;              /* the parsed arguments object (after answer_finish) */
	int malformed;           /* args is not a JSON object: obj is {} */
};

/* Text a model reasons in (never part of the answer), with what it needs sent back. */
struct thought {
	long key;                /* the provider's index for streamed pieces */
	struct ai_buf text;
	char *sig;               /* a signature (Anthropic's thinking blocks), or NULL */
	char *data;              /* a redacted block's data, or NULL */
};

struct answer {
	struct ai_buf text;      /* the answer's text */
	struct call *calls;
	size_t ncalls;
	int has_usage;
	uint64_t input, cached, output;
	uint64_t written;        /* input tokens written to the cache (part of input) */
	char model[128];         /* the model the provider says answered */
	int done;                /* the provider's end of answer arrived */
	int stop;                /* STOP_* */
	char stop_word[48];      /* the provider's own word for the stop */
	struct thought *thoughts; /* what the model reasoned in, in order */
	size_t nthoughts;
	int instream_error;      /* the error came inside a 200 answer */
	int refused;             /* refusal text arrived (answer_refusal) */
	signed char *blocks;     /* Anthropic: kind of each content block */
	size_t nblocks;
	/*
	 * The content of a paused turn as the provider gave it (Anthropic's
	 * content blocks, rebuilt from a stream), to send back as it is, and
	 * the JSON input of each block as it streams.
	 */
	cJSON *raw;
	struct ai_buf *partial;
	/* where text goes as it arrives (NULL: nowhere until the end) */
	int (*on_text)(void *ctx, const char *p, size_t n, struct ai_err *e);
	void *ctx;
	size_t emitted;          /* bytes handed to on_text */
	const char *service;     /* 'host:port' for messages */
};

void answer_init(struct answer *a);
void answer_free(struct answer *a);
int answer_text(struct answer *a, const char *p, size_t n, struct ai_err *e);
/*
 * Text that refuses the request (an OpenAI refusal part or delta): it is the
 * answer's text, and the answer is a refusal.  Empty text refuses nothing
 * (OpenAI sends "refusal": "" and null on answers that are not refusals).
 */
int answer_refusal(struct answer *a, const char *p, size_t n, struct ai_err *e);
/* The provider refused without text (a blocked prompt, a safety stop); why is its word. */
void answer_refuse(struct answer *a, const char *why);
/* Forget what belongs to one response, keeping the text, calls and usage (a paused turn). */
void answer_next(struct answer *a);
/* Forget a response that failed: back to text_len bytes of text and ncalls calls. */
void answer_rewind(struct answer *a, size_t text_len, size_t ncalls);
/* The call with this key, made when absent. */
struct call *answer_call(struct answer *a, long key);
void call_set(char **field, const char *value);
/* The thought with this key, made when absent; text of it. */
struct thought *answer_thought(struct answer *a, long key);
void answer_reason(struct answer *a, long key, const char *p, size_t n);
/*
 * Parse and check every call's arguments (an object; empty means {}; what
 * is not an object is {}, and the call marked malformed).
 */
int answer_finish(struct answer *a, struct ai_err *e);
/* Usage fields of a provider's usage object, by member name. */
void answer_usage(struct answer *a, const cJSON *u, const char *in, const char *out,
    const char *details);
/* An error that a provider reported inside its answer. */
int answer_fail(struct answer *a, int code, const char *what, const cJSON *err,
    struct ai_err *e);

/* The stream reader: SSE or NDJSON or (when the server did not stream) a JSON body. */
struct stream;
struct stream *stream_new(const struct provider *p, struct answer *a, const struct ask *k);
void stream_free(struct stream *s);
int stream_data(void *ctx, const char *p, size_t n, struct ai_err *e);
/* End of the body: the answer must be complete. */
int stream_end(struct stream *s, struct ai_err *e);
/* Whether it failed because the answer stopped before its end (inside an event, unfinished). */
int stream_cut(const struct stream *s);
/* Where lib/http puts the response's content type (read when the body begins). */
void stream_watch_type(struct stream *s, const char *ctype);

/* ---- providers ---- */

struct provider {
	const char *name;
	const char *path;        /* appended to the base URL */
	int auth;                /* AUTH_* */
	int ndjson;              /* the stream is NDJSON, else SSE */
	/* the request body */
	cJSON *(*body)(const struct ask *k, const struct conv *c);
	/* a whole (non-streamed) answer */
	int (*parse)(const struct ask *k, struct answer *a, const cJSON *resp, struct ai_err *e);
	/* one streamed event (SSE: its type and data; NDJSON: type NULL) */
	int (*event)(const struct ask *k, struct answer *a, const char *type, const cJSON *data,
	    struct ai_err *e);
	/* the endpoint when it depends on the model (Gemini), else NULL: base + path */
	char *(*url)(const char *base, const struct ask *k);
	/* a look at a failed request's body, to correct the exit status; or NULL */
	void (*http_error)(const char *body, size_t n, struct ai_err *e);
};

extern const struct provider provider_openai, provider_chat, provider_anthropic,
    provider_ollama, provider_gemini;

/* Gemini's base URL into b; the version to append to it (gemini.c). */
const char *gemini_root(const char *base, struct ai_buf *b);

/* The Chat Completions messages array; ollama != 0 for Ollama's variant (chat.c). */
cJSON *chat_messages(const struct conv *c, int ollama);

/* Helpers the adapters share (answer.c). */
cJSON *tools_openai_style(const cJSON *tools, int nested);
/*
 * The array key of the message of role to add to: the last message of msgs
 * when it has that role (providers want turns of one role merged), else a
 * new one (Anthropic's blocks in "content", Gemini's parts in "parts").
 */
cJSON *role_items(cJSON *msgs, const char *role, const char *key);
/* A name of 1 to 64 letters, digits, '_' or '-': a tool's, a batch request's (ask.c). */
int name_ok(const char *s);

/* ---- --schema (schema.c) ---- */

/*
 * Whether v follows the JSON Schema: 0, or -1 with e set (AI_EXIT_FORMAT)
 * to the first failing JSON path and why: "the answer does not follow the
 * schema: $.name: is required and missing".
 */
int schema_check(const cJSON *schema, const cJSON *v, struct ai_err *e);
/* The schema itself: every keyword that is checked of the right kind ("$.items: ..."). */
int schema_lint(const cJSON *schema, struct ai_err *e);
/* The one fenced block (``` or ~~~) of s: 1 with its contents at *off, *len; 0 unless exactly one. */
int schema_fenced(const char *s, size_t n, size_t *off, size_t *len);

/* ---- usage (usage.c) ---- */

struct price {
	double input, cached, output; /* USD per million tokens */
	double cache_write;           /* input written to the cache (Anthropic) */
};

/* The price of model (or of the model the provider named), config first. */
int price_find(const cJSON *config_prices, const char *model, const char *reported,
    struct price *p);
int price_check_config(const cJSON *prices, struct ai_err *e);
double usage_weighted(uint64_t input, uint64_t cached, uint64_t output);
double usage_cost(const struct price *p, uint64_t input, uint64_t cached, uint64_t written,
    uint64_t output);

/* ---- the spinner (spinner.c) ---- */

void spinner_start(const char *label);
void spinner_stop(void);

#endif
