/* output.c: search_result records, and the list people read. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output.h"
#include "clean.h"
#include "io.h"
#include "json.h"
#include "record.h"
#include "text.h"
#include "banned.h"

#define ELLIPSIS "\xe2\x80\xa6"
#define SGR_BOLD "\033[1m"
#define SGR_URL "\033[32m"
#define SGR_OFF "\033[0m"

/*
 * The length of the longest start of s[0..n) that takes at most w columns;
 * characters of no width that follow the last one stay with it.
 */
static size_t
fit(const char *s, size_t n, unsigned w)
{
	size_t i = 0;
	unsigned c = 0;

	while (i < n) {
		uint32_t cp;
		int l = ai_utf8_decode(s + i, n - i, &cp);
		unsigned cw;

		if (l <= 0) {
			l = 1;
			cp = '?';
		}
		cw = (unsigned)sr_char_width(cp);
		if (c + cw > w)
			break;
		c += cw;
		i += (size_t)l;
	}
	return i;
}

/* Where to end a line of s that must end by k: the last space, unless that wastes half the line. */
static size_t
word_break(const char *s, size_t k)
{
	size_t b = k;

	while (b > 0 && s[b] != ' ')
		b--;
	return b == 0 || b < k / 2 ? k : b;
}

void
sr_wrap(struct ai_buf *out, const char *text, unsigned width, unsigned maxlines,
    unsigned indent)
{
	size_t n = strlen(text), pos = 0, k, b;
	unsigned line;

	for (line = 0; pos < n && line < maxlines; line++) {
		const char *s = text + pos;
		size_t rest = n - pos;

		ai_buf_addf(out, "%*s", (int)indent, "");
		k = fit(s, rest, width);
		if (k == rest) {
			ai_buf_add(out, s, rest);
			pos = n;
		} else if (line + 1 < maxlines) {
			b = word_break(s, k);
			ai_buf_add(out, s, b);
			pos += b;
		} else {
			/* the last line: cut, leaving room for the ellipsis */
			b = word_break(s, fit(s, rest, width > 1 ? width - 1 : 0));
			while (b > 0 && s[b - 1] == ' ')
				b--;
			ai_buf_add(out, s, b);
			ai_buf_adds(out, ELLIPSIS);
			pos = n;
		}
		ai_buf_addc(out, '\n');
		while (pos < n && text[pos] == ' ')
			pos++;
	}
}

static int
write_record(struct sr_out *o, const char *query, const struct sr_result *r, struct ai_err *e)
{
	cJSON *rec = ai_record_new("search_result");
	int rc;

	ai_json_addstr(rec, "query", query);
	ai_json_addnum(rec, "rank", r->rank);
	ai_json_addstr(rec, "title", r->title);
	ai_json_addstr(rec, "url", r->url);
	ai_json_addstr(rec, "snippet", r->snippet);
	ai_json_addstr(rec, "provider", o->provider);
	if (r->date != NULL)
		ai_json_addstr(rec, "date", r->date);
	rc = ai_record_write(stdout, rec, e);
	cJSON_Delete(rec);
	return rc;
}

/* Text from the web, made safe for a terminal. */
static char *
safe(const char *s)
{
	struct ai_buf b = AI_BUF_INIT(AI_BUF_NOLIMIT);

	ai_term_sanitize(&b, s, strlen(s));
	return ai_buf_detach(&b, NULL);
}

static int
write_text(struct sr_out *o, const char *query, const struct sr_result *r, struct ai_err *e)
{
	struct ai_buf b = AI_BUF_INIT(AI_BUF_NOLIMIT), snip = AI_BUF_INIT(AI_BUF_NOLIMIT);
	char *title = safe(r->title[0] ? r->title : "(no title)"), *url = safe(r->url),
	     *text = safe(r->snippet), prefix[16];
	int rc, plen;

	if (o->written > 0)
		ai_buf_addc(&b, '\n');
	if (o->headings && r->rank == 1) {
		char *q = safe(query);

		ai_buf_addf(&b, "%s# %s%s\n\n", o->color ? SGR_BOLD : "", q, o->color ? SGR_OFF : "");
		free(q);
	}
	plen = snprintf(prefix, sizeof(prefix), "%u. ", r->rank);
	ai_buf_adds(&b, prefix);
	if (o->color)
		ai_buf_adds(&b, SGR_BOLD);
	sr_wrap(&b, title, SR_TEXT_WIDTH - (unsigned)plen, 1, 0);
	if (o->color) {
		ai_buf_truncate(&b, b.len - 1);
		ai_buf_adds(&b, SGR_OFF "\n");
	}
	ai_buf_addf(&b, "   %s%s%s\n", o->color ? SGR_URL : "", url, o->color ? SGR_OFF : "");
	/* the date first, as search pages show it */
	if (r->date != NULL)
		ai_buf_addf(&snip, "%.10s%s", r->date, text[0] ? " \xe2\x80\x94 " : "");
	ai_buf_adds(&snip, text);
	sr_wrap(&b, snip.buf, SR_TEXT_WIDTH - 3, SR_SNIPPET_LINES, 3);
	rc = ai_out_write(stdout, b.buf, b.len, e);
	if (rc == 0)
		rc = ai_out_flush(stdout, e);
	ai_buf_release(&b);
	ai_buf_release(&snip);
	free(title);
	free(url);
	free(text);
	return rc;
}

int
sr_out_result(struct sr_out *o, const char *query, const struct sr_result *r, struct ai_err *e)
{
	int rc = o->json ? write_record(o, query, r, e) : write_text(o, query, r, e);

	if (rc == 0)
		o->written++;
	return rc;
}
