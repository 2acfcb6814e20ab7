/* Unit tests: opt.h. */
#include <stdarg.h>
#include <stdlib.h>

#include "opt.h"
#include "t.h"

static int json, verbose, flagx, runflag;
static const char *model, *system_prompt;
static struct ai_strlist files;
static uint64_t steps;
static double temp;
static int steps_given;

static const struct ai_option options[] = {
	AI_OPTION_MODEL(&model),
	AI_OPTION_SYSTEM(&system_prompt),
	AI_OPTION_JSON(&json),
	AI_OPTION_VERBOSE(&verbose),
	{ .type = AI_OPT_FLAG, .short_name = 'x', .value = &flagx, .help = "x" },
	{ .type = AI_OPT_LIST, .short_name = 'f', .long_name = "file", .value = &files, .arg = "PATH",
	  .help = "allow PATH" },
	{ .type = AI_OPT_U64, .long_name = "max-steps", .value = &steps, .arg = "N", .help = "steps",
	  .min = 1, .max = 100, .given = &steps_given },
	{ .type = AI_OPT_DOUBLE, .long_name = "temperature", .value = &temp, .arg = "T",
	  .help = "temperature", .dmin = 0, .dmax = 2 },
	{ .type = AI_OPT_FLAG, .short_name = 'r', .long_name = "run", .value = &runflag,
	  .help = "run", .rest = 1 },
	AI_OPTION_HELP,
	AI_OPTION_VERSION,
	AI_OPTION_END
};

static const char *const synopsis[] = { "t [-m MODEL] [PROMPT]", NULL };
static const struct ai_command cmd = { synopsis, "test", options, 0 };

static void
reset(void)
{
	json = verbose = flagx = steps_given = runflag = 0;
	model = system_prompt = NULL;
	ai_strlist_free(&files);
	steps = 0;
	temp = -1;
}

static int
parse(struct ai_err *e, int *nops, char ***ops, int argc, ...)
{
	static char *argv[32];
	va_list ap;
	int i;

	va_start(ap, argc);
	for (i = 0; i < argc; i++)
		argv[i] = va_arg(ap, char *);
	va_end(ap);
	argv[argc] = NULL;
	reset();
	ai_err_clear(e);
	return ai_opt_parse(&cmd, argc, argv, nops, ops, e);
}

int
main(void)
{
	struct ai_err e = AI_ERR_INIT;
	char **ops;
	int n;

	CHECK_INT(parse(&e, &n, &ops, 8, "t", "-m", "gpt", "hello", "--json", "-vv", "--file=a", "world"), 0);
	CHECK_STR(model, "gpt");
	CHECK_INT(json, 1);
	CHECK_INT(verbose, 2);
	CHECK_INT(files.n, 1);
	CHECK_STR(files.v[0], "a");
	CHECK_INT(n, 2);
	CHECK_STR(ops[0], "hello");
	CHECK_STR(ops[1], "world");

	CHECK_INT(parse(&e, &n, &ops, 9, "t", "-mgpt", "-jx", "--file", "a", "-fb", "--max-steps", "7", "--temperature=0.5"), 0);
	CHECK_STR(model, "gpt");
	CHECK_INT(json, 1);
	CHECK_INT(flagx, 1);
	CHECK_INT(files.n, 2);
	CHECK_STR(files.v[1], "b");
	CHECK_INT(steps, 7);
	CHECK_INT(steps_given, 1);
	CHECK(temp == 0.5);
	CHECK_INT(n, 0);

	/* "--" ends options; "-" is an operand; a later value wins */
	CHECK_INT(parse(&e, &n, &ops, 7, "t", "-m", "a", "--model", "b", "--", "--json"), 0);
	CHECK_STR(model, "b");
	CHECK_INT(json, 0);
	CHECK_INT(n, 1);
	CHECK_STR(ops[0], "--json");
	CHECK_INT(parse(&e, &n, &ops, 2, "t", "-"), 0);
	CHECK_INT(n, 1);

	/* help and version win over running, also after other options */
	CHECK_INT(parse(&e, &n, &ops, 3, "t", "--json", "--help"), AI_OPT_HELP_SHOWN);
	CHECK_INT(parse(&e, &n, &ops, 2, "t", "-h"), AI_OPT_HELP_SHOWN);
	CHECK_INT(parse(&e, &n, &ops, 2, "t", "--version"), AI_OPT_VERSION_SHOWN);

	/* errors, never an exit */
	CHECK_INT(parse(&e, &n, &ops, 2, "t", "--modle"), -1);
	CHECK_INT(e.code, AI_EXIT_USAGE);
	CHECK_STR(e.msg, "unknown option '--modle' (did you mean '--model'?)");
	CHECK_INT(parse(&e, &n, &ops, 3, "t", "--mod", "x"), -1);
	CHECK_STR(e.msg, "unknown option '--mod' (did you mean '--model'?)");
	CHECK_INT(parse(&e, &n, &ops, 2, "t", "--zzzzzzzz"), -1);
	CHECK_STR(e.msg, "unknown option '--zzzzzzzz'");
	CHECK_INT(parse(&e, &n, &ops, 2, "t", "-q"), -1);
	CHECK_STR(e.msg, "unknown option '-q'");
	CHECK_INT(parse(&e, &n, &ops, 2, "t", "--model"), -1);
	CHECK_STR(e.msg, "option '--model' needs a value");
	CHECK_INT(parse(&e, &n, &ops, 2, "t", "-m"), -1);
	CHECK_STR(e.msg, "option '-m' needs a value");
	CHECK_INT(parse(&e, &n, &ops, 2, "t", "--json=1"), -1);
	CHECK_STR(e.msg, "option '--json' takes no value");
	CHECK_INT(parse(&e, &n, &ops, 3, "t", "--max-steps", "0"), -1);
	CHECK_STR(e.msg, "option '--max-steps': '0' is out of range 1..100");
	CHECK_INT(parse(&e, &n, &ops, 3, "t", "--max-steps", "1e3"), -1);
	CHECK_STR(e.msg, "option '--max-steps': '1e3': not a decimal number");
	CHECK_INT(parse(&e, &n, &ops, 3, "t", "--max-steps", "99999999999999999999999"), -1);
	CHECK_STR(e.msg, "option '--max-steps': '99999999999999999999999': number too large");
	CHECK_INT(parse(&e, &n, &ops, 3, "t", "--temperature", "3"), -1);
	CHECK_STR(e.msg, "option '--temperature': '3' is out of range 0..2");
	CHECK_INT(parse(&e, &n, &ops, 3, "t", "--temperature", "nan"), -1);

	/* stop at the first operand when the command asks for it */
	{
		static const struct ai_command posix = { synopsis, "test", options,
			AI_OPT_STOP_AT_OPERAND };
		char *argv[] = { "t", "-j", "prog", "-m", "x", NULL };

		reset();
		CHECK_INT(ai_opt_parse(&posix, 5, argv, &n, &ops, &e), 0);
		CHECK_INT(json, 1);
		CHECK(model == NULL);
		CHECK_INT(n, 3);
		CHECK_STR(ops[1], "-m");
	}
	/* a .rest flag: everything after it is an operand, options included */
	CHECK_INT(parse(&e, &n, &ops, 7, "t", "-j", "--run", "git", "log", "--json", "-m"), 0);
	CHECK_INT(json, 1);
	CHECK_INT(runflag, 1);
	CHECK(model == NULL);
	CHECK_INT(n, 4);
	CHECK_STR(ops[0], "git");
	CHECK_STR(ops[2], "--json");
	CHECK_STR(ops[3], "-m");
	CHECK_INT(parse(&e, &n, &ops, 5, "t", "-jr", "ls", "--", "-x"), 0);
	CHECK_INT(json, 1);
	CHECK_INT(runflag, 1);
	CHECK_INT(n, 3);
	CHECK_STR(ops[1], "--");
	CHECK_INT(parse(&e, &n, &ops, 4, "t", "-rj", "ls", "-x"), 0);
	CHECK_INT(json, 1);
	CHECK_INT(n, 2);
	CHECK_STR(ops[1], "-x");
	CHECK_INT(parse(&e, &n, &ops, 2, "t", "--run"), 0);
	CHECK_INT(runflag, 1);
	CHECK_INT(n, 0);
	CHECK_INT(parse(&e, &n, &ops, 3, "t", "--run=x", "y"), -1);
	CHECK_STR(e.msg, "option '--run' takes no value");
	reset();
	{
		struct ai_buf b = AI_BUF_INIT(AI_BUF_NOLIMIT);
		char *words[] = { "what", "is", "", "pledge" };

		ai_opt_join(&b, 0, words);
		CHECK_INT(b.len, 0);
		ai_opt_join(&b, 1, words);
		CHECK_STR(b.buf, "what");
		b.len = 0;
		ai_opt_join(&b, 4, words);
		CHECK_STR(b.buf, "what is  pledge");
		ai_buf_release(&b);
	}
	T_DONE();
}
