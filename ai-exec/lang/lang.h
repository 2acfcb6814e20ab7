/*
 * lang.h: the safe read-only command language (the "execute" tool), in the
 * order a command goes through it:
 *
 *   policy.c   what may be read: the files listed with --file, opened once at
 *              start-up and known by their descriptor; the --allow-url prefixes.
 *   lex.c      the one tokenizer: a command string into words and '|'.
 *   parse.c    words into a pipeline of built-ins, each stage's options checked
 *   spec.c     against its allowlist (spec.c), its files and URL against the
 *              policy.  Nothing has run and nothing has been opened yet.
 *   run.c      the execution, in a forked child under resource limits and a
 *   sandbox.c  system-call filter (sandbox.c): the stages run together, each
 *   text.c     passing its output on to the next as it goes (text.c, head.c,
 *   head.c     sort.c, grep.c with regex.c, jq.c, fetch.c), files read in
 *   sort.c     pieces and no further than needed; the child sends back one
 *   grep.c     page of the output, its exact size, the failing stage's
 *   regex.c    message and what was read.
 *   jq.c
 *   fetch.c
 *   execute.c  the "execute" tool: the call's arguments, the idempotency
 *              cache, the tool_result record, the audit line.
 */
#ifndef AI_EXEC_LANG_H
#define AI_EXEC_LANG_H

#include "../exec.h"
#include "regex.h"

#define X_MAX_COMMAND 4096   /* bytes in one command */
#define X_MAX_STAGES 16      /* commands joined by '|' */
#define X_MAX_STDERR 16384   /* bytes of stderr_text */
#define X_SNIFF 512          /* bytes looked at to tell text from binary */
#define X_CHILD_NOMEM 99     /* the child's exit status when libjq runs out of memory */
#define X_CHILD_FAULT 98     /* ... when it overflows its stack (or faults) */

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
	int redact;           /* the output is for records: paged with its secrets replaced */
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

/* nargs: 0 none, 1 a value, 2 two (jq --arg NAME VALUE), -1 optional, only as "--name=VALUE" */
struct x_optspec {
	int id;
	char sname;         /* 0 for none */
	const char *lname;  /* NULL for none */
	int nargs;
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
	int numeric_count;               /* "-20" is this option with 20 (head -n, grep -C) */
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
	size_t file_from;     /* ops[file_from..file_to) are FILEs (check may move them) */
	size_t file_to;
	int *files;           /* listed files read, by index into the policy */
	const char **fnames;  /* each as the command spelled it */
	size_t nfiles;
	char *url;            /* curl: the canonical URL */
	const char *arg;      /* grep: the pattern; jq: the filter */
	void *priv;           /* the built-in's checked options (check/release) */
	/* the execution (in the child) */
	void *rt;             /* the built-in's state */
	int status;           /* its exit status when it ends the pipeline (grep: 1) */
	int stopped;          /* the next stage takes no more input */
	int skip;             /* a plain "cat FILE..." read by the next stage directly */
	const int *in_files;  /* standard input is these files (a skipped cat's) */
	size_t n_in_files;
	const struct x_stage *in_reader; /* whose label reading them takes */
	struct ai_buf obuf;   /* output not yet passed on */
	uint64_t produced;    /* bytes of output */
};

struct x_pipeline {
	struct x_word *words;
	size_t nwords;
	struct x_stage *stages;
	size_t nstages;
	int uses_net;         /* some stage fetches */
};

/* The checked options of each built-in (spec.c fills them, the runtime reads them). */
struct x_opts_cat { int number, nonblank, squeeze, ends, tabs, nonprinting; };
struct x_opts_nl {
	char style[3];                             /* header, body, footer: a t n p */
	const char *re[3];                         /* p: the basic regular expression */
	char delim[66];                            /* the section delimiter; "" none */
	const char *sep;
	int64_t start, incr;
	uint64_t join, width;
	char format;                               /* l (ln), r (rn), z (rz) */
	int no_renumber;
};
struct x_opts_ht {
	int bytes, from_start, all_but;            /* -c; tail +N; head -N */
	uint64_t count;
	int headers;                               /* -1 by the number of files, 0 -q, 1 -v */
	unsigned char eol;
};
struct x_opts_wc { int lines, words, chars, bytes, maxlen; };
struct x_sortkey {
	size_t sword, schar, eword, echar;         /* GNU's: fields and characters from 0 */
	int skipsblanks, skipeblanks;
	int numeric, general, human, month, version;
	int reverse, fold, dict, nonprint;
};
struct x_opts_sort {
	struct x_sortkey global;
	struct x_sortkey *keys;
	size_t nkeys;
	int unique, stable, merge, zero;
	int check;                                 /* 0, 'c' or 'C' */
	int sep;                                   /* -1: fields are runs of blanks */
};
struct x_opts_uniq {
	int count, repeated, unique, icase, zero;
	int all;                                   /* -D: 'n' none, 'p' prepend, 's' separate */
	int group;                                 /* --group: 's' 'p' 'a' 'b' */
	uint64_t skip_fields, skip_chars, check_chars; /* check_chars UINT64_MAX: all */
};
struct x_range { uint64_t lo, hi; };
struct x_opts_cut {
	int mode;                                  /* 'b', 'c' or 'f' */
	unsigned char delim;
	int only_delimited, complement, zero;
	const char *out_delim;                     /* NULL: the input's */
	struct x_range *r;
	size_t nr;
};
struct x_opts_grep {
	int syntax;                                /* X_RE_* */
	int icase, invert, words, lines;
	int count, only, quiet, list;              /* list: 'l' with a match, 'L' without */
	int number, byte_offset, initial_tab, null_name, null_data;
	int with_name;                             /* -1 by the number of files, 0 -h, 1 -H */
	int binary;                                /* 'b' binary, 't' text (-a), 'w' without-match (-I) */
	uint64_t max_count;                        /* UINT64_MAX: no limit */
	uint64_t before, after;
	int context;                               /* -A, -B or -C was given (even 0): "--" */
	const char *group_sep;                     /* NULL: --no-group-separator */
	const char *label;                         /* standard input's name */
	const char **pats;
	size_t *lens;
	size_t npats;
};
struct x_jqarg { const char *name, *value; int json; };
struct x_opts_jq {
	int raw, join, ascii, sort, color, slurp, null_input, raw_input, seq, stream;
	int dumpopts;                              /* jq 1.6's, in the order the options came */
	struct x_jqarg *args;
	size_t nargs;
	int positional;                            /* 0, or --args 's' / --jsonargs 'j' */
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

/*
 * What a built-in's function returns: go on; the stage takes no more input
 * (head has its lines: the stages before it stop); the execution stops.
 */
enum { XR_OK = 0, XR_STOP = 1, XR_ABORT = -1 };

struct x_run {
	const struct x_policy *pol;
	struct x_pipeline *pl;
	uint64_t bytes_read;
	int64_t deadline_ms;     /* monotonic */
	struct ai_buf err;       /* stderr_text */
	struct ai_err abort;     /* why the execution stopped, when it did */
	struct ai_err fail;      /* the first stage failure */
	int failed;
	unsigned char *read;     /* per listed file: was read */
	cJSON *urls;             /* fetched: [{"url":..,"status":..}] */
	char *chunk;             /* the buffer files are read into */
	/* the page of the last stage's output */
	uint64_t start, size, total;
	uint64_t margin;         /* bytes kept on each side of the page, to redact */
	uint64_t page_from;      /* the output's offset of page.buf[0] */
	struct ai_buf page;      /* bytes from page_from on: margin, page, one byte, margin */
};

/*
 * A built-in at run time.  Each input (a FILE, or the previous stage's
 * output) is begin, feed (any number of times, pieces of any size), finish;
 * end comes after the last input.  name is the FILE as the command spelled
 * it, NULL for standard input.  read, when set, reads an input made of
 * listed files itself (tail reads from the end).  space, when set, gives
 * the place where the next piece of a listed file is to be read (at most
 * *n bytes there): feed then gets that very place, and need not copy it.
 */
struct x_rt {
	int (*prepare)(struct x_stage *, struct x_run *, struct ai_err *);
	int (*begin)(struct x_stage *, struct x_run *, const char *name);
	int (*feed)(struct x_stage *, struct x_run *, const char *p, size_t n);
	int (*finish)(struct x_stage *, struct x_run *);
	int (*end)(struct x_stage *, struct x_run *);
	int (*read)(struct x_stage *, struct x_run *, const int *files, size_t n);
	void (*release)(struct x_stage *);
	char *(*space)(struct x_stage *, struct x_run *, size_t *n);
};

extern const struct x_rt x_rt_cat, x_rt_nl, x_rt_head, x_rt_tail, x_rt_wc, x_rt_sort,
    x_rt_uniq, x_rt_cut, x_rt_grep, x_rt_jq, x_rt_curl;

/* Output of stage st: passed on to the next stage, or to the page. */
int x_emit(struct x_run *x, struct x_stage *st, const void *p, size_t n);
int x_emitf(struct x_run *x, struct x_stage *st, const char *fmt, ...) AI_PRINTF(3, 4);
/* "%*llu" + sep, fast: line numbers on every line of a large input. */
int x_emit_number(struct x_run *x, struct x_stage *st, uint64_t v, int width, char pad,
    int left, const char *sep, size_t seplen);
/* Stop everything (limit, policy, timeout): returns XR_ABORT. */
int x_abort(struct x_run *x, const struct x_stage *st, int code, const char *fmt, ...)
    AI_PRINTF(4, 5);
/* The stage failed; the pipeline goes on: returns XR_OK. */
int x_fail(struct x_run *x, const struct x_stage *st, const char *fmt, ...) AI_PRINTF(3, 4);
/* A message on standard error that is not a failure (grep: binary file matches). */
void x_warn(struct x_run *x, const struct x_stage *st, const char *fmt, ...) AI_PRINTF(3, 4);

/*
 * Listed file idx, for built-ins that read it themselves: checked (still a
 * regular text file within --max-file) and its size; then read at offsets,
 * counted against --max-read.
 */
int x_file_open(struct x_run *x, const struct x_stage *st, int idx, uint64_t *size);
int x_file_pread(struct x_run *x, const struct x_stage *st, int idx, char *buf, size_t n,
    uint64_t off, size_t *got);

/*
 * Lines that arrive in pieces: fn gets blocks of whole lines, each ending
 * in eol, and at the end what is left without one (last 1).
 */
struct x_lines {
	struct ai_buf carry;
	unsigned char eol;
};
typedef int (*x_lines_fn)(struct x_stage *st, struct x_run *x, const char *p, size_t n,
    int last);
void x_lines_init(struct x_lines *l, unsigned char eol);
int x_lines_feed(struct x_lines *l, struct x_stage *st, struct x_run *x, const char *p,
    size_t n, x_lines_fn fn);
int x_lines_end(struct x_lines *l, struct x_stage *st, struct x_run *x, x_lines_fn fn);
void x_lines_release(struct x_lines *l);

/* Iterate over the lines of p[0..n) ending in eol: *line, *len (without eol); 0 at the end. */
int x_next_line(const char *p, size_t n, unsigned char eol, size_t *off, const char **line,
    size_t *len);

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

/* ---- execute.c ---- */

/* The tool_result record for r. */
cJSON *x_result_record(const cJSON *id, const char *name, const struct x_result *r);

#endif
