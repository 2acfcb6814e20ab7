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
 * Top-level keys that begin with "//" are comments: any value, ignored.
 *
 * Every secret the configuration can hold (file values and environment
 * variables named *_API_KEY, *_TOKEN, *_SECRET) is registered with the
 * redactor (redact.h) when the configuration is loaded.
 */
#ifndef AI_CONFIG_H
#define AI_CONFIG_H

#include <stdint.h>
#include <cjson/cJSON.h>

#include "err.h"

struct ai_config {
	char *path;  /* the file that was read, or NULL */
	cJSON *file; /* its object, or NULL */
};

#define AI_CONFIG_INIT { NULL, NULL }

/*
 * The suite's folder of settings: $XDG_CONFIG_HOME/aicli (XDG_CONFIG_HOME
 * defaulting to ~/.config), to free(); NULL when there is no home.
 */
char *ai_config_dir(void);

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

/*
 * The error for a bad value of a setting, worded by where it came from (from
 * is what ai_config_get gave): a usage error from a flag, "option '--timeout':
 * 'x' WHY"; a configuration error otherwise, "$AICLI_TIMEOUT: 'x' WHY" or
 * "config file 'PATH': timeout: 'x' WHY".  Returns -1.
 */
int ai_config_bad(const struct ai_config *c, const char *from, const char *key, const char *value,
    const char *why, struct ai_err *e);

/*
 * Numeric settings by the same precedence, checked, with ai_config_bad's
 * errors: a number of seconds (fractions allowed) from min to max, given back
 * in milliseconds; a whole number from min to max.
 */
int ai_config_seconds(const struct ai_config *c, const char *flag, const char *flagname,
    const char *const *envs, const char *key, double def, double min, double max, int64_t *ms,
    struct ai_err *e);
int ai_config_count(const struct ai_config *c, const char *flag, const char *flagname,
    const char *const *envs, const char *key, uint64_t def, uint64_t min, uint64_t max,
    uint64_t *out, struct ai_err *e);

/*
 * The example configuration installed beside the running executable
 * (PREFIX/share/doc/aicli/examples/config.json for PREFIX/bin/TOOL), or NULL.
 */
const char *ai_config_example(void);
/*
 * The file to name in a message that tells the user where to put a
 * setting: the one that was read, else the first the tools would read
 * ($AICLI_CONFIG, else $XDG_CONFIG_HOME/aicli/config.json or
 * ~/.config/aicli/config.json), and when that does not exist yet, "PATH (not
 * created yet; an example is EXAMPLE)".  The result is buf.
 */
const char *ai_config_hint(const struct ai_config *c, char *buf, size_t n);

/* An object-valued key of the file (e.g. "prices"), or NULL. */
const cJSON *ai_config_object(const struct ai_config *c, const char *key);

#endif
