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

/* The help of cmd as one string (to free()). */
static char *
help_of(const struct ai_command *c)
{
	char *p = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&p, &n);

	ai_opt_help(c, f);
	fclose(f);
	return p;
}

/* Every line of s is at most 80 columns (bytes: the tests use ASCII). */
static int
fits(const char *s)
{
	while (*s) {
		size_t n = strcspn(s, "\n");

		if (n > 80)
			return 0;
		s += n + (s[n] == '\n');
	}
	return 1;
}

static void
help_wraps(void)
{
	static const char *const syn[] = {
		"t [-jv] [--max-steps N] [--file PATH]... [--tools FILE | --schema FILE] [--continue FILE] "
		"[-m MODEL] [--provider NAME] [option ...] [TASK ...]",
		"t --serve [-v]",
		NULL
	};
	static const struct ai_option opts[] = {
		{ .type = AI_OPT_STR, .long_name = "base-url", .arg = "URL", .help = "the provider's base "
		  "URL (env OPENAI_BASE_URL, ANTHROPIC_BASE_URL, OLLAMA_HOST), and some more words "
		  "so that it takes three lines" },
		{ .type = AI_OPT_STR, .long_name = "a-very-long-option-name", .arg = "SECONDS",
		  .help = "short" },
		{ .type = AI_OPT_FLAG, .short_name = 'j', .help = "json" },
		AI_OPTION_END
	};
	const struct ai_command c = { syn, "A summary that is long enough to need two lines when "
	    "it is printed at eighty columns, as some tools' are.", opts, 0 };
	char *h = help_of(&c);

	CHECK(fits(h));
	/* usage lines break between groups, never inside one, and go on under the first argument */
	CHECK(strstr(h, "usage: t [-jv] [--max-steps N] [--file PATH]... [--tools FILE | --schema "
	    "FILE]\n") == h);
	CHECK(strstr(h, "\n         [--continue FILE] [-m MODEL] [--provider NAME] [option ...] "
	    "[TASK ...]\n       t --serve [-v]\n\n") != NULL);
	CHECK(strstr(h, "\nA summary that is long enough to need two lines when it is printed at "
	    "eighty\ncolumns, as some tools' are.\n") != NULL);
	/* a description wraps under itself; after a long option, it starts on the next line */
	CHECK(strstr(h, "\n      --base-url URL            the provider's base URL (env OPENAI_BASE_URL,\n"
	    "                                ANTHROPIC_BASE_URL, OLLAMA_HOST), and some more\n"
	    "                                words so that it takes three lines\n") != NULL);
	CHECK(strstr(h, "\n      --a-very-long-option-name SECONDS\n"
	    "                                short\n") != NULL);
	CHECK(strstr(h, "\n  -j                            json\n") != NULL);
	free(h);
	/* a word longer than a line is not cut: it overflows on a line of its own */
	{
		static const char *const one[] = { "t [--a-group-that-is-far-too-long-to-fit-on-one-line-"
		    "of-eighty-columns-by-itself N]", NULL };
		const struct ai_command c1 = { one, NULL, opts + 2, 0 };

		h = help_of(&c1);
		CHECK(strstr(h, "usage: t \n         [--a-group") == h ||
		    strstr(h, "usage: t [--a-group") == h);
		free(h);
	}
}

static void
completions(void)
{
	char *p = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&p, &n);

	CHECK_INT(ai_complete_print(&cmd, "tcsh", f), -1);
	CHECK_INT(ai_complete_print(&cmd, "bash", f), 0);
	CHECK_INT(ai_complete_print(&cmd, "zsh", f), 0);
	CHECK_INT(ai_complete_print(&cmd, "fish", f), 0);
	fclose(f);
	/* every option, in each shell's words; a value that takes a file completes files */
	CHECK(strstr(p, "complete -F _aicli_") != NULL);
	CHECK(strstr(p, "--max-steps") != NULL && strstr(p, "--temperature") != NULL);
	CHECK(strstr(p, "-f|--file)\n\t\tmapfile -t COMPREPLY < <(compgen -f") != NULL);
	CHECK(strstr(p, "'*'{-f+,--file=}'[allow PATH]:PATH:_files'") != NULL);
	CHECK(strstr(p, "'(- *)'{-h,--help}'[show this help and exit]'") != NULL);
	CHECK(strstr(p, " -s f -l file -r -F -d 'allow PATH'") != NULL);
	CHECK(strstr(p, " -l provider") == NULL);
	free(p);
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
	help_wraps();
	completions();
	T_DONE();
}
