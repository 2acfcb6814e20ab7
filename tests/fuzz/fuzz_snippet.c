/*
 * libFuzzer target: ai-search's snippet cleaner and date normalizer
 * (ai-search/clean.c).
 * fuzz-sources: ai-search/clean.c
 * The cleaner's output is valid UTF-8 without control characters, with no
 * white space at either end or twice in a row, and at most 3 bytes per input
 * byte; a normalized date normalizes to itself.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../ai-search/clean.h"
#include "text.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
check_clean(const char *s, size_t n)
{
	struct ai_buf b = AI_BUF_INIT(AI_BUF_NOLIMIT);
	size_t i;

	if (sr_clean(&b, s, n) < 0 || b.len > 3 * n || !ai_utf8_valid(b.buf, b.len))
		abort();
	if (b.len > 0 && (b.buf[0] == ' ' || b.buf[b.len - 1] == ' '))
		abort();
	for (i = 0; i < b.len; i++) {
		unsigned char c = (unsigned char)b.buf[i];

		if (c < 0x20 || c == 0x7f || (c == ' ' && i + 1 < b.len && b.buf[i + 1] == ' '))
			abort();
		/* C1 controls (U+0080..U+009F) are encoded as C2 80..C2 9F */
		if (c == 0xc2 && i + 1 < b.len && (unsigned char)b.buf[i + 1] <= 0x9f)
			abort();
	}
	ai_buf_release(&b);
}

static void
check_date(const char *s)
{
	char out[32], again[32];
	size_t used, used2;

	if (sr_date(s, out, sizeof(out), &used) < 0)
		return;
	if (used > strlen(s) || sr_date(out, again, sizeof(again), &used2) < 0 ||
	    strcmp(out, again) != 0 || used2 != strlen(out))
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = ai_xmemdup(data, size);

	check_clean(s, size);
	check_date(s);
	free(s);
	return 0;
}
