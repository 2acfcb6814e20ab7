/*
 * tool.h: the context the two tools run in (tool.c), the execute tool
 * (lang/execute.c), the run tool (prog/runtool.c) and --serve (serve.c).
 */
#ifndef AI_EXEC_TOOL_H
#define AI_EXEC_TOOL_H

#include "lang/lang.h"
#include "prog/prog.h"

/* ---- tool.c, lang/execute.c: the context and the execute tool ---- */

struct x_cache_entry {
	char *key;
	size_t keylen;
	struct x_result r;
	uint64_t used;        /* LRU clock */
};

struct x_ctx {
	struct x_policy pol;
	struct x_progs *progs;     /* the policy of programs, NULL without --policy */
	struct x_sandbox *sandbox; /* what the sandbox needs, NULL with --unconfined */
	struct x_runopts *run;
	struct x_audit audit;
	struct x_cache_entry *cache;
	size_t ncache;
	uint64_t clock;
	int verbose;
};

struct x_call {
	const char *id;        /* NULL on the command line */
	const char *command;
	size_t command_len;
	const char *file;      /* the hint, or NULL */
	const char *idempotency;
	const char *reason;
	uint64_t start;
	uint64_t size;
};

/* The execute tool: parse, look in the cache, run, audit. */
int x_tool_execute(struct x_ctx *c, const struct x_call *call, struct x_result *r,
    struct ai_err *e);
/* Write the audit line of a call (refused, cached or run). */
int x_tool_audit(struct x_ctx *c, const struct x_call *call, const struct x_result *r,
    struct ai_err *e);
/* Read an execute tool_call's arguments into call (65 with a message). */
int x_execute_args(const struct x_ctx *c, const cJSON *args, struct x_call *call,
    struct ai_err *e);

void x_ctx_free(struct x_ctx *c);

/* ---- prog/runtool.c ---- */

/* Read a run tool_call's arguments (65 with a message); args point into a. */
int x_run_args(const cJSON *a, struct x_runcall *call, struct ai_err *e);
/* The run tool: decide, ask, run, parse, audit; -1 only when the audit log fails. */
int x_tool_run(struct x_ctx *c, const struct x_runcall *call, struct x_runres *r,
    struct ai_err *e);

/* ---- serve.c ---- */

/* Answer tool_call records from fd until its end; 0, or -1 when output fails. */
int x_serve(struct x_ctx *c, int fd, struct ai_err *e);

#endif
