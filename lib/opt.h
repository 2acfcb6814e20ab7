/*
 * opt.h: one option parser and one help format for the whole suite.
 *
 * A tool declares its options in a table (git's parse-options, curl's
 * option table) and calls ai_opt_parse, which never exits and never prints:
 * it returns AI_OPT_RUN, AI_OPT_HELP or AI_OPT_VERSION, or -1 with e set
 * (AI_EXIT_USAGE).  Long options must be spelled out in full: "--mod" is not
 * "--model".  "--name=value", "--name value", "-x value", "-xvalue" and
 * grouped flags "-jv" work; "--" ends the options; options and operands may
 * be mixed unless the command sets AI_OPT_STOP_AT_OPERAND.  A flag with
 * .rest set ends the options too: every argument after it is an operand
 * (a program and its arguments, as in "ai-exec --run git log --oneline").
 *
 * The options every tool shares are defined once here as macros.
 *
 * The table is also the source of each tool's shell completions: run as
 * "TOOL --aicli-completion bash" (or zsh, fish) a tool prints its completion
 * script and exits (complete.c).  The option is not listed in --help; the
 * build runs it to make the scripts "make install" installs.
 */
#ifndef AI_OPT_H
#define AI_OPT_H

#include <stdint.h>
#include <stdio.h>

#include "buf.h"
#include "err.h"

/* What a shell completes as an option's value (AI_COMPLETE_AUTO: by its .arg). */
enum ai_complete {
	AI_COMPLETE_AUTO = 0, /* FILE and PATH: file names; DIR: directories; else nothing */
	AI_COMPLETE_NONE,
	AI_COMPLETE_FILE,
	AI_COMPLETE_DIR,
	AI_COMPLETE_TEMPLATE  /* the names "TOOL --templates" lists */
};

enum ai_opt_type {
	AI_OPT_END = 0,
	AI_OPT_FLAG,    /* int *: set to 1 */
	AI_OPT_COUNT,   /* int *: incremented */
	AI_OPT_STR,     /* const char **: the last one given wins */
	AI_OPT_LIST,    /* struct ai_strlist *: every one given, in order */
	AI_OPT_U64,     /* uint64_t *: strict decimal in min..max */
	AI_OPT_DOUBLE,  /* double *: strict decimal in dmin..dmax */
	AI_OPT_HELP,
	AI_OPT_VERSION,
	AI_OPT_TEMPLATES /* list the templates (template.h) and exit */
};

struct ai_strlist {
	const char **v; /* borrowed from argv */
	size_t n;
};

struct ai_option {
	enum ai_opt_type type;
	int short_name;        /* 0 for none */
	const char *long_name; /* NULL for none */
	void *value;
	const char *arg;       /* the value's name in help: "N", "FILE" */
	const char *help;
	uint64_t min, max;     /* AI_OPT_U64 */
	double dmin, dmax;     /* AI_OPT_DOUBLE */
	int *given;            /* if not NULL, set to 1 when the option appears */
	int rest;              /* AI_OPT_FLAG: the arguments after it are all operands */
	int complete;          /* enum ai_complete */
	const char *values;    /* the words it takes, space-separated, for completion; or NULL */
};

enum { AI_OPT_STOP_AT_OPERAND = 1 };

struct ai_command {
	const char *const *synopsis; /* NULL-terminated usage lines, as in the man page */
	const char *summary;         /* one line: what the tool does */
	const struct ai_option *options;
	unsigned flags;
};

enum {
	AI_OPT_RUN = 0, AI_OPT_HELP_SHOWN = 1, AI_OPT_VERSION_SHOWN = 2, AI_OPT_TEMPLATES_SHOWN = 3
};

/*
 * Parse argv[1..argc).  On AI_OPT_RUN, *nops and *ops give the operands
 * (pointing into a rearranged argv).  On -1, e says what is wrong.
 */
int ai_opt_parse(const struct ai_command *cmd, int argc, char **argv, int *nops, char ***ops,
    struct ai_err *e);
/* Append the operands joined by spaces: "ai-ask what is pledge" is one prompt. */
void ai_opt_join(struct ai_buf *b, int nops, char **ops);
/* Free what AI_OPT_LIST options allocated. */
void ai_strlist_free(struct ai_strlist *l);

/*
 * Print the help (usage lines, summary, options) and the version line.  The
 * help fits in 80 columns: usage lines wrap between their bracketed groups,
 * under the program's name; option descriptions wrap under themselves.
 */
void ai_opt_help(const struct ai_command *cmd, FILE *f);
void ai_opt_version(FILE *f);
/* Print a usage error the way every tool does, with the hint to --help. */
void ai_opt_usage_error(const struct ai_err *e);

/*
 * The parse-and-dispatch every main does: 0 to go on, or the exit code
 * (0 after --help, --version or --templates, AI_EXIT_USAGE after an error)
 * in *exitcode.  When the command has a template option (AI_OPTION_TEMPLATE)
 * and the command line names a template, the template's arguments are
 * parsed first, so that the command line wins; a template that is missing
 * or malformed is an error (AI_EXIT_CONFIG) naming it.
 */
int ai_opt_run(const struct ai_command *cmd, int argc, char **argv, int *nops, char ***ops,
    int *exitcode);

/* Shared options. */
#define AI_OPTION_HELP \
	{ .type = AI_OPT_HELP, .short_name = 'h', .long_name = "help", \
	  .help = "show this help and exit" }
#define AI_OPTION_VERSION \
	{ .type = AI_OPT_VERSION, .long_name = "version", .help = "show the version and exit" }
#define AI_OPTION_VERBOSE(p) \
	{ .type = AI_OPT_COUNT, .short_name = 'v', .long_name = "verbose", .value = (p), \
	  .help = "diagnostics on stderr (secrets redacted)" }
#define AI_OPTION_JSON(p) \
	{ .type = AI_OPT_FLAG, .short_name = 'j', .long_name = "json", .value = (p), \
	  .help = "write records (NDJSON) to stdout" }
#define AI_OPTION_MODEL(p) \
	{ .type = AI_OPT_STR, .short_name = 'm', .long_name = "model", .value = (p), .arg = "MODEL", \
	  .help = "model name (env AICLI_MODEL, default gpt-4.1-mini)" }
#define AI_OPTION_PROVIDER(p) \
	{ .type = AI_OPT_STR, .long_name = "provider", .value = (p), .arg = "NAME", \
	  .help = "openai, openai-chat, anthropic or ollama (env AICLI_PROVIDER)", \
	  .values = "openai openai-chat anthropic ollama" }
#define AI_OPTION_SYSTEM(p) \
	{ .type = AI_OPT_STR, .short_name = 's', .long_name = "system", .value = (p), .arg = "TEXT", \
	  .help = "system prompt" }
#define AI_OPTION_TEMPLATE(p) \
	{ .type = AI_OPT_STR, .short_name = 't', .long_name = "template", .value = (p), \
	  .arg = "NAME", .help = "settings from the template NAME (--templates lists them)", \
	  .complete = AI_COMPLETE_TEMPLATE }
#define AI_OPTION_TEMPLATES \
	{ .type = AI_OPT_TEMPLATES, .long_name = "templates", \
	  .help = "list the templates, with what each is for, and exit" }
#define AI_OPTION_END { .type = AI_OPT_END }

/* Write the completion script for shell ("bash", "zsh" or "fish"); -1 for another shell. */
int ai_complete_print(const struct ai_command *cmd, const char *shell, FILE *f);

#endif
