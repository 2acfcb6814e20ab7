/* lines.c: the push line splitter. */
#include <string.h>

#include "lines.h"
#include "banned.h"

void
ai_lines_init(struct ai_lines *l, int mode, size_t max_line)
{
	ai_buf_init(&l->part, max_line);
	l->mode = mode;
	l->after_cr = 0;
	l->lineno = 0;
}

void
ai_lines_release(struct ai_lines *l)
{
	ai_buf_release(&l->part);
}

static int
deliver(struct ai_lines *l, const char *p, size_t n, ai_line_fn fn, void *ctx, struct ai_err *e)
{
	l->lineno++;
	if (l->mode == AI_LINES_LF && n > 0 && p[n - 1] == '\r')
		n--;
	return fn(ctx, p, n, e);
}

static const char *
find_end(const struct ai_lines *l, const char *p, size_t n)
{
	const char *lf = memchr(p, '\n', n), *cr;

	if (l->mode == AI_LINES_LF)
		return lf;
	cr = memchr(p, '\r', lf ? (size_t)(lf - p) : n);
	return cr ? cr : lf;
}

static int
too_long(struct ai_lines *l, struct ai_err *e)
{
	return ai_err_set(e, AI_EXIT_DATAERR, "line %lu is longer than the limit of %zu bytes",
	    l->lineno + 1, l->part.max);
}

int
ai_lines_feed(struct ai_lines *l, const char *p, size_t n, ai_line_fn fn, void *ctx,
    struct ai_err *e)
{
	while (n > 0) {
		const char *end;
		size_t len;
		int rc;

		if (l->after_cr) {
			l->after_cr = 0;
			if (*p == '\n') {
				p++;
				n--;
				continue;
			}
		}
		end = find_end(l, p, n);
		if (end == NULL) {
			if (ai_buf_add(&l->part, p, n) < 0)
				return too_long(l, e);
			return 0;
		}
		len = (size_t)(end - p);
		if (l->part.len > 0) {
			if (ai_buf_add(&l->part, p, len) < 0)
				return too_long(l, e);
			rc = deliver(l, l->part.buf, l->part.len, fn, ctx, e);
			ai_buf_reset(&l->part);
		} else {
			if (len > l->part.max)
				return too_long(l, e);
			rc = deliver(l, p, len, fn, ctx, e);
		}
		if (*end == '\r') {
			if ((size_t)(end - p) + 1 < n) {
				if (end[1] == '\n')
					end++;
			} else {
				l->after_cr = 1;
			}
		}
		n -= (size_t)(end - p) + 1;
		p = end + 1;
		if (rc != 0)
			return rc;
	}
	return 0;
}

int
ai_lines_end(struct ai_lines *l, ai_line_fn fn, void *ctx, int *had_partial, struct ai_err *e)
{
	int rc = 0;

	if (had_partial != NULL)
		*had_partial = l->part.len > 0;
	if (l->part.len > 0) {
		rc = deliver(l, l->part.buf, l->part.len, fn, ctx, e);
		ai_buf_reset(&l->part);
	}
	l->after_cr = 0;
	return rc;
}
