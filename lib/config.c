/* config.c: configuration file, environment and precedence. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "buf.h"
#include "io.h"
#include "json.h"
#include "num.h"
#include "proc.h"
#include "redact.h"
#include "util.h"
#include "banned.h"

extern char **environ;

#define CONFIG_MAX ((size_t)1 << 20)

/*
 * Every key the file may hold.  'S' is a scalar (a string, or a number kept
 * as its decimal text), 'O' an object.  Secret keys are the ones whose name
 * ends in _key.
 */
static const struct {
	const char *name;
	char kind;
} known_keys[] = {
	{ "anthropic_api_key", 'S' },
	{ "anthropic_base_url", 'S' },
	{ "brave_api_key", 'S' },
	{ "exa_api_key", 'S' },
	{ "gemini_api_key", 'S' },
	{ "google_api_key", 'S' },
	{ "google_cse_cx", 'S' },
	{ "libexec", 'S' },
	{ "max_output", 'S' },
	{ "model", 'S' },
	{ "ollama_host", 'S' },
	{ "openai_api_key", 'S' },
	{ "openai_base_url", 'S' },
	{ "prices", 'O' },
	{ "provider", 'S' },
	{ "retries", 'S' },
	{ "search_base_url", 'S' },
	{ "search_provider", 'S' },
	{ "searxng_url", 'S' },
	{ "tavily_api_key", 'S' },
	{ "timeout", 'S' },
};

static int
is_secret_name(const char *name)
{
	static const char *const suffixes[] = { "_key", "_token", "_secret", "_password" };
	size_t n = strlen(name), i;

	for (i = 0; i < AI_ARRAY_SIZE(suffixes); i++) {
		size_t l = strlen(suffixes[i]);

		if (n >= l && strcasecmp(name + n - l, suffixes[i]) == 0)
			return 1;
	}
	return 0;
}

static char *
candidate(const char *base, const char *tail)
{
	struct ai_buf b = AI_BUF_INIT(AI_BUF_NOLIMIT);

	ai_buf_adds(&b, base);
	ai_buf_adds(&b, tail);
	return ai_buf_detach(&b, NULL);
}

char *
ai_config_dir(void)
{
	const char *home = getenv("HOME"), *xdg = getenv("XDG_CONFIG_HOME");

	if (xdg != NULL && *xdg == '/')
		return candidate(xdg, "/aicli");
	if (home != NULL && *home)
		return candidate(home, "/.config/aicli");
	return NULL;
}

/* $XDG_CONFIG_HOME/aicli/config.json, or under ~/.config; NULL without a home. */
static char *
xdg_file(void)
{
	char *dir = ai_config_dir(), *f;

	if (dir == NULL)
		return NULL;
	f = candidate(dir, "/config.json");
	free(dir);
	return f;
}

/* The file to read: NULL when there is none.  *must says it was named by $AICLI_CONFIG. */
static char *
find_file(int *must)
{
	const char *p = getenv("AICLI_CONFIG"), *home = getenv("HOME");
	char *f;

	*must = 0;
	if (p != NULL && *p) {
		*must = 1;
		return ai_xstrdup(p);
	}
	f = xdg_file();
	if (f != NULL && access(f, F_OK) == 0)
		return f;
	free(f);
	if (home != NULL && *home) {
		f = candidate(home, "/.aicli.json");
		if (access(f, F_OK) == 0)
			return f;
		free(f);
	}
	return NULL;
}

static int
check_keys(struct ai_config *c, int *holds_secret, struct ai_err *e)
{
	cJSON *k;

	*holds_secret = 0;
	for (k = c->file->child; k != NULL; k = k->next) {
		size_t i;
		char ex[64];

		if (strncmp(k->string, "//", 2) == 0)
			continue; /* a comment */
		for (i = 0; i < AI_ARRAY_SIZE(known_keys); i++)
			if (strcmp(known_keys[i].name, k->string) == 0)
				break;
		if (i == AI_ARRAY_SIZE(known_keys))
			return ai_err_set(e, AI_EXIT_CONFIG, "config file '%s': unknown key '%s'",
			    c->path, ai_excerpt(k->string, strlen(k->string), ex, sizeof(ex)));
		if (known_keys[i].kind == 'O') {
			if (!cJSON_IsObject(k))
				return ai_err_set(e, AI_EXIT_CONFIG,
				    "config file '%s': '%s' must be an object", c->path, k->string);
			continue;
		}
		if (cJSON_IsNumber(k)) {
			/* Keep numbers as the text the user wrote them as, near enough. */
			char num[64];
			cJSON *s;

			snprintf(num, sizeof(num), "%.17g", k->valuedouble);
			s = cJSON_CreateString(num);
			/* copies the key before the old item (and k->string) is freed */
			cJSON_ReplaceItemInObjectCaseSensitive(c->file, k->string, s);
			k = s;
			continue;
		}
		if (!cJSON_IsString(k))
			return ai_err_set(e, AI_EXIT_CONFIG,
			    "config file '%s': '%s' must be a string", c->path, k->string);
		if (is_secret_name(k->string) && k->valuestring[0]) {
			*holds_secret = 1;
			ai_secret_add(k->valuestring);
		}
	}
	return 0;
}

static void
register_env_secrets(void)
{
	char **v;

	for (v = environ; v != NULL && *v != NULL; v++) {
		const char *eq = strchr(*v, '=');
		char name[128];
		size_t n;

		if (eq == NULL || (n = (size_t)(eq - *v)) >= sizeof(name))
			continue;
		memcpy(name, *v, n);
		name[n] = '\0';
		if (is_secret_name(name))
			ai_secret_add(eq + 1);
	}
}

int
ai_config_load(struct ai_config *c, struct ai_err *e)
{
	struct ai_buf b = AI_BUF_INIT(CONFIG_MAX);
	struct stat st;
	int must, fd, secret;

	register_env_secrets();
	c->path = find_file(&must);
	c->file = NULL;
	if (c->path == NULL)
		return 0;
	fd = open(c->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0) {
		if (errno == ENOENT && !must) {
			free(c->path);
			c->path = NULL;
			return 0;
		}
		return ai_err_set(e, AI_EXIT_CONFIG, "cannot open config file '%s': %s", c->path,
		    strerror(errno));
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return ai_err_set(e, AI_EXIT_CONFIG, "config file '%s' is not a regular file", c->path);
	}
	if (ai_read_fd(fd, &b, "config file", e) < 0) {
		close(fd);
		ai_buf_release(&b);
		e->code = AI_EXIT_CONFIG;
		return -1;
	}
	close(fd);
	c->file = ai_json_parse(b.buf, b.len, e);
	ai_buf_release(&b);
	if (c->file == NULL) {
		ai_err_prefix(e, "config file '%s'", c->path);
		e->code = AI_EXIT_CONFIG;
		return -1;
	}
	if (!cJSON_IsObject(c->file))
		return ai_err_set(e, AI_EXIT_CONFIG, "config file '%s' must hold a JSON object",
		    c->path);
	if (check_keys(c, &secret, e) < 0)
		return -1;
	if (st.st_mode & (S_IWGRP | S_IWOTH))
		return ai_err_set(e, AI_EXIT_CONFIG,
		    "config file '%s' can be changed by other users; run: chmod go-w '%s'",
		    c->path, c->path);
	if (secret && (st.st_mode & (S_IRGRP | S_IROTH)))
		return ai_err_set(e, AI_EXIT_CONFIG,
		    "config file '%s' holds an API key and can be read by other users; run: chmod 600 '%s'",
		    c->path, c->path);
	return 0;
}

void
ai_config_free(struct ai_config *c)
{
	free(c->path);
	cJSON_Delete(c->file);
	c->path = NULL;
	c->file = NULL;
}

const char *
ai_config_get(const struct ai_config *c, const char *flag, const char *flagname,
    const char *const *envs, const char *key, const char *def, const char **from)
{
	const char *dummy, *v;
	size_t i;

	if (from == NULL)
		from = &dummy;
	if (flag != NULL) {
		*from = flagname ? flagname : "command line";
		return flag;
	}
	for (i = 0; envs != NULL && envs[i] != NULL; i++) {
		v = getenv(envs[i]);
		if (v != NULL && *v) {
			*from = envs[i]; /* callers print it as $NAME */
			return v;
		}
	}
	if (key != NULL && c != NULL && c->file != NULL) {
		v = ai_json_str(c->file, key);
		if (v != NULL && *v) {
			*from = "config file";
			return v;
		}
	}
	*from = "default";
	return def;
}

const cJSON *
ai_config_object(const struct ai_config *c, const char *key)
{
	const cJSON *v;

	if (c == NULL || c->file == NULL)
		return NULL;
	v = ai_json_get(c->file, key);
	return cJSON_IsObject(v) ? v : NULL;
}

int
ai_config_bad(const struct ai_config *c, const char *from, const char *key, const char *value,
    const char *why, struct ai_err *e)
{
	char ex[80];

	ai_excerpt(value, strlen(value), ex, sizeof(ex));
	if (from[0] == '-')
		return ai_err_set(e, AI_EXIT_USAGE, "option '%s': '%s' %s", from, ex, why);
	if (strcmp(from, "config file") == 0)
		return ai_err_set(e, AI_EXIT_CONFIG, "config file '%s': %s: '%s' %s",
		    c != NULL && c->path != NULL ? c->path : "?", key, ex, why);
	return ai_err_set(e, AI_EXIT_CONFIG, "$%s: '%s' %s", from, ex, why);
}

int
ai_config_seconds(const struct ai_config *c, const char *flag, const char *flagname,
    const char *const *envs, const char *key, double def, double min, double max, int64_t *ms,
    struct ai_err *e)
{
	const char *from, *why, *v = ai_config_get(c, flag, flagname, envs, key, NULL, &from);
	double d = def;
	char msg[96];

	if (v != NULL && ai_parse_double(v, min, max, &d, &why) < 0) {
		snprintf(msg, sizeof(msg), "is not a number of seconds from %g to %g", min, max);
		return ai_config_bad(c, from, key, v, msg, e);
	}
	*ms = (int64_t)(d * 1000 + 0.5);
	return 0;
}

int
ai_config_count(const struct ai_config *c, const char *flag, const char *flagname,
    const char *const *envs, const char *key, uint64_t def, uint64_t min, uint64_t max,
    uint64_t *out, struct ai_err *e)
{
	const char *from, *why, *v = ai_config_get(c, flag, flagname, envs, key, NULL, &from);
	uint64_t n = def;
	char msg[96];

	if (v != NULL && ai_parse_u64(v, min, max, &n, &why) < 0) {
		snprintf(msg, sizeof(msg), "is not a whole number from %llu to %llu",
		    (unsigned long long)min, (unsigned long long)max);
		return ai_config_bad(c, from, key, v, msg, e);
	}
	*out = n;
	return 0;
}

/* The file read, or the first the tools would read; *exists says whether it is there. */
static const char *
where(const struct ai_config *c, char *buf, size_t n, int *exists)
{
	const char *p = getenv("AICLI_CONFIG");
	char *f;

	*exists = 1;
	if (c != NULL && c->path != NULL) {
		snprintf(buf, n, "%s", c->path);
		return buf;
	}
	if (p != NULL && *p)
		f = ai_xstrdup(p);
	else if ((f = xdg_file()) == NULL)
		f = ai_xstrdup("~/.config/aicli/config.json");
	*exists = access(f, F_OK) == 0;
	snprintf(buf, n, "%s", f);
	free(f);
	return buf;
}

const char *
ai_config_example(void)
{
	static char path[PATH_MAX];
	char *p = ai_beside_self("../share/doc/aicli/examples/config.json", R_OK);

	/* without the "bin/.." */
	if (p == NULL || realpath(p, path) == NULL) {
		free(p);
		return NULL;
	}
	free(p);
	return path;
}

const char *
ai_config_hint(const struct ai_config *c, char *buf, size_t n)
{
	char path[1024];
	const char *ex = ai_config_example();
	int exists;

	where(c, path, sizeof(path), &exists);
	if (exists)
		snprintf(buf, n, "%s", path);
	else if (ex != NULL)
		snprintf(buf, n, "%s (not created yet; an example is %s)", path, ex);
	else
		snprintf(buf, n, "%s (not created yet; see aicli(7))", path);
	return buf;
}
