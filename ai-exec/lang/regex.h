/*
 * regex.h: grep's regular expressions, matched in time linear in the input.
 *
 * The patterns are read as GNU grep reads them in the C locale: basic
 * (-G: \| \+ \? \{n,m\} \( \) are operators; a leading '*', a lone '{' and
 * a '^' or '$' inside the pattern are ordinary), extended (-E) or fixed
 * strings (-F); with GNU's escapes \w \W \s \S \b \B \< \> \` \'; POSIX
 * classes, equivalence classes and collating symbols of one character.
 * Several patterns are alternatives.  Bytes are characters; -i folds ASCII
 * letters.  Back-references are refused: nothing matches them in linear
 * time.
 *
 * A pattern becomes a Thompson automaton, run as a DFA built lazily, state
 * by state, in a cache of bounded size (when it fills, it starts again):
 * every byte of input costs one table lookup, or one step of the automaton
 * the first time a state meets a byte class.  A literal that every match
 * must contain is searched for first (memmem), so that lines without it are
 * never looked at.  Matches are leftmost-longest: a reverse automaton finds
 * where matches start, the forward one how far the longest reaches.
 */
#ifndef AI_EXEC_REGEX_H
#define AI_EXEC_REGEX_H

#include <stddef.h>

enum { X_RE_BASIC, X_RE_EXTENDED, X_RE_FIXED };

/* Why a pattern was refused: a syntax error, a back-reference, or too big. */
enum { X_RE_ESYNTAX = -1, X_RE_EBACKREF = -2, X_RE_EBIG = -3 };

struct x_re_opts {
	int syntax;          /* X_RE_BASIC, X_RE_EXTENDED or X_RE_FIXED */
	int icase;           /* ASCII letters match either case */
	int words;           /* -w: a match has no word character on either side */
	int lines;           /* -x: a match is the whole line */
	unsigned char eol;   /* the byte that ends a line: LF, or NUL (-z) */
	/*
	 * Read the pattern as glibc's regcomp does, which GNU grep uses to
	 * find where the matches of a selected line are (-o); its DFA, which
	 * selects the lines, reads an operator that starts an extended
	 * expression, or follows an anchor, differently.
	 */
	int spans;
};

struct x_re;

/*
 * Compile n patterns (pats[i] of lens[i] bytes), alternatives of each
 * other.  0, or X_RE_* with a message in why (GNU's wording where GNU has
 * one).  Warnings GNU prints (a stray backslash, '*' at the start) are not
 * errors and not reported.
 */
int x_re_compile(struct x_re **re, const char *const *pats, const size_t *lens, size_t n,
    const struct x_re_opts *o, char *why, size_t whysz);
void x_re_free(struct x_re *re);

/* Whether the line p[0..n) (without its end byte) holds a match. */
int x_re_line(struct x_re *re, const char *p, size_t n);

/*
 * The first line at or after from in p[0..n) (whole lines, the last maybe
 * without its end byte) that holds a match: 1 and its bounds [*ls, *le)
 * without the end byte, or 0.
 */
int x_re_find_line(struct x_re *re, const char *p, size_t n, size_t from, size_t *ls,
    size_t *le);

/*
 * The leftmost-longest non-empty match in the line p[0..n) that starts at
 * or after from: 1 and [*ms, *me), or 0.  The text before from still counts
 * as context (for ^, \< and -w).  Calls for one line with growing from reuse
 * the work of the first.
 */
int x_re_match(struct x_re *re, const char *p, size_t n, size_t from, size_t *ms, size_t *me);

#endif
