/*
 * json.h: strict JSON on top of cJSON.
 *
 * cJSON alone is lenient: it ignores trailing data, accepts raw
 * control characters in strings, leading zeros and a BOM, silently truncates
 * a string at \u0000, keeps duplicate keys and matches keys without regard to
 * case.  ai_json_parse() first checks the text against RFC 8259 (plus: valid
 * UTF-8, no \u0000, no lone surrogate, nesting depth at most AI_JSON_DEPTH),
 * then parses it, then refuses duplicate keys, so what is accepted means the
 * same to every reader.  Keys are looked up case-sensitively (ai_json_get).
 */
#ifndef AI_JSON_H
#define AI_JSON_H

#include <stddef.h>
#include <stdint.h>
#include <cjson/cJSON.h>

#include "err.h"

#define AI_JSON_DEPTH 256

/* Route cJSON's allocations through ai_xmalloc (no NULL on exhaustion). */
void ai_json_init(void);

/*
 * Check that s[0..n) is exactly one strict JSON value with optional
 * surrounding whitespace.  On failure returns -1 with *off at the offending
 * byte and *why a short reason (a string constant).
 */
int ai_json_check(const char *s, size_t n, size_t *off, const char **why);

/*
 * Parse strictly.  On failure returns NULL and sets e (AI_EXIT_DATAERR) to
 * "line L, column C: reason", or "column C: reason" for one-line text.
 * The caller owns the result (cJSON_Delete).
 */
cJSON *ai_json_parse(const char *s, size_t n, struct ai_err *e);

/* Borrowed lookups; NULL when absent or of another type. */
const cJSON *ai_json_get(const cJSON *obj, const char *key);
const char *ai_json_str(const cJSON *obj, const char *key);
/*
 * An integral, non-negative number field no larger than 2^53: 1 when found
 * (and stored in *out), 0 when absent or null, -1 when of another type or value.
 */
int ai_json_u64(const cJSON *obj, const char *key, uint64_t *out);
/* A boolean field: 1/0, or def when absent; -1 when of another type. */
int ai_json_bool(const cJSON *obj, const char *key, int def);

/* Compact text of v (to free()); never NULL. */
char *ai_json_print(const cJSON *v);

/* Builders that never fail (cJSON's allocation goes through ai_xmalloc). */
cJSON *ai_json_addstr(cJSON *obj, const char *key, const char *val);
cJSON *ai_json_addstrn(cJSON *obj, const char *key, const char *val, size_t n);
cJSON *ai_json_addnum(cJSON *obj, const char *key, double val);
cJSON *ai_json_addbool(cJSON *obj, const char *key, int val);
cJSON *ai_json_addnull(cJSON *obj, const char *key);

#endif
