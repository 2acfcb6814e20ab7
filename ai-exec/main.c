/*
 * ai-exec: run a safe, read-only command language over the files and URLs
 * it is given: one command from the command line, or tool calls from
 * standard input with --serve.  See ai-exec(1) and exec.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tool.h"
#include "config.h"
#include "io.h"
#include "msg.h"
#include "opt.h"
#include "record.h"
#include "text.h"
#include "util.h"
#include "banned.h"

#define MIB ((uint64_t)1 << 20)

/* The page on standard output: raw into a pipe, sanitized on a terminal. */
static int
print_page(const struct x_result *r, struct ai_err *e)
{
	if (r->out_len == 0)
		return 0;
	if (isatty(STDOUT_FILENO)) {
		struct ai_buf b = AI_BUF_INIT(AI_BUF_NOLIMIT);
		int rc;

		ai_term_sanitize(&b, r->out, r->out_len);
		rc = ai_out_write(stdout, b.buf, b.len, e);
		ai_buf_release(&b);
		return rc;
	}
	return ai_out_write(stdout, r->out, r->out_len, e);
}

/* The stderr text, line by line, as diagnostics. */
static void
print_stderr(const struct x_result *r)
{
	const char *p = r->errtext, *end = r->errtext + r->errtext_len;

	while (p != NULL && p < end) {
		const char *lf = memchr(p, '\n', (size_t)(end - p));
		size_t n = lf ? (size_t)(lf - p) : (size_t)(end - p);

		ai_error("%.*s", (int)n, p);
		p += n + 1;
	}
}

/*
 * --json: a run that fails ends its records with an error record, so that
 * the next tool in a pipe stops too (aicli(7)).  why, when it has a
 * message, says why; else the exit status does.
 */
static void
error_record(int code, const struct ai_err *why)
{
	struct ai_err re = AI_ERR_INIT, we = AI_ERR_INIT;
	cJSON *rec;

	if (code == AI_EXIT_PIPE)
		return;
	if (why != NULL && why->msg[0])
		re = *why;
	else
		ai_err_set(&re, code, "it failed (exit status %d)", code);
	re.code = code;
	re.retryable = ai_exit_retryable(code);
	rec = ai_record_error("ai-exec", &re);
	ai_record_write(stdout, rec, &we);
	cJSON_Delete(rec);
}

static int
one_command(struct x_ctx *c, const char *command, uint64_t start, uint64_t size,
    const char *reason, int json, struct ai_err *e)
{
	struct x_call call;
	struct x_result r;
	int code;

	memset(&call, 0, sizeof(call));
	call.command = command;
	call.command_len = strlen(command);
	call.start = start;
	call.size = size;
	call.reason = reason;
	if (x_tool_execute(c, &call, &r, e) < 0) {
		x_result_free(&r);
		return -1;
	}
	code = r.exit_code;
	if (json) {
		cJSON *rec = x_result_record(NULL, "execute", &r);

		if (x_record_write(rec, e) < 0)
			code = -1;
		cJSON_Delete(rec);
		/* a command that ran and ended as it may (grep selecting nothing) did not fail */
		if (code > 0 && !r.ok)
			error_record(code, &r.err);
	} else if (print_page(&r, e) < 0) {
		code = -1;
	}
	/* a failure's messages, and a success's too (grep's "binary file matches", jq's debug) */
	if (code >= 0 && (!r.ok || !json))
		print_stderr(&r);
	if (code >= 0 && r.more && !json)
		ai_error("the output is %llu bytes; this is bytes %llu to %llu: --start %llu shows "
		    "more", (unsigned long long)r.total, (unsigned long long)r.start,
		    (unsigned long long)r.next, (unsigned long long)r.next);
	x_result_free(&r);
	return code;
}

/* Bytes to a stream: raw into a pipe or a file, sanitized on a terminal. */
static int
print_bytes(FILE *f, const char *p, size_t n, struct ai_err *e)
{
	if (n == 0)
		return 0;
	if (isatty(fileno(f))) {
		struct ai_buf b = AI_BUF_INIT(AI_BUF_NOLIMIT);
		int rc;

		ai_term_sanitize(&b, p, n);
		rc = ai_out_write(f, b.buf, b.len, e);
		ai_buf_release(&b);
		return rc;
	}
	return ai_out_write(f, p, n, e);
}

/*
 * --run: one program.  Its standard output and error are passed on and the
 * exit status is its own, as env(1) and timeout(1) do; ai-exec's own
 * statuses (77 refused, 75 timeout, 3 limit, 69 not found...) when it did
 * not run or was stopped.
 */
static int
one_run(struct x_ctx *c, char **ops, int nops, const char *reason, int json, struct ai_err *e)
{
	struct x_runcall call;
	struct x_runres r;
	int code, stopped;

	memset(&call, 0, sizeof(call));
	call.program = ops[0];
	call.args = ops + 1;
	call.nargs = (size_t)nops - 1;
	call.reason = reason;
	if (x_tool_run(c, &call, &r, e) < 0) {
		x_runres_free(&r);
		return -1;
	}
	/* stopped by a limit or the timeout: ai-exec's status, not the program's */
	stopped = !r.ran || r.err.code == AI_EXIT_LIMIT || r.err.code == AI_EXIT_TEMPFAIL;
	code = stopped ? r.err.code : r.l.exit_code;
	if (json) {
		cJSON *rec = x_runres_record(NULL, &call, &r, c->run->tail);

		if (x_record_write(rec, e) < 0)
			code = -1;
		cJSON_Delete(rec);
		if (code > 0 && !r.ok)
			error_record(code, r.err.msg[0] ? &r.err : NULL);
	} else if (r.ran && (print_bytes(stdout, r.l.out.buf, r.l.out.len, e) < 0 ||
	    ai_out_flush(stdout, e) < 0)) {
		code = -1;
	}
	if (code >= 0 && !json && r.ran)
		(void)print_bytes(stderr, r.l.err.buf, r.l.err.len, e);
	if (code >= 0 && stopped)
		ai_err_print(&r.err);
	x_runres_free(&r);
	return code;
}

/* --root: a real directory (default: the current one). */
static char *
root_dir(const char *root, struct ai_err *e)
{
	char *here = root ? NULL : getcwd(NULL, 0), *real;
	struct stat st;

	real = realpath(root ? root : here ? here : ".", NULL);
	free(here);
	if (real == NULL || stat(real, &st) < 0 || !S_ISDIR(st.st_mode)) {
		ai_err_set(e, AI_EXIT_USAGE, "--root '%s': %s", root ? root : ".",
		    real ? strerror(ENOTDIR) : strerror(errno));
		free(real);
		return NULL;
	}
	return real;
}

/*
 * --policy: the programs, the root they work in, and (unless --unconfined)
 * the sandbox they run in, checked before anything runs.
 */
static int
load_programs(struct x_ctx *c, const char *policy, const char *root, int unconfined,
    struct ai_err *e)
{
	struct x_runopts *ro = c->run;

	ro->landlock = x_landlock_abi();
	ro->root = root_dir(root, e);
	if (ro->root == NULL)
		return -1;
	if (!unconfined && strcmp(ro->root, "/") == 0)
		return ai_err_set(e, AI_EXIT_USAGE, "--root '%s': the root is all a program "
		    "sees: it cannot be '/'", root ? root : ".");
	c->progs = ai_xcalloc(1, sizeof(*c->progs));
	if (x_progs_load(c->progs, policy, e) < 0) {
		free(c->progs);
		c->progs = NULL;
		return -1;
	}
	if (unconfined) {
		/* said once, and in the audit log of every run ("sandbox": "none") */
		ai_warn("--unconfined: programs run without the sandbox, with the argument checks, "
		    "the limits and Landlock alone");
		return 0;
	}
	c->sandbox = ai_xcalloc(1, sizeof(*c->sandbox));
	if (x_sandbox_init(c->sandbox, c->progs, e) < 0)
		return -1;
	c->sandbox->hide[0] = realpath(policy, NULL);
	ro->sb = c->sandbox;
	return 0;
}

static int
run(int argc, char **argv, struct ai_err *e)
{
	static const char *const synopsis[] = {
		"ai-exec [-jv] [--file PATH]... [--allow-url PREFIX]... [--audit FILE] "
		"[--start N] [--size N] [--reason TEXT] [LIMITS] COMMAND",
		"ai-exec [-jv] --policy FILE [--root DIR] [--approve LEVEL] [--unconfined] "
		"[--audit FILE] [--reason TEXT] [LIMITS] --run PROGRAM [ARG]...",
		"ai-exec --serve [-v] [--file PATH]... [--allow-url PREFIX]... [--policy FILE] "
		"[--root DIR] [--approve LEVEL] [--unconfined] [--max-runs N] [--audit FILE] "
		"[LIMITS]",
		NULL
	};
	struct ai_strlist files = { NULL, 0 }, urls = { NULL, 0 };
	const char *audit = NULL, *reason = NULL, *policy = NULL, *root = NULL, *approve = NULL;
	int json = 0, serve = 0, verbose = 0, start_given = 0, size_given = 0, exitcode, nops, rc;
	int runit = 0, max_runs_given = 0, tail_given = 0, unconfined = 0, cpu_given = 0;
	int procs_given = 0;
	uint64_t max_runs = 5, tail = 40, max_procs = 256;
	uint64_t start = 0, size = 4096, max_size = 4096, max_file = 10 * MIB, max_read = 64 * MIB,
	    max_output = 64 * MIB, max_memory = 512, max_cpu = 5, cache = 64;
	double timeout = 30;
	const struct ai_option options[] = {
		{ .type = AI_OPT_LIST, .long_name = "file", .value = &files, .arg = "PATH",
		  .help = "a file commands may read (repeatable)" },
		{ .type = AI_OPT_LIST, .long_name = "allow-url", .value = &urls, .arg = "PREFIX",
		  .help = "a URL prefix curl may fetch (repeatable)" },
		{ .type = AI_OPT_STR, .long_name = "audit", .value = &audit, .arg = "FILE",
		  .help = "append one JSON line per execution to FILE" },
		{ .type = AI_OPT_FLAG, .long_name = "serve", .value = &serve,
		  .help = "answer tool_call records from standard input" },
		{ .type = AI_OPT_STR, .long_name = "policy", .value = &policy, .arg = "FILE",
		  .help = "the programs that may run, and their rules (JSON)" },
		{ .type = AI_OPT_FLAG, .long_name = "run", .value = &runit, .rest = 1,
		  .help = "run PROGRAM [ARG]... (the rest of the line) under --policy" },
		{ .type = AI_OPT_STR, .long_name = "root", .value = &root, .arg = "DIR",
		  .help = "programs work inside DIR (default: the current directory)" },
		{ .type = AI_OPT_STR, .long_name = "approve", .value = &approve, .arg = "LEVEL",
		  .help = "run up to LEVEL without asking: L0 or L1" },
		{ .type = AI_OPT_FLAG, .long_name = "unconfined", .value = &unconfined,
		  .help = "run programs without the sandbox: the checks alone" },
		{ .type = AI_OPT_U64, .long_name = "max-runs", .value = &max_runs, .arg = "N",
		  .min = 1, .max = 100000, .given = &max_runs_given,
		  .help = "programs run per request (5)" },
		{ .type = AI_OPT_U64, .long_name = "tail", .value = &tail, .arg = "N",
		  .max = 100000, .given = &tail_given,
		  .help = "lines of a program's output in a result (40)" },
		{ .type = AI_OPT_U64, .long_name = "start", .value = &start, .arg = "N",
		  .max = (uint64_t)1 << 53, .given = &start_given,
		  .help = "first byte of the output to show (default 0)" },
		{ .type = AI_OPT_U64, .long_name = "size", .value = &size, .arg = "N", .min = 1,
		  .max = (uint64_t)1 << 53, .given = &size_given,
		  .help = "bytes of output to show (default 4096)" },
		{ .type = AI_OPT_STR, .long_name = "reason", .value = &reason, .arg = "TEXT",
		  .help = "why, for the audit log" },
		{ .type = AI_OPT_U64, .long_name = "max-size", .value = &max_size, .arg = "N",
		  .min = 1, .max = 16 * MIB, .help = "largest page a call may ask for (4096)" },
		{ .type = AI_OPT_U64, .long_name = "max-file", .value = &max_file, .arg = "N",
		  .min = 1, .max = 1024 * MIB, .help = "bytes per file or fetched body (10 MiB)" },
		{ .type = AI_OPT_U64, .long_name = "max-read", .value = &max_read, .arg = "N",
		  .min = 1, .max = 4096 * MIB, .help = "bytes one command may read (64 MiB)" },
		{ .type = AI_OPT_U64, .long_name = "max-output", .value = &max_output, .arg = "N",
		  .min = 1, .max = 4096 * MIB, .help = "bytes one stage may produce (64 MiB)" },
		{ .type = AI_OPT_U64, .long_name = "max-memory", .value = &max_memory, .arg = "MIB",
		  .min = 64, .max = 1 << 20,
		  .help = "memory of one command or program, MiB (512)" },
		{ .type = AI_OPT_U64, .long_name = "max-cpu", .value = &max_cpu, .arg = "SECONDS",
		  .min = 1, .max = 86400, .given = &cpu_given,
		  .help = "CPU time of one command (5), of a program (--timeout)" },
		{ .type = AI_OPT_U64, .long_name = "max-procs", .value = &max_procs, .arg = "N",
		  .min = 1, .max = 65536, .given = &procs_given,
		  .help = "processes of one program at a time (256)" },
		{ .type = AI_OPT_DOUBLE, .long_name = "timeout", .value = &timeout, .arg = "SECONDS",
		  .dmin = 0.1, .dmax = 86400, .help = "wall-clock time of one command (30)" },
		{ .type = AI_OPT_U64, .long_name = "cache", .value = &cache, .arg = "N",
		  .max = 100000, .help = "entries in the idempotency cache (64)" },
		AI_OPTION_JSON(&json),
		AI_OPTION_VERBOSE(&verbose),
		AI_OPTION_HELP,
		AI_OPTION_VERSION,
		AI_OPTION_END
	};
	const struct ai_command cmd = { synopsis,
		"Run a safe, read-only command language over the files and URLs given, "
		"or allowed programs.",
		options, 0 };
	struct x_ctx c;
	char **ops;
	size_t i;

	memset(&c, 0, sizeof(c));
	c.audit.fd = -1;
	if (ai_opt_run(&cmd, argc, argv, &nops, &ops, &exitcode)) {
		ai_strlist_free(&files);
		ai_strlist_free(&urls);
		return exitcode;
	}
	if (!size_given && size > max_size)
		size = max_size;
	if (runit && serve)
		ai_err_set(e, AI_EXIT_USAGE, "--run and --serve do not go together");
	else if (runit && nops == 0)
		ai_err_set(e, AI_EXIT_USAGE, "--run needs a PROGRAM");
	else if (runit && policy == NULL)
		ai_err_set(e, AI_EXIT_USAGE, "--run needs --policy FILE");
	else if (runit && (files.n || urls.n || start_given || size_given || max_runs_given))
		ai_err_set(e, AI_EXIT_USAGE,
		    "--file, --allow-url, --start, --size and --max-runs do not go with --run");
	else if (!runit && !serve && (policy || root || approve || max_runs_given || tail_given ||
	    unconfined || procs_given))
		ai_err_set(e, AI_EXIT_USAGE, "--policy, --root, --approve, --unconfined, "
		    "--max-runs, --max-procs and --tail go with --run or --serve");
	else if (policy == NULL && (unconfined || procs_given))
		ai_err_set(e, AI_EXIT_USAGE, "--unconfined and --max-procs go with --policy");
	else if (approve != NULL && strcmp(approve, "L0") != 0 && strcmp(approve, "L1") != 0)
		ai_err_set(e, AI_EXIT_USAGE,
		    "--approve takes L0 (ask nothing, run L0 only) or L1 (run L1 too); L2 never runs");
	else if (runit)
		;
	else if (serve && nops > 0)
		ai_err_set(e, AI_EXIT_USAGE, "--serve reads tool calls from standard input: no COMMAND");
	else if (serve && (json || start_given || size_given || reason != NULL))
		ai_err_set(e, AI_EXIT_USAGE,
		    "--json, --start, --size and --reason go with one COMMAND, not --serve");
	else if (!serve && nops == 0)
		ai_err_set(e, AI_EXIT_USAGE, "a COMMAND is needed (or --serve)");
	else if (!serve && nops > 1)
		ai_err_set(e, AI_EXIT_USAGE,
		    "the COMMAND is one argument: quote it (ai-exec --file F 'cat F | head')");
	else if (size > max_size)
		ai_err_set(e, AI_EXIT_USAGE, "--size %llu is larger than --max-size %llu",
		    (unsigned long long)size, (unsigned long long)max_size);
	if (e->code) {
		ai_strlist_free(&files);
		ai_strlist_free(&urls);
		return AI_EXIT_USAGE;
	}
	/* the secrets results must not show: the environment's, the configuration's */
	ai_config_secrets();
	x_policy_init(&c.pol);
	c.pol.redact = serve || json;
	c.verbose = verbose;
	c.pol.lim.max_size = max_size;
	c.pol.lim.max_file = max_file;
	c.pol.lim.max_read = max_read;
	c.pol.lim.max_output = max_output;
	c.pol.lim.max_memory = max_memory * MIB;
	c.pol.lim.max_cpu = max_cpu;
	c.pol.lim.timeout_ms = (uint64_t)(timeout * 1000);
	c.pol.lim.cache = cache;
	rc = 0;
	if (policy != NULL || runit || serve) {
		struct x_runopts *ro = ai_xcalloc(1, sizeof(*ro));

		c.run = ro;
		ro->approve = approve == NULL ? -1 : approve[1] - '0';
		ro->max_runs = max_runs;
		ro->tail = tail;
		ro->timeout_ms = (int64_t)(timeout * 1000);
		ro->max_out = max_output;
		ro->max_memory = max_memory * MIB;
		/* a program's CPU time is bounded by its wall-clock time unless told otherwise */
		ro->max_cpu = cpu_given ? max_cpu : (uint64_t)timeout + 1;
		ro->max_tasks = max_procs;
		ro->redact = serve || json;
		if (policy != NULL)
			rc = load_programs(&c, policy, root, unconfined, e);
	}
	for (i = 0; i < files.n && rc == 0; i++)
		rc = x_policy_add_file(&c.pol, files.v[i], e);
	for (i = 0; i < urls.n && rc == 0; i++)
		rc = x_policy_add_url(&c.pol, urls.v[i], e);
	if (rc == 0)
		rc = x_audit_open(&c.audit, audit, e);
	if (rc == 0 && c.sandbox != NULL && audit != NULL)
		c.sandbox->hide[1] = realpath(audit, NULL);
	ai_strlist_free(&files);
	ai_strlist_free(&urls);
	if (rc < 0) {
		if (json)
			error_record(e->code, e);
		x_ctx_free(&c);
		return -1;
	}
	x_policy_seal(&c.pol);
	if (verbose && c.progs != NULL)
		ai_error("policy '%s': %zu programs, %s; Landlock %s", policy, c.progs->n,
		    c.run->sb != NULL ? "each in a bubblewrap sandbox" : "without a sandbox",
		    c.run->landlock > 0 ? "available" : "not available");
	if (serve)
		rc = x_serve(&c, STDIN_FILENO, e) < 0 ? -1 : AI_EXIT_OK;
	else if (runit)
		rc = one_run(&c, ops, nops, reason, json, e);
	else
		rc = one_command(&c, ops[0], start, size, reason, json, e);
	if (json && rc < 0)
		error_record(e->code, e);
	x_ctx_free(&c);
	return rc;
}

int
main(int argc, char **argv)
{
	struct ai_err e = AI_ERR_INIT;

	/*
	 * Inside the sandbox, ai-exec is the helper that confines the program
	 * (prog/confine.c); it ends without exit handlers (a sanitizer's leak
	 * check has nothing to find there, and could change its status).
	 */
	if (argc > 0 && strcmp(argv[0], X_HELPER) == 0)
		_exit(x_confine_main(argc, argv));

	ai_init(argv[0]);
	return ai_finish(run(argc, argv, &e), &e);
}
