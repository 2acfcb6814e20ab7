/* buf.c: capped growable buffers. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "util.h"
#include "banned.h"

char ai_buf_empty[1];

void
ai_buf_init(struct ai_buf *b, size_t max)
{
	b->buf = ai_buf_empty;
	b->len = 0;
	b->alloc = 0;
	b->max = max;
}

void
ai_buf_release(struct ai_buf *b)
{
	if (b->alloc)
		free(b->buf);
	ai_buf_init(b, b->max);
}

char *
ai_buf_detach(struct ai_buf *b, size_t *len)
{
	char *p;

	if (len != NULL)
		*len = b->len;
	if (b->alloc == 0)
		p = ai_xcalloc(1, 1);
	else
		p = b->buf;
	ai_buf_init(b, b->max);
	return p;
}

void
ai_buf_reset(struct ai_buf *b)
{
	b->len = 0;
	if (b->alloc)
		b->buf[0] = '\0';
}

int
ai_buf_grow(struct ai_buf *b, size_t extra)
{
	size_t want, n;

	if (extra > b->max || b->len > b->max - extra)
		return -1;
	want = b->len + extra + 1;
	if (want <= b->alloc)
		return 0;
	n = b->alloc ? b->alloc : 64;
	while (n < want)
		n = n < ((size_t)-1) / 2 ? n * 2 : want;
	if (b->alloc == 0) {
		b->buf = ai_xmalloc(n);
		b->buf[0] = '\0';
	} else {
		b->buf = ai_xrealloc(b->buf, n);
	}
	b->alloc = n;
	return 0;
}

int
ai_buf_add(struct ai_buf *b, const void *p, size_t n)
{
	if (ai_buf_grow(b, n) < 0)
		return -1;
	if (n == 0)
		return 0;
	memcpy(b->buf + b->len, p, n);
	b->len += n;
	b->buf[b->len] = '\0';
	return 0;
}

int
ai_buf_adds(struct ai_buf *b, const char *s)
{
	return ai_buf_add(b, s, strlen(s));
}

int
ai_buf_addc(struct ai_buf *b, int c)
{
	char ch = (char)c;

	return ai_buf_add(b, &ch, 1);
}

int
ai_buf_addf(struct ai_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || ai_buf_grow(b, (size_t)n) < 0)
		return -1;
	va_start(ap, fmt);
	vsnprintf(b->buf + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
	return 0;
}

void
ai_buf_consume(struct ai_buf *b, size_t n)
{
	if (n >= b->len) {
		ai_buf_reset(b);
		return;
	}
	memmove(b->buf, b->buf + n, b->len - n);
	b->len -= n;
	b->buf[b->len] = '\0';
}

void
ai_buf_truncate(struct ai_buf *b, size_t n)
{
	if (n < b->len) {
		b->len = n;
		b->buf[n] = '\0';
	}
}
