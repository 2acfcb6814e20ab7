/*
 * profiles.h: the model providers the suite knows by name.
 *
 * A profile is an adapter (the API it speaks), a base URL, the environment
 * variables that hold its key and its base URL, and a default model.  Each
 * profile has keys of its own: DEEPSEEK_API_KEY is only ever sent to the
 * base URL of the deepseek profile, never to another profile's host.  The
 * configuration file may add profiles or change these in its "providers"
 * object (ai-ask reads it).  ai-ask resolves a profile; lib/config.c knows
 * the flat configuration keys it implies ("deepseek_api_key",
 * "deepseek_base_url"); ai-loop lets the variables reach ai-ask and no
 * other child.
 */
#ifndef AI_PROFILES_H
#define AI_PROFILES_H

#include <stddef.h>

enum {
	AI_PROFILE_KEYLESS_LOOPBACK = 1, /* no key needed when the base URL is a loopback address */
	AI_PROFILE_NO_KEY = 2,           /* never a key */
	AI_PROFILE_HOST_ONLY = 4,        /* the base may be "host" or "host:port" (OLLAMA_HOST) */
	AI_PROFILE_NO_IMAGES = 8         /* the API takes no image input */
};

struct ai_profile {
	const char *name;     /* "deepseek" */
	const char *adapter;  /* "openai", "openai-chat", "anthropic", "gemini" or "ollama" */
	const char *base_url; /* the default */
	const char *key_env;  /* "DEEPSEEK_API_KEY", or NULL */
	const char *key_env2; /* a second accepted name, or NULL */
	const char *base_env; /* "DEEPSEEK_BASE_URL" */
	const char *model;    /* the default model */
	unsigned flags;       /* AI_PROFILE_* */
};

extern const struct ai_profile ai_profiles[];
extern const size_t ai_nprofiles;

/* The built-in profile of that name, or NULL. */
const struct ai_profile *ai_profile_find(const char *name);
/* Whether name is a variable of some profile (its key or base URL). */
int ai_profile_env_var(const char *name);
/* Whether key is a flat configuration key of some profile: a variable's name in lower case. */
int ai_profile_config_key(const char *key);

#endif
