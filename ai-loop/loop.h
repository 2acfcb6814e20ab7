/*
 * loop.h: what the parts of ai-loop share.
 *
 * ai-loop owns no model, search or file code: it runs ai-ask, ai-exec
 * --serve, ai-search and ai-context as child processes and moves records
 * between them.  child.c starts children with the environment each needs
 * and drives all of them from one poll loop; conv.c holds the conversation
 * and writes it where it is asked for; tools.c declares the tools and
 * routes the model's calls; loop.c is the loop itself; status.c the live
 * status line on a terminal; main.c the options.
 */
#ifndef LOOP_H
#define LOOP_H

#include <stdint.h>
#include <cjson/cJSON.h>

#include "buf.h"
#include "err.h"
#include "lines.h"
#include "opt.h"
#include "proc.h"

/* ---- options (main.c) ---- */

struct lopts {
	uint64_t max_steps, max_calls, max_actions, budget, context_budget;
	double timeout;              /* a model call, seconds (watchdog) */
	int timeout_given;           /* --timeout: passed to ai-ask and ai-context */
	double tool_timeout;         /* a tool call, seconds */
	struct ai_strlist files, urls;
	int search, auto_search;
	const char *transcript, *cont;
	int json, verbose, usage, no_stdin;
	const char *model, *provider, *system, *system_file;
	const char *plan_model;      /* --plan-model: the model that writes the plan first */
	const char *template_name;   /* -t: applied by the option parser */
	double temperature;
	int temperature_given;
	uint64_t max_tokens;
	const char *policy, *approve, *audit;
	const char *budget_file;     /* --budget-file: a budget shared with other processes */
	struct ai_strlist attach;    /* -a: files for ai-ask to send with the task */
	const char *max_attach;
	int unconfined;              /* --unconfined: passed to ai-exec */
	const char *task;            /* the operands joined, or NULL */
	const char *libexec;         /* AICLI_LIBEXEC or "libexec", or NULL */
	const char *libexec_from;    /* where libexec came from, for messages */
};

/* ---- children (child.c) ---- */

/* An argument vector being built; the strings are borrowed. */
struct args {
	char **v;
	size_t n, alloc;
};

void args_add(struct args *a, const char *s);
/* "FLAG VALUE" when value is not NULL. */
void args_opt(struct args *a, const char *flag, const char *value);
void args_free(struct args *a);

enum { KIND_ASK, KIND_EXEC, KIND_SEARCH, KIND_CONTEXT };

#define JOB_ERR_TAIL 16384

struct job;
typedef int (*job_line_fn)(struct job *j, const char *line, size_t len, struct ai_err *e);

struct job {
	struct ai_child c;
	const char *name;       /* "ai-ask", for messages */
	int kind;
	struct ai_buf q;        /* bytes still to write to its stdin */
	int close_in;           /* close stdin once q is written */
	struct ai_lines out;    /* its stdout, split into lines */
	job_line_fn on_line;
	void *ctx;
	struct ai_buf err;      /* the tail of its stderr (when a pipe) */
	int64_t deadline;       /* monotonic ms, or -1 */
	int live;               /* started and not yet reaped */
	int started;
	int timed_out;
	int code;               /* exit status (128 + signal), once reaped */
};

/* Where the signals and the children's environment come from. */
void child_setup(void);
/* A variable ai-ask and ai-context may see (a profile's key_env in the configuration). */
void child_model_var(const char *name);
/* The signal that asked us to stop (SIGINT, SIGTERM, SIGHUP), or 0. */
int child_caught(void);

/*
 * Start path with argv (argv[0] included, NULL-terminated; borrowed until
 * it returns) as a child of the given kind: its own session, stdin and
 * stdout pipes, stderr a pipe (or ours when inherit_err), the environment
 * the kind needs plus env_extra ("NAME=value", NULL-terminated, or NULL).
 */
int job_start(struct job *j, const char *name, int kind, const char *path, char **argv,
    const char *const *env_extra, int inherit_err, job_line_fn on_line, void *ctx,
    struct ai_err *e);
/* Queue bytes for its stdin; close stdin once they are written. */
void job_send(struct job *j, const char *p, size_t n);
void job_close_input(struct job *j);
/*
 * Wait until something happens (or until wake, monotonic ms, -1 for none):
 * write, read, reap, enforce deadlines.  -1 with e set when a line callback
 * failed or a signal came (e->code 130 or 143, no message).
 */
int jobs_poll(struct job *const *jobs, size_t n, int64_t wake, struct ai_err *e);
/* Stop it (SIGTERM to its group, then SIGKILL) and reap it. */
void job_kill(struct job *j);
void job_free(struct job *j);
/* Its stderr on ours, redacted and made safe. */
void job_relay(const struct job *j);
/*
 * A line of its stdout as a record: *rec is NULL for a blank line; a
 * malformed one is an error naming the child and the line (exit 76).
 */
int job_record(struct job *j, const char *line, size_t len, cJSON **rec, struct ai_err *e);
/*
 * How it ended, with the last line of its stderr: "failed (exit status 66):
 * cannot open 'x'", "was killed by signal 9 (Killed)", "did not finish in
 * time and was stopped".
 */
const char *job_status(const struct job *j, char *buf, size_t n);

/* ---- the conversation (conv.c) ---- */

struct conv {
	struct ai_buf text;     /* the records, one per line, each ending in LF */
	size_t *off;            /* where each record starts */
	size_t n, alloc;
	uint64_t chars;         /* characters of the records a model sees */
	/* calibration: the input tokens of the last model call, and what it was sent */
	uint64_t cal_tokens, cal_chars;
};

void conv_init(struct conv *c);
void conv_free(struct conv *c);
/* Append one record line (without LF). */
void conv_add(struct conv *c, const char *line, size_t len);
/* Replace the whole conversation with the records in p (lines); errors name the line. */
int conv_replace(struct conv *c, const char *p, size_t n, struct ai_err *e);
/* The estimate of its tokens, characters / 4 calibrated by the last call. */
uint64_t conv_tokens(const struct conv *c);
/* Whether a record line is seen by a model (counts in the estimate). */
int conv_visible(const char *type);
/*
 * Check a record stream (a file, standard input) line by line, strictly;
 * errors name src and the line.  Blank lines are dropped from out.
 */
int conv_check_records(const char *p, size_t n, const char *src, struct ai_buf *out,
    struct ai_err *e);

/* ---- the loop (loop.c) ---- */

enum { STOP_NONE, STOP_ANSWER, STOP_MAX_STEPS, STOP_MAX_CALLS, STOP_BUDGET, STOP_ERROR,
	STOP_INTERRUPTED, STOP_REFUSAL };

struct server;

/* One tool call of a step. */
struct call {
	cJSON *rec;             /* the tool_call record */
	const char *id, *name;  /* borrowed from rec */
	int route;              /* ROUTE_* (tools.c) */
	struct server *srv;     /* execute, run: the ai-exec that answers it */
	char *key;              /* ... chosen by what it runs (tools.c) */
	char *result;           /* the tool_result line, once there is one */
	struct job search;      /* web_search: its ai-search */
	cJSON *hits;            /* web_search: the results so far */
	char *err_msg;          /* web_search: the error record's message */
	char *bad;              /* why the call is malformed (its error result), or NULL */
	int err_code;
	int64_t t0, ms;
};

struct loop {
	struct lopts *o;
	const char *shared_budget;               /* a budget file given, drawn on, or NULL */
	char own_budget[4096];                   /* the file of this run's own limits, or "" */
	struct conv conv;
	char *ask, *exec, *search, *context;     /* the children's paths */
	int tools_fd, schema_fd;                 /* sealed memfds, or -1 */
	char tools_path[64], schema_path[64];    /* /proc/PID/fd/N */
	struct server *srv;                      /* the ai-exec --serve pool (tools.c) */
	size_t nsrv;                             /* servers started so far */
	uint64_t sent_chars;                     /* conv.chars when the last call was made */
	/* the model's answer of the current call */
	struct ai_buf answer;
	int have_answer, truncated, refused;
	struct call *calls;
	size_t ncalls, emitted;                  /* the step's calls; results emitted so far */
	char *ask_err;                           /* the child's error record message */
	int ask_err_code;
	char *ask_err_line;                      /* the error record, for --json */
	/* outputs: nothing is written to the files until the model first answers */
	int tx_fd, cont_fd;
	int tx_created, cont_created, cont_added, cont_lf;
	int holding;
	struct ai_buf hist, held;                /* --continue's records; the run's so far */
	/* counters */
	unsigned long steps, calls_made;
	uint64_t in_tok, cached_tok, out_tok;
	double weighted, cost;
	int cost_unknown;
	cJSON *by_model;                         /* with --plan-model: each model's totals */
	int64_t t0;
	int stop;
	uint64_t compact_floor;                  /* no compaction below this estimate */
	int over_warned;
	char **warned;                           /* tool warnings already shown */
	size_t nwarned;
	char **ids;                              /* the ids of the conversation's calls */
	size_t nids;
};

/* The whole run; returns the exit status (e says why when it is not 0). */
int loop_run(struct loop *L, struct ai_err *e);
/* A record for every output that asked for it: the stream, the transcripts, the conversation. */
enum { TO_STREAM = 1, TO_FILES = 2, TO_CONV = 4, TO_ALL = 7 };
int loop_emit(struct loop *L, const char *line, size_t len, int where, struct ai_err *e);
int loop_emit_rec(struct loop *L, const cJSON *rec, int where, struct ai_err *e);

/* ---- the live status line on a terminal (status.c) ---- */

/* Begin it, when stderr is a terminal it can be drawn on; else nothing happens. */
void status_start(const struct loop *L);
/* What runs now ("asking gpt-4.1-mini"); its time counts from here. */
void status_doing(const char *what);
/* The step's tool calls start: their names and commands or queries. */
void status_calls(const struct loop *L);
/* The counters changed (tokens, cost). */
void status_update(void);
/* When the line is next due (monotonic ms), or -1; status_tick() draws it. */
int64_t status_next(void);
void status_tick(void);
/* Around a record written to stdout, when that is the same terminal. */
void status_pause(void);
void status_resume(void);
/* Erase it for good (before the answer). */
void status_end(void);

/* ---- tools (tools.c) ---- */

enum { ROUTE_NONE, ROUTE_EXEC, ROUTE_SEARCH };

/*
 * A call as the model gave it, made fit for the conversation before it is
 * written anywhere: an id that is missing, empty or already used gets a new
 * one; arguments over the size limit (then replaced by {}, so that the
 * conversation does not carry them on), or that were not an object (ai-ask's
 * arguments_text), make it malformed: c->bad says why, and it gets an error
 * result instead of running.  *changed when c->rec was changed.  The call
 * has a name.
 */
void tools_accept(struct loop *L, struct call *c, int *changed);
/* Note the ids of the calls in these record lines (a continued conversation). */
void tools_seen(struct loop *L, const char *p, size_t n);
/* Write the declarations (and the auto-search schema) to sealed memfds. */
int tools_setup(struct loop *L, struct ai_err *e);
int tools_offered(const struct loop *L);
/*
 * Route each call of the step: to ai-exec, to an ai-search of its own, or an
 * error result at once (unknown tool, bad arguments, too many calls).
 */
int tools_dispatch(struct loop *L, struct ai_err *e);
/* Wait for every result of the step, emitting them in the calls' order. */
int tools_wait(struct loop *L, struct ai_err *e);
/* After a stop: an error result for each call still without one (the transcript stays paired). */
int tools_abandon(struct loop *L, const char *why, struct ai_err *e);
void tools_free_calls(struct loop *L);
/*
 * One ai-exec --serve: it answers the calls given to it, in order.  A step's
 * calls are spread over as many as they need to run at the same time.
 */
struct server {
	struct loop *L;
	struct job job;
	int ready;               /* it answered the hello */
	unsigned long answered;  /* results it gave this life */
	struct call **wait;      /* the calls given to it this step, in order */
	size_t head, n;          /* wait[head..n) are still to be answered */
	char *key;               /* what its last call ran */
};

/* Start the first ai-exec --serve and wait until it answers (files and policy checked). */
int server_start(struct loop *L, struct ai_err *e);
/* End them all: the end of their input, then a signal. */
void server_stop(struct loop *L);
/* Stop them at once (after a signal or a failure). */
void server_kill(struct loop *L);
/* The servers that run, into jobs (room for --max-actions); how many. */
size_t server_jobs(struct loop *L, struct job **jobs);
/* ai-search: the argument vector for a query. */
int search_run(struct loop *L, struct job *j, const char *query, unsigned count,
    job_line_fn on_line, void *ctx, struct ai_err *e);

#endif
