/*
 * redact.h: keep secrets out of everything that is shown or stored.
 *
 * Two kinds of protection, applied together by ai_redact():
 *  - verbatim: every value registered with ai_secret_add() (the API keys the
 *    configuration loaded) is replaced wherever it appears;
 *  - by shape: bearer and basic credentials, key-like tokens (sk-..., AIza...,
 *    ghp_..., xoxb-..., AKIA..., tvly-..., glpat-..., hf_..., gsk_...,
 *    sk_live_...), JSON Web Tokens (eyJ...x.y.z),
 *    URL credentials (scheme://user:pass@), key query parameters (key=,
 *    api_key=, token=, ...), NAME_KEY=/NAME_TOKEN=/password= style
 *    assignments and header lines, and PEM private-key blocks.
 * Each secret becomes "[REDACTED]".  Redacting redacted text changes nothing
 * (ai-context relies on it: a digest of a digest is the digest).
 *
 * The registry is process-wide state (like ai_progname): every message path
 * must reach it, including ones far from where the configuration was read.
 */
#ifndef AI_REDACT_H
#define AI_REDACT_H

#include <stddef.h>

#include "buf.h"

#define AI_REDACTED "[REDACTED]"

/* Register a secret value (copied).  Values shorter than 6 bytes are ignored. */
void ai_secret_add(const char *value);
/* Forget all registered secrets (frees their copies). */
void ai_secret_clear(void);

/* Append s with secrets replaced; -1 when out's cap would be passed. */
int ai_redact(struct ai_buf *out, const char *s, size_t n);
/*
 * The same for what programs and files print (tool results, records): every
 * rule but the NAME=value assignments, which would also take ordinary source
 * code apart ("SECRET_KEY = os.environ[...]"); registered values always go.
 */
int ai_redact_output(struct ai_buf *out, const char *s, size_t n);
/* Whether every registered value reads the same in JSON text (nothing to escape). */
int ai_secret_json_plain(void);
/* The length of the longest registered secret, 0 when there is none. */
size_t ai_secret_maxlen(void);
/*
 * Append s[from..to), a page of s[0..n), with every registered secret that
 * overlaps it replaced as a whole by one "[REDACTED]", one that the page's
 * edges cut included (looked for in s around the page), then the output
 * rules applied to the rest: no choice of page shows any part of a value.
 */
int ai_redact_span(struct ai_buf *out, const char *s, size_t n, size_t from, size_t to);
/* Redact a C string into a new allocation (to free()). */
char *ai_redact_str(const char *s);

#endif
