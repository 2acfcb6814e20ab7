/* profiles.c: the built-in model provider profiles. */
#include <string.h>

#include "profiles.h"
#include "util.h"
#include "banned.h"

/*
 * The base URLs and key variables are those of each provider's own API
 * documentation; the Chinese providers' are their mainland endpoints.
 */
const struct ai_profile ai_profiles[] = {
	{ "openai", "openai", "https://api.openai.com/v1", "OPENAI_API_KEY", "AICLI_OPENAI_API_KEY",
	  "OPENAI_BASE_URL", "gpt-4.1-mini", 0 },
	{ "openai-chat", "openai-chat", "https://api.openai.com/v1", "OPENAI_API_KEY",
	  "AICLI_OPENAI_API_KEY", "OPENAI_BASE_URL", "gpt-4.1-mini", AI_PROFILE_KEYLESS_LOOPBACK },
	{ "anthropic", "anthropic", "https://api.anthropic.com", "ANTHROPIC_API_KEY", NULL,
	  "ANTHROPIC_BASE_URL", "claude-haiku-4-5", 0 },
	{ "gemini", "gemini", "https://generativelanguage.googleapis.com", "GEMINI_API_KEY", NULL,
	  "GEMINI_BASE_URL", "gemini-2.5-flash", 0 },
	{ "ollama", "ollama", "http://127.0.0.1:11434", NULL, NULL, "OLLAMA_HOST", "llama3.2",
	  AI_PROFILE_NO_KEY | AI_PROFILE_HOST_ONLY },
	{ "deepseek", "openai-chat", "https://api.deepseek.com", "DEEPSEEK_API_KEY", NULL,
	  "DEEPSEEK_BASE_URL", "deepseek-chat", AI_PROFILE_NO_IMAGES },
	{ "qwen", "openai-chat", "https://dashscope.aliyuncs.com/compatible-mode/v1",
	  "DASHSCOPE_API_KEY", NULL, "DASHSCOPE_BASE_URL", "qwen-plus", 0 },
	{ "glm", "openai-chat", "https://open.bigmodel.cn/api/paas/v4", "ZHIPUAI_API_KEY",
	  "ZHIPU_API_KEY", "ZHIPUAI_BASE_URL", "glm-4-flash", 0 },
	{ "kimi", "openai-chat", "https://api.moonshot.cn/v1", "MOONSHOT_API_KEY", NULL,
	  "MOONSHOT_BASE_URL", "moonshot-v1-8k", 0 },
	{ "doubao", "openai-chat", "https://ark.cn-beijing.volces.com/api/v3", "ARK_API_KEY", NULL,
	  "ARK_BASE_URL", "doubao-seed-1-6-250615", 0 },
	{ "stepfun", "openai-chat", "https://api.stepfun.com/v1", "STEPFUN_API_KEY", NULL,
	  "STEPFUN_BASE_URL", "step-1-8k", 0 },
	{ "yi", "openai-chat", "https://api.lingyiwanwu.com/v1", "YI_API_KEY", NULL, "YI_BASE_URL",
	  "yi-lightning", 0 },
	{ "baichuan", "openai-chat", "https://api.baichuan-ai.com/v1", "BAICHUAN_API_KEY", NULL,
	  "BAICHUAN_BASE_URL", "Baichuan4-Turbo", 0 },
	{ "minimax", "openai-chat", "https://api.minimax.chat/v1", "MINIMAX_API_KEY", NULL,
	  "MINIMAX_BASE_URL", "MiniMax-M1", 0 },
	{ "groq", "openai-chat", "https://api.groq.com/openai/v1", "GROQ_API_KEY", NULL,
	  "GROQ_BASE_URL", "llama-3.3-70b-versatile", 0 },
	{ "openrouter", "openai-chat", "https://openrouter.ai/api/v1", "OPENROUTER_API_KEY", NULL,
	  "OPENROUTER_BASE_URL", "openrouter/auto", 0 },
	{ "together", "openai-chat", "https://api.together.xyz/v1", "TOGETHER_API_KEY", NULL,
	  "TOGETHER_BASE_URL", "meta-llama/Llama-3.3-70B-Instruct-Turbo", 0 },
	{ "mistral", "openai-chat", "https://api.mistral.ai/v1", "MISTRAL_API_KEY", NULL,
	  "MISTRAL_BASE_URL", "mistral-small-latest", 0 },
	{ "xai", "openai-chat", "https://api.x.ai/v1", "XAI_API_KEY", NULL, "XAI_BASE_URL",
	  "grok-3-mini", 0 },
};

const size_t ai_nprofiles = AI_ARRAY_SIZE(ai_profiles);

const struct ai_profile *
ai_profile_find(const char *name)
{
	size_t i;

	for (i = 0; i < ai_nprofiles; i++)
		if (strcmp(ai_profiles[i].name, name) == 0)
			return &ai_profiles[i];
	return NULL;
}

int
ai_profile_env_var(const char *name)
{
	size_t i;

	for (i = 0; i < ai_nprofiles; i++) {
		const struct ai_profile *p = &ai_profiles[i];

		if ((p->key_env && strcmp(p->key_env, name) == 0) ||
		    (p->key_env2 && strcmp(p->key_env2, name) == 0) ||
		    strcmp(p->base_env, name) == 0)
			return 1;
	}
	return 0;
}

/* Whether key is the variable's name in lower case ("deepseek_api_key"). */
static int
lower_of(const char *var, const char *key)
{
	if (var == NULL)
		return 0;
	for (; *var && *key; var++, key++)
		if (*key != (*var >= 'A' && *var <= 'Z' ? *var - 'A' + 'a' : *var))
			return 0;
	return *var == '\0' && *key == '\0';
}

int
ai_profile_config_key(const char *key)
{
	size_t i;

	/* AICLI_OPENAI_API_KEY is "openai_api_key", like OPENAI_API_KEY: no key of its own */
	for (i = 0; i < ai_nprofiles; i++)
		if (lower_of(ai_profiles[i].key_env, key) || lower_of(ai_profiles[i].base_env, key) ||
		    (ai_profiles[i].key_env2 != NULL && strncmp(ai_profiles[i].key_env2, "AICLI_", 6) != 0 &&
		    lower_of(ai_profiles[i].key_env2, key)))
			return 1;
	return 0;
}
