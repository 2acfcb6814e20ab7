/*
 * Unit tests: ai-exec's regular expressions (ai-exec/lang/regex.c), as GNU
 * grep reads them in the C locale: basic and extended syntax, the errors
 * and their wording, -i, -w, -x, -F, leftmost-longest spans, and the DFA
 * cache when a pattern has more states than it keeps.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../ai-exec/lang/regex.h"
#include "t.h"

enum { G = X_RE_BASIC, E = X_RE_EXTENDED, F = X_RE_FIXED };

/* Compile one pattern with syntax and flags ("i", "w", "x", "s" for spans). */
static struct x_re *
re(int syntax, const char *flags, const char *pat, int *err, char *why, size_t whysz)
{
	struct x_re_opts o;
	struct x_re *r = NULL;
	size_t len = strlen(pat);

	memset(&o, 0, sizeof(o));
	o.syntax = syntax;
	o.icase = strchr(flags, 'i') != NULL;
	o.words = strchr(flags, 'w') != NULL;
	o.lines = strchr(flags, 'x') != NULL;
	o.spans = strchr(flags, 's') != NULL;
	o.eol = '\n';
	*err = x_re_compile(&r, &pat, &len, 1, &o, why, whysz);
	return r;
}

/* Whether pattern matches line (-1 when it does not compile). */
static int
m(int syntax, const char *flags, const char *pat, const char *line)
{
	char why[256];
	int err, rc;
	struct x_re *r = re(syntax, flags, pat, &err, why, sizeof(why));

	if (r == NULL)
		return -1;
	rc = x_re_line(r, line, strlen(line));
	x_re_free(r);
	return rc;
}

/* The error message of a pattern that does not compile, "" when it does. */
static char msgbuf[256];

static const char *
error_of(int syntax, const char *pat)
{
	int err;
	struct x_re *r = re(syntax, "", pat, &err, msgbuf, sizeof(msgbuf));

	if (r != NULL) {
		x_re_free(r);
		return "";
	}
	return msgbuf;
}

/* The -o spans of pattern in line, as "a|b|c". */
static char spanbuf[1024];

static const char *
spans(int syntax, const char *flags, const char *pat, const char *line)
{
	char why[256];
	int err;
	struct x_re *r = re(syntax, flags, pat, &err, why, sizeof(why));
	size_t from = 0, ms, me, n = strlen(line), k = 0;

	spanbuf[0] = '\0';
	if (r == NULL)
		return "(error)";
	while (from < n && x_re_match(r, line, n, from, &ms, &me)) {
		k += (size_t)snprintf(spanbuf + k, sizeof(spanbuf) - k, "%s%.*s", k ? "|" : "",
		    (int)(me - ms), line + ms);
		from = me;
	}
	x_re_free(r);
	return spanbuf;
}

static void
test_basic_syntax(void)
{
	/* GNU's everyday idioms: \| \+ \? \{n,m\} are operators, + ? { ( | are characters */
	CHECK_INT(m(G, "", "ERROR\\|WARN", "a WARN here"), 1);
	CHECK_INT(m(G, "", "ERROR|WARN", "a WARN here"), 0);
	CHECK_INT(m(G, "", "ERROR|WARN", "x ERROR|WARN y"), 1);
	CHECK_INT(m(G, "", "def main():", "def main():"), 1);
	CHECK_INT(m(G, "", "class Bar {", "class Bar {"), 1);
	CHECK_INT(m(G, "", "*star", "a *star b"), 1);
	CHECK_INT(m(G, "", "x\\+y", "xxxy"), 1);
	CHECK_INT(m(G, "", "x+y", "xxxy"), 0);
	CHECK_INT(m(G, "", "ab\\?c", "ac"), 1);
	CHECK_INT(m(G, "", "a\\{2,3\\}", "xaax"), 1);
	CHECK_INT(m(G, "", "a\\{2,3\\}", "xax"), 0);
	CHECK_INT(m(G, "", "a{2}", "a{2}"), 1);
	CHECK_INT(m(G, "", "\\(ab\\)*c", "ababc"), 1);
	CHECK_INT(m(G, "", "(ab)", "(ab)"), 1);
	/* ^ and $ are anchors only where they can be */
	CHECK_INT(m(G, "", "^ab", "abc"), 1);
	CHECK_INT(m(G, "", "a^b", "a^b"), 1);
	CHECK_INT(m(G, "", "a$b", "a$b"), 1);
	CHECK_INT(m(G, "", "b$", "ab"), 1);
	CHECK_INT(m(G, "", "\\(^a\\)", "ab"), 1);
	CHECK_INT(m(G, "", "^*", "*x"), 1);
	CHECK_INT(m(G, "", "^*x", "yx"), 0);
	/* a \{ where nothing comes before is a character */
	CHECK_INT(m(G, "", "\\{1\\}a", "{1}a"), 1);
	CHECK_INT(m(G, "", "\\d", "d"), 1);
	CHECK_INT(m(G, "i", "\\d", "D"), 1);
}

static void
test_extended_syntax(void)
{
	CHECK_INT(m(E, "", "ERROR|WARN", "WARN"), 1);
	CHECK_INT(m(E, "", "(a|b)+c", "xbac"), 1);
	CHECK_INT(m(E, "", "a{2,}", "aa"), 1);
	CHECK_INT(m(E, "", "a{,2}b", "b"), 1);
	CHECK_INT(m(E, "", "a{1", "a{1"), 1);       /* not an interval: characters */
	CHECK_INT(m(E, "", "a{x}", "a{x}"), 1);
	CHECK_INT(m(E, "", "a)", "a)"), 1);         /* an unmatched ) is a character */
	CHECK_INT(m(E, "", "a^b", "a^b"), 0);       /* ^ is always an anchor */
	/* an operator that starts an expression repeats nothing (GNU's DFA) */
	CHECK_INT(m(E, "", "*a", "xa"), 1);
	CHECK_INT(m(E, "", "a|*b", "b"), 1);
	CHECK_INT(m(E, "", "{1}a", "a"), 1);
	CHECK_INT(m(E, "", "()", "anything"), 1);
	CHECK_INT(m(E, "", "a||b", "zzz"), 1);
	CHECK_INT(m(E, "", "x{0}y", "y"), 1);
	CHECK_INT(m(E, "", "[[:digit:]]+\\.[0-9]", "v1.5"), 1);
	CHECK_INT(m(E, "", "\\w+_\\w", "a_b"), 1);
	CHECK_INT(m(E, "", "\\s", "ab"), 0);
	CHECK_INT(m(E, "", "\\S\\s\\S", "a b"), 1);
	CHECK_INT(m(E, "", "[]a]", "]"), 1);
	CHECK_INT(m(E, "", "[^]a]", "]"), 0);
	CHECK_INT(m(E, "", "[a-]", "-"), 1);
	CHECK_INT(m(E, "", "[[.a.]-c]", "b"), 1);
	CHECK_INT(m(E, "", "[[=e=]]", "e"), 1);
	CHECK_INT(m(E, "", ".", ""), 0);
}

static void
test_errors(void)
{
	char why[256];
	int err;
	struct x_re *r;

	CHECK_STR(error_of(E, "(a"), "Unmatched ( or \\(");
	CHECK_STR(error_of(G, "\\(a"), "Unmatched ( or \\(");
	CHECK_STR(error_of(G, "a\\)"), "Unmatched ) or \\)");
	CHECK_STR(error_of(G, "[a"), "Unmatched [, [^, [:, [., or [=");
	CHECK_STR(error_of(G, "[]"), "Unmatched [, [^, [:, [., or [=");
	CHECK_STR(error_of(G, "[z-a]"), "Invalid range end");
	CHECK_STR(error_of(G, "[a-c-e]"), "Invalid range end");
	CHECK_STR(error_of(G, "[[:alpha:]-z]"), "Invalid range end");
	CHECK_STR(error_of(G, "[[:nope:]]"), "Invalid character class name");
	CHECK_STR(error_of(G, "[[.ab.]]"), "Invalid collation character");
	CHECK_STR(error_of(G, "[:space:]"), "character class syntax is [[:space:]], not [:space:]");
	CHECK_STR(error_of(G, "a\\"), "Trailing backslash");
	CHECK_STR(error_of(G, "a\\{1"), "Unmatched \\{");
	CHECK_STR(error_of(G, "a\\{x\\}"), "Invalid content of \\{\\}");
	CHECK_STR(error_of(E, "a{2,1}"), "Invalid content of \\{\\}");
	CHECK_STR(error_of(E, "a{}"), "Invalid content of \\{\\}");
	CHECK_STR(error_of(E, "a{1,2,3}"), "Invalid content of \\{\\}");
	CHECK_STR(error_of(E, "a{99999}"), "Regular expression too big");
	CHECK_STR(error_of(G, "[[:alpha:]]"), "");
	/* a back-reference is refused, with its own code */
	r = re(G, "", "\\(a\\)\\1", &err, why, sizeof(why));
	CHECK(r == NULL);
	CHECK_INT(err, X_RE_EBACKREF);
	r = re(G, "", "[\\1]", &err, why, sizeof(why));
	CHECK(r != NULL);
	x_re_free(r);
	/* an automaton too big is a limit */
	r = re(E, "", "((a{1,100}){1,100}){1,100}", &err, why, sizeof(why));
	CHECK(r == NULL);
	CHECK_INT(err, X_RE_EBIG);
}

static void
test_flags(void)
{
	CHECK_INT(m(G, "i", "hello", "HeLLo"), 1);
	CHECK_INT(m(G, "i", "[a-c]x", "BX"), 1);
	CHECK_INT(m(G, "i", "[[:upper:]]", "a"), 1);
	CHECK_INT(m(G, "", "[[:upper:]]", "a"), 0);
	CHECK_INT(m(G, "i", "[^a]", "A"), 0);
	CHECK_INT(m(G, "w", "foo", "a foo b"), 1);
	CHECK_INT(m(G, "w", "foo", "foobar"), 0);
	CHECK_INT(m(G, "w", "foo", "foo_bar"), 0);
	CHECK_INT(m(G, "w", "foo", "foobar foo"), 1);
	CHECK_INT(m(G, "x", "abc", "abc"), 1);
	CHECK_INT(m(G, "x", "abc", "abcd"), 0);
	CHECK_INT(m(G, "x", "a\\|abc", "abc"), 1);
	CHECK_INT(m(F, "", "a.b", "a.b"), 1);
	CHECK_INT(m(F, "", "a.b", "axb"), 0);
	CHECK_INT(m(F, "i", "A.B", "xa.by"), 1);
	CHECK_INT(m(F, "w", "a.b", "x a.b y"), 1);
	CHECK_INT(m(F, "", "", "anything"), 1);
	CHECK_INT(m(G, "", "\\<ab\\>", "x ab y"), 1);
	CHECK_INT(m(G, "", "\\<ab\\>", "xab"), 0);
	CHECK_INT(m(G, "", "\\bab\\B", "abc"), 1);
	/* GNU's -x wraps the text of the pattern, ^(...)$: an unmatched ) closes its group */
	CHECK_INT(m(E, "x", "a)|b", "ab"), 1);
	CHECK_INT(m(E, "x", "a)|b", "b"), 0);
	CHECK_INT(m(E, "x", "a)|b", "xb)"), 1);
}

static void
test_spans(void)
{
	CHECK_STR(spans(G, "s", "o.", "hello world foo"), "o |or|oo");
	CHECK_STR(spans(E, "s", "a|ab|abc", "xabcx"), "abc");     /* leftmost-longest */
	CHECK_STR(spans(E, "s", "b*", "abbbcb"), "bbb|b");        /* empty ones skipped */
	CHECK_STR(spans(E, "ws", "ab", "ab xab ab_ ab"), "ab|ab");
	CHECK_STR(spans(F, "s", "aa", "aaaaa"), "aa|aa");
	CHECK_STR(spans(E, "s", "[0-9]+", "id=12 x=345"), "12|345");
	CHECK_STR(spans(G, "s", "^a", "aaa"), "a");
	/* the reading glibc gives -o: "{1}" after nothing is skipped, "1}" stays */
	CHECK_STR(spans(E, "s", "{1}a", "1}a a"), "1}a");
}

static void
test_lines(void)
{
	const char text[] = "alpha\nbeta\n\ngamma beta\nlast";
	struct x_re *r;
	int err;
	char why[256];
	size_t ls, le, from = 0, n = sizeof(text) - 1;
	char got[256] = "";
	size_t k = 0;

	r = re(E, "", "beta|^$|last", &err, why, sizeof(why));
	CHECK(r != NULL);
	while (from < n && x_re_find_line(r, text, n, from, &ls, &le)) {
		k += (size_t)snprintf(got + k, sizeof(got) - k, "[%.*s]", (int)(le - ls), text + ls);
		from = le + 1;
	}
	CHECK_STR(got, "[beta][][gamma beta][last]");
	x_re_free(r);
}

/* More DFA states than the cache keeps: it empties and goes on, the answers unchanged. */
static void
test_cache(void)
{
	size_t n = 200000, i;
	char *line = malloc(n + 1);
	unsigned x = 12345;

	for (i = 0; i < n; i++) {
		x = x * 1103515245u + 12345u;
		line[i] = (x >> 16) & 1 ? 'a' : 'b';
	}
	line[n] = '\0';
	/* the 14th byte from the end is an 'a': the DFA needs 2^14 states to know */
	line[n - 14] = 'a';
	CHECK_INT(m(E, "", "a[ab]{13}$", line), 1);
	line[n - 14] = 'b';
	CHECK_INT(m(E, "", "a[ab]{13}$", line), 0);
	/* and a long line with no match is linear: '.*' then a literal that is not there */
	memset(line, 'x', n);
	memcpy(line, "{\"id\":", 6);
	CHECK_INT(m(G, "", "id.*nomatch", line), 0);
	CHECK_INT(m(G, "", "id.*x$", line), 1);
	free(line);
}

/*
 * Lines of text that pattern selects, counted twice: searching the whole
 * text (x_re_find_line, with its skips) and asking line by line; -1 when
 * the two differ.
 */
static long
selected(int syntax, const char *flags, const char *pat, const char *text)
{
	char why[256];
	int err;
	struct x_re *r = re(syntax, flags, pat, &err, why, sizeof(why));
	size_t n = strlen(text), from = 0, ls, le, off = 0;
	long found = 0, asked = 0;

	if (r == NULL)
		return -2;
	while (from <= n && x_re_find_line(r, text, n, from, &ls, &le)) {
		found++;
		from = le + 1;
	}
	while (off < n) {
		const char *e = memchr(text + off, '\n', n - off);
		size_t end = e ? (size_t)(e - text) : n;

		asked += x_re_line(r, text + off, end - off);
		off = end + 1;
	}
	x_re_free(r);
	return found == asked ? found : -1;
}

static void
test_search(void)
{
	char *text = malloc(200001);
	size_t i;

	/* a literal whose rarest byte is everywhere: the search turns to memmem */
	for (i = 0; i < 200000; i++)
		text[i] = i % 1000 == 999 ? '\n' : 'z';
	text[200000] = '\0';
	memcpy(text + 150010, "zzzzy", 5);
	CHECK_INT(selected(G, "", "zzzzzzzzy", text), 1);
	CHECK_INT(selected(F, "", "zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz", text), 200);
	CHECK_INT(selected(G, "", "zy", text), 1);
	free(text);
	/* the bytes that leave the start state are skipped to: one, two (-i), three */
	text = "alpha\nBETA one\nbeta\nbEtA\nalphabet\n\nzeta\nb\n";
	CHECK_INT(selected(G, "i", "beta", text), 3);
	CHECK_INT(selected(G, "", "beta", text), 1);
	CHECK_INT(selected(G, "", "b[a-z]", text), 2);
	CHECK_INT(selected(E, "", "[xyz]e", text), 1);
	CHECK_INT(selected(E, "", "[a-e]t", text), 3);
	CHECK_INT(selected(E, "", "a$", text), 3);
	CHECK_INT(selected(E, "", "^$", text), 1);
	CHECK_INT(selected(E, "", "x*", text), 8);
	CHECK_INT(selected(E, "w", "b", text), 1);
	CHECK_INT(selected(E, "", "q", text), 0);
	/* no final line end */
	CHECK_INT(selected(E, "", "t$", "abc\nlast"), 1);
	CHECK_INT(selected(E, "i", "LAST", "abc\nlast"), 1);
}

int
main(void)
{
	test_basic_syntax();
	test_extended_syntax();
	test_errors();
	test_flags();
	test_spans();
	test_lines();
	test_cache();
	test_search();
	T_DONE();
}
