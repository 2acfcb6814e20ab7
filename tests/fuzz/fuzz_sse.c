/*
 * libFuzzer target: the SSE parser (sse.c, lines.c).  The input is fed
 * whole and then split in two at a point taken from its first byte: both
 * must give the same events.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "sse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int
collect(void *ctx, const char *event, const char *d, size_t len, struct ai_err *e)
{
	struct ai_buf *b = ctx;

	(void)e;
	ai_buf_adds(b, event);
	ai_buf_addc(b, 0);
	ai_buf_add(b, d, len);
	ai_buf_addc(b, 0);
	return 0;
}

static int
parse(const char *s, size_t n, size_t cut, struct ai_buf *out)
{
	struct ai_err e = AI_ERR_INIT;
	struct ai_sse p;
	int rc;

	ai_sse_init(&p, 4096, collect, out);
	rc = ai_sse_feed(&p, s, cut, &e);
	if (rc == 0)
		rc = ai_sse_feed(&p, s + cut, n - cut, &e);
	if (rc == 0)
		rc = ai_sse_end(&p, &e);
	ai_sse_release(&p);
	return rc;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ai_buf a = AI_BUF_INIT(1 << 24), b = AI_BUF_INIT(1 << 24);
	size_t cut;
	int ra, rb;

	if (size < 1)
		return 0;
	cut = data[0] % size;
	ra = parse((const char *)data + 1, size - 1, 0, &a);
	rb = parse((const char *)data + 1, size - 1, cut > size - 1 ? size - 1 : cut, &b);
	if (ra != rb || a.len != b.len || memcmp(a.buf, b.buf, a.len) != 0)
		abort();
	ai_buf_release(&a);
	ai_buf_release(&b);
	return 0;
}
