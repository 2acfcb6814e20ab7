/*
 * template.h: named presets of a tool's settings.
 *
 * A template is $XDG_CONFIG_HOME/aicli/templates/NAME.json (XDG_CONFIG_HOME
 * defaulting to ~/.config): a JSON object with
 *
 *	"description"	a line for --templates
 *	"system"	the system prompt (--system)
 *	"model"		the model (--model)
 *	"provider"	the provider (--provider)
 *	"schema"	a JSON Schema for the answer (--schema): the schema
 *			itself, or the name of a file beside the template
 *	"options"	more of the tool's own options, as a command line
 *			would give them: ["--temperature", "0.2"]
 *
 * and comment keys that begin with "//".  Anything else is an error, as in
 * the configuration file.  NAME is letters, digits, '_' and '-'.  A template stands for the arguments it lists,
 * parsed before the command line's, so that a flag on the command line
 * wins over the template's value (options that add, such as --file, add).
 * ai_opt_run (opt.h) applies the template a command's -t option names, and
 * lists them for --templates.
 */
#ifndef AI_TEMPLATE_H
#define AI_TEMPLATE_H

#include <stdio.h>
#include <cjson/cJSON.h>

#include "err.h"

struct ai_command;

/* The largest template file. */
#define AI_TEMPLATE_MAX ((size_t)1 << 20)

/*
 * Load the template NAME and turn it into the arguments it stands for, for
 * cmd (a setting cmd has no option for is an error): *argv (NULL-ended,
 * argv[0] the program's name) and *argc.  They stay valid until the
 * process ends.  Errors are AI_EXIT_CONFIG and name the template and file.
 */
int ai_template_args(const struct ai_command *cmd, const char *name, int *argc, char ***argv,
    struct ai_err *e);

/*
 * The text of a template checked: a JSON object of the keys above, each of
 * its type.  Returns the object (the caller deletes it), or NULL with e set
 * (AI_EXIT_CONFIG, the message not naming the template).
 */
cJSON *ai_template_parse(const char *text, size_t n, struct ai_err *e);

/* The file of the template ai_template_args loaded (for messages), or NULL. */
const char *ai_template_path(void);

/*
 * The templates there are, one per line, sorted: "NAME<TAB>DESCRIPTION", or
 * on a terminal the names in a column.  A template that cannot be read is a
 * warning on stderr; the others are still listed.  Returns 0, or -1 when
 * writing fails.
 */
int ai_template_list(FILE *f, struct ai_err *e);

#endif
