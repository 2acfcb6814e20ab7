/*
 * libFuzzer target: the conversation ai-loop keeps and sends at each step
 * (ai-loop/conv.c), read from a --continue file or standard input
 * (conv_check_records) and taken back from ai-context (conv_replace).
 * Invariants: what the check accepts, conv_replace accepts too, keeping
 * every record byte for byte, one per line; the estimate counts at most
 * one token per four bytes, and calibration keeps it within 0.25 and 4
 * times that.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "../../ai-loop/loop.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ai_err e = AI_ERR_INIT;
	struct ai_buf out = AI_BUF_INIT(AI_BUF_NOLIMIT);
	struct conv c;
	size_t lines = 0, i;
	uint64_t base;

	ai_json_init();
	if (conv_check_records((const char *)data, size, "fuzz", &out, &e) < 0) {
		if (e.code != AI_EXIT_DATAERR || strncmp(e.msg, "fuzz: line ", 11) != 0)
			abort();
		ai_buf_release(&out);
		return 0;
	}
	for (i = 0; i < out.len; i++)
		lines += out.buf[i] == '\n';
	conv_init(&c);
	if (conv_replace(&c, out.buf, out.len, &e) < 0)
		abort();
	if (c.n != lines || c.text.len != out.len || memcmp(c.text.buf, out.buf, out.len) != 0)
		abort();
	if (c.chars > out.len)
		abort();
	base = (c.chars + 3) / 4;
	if (conv_tokens(&c) != base)
		abort();
	c.cal_chars = c.chars + 1;
	c.cal_tokens = size * 1000 + 1;
	if (conv_tokens(&c) > base * 4 + 1 || conv_tokens(&c) * 4 + 1 < base)
		abort();
	conv_free(&c);
	ai_buf_release(&out);
	return 0;
}
