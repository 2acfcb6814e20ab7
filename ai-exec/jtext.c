/*
 * jtext.c: bytes as JSON text.  Output of commands and programs is bytes; a
 * record carries it as a string: valid UTF-8 passes as it is, every invalid
 * sequence and every NUL becomes U+FFFD (the suite's readers refuse \u0000).
 * Shared by the tools' results, the audit lines (redacted) and the output
 * parsers (and their fuzz target).
 */
#include <string.h>

#include "exec.h"
#include "json.h"
#include "redact.h"
#include "text.h"
#include "banned.h"

void
x_json_text(struct ai_buf *out, const char *p, size_t n)
{
	const char *nul;

	/* NUL is valid UTF-8 but not welcome in a string: the suite's readers refuse \u0000 */
	while ((nul = memchr(p, '\0', n)) != NULL) {
		ai_utf8_fix(out, p, (size_t)(nul - p));
		ai_buf_adds(out, "\xef\xbf\xbd");
		n -= (size_t)(nul - p) + 1;
		p = nul + 1;
	}
	ai_utf8_fix(out, p, n);
}

void
x_json_addtext(cJSON *obj, const char *key, const char *p, size_t n)
{
	struct ai_buf b = AI_BUF_INIT(AI_BUF_NOLIMIT);

	x_json_text(&b, p ? p : "", p ? n : 0);
	ai_json_addstrn(obj, key, b.buf, b.len);
	ai_buf_release(&b);
}

void
x_json_addredacted(cJSON *obj, const char *key, const char *s, size_t n)
{
	struct ai_buf red = AI_BUF_INIT(AI_BUF_NOLIMIT);

	if (s == NULL) {
		ai_json_addnull(obj, key);
		return;
	}
	ai_redact(&red, s, n);
	x_json_addtext(obj, key, red.buf, red.len);
	ai_buf_release(&red);
}
