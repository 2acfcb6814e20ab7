/*
 * exec.h: ai-exec, the safe read-only command language (seed 000's
 * "execute" tool), and the server that answers tool calls with it.
 *
 * The parts, in the order a command goes through them:
 *
 *   policy.c   what may be read: the files listed with --file, opened once at
 *              start-up and known by their descriptor; the --allow-url prefixes.
 *   lex.c      the one tokenizer: a command string into words and '|'.
 *   parse.c    words into a pipeline of built-ins, each stage's options checked
 *   spec.c     against its allowlist (spec.c), its files and URL against the
 *              policy.  Nothing has run and nothing has been opened yet.
 *   run.c      the execution, in a forked child under resource limits and a
 *   sandbox.c  system-call filter (sandbox.c): stages run one after the other
 *   text.c     over in-memory data (text.c, grep.c, jq.c, fetch.c); the child
 *   grep.c     sends back one page of the output, its exact size, the failing
 *   jq.c       stage's message and what was read.
 *   fetch.c
 *   tool.c     the "execute" tool: the call's arguments, the idempotency
 *              cache, the tool_result record, the audit line.
 *   serve.c    --serve: tool_call records in, tool_result records out, by a
 *              table of tools: "execute" and "run".
 *   audit.c    the audit log.
 *
 * The "run" tool (allowlisted programs, --policy), in the same order:
 *
 *   prog.c     the policy file: programs, the real path each resolves to in
 *              trusted directories (once, at start-up), their argument rules
 *              and risk levels.
 *   decide.c   a call's decision: the program, subcommand, options and
 *              operands against the rules, every path inside the root; the
 *              level (L0 runs, L1 asks, L2 is refused) and the rule that set it.
 *   gitcfg.c   what git needs besides: configuration that names programs
 *              overridden, the repository's drivers neutralized.
 *   launch.c   execve of the resolved path with the literal arguments, a
 *   confine.c  scrubbed environment, in its own process group, with a timeout
 *              and output caps; at L0 under Landlock (no write, no other program).
 *   outparse.c known outputs (git status, grep/rg matches, file lists) as items.
 *   runtool.c  the "run" tool: arguments, the question on /dev/tty, the audit
 *              lines, the tool_result.
 *
 * Errors are struct ai_err with the exit code of their kind: 65 usage,
 * 77 policy, 3 limit, 75 timeout, 69 unavailable, 1 execution (x_kind).
 */
#ifndef AI_EXEC_H
#define AI_EXEC_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <cjson/cJSON.h>

#include "buf.h"
#include "err.h"
#include "url.h"

#define X_MAX_COMMAND 4096   /* bytes in one command */
#define X_MAX_STAGES 16      /* commands joined by '|' */
#define X_MAX_STDERR 16384   /* bytes of stderr_text */
#define X_SNIFF 512          /* bytes looked at to tell text from binary */
#define X_CHILD_NOMEM 99     /* the child's exit status when libjq runs out of memory */
#define X_CHILD_FAULT 98     /* ... when it overflows its stack (or faults) */

/* The name of an error's kind in a tool_result ("usage", "policy", ...). */
const char *x_kind(int code);

/* ---- policy.c ---- */

struct x_limits {
	uint64_t max_size;   /* largest page a call may ask for */
	uint64_t max_file;   /* bytes per file, and per fetched body */
	uint64_t max_read;   /* bytes one execution may read */
	uint64_t max_output; /* bytes one stage may produce */
	uint64_t max_memory; /* address space of the execution, bytes */
	uint64_t max_cpu;    /* CPU seconds of the execution */
	uint64_t timeout_ms; /* wall-clock time of the execution */
	uint64_t cache;      /* entries in the idempotency cache */
};

struct x_file {
	char *name;   /* as given with --file, for messages */
	char *abs;    /* name made absolute and normalized, for matching */
	char *real;   /* its real path at start-up, also matched */
	int fd;       /* open from start-up to the end: the identity */
	dev_t dev;
	ino_t ino;
};

struct x_prefix {
	char *text;   /* canonical, for messages */
	struct ai_url u;
};

struct x_policy {
	struct x_file *files;
	size_t nfiles;
	struct x_prefix *urls;
	size_t nurls;
	char *cwd;
	struct x_limits lim;
	uint64_t fingerprint; /* of everything above, for the cache key */
};

void x_policy_init(struct x_policy *p);
void x_policy_free(struct x_policy *p);
/* List a file: open it, check it is a regular text file within the cap. */
int x_policy_add_file(struct x_policy *p, const char *path, struct ai_err *e);
/* Allow a URL prefix (no user information, query or fragment). */
int x_policy_add_url(struct x_policy *p, const char *prefix, struct ai_err *e);
/* Compute the fingerprint once everything is listed. */
void x_policy_seal(struct x_policy *p);
/*
 * The listed file a path in a command names, or -1.  The path is made
 * absolute and normalized as text and compared with each listed file's
 * names; the filesystem is never consulted, so a path that is not listed
 * gives the same answer whether or not it exists.
 */
int x_policy_file(const struct x_policy *p, const char *path);
/* "cannot read 'x': not allowed (...)", the same for every unlisted path. */
int x_policy_refuse_file(const struct x_policy *p, const char *path, struct ai_err *e);
/*
 * Whether url may be fetched: it parses strictly, has no user information,
 * and matches a prefix (scheme, host and port exactly, the path on a '/'
 * boundary).  On success *canon (to free) is the canonical URL to fetch.
 */
int x_policy_url(const struct x_policy *p, const char *url, char **canon, struct ai_err *e);
/* Whether the first bytes of a file look binary: a NUL, or over 30% non-text. */
int x_looks_binary(const char *s, size_t n);

/* ---- lex.c ---- */

struct x_word {
	char *s;        /* the word with its quotes removed; NULL for '|' */
	size_t len;
	unsigned col;   /* column (in characters, from 1) where it starts */
	int quoted;     /* some part of it was quoted */
};

/*
 * Split a command into words and '|' tokens.  Refuses (77) everything a
 * shell would treat specially other than '|' and the two quotes, control
 * characters anywhere, and non-ASCII characters outside quotes; a malformed
 * command (unterminated quote, empty stage) is 65; too long or too many
 * stages is 3.  Messages name the column.
 */
int x_lex(const char *cmd, size_t n, struct x_word **words, size_t *nwords, struct ai_err *e);
void x_words_free(struct x_word *w, size_t n);

/* ---- spec.c and parse.c ---- */

struct x_stage;
struct x_run;

enum { XOP_NONE, XOP_FILES, XOP_FILE, XOP_PATTERN, XOP_FILTER, XOP_URL };

struct x_optspec {
	int id;
	char sname;         /* 0 for none */
	const char *lname;  /* NULL for none */
	int nargs;          /* 0, 1, or 2 (jq --arg NAME VALUE) */
	const char *arg;    /* the value's name in messages */
};

struct x_deny {
	const char *spelling; /* "-o", "--output" */
	const char *why;      /* "it writes a file" */
};

struct x_opt {
	int id;
	const char *spelled;  /* as written, for messages (static or in words) */
	const char *val;
	const char *val2;
};

enum {
	XB_CAT, XB_NL, XB_HEAD, XB_TAIL, XB_WC, XB_SORT, XB_UNIQ, XB_CUT, XB_GREP, XB_JQ, XB_CURL,
	XB_COUNT
};

struct x_builtin {
	int id;                          /* XB_*: run.c's table of runtime functions */
	const char *name;
	const char *synopsis;            /* for messages */
	const struct x_optspec *opts;
	const struct x_deny *deny;
	int operands;                    /* XOP_* */
	int numeric_count;               /* "-20" means "-n 20" (head, tail) */
	int reads_input;                 /* reads the previous stage without a FILE */
	/* Check options and operands (parent, before anything runs); fills priv. */
	int (*check)(struct x_stage *st, struct ai_err *e);
	void (*release)(struct x_stage *st);
};

/*
 * The table, NULL-terminated.  It holds what the parser needs only; the
 * runtime functions are in run.c's table, by id, so that the parser (and its
 * fuzz target) does not depend on libjq or libcurl.
 */
extern const struct x_builtin *const x_builtins[];
const struct x_builtin *x_builtin_find(const char *name);
/* "cat, cut, ..." */
const char *x_builtin_names(void);

struct x_stage {
	const struct x_builtin *b;
	unsigned index;       /* 1-based */
	unsigned col;
	char label[64];       /* "sort" or "stage 2 (sort)", for messages */
	struct x_opt *opts;
	size_t nopts;
	const char **ops;     /* operands (borrowed from the words) */
	size_t nops;
	int *files;           /* listed files read, by index into the policy */
	size_t nfiles;
	char *url;            /* curl: the canonical URL */
	const char *arg;      /* grep: the pattern; jq: the filter */
	void *priv;           /* the built-in's checked options (check/release) */
	void *rt;             /* its compiled state (in the child, which then exits) */
};

struct x_pipeline {
	struct x_word *words;
	size_t nwords;
	struct x_stage *stages;
	size_t nstages;
	int uses_net;         /* some stage fetches */
};

/* The checked options of each built-in (spec.c fills them, the runtime reads them). */
struct x_opts_cat { int number; };
struct x_opts_nl { char style; };                 /* 'a', 't' or 'n' */
struct x_opts_ht { int bytes, from_start; uint64_t count; };
struct x_opts_wc { int lines, words, bytes; };
struct x_sortkey {
	size_t sf, ef;                             /* fields from 1; ef 0: to the end */
	int own;                                   /* has its own ordering flags */
	int numeric, reverse, fold;
};
struct x_opts_sort {
	int numeric, reverse, unique, fold;
	int sep;                                   /* -1: fields are runs of blanks */
	struct x_sortkey *keys;
	size_t nkeys;
};
struct x_opts_uniq { int count, repeated, unique, icase; };
struct x_range { uint64_t lo, hi; };
struct x_opts_cut {
	int fields;                                /* -f, else -b/-c */
	char delim;
	int only_delimited;
	struct x_range *r;
	size_t nr;
};
struct x_opts_grep { int icase, invert, number, count, fixed; };
struct x_jqarg { const char *name, *value; int json; };
struct x_opts_jq {
	int raw, join, compact, slurp, null_input, sort, ascii, tab;
	int indent;                                /* -1: the default, 2 */
	struct x_jqarg *args;
	size_t nargs;
};

/*
 * Parse and check a command against the policy; hint is the optional "file"
 * argument.  On failure nothing has been opened or run.
 */
int x_parse(const char *cmd, size_t n, const char *hint, const struct x_policy *pol,
    struct x_pipeline *pl, struct ai_err *e);
void x_pipeline_free(struct x_pipeline *pl);
/* A strict decimal for a built-in's option, with its message (65). */
int x_number(const struct x_stage *st, const char *opt, const char *s, uint64_t *out,
    struct ai_err *e);

/* ---- run.c ---- */

/* Data between stages: p[0..n), owned by own when not NULL. */
struct x_data {
	const char *p;
	size_t n;
	char *own;
};

enum { XR_OK = 0, XR_NONE = 1, XR_FAIL = 2, XR_ABORT = -1 };

struct x_run {
	const struct x_policy *pol;
	const struct x_pipeline *pl;
	struct x_data in;        /* the current stage's input */
	struct ai_buf out;       /* its output (capped at max_output) */
	struct ai_buf files_in;  /* its FILEs, read one after the other (x_input) */
	uint64_t bytes_read;
	int64_t deadline_ms;     /* monotonic */
	struct ai_buf err;       /* stderr_text */
	struct ai_err abort;     /* why the execution stopped, when it did */
	struct ai_err fail;      /* the first stage failure */
	int failed;
	unsigned char *read;     /* per listed file: was read */
	cJSON *urls;             /* fetched: [{"url":..,"status":..}] */
};

/* Stage helpers for the built-ins. */
int x_emit(struct x_run *x, const struct x_stage *st, const void *p, size_t n);
int x_emitf(struct x_run *x, const struct x_stage *st, const char *fmt, ...) AI_PRINTF(3, 4);
/* Append listed file idx to dst, checking caps and the binary rule. */
int x_read_file(struct x_run *x, const struct x_stage *st, int idx, struct ai_buf *dst);
/*
 * The stage's input: its files one after the other, or the previous stage's
 * output.  *p stays valid until the stage ends.
 */
int x_input(struct x_run *x, struct x_stage *st, const char **p, size_t *n);
/* Stop everything (limit, policy, timeout): returns XR_ABORT. */
int x_abort(struct x_run *x, const struct x_stage *st, int code, const char *fmt, ...)
    AI_PRINTF(4, 5);
/* The stage failed; the pipeline goes on: returns XR_FAIL. */
int x_fail(struct x_run *x, const struct x_stage *st, const char *fmt, ...) AI_PRINTF(3, 4);

/* Iterate over the lines of p[0..n): *line, *len (without LF); 0 at the end. */
int x_next_line(const char *p, size_t n, size_t *off, const char **line, size_t *len);

struct x_result {
	int ran;              /* the command was executed (not refused, not cached) */
	int aborted;          /* it was stopped: a limit, a refusal at run time, a fetch */
	int ok;
	int exit_code;
	struct ai_err err;    /* when !ok */
	char *out;            /* the page */
	size_t out_len;
	char *errtext;        /* stderr_text */
	size_t errtext_len;
	uint64_t start;
	uint64_t total;
	int more;             /* next_start is next */
	uint64_t next;
	int cache_hit;
	uint64_t bytes_read;
	int64_t duration_ms;
	int *files;           /* listed files read */
	size_t nfiles;
	cJSON *urls;          /* fetched, with status */
};

void x_result_free(struct x_result *r);
void x_result_copy(struct x_result *dst, const struct x_result *src);
/* Fill r for a command refused or malformed before running. */
void x_result_error(struct x_result *r, const struct ai_err *e);

/* Run a checked pipeline in a sandboxed child and page its output. */
int x_execute(const struct x_policy *pol, const struct x_pipeline *pl, uint64_t start,
    uint64_t size, struct x_result *r);

/* ---- sandbox.c ---- */

/* In the child: resource limits, no environment, a system-call filter. */
void x_sandbox(const struct x_limits *lim, int allow_net);

/* ---- text.c, grep.c, jq.c, fetch.c: the built-ins' runtime ---- */

int x_run_cat(struct x_stage *, struct x_run *);
int x_run_nl(struct x_stage *, struct x_run *);
int x_run_head(struct x_stage *, struct x_run *);
int x_run_tail(struct x_stage *, struct x_run *);
int x_run_wc(struct x_stage *, struct x_run *);
int x_run_sort(struct x_stage *, struct x_run *);
int x_run_uniq(struct x_stage *, struct x_run *);
int x_run_cut(struct x_stage *, struct x_run *);
int x_prepare_grep(struct x_stage *, struct x_run *, struct ai_err *);
int x_run_grep(struct x_stage *, struct x_run *);
void x_release_grep(struct x_stage *);
int x_prepare_jq(struct x_stage *, struct x_run *, struct ai_err *);
int x_run_jq(struct x_stage *, struct x_run *);
void x_release_jq(struct x_stage *);
int x_run_curl(struct x_stage *, struct x_run *);

/* ---- audit.c ---- */

struct x_audit {
	int fd; /* -1 when there is no audit log */
	char *path;
};

int x_audit_open(struct x_audit *a, const char *path, struct ai_err *e);
void x_audit_close(struct x_audit *a);
/* A new audit line with its "time" (ISO 8601, UTC); the caller adds fields. */
cJSON *x_audit_begin(const char *tool);
/* Write the line (one write(2), O_APPEND) and free it. */
int x_audit_end(struct x_audit *a, cJSON *line, struct ai_err *e);

/* ---- jtext.c ---- */

/* Make bytes valid UTF-8 for a JSON string: invalid sequences and NUL become U+FFFD. */
void x_json_text(struct ai_buf *out, const char *p, size_t n);
/* Add p[0..n) to obj as the string member key, made valid as x_json_text does. */
void x_json_addtext(cJSON *obj, const char *key, const char *p, size_t n);
/* The same with secrets redacted (audit lines); null when s is NULL. */
void x_json_addredacted(cJSON *obj, const char *key, const char *s, size_t n);

/* ---- tool.c ---- */

struct x_cache_entry {
	char *key;
	size_t keylen;
	struct x_result r;
	uint64_t used;        /* LRU clock */
};

struct x_ctx {
	struct x_policy pol;
	struct x_progs *progs;     /* the policy of programs, NULL without --policy */
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
/* A string argument: 1 found, 0 absent or null, -1 (65) of another type. */
int x_str_arg(const cJSON *args, const char *key, const char **out, struct ai_err *e);
/* args is an object whose members are all in names; else 65, "unknown argument 'x' (TAKES)". */
int x_args_known(const cJSON *args, const char *const *names, const char *takes,
    struct ai_err *e);
/* Read an execute tool_call's arguments into call (65 with a message). */
int x_execute_args(const struct x_ctx *c, const cJSON *args, struct x_call *call,
    struct ai_err *e);
/* A tool_result's common head: id (when not NULL), name, ok, and error and error_kind when !ok. */
cJSON *x_result_head(const cJSON *id, const char *name, int ok, const struct ai_err *err);
/* The tool_result record for r. */
cJSON *x_result_record(const cJSON *id, const char *name, const struct x_result *r);

void x_ctx_free(struct x_ctx *c);

/* ---- prog.c: the policy of programs ---- */

enum { XL_L0 = 0, XL_L1 = 1, XL_L2 = 2 };

/* How an option takes its value. */
enum {
	XA_FLAG,     /* "-l", "--all": none */
	XA_VALUE,    /* "-n N", "--max-count=N", "-name PATTERN": attached or the next argument */
	XA_OPTVAL,   /* "-u[MODE]", "--color[=WHEN]": attached only */
	XA_NUMBER    /* "-NUM": "-5" */
};

struct x_optrule {
	const char *spell; /* "-n", "--max-count", "-name"; "-NUM" (in the document) */
	int arity;       /* XA_* */
	int text;        /* its value is TEXT: not taken as a path */
	int level;       /* -1: the command's level */
	const char *why; /* NULL: none (in the document) */
	char *rule;      /* with a level: its name in decisions, "git reset --hard" */
};

struct x_denyrule {
	char *spell;     /* "--output" */
	int prefix;      /* also every argument that starts with spell */
	char *why;
	char *rule;      /* "git diff deny --output" */
};

/* A program, or one of its subcommands: its level and its argument rules. */
struct x_cmd {
	char *rule;      /* "git status" */
	int level;
	char *why;
	struct x_optrule *opts;
	size_t nopts;
	struct x_denyrule *deny;
	size_t ndeny;
	int64_t max_operands; /* -1: any number */
};

enum { XH_NONE, XH_GIT, XH_SED, XH_RG, XH_FIND };

struct x_prog {
	char *name;      /* as the policy and the calls name it */
	char *path;      /* its real path, resolved at load; NULL when not found */
	int harden;      /* XH_*: what ai-exec always adds (by the real path's name) */
	int groups;      /* short options group ("-la") */
	int dashdash;    /* "--" ends the options */
	int ok[8];       /* exit statuses that are success */
	size_t nok;
	struct x_cmd cmd;      /* the program: level, options and denials for all */
	struct x_cmd *subs;    /* its subcommands, when it must be given one */
	size_t nsubs;
};

struct x_progs {
	char *file;      /* the policy file, for messages */
	char **dirs;     /* where programs were looked for (real paths) */
	size_t ndirs;
	char *search;    /* the same, joined by ':': the children's PATH */
	struct x_prog *v;
	size_t n;
	char *names;     /* "git, ls, pwd": those not at L2, for messages */
	cJSON *doc;      /* the parsed file: the rules' strings point into it */
	struct arena_block *arena; /* where the document lives (prog.c) */
};

/*
 * Load a policy file: strict JSON, every key known, every program resolved
 * once to a real path in a trusted directory (owned by root and writable by
 * no one else, all the way up).  78 with a message naming the place.
 */
int x_progs_load(struct x_progs *ps, const char *file, struct ai_err *e);
void x_progs_free(struct x_progs *ps);
const struct x_prog *x_progs_find(const struct x_progs *ps, const char *name);
/* "L0", "L1", "L2". */
const char *x_level_name(int level);
/*
 * The real path of the interpreter of an executable: an ELF file's
 * (PT_INTERP) or a "#!" script's; NULL when there is none.  To free.
 */
char *x_interpreter(const char *path);
/* A rule's reason, or its level's ("reads only" ...). */
const char *x_rule_why(const char *why, int level);
/*
 * Whether a real path and every directory above it belong to root and can
 * be written by no one else; when not, why (a static string) and the
 * offending path in where.
 */
int x_trusted(const char *real, const char **why, char *where, size_t wsz);

/* ---- decide.c ---- */

struct x_decision {
	int level;            /* XL_*: the call's level, once allowed by the rules */
	const char *rule;     /* the rule that set it, or that refused (borrowed) */
	const char *why;      /* the rule's reason, or NULL */
	const struct x_prog *prog;
	const struct x_cmd *cmd;
	const char *sub;      /* the subcommand, or NULL */
	char *cwd;            /* the real working directory (to free) */
};

/*
 * Decide a call: program and args against the policy, cwd (NULL: the
 * current directory; relative: to the root) and every operand and option
 * value inside root (a real path).  0 with d filled (level L0 to L2, L2
 * included: refusing it is the caller's), or -1 with e: 77 refused by a
 * rule (d->rule names it), 65 malformed, 3 too many or too long arguments.
 */
int x_decide(const struct x_progs *ps, const char *root, const char *program,
    char *const *args, size_t nargs, const char *cwd, struct x_decision *d, struct ai_err *e);
void x_decision_free(struct x_decision *d);
/*
 * Whether path, taken against base, stays inside root once resolved as the
 * kernel would (symbolic links of its existing part followed; a ".." in the
 * part that does not exist refused).
 */
int x_inside_root(const char *root, const char *base, const char *path);

/* ---- gitcfg.c ---- */

/* What a repository's configuration files hold that ai-exec must answer. */
struct x_gitcfg {
	char **drivers;       /* "filter.NAME", "merge.NAME", "diff.NAME" */
	size_t ndrivers;
	char **includes;      /* include.path and includeIf.*.path values */
	size_t nincludes;
	int worktree;         /* core.worktree is set */
	int overflow;         /* too many drivers, or a file too large */
};

/* Scan one configuration file's text (git-config(1) syntax); never fails. */
void x_gitcfg_scan(const char *p, size_t n, struct x_gitcfg *g);
void x_gitcfg_free(struct x_gitcfg *g);

/* An argument vector under construction. */
struct x_argv {
	char **v;             /* NULL-terminated; each entry owned */
	size_t n;
};

void x_argv_add(struct x_argv *a, const char *s);
void x_argv_addf(struct x_argv *a, const char *fmt, ...) AI_PRINTF(2, 3);
void x_argv_free(struct x_argv *a);

/*
 * The environment ai-exec gives git ("NAME=value" entries added to env):
 * system and global configuration ignored, every key that names a program
 * overridden, the repository's drivers (found from cwd up to root)
 * neutralized, no prompt, no pager, no optional lock, the search for the
 * repository stopped at the root.  77 when the repository's configuration
 * sets core.worktree.
 */
int x_git_setup(const char *root, const char *cwd, struct x_argv *env, struct ai_err *e);
/* The arguments put right after a git subcommand ("--no-textconv" ...). */
void x_git_after(const char *sub, struct x_argv *a);
/* The fixed part of git's environment ("NAME=value"). */
extern const char *const x_git_env[];

/* ---- confine.c ---- */

/* The Landlock ABI of the running kernel, 0 when there is none. */
int x_landlock_abi(void);

struct x_confine {
	int fd;               /* the ruleset, -1 when not confined */
	int abi;
};

/*
 * A ruleset for a program at L0: no write anywhere but /dev/null, no
 * program but those in exec (its real path and interpreters), no TCP, no
 * signal outside (as far as the kernel's ABI goes).  0 with c->fd -1 when
 * the kernel has no Landlock.
 */
int x_confine_prepare(struct x_confine *c, char *const *exec, size_t nexec, struct ai_err *e);
/* lib/proc.h's before_exec: apply the ruleset (arg: struct x_confine *). */
int x_confine_apply(void *arg);
void x_confine_release(struct x_confine *c);

/* ---- launch.c ---- */

struct x_launch {
	struct ai_buf out;    /* standard output, at most the cap */
	struct ai_buf err;    /* the last bytes of standard error */
	uint64_t out_bytes;   /* as written by the program */
	uint64_t err_bytes;
	int exit_code;        /* the status, or 128 + the signal */
	int timed_out;
	int over_cap;         /* stopped: its output passed the cap */
	int confined;         /* ran under Landlock */
	int64_t duration_ms;
};

/*
 * Run argv with execve of path: the scrubbed environment (plus set, and
 * PATH=search), cwd,
 * stdin /dev/null, its own process group (killed, grandchildren too, at the
 * timeout, when the output passes max_out, and when it ends), reaped.
 * -1 only when it could not start (e set).
 */
int x_launch_run(const char *path, char *const *argv, const char *const *set, const char *search,
    const char *cwd, const struct x_confine *conf, int64_t timeout_ms, uint64_t max_out,
    struct x_launch *o, struct ai_err *e);
void x_launch_free(struct x_launch *o);
/* The environment variables passed on to programs (names, static). */
extern const char *const x_env_pass[];

/* ---- outparse.c ---- */

enum { XP_NONE, XP_GIT_STATUS, XP_MATCHES, XP_FILES };

struct x_outhint {
	int kind;             /* XP_* */
	int with_file;        /* matches: lines are FILE:LINE:TEXT, else LINE:TEXT */
	int column;           /* matches: a column follows the line */
	int sections;         /* files: "DIR:" headers (ls -R, several operands) */
	int quoted;           /* files: C-quoted as git quotes paths */
	const char *file;     /* matches without file: the one file searched, or NULL */
};

/* Which known output a program's run gives: prog is its real name ("git"). */
void x_outhint(const char *prog, const char *cwd, char *const *args, size_t nargs,
    struct x_outhint *h);
/* The "parsed" object of output p[0..n), with at most max items; NULL for XP_NONE. */
cJSON *x_outparse(const struct x_outhint *h, const char *p, size_t n, size_t max);
/* "kind" names: "git_status", "matches", "files". */
const char *x_outkind_name(int kind);

/* ---- runtool.c ---- */

struct x_runcall {
	const char *id;       /* NULL on the command line */
	const char *program;
	char **args;          /* borrowed */
	size_t nargs;
	const char *cwd;      /* NULL: the current directory */
	const char *reason;
	int64_t timeout_ms;   /* 0: the default */
};

struct x_runopts {
	const char *root;     /* the real path of the root */
	int approve;          /* the highest level run without asking: 0 or 1; -1: ask for L1 */
	uint64_t max_runs;    /* per request: per process */
	uint64_t runs;        /* counted so far */
	uint64_t calls;       /* every call, for the audit log */
	uint64_t tail;        /* lines of each tail */
	int64_t timeout_ms;   /* the default and the maximum */
	uint64_t max_out;     /* bytes of standard output kept */
	int landlock;         /* the kernel's ABI, 0: none */
};

struct x_runres {
	int ok;
	struct ai_err err;    /* when !ok */
	int decided;          /* the rules gave a level */
	int ran;
	int level;
	const char *rule;
	const char *why;
	char *cwd;
	const char *decision; /* "run", "confirmed", "approved", "declined", "refused" */
	struct x_launch l;
	cJSON *parsed;
};

/* Read a run tool_call's arguments (65 with a message); args point into a. */
int x_run_args(const cJSON *a, struct x_runcall *call, struct ai_err *e);
/* The run tool: decide, ask, run, parse, audit; -1 only when the audit log fails. */
int x_tool_run(struct x_ctx *c, const struct x_runcall *call, struct x_runres *r,
    struct ai_err *e);
cJSON *x_runres_record(const cJSON *id, const struct x_runcall *call, const struct x_runres *r,
    uint64_t tail);
void x_runres_free(struct x_runres *r);

/* ---- serve.c ---- */

/* Answer tool_call records from fd until its end; 0, or -1 when output fails. */
int x_serve(struct x_ctx *c, int fd, struct ai_err *e);

#endif
