/* sse.c: the event-stream parser. */
#include <string.h>

#include "sse.h"
#include "banned.h"

void
ai_sse_init(struct ai_sse *s, size_t max_event, ai_sse_fn fn, void *ctx)
{
	ai_lines_init(&s->lines, AI_LINES_ANY, max_event);
	ai_buf_init(&s->event, 256);
	ai_buf_init(&s->data, max_event);
	s->has_data = 0;
	s->started = 0;
	s->pending = 0;
	s->events = 0;
	s->fn = fn;
	s->ctx = ctx;
}

void
ai_sse_release(struct ai_sse *s)
{
	ai_lines_release(&s->lines);
	ai_buf_release(&s->event);
	ai_buf_release(&s->data);
}

static int
dispatch(struct ai_sse *s, struct ai_err *e)
{
	int rc = 0;

	if (s->has_data) {
		size_t n = s->data.len;

		if (n > 0)
			n--; /* the LF after the last data line */
		s->data.buf[n] = '\0';
		s->events++;
		rc = s->fn(s->ctx, s->event.len ? s->event.buf : "message", s->data.buf, n, e);
	}
	ai_buf_reset(&s->event);
	ai_buf_reset(&s->data);
	s->has_data = 0;
	s->pending = 0;
	return rc;
}

static int
on_line(void *ctx, const char *line, size_t len, struct ai_err *e)
{
	struct ai_sse *s = ctx;
	const char *colon, *val;
	size_t flen, vlen;

	if (len == 0)
		return dispatch(s, e);
	if (line[0] == ':')
		return 0;
	colon = memchr(line, ':', len);
	flen = colon ? (size_t)(colon - line) : len;
	val = colon ? colon + 1 : line + len;
	vlen = colon ? len - flen - 1 : 0;
	if (vlen > 0 && val[0] == ' ') {
		val++;
		vlen--;
	}
	if (flen == 4 && memcmp(line, "data", 4) == 0) {
		if (ai_buf_add(&s->data, val, vlen) < 0 || ai_buf_addc(&s->data, '\n') < 0)
			return ai_err_set(e, AI_EXIT_PROTOCOL,
			    "event stream: an event is larger than the limit of %zu bytes", s->data.max);
		s->has_data = 1;
		s->pending = 1;
	} else if (flen == 5 && memcmp(line, "event", 5) == 0) {
		ai_buf_reset(&s->event);
		if (ai_buf_add(&s->event, val, vlen) < 0)
			return ai_err_set(e, AI_EXIT_PROTOCOL, "event stream: event name too long");
		s->pending = 1;
	} else {
		/* id, retry and unknown fields are not used by any API we speak */
		s->pending = 1;
	}
	return 0;
}

int
ai_sse_feed(struct ai_sse *s, const char *p, size_t n, struct ai_err *e)
{
	int rc;

	if (!s->started) {
		/* The BOM may itself arrive in pieces: wait for three bytes. */
		static const char bom[] = "\xef\xbb\xbf";
		size_t have = s->lines.part.len, k;

		for (k = 0; k < n && have + k < 3; k++)
			if (p[k] != bom[have + k])
				break;
		if (k < n && have + k < 3) {
			/* not a BOM: replay what was held back */
			s->started = 1;
			if (have) {
				char held[3];

				memcpy(held, s->lines.part.buf, have);
				ai_buf_reset(&s->lines.part);
				rc = ai_lines_feed(&s->lines, held, have, on_line, s, e);
				if (rc != 0)
					return rc;
			}
		} else if (have + k == 3) {
			ai_buf_reset(&s->lines.part);
			s->started = 1;
			p += k;
			n -= k;
		} else {
			/* all of p is a BOM prefix: hold it */
			return ai_buf_add(&s->lines.part, p, n) < 0 ? -1 : 0;
		}
	}
	return ai_lines_feed(&s->lines, p, n, on_line, s, e);
}

int
ai_sse_end(struct ai_sse *s, struct ai_err *e)
{
	int partial = 0, rc;

	rc = ai_lines_end(&s->lines, on_line, s, &partial, e);
	if (rc != 0)
		return rc;
	if (partial || s->pending) {
		ai_buf_reset(&s->data);
		s->has_data = 0;
		s->pending = 0;
		return ai_err_set(e, AI_EXIT_PROTOCOL, "event stream ended in the middle of an event");
	}
	return 0;
}
