/* digest.c: tool-result digests, trimmed search results, drop notes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "digest.h"
#include "json.h"
#include "record.h"
#include "redact.h"
#include "text.h"
#include "util.h"
#include "banned.h"

size_t
ac_tail_start(const char *s, size_t n, uint64_t lines, size_t max_bytes)
{
	size_t p = n, start;
	uint64_t seen = 0;

	if (lines == 0)
		return n;
	if (p > 0 && s[p - 1] == '\n')
		p--; /* the final LF ends the last line; it does not begin another */
	start = 0;
	while (p > 0) {
		if (s[p - 1] == '\n' && ++seen == lines) {
			start = p;
			break;
		}
		p--;
	}
	if (n - start > max_bytes)
		start = ai_utf8_start(s, n, n - max_bytes);
	return start;
}

int
ac_tail_text(struct ai_buf *out, const char *s, size_t n, uint64_t lines)
{
	struct ai_buf a = AI_BUF_INIT(AI_BUF_NOLIMIT), b = AI_BUF_INIT(AI_BUF_NOLIMIT);
	size_t start;
	int cut = 0, round;

	/*
	 * Redact first, then cut, so that a "[REDACTED]" longer than what it
	 * replaced cannot push the text past its limit.  A cut can in principle
	 * expose a new match at the start (a token that began inside a word);
	 * a few rounds reach the fixed point that keeps digests idempotent.
	 */
	ai_redact(&a, s, n);
	for (round = 0; round < 4; round++) {
		start = ac_tail_start(a.buf, a.len, lines, AC_TAIL_MAX_BYTES);
		if (start == 0)
			break;
		cut = 1;
		ai_buf_reset(&b);
		ai_redact(&b, a.buf + start, a.len - start);
		ai_buf_release(&a);
		a = b;
		ai_buf_init(&b, AI_BUF_NOLIMIT);
		if (ac_tail_start(a.buf, a.len, lines, AC_TAIL_MAX_BYTES) == 0)
			break;
	}
	ai_buf_add(out, a.buf, a.len);
	ai_buf_release(&a);
	ai_buf_release(&b);
	return cut;
}

/* Members of a tool result that a digest copies as they are. */
static int
kept_as_is(const char *key)
{
	static const char *const keys[] = { "type", "id", "name", "ok", "error_kind", "exit_code" };
	size_t i;

	for (i = 0; i < AI_ARRAY_SIZE(keys); i++)
		if (strcmp(key, keys[i]) == 0)
			return 1;
	return 0;
}

cJSON *
ac_digest_tool_result(const cJSON *rec, uint64_t lines)
{
	cJSON *d = cJSON_CreateObject(), *truncated = NULL;
	const cJSON *m;
	int cut = 0;

	for (m = rec->child; m != NULL; m = m->next) {
		if (strcmp(m->string, "truncated") == 0) {
			truncated = cJSON_Duplicate(m, 1);
			cJSON_AddItemToObject(d, m->string, truncated);
		} else if (kept_as_is(m->string) || cJSON_IsNumber(m) || cJSON_IsBool(m) ||
		    cJSON_IsNull(m)) {
			cJSON_AddItemToObject(d, m->string, cJSON_Duplicate(m, 1));
		} else if (cJSON_IsString(m)) {
			struct ai_buf t = AI_BUF_INIT(AI_BUF_NOLIMIT);

			cut |= ac_tail_text(&t, m->valuestring, strlen(m->valuestring), lines);
			ai_json_addstrn(d, m->string, t.buf, t.len);
			ai_buf_release(&t);
		} else {
			char *s = ai_json_print(m);

			if (strlen(s) <= AC_DIGEST_MAX_VALUE)
				cJSON_AddItemToObject(d, m->string, cJSON_Duplicate(m, 1));
			else
				cut = 1;
			free(s);
		}
	}
	if (cut) {
		if (truncated != NULL)
			cJSON_ReplaceItemInObjectCaseSensitive(d, "truncated", cJSON_CreateTrue());
		else
			ai_json_addbool(d, "truncated", 1);
	}
	return d;
}

cJSON *
ac_trim_search_result(const cJSON *rec)
{
	static const char *const keys[] = { "type", "query", "rank", "title", "url" };
	cJSON *d = cJSON_CreateObject();
	const cJSON *m;
	size_t i;

	for (m = rec->child; m != NULL; m = m->next)
		for (i = 0; i < AI_ARRAY_SIZE(keys); i++)
			if (strcmp(m->string, keys[i]) == 0)
				cJSON_AddItemToObject(d, m->string, cJSON_Duplicate(m, 1));
	return d;
}

static void
note_text(char *out, size_t outsz, uint64_t n)
{
	snprintf(out, outsz, "%llu earlier record%s dropped to fit the token budget.",
	    (unsigned long long)n, n == 1 ? " was" : "s were");
}

cJSON *
ac_summary_record(const char *content, const cJSON *key_facts, const cJSON *open_tasks,
    uint64_t replaces)
{
	cJSON *r = ai_record_new("summary");

	ai_json_addstr(r, "content", content);
	cJSON_AddItemToObject(r, "key_facts",
	    key_facts ? cJSON_Duplicate(key_facts, 1) : cJSON_CreateArray());
	cJSON_AddItemToObject(r, "open_tasks",
	    open_tasks ? cJSON_Duplicate(open_tasks, 1) : cJSON_CreateArray());
	ai_json_addnum(r, "replaces", (double)replaces);
	return r;
}

cJSON *
ac_drop_note(uint64_t n)
{
	char text[128];

	note_text(text, sizeof(text), n);
	return ac_summary_record(text, NULL, NULL, n);
}

int
ac_is_drop_note(const cJSON *rec, uint64_t *n)
{
	const cJSON *kf = ai_json_get(rec, "key_facts"), *ot = ai_json_get(rec, "open_tasks");
	const char *content = ai_json_str(rec, "content");
	char text[128];

	if (cJSON_GetArraySize(rec) != 5 || ai_json_u64(rec, "replaces", n) != 1 ||
	    content == NULL || !cJSON_IsArray(kf) || kf->child != NULL || !cJSON_IsArray(ot) ||
	    ot->child != NULL)
		return 0;
	note_text(text, sizeof(text), *n);
	return strcmp(content, text) == 0;
}
