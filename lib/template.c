/* template.c: loading templates and listing them. */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "template.h"
#include "buf.h"
#include "config.h"
#include "io.h"
#include "json.h"
#include "msg.h"
#include "opt.h"
#include "text.h"
#include "util.h"
#include "banned.h"

/* The template in use: its arguments borrow from it until the process ends. */
static struct {
	cJSON *root;
	char *path;
	char **argv;
	int argc;
	char *schema;  /* the schema's path, when it is a file beside the template */
	int schema_fd; /* or the sealed file holding it, when it is in the template */
} used = { NULL, NULL, NULL, 0, NULL, -1 };

/*
 * A name is letters, digits, '_' and '-', starting with a letter or digit:
 * no path, and other files of the folder ("review.schema.json") are not
 * templates.
 */
static int
valid_name(const char *s)
{
	size_t i;

	if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9')))
		return 0;
	for (i = 0; s[i]; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
		    (s[i] >= '0' && s[i] <= '9') || s[i] == '_' || s[i] == '-'))
			return 0;
	return i <= 64;
}

/* The templates' folder, to free(); NULL when there is no home. */
static char *
folder(void)
{
	char *dir = ai_config_dir();
	struct ai_buf b = AI_BUF_INIT(AI_BUF_NOLIMIT);

	if (dir == NULL)
		return NULL;
	ai_buf_addf(&b, "%s/templates", dir);
	free(dir);
	return ai_buf_detach(&b, NULL);
}

static const struct ai_option *
long_option(const struct ai_command *cmd, const char *name)
{
	const struct ai_option *o;

	for (o = cmd->options; o->type != AI_OPT_END; o++)
		if (o->long_name != NULL && strcmp(o->long_name, name) == 0)
			return o;
	return NULL;
}

static void
push(const char *arg)
{
	used.argv = ai_xrealloc(used.argv, ((size_t)used.argc + 2) * sizeof(*used.argv));
	used.argv[used.argc++] = (char *)arg;
	used.argv[used.argc] = NULL;
}

cJSON *
ai_template_parse(const char *text, size_t n, struct ai_err *e)
{
	static const char *const keys[] = { "description", "system", "model", "provider", "schema",
		"options" };
	const cJSON *k;
	cJSON *root = ai_json_parse(text, n, e);

	if (root == NULL) {
		e->code = AI_EXIT_CONFIG;
		return NULL;
	}
	if (!cJSON_IsObject(root)) {
		ai_err_set(e, AI_EXIT_CONFIG, "it must hold a JSON object");
		cJSON_Delete(root);
		return NULL;
	}
	for (k = root->child; k != NULL; k = k->next) {
		size_t i;
		char ex[64];

		if (strncmp(k->string, "//", 2) == 0)
			continue;
		for (i = 0; i < AI_ARRAY_SIZE(keys); i++)
			if (strcmp(k->string, keys[i]) == 0)
				break;
		if (i == AI_ARRAY_SIZE(keys)) {
			ai_err_set(e, AI_EXIT_CONFIG, "unknown key '%s' (a template holds "
			    "description, system, model, provider, schema and options)",
			    ai_excerpt(k->string, strlen(k->string), ex, sizeof(ex)));
		} else if (strcmp(k->string, "options") == 0) {
			const cJSON *a;

			if (!cJSON_IsArray(k))
				ai_err_set(e, AI_EXIT_CONFIG, "\"options\" must be an array of strings, "
				    "as on a command line");
			cJSON_ArrayForEach(a, k)
				if (!cJSON_IsString(a) && e->code == 0)
					ai_err_set(e, AI_EXIT_CONFIG, "\"options\" must be an array of "
					    "strings, as on a command line");
		} else if (strcmp(k->string, "schema") == 0) {
			if (!cJSON_IsObject(k) && !(cJSON_IsString(k) && k->valuestring[0]))
				ai_err_set(e, AI_EXIT_CONFIG, "\"schema\" must be a JSON Schema object, "
				    "or the name of a file beside the template");
		} else if (!cJSON_IsString(k)) {
			ai_err_set(e, AI_EXIT_CONFIG, "\"%s\" must be a string", k->string);
		}
		if (e->code != 0) {
			cJSON_Delete(root);
			return NULL;
		}
	}
	return root;
}

/* The template at path, read and checked; the caller names it in an error. */
static cJSON *
read_template(const char *path, struct ai_err *e)
{
	struct ai_buf b = AI_BUF_INIT(AI_TEMPLATE_MAX);
	cJSON *root = NULL;

	if (ai_read_file(path, &b, AI_TEMPLATE_MAX, e) == 0)
		root = ai_template_parse(b.buf, b.len, e);
	ai_buf_release(&b);
	return root;
}

/* "--NAME VALUE" for a setting of the template, when the command has the option. */
static int
setting(const struct ai_command *cmd, const char *key, const char *opt, const char *value,
    struct ai_err *e)
{
	const struct ai_option *o = long_option(cmd, opt + 2);

	if (o == NULL)
		return ai_err_set(e, AI_EXIT_CONFIG, "\"%s\" is not a setting of %s", key,
		    ai_progname);
	push(opt);
	push(value);
	return 0;
}

static int
schema(const struct ai_command *cmd, const cJSON *s, const char *dir, struct ai_err *e)
{
	struct ai_buf b = AI_BUF_INIT(AI_BUF_NOLIMIT);
	static char fdpath[64];

	if (long_option(cmd, "schema") == NULL)
		return ai_err_set(e, AI_EXIT_CONFIG, "\"schema\" is not a setting of %s",
		    ai_progname);
	if (cJSON_IsString(s)) {
		/* a file beside the template, unless the path is absolute */
		if (s->valuestring[0] == '/')
			ai_buf_adds(&b, s->valuestring);
		else
			ai_buf_addf(&b, "%s/%s", dir, s->valuestring);
		used.schema = ai_buf_detach(&b, NULL);
		return setting(cmd, "schema", "--schema", used.schema, e);
	} else {
		char *text = ai_json_print(s);

		used.schema_fd = ai_sealed_file("aicli-template-schema", text, strlen(text), fdpath,
		    sizeof(fdpath), e);
		free(text);
		if (used.schema_fd < 0)
			return -1;
		return setting(cmd, "schema", "--schema", fdpath, e);
	}
}

int
ai_template_args(const struct ai_command *cmd, const char *name, int *argc, char ***argv,
    struct ai_err *e)
{
	static const char *const named[][2] = { { "system", "--system" }, { "model", "--model" },
		{ "provider", "--provider" } };
	struct ai_buf path = AI_BUF_INIT(AI_BUF_NOLIMIT);
	char *dir;
	const cJSON *v;
	size_t i;
	int rc = -1;

	if (used.path != NULL)
		return ai_err_set(e, AI_EXIT_SOFTWARE, "a second template");
	if (!valid_name(name)) {
		char ex[80];

		return ai_err_set(e, AI_EXIT_USAGE, "option '--template': '%s' is not a template name "
		    "(letters, digits, '_' and '-')", ai_excerpt(name, strlen(name), ex, sizeof(ex)));
	}
	if ((dir = folder()) == NULL)
		return ai_err_set(e, AI_EXIT_CONFIG, "no template '%s': neither XDG_CONFIG_HOME nor "
		    "HOME is set, so there is no templates folder", name);
	ai_buf_addf(&path, "%s/%s.json", dir, name);
	used.path = ai_buf_detach(&path, NULL);
	if (access(used.path, F_OK) < 0 && errno == ENOENT) {
		ai_err_set(e, AI_EXIT_CONFIG, "no template '%s': there is no %s (--templates lists "
		    "the templates)", name, used.path);
		goto out;
	}
	if ((used.root = read_template(used.path, e)) == NULL)
		goto failed;
	push(ai_xstrdup(ai_progname));
	for (i = 0; i < AI_ARRAY_SIZE(named); i++)
		if ((v = ai_json_get(used.root, named[i][0])) != NULL &&
		    setting(cmd, named[i][0], named[i][1], v->valuestring, e) < 0)
			goto failed;
	if ((v = ai_json_get(used.root, "schema")) != NULL && schema(cmd, v, dir, e) < 0)
		goto failed;
	cJSON_ArrayForEach(v, ai_json_get(used.root, "options"))
		push(v->valuestring);
	*argc = used.argc;
	*argv = used.argv;
	rc = 0;
	goto out;
failed:
	ai_err_prefix(e, "template '%s' (%s)", name, used.path);
	e->code = AI_EXIT_CONFIG;
out:
	free(dir);
	return rc;
}

const char *
ai_template_path(void)
{
	return used.path;
}

static int
by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int
ai_template_list(FILE *f, struct ai_err *e)
{
	char *dir = folder(), **names = NULL;
	size_t n = 0, i;
	struct dirent *d;
	DIR *dp = dir ? opendir(dir) : NULL;
	int tty = isatty(fileno(f)), rc = 0;

	while (dp != NULL && (d = readdir(dp)) != NULL) {
		size_t len = strlen(d->d_name);

		if (len > 5 && strcmp(d->d_name + len - 5, ".json") == 0) {
			char *name = ai_xmemdup(d->d_name, len - 5);

			if (valid_name(name)) {
				names = ai_xrealloc(names, (n + 1) * sizeof(*names));
				names[n++] = name;
			} else {
				free(name);
			}
		}
	}
	if (dp != NULL)
		closedir(dp);
	if (n > 1)
		qsort(names, n, sizeof(*names), by_name);
	for (i = 0; i < n && rc == 0; i++) {
		struct ai_err te = AI_ERR_INIT;
		struct ai_buf path = AI_BUF_INIT(AI_BUF_NOLIMIT), line = AI_BUF_INIT(AI_BUF_NOLIMIT);
		cJSON *t;
		const char *desc;

		ai_buf_addf(&path, "%s/%s.json", dir, names[i]);
		if ((t = read_template(path.buf, &te)) == NULL) {
			ai_warn("template '%s' (%s): %s", names[i], path.buf, te.msg);
		} else {
			struct ai_buf d = AI_BUF_INIT(AI_BUF_NOLIMIT);
			size_t k;

			/* one line per template: the description's line breaks and tabs are blanks */
			desc = ai_json_str(t, "description");
			ai_buf_adds(&d, desc ? desc : "");
			for (k = 0; k < d.len; k++)
				if ((unsigned char)d.buf[k] < 0x20 || d.buf[k] == 0x7f)
					d.buf[k] = ' ';
			if (tty) {
				ai_buf_addf(&line, "%-16s ", names[i]);
				ai_term_sanitize(&line, d.buf, d.len);
			} else {
				ai_buf_addf(&line, "%s%s%s", names[i], d.len ? "\t" : "", d.buf);
			}
			while (line.len > 0 && line.buf[line.len - 1] == ' ')
				ai_buf_truncate(&line, line.len - 1);
			ai_buf_addc(&line, '\n');
			rc = ai_out_write(f, line.buf, line.len, e);
			ai_buf_release(&d);
			cJSON_Delete(t);
		}
		ai_buf_release(&path);
		ai_buf_release(&line);
	}
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	free(dir);
	if (rc == 0)
		rc = ai_out_flush(f, e);
	return rc;
}
