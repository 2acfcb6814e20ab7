/* clean.c: HTML fragments to clean text, dates to ISO 8601. */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clean.h"
#include "text.h"
#include "util.h"
#include "banned.h"

/* Named character references: HTML 4's full set and "apos", sorted by strcmp. */
static const struct entity {
	const char *name;
	uint32_t cp;
} entities[] = {
	{ "AElig", 0xc6 }, { "Aacute", 0xc1 }, { "Acirc", 0xc2 }, { "Agrave", 0xc0 },
	{ "Alpha", 0x391 }, { "Aring", 0xc5 }, { "Atilde", 0xc3 }, { "Auml", 0xc4 },
	{ "Beta", 0x392 }, { "Ccedil", 0xc7 }, { "Chi", 0x3a7 }, { "Dagger", 0x2021 },
	{ "Delta", 0x394 }, { "ETH", 0xd0 }, { "Eacute", 0xc9 }, { "Ecirc", 0xca },
	{ "Egrave", 0xc8 }, { "Epsilon", 0x395 }, { "Eta", 0x397 }, { "Euml", 0xcb },
	{ "Gamma", 0x393 }, { "Iacute", 0xcd }, { "Icirc", 0xce }, { "Igrave", 0xcc },
	{ "Iota", 0x399 }, { "Iuml", 0xcf }, { "Kappa", 0x39a }, { "Lambda", 0x39b },
	{ "Mu", 0x39c }, { "Ntilde", 0xd1 }, { "Nu", 0x39d }, { "OElig", 0x152 },
	{ "Oacute", 0xd3 }, { "Ocirc", 0xd4 }, { "Ograve", 0xd2 }, { "Omega", 0x3a9 },
	{ "Omicron", 0x39f }, { "Oslash", 0xd8 }, { "Otilde", 0xd5 }, { "Ouml", 0xd6 },
	{ "Phi", 0x3a6 }, { "Pi", 0x3a0 }, { "Prime", 0x2033 }, { "Psi", 0x3a8 },
	{ "Rho", 0x3a1 }, { "Scaron", 0x160 }, { "Sigma", 0x3a3 }, { "THORN", 0xde },
	{ "Tau", 0x3a4 }, { "Theta", 0x398 }, { "Uacute", 0xda }, { "Ucirc", 0xdb },
	{ "Ugrave", 0xd9 }, { "Upsilon", 0x3a5 }, { "Uuml", 0xdc }, { "Xi", 0x39e },
	{ "Yacute", 0xdd }, { "Yuml", 0x178 }, { "Zeta", 0x396 }, { "aacute", 0xe1 },
	{ "acirc", 0xe2 }, { "acute", 0xb4 }, { "aelig", 0xe6 }, { "agrave", 0xe0 },
	{ "alefsym", 0x2135 }, { "alpha", 0x3b1 }, { "amp", 0x26 }, { "and", 0x2227 },
	{ "ang", 0x2220 }, { "apos", 0x27 }, { "aring", 0xe5 }, { "asymp", 0x2248 },
	{ "atilde", 0xe3 }, { "auml", 0xe4 }, { "bdquo", 0x201e }, { "beta", 0x3b2 },
	{ "brvbar", 0xa6 }, { "bull", 0x2022 }, { "cap", 0x2229 }, { "ccedil", 0xe7 },
	{ "cedil", 0xb8 }, { "cent", 0xa2 }, { "chi", 0x3c7 }, { "circ", 0x2c6 },
	{ "clubs", 0x2663 }, { "cong", 0x2245 }, { "copy", 0xa9 }, { "crarr", 0x21b5 },
	{ "cup", 0x222a }, { "curren", 0xa4 }, { "dArr", 0x21d3 }, { "dagger", 0x2020 },
	{ "darr", 0x2193 }, { "deg", 0xb0 }, { "delta", 0x3b4 }, { "diams", 0x2666 },
	{ "divide", 0xf7 }, { "eacute", 0xe9 }, { "ecirc", 0xea }, { "egrave", 0xe8 },
	{ "empty", 0x2205 }, { "emsp", 0x2003 }, { "ensp", 0x2002 }, { "epsilon", 0x3b5 },
	{ "equiv", 0x2261 }, { "eta", 0x3b7 }, { "eth", 0xf0 }, { "euml", 0xeb },
	{ "euro", 0x20ac }, { "exist", 0x2203 }, { "fnof", 0x192 }, { "forall", 0x2200 },
	{ "frac12", 0xbd }, { "frac14", 0xbc }, { "frac34", 0xbe }, { "frasl", 0x2044 },
	{ "gamma", 0x3b3 }, { "ge", 0x2265 }, { "gt", 0x3e }, { "hArr", 0x21d4 },
	{ "harr", 0x2194 }, { "hearts", 0x2665 }, { "hellip", 0x2026 }, { "iacute", 0xed },
	{ "icirc", 0xee }, { "iexcl", 0xa1 }, { "igrave", 0xec }, { "image", 0x2111 },
	{ "infin", 0x221e }, { "int", 0x222b }, { "iota", 0x3b9 }, { "iquest", 0xbf },
	{ "isin", 0x2208 }, { "iuml", 0xef }, { "kappa", 0x3ba }, { "lArr", 0x21d0 },
	{ "lambda", 0x3bb }, { "lang", 0x27e8 }, { "laquo", 0xab }, { "larr", 0x2190 },
	{ "lceil", 0x2308 }, { "ldquo", 0x201c }, { "le", 0x2264 }, { "lfloor", 0x230a },
	{ "lowast", 0x2217 }, { "loz", 0x25ca }, { "lrm", 0x200e }, { "lsaquo", 0x2039 },
	{ "lsquo", 0x2018 }, { "lt", 0x3c }, { "macr", 0xaf }, { "mdash", 0x2014 },
	{ "micro", 0xb5 }, { "middot", 0xb7 }, { "minus", 0x2212 }, { "mu", 0x3bc },
	{ "nabla", 0x2207 }, { "nbsp", 0xa0 }, { "ndash", 0x2013 }, { "ne", 0x2260 },
	{ "ni", 0x220b }, { "not", 0xac }, { "notin", 0x2209 }, { "nsub", 0x2284 },
	{ "ntilde", 0xf1 }, { "nu", 0x3bd }, { "oacute", 0xf3 }, { "ocirc", 0xf4 },
	{ "oelig", 0x153 }, { "ograve", 0xf2 }, { "oline", 0x203e }, { "omega", 0x3c9 },
	{ "omicron", 0x3bf }, { "oplus", 0x2295 }, { "or", 0x2228 }, { "ordf", 0xaa },
	{ "ordm", 0xba }, { "oslash", 0xf8 }, { "otilde", 0xf5 }, { "otimes", 0x2297 },
	{ "ouml", 0xf6 }, { "para", 0xb6 }, { "part", 0x2202 }, { "permil", 0x2030 },
	{ "perp", 0x22a5 }, { "phi", 0x3c6 }, { "pi", 0x3c0 }, { "piv", 0x3d6 },
	{ "plusmn", 0xb1 }, { "pound", 0xa3 }, { "prime", 0x2032 }, { "prod", 0x220f },
	{ "prop", 0x221d }, { "psi", 0x3c8 }, { "quot", 0x22 }, { "rArr", 0x21d2 },
	{ "radic", 0x221a }, { "rang", 0x27e9 }, { "raquo", 0xbb }, { "rarr", 0x2192 },
	{ "rceil", 0x2309 }, { "rdquo", 0x201d }, { "real", 0x211c }, { "reg", 0xae },
	{ "rfloor", 0x230b }, { "rho", 0x3c1 }, { "rlm", 0x200f }, { "rsaquo", 0x203a },
	{ "rsquo", 0x2019 }, { "sbquo", 0x201a }, { "scaron", 0x161 }, { "sdot", 0x22c5 },
	{ "sect", 0xa7 }, { "shy", 0xad }, { "sigma", 0x3c3 }, { "sigmaf", 0x3c2 },
	{ "sim", 0x223c }, { "spades", 0x2660 }, { "sub", 0x2282 }, { "sube", 0x2286 },
	{ "sum", 0x2211 }, { "sup", 0x2283 }, { "sup1", 0xb9 }, { "sup2", 0xb2 },
	{ "sup3", 0xb3 }, { "supe", 0x2287 }, { "szlig", 0xdf }, { "tau", 0x3c4 },
	{ "there4", 0x2234 }, { "theta", 0x3b8 }, { "thetasym", 0x3d1 }, { "thinsp", 0x2009 },
	{ "thorn", 0xfe }, { "tilde", 0x2dc }, { "times", 0xd7 }, { "trade", 0x2122 },
	{ "uArr", 0x21d1 }, { "uacute", 0xfa }, { "uarr", 0x2191 }, { "ucirc", 0xfb },
	{ "ugrave", 0xf9 }, { "uml", 0xa8 }, { "upsih", 0x3d2 }, { "upsilon", 0x3c5 },
	{ "uuml", 0xfc }, { "weierp", 0x2118 }, { "xi", 0x3be }, { "yacute", 0xfd },
	{ "yen", 0xa5 }, { "yuml", 0xff }, { "zeta", 0x3b6 }, { "zwj", 0x200d },
	{ "zwnj", 0x200c },
};

/* What HTML decodes &#128; .. &#159; to (windows-1252); 0 maps to itself. */
static const uint16_t cp1252[32] = {
	0x20ac, 0, 0x201a, 0x0192, 0x201e, 0x2026, 0x2020, 0x2021,
	0x02c6, 0x2030, 0x0160, 0x2039, 0x0152, 0, 0x017d, 0,
	0, 0x2018, 0x2019, 0x201c, 0x201d, 0x2022, 0x2013, 0x2014,
	0x02dc, 0x2122, 0x0161, 0x203a, 0x0153, 0, 0x017e, 0x0178,
};

#define TAG_MAX 2048

/* Tags that separate words the way a line break does. */
static const char *const block_tags[] = {
	"address", "article", "aside", "blockquote", "br", "caption", "dd", "div", "dl", "dt",
	"figcaption", "figure", "footer", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hr",
	"li", "main", "nav", "ol", "option", "p", "pre", "section", "table", "td", "th",
	"title", "tr", "ul",
};

struct out {
	struct ai_buf *b;
	int space; /* white space seen since the last character written */
	int any;   /* some character was written */
	int err;
};

static int
is_space(uint32_t c)
{
	return c == ' ' || (c >= 0x09 && c <= 0x0d) || c == 0x85 || c == 0xa0 || c == 0x1680 ||
	    (c >= 0x2000 && c <= 0x200a) || c == 0x2028 || c == 0x2029 || c == 0x202f ||
	    c == 0x205f || c == 0x3000;
}

/* Control characters, bidirectional controls, the BOM and the soft hyphen. */
static int
is_dropped(uint32_t c)
{
	return c < 0x20 || (c >= 0x7f && c <= 0x9f) || c == 0xad || c == 0x061c ||
	    c == 0x200e || c == 0x200f || (c >= 0x202a && c <= 0x202e) ||
	    (c >= 0x2066 && c <= 0x2069) || c == 0xfeff;
}

/* Write one character: white space is held back (and collapsed) until a character follows. */
static void
put(struct out *o, uint32_t c)
{
	char u[4];
	size_t n;

	if (is_space(c)) {
		o->space = 1;
		return;
	}
	if (is_dropped(c))
		return;
	if (o->space && o->any && ai_buf_addc(o->b, ' ') < 0)
		o->err = 1;
	o->space = 0;
	o->any = 1;
	if (c < 0x80) {
		u[0] = (char)c;
		n = 1;
	} else if (c < 0x800) {
		u[0] = (char)(0xc0 | (c >> 6));
		u[1] = (char)(0x80 | (c & 0x3f));
		n = 2;
	} else if (c < 0x10000) {
		u[0] = (char)(0xe0 | (c >> 12));
		u[1] = (char)(0x80 | ((c >> 6) & 0x3f));
		u[2] = (char)(0x80 | (c & 0x3f));
		n = 3;
	} else {
		u[0] = (char)(0xf0 | (c >> 18));
		u[1] = (char)(0x80 | ((c >> 12) & 0x3f));
		u[2] = (char)(0x80 | ((c >> 6) & 0x3f));
		u[3] = (char)(0x80 | (c & 0x3f));
		n = 4;
	}
	if (ai_buf_add(o->b, u, n) < 0)
		o->err = 1;
}

static int
cmp_entity(const void *key, const void *elem)
{
	return strcmp(key, ((const struct entity *)elem)->name);
}

static int
hexdigit(int c)
{
	static const char hex[] = "0123456789abcdef";
	const char *p = c ? strchr(hex, tolower(c)) : NULL;

	return p ? (int)(p - hex) : -1;
}

/*
 * A character reference at s[i] ('&'): write what it stands for and return
 * the offset after it, or 0 when it is not a valid, known reference (the
 * caller then writes the '&' as text).  The ';' is required.
 */
static size_t
reference(struct out *o, const char *s, size_t n, size_t i)
{
	size_t j = i + 1, start;
	uint32_t cp = 0;

	if (j < n && s[j] == '#') {
		int hex = 0, d;

		j++;
		if (j < n && (s[j] == 'x' || s[j] == 'X')) {
			hex = 1;
			j++;
		}
		start = j;
		for (; j < n; j++) {
			d = hex ? hexdigit((unsigned char)s[j]) :
			    (isdigit((unsigned char)s[j]) ? s[j] - '0' : -1);
			if (d < 0)
				break;
			if (cp <= 0x10ffff) /* stays above the limit once there, no overflow */
				cp = cp * (hex ? 16 : 10) + (uint32_t)d;
		}
		if (j == start || j >= n || s[j] != ';')
			return 0;
		if (cp == 0 || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
			return 0;
		if (cp >= 0x80 && cp <= 0x9f && cp1252[cp - 0x80] != 0)
			cp = cp1252[cp - 0x80];
		put(o, cp);
		return j + 1;
	} else {
		char name[16];
		const struct entity *ent;

		start = j;
		while (j < n && j - start < sizeof(name) && isalnum((unsigned char)s[j]))
			j++;
		if (j == start || j >= n || s[j] != ';' || j - start >= sizeof(name))
			return 0;
		memcpy(name, s + start, j - start);
		name[j - start] = '\0';
		ent = bsearch(name, entities, AI_ARRAY_SIZE(entities), sizeof(entities[0]), cmp_entity);
		if (ent == NULL)
			return 0;
		put(o, ent->cp);
		return j + 1;
	}
}

/* Case-insensitive search for the ASCII string pat in s[0..n). */
static const char *
find_ci(const char *s, size_t n, const char *pat)
{
	size_t l = strlen(pat), i;

	for (i = 0; i + l <= n; i++)
		if (strncasecmp(s + i, pat, l) == 0)
			return s + i;
	return NULL;
}

/*
 * The offset just after the '>' that ends a tag whose attributes start at j;
 * 0 if none.  A tag longer than TAG_MAX is not one: the bound keeps the
 * cleaner linear on input such as "<a<a<a..." that never closes a tag.
 */
static size_t
tag_end(const char *s, size_t n, size_t j)
{
	char quote = 0, prev = 0;

	if (n - j > TAG_MAX)
		n = j + TAG_MAX;
	for (; j < n; j++) {
		char c = s[j];

		if (quote) {
			if (c == quote)
				quote = 0;
			continue;
		}
		if ((c == '"' || c == '\'') && prev == '=') {
			quote = c;
			continue;
		}
		if (c == '>')
			return j + 1;
		if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
			prev = c;
	}
	return 0;
}

static int
is_block(const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < AI_ARRAY_SIZE(block_tags); i++)
		if (strlen(block_tags[i]) == len && strncasecmp(block_tags[i], name, len) == 0)
			return 1;
	return 0;
}

/*
 * Markup at s[i] ('<'): a tag, a comment, a declaration or a processing
 * instruction.  Returns the offset after it, or 0 when it is not markup
 * ("a < b", "<3", a tag that never ends), which the caller writes as text.
 */
static size_t
markup(struct out *o, const char *s, size_t n, size_t i)
{
	size_t j = i + 1, name, end;
	int closing = 0;

	if (j < n && s[j] == '!') {
		if (n - j >= 3 && memcmp(s + j, "!--", 3) == 0) {
			const char *c = memmem(s + j + 3, n - j - 3, "-->", 3);

			return c ? (size_t)(c - s) + 3 : n; /* an open comment hides the rest */
		}
		return tag_end(s, n, j + 1);
	}
	if (j < n && s[j] == '?')
		return tag_end(s, n, j + 1);
	if (j < n && s[j] == '/') {
		closing = 1;
		j++;
	}
	if (j >= n || !isalpha((unsigned char)s[j]))
		return 0;
	name = j;
	while (j < n && (isalnum((unsigned char)s[j]) || s[j] == '-' || s[j] == ':'))
		j++;
	end = tag_end(s, n, j);
	if (end == 0)
		return 0;
	if (!closing && ((j - name == 6 && strncasecmp(s + name, "script", 6) == 0) ||
	    (j - name == 5 && strncasecmp(s + name, "style", 5) == 0))) {
		/* their content is code, not text: skip to the closing tag */
		char close[10];
		const char *c;

		snprintf(close, sizeof(close), "</%.*s", (int)(j - name), s + name);
		c = find_ci(s + end, n - end, close);
		if (c == NULL)
			return n;
		end = tag_end(s, n, (size_t)(c - s) + strlen(close));
		return end ? end : n;
	}
	if (is_block(s + name, j - name))
		o->space = 1;
	return end;
}

int
sr_clean(struct ai_buf *b, const char *s, size_t n)
{
	struct out o = { b, 0, 0, 0 };
	size_t i = 0, k;
	uint32_t cp;
	int l;

	while (i < n && !o.err) {
		unsigned char c = (unsigned char)s[i];

		if (c == '<' && (k = markup(&o, s, n, i)) > 0) {
			i = k;
		} else if (c == '&' && (k = reference(&o, s, n, i)) > 0) {
			i = k;
		} else if (c < 0x80) {
			put(&o, c);
			i++;
		} else if ((l = ai_utf8_decode(s + i, n - i, &cp)) > 0) {
			put(&o, cp);
			i += (size_t)l;
		} else {
			put(&o, 0xfffd);
			i++;
		}
	}
	return o.err ? -1 : 0;
}

char *
sr_clean_str(const char *s)
{
	struct ai_buf b = AI_BUF_INIT(AI_BUF_NOLIMIT);

	sr_clean(&b, s, strlen(s));
	return ai_buf_detach(&b, NULL);
}

/* Read exactly w digits at s into *v. */
static int
digits(const char *s, int w, int *v)
{
	int i;

	*v = 0;
	for (i = 0; i < w; i++) {
		if (!isdigit((unsigned char)s[i]))
			return -1;
		*v = *v * 10 + (s[i] - '0');
	}
	return 0;
}

/* One or two digits; returns how many were read (0 if none). */
static int
digits12(const char *s, int *v)
{
	if (!isdigit((unsigned char)s[0]))
		return 0;
	*v = s[0] - '0';
	if (!isdigit((unsigned char)s[1]))
		return 1;
	*v = *v * 10 + (s[1] - '0');
	return 2;
}

static int
month_of(const char *s)
{
	static const char names[] = "janfebmaraprmayjunjulaugsepoctnovdec";
	int m;

	for (m = 0; m < 12; m++)
		if (strncasecmp(s, names + 3 * m, 3) == 0)
			return m + 1;
	return 0;
}

static int
valid_day(int y, int m, int d)
{
	static const int days[] = { 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };

	if (y < 1000 || m < 1 || m > 12 || d < 1 || d > days[m - 1])
		return 0;
	return !(m == 2 && d == 29 && !(y % 4 == 0 && (y % 100 != 0 || y % 400 == 0)));
}

struct date {
	int y, mo, d, h, mi, sec;
	int has_time;
	int zone;      /* 0 none, 1 "Z", 2 offset */
	int zsign, zh, zm;
};

/* "HH:MM[:SS[.fff]]" at s; returns the length read, 0 if none. */
static size_t
read_time(const char *s, struct date *t)
{
	size_t i = 5;

	if (digits(s, 2, &t->h) < 0 || s[2] != ':' || digits(s + 3, 2, &t->mi) < 0)
		return 0;
	t->sec = 0;
	if (s[5] == ':' && digits(s + 6, 2, &t->sec) == 0) {
		i = 8;
		if (s[8] == '.' && isdigit((unsigned char)s[9]))
			for (i = 9; isdigit((unsigned char)s[i]); i++)
				;
	}
	if (t->h > 23 || t->mi > 59 || t->sec > 60)
		return 0;
	t->has_time = 1;
	return i;
}

/* A zone after a time: Z, GMT, UTC, +HH:MM, +HHMM, +HH.  Returns the length read. */
static size_t
read_zone(const char *s, struct date *t)
{
	size_t i = 0;

	if (*s == ' ')
		i++;
	if (s[i] == 'Z' && !isalnum((unsigned char)s[i + 1])) {
		t->zone = 1;
		return i + 1;
	}
	if ((strncmp(s + i, "GMT", 3) == 0 || strncmp(s + i, "UTC", 3) == 0) &&
	    !isalnum((unsigned char)s[i + 3])) {
		t->zone = 1;
		return i + 3;
	}
	if ((s[i] == '+' || s[i] == '-') && digits(s + i + 1, 2, &t->zh) == 0) {
		t->zsign = s[i];
		t->zm = 0;
		if (s[i + 3] == ':' && digits(s + i + 4, 2, &t->zm) == 0)
			i += 6;
		else if (digits(s + i + 3, 2, &t->zm) == 0)
			i += 5;
		else
			i += 3;
		if (t->zh > 14 || t->zm > 59)
			return 0;
		t->zone = 2;
		return i;
	}
	return 0;
}

int
sr_date(const char *s, char *out, size_t outsz, size_t *used)
{
	struct date t;
	size_t i = 0, k;
	int l;

	memset(&t, 0, sizeof(t));
	if (digits(s, 4, &t.y) == 0 && s[4] == '-' && digits(s + 5, 2, &t.mo) == 0 &&
	    s[7] == '-' && digits(s + 8, 2, &t.d) == 0 && !isdigit((unsigned char)s[10])) {
		/* ISO 8601 */
		i = 10;
		if ((s[i] == 'T' || s[i] == ' ') && (k = read_time(s + i + 1, &t)) > 0) {
			i += 1 + k;
			i += read_zone(s + i, &t);
		}
	} else {
		const char *p = s;

		/* RFC 1123, "Wed, 15 Jan 2025 12:00:00 GMT"; the weekday is optional */
		if (isalpha((unsigned char)p[0]) && isalpha((unsigned char)p[1]) &&
		    isalpha((unsigned char)p[2]) && p[3] == ',' && p[4] == ' ' && !month_of(p))
			p += 5;
		if ((l = digits12(p, &t.d)) > 0 && p[l] == ' ' && (t.mo = month_of(p + l + 1)) > 0 &&
		    p[l + 4] == ' ' && digits(p + l + 5, 4, &t.y) == 0 &&
		    !isdigit((unsigned char)p[l + 9])) {
			i = (size_t)(p - s) + (size_t)l + 9;
			if (s[i] == ' ' && (k = read_time(s + i + 1, &t)) > 0) {
				i += 1 + k;
				i += read_zone(s + i, &t);
			}
		} else if ((t.mo = month_of(s)) > 0 && s[3] == ' ' && (l = digits12(s + 4, &t.d)) > 0 &&
		    s[4 + l] == ',' && s[5 + l] == ' ' && digits(s + 6 + l, 4, &t.y) == 0 &&
		    !isdigit((unsigned char)s[10 + l])) {
			/* "Jul 15, 2015", as Google starts snippets */
			i = 10 + (size_t)l;
		} else {
			return -1;
		}
	}
	if (!valid_day(t.y, t.mo, t.d))
		return -1;
	if (!t.has_time)
		snprintf(out, outsz, "%04d-%02d-%02d", t.y, t.mo, t.d);
	else if (t.zone == 0)
		snprintf(out, outsz, "%04d-%02d-%02dT%02d:%02d:%02d", t.y, t.mo, t.d, t.h, t.mi, t.sec);
	else if (t.zone == 1)
		snprintf(out, outsz, "%04d-%02d-%02dT%02d:%02d:%02dZ", t.y, t.mo, t.d, t.h, t.mi, t.sec);
	else
		snprintf(out, outsz, "%04d-%02d-%02dT%02d:%02d:%02d%c%02d:%02d", t.y, t.mo, t.d, t.h,
		    t.mi, t.sec, t.zsign, t.zh, t.zm);
	if (used != NULL)
		*used = i;
	return 0;
}

int
sr_char_width(unsigned long c)
{
	if (c == 0x200b || c == 0x200c || c == 0x200d || (c >= 0x300 && c <= 0x36f) ||
	    (c >= 0x483 && c <= 0x489) || (c >= 0x591 && c <= 0x5bd) ||
	    (c >= 0x610 && c <= 0x61a) || (c >= 0x64b && c <= 0x65f) ||
	    (c >= 0x1ab0 && c <= 0x1aff) || (c >= 0x1dc0 && c <= 0x1dff) ||
	    (c >= 0x20d0 && c <= 0x20ff) || (c >= 0xfe00 && c <= 0xfe0f) ||
	    (c >= 0xfe20 && c <= 0xfe2f))
		return 0;
	if ((c >= 0x1100 && c <= 0x115f) || (c >= 0x2e80 && c <= 0x303e) ||
	    (c >= 0x3041 && c <= 0x33ff) || (c >= 0x3400 && c <= 0x4dbf) ||
	    (c >= 0x4e00 && c <= 0x9fff) || (c >= 0xa000 && c <= 0xa4cf) ||
	    (c >= 0xac00 && c <= 0xd7a3) || (c >= 0xf900 && c <= 0xfaff) ||
	    (c >= 0xfe30 && c <= 0xfe4f) || (c >= 0xff00 && c <= 0xff60) ||
	    (c >= 0xffe0 && c <= 0xffe6) || (c >= 0x1f300 && c <= 0x1f64f) ||
	    (c >= 0x1f900 && c <= 0x1f9ff) || (c >= 0x20000 && c <= 0x2fffd) ||
	    (c >= 0x30000 && c <= 0x3fffd))
		return 2;
	return 1;
}
