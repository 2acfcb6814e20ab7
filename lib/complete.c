/*
 * complete.c: shell completion scripts made from a tool's option table.
 *
 * The table that parses the options also describes them to bash, zsh and
 * fish, so an option added to a tool is completed by every shell without
 * anyone writing completion code.  What a value completes to comes from the
 * option: its .values words, its .complete kind, or else its .arg name
 * (FILE and PATH complete file names, DIR directories).  An option with
 * .rest (ai-exec's --run) is followed by a program and its arguments.
 */
#include <string.h>

#include "opt.h"
#include "util.h"
#include "banned.h"

static int
takes_value(const struct ai_option *o)
{
	return o->type == AI_OPT_STR || o->type == AI_OPT_LIST || o->type == AI_OPT_U64 ||
	    o->type == AI_OPT_DOUBLE;
}

static int
repeatable(const struct ai_option *o)
{
	return o->type == AI_OPT_LIST || o->type == AI_OPT_COUNT;
}

/* What the option's value completes to. */
static int
kind(const struct ai_option *o)
{
	if (o->complete != AI_COMPLETE_AUTO)
		return o->complete;
	if (o->arg == NULL)
		return AI_COMPLETE_NONE;
	if (strcmp(o->arg, "FILE") == 0 || strcmp(o->arg, "PATH") == 0)
		return AI_COMPLETE_FILE;
	if (strcmp(o->arg, "DIR") == 0)
		return AI_COMPLETE_DIR;
	return AI_COMPLETE_NONE;
}

/*
 * s inside single quotes, for bash or (fish != 0) for fish: a quote is
 * closed, escaped and reopened; fish also reads \\ inside quotes as one.
 */
static void
squote(FILE *f, const char *s, int fish)
{
	fputc('\'', f);
	for (; *s; s++) {
		if (*s == '\'')
			fputs("'\\''", f);
		else if (*s == '\\' && fish)
			fputs("\\\\", f);
		else
			fputc(*s, f);
	}
	fputc('\'', f);
}

/* The tool's name with '-' as '_', for shell function names. */
static void
ident(FILE *f)
{
	const char *p;

	for (p = ai_progname; *p; p++)
		fputc(*p == '-' || *p == '.' ? '_' : *p, f);
}

/* ---- bash ---- */

/* "-m|--model" */
static void
bash_names(FILE *f, const struct ai_option *o)
{
	if (o->short_name)
		fprintf(f, "-%c%s", o->short_name, o->long_name ? "|" : "");
	if (o->long_name)
		fprintf(f, "--%s", o->long_name);
}

static void
bash(const struct ai_command *cmd, FILE *f)
{
	const struct ai_option *o;
	int rest = 0;

	fprintf(f, "# bash completion for %s, made from its option table by\n"
	    "# \"%s --aicli-completion bash\"\n\n_aicli_", ai_progname, ai_progname);
	ident(f);
	fputs("()\n{\n"
	    "\tlocal cur prev i\n"
	    "\tCOMPREPLY=()\n"
	    "\tcur=${COMP_WORDS[COMP_CWORD]}\n"
	    "\tprev=\n"
	    "\t((COMP_CWORD > 0)) && prev=${COMP_WORDS[COMP_CWORD - 1]}\n"
	    "\t# bash splits --name=value at the '='\n"
	    "\tif [[ $cur == = ]]; then\n"
	    "\t\tcur=\n"
	    "\telif [[ $prev == = ]] && ((COMP_CWORD > 1)); then\n"
	    "\t\tprev=${COMP_WORDS[COMP_CWORD - 2]}\n"
	    "\tfi\n", f);
	for (o = cmd->options; o->type != AI_OPT_END; o++)
		if (o->rest && o->long_name)
			rest = 1;
	if (rest) {
		/* after --run: a program, then anything */
		fputs("\tfor ((i = 1; i < COMP_CWORD; i++)); do\n\t\tcase ${COMP_WORDS[i]} in\n\t\t", f);
		for (o = cmd->options; o->type != AI_OPT_END; o++)
			if (o->rest && o->long_name) {
				bash_names(f, o);
				fputs(")\n", f);
			}
		fputs("\t\t\tif ((i == COMP_CWORD - 1)); then\n"
		    "\t\t\t\tmapfile -t COMPREPLY < <(compgen -c -- \"$cur\")\n"
		    "\t\t\telse\n"
		    "\t\t\t\tmapfile -t COMPREPLY < <(compgen -f -- \"$cur\")\n"
		    "\t\t\t\tcompopt -o filenames 2>/dev/null\n"
		    "\t\t\tfi\n"
		    "\t\t\treturn 0\n"
		    "\t\t\t;;\n"
		    "\t\tesac\n\tdone\n", f);
	}
	fputs("\tcase $prev in\n", f);
	for (o = cmd->options; o->type != AI_OPT_END; o++) {
		if (!takes_value(o))
			continue;
		fputc('\t', f);
		bash_names(f, o);
		fputs(")\n\t\t", f);
		if (o->values != NULL) {
			fputs("mapfile -t COMPREPLY < <(compgen -W ", f);
			squote(f, o->values, 0);
			fputs(" -- \"$cur\")\n", f);
		} else {
			switch (kind(o)) {
			case AI_COMPLETE_FILE:
				fputs("mapfile -t COMPREPLY < <(compgen -f -- \"$cur\")\n"
				    "\t\tcompopt -o filenames 2>/dev/null\n", f);
				break;
			case AI_COMPLETE_DIR:
				fputs("mapfile -t COMPREPLY < <(compgen -d -- \"$cur\")\n"
				    "\t\tcompopt -o filenames 2>/dev/null\n", f);
				break;
			case AI_COMPLETE_TEMPLATE:
				fprintf(f, "mapfile -t COMPREPLY < <(compgen -W \"$(command %s "
				    "--templates 2>/dev/null | cut -f1)\" -- \"$cur\")\n", ai_progname);
				break;
			default:
				fputs(": # free text\n", f);
				break;
			}
		}
		fputs("\t\treturn 0\n\t\t;;\n", f);
	}
	fputs("\tesac\n\tif [[ $cur == -* ]]; then\n\t\tmapfile -t COMPREPLY < <(compgen -W '", f);
	for (o = cmd->options; o->type != AI_OPT_END; o++)
		if (o->long_name)
			fprintf(f, "%s--%s", o == cmd->options ? "" : " ", o->long_name);
	for (o = cmd->options; o->type != AI_OPT_END; o++)
		if (o->short_name)
			fprintf(f, " -%c", o->short_name);
	fputs("' -- \"$cur\")\n\tfi\n\treturn 0\n}\ncomplete -F _aicli_", f);
	ident(f);
	fprintf(f, " %s\n", ai_progname);
}

/* ---- zsh ---- */

/* The description inside a spec's brackets: no brackets, colons or backslashes. */
static void
zsh_desc(FILE *f, const char *s)
{
	for (; s != NULL && *s; s++) {
		if (*s == '[' || *s == ']' || *s == ':' || *s == '\\')
			fputc('\\', f);
		if (*s == '\'')
			fputs("'\\''", f);
		else
			fputc(*s, f);
	}
}

static void
zsh(const struct ai_command *cmd, FILE *f)
{
	const struct ai_option *o;

	fprintf(f, "#compdef %s\n# zsh completion for %s, made from its option table by\n"
	    "# \"%s --aicli-completion zsh\"\n\n", ai_progname, ai_progname, ai_progname);
	for (o = cmd->options; o->type != AI_OPT_END; o++)
		if (takes_value(o) && o->values == NULL && kind(o) == AI_COMPLETE_TEMPLATE)
			break;
	if (o->type != AI_OPT_END) {
		/* the names the tool itself lists */
		fputs("(( $+functions[_aicli_", f);
		ident(f);
		fputs("_templates] )) ||\n_aicli_", f);
		ident(f);
		fprintf(f, "_templates()\n{\n\tlocal -a names\n"
		    "\tnames=(${${(f)\"$(command %s --templates 2>/dev/null)\"}%%%%$'\\t'*})\n"
		    "\tcompadd -a names\n}\n\n", ai_progname);
	}
	fputs("_arguments -s -S : \\\n", f);
	for (o = cmd->options; o->type != AI_OPT_END; o++) {
		int v = takes_value(o);

		fputc('\t', f);
		if (o->type == AI_OPT_HELP || o->type == AI_OPT_VERSION ||
		    o->type == AI_OPT_TEMPLATES)
			fputs("'(- *)'", f);
		else if (repeatable(o))
			fputs("'*'", f);
		else if (o->short_name && o->long_name)
			fprintf(f, "'(-%c --%s)'", o->short_name, o->long_name);
		if (o->short_name && o->long_name)
			fprintf(f, "{-%c%s,--%s%s}'", o->short_name, v ? "+" : "", o->long_name,
			    v ? "=" : "");
		else if (o->short_name)
			fprintf(f, "'-%c%s", o->short_name, v ? "+" : "");
		else
			fprintf(f, "'--%s%s", o->long_name, v ? "=" : "");
		fputc('[', f);
		zsh_desc(f, o->help);
		fputc(']', f);
		if (o->rest) {
			fputs(":*::program and its arguments:_normal", f);
		} else if (v) {
			fputc(':', f);
			zsh_desc(f, o->arg ? o->arg : "value");
			fputc(':', f);
			if (o->values != NULL) {
				fputc('(', f);
				zsh_desc(f, o->values);
				fputc(')', f);
			} else {
				switch (kind(o)) {
				case AI_COMPLETE_FILE:
					fputs("_files", f);
					break;
				case AI_COMPLETE_DIR:
					fputs("_files -/", f);
					break;
				case AI_COMPLETE_TEMPLATE:
					fputs("_aicli_", f);
					ident(f);
					fputs("_templates", f);
					break;
				default:
					fputc(' ', f);
					break;
				}
			}
		}
		fputs("' \\\n", f);
	}
	fputs("\t'*:argument: '\n", f);
}

/* ---- fish ---- */

static void
fish(const struct ai_command *cmd, FILE *f)
{
	const struct ai_option *o;

	fprintf(f, "# fish completion for %s, made from its option table by\n"
	    "# \"%s --aicli-completion fish\"\n\ncomplete -c %s -f\n", ai_progname, ai_progname,
	    ai_progname);
	for (o = cmd->options; o->type != AI_OPT_END; o++) {
		fprintf(f, "complete -c %s", ai_progname);
		if (o->short_name)
			fprintf(f, " -s %c", o->short_name);
		if (o->long_name)
			fprintf(f, " -l %s", o->long_name);
		if (takes_value(o)) {
			if (o->values != NULL) {
				fputs(" -x -a ", f);
				squote(f, o->values, 1);
			} else {
				switch (kind(o)) {
				case AI_COMPLETE_FILE:
					fputs(" -r -F", f);
					break;
				case AI_COMPLETE_DIR:
					fputs(" -x -a '(__fish_complete_directories)'", f);
					break;
				case AI_COMPLETE_TEMPLATE:
					fprintf(f, " -x -a '(command %s --templates 2>/dev/null)'",
					    ai_progname);
					break;
				default:
					fputs(" -x", f);
					break;
				}
			}
		}
		fputs(" -d ", f);
		squote(f, o->help ? o->help : "", 1);
		fputc('\n', f);
		if (o->rest && o->long_name) {
			/* a command line follows; the values of options are not its words */
			const struct ai_option *v;

			fprintf(f, "complete -c %s -n '__fish_seen_argument -l %s' -x "
			    "-a '(__fish_complete_subcommand --", ai_progname, o->long_name);
			for (v = cmd->options; v->type != AI_OPT_END; v++) {
				if (!takes_value(v))
					continue;
				if (v->short_name)
					fprintf(f, " -%c", v->short_name);
				if (v->long_name)
					fprintf(f, " --%s", v->long_name);
			}
			fputs(")'\n", f);
		}
	}
}

int
ai_complete_print(const struct ai_command *cmd, const char *shell, FILE *f)
{
	if (strcmp(shell, "bash") == 0)
		bash(cmd, f);
	else if (strcmp(shell, "zsh") == 0)
		zsh(cmd, f);
	else if (strcmp(shell, "fish") == 0)
		fish(cmd, f);
	else
		return -1;
	return 0;
}
