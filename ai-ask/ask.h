/*
 * ask.h: what the parts of ai-ask share.
 *
 * The flow is: the input (records, plain text, the prompt) becomes a
 * provider-neutral conversation (conv.c); a provider adapter turns it into
 * its request body and turns the provider's answer, streamed or whole, back
 * into a provider-neutral answer (answer.c, openai.c, chat.c, anthropic.c,
 * ollama.c); ask.c makes the request and writes the answer as text or
 * records; usage.c weighs and prices the tokens.
 */
#ifndef ASK_H
#define ASK_H

#include <stdint.h>
#include <stdio.h>
#include <cjson/cJSON.h>

#include "buf.h"
#include "err.h"

/* Caps on what ai-ask reads. */
#define ASK_MAX_INPUT ((size_t)16 << 20)  /* standard input, a transcript */
#define ASK_MAX_FILE ((size_t)1 << 20)    /* --system-file, --tools, --schema */
#define ASK_MAX_EVENT ((size_t)16 << 20)  /* one SSE event or NDJSON line of an answer */

/* ---- the conversation (conv.c) ---- */

enum { TURN_USER, TURN_ASSISTANT, TURN_CALL, TURN_RESULT };

struct turn {
	int kind;
	char *text;        /* USER, ASSISTANT: the text; RESULT: the content the model reads */
	char *id;          /* CALL, RESULT: the call's id */
	char *name;        /* CALL, RESULT: the tool */
	cJSON *args;       /* CALL: the arguments object */
	int failed;        /* RESULT: the record said "ok": false */
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
/* Add a record stream (NDJSON) read from src; errors name src and the line. */
int conv_add_records(struct conv *c, const char *data, size_t len, const char *src,
    struct ai_err *e);
/* Check what every provider insists on: calls and results paired, something to answer. */
int conv_check(struct conv *c, struct ai_err *e);

/* ---- the request settings (ask.c) ---- */

enum { AUTH_NONE, AUTH_BEARER, AUTH_X_API_KEY };

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
	const char *url;           /* the endpoint */
	const char *key_from;      /* where the key came from, for messages ("$OPENAI_API_KEY") */
	int64_t timeout_ms;
	int64_t idle_ms;
	int attempts;
	const cJSON *prices;       /* the configuration's "prices", or NULL */
};

/* Ask, answer, write the answer (ask.c).  Returns the exit code, or -1 with e set. */
int ask_run(struct opts *o, struct ai_err *e);

/* ---- the answer (answer.c) ---- */

enum { STOP_NONE, STOP_END, STOP_TOOLS, STOP_LENGTH, STOP_FILTER, STOP_REFUSAL };

struct call {
	char *id;
	char *name;
	long key;                /* the provider's index for streamed pieces */
	struct ai_buf args;      /* the arguments as JSON text, as they arrived */
	cJSON *obj;              /* the parsed arguments object (after answer_finish) */
	int malformed;           /* args is not a JSON object: obj is {} */
};

struct answer {
	struct ai_buf text;      /* the answer's text */
	struct call *calls;
	size_t ncalls;
	int has_usage;
	uint64_t input, cached, output;
	char model[128];         /* the model the provider says answered */
	int done;                /* the provider's end of answer arrived */
	int stop;                /* STOP_* */
	char stop_word[48];      /* the provider's own word for the stop */
	int instream_error;      /* the error came inside a 200 answer */
	signed char *blocks;     /* Anthropic: kind of each content block */
	size_t nblocks;
	/* where text goes as it arrives (NULL: nowhere until the end) */
	int (*on_text)(void *ctx, const char *p, size_t n, struct ai_err *e);
	void *ctx;
	size_t emitted;          /* bytes handed to on_text */
	const char *service;     /* 'host:port' for messages */
};

void answer_init(struct answer *a);
void answer_free(struct answer *a);
int answer_text(struct answer *a, const char *p, size_t n, struct ai_err *e);
/* The call with this key, made when absent. */
struct call *answer_call(struct answer *a, long key);
void call_set(char **field, const char *value);
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
};

extern const struct provider provider_openai, provider_chat, provider_anthropic,
    provider_ollama;

/* The Chat Completions messages array; ollama != 0 for Ollama's variant (chat.c). */
cJSON *chat_messages(const struct conv *c, int ollama);

/* Helpers the adapters share (answer.c). */
cJSON *tools_openai_style(const cJSON *tools, int nested);

/* ---- usage (usage.c) ---- */

struct price {
	double input, cached, output; /* USD per million tokens */
};

/* The price of model (or of the model the provider named), config first. */
int price_find(const cJSON *config_prices, const char *model, const char *reported,
    struct price *p);
int price_check_config(const cJSON *prices, struct ai_err *e);
double usage_weighted(uint64_t input, uint64_t cached, uint64_t output);
double usage_cost(const struct price *p, uint64_t input, uint64_t cached, uint64_t output);

/* ---- the spinner (spinner.c) ---- */

void spinner_start(const char *label);
void spinner_stop(void);

#endif
