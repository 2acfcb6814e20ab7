/*
 * conv.c: the conversation ai-loop sends to the model at each step: record
 * lines in one buffer (so that a step's input is one write), with the
 * estimate of its tokens that decides when ai-context compacts it.
 */
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "loop.h"
#include "record.h"
#include "text.h"
#include "util.h"
#include "banned.h"

void
conv_init(struct conv *c)
{
	memset(c, 0, sizeof(*c));
	ai_buf_init(&c->text, AI_BUF_NOLIMIT);
}

void
conv_free(struct conv *c)
{
	ai_buf_release(&c->text);
	free(c->off);
	memset(c, 0, sizeof(*c));
}

/* The records that carry nothing for a model, as ai-context(1) counts them. */
int
conv_visible(const char *type)
{
	static const char *const unseen[] = { "usage", "error", "result", "delta", "query", NULL };
	size_t i;

	for (i = 0; unseen[i] != NULL; i++)
		if (strcmp(type, unseen[i]) == 0)
			return 0;
	return 1;
}

/* Append one record line; type says whether a model sees it. */
static void
add_typed(struct conv *c, const char *line, size_t len, const char *type)
{
	if (c->n == c->alloc) {
		c->alloc = c->alloc ? 2 * c->alloc : 64;
		c->off = ai_xrealloc(c->off, c->alloc * sizeof(*c->off));
	}
	c->off[c->n++] = c->text.len;
	ai_buf_add(&c->text, line, len);
	ai_buf_addc(&c->text, '\n');
	if (conv_visible(type))
		c->chars += ai_utf8_count(line, len);
}

void
conv_add(struct conv *c, const char *line, size_t len)
{
	struct ai_err e = AI_ERR_INIT;
	cJSON *rec = ai_record_parse(line, len, 1, &e);

	/* every line given here was checked already */
	add_typed(c, line, len, rec != NULL ? ai_record_type(rec) : "");
	cJSON_Delete(rec);
}

int
conv_replace(struct conv *c, const char *p, size_t n, struct ai_err *e)
{
	struct conv next;
	const char *end = p + n;
	unsigned long lineno = 0;

	conv_init(&next);
	while (p < end) {
		const char *lf = memchr(p, '\n', (size_t)(end - p));
		size_t len = lf ? (size_t)(lf - p) : (size_t)(end - p);
		cJSON *rec;

		lineno++;
		if (!ai_line_is_blank(p, len)) {
			if ((rec = ai_record_parse(p, len, lineno, e)) == NULL) {
				conv_free(&next);
				return -1;
			}
			add_typed(&next, p, len, ai_record_type(rec));
			cJSON_Delete(rec);
		}
		p += len + (lf != NULL);
	}
	next.cal_tokens = c->cal_tokens;
	next.cal_chars = c->cal_chars;
	conv_free(c);
	*c = next;
	return 0;
}

uint64_t
conv_tokens(const struct conv *c)
{
	uint64_t est = (c->chars + 3) / 4, cal = (c->cal_chars + 3) / 4;
	double k = 1;

	if (c->cal_tokens > 0 && cal > 0) {
		k = (double)c->cal_tokens / (double)cal;
		k = k < 0.25 ? 0.25 : k > 4 ? 4 : k;
	}
	return (uint64_t)((double)est * k + 0.5);
}

int
conv_check_records(const char *p, size_t n, const char *src, struct ai_buf *out,
    struct ai_err *e)
{
	const char *end = p + n;
	unsigned long lineno = 0;

	while (p < end) {
		const char *lf = memchr(p, '\n', (size_t)(end - p));
		size_t len = lf ? (size_t)(lf - p) : (size_t)(end - p);

		lineno++;
		if (len > 0 && p[len - 1] == '\r')
			len--;
		if (!ai_line_is_blank(p, len)) {
			cJSON *rec = ai_record_parse(p, len, lineno, e);

			if (rec == NULL) {
				ai_err_prefix(e, "%s", src);
				return -1;
			}
			cJSON_Delete(rec);
			ai_buf_add(out, p, len);
			ai_buf_addc(out, '\n');
		}
		p = lf ? lf + 1 : end;
	}
	return 0;
}
