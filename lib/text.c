/* text.c: UTF-8 decoding and the terminal sanitizer. */
#include <string.h>

#include "text.h"
#include "banned.h"

int
ai_utf8_decode(const char *s, size_t n, uint32_t *cp)
{
	const unsigned char *u = (const unsigned char *)s;
	uint32_t c, min;
	size_t len, i;

	if (n == 0)
		return -1;
	c = u[0];
	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c >= 0xc2 && c <= 0xdf) {
		len = 2;
		c &= 0x1f;
		min = 0x80;
	} else if (c >= 0xe0 && c <= 0xef) {
		len = 3;
		c &= 0x0f;
		min = 0x800;
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4;
		c &= 0x07;
		min = 0x10000;
	} else {
		return 0;
	}
	for (i = 1; i < len; i++) {
		if (i >= n)
			goto short_input;
		if ((u[i] & 0xc0) != 0x80)
			return 0;
		c = (c << 6) | (u[i] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return (int)len;

short_input:
	/* A truncated sequence is only "incomplete" if what is there could still be valid. */
	if (len >= 3 && i >= 2) {
		uint32_t hi = ((uint32_t)(u[0] & (len == 3 ? 0x0f : 0x07)) << 6) | (u[1] & 0x3f);

		if (len == 3 && (hi < 0x20 || (hi >= 0x360 && hi <= 0x37f)))
			return 0; /* overlong or surrogate */
		if (len == 4 && (hi < 0x10 || hi > 0x10f))
			return 0;
	}
	return -1;
}

/*
 * The offset of the first byte of s[0..n) that does not begin a valid
 * character (n when there is none); *incomplete says whether it begins one
 * that the end of s cuts short.
 */
static size_t
utf8_first_bad(const char *s, size_t n, int *incomplete)
{
	size_t i = 0;
	uint32_t cp;

	while (i < n) {
		int l;

		if ((unsigned char)s[i] < 0x80) {
			i++;
			continue;
		}
		l = ai_utf8_decode(s + i, n - i, &cp);
		if (l <= 0) {
			*incomplete = l < 0;
			return i;
		}
		i += (size_t)l;
	}
	return n;
}

int
ai_utf8_valid(const char *s, size_t n)
{
	int incomplete;

	return utf8_first_bad(s, n, &incomplete) == n;
}

size_t
ai_utf8_count(const char *s, size_t n)
{
	size_t i, c = 0;

	for (i = 0; i < n; i++)
		c += ((unsigned char)s[i] & 0xc0) != 0x80;
	return c;
}

size_t
ai_utf8_start(const char *s, size_t n, size_t i)
{
	while (i < n && ((unsigned char)s[i] & 0xc0) == 0x80)
		i++;
	return i;
}

/* The line of offset i in s, whose first line is first. */
static unsigned long
line_of(const char *s, size_t i, unsigned long first)
{
	unsigned long line = first;
	const char *p = s, *end = s + i, *lf;

	while (p < end && (lf = memchr(p, '\n', (size_t)(end - p))) != NULL) {
		line++;
		p = lf + 1;
	}
	return line;
}

int
ai_text_check(const char *s, size_t n, const char *what, uint64_t base, unsigned long line,
    struct ai_err *e)
{
	const char *nul = memchr(s, '\0', n);
	size_t end = nul ? (size_t)(nul - s) : n, i;
	int incomplete = 0;

	/* the first offending byte, whichever kind it is */
	i = utf8_first_bad(s, end, &incomplete);
	if (i < end || (incomplete && i < n))
		return ai_err_set(e, AI_EXIT_DATAERR,
		    "%s is not UTF-8 text: %s 0x%02x at offset %llu (line %lu); convert it "
		    "to UTF-8 first (iconv)", what, incomplete && !nul ?
		    "an incomplete character, byte" : "byte", (unsigned char)s[i],
		    (unsigned long long)(base + i), line_of(s, i, line));
	if (nul != NULL)
		return ai_err_set(e, AI_EXIT_DATAERR,
		    "%s is binary: a NUL byte at offset %llu (line %lu); only text is taken", what,
		    (unsigned long long)(base + end), line_of(s, end, line));
	return 0;
}

size_t
ai_utf8_cut(const char *s, size_t n, size_t max)
{
	size_t k, back;

	if (max >= n)
		return n;
	k = max;
	for (back = 0; back < 4 && k > 0; back++) {
		if (((unsigned char)s[k] & 0xc0) != 0x80)
			return k;
		k--;
	}
	/* Not UTF-8 around here: a byte cut is all that can be done. */
	if (((unsigned char)s[k] & 0xc0) != 0x80)
		return k;
	return max;
}

int
ai_utf8_fix(struct ai_buf *out, const char *s, size_t n)
{
	static const char repl[] = "\xef\xbf\xbd";
	size_t i = 0, run = 0;
	uint32_t cp;

	while (i < n) {
		int l = (unsigned char)s[i] < 0x80 ? 1 : ai_utf8_decode(s + i, n - i, &cp);

		if (l > 0) {
			i += (size_t)l;
			continue;
		}
		if (ai_buf_add(out, s + run, i - run) < 0 || ai_buf_add(out, repl, 3) < 0)
			return -1;
		i++;
		run = i;
	}
	return ai_buf_add(out, s + run, n - run);
}

static int
is_shown_codepoint(uint32_t cp)
{
	return (cp >= 0x80 && cp <= 0x9f) ||
	    (cp >= 0x202a && cp <= 0x202e) ||
	    (cp >= 0x2066 && cp <= 0x2069) ||
	    cp == 0x200e || cp == 0x200f || cp == 0x061c;
}

static int
sanitize_char(struct ai_buf *out, const char *s, size_t n, size_t *used, int final)
{
	unsigned char c = (unsigned char)s[0];
	uint32_t cp;
	int l;

	if (c == '\n' || c == '\t' || (c >= 0x20 && c < 0x7f)) {
		*used = 1;
		return ai_buf_addc(out, c);
	}
	if (c < 0x20 || c == 0x7f) {
		*used = 1;
		return ai_buf_addf(out, "^%c", c == 0x7f ? '?' : c + 0x40);
	}
	l = ai_utf8_decode(s, n, &cp);
	if (l == -1 && !final) {
		*used = 0; /* wait for the rest of the character */
		return 0;
	}
	if (l <= 0) {
		*used = 1;
		return ai_buf_addf(out, "\\x%02x", c);
	}
	*used = (size_t)l;
	if (is_shown_codepoint(cp))
		return ai_buf_addf(out, "<U+%04X>", (unsigned)cp);
	return ai_buf_add(out, s, (size_t)l);
}

int
ai_sanitize_feed(struct ai_sanitizer *z, struct ai_buf *out, const char *s, size_t n)
{
	size_t i = 0, used;

	/* Complete a character left over from the previous feed. */
	while (z->npend > 0 && i < n) {
		z->pend[z->npend++] = s[i++];
		if (sanitize_char(out, z->pend, z->npend, &used, z->npend == 4) < 0)
			return -1;
		if (used > 0) {
			/* used may be less than npend: the rest are ordinary bytes again */
			size_t rest = z->npend - used;
			char tmp[4];

			memcpy(tmp, z->pend + used, rest);
			z->npend = 0;
			if (rest && ai_sanitize_feed(z, out, tmp, rest) < 0)
				return -1;
		}
	}
	while (i < n) {
		if (sanitize_char(out, s + i, n - i, &used, 0) < 0)
			return -1;
		if (used == 0) {
			memcpy(z->pend, s + i, n - i);
			z->npend = n - i;
			return 0;
		}
		i += used;
	}
	return 0;
}

int
ai_sanitize_end(struct ai_sanitizer *z, struct ai_buf *out)
{
	size_t i = 0, used;

	while (i < z->npend) {
		if (sanitize_char(out, z->pend + i, z->npend - i, &used, 1) < 0)
			return -1;
		i += used;
	}
	z->npend = 0;
	return 0;
}

int
ai_term_sanitize(struct ai_buf *out, const char *s, size_t n)
{
	struct ai_sanitizer z = AI_SANITIZER_INIT;

	if (ai_sanitize_feed(&z, out, s, n) < 0)
		return -1;
	return ai_sanitize_end(&z, out);
}
