/* Unit tests: config.h. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "json.h"
#include "redact.h"
#include "t.h"

static char dir[] = "/tmp/aicli-config-XXXXXX";

static void
write_file(const char *path, const char *text, mode_t mode)
{
	FILE *f = fopen(path, "w");

	fputs(text, f);
	fclose(f);
	chmod(path, mode);
}

static int
load(struct ai_config *c, struct ai_err *e)
{
	ai_config_free(c);
	ai_err_clear(e);
	return ai_config_load(c, e);
}

int
main(void)
{
	static const char *const model_env[] = { "AICLI_MODEL", NULL };
	static const char *const key_env[] = { "OPENAI_API_KEY", "AICLI_OPENAI_API_KEY", NULL };
	struct ai_config c = AI_CONFIG_INIT;
	struct ai_err e = AI_ERR_INIT;
	char path[256], xdgdir[256];
	const char *from, *v;

	ai_json_init();
	CHECK(mkdtemp(dir) != NULL);
	unsetenv("AICLI_CONFIG");
	unsetenv("XDG_CONFIG_HOME");
	unsetenv("AICLI_MODEL");
	unsetenv("OPENAI_API_KEY");
	unsetenv("AICLI_OPENAI_API_KEY");
	setenv("HOME", dir, 1);

	/* no file at all: defaults */
	CHECK_INT(load(&c, &e), 0);
	CHECK(c.path == NULL);
	v = ai_config_get(&c, NULL, "--model", model_env, "model", "gpt-4.1-mini", &from);
	CHECK_STR(v, "gpt-4.1-mini");
	CHECK_STR(from, "default");

	/* ~/.aicli.json, then precedence flag > env > file > default */
	snprintf(path, sizeof(path), "%s/.aicli.json", dir);
	write_file(path, "{\"model\":\"from-file\",\"timeout\":30,\"openai_api_key\":\"sk-file-0123456789abcdef\"}",
	    0600);
	CHECK_INT(load(&c, &e), 0);
	CHECK_STR(c.path, path);
	v = ai_config_get(&c, NULL, "--model", model_env, "model", "d", &from);
	CHECK_STR(v, "from-file");
	CHECK_STR(from, "config file");
	CHECK_STR(ai_config_get(&c, NULL, NULL, NULL, "timeout", NULL, NULL), "30");
	setenv("AICLI_MODEL", "from-env", 1);
	v = ai_config_get(&c, NULL, "--model", model_env, "model", "d", &from);
	CHECK_STR(v, "from-env");
	CHECK_STR(from, "AICLI_MODEL");
	setenv("AICLI_MODEL", "", 1); /* empty counts as unset */
	CHECK_STR(ai_config_get(&c, NULL, "--model", model_env, "model", "d", NULL), "from-file");
	v = ai_config_get(&c, "from-flag", "--model", model_env, "model", "d", &from);
	CHECK_STR(v, "from-flag");
	CHECK_STR(from, "--model");
	/* a second environment name for the same setting */
	setenv("AICLI_OPENAI_API_KEY", "sk-aicli-env-0123456789", 1);
	CHECK_STR(ai_config_get(&c, NULL, NULL, key_env, "openai_api_key", NULL, NULL),
	    "sk-aicli-env-0123456789");
	setenv("OPENAI_API_KEY", "sk-openai-env-0123456789", 1);
	CHECK_INT(load(&c, &e), 0);
	CHECK_STR(ai_config_get(&c, NULL, NULL, key_env, "openai_api_key", NULL, NULL),
	    "sk-openai-env-0123456789");
	/* every key that was loaded is redacted by value */
	{
		char *r = ai_redact_str("a sk-file-0123456789abcdef b sk-openai-env-0123456789");

		CHECK_STR(r, "a [REDACTED] b [REDACTED]");
		free(r);
	}
	unsetenv("OPENAI_API_KEY");
	unsetenv("AICLI_OPENAI_API_KEY");

	/* a key in a file others can read: refused, with the chmod to run */
	chmod(path, 0644);
	CHECK_INT(load(&c, &e), -1);
	CHECK_INT(e.code, AI_EXIT_CONFIG);
	CHECK(strstr(e.msg, "holds an API key and can be read by other users") != NULL);
	CHECK(strstr(e.msg, "run: chmod 600 '") != NULL);
	/* without a key, 0644 is fine */
	write_file(path, "{\"model\":\"m\"}", 0644);
	CHECK_INT(load(&c, &e), 0);
	/* a file others can change is refused even without a key */
	chmod(path, 0666);
	CHECK_INT(load(&c, &e), -1);
	CHECK(strstr(e.msg, "can be changed by other users; run: chmod go-w") != NULL);
	chmod(path, 0600);

	/* unknown keys, wrong types, bad JSON */
	write_file(path, "{\"modle\":\"x\"}", 0600);
	CHECK_INT(load(&c, &e), -1);
	CHECK(strstr(e.msg, "unknown key 'modle'") != NULL);
	write_file(path, "{\"model\":[1]}", 0600);
	CHECK_INT(load(&c, &e), -1);
	CHECK(strstr(e.msg, "'model' must be a string") != NULL);
	write_file(path, "{\"prices\":\"cheap\"}", 0600);
	CHECK_INT(load(&c, &e), -1);
	write_file(path, "{\n\"model\": \"x\",\n}", 0600);
	CHECK_INT(load(&c, &e), -1);
	CHECK(strstr(e.msg, "line 3, column 1: trailing comma") != NULL);
	CHECK_INT(e.code, AI_EXIT_CONFIG);
	write_file(path, "[]", 0600);
	CHECK_INT(load(&c, &e), -1);
	write_file(path, "{\"prices\":{\"m\":{\"input\":1}}}", 0600);
	CHECK_INT(load(&c, &e), 0);
	CHECK(ai_config_object(&c, "prices") != NULL);
	CHECK(ai_config_object(&c, "model") == NULL);

	/* XDG comes before ~/.aicli.json */
	snprintf(xdgdir, sizeof(xdgdir), "%s/xdg", dir);
	mkdir(xdgdir, 0700);
	snprintf(xdgdir, sizeof(xdgdir), "%s/xdg/aicli", dir);
	mkdir(xdgdir, 0700);
	*strrchr(xdgdir, '/') = '\0';
	setenv("XDG_CONFIG_HOME", xdgdir, 1);
	{
		char xp[300];

		snprintf(xp, sizeof(xp), "%s/aicli/config.json", xdgdir);
		write_file(xp, "{\"model\":\"xdg\"}", 0600);
		CHECK_INT(load(&c, &e), 0);
		CHECK_STR(ai_config_get(&c, NULL, NULL, NULL, "model", NULL, NULL), "xdg");
		unlink(xp);
	}
	/* $AICLI_CONFIG wins, and must exist */
	setenv("AICLI_CONFIG", path, 1);
	CHECK_INT(load(&c, &e), 0);
	CHECK_STR(c.path, path);
	{
		char missing[300];

		snprintf(missing, sizeof(missing), "%s/nope.json", dir);
		setenv("AICLI_CONFIG", missing, 1);
		CHECK_INT(load(&c, &e), -1);
		CHECK(strstr(e.msg, "cannot open config file") != NULL);
		setenv("AICLI_CONFIG", dir, 1);
		CHECK_INT(load(&c, &e), -1);
		CHECK(strstr(e.msg, "not a regular file") != NULL);
	}
	/* numeric settings: checked, errors worded by their source */
	{
		static const char *const tenv[] = { "AICLI_TIMEOUT", NULL };
		static const char *const renv[] = { "AICLI_RETRIES", NULL };
		int64_t ms;
		uint64_t n;

		unsetenv("AICLI_CONFIG");
		unsetenv("XDG_CONFIG_HOME");
		write_file(path, "{\"timeout\":\"soon\",\"retries\":4}", 0600);
		CHECK_INT(load(&c, &e), 0);
		CHECK_INT(ai_config_seconds(&c, "1.5", "--timeout", tenv, "timeout", 30, 0.1, 60, &ms, &e), 0);
		CHECK_INT(ms, 1500);
		CHECK_INT(ai_config_seconds(&c, "0", "--timeout", tenv, "timeout", 30, 0.1, 60, &ms, &e), -1);
		CHECK_INT(e.code, AI_EXIT_USAGE);
		CHECK_STR(e.msg, "option '--timeout': '0' is not a number of seconds from 0.1 to 60");
		setenv("AICLI_TIMEOUT", "2x", 1);
		CHECK_INT(ai_config_seconds(&c, NULL, "--timeout", tenv, "timeout", 30, 0.1, 60, &ms, &e), -1);
		CHECK_INT(e.code, AI_EXIT_CONFIG);
		CHECK_STR(e.msg, "$AICLI_TIMEOUT: '2x' is not a number of seconds from 0.1 to 60");
		unsetenv("AICLI_TIMEOUT");
		CHECK_INT(ai_config_seconds(&c, NULL, "--timeout", tenv, "timeout", 30, 0.1, 60, &ms, &e), -1);
		CHECK(strstr(e.msg, "config file '") != NULL);
		CHECK(strstr(e.msg, "': timeout: 'soon' is not a number of seconds from 0.1 to 60") != NULL);
		CHECK_INT(ai_config_count(&c, NULL, "--retries", renv, "retries", 3, 0, 10, &n, &e), 0);
		CHECK_INT(n, 4);
		CHECK_INT(ai_config_count(&c, "11", "--retries", renv, "retries", 3, 0, 10, &n, &e), -1);
		CHECK_STR(e.msg, "option '--retries': '11' is not a whole number from 0 to 10");
		write_file(path, "{}", 0600);
		CHECK_INT(load(&c, &e), 0);
		CHECK_INT(ai_config_seconds(&c, NULL, "--timeout", tenv, "timeout", 30, 0.1, 60, &ms, &e), 0);
		CHECK_INT(ms, 30000);
		CHECK_INT(ai_config_count(&c, NULL, "--retries", renv, "retries", 3, 0, 10, &n, &e), 0);
		CHECK_INT(n, 3);
	}
	/* comments, and the file a message names */
	{
		char hint[2048], want[600];

		write_file(path, "{\"//\": \"x\", \"//model\": [1, {}], \"model\": \"m\"}", 0600);
		CHECK_INT(load(&c, &e), 0);
		CHECK_STR(ai_config_get(&c, NULL, NULL, NULL, "model", NULL, NULL), "m");
		CHECK_STR(ai_config_hint(&c, hint, sizeof(hint)), path);
		write_file(path, "{\"/model\": \"x\"}", 0600);
		CHECK_INT(load(&c, &e), -1);
		CHECK(strstr(e.msg, "unknown key '/model'") != NULL);
		/* no file: the first one the tools would read, said not to exist yet */
		unlink(path);
		CHECK_INT(load(&c, &e), 0);
		snprintf(want, sizeof(want), "%s/.config/aicli/config.json (not created yet; see aicli(7))",
		    dir);
		CHECK_STR(ai_config_hint(&c, hint, sizeof(hint)), want);
		setenv("XDG_CONFIG_HOME", "/nonexistent-xdg", 1);
		CHECK_STR(ai_config_hint(&c, hint, sizeof(hint)),
		    "/nonexistent-xdg/aicli/config.json (not created yet; see aicli(7))");
		setenv("AICLI_CONFIG", "/nonexistent-mine.json", 1);
		CHECK_STR(ai_config_hint(&c, hint, sizeof(hint)),
		    "/nonexistent-mine.json (not created yet; see aicli(7))");
		unsetenv("AICLI_CONFIG");
		unsetenv("XDG_CONFIG_HOME");
		/* the test program is not installed: no example beside it */
		CHECK(ai_config_example() == NULL);
	}
	ai_config_free(&c);
	ai_secret_clear();
	{
		char cmd[512];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		CHECK_INT(system(cmd), 0);
	}
	T_DONE();
}
