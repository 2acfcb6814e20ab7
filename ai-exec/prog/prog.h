/*
 * prog.h: the programs ai-exec runs for the "run" tool (--policy), in the
 * order a call goes through them:
 *
 *   prog.c     the policy file: programs, the real path each resolves to in
 *              trusted directories (once, at start-up), their argument rules
 *              and risk levels.
 *   decide.c   a call's decision: the program, subcommand, options and
 *              operands against the rules, every path inside the root; the
 *              level (L0 runs, L1 asks, L2 is refused) and the rule that set it.
 *   gitcfg.c   what git needs besides: configuration that names programs or
 *              files overridden, the repository's drivers neutralized, a
 *              repository that leads out of the root refused.
 *   launch.c   execve of the resolved path with the literal arguments, a
 *              scrubbed environment, in its own process group, with a timeout
 *              and output caps,
 *   bwrap.c    in a bubblewrap sandbox that holds only the system's
 *              directories, the root and private /tmp, /dev and /proc,
 *   confine.c  where ai-exec's helper confines it (limits, Landlock, a
 *              system-call filter) and supervises its processes.
 *   outparse.c known outputs (git status, grep/rg matches, file lists) as items.
 *   runtool.c  the "run" tool: arguments, the question on /dev/tty, the audit
 *              lines, the tool_result.
 */
#ifndef AI_EXEC_PROG_H
#define AI_EXEC_PROG_H

#include "../exec.h"

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
	int chdir;       /* its value is CHDIR: the paths after it are relative to it */
	int data;        /* its value is DATA: text, but "@FILE" and "NAME=@FILE" name files */
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
	int network;     /* the rule grants the network: 1, 0, or -1 (the program's) */
};

enum { XH_NONE, XH_GIT, XH_SED, XH_RG, XH_FIND, XH_LN };

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
	int network;          /* the rule grants the network */
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
	char **drivers;       /* "filter.NAME", "http.URL"...: named sections that name programs */
	size_t ndrivers;
	char **includes;      /* include.path and includeIf.*.path values */
	size_t nincludes;
	int worktree;         /* core.worktree is set */
	int overflow;         /* too many drivers, or a file too large */
	char **files;         /* files named by keys git cannot be told to forget */
	size_t nfiles;
	char *outside;        /* what leads out of the root ("'.git' ... leads to ...,"), or NULL */
	char *unsafe;         /* a key naming a program git lets nothing override, or NULL */
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
 * The environment ai-exec gives git for subcommand sub ("NAME=value"
 * entries added to env): system and global configuration ignored, every
 * key that names a program or a file overridden, the repository's named
 * sections (drivers...) neutralized, no prompt, no pager, no optional lock,
 * the search for the repository stopped at the root.  77 when the
 * repository leads out of the root (core.worktree, a ".git" link, gitdir or
 * commondir, blame.ignoreRevsFile) or, for a subcommand that talks to a
 * remote, names an upload or receive program.
 */
int x_git_setup(const char *root, const char *cwd, const char *sub, struct x_argv *env,
    struct ai_err *e);
/* The arguments put right after a git subcommand ("--no-textconv" ...). */
void x_git_after(const char *sub, struct x_argv *a);
/* The fixed part of git's environment ("NAME=value"). */
extern const char *const x_git_env[];

/* ---- confine.c: the helper inside the sandbox ---- */

/* The Landlock ABI of the running kernel, 0 when there is none. */
int x_landlock_abi(void);

/* How one program is confined (confine.c says what each part means). */
struct x_confine {
	int level;            /* XL_L0 or XL_L1 */
	int network;          /* its rule grants the network */
	int boxed;            /* in bubblewrap: the process limit, Landlock at L1 */
	uint64_t cpu;         /* seconds, 0: none */
	uint64_t memory;      /* bytes of data, 0: none */
	uint64_t tasks;       /* processes at a time, 0: none */
	const char *write;    /* L1: where it may write (the root) */
	const char *exec[3];  /* L0: what it may execute: its file, its interpreters */
	size_t nexec;
};

/* The words that tell the helper how to confine (then "--", the path and argv). */
void x_confine_args(const struct x_confine *c, struct x_argv *a);
/* The helper: ai-exec started as X_HELPER, inside the sandbox; its exit status. */
int x_confine_main(int argc, char **argv);
/* lib/proc.h's before_exec without the sandbox (arg: struct x_confine *). */
int x_confine_child(void *arg);

/* ---- bwrap.c: the sandbox ---- */

#define X_BWRAP "/usr/bin/bwrap"
#define X_HELPER "/run/aicli/ai-exec-confine"

/* What the sandbox needs, found at start-up. */
struct x_sandbox {
	char *self;           /* ai-exec's real path, bound in as X_HELPER */
	char *hide[2];        /* the suite's files a program must not see: the policy, the log */
	char **dirs;          /* program directories outside the system's, bound read-only */
	size_t ndirs;
};

/*
 * Check, before anything runs, that programs can be sandboxed: bubblewrap
 * at X_BWRAP, trusted, and user namespaces not off; 78 saying what is
 * missing and how to get it.
 */
int x_sandbox_init(struct x_sandbox *sb, const struct x_progs *ps, struct ai_err *e);
void x_sandbox_free(struct x_sandbox *sb);

/* One program in its sandbox. */
struct x_box {
	const char *root;     /* real */
	const char *cwd;      /* real, inside the root */
	int writable;         /* L1: the root is writable */
	int network;
	uint64_t tmp_size;    /* bytes the private /tmp may hold */
	const struct x_confine *conf;
	const char *path;     /* the program's real path */
	char *const *argv;
};

/* bubblewrap's argument vector for one program (the masks are looked for now). */
void x_sandbox_argv(const struct x_sandbox *sb, const struct x_box *b, struct x_argv *a);

/* ---- launch.c ---- */

struct x_spawn {
	struct x_box box;             /* what runs, where, how confined */
	const struct x_sandbox *sb;   /* NULL: --unconfined */
	const char *const *set;       /* more environment ("NAME=value") */
	const char *search;           /* its PATH */
	int64_t timeout_ms;
	uint64_t max_out;             /* bytes of standard output and error */
};

struct x_launch {
	struct ai_buf out;    /* standard output, at most the cap */
	struct ai_buf err;    /* the last bytes of standard error */
	struct ai_buf status; /* what the helper said */
	uint64_t out_bytes;   /* as written by the program */
	uint64_t err_bytes;
	int exit_code;        /* the status, or 128 + the signal */
	int timed_out;
	int over_cap;         /* stopped: its output passed the cap */
	int err_cut;          /* the first bytes of standard error are not kept */
	int boxed;            /* ran in the sandbox */
	int started;          /* the program was started (in the sandbox: the helper said so) */
	char failed[512];     /* why the helper could not start it */
	int over_tasks;       /* stopped: it passed its limit of processes */
	int usage;            /* maxrss_kib and cpu_ms are known */
	long long maxrss_kib; /* its peak resident memory */
	long long cpu_ms;     /* its CPU time */
	int64_t duration_ms;
};

/*
 * Run a program: in the sandbox or confined in the child, the scrubbed
 * environment (plus set, PATH=search), its own process group (killed,
 * grandchildren and sandbox too, at the timeout, when the output passes
 * the cap, and when it ends), reaped.  -1 only when it could not start (e
 * set).
 */
int x_launch_run(const struct x_spawn *s, struct x_launch *o, struct ai_err *e);
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
	uint64_t max_out;     /* bytes of standard output and error */
	uint64_t max_memory;  /* bytes of data of a program */
	uint64_t max_cpu;     /* CPU seconds of a program */
	uint64_t max_tasks;   /* processes of a program at a time */
	const struct x_sandbox *sb; /* NULL: --unconfined */
	int redact;           /* results are records: programs' output is redacted */
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

cJSON *x_runres_record(const cJSON *id, const struct x_runcall *call, const struct x_runres *r,
    uint64_t tail);
void x_runres_free(struct x_runres *r);

#endif
