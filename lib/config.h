/*
 * config.h: settings by precedence: command-line flag > environment >
 * configuration file > default.
 *
 * The file is $AICLI_CONFIG if that is set (it must then exist), else
 * $XDG_CONFIG_HOME/aicli/config.json (XDG_CONFIG_HOME defaulting to
 * ~/.config), else ~/.aicli.json; the first of those that exists.  It is a
 * JSON object whose keys are the environment names in lower case without an
 * "AICLI_" prefix: AICLI_MODEL is "model", OPENAI_API_KEY and
 * AICLI_OPENAI_API_KEY are "openai_api_key".  An unknown key is an error
 * (a typo must not silently fall back to a default), and so is a file that
 * holds a key while other users can read it, or that other users can change.
 *
 * Every secret the configuration can hold (file values and environment
 * variables named *_API_KEY, *_TOKEN, *_SECRET) is registered with the
 * redactor (redact.h) when the configuration is loaded.
 */
#ifndef AI_CONFIG_H
#define AI_CONFIG_H

#include <cjson/cJSON.h>

#include "err.h"

struct ai_config {
	char *path;  /* the file that was read, or NULL */
	cJSON *file; /* its object, or NULL */
};

#define AI_CONFIG_INIT { NULL, NULL }

/* Find and read the configuration file, if any.  Errors are AI_EXIT_CONFIG. */
int ai_config_load(struct ai_config *c, struct ai_err *e);
void ai_config_free(struct ai_config *c);

/*
 * The value of a setting: flag if not NULL, else the first set and non-empty
 * variable of envs (NULL-terminated), else the file's value for key (key may
 * be NULL), else def.  *from (when from is not NULL) names the source for
 * messages: flagname, the variable's name (print it as $NAME), "config file"
 * or "default".  The result is borrowed.
 */
const char *ai_config_get(const struct ai_config *c, const char *flag, const char *flagname,
    const char *const *envs, const char *key, const char *def, const char **from);

/* An object-valued key of the file (e.g. "prices"), or NULL. */
const cJSON *ai_config_object(const struct ai_config *c, const char *key);

/* The file key for an environment name ("AICLI_MODEL" -> "model"), into out. */
void ai_config_key_for_env(const char *env, char *out, size_t outsz);

#endif
