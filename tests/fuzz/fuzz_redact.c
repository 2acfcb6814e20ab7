/*
 * libFuzzer target: the redactor's pages (lib/redact.c, ai_redact_span),
 * by which a tool result shows a page of an output.  The input is a value
 * to register, a NUL, then the output; the page is every split of the
 * output in turn.  Invariants: no crash, no leak, no read past the input;
 * whatever the page, the value never shows, and a page that lies within an
 * occurrence of it shows only "[REDACTED]": no page boundary cuts one to
 * show a part; redacting the output whole shows it nowhere either.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "redact.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *nul = memchr(data, '\0', size);
	char *secret, *text;
	size_t slen, tlen, from, step;

	if (nul == NULL)
		return 0;
	slen = (size_t)(nul - data);
	tlen = size - slen - 1;
	/* values as the configuration holds them: text without NUL, 6 bytes or more */
	if (slen < 6 || slen > 64)
		return 0;
	secret = ai_xmemdup(data, slen);
	text = ai_xmemdup(nul + 1, tlen); /* exactly tlen bytes: ASan sees any overread */
	ai_secret_add(secret);
	step = tlen / 16 + 1;
	for (from = 0; from <= tlen; from += step) {
		size_t to;

		for (to = from; to <= tlen; to += step) {
			struct ai_buf b = AI_BUF_INIT(AI_BUF_NOLIMIT);
			size_t k;

			ai_redact_span(&b, text, tlen, from, to);
			if (memmem(b.buf, b.len, secret, slen) != NULL)
				abort();
			/* a page inside an occurrence: nothing of it */
			for (k = from + 1 > slen ? from + 1 - slen : 0; to > from && k <= from; k++)
				if (k + slen <= tlen && k + slen >= to &&
				    memcmp(text + k, secret, slen) == 0 &&
				    strcmp(b.buf, "[REDACTED]") != 0)
					abort();
			ai_buf_release(&b);
		}
	}
	{
		struct ai_buf b = AI_BUF_INIT(AI_BUF_NOLIMIT);

		ai_redact_output(&b, text, tlen);
		if (memmem(b.buf, b.len, secret, slen) != NULL)
			abort();
		ai_buf_release(&b);
	}
	ai_secret_clear();
	free(secret);
	free(text);
	return 0;
}
