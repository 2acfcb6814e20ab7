/*
 * regex.c: the regular expressions of grep (and nl -b p), in linear time.
 *
 * A pattern goes through four steps:
 *
 *  - the parser reads it as GNU grep does in the C locale.  GNU grep checks
 *    a pattern twice, with glibc's regcomp and with its own DFA's parser,
 *    and matches with the DFA: so the errors here are those of either (with
 *    glibc's wording when glibc would have spoken first) and the meaning is
 *    the DFA's (a leading '*' of an extended pattern repeats nothing; {0}
 *    removes what it follows);
 *  - the syntax tree becomes a Thompson automaton, twice: forward, and
 *    reversed (to find where matches start);
 *  - a DFA is built from it lazily: a state is a set of automaton positions
 *    and what the byte before was (line edge, word character, other), which
 *    is all that ^ $ \< \> \b \B and -w need; a transition is computed the
 *    first time a state meets a class of equivalent bytes, then looked up;
 *  - the cache of states is bounded; when it is full it is emptied and
 *    built again from where the scan is, so memory is bounded and time stays
 *    linear in the input (times the size of the pattern, at worst).
 *
 * -w and -x are assertions around the alternatives (no word character
 * before and after; the line's edges), which is what GNU grep's wrapping of
 * the pattern means.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "regex.h"
#include "buf.h"
#include "util.h"
#include "banned.h"

#define RE_DUP_MAX 0x7fff          /* GNU's largest repeat count */
#define MAX_INST (1u << 18)        /* automaton positions */
#define MAX_SETS 65535
#define MAX_STATES 8192            /* DFA states kept at once */
#define MAX_CACHE (16u << 20)      /* bytes of DFA states kept at once */

/* ---- byte sets ---- */

struct bset {
	uint64_t w[4];
};

static void
bset_add(struct bset *s, int c)
{
	s->w[(unsigned)c >> 6] |= (uint64_t)1 << (c & 63);
}

static int
bset_has(const struct bset *s, int c)
{
	return (s->w[(unsigned)c >> 6] >> (c & 63)) & 1;
}

static void
bset_invert(struct bset *s)
{
	int i;

	for (i = 0; i < 4; i++)
		s->w[i] = ~s->w[i];
}

static int
is_word(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	    c == '_';
}

static int
is_alpha(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* c and, with icase and a letter, its other case. */
static void
bset_add_fold(struct bset *s, int c, int icase)
{
	bset_add(s, c);
	if (icase && is_alpha(c))
		bset_add(s, c ^ 0x20);
}

/* The C locale's classes. */
static int
in_class(const char *name, int c)
{
	if (strcmp(name, "alpha") == 0)
		return is_alpha(c);
	if (strcmp(name, "upper") == 0)
		return c >= 'A' && c <= 'Z';
	if (strcmp(name, "lower") == 0)
		return c >= 'a' && c <= 'z';
	if (strcmp(name, "digit") == 0)
		return c >= '0' && c <= '9';
	if (strcmp(name, "xdigit") == 0)
		return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
	if (strcmp(name, "space") == 0)
		return c == ' ' || (c >= '\t' && c <= '\r');
	if (strcmp(name, "punct") == 0)
		return c > 32 && c < 127 && !is_word(c);
	if (strcmp(name, "alnum") == 0)
		return is_alpha(c) || (c >= '0' && c <= '9');
	if (strcmp(name, "print") == 0)
		return c >= 32 && c < 127;
	if (strcmp(name, "graph") == 0)
		return c > 32 && c < 127;
	if (strcmp(name, "cntrl") == 0)
		return c < 32 || c == 127;
	if (strcmp(name, "blank") == 0)
		return c == ' ' || c == '\t';
	return -1;
}

/* ---- the syntax tree ---- */

/* A_ACCEPT: what GNU's DFA cannot read; reaching it is a match (glibc decides). */
enum { A_EMPTY, A_SET, A_CAT, A_ALT, A_REP, A_ASSERT, A_ACCEPT };

/* Assertions: what the bytes before and after a position must be. */
enum {
	K_BOL, K_EOL, K_BEGWORD, K_ENDWORD, K_LIMWORD, K_NOTLIMWORD, K_NOWORD_BEFORE,
	K_NOWORD_AFTER
};

struct anode {
	uint8_t type;
	uint8_t kind;    /* A_ASSERT */
	int32_t a, b;    /* children; A_SET: the set */
	int32_t min, max; /* A_REP; max -1 for no bound */
};

struct tree {
	struct anode *n;
	size_t nn, cap;
	struct bset *sets;
	size_t nsets, setcap;
	uint64_t weight;  /* automaton positions the tree will need, roughly */
};

static int
tree_node(struct tree *t, int type, int a, int b)
{
	if (t->nn == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 64;
		t->n = ai_xrealloc(t->n, t->cap * sizeof(*t->n));
	}
	memset(&t->n[t->nn], 0, sizeof(t->n[0]));
	t->n[t->nn].type = (uint8_t)type;
	t->n[t->nn].a = a;
	t->n[t->nn].b = b;
	return (int)t->nn++;
}

/* A set leaf; the same set is stored once. */
static int
tree_set(struct tree *t, const struct bset *s)
{
	size_t i;

	for (i = 0; i < t->nsets; i++)
		if (memcmp(&t->sets[i], s, sizeof(*s)) == 0)
			break;
	if (i == t->nsets) {
		if (t->nsets == t->setcap) {
			t->setcap = t->setcap ? 2 * t->setcap : 16;
			t->sets = ai_xrealloc(t->sets, t->setcap * sizeof(*t->sets));
		}
		t->sets[t->nsets++] = *s;
	}
	return tree_node(t, A_SET, (int)i, 0);
}

static int
tree_byte(struct tree *t, int c, int icase)
{
	struct bset s;

	memset(&s, 0, sizeof(s));
	bset_add_fold(&s, c, icase);
	return tree_set(t, &s);
}

static int
tree_assert(struct tree *t, int kind)
{
	int n = tree_node(t, A_ASSERT, 0, 0);

	t->n[n].kind = (uint8_t)kind;
	return n;
}

static int
tree_cat(struct tree *t, int a, int b)
{
	if (a < 0)
		return b;
	if (b < 0)
		return a;
	return tree_node(t, A_CAT, a, b);
}

/* ---- the parser ---- */

enum {
	T_END = -1, T_CHAR = 0, T_SET, T_BACKREF, T_BOL, T_EOL, T_BEGWORD, T_ENDWORD, T_LIMWORD,
	T_NOTLIMWORD, T_QMARK, T_STAR, T_PLUS, T_REPMN, T_OR, T_LPAREN, T_RPAREN
};

struct parser {
	struct tree *t;
	const char *p;        /* the rest of the pattern */
	size_t left;
	int ere, icase;
	int laststart;        /* an operator here would apply to nothing (GNU's DFA) */
	int gstart;           /* an operator here starts an expression (glibc) */
	int spans;            /* read as glibc does (o->spans) */
	int glibc;            /* saw what only glibc reads ([=a=], [.a.]) */
	int unknown;          /* the current T_SET is such a bracket */
	int lasttok;
	int parens;
	int tok;              /* the current token */
	int c;                /* T_CHAR: the byte */
	struct bset set;      /* T_SET */
	int minrep, maxrep;   /* T_REPMN */
	int err;              /* X_RE_*, 0 while all is well */
	char *why;
	size_t whysz;
};

/* Where an operator has nothing to apply to, in the reading chosen. */
#define START(ps) ((ps)->spans ? (ps)->gstart : (ps)->laststart)

/* Record the first error; returns -1. */
static int
fail(struct parser *ps, int code, const char *msg)
{
	if (ps->err)
		return -1;
	ps->err = code;
	snprintf(ps->why, ps->whysz, "%s", msg);
	return -1;
}

static int
next_byte(struct parser *ps)
{
	ps->left--;
	return (unsigned char)*ps->p++;
}

#define EBRACK "Unmatched [, [^, [:, [., or [="

/*
 * After "[:", "[=" or "[.": the name up to the closing ":]" (or "=]", ".]")
 * into name; *kind 1 for a class, 2 an equivalence class, 3 a collating
 * symbol.  -1 (EBRACK) when it does not end.
 */
static int
bracket_name(struct parser *ps, char *name, size_t *nl, int *kind)
{
	int delim = ps->p[1];

	*kind = delim == ':' ? 1 : delim == '=' ? 2 : 3;
	ps->p += 2;
	ps->left -= 2;
	*nl = 0;
	for (;;) {
		if (ps->left < 2 || *nl >= 32)
			return fail(ps, X_RE_ESYNTAX, EBRACK);
		if ((unsigned char)ps->p[0] == delim && ps->p[1] == ']')
			break;
		name[(*nl)++] = *ps->p++;
		ps->left--;
	}
	name[*nl] = '\0';
	ps->p += 2;
	ps->left -= 2;
	return 0;
}

static int
bracket_special(const struct parser *ps)
{
	return ps->left > 1 && ps->p[0] == '[' &&
	    (ps->p[1] == ':' || ps->p[1] == '.' || ps->p[1] == '=');
}

/*
 * A bracket expression, after its '['.  glibc's reading (its errors are
 * the ones reported first), then GNU's check for "[:space:]".
 */
static int
bracket(struct parser *ps)
{
	struct bset s;
	int invert = 0, first = 1, colon;

	memset(&s, 0, sizeof(s));
	if (ps->left > 0 && ps->p[0] == '^') {
		invert = 1;
		next_byte(ps);
	}
	colon = ps->left > 0 && ps->p[0] == ':';
	ps->unknown = 0;
	for (;;) {
		int c, kind = 0, lo, hi;   /* kind: 0 a byte, 1 class, 2 equivalence, 3 collating */
		char name[40];
		size_t nl = 0;

		if (ps->left == 0)
			return fail(ps, X_RE_ESYNTAX, EBRACK);
		c = (unsigned char)ps->p[0];
		if (c == ']' && !first)
			break;
		colon &= ~2;
		if (bracket_special(ps)) {
			if (bracket_name(ps, name, &nl, &kind) < 0)
				return -1;
			colon |= 8;
			ps->unknown |= kind != 1;
		} else if (c == '-' && !first && !(ps->left > 1 && ps->p[1] == ']')) {
			/* a '-' that starts nothing but the end */
			return fail(ps, X_RE_ESYNTAX, "Invalid range end");
		} else {
			next_byte(ps);
			colon |= c == ':' ? 2 : 4;
		}
		first = 0;
		if (kind == 1) {
			const char *cl = name;
			int b;

			if (ps->icase && (strcmp(name, "upper") == 0 || strcmp(name, "lower") == 0))
				cl = "alpha";
			if (in_class(cl, 'a') < 0)
				return fail(ps, X_RE_ESYNTAX, "Invalid character class name");
			for (b = 0; b < 256; b++)
				if (in_class(cl, b))
					bset_add(&s, b);
			continue;
		}
		if (kind != 0 && nl != 1)
			return fail(ps, X_RE_ESYNTAX, "Invalid collation character");
		if (kind != 0)
			c = (unsigned char)name[0];
		if (ps->left == 0)
			return fail(ps, X_RE_ESYNTAX, EBRACK);
		if (kind == 2 || ps->p[0] != '-' || (ps->left > 1 && ps->p[1] == ']')) {
			bset_add_fold(&s, c, ps->icase);
			continue;
		}
		/* a range */
		next_byte(ps);
		colon |= 8;
		if (ps->left == 0)
			return fail(ps, X_RE_ESYNTAX, EBRACK);
		if (bracket_special(ps)) {
			int hkind;

			if (bracket_name(ps, name, &nl, &hkind) < 0)
				return -1;
			ps->unknown = 1;
			if (hkind != 3)
				return fail(ps, X_RE_ESYNTAX, "Invalid range end");
			if (nl != 1)
				return fail(ps, X_RE_ESYNTAX, "Invalid collation character");
			hi = (unsigned char)name[0];
		} else {
			hi = next_byte(ps);
		}
		if (c > hi)
			return fail(ps, X_RE_ESYNTAX, "Invalid range end");
		for (lo = c; lo <= hi; lo++)
			bset_add_fold(&s, lo, ps->icase);
	}
	next_byte(ps); /* the ']' */
	if (colon == 7)
		return fail(ps, X_RE_ESYNTAX, "character class syntax is [[:space:]], not [:space:]");
	if (invert)
		bset_invert(&s);
	ps->set = s;
	return 0;
}

/*
 * glibc's reading of the count of an interval, after its '{' (or "\{"):
 * digits, or -1 for none, or -2 for something else; *close says whether it
 * stopped at the closing brace, *comma at a comma, *end at the end.
 */
static int
count(struct parser *ps, const char **q, size_t *ql, int *close, int *comma, int *end)
{
	int num = -1;

	*close = *comma = *end = 0;
	for (;;) {
		int c;

		if (*ql == 0) {
			*end = 1;
			return -2;
		}
		c = (unsigned char)**q;
		if (!ps->ere && c == '\\' && *ql > 1 && (*q)[1] == '}') {
			*q += 2;
			*ql -= 2;
			*close = 1;
			return num;
		}
		if (ps->ere && c == '}') {
			(*q)++;
			(*ql)--;
			*close = 1;
			return num;
		}
		if (c == '\\' && *ql > 1) {
			/* an escaped byte is one token, and not a digit */
			*q += 2;
			*ql -= 2;
			num = -2;
			continue;
		}
		(*q)++;
		(*ql)--;
		if (c == ',') {
			*comma = 1;
			return num;
		}
		num = c < '0' || c > '9' || num == -2 ? -2 :
		    num == -1 ? c - '0' : (num * 10 + c - '0' > RE_DUP_MAX + 1 ? RE_DUP_MAX + 1 :
		    num * 10 + c - '0');
	}
}

/*
 * An interval after "{" or "\{".  Returns 1 for an interval (minrep and
 * maxrep set, the pattern consumed), 0 for a literal '{'.
 */
static int
interval(struct parser *ps)
{
	const char *q = ps->p;
	size_t ql = ps->left;
	int close, comma, end, start, stop, c2, m2, e2;

	/* glibc first: its errors win */
	if (!ps->gstart) {
		start = count(ps, &q, &ql, &close, &comma, &end);
		if (start == -1 && !comma) {
			if (!ps->ere) {
				fail(ps, X_RE_ESYNTAX, end ? "Unmatched \\{" : "Invalid content of \\{\\}");
				return 0;
			}
			/* "{}" */
			fail(ps, X_RE_ESYNTAX, "Invalid content of \\{\\}");
			return 0;
		}
		if (start == -1)
			start = 0;
		stop = start;
		if (start != -2) {
			if (close) {
				stop = start;
			} else {
				stop = count(ps, &q, &ql, &c2, &m2, &e2);
				close = c2;
				end = e2;
				comma = m2;
			}
		}
		if (start == -2 || stop == -2) {
			if (!ps->ere) {
				fail(ps, X_RE_ESYNTAX, end ? "Unmatched \\{" : "Invalid content of \\{\\}");
				return 0;
			}
			return 0; /* glibc reads a literal '{' */
		}
		if ((stop != -1 && start > stop) || !close) {
			fail(ps, X_RE_ESYNTAX, "Invalid content of \\{\\}");
			return 0;
		}
		if ((stop == -1 ? start : stop) > RE_DUP_MAX) {
			fail(ps, X_RE_ESYNTAX, "Regular expression too big");
			return 0;
		}
	}
	/* then the DFA's reading, which gives the meaning */
	q = ps->p;
	ql = ps->left;
	{
		int minrep = -1, maxrep = -1, invalid;

		for (; ql > 0 && *q >= '0' && *q <= '9'; q++, ql--)
			minrep = minrep < 0 ? *q - '0' :
			    (minrep * 10 + *q - '0' > RE_DUP_MAX + 1 ? RE_DUP_MAX + 1 :
			    minrep * 10 + *q - '0');
		if (ql > 0) {
			if (*q != ',') {
				maxrep = minrep;
			} else {
				if (minrep < 0)
					minrep = 0;
				for (q++, ql--; ql > 0 && *q >= '0' && *q <= '9'; q++, ql--)
					maxrep = maxrep < 0 ? *q - '0' :
					    (maxrep * 10 + *q - '0' > RE_DUP_MAX + 1 ? RE_DUP_MAX + 1 :
					    maxrep * 10 + *q - '0');
			}
		}
		invalid = 0;
		if (!ps->ere) {
			if (ql > 0 && *q == '\\') {
				q++;
				ql--;
			} else {
				invalid = 1;
			}
		}
		if (!invalid && ql > 0 && *q == '}') {
			q++;
			ql--;
		} else {
			invalid = 1;
		}
		if (minrep < 0 || (maxrep >= 0 && minrep > maxrep))
			invalid = 1;
		if (invalid && ps->ere)
			return 0;
		if (START(ps) && !ps->ere)
			return 0;
		if (invalid) {
			fail(ps, X_RE_ESYNTAX, "Invalid content of \\{\\}");
			return 0;
		}
		if (maxrep > RE_DUP_MAX) {
			fail(ps, X_RE_ESYNTAX, "Regular expression too big");
			return 0;
		}
		ps->minrep = minrep;
		ps->maxrep = maxrep;
		ps->p = q;
		ps->left = ql;
	}
	return 1;
}

/*
 * The next token (GNU's DFA lexer, in the C locale).  With spans, glibc's
 * reading instead where the two differ: an operator that starts an extended
 * expression (also after an anchor) is skipped, not applied to nothing.
 */
static int
lex1(struct parser *ps)
{
	int backslash = 0, c;

	for (;;) {
		if (ps->err)
			return ps->lasttok = T_END;
		if (ps->left == 0)
			return ps->lasttok = T_END;
		c = next_byte(ps);
		switch (c) {
		case '\\':
			if (backslash)
				goto normal;
			if (ps->left == 0) {
				fail(ps, X_RE_ESYNTAX, "Trailing backslash");
				return ps->lasttok = T_END;
			}
			backslash = 1;
			continue;
		case '^':
			if (backslash)
				goto normal;
			if (ps->ere || ps->lasttok == T_END || ps->lasttok == T_LPAREN ||
			    ps->lasttok == T_OR)
				return ps->lasttok = T_BOL;
			goto normal;
		case '$':
			if (backslash)
				goto normal;
			if (ps->ere || ps->left == 0 || ps->p[0] == '\n' ||
			    (ps->left > 1 && ps->p[0] == '\\' && (ps->p[1] == ')' || ps->p[1] == '|')))
				return ps->lasttok = T_EOL;
			goto normal;
		case '1': case '2': case '3': case '4': case '5': case '6': case '7': case '8':
		case '9':
			if (!backslash)
				goto normal;
			ps->laststart = 0;
			return ps->lasttok = T_BACKREF;
		case '`':
			if (!backslash)
				goto normal;
			return ps->lasttok = T_BOL;
		case '\'':
			if (!backslash)
				goto normal;
			return ps->lasttok = T_EOL;
		case '<':
			if (!backslash)
				goto normal;
			return ps->lasttok = T_BEGWORD;
		case '>':
			if (!backslash)
				goto normal;
			return ps->lasttok = T_ENDWORD;
		case 'b':
			if (!backslash)
				goto normal;
			return ps->lasttok = T_LIMWORD;
		case 'B':
			if (!backslash)
				goto normal;
			return ps->lasttok = T_NOTLIMWORD;
		case '?':
		case '+':
		case '*':
			if (c == '*' ? backslash : backslash != !ps->ere)
				goto normal;
			if (START(ps) && !ps->ere)
				goto normal;
			if (START(ps) && ps->spans) {
				backslash = 0;
				continue;
			}
			return ps->lasttok = c == '?' ? T_QMARK : c == '+' ? T_PLUS : T_STAR;
		case '{':
			if (backslash != !ps->ere)
				goto normal;
			if (ps->spans && ps->ere && ps->gstart) {
				backslash = 0;
				continue;
			}
			if (!interval(ps))
				goto normal;
			ps->laststart = 0;
			return ps->lasttok = T_REPMN;
		case '|':
			if (backslash != !ps->ere)
				goto normal;
			ps->laststart = 1;
			return ps->lasttok = T_OR;
		case '\n':
			/* only in the text that wraps patterns for -w and -x */
			if (backslash)
				goto normal;
			ps->laststart = 1;
			return ps->lasttok = T_OR;
		case '(':
			if (backslash != !ps->ere)
				goto normal;
			ps->parens++;
			ps->laststart = 1;
			return ps->lasttok = T_LPAREN;
		case ')':
			if (backslash != !ps->ere)
				goto normal;
			if (ps->parens == 0 && ps->ere)
				goto normal;
			if (ps->parens == 0) {
				fail(ps, X_RE_ESYNTAX, "Unmatched ) or \\)");
				return ps->lasttok = T_END;
			}
			ps->parens--;
			ps->laststart = 0;
			return ps->lasttok = T_RPAREN;
		case '.':
			if (backslash)
				goto normal;
			memset(&ps->set, 0xff, sizeof(ps->set));
			ps->laststart = 0;
			return ps->lasttok = T_SET;
		case 's':
		case 'S':
		case 'w':
		case 'W': {
			int b;

			if (!backslash)
				goto normal;
			memset(&ps->set, 0, sizeof(ps->set));
			for (b = 0; b < 256; b++)
				if (c == 's' || c == 'S' ? in_class("space", b) : is_word(b))
					bset_add(&ps->set, b);
			if (c == 'S' || c == 'W')
				bset_invert(&ps->set);
			ps->laststart = 0;
			return ps->lasttok = T_SET;
		}
		case '[':
			if (backslash)
				goto normal;
			ps->laststart = 0;
			bracket(ps);
			return ps->lasttok = T_SET;
		default:
		normal:
			ps->laststart = 0;
			memset(&ps->set, 0, sizeof(ps->set));
			bset_add_fold(&ps->set, c, ps->icase);
			ps->c = c;
			return ps->lasttok = T_SET;
		}
	}
}

static int
lex(struct parser *ps)
{
	int t = lex1(ps);

	ps->gstart = t == T_LPAREN || t == T_OR || (t >= T_BOL && t <= T_NOTLIMWORD);
	return t;
}

static int regexp(struct parser *ps);

static int
atom(struct parser *ps)
{
	struct tree *t = ps->t;
	int n;

	switch (ps->tok) {
	case T_SET:
		if (ps->unknown && !ps->spans) {
			ps->glibc = 1;
			n = tree_node(t, A_ACCEPT, 0, 0);
		} else {
			n = tree_set(t, &ps->set);
		}
		ps->unknown = 0;
		break;
	case T_BACKREF:
		fail(ps, X_RE_EBACKREF, "back-references are not supported");
		return -1;
	case T_BOL:
		n = tree_assert(t, K_BOL);
		break;
	case T_EOL:
		n = tree_assert(t, K_EOL);
		break;
	case T_BEGWORD:
		n = tree_assert(t, K_BEGWORD);
		break;
	case T_ENDWORD:
		n = tree_assert(t, K_ENDWORD);
		break;
	case T_LIMWORD:
		n = tree_assert(t, K_LIMWORD);
		break;
	case T_NOTLIMWORD:
		n = tree_assert(t, K_NOTLIMWORD);
		break;
	case T_LPAREN:
		ps->tok = lex(ps);
		n = regexp(ps);
		if (ps->err)
			return -1;
		if (ps->tok != T_RPAREN) {
			fail(ps, X_RE_ESYNTAX, "Unmatched ( or \\(");
			return -1;
		}
		ps->tok = lex(ps);
		return n;
	default:
		return tree_node(t, A_EMPTY, 0, 0);
	}
	ps->tok = lex(ps);
	return n;
}

static int
closure(struct parser *ps)
{
	struct tree *t = ps->t;
	int n = atom(ps);

	while (!ps->err && (ps->tok == T_QMARK || ps->tok == T_STAR || ps->tok == T_PLUS ||
	    ps->tok == T_REPMN)) {
		int r;

		if (ps->tok == T_REPMN && ps->minrep == 0 && ps->maxrep == 0) {
			n = tree_node(t, A_EMPTY, 0, 0); /* {0} takes away what it follows */
			ps->tok = lex(ps);
			continue;
		}
		r = tree_node(t, A_REP, n, 0);
		t->n[r].min = ps->tok == T_PLUS ? 1 : ps->tok == T_REPMN ? ps->minrep : 0;
		t->n[r].max = ps->tok == T_QMARK ? 1 : ps->tok == T_REPMN ? ps->maxrep : -1;
		n = r;
		ps->tok = lex(ps);
	}
	return n;
}

static int
branch(struct parser *ps)
{
	int n = closure(ps);

	while (!ps->err && ps->tok != T_RPAREN && ps->tok != T_OR && ps->tok != T_END)
		n = tree_node(ps->t, A_CAT, n, closure(ps));
	return n;
}

static int
regexp(struct parser *ps)
{
	int n = branch(ps);

	while (!ps->err && ps->tok == T_OR) {
		ps->tok = lex(ps);
		n = tree_node(ps->t, A_ALT, n, branch(ps));
	}
	return n;
}

/* One pattern into the tree; its root, or -1 with ps->err set. */
static int
parse(struct parser *ps)
{
	int n;

	ps->lasttok = T_END;
	ps->laststart = 1;
	ps->gstart = 1;
	ps->tok = lex(ps);
	n = regexp(ps);
	if (!ps->err && ps->tok != T_END)
		fail(ps, X_RE_ESYNTAX, ps->ere ? "Unmatched ) or \\)" : "Unmatched ) or \\)");
	if (!ps->err && ps->parens > 0)
		fail(ps, X_RE_ESYNTAX, "Unmatched ( or \\(");
	return ps->err ? -1 : n;
}

/* A fixed string: the concatenation of its bytes. */
static int
fixed(struct tree *t, const char *s, size_t n, int icase)
{
	int r = -1;
	size_t i;

	for (i = 0; i < n; i++)
		r = tree_cat(t, r, tree_byte(t, (unsigned char)s[i], icase));
	return r < 0 ? tree_node(t, A_EMPTY, 0, 0) : r;
}

/* ---- the literal every match contains ---- */

struct lit {
	char *full;          /* the whole match, when it is always this string */
	int exact;
	char *left, *right;  /* what every match starts and ends with */
	char *in;            /* the longest string inside every match */
};

static char *
cat2(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	char *s = ai_xmalloc(la + lb + 1);

	memcpy(s, a, la);
	memcpy(s + la, b, lb + 1);
	return s;
}

static char *
longer(char *a, char *b)
{
	if (strlen(b) > strlen(a)) {
		free(a);
		return b;
	}
	free(b);
	return a;
}

static void
lit_free(struct lit *l)
{
	free(l->full);
	free(l->left);
	free(l->right);
	free(l->in);
}

/* A byte set of exactly one byte: that byte, else -1. */
static int
single(const struct bset *s)
{
	int i, c = -1, k = 0;

	for (i = 0; i < 4; i++) {
		uint64_t w = s->w[i];

		while (w) {
			int b = __builtin_ctzll(w);

			if (++k > 1)
				return -1;
			c = i * 64 + b;
			w &= w - 1;
		}
	}
	return c == 0 ? -1 : c; /* NUL stays out of C strings */
}

static void
lit_of(const struct tree *t, int n, struct lit *l, int depth)
{
	const struct anode *a = &t->n[n];

	memset(l, 0, sizeof(*l));
	if (depth > 200) {
		/* too deep to look at: unknown, which is always true */
		l->full = ai_xstrdup("");
		l->left = ai_xstrdup("");
		l->right = ai_xstrdup("");
		l->in = ai_xstrdup("");
		return;
	}
	switch (a->type) {
	case A_SET: {
		int c = single(&t->sets[a->a]);
		char s[2] = { (char)c, '\0' };

		if (c > 0) {
			l->exact = 1;
			l->full = ai_xstrdup(s);
			l->left = ai_xstrdup(s);
			l->right = ai_xstrdup(s);
			l->in = ai_xstrdup(s);
			return;
		}
		break;
	}
	case A_ASSERT:
		/* no byte, but not always true: never "exactly" anything */
		l->full = ai_xstrdup("");
		l->left = ai_xstrdup("");
		l->right = ai_xstrdup("");
		l->in = ai_xstrdup("");
		return;
	case A_EMPTY:
		l->exact = 1;
		l->full = ai_xstrdup("");
		l->left = ai_xstrdup("");
		l->right = ai_xstrdup("");
		l->in = ai_xstrdup("");
		return;
	case A_CAT: {
		struct lit x, y;

		lit_of(t, a->a, &x, depth + 1);
		lit_of(t, a->b, &y, depth + 1);
		l->exact = x.exact && y.exact;
		l->full = l->exact ? cat2(x.full, y.full) : ai_xstrdup("");
		l->left = x.exact ? cat2(x.full, y.left) : ai_xstrdup(x.left);
		l->right = y.exact ? cat2(x.right, y.full) : ai_xstrdup(y.right);
		l->in = longer(ai_xstrdup(x.in), ai_xstrdup(y.in));
		l->in = longer(l->in, cat2(x.right, y.left));
		l->in = longer(l->in, ai_xstrdup(l->left));
		l->in = longer(l->in, ai_xstrdup(l->right));
		if (l->exact)
			l->in = longer(l->in, ai_xstrdup(l->full));
		lit_free(&x);
		lit_free(&y);
		return;
	}
	case A_REP:
		if (a->min >= 1) {
			struct lit x;

			lit_of(t, a->a, &x, depth + 1);
			l->exact = 0;
			l->full = ai_xstrdup("");
			l->left = ai_xstrdup(x.left);
			l->right = ai_xstrdup(x.right);
			l->in = ai_xstrdup(x.in);
			if (a->min == 1 && a->max == 1) {
				l->exact = x.exact;
				free(l->full);
				l->full = ai_xstrdup(x.full);
			}
			lit_free(&x);
			return;
		}
		break;
	default:
		break;
	}
	l->exact = 0;
	l->full = ai_xstrdup("");
	l->left = ai_xstrdup("");
	l->right = ai_xstrdup("");
	l->in = ai_xstrdup("");
}

/* ---- the automaton ---- */

enum { I_SET, I_SPLIT, I_NOP, I_ASSERT, I_MATCH };

struct inst {
	uint8_t op;
	uint8_t kind;   /* I_ASSERT */
	uint16_t set;   /* I_SET */
	uint32_t x, y;  /* next; I_SPLIT: both */
};

struct prog {
	struct inst *in;
	uint32_t n, cap;
	uint32_t start;
	int uses_prev;   /* some assertion looks at the byte before */
	int uses_next;   /* some assertion looks at the byte after */
	int big;
};

/*
 * Holes: instruction fields still to point somewhere, chained through
 * themselves, (index << 1 | field) + 1, 0 ending the chain; a fragment
 * knows its first and last hole, so that joining two lists costs nothing.
 * Once the automaton is too big nothing is patched any more: the result is
 * thrown away.
 */
struct frag {
	uint32_t start;
	uint32_t holes, tail;
};

static uint32_t *
hole_field(struct prog *g, uint32_t h)
{
	struct inst *i = &g->in[(h - 1) >> 1];

	return ((h - 1) & 1) ? &i->y : &i->x;
}

static void
patch(struct prog *g, uint32_t holes, uint32_t target)
{
	while (holes && !g->big) {
		uint32_t *f = hole_field(g, holes);

		holes = *f;
		*f = target;
	}
}

static struct frag
frag_of(uint32_t start, uint32_t hole)
{
	struct frag f = { start, hole, hole };

	return f;
}

/* The holes of a, then those of b. */
static void
join(struct prog *g, struct frag *a, const struct frag *b)
{
	if (g->big || b->holes == 0)
		return;
	if (a->holes == 0) {
		a->holes = b->holes;
		a->tail = b->tail;
		return;
	}
	*hole_field(g, a->tail) = b->holes;
	a->tail = b->tail;
}

static uint32_t
emit(struct prog *g, int op)
{
	if (g->n >= MAX_INST)
		g->big = 1;
	if (g->big)
		return 0;
	if (g->n == g->cap) {
		g->cap = g->cap ? 2 * g->cap : 64;
		g->in = ai_xrealloc(g->in, g->cap * sizeof(*g->in));
	}
	memset(&g->in[g->n], 0, sizeof(g->in[0]));
	g->in[g->n].op = (uint8_t)op;
	return g->n++;
}

static int
swap_kind(int k)
{
	switch (k) {
	case K_BOL:
		return K_EOL;
	case K_EOL:
		return K_BOL;
	case K_BEGWORD:
		return K_ENDWORD;
	case K_ENDWORD:
		return K_BEGWORD;
	case K_NOWORD_BEFORE:
		return K_NOWORD_AFTER;
	case K_NOWORD_AFTER:
		return K_NOWORD_BEFORE;
	default:
		return k;
	}
}

static struct frag gen(struct prog *g, const struct tree *t, int n, int rev, int depth);

static struct frag
gen_empty(struct prog *g)
{
	uint32_t i = emit(g, I_NOP);

	return frag_of(i, (i << 1) + 1);
}

/* body, any number of times: a SPLIT before it that it loops back to */
static struct frag
gen_star(struct prog *g, struct frag body)
{
	uint32_t s = emit(g, I_SPLIT);

	if (g->big)
		return frag_of(0, 0);
	g->in[s].x = body.start;
	patch(g, body.holes, s);
	return frag_of(s, (s << 1 | 1) + 1);
}

/* body, once or more: it loops back through a SPLIT after it */
static struct frag
gen_plus(struct prog *g, struct frag body)
{
	uint32_t s = emit(g, I_SPLIT);

	if (g->big)
		return frag_of(0, 0);
	g->in[s].x = body.start;
	patch(g, body.holes, s);
	return frag_of(body.start, (s << 1 | 1) + 1);
}

static struct frag
gen_quest(struct prog *g, struct frag body)
{
	uint32_t s = emit(g, I_SPLIT);
	struct frag f;

	if (g->big)
		return frag_of(0, 0);
	g->in[s].x = body.start;
	f = frag_of(s, (s << 1 | 1) + 1);
	join(g, &f, &body);
	return f;
}

static struct frag
gen_cat(struct prog *g, struct frag a, struct frag b)
{
	patch(g, a.holes, b.start);
	a.holes = b.holes;
	a.tail = b.tail;
	return a;
}

static struct frag
gen(struct prog *g, const struct tree *t, int n, int rev, int depth)
{
	const struct anode *a = &t->n[n];

	if (g->big || depth > 10000) {
		g->big = 1;
		return frag_of(0, 0);
	}
	switch (a->type) {
	case A_SET: {
		uint32_t i = emit(g, I_SET);

		if (!g->big)
			g->in[i].set = (uint16_t)a->a;
		return frag_of(i, (i << 1) + 1);
	}
	case A_ACCEPT:
		return frag_of(emit(g, I_MATCH), 0);
	case A_ASSERT: {
		uint32_t i = emit(g, I_ASSERT);

		if (!g->big)
			g->in[i].kind = (uint8_t)(rev ? swap_kind(a->kind) : a->kind);
		return frag_of(i, (i << 1) + 1);
	}
	case A_CAT: {
		struct frag x = gen(g, t, rev ? a->b : a->a, rev, depth + 1);
		struct frag y = gen(g, t, rev ? a->a : a->b, rev, depth + 1);

		return gen_cat(g, x, y);
	}
	case A_ALT: {
		uint32_t s = emit(g, I_SPLIT);
		struct frag x = gen(g, t, a->a, rev, depth + 1);
		struct frag y = gen(g, t, a->b, rev, depth + 1);

		if (g->big)
			return frag_of(0, 0);
		g->in[s].x = x.start;
		g->in[s].y = y.start;
		x.start = s;
		join(g, &x, &y);
		return x;
	}
	case A_REP: {
		struct frag acc = gen_empty(g);
		int i;

		/* min copies (the last one looping when there is no bound), then the optional ones */
		for (i = 0; i < a->min && !g->big; i++) {
			if (a->max < 0 && i == a->min - 1)
				return gen_cat(g, acc, gen_plus(g, gen(g, t, a->a, rev, depth + 1)));
			acc = gen_cat(g, acc, gen(g, t, a->a, rev, depth + 1));
		}
		if (a->max < 0)
			return gen_cat(g, acc, gen_star(g, gen(g, t, a->a, rev, depth + 1)));
		for (; i < a->max && !g->big; i++)
			acc = gen_cat(g, acc, gen_quest(g, gen(g, t, a->a, rev, depth + 1)));
		return acc;
	}
	default:
		return gen_empty(g);
	}
}

/* The whole automaton for root; MATCH at its end. */
static void
compile(struct prog *g, const struct tree *t, int root, int rev)
{
	struct frag f = gen(g, t, root, rev, 0);
	uint32_t m = emit(g, I_MATCH), i;

	patch(g, f.holes, m);
	g->start = f.start;
	for (i = 0; i < g->n; i++) {
		if (g->in[i].op != I_ASSERT)
			continue;
		switch (g->in[i].kind) {
		case K_EOL:
		case K_NOWORD_AFTER:
			g->uses_next = 1;
			break;
		case K_BOL:
		case K_NOWORD_BEFORE:
			g->uses_prev = 1;
			break;
		default:
			g->uses_prev = g->uses_next = 1;
			break;
		}
	}
}

/*
 * How common a byte is in text and code, roughly: a literal is looked for
 * by its rarest byte.
 */
static int
byte_rank(unsigned char c)
{
	static const char common[] = " etaoinsrhldcumfpgwybvkxjqz"
	    "\n0123456789ETAOINSRHLDCUMFPGWYBVKXJQZ.,_-/:;=()\"'\t{}[]<>*#+!|&$%@?~^`\\";
	const char *q = c != '\0' ? strchr(common, c) : NULL;

	return q != NULL ? (int)(sizeof(common) - (size_t)(q - common)) : 0;
}

/* ---- the DFA ---- */

/* What a byte is, for the assertions: the line's edge, a word character, another. */
enum { C_EDGE = 0, C_WORD = 1, C_OTHER = 2, C_EOL = 3 };

static int
holds(int kind, int prev, int next)
{
	int pw = prev == C_WORD, nw = next == C_WORD;

	switch (kind) {
	case K_BOL:
		return prev == C_EDGE;
	case K_EOL:
		return next == C_EDGE;
	case K_BEGWORD:
		return !pw && nw;
	case K_ENDWORD:
		return pw && !nw;
	case K_LIMWORD:
		return pw != nw;
	case K_NOTLIMWORD:
		return pw == nw;
	case K_NOWORD_BEFORE:
		return !pw;
	default:
		return !nw;
	}
}

enum { ACCEL_NONE = 4 };

struct dfa {
	struct prog *g;
	const struct x_re *re;
	int unanchored;
	uint32_t n, cap;        /* states */
	uint32_t **kern;        /* each state's positions, sorted */
	uint32_t *nk;
	uint8_t *prev;          /* C_* of the byte before */
	int8_t *eolm;           /* a match at the line's edge: -1 not known yet */
	int32_t *trans;         /* n * ncls: (target row << 1 | match), -1 unknown */
	int32_t *ht;            /* hash table of states: index + 1, 0 empty */
	uint32_t htcap;
	size_t mem;
	int32_t init[3];        /* the state at a line's start, by prev: -1 unknown */
	uint32_t flushes;       /* times the cache was emptied */
	/*
	 * The bytes that leave the start state (accel_n of them, at most 3):
	 * a scan in that state skips to the next of them.  accel_n is -1
	 * while not known, 4 when there are more.
	 */
	int accel_n;
	int32_t accel_row;
	uint8_t accel_b[3];
	/* scratch */
	uint32_t *stamp, gen;
	uint32_t *stack, *list, *next;
};

struct x_re {
	struct tree t;
	struct prog fwd, rev;
	struct dfa find, anch, back;   /* unanchored forward, anchored forward, reverse */
	int ncls;
	uint8_t cls[256];
	uint8_t clsctx[257];           /* C_WORD, C_OTHER or C_EOL */
	uint8_t rep[257];              /* a byte of each class */
	unsigned char eol;
	char *must;                    /* a literal in every match, or NULL */
	size_t mustlen;
	size_t rare;                   /* where in must its rarest byte is */
	int literal;                   /* the pattern is exactly must */
	struct x_re *also;             /* glibc's reading, when it must agree too */
	/* x_re_match's cache: where matches start in the last line seen */
	const char *mline;
	size_t mlen;
	uint8_t *starts;
	size_t startcap;
};

/* Byte classes: bytes that every set and every context treat alike. */
static void
make_classes(struct x_re *re)
{
	uint64_t sig[256];
	int b, k;

	for (b = 0; b < 256; b++) {
		uint64_t h = 1469598103934665603ull;
		size_t i;
		int ctx = b == re->eol ? C_EOL : is_word(b) ? C_WORD : C_OTHER;

		h = (h ^ (uint64_t)ctx) * 1099511628211ull;
		for (i = 0; i < re->t.nsets; i++)
			h = (h ^ (uint64_t)bset_has(&re->t.sets[i], b)) * 1099511628211ull;
		sig[b] = h;
	}
	re->ncls = 0;
	for (b = 0; b < 256; b++) {
		for (k = 0; k < b; k++)
			if (sig[k] == sig[b])
				break;
		if (k < b) {
			re->cls[b] = re->cls[k];
			continue;
		}
		re->cls[b] = (uint8_t)re->ncls;
		re->rep[re->ncls] = (uint8_t)b;
		re->clsctx[re->ncls] = b == re->eol ? C_EOL : is_word(b) ? C_WORD : C_OTHER;
		re->ncls++;
	}
}

/*
 * Sets of bytes whose signatures collide would share a class: checked
 * here, and a collision (never seen) splits nothing but is harmless only if
 * the sets agree, so verify and fall back to one class per byte.
 */
static void
check_classes(struct x_re *re)
{
	int b;
	size_t i;

	for (b = 0; b < 256; b++) {
		int r = re->rep[re->cls[b]];

		for (i = 0; i < re->t.nsets; i++)
			if (bset_has(&re->t.sets[i], b) != bset_has(&re->t.sets[i], r))
				goto split;
		if ((b == re->eol) != (r == re->eol) || is_word(b) != is_word(r))
			goto split;
	}
	return;
split:
	for (b = 0; b < 256; b++) {
		re->cls[b] = (uint8_t)b;
		re->rep[b] = (uint8_t)b;
		re->clsctx[b] = b == re->eol ? C_EOL : is_word(b) ? C_WORD : C_OTHER;
	}
	re->ncls = 256;
}

static void
dfa_flush(struct dfa *d)
{
	uint32_t i;

	for (i = 0; i < d->n; i++)
		free(d->kern[i]);
	d->n = 0;
	d->mem = 0;
	memset(d->ht, 0, d->htcap * sizeof(*d->ht));
	d->init[0] = d->init[1] = d->init[2] = -1;
	d->accel_n = ACCEL_NONE; /* not again: the cache is too small for it */
	d->flushes++;
}

static void
dfa_init(struct dfa *d, struct prog *g, const struct x_re *re, int unanchored)
{
	memset(d, 0, sizeof(*d));
	d->g = g;
	d->re = re;
	d->unanchored = unanchored;
	d->htcap = 1024;
	d->ht = ai_xcalloc(d->htcap, sizeof(*d->ht));
	d->init[0] = d->init[1] = d->init[2] = -1;
	d->accel_n = -1;
	d->stamp = ai_xcalloc(g->n + 1, sizeof(*d->stamp));
	d->stack = ai_xmalloc((g->n + 1) * 2 * sizeof(*d->stack));
	d->list = ai_xmalloc((g->n + 1) * sizeof(*d->list));
	d->next = ai_xmalloc((g->n + 2) * sizeof(*d->next));
}

static void
dfa_free(struct dfa *d)
{
	if (d->g == NULL)
		return;
	dfa_flush(d);
	free(d->kern);
	free(d->nk);
	free(d->prev);
	free(d->eolm);
	free(d->trans);
	free(d->ht);
	free(d->stamp);
	free(d->stack);
	free(d->list);
	free(d->next);
	memset(d, 0, sizeof(*d));
}

static uint32_t
hash_state(const uint32_t *k, uint32_t n, int prev)
{
	uint32_t h = 2166136261u ^ (uint32_t)prev, i;

	for (i = 0; i < n; i++)
		h = (h ^ k[i]) * 16777619u;
	return h;
}

static int
cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* The state of positions k[0..n) (sorted) after a byte of context prev; may flush. */
static uint32_t
intern(struct dfa *d, const uint32_t *k, uint32_t n, int prev)
{
	const struct x_re *re = d->re;
	uint32_t h, slot, s;

	if (!d->g->uses_prev)
		prev = C_EDGE;
	h = hash_state(k, n, prev);
	for (slot = h & (d->htcap - 1); d->ht[slot] != 0; slot = (slot + 1) & (d->htcap - 1)) {
		s = (uint32_t)d->ht[slot] - 1;
		if (d->nk[s] == n && d->prev[s] == prev && memcmp(d->kern[s], k, n * sizeof(*k)) == 0)
			return s;
	}
	if (d->n >= MAX_STATES || d->mem > MAX_CACHE) {
		dfa_flush(d);
		for (slot = h & (d->htcap - 1); d->ht[slot] != 0; slot = (slot + 1) & (d->htcap - 1))
			;
	}
	if (d->n == d->cap) {
		d->cap = d->cap ? 2 * d->cap : 16;
		d->kern = ai_xrealloc(d->kern, d->cap * sizeof(*d->kern));
		d->nk = ai_xrealloc(d->nk, d->cap * sizeof(*d->nk));
		d->prev = ai_xrealloc(d->prev, d->cap);
		d->eolm = ai_xrealloc(d->eolm, d->cap);
		d->trans = ai_xrealloc(d->trans, (size_t)d->cap * (size_t)re->ncls * sizeof(*d->trans));
	}
	s = d->n++;
	d->kern[s] = ai_xmalloc((n ? n : 1) * sizeof(*k));
	memcpy(d->kern[s], k, n * sizeof(*k));
	d->nk[s] = n;
	d->prev[s] = (uint8_t)prev;
	d->eolm[s] = -1;
	memset(d->trans + (size_t)s * (size_t)re->ncls, 0xff, (size_t)re->ncls * sizeof(*d->trans));
	d->mem += n * sizeof(*k) + (size_t)re->ncls * sizeof(*d->trans) + 32;
	d->ht[slot] = (int32_t)s + 1;
	if (d->n * 2 > d->htcap) {
		uint32_t i, cap = d->htcap * 2;
		int32_t *ht = ai_xcalloc(cap, sizeof(*ht));

		for (i = 0; i < d->n; i++) {
			uint32_t hh = hash_state(d->kern[i], d->nk[i], d->prev[i]) & (cap - 1);

			while (ht[hh] != 0)
				hh = (hh + 1) & (cap - 1);
			ht[hh] = (int32_t)i + 1;
		}
		free(d->ht);
		d->ht = ht;
		d->htcap = cap;
	}
	return s;
}

/* The state where a scan starts, after a byte of context prev. */
static uint32_t
initial(struct dfa *d, int prev)
{
	uint32_t k = d->g->start, s;

	if (!d->g->uses_prev)
		prev = C_EDGE;
	if (d->init[prev] >= 0)
		return (uint32_t)d->init[prev];
	s = intern(d, &k, 1, prev);
	d->init[prev] = (int32_t)s;
	return s;
}

/* The positions reachable from state s without a byte, between prev and next; *match. */
static uint32_t
closure_of(struct dfa *d, uint32_t s, int next, int *match)
{
	const struct prog *g = d->g;
	uint32_t sp = 0, nl = 0, i;
	int prev = d->prev[s];

	*match = 0;
	if (++d->gen == 0) {
		memset(d->stamp, 0, (g->n + 1) * sizeof(*d->stamp));
		d->gen = 1;
	}
	for (i = d->nk[s]; i-- > 0;)
		d->stack[sp++] = d->kern[s][i];
	while (sp > 0) {
		uint32_t pc = d->stack[--sp];
		const struct inst *in = &g->in[pc];

		if (d->stamp[pc] == d->gen)
			continue;
		d->stamp[pc] = d->gen;
		switch (in->op) {
		case I_SET:
			d->list[nl++] = pc;
			break;
		case I_MATCH:
			*match = 1;
			break;
		case I_SPLIT:
			d->stack[sp++] = in->y;
			d->stack[sp++] = in->x;
			break;
		case I_NOP:
			d->stack[sp++] = in->x;
			break;
		default:
			if (holds(in->kind, prev, next))
				d->stack[sp++] = in->x;
			break;
		}
	}
	return nl;
}

/* Whether state s matches at the line's edge. */
static int
eol_match(struct dfa *d, uint32_t s)
{
	if (d->eolm[s] < 0) {
		int m;

		closure_of(d, s, C_EDGE, &m);
		d->eolm[s] = (int8_t)m;
	}
	return d->eolm[s];
}

/*
 * The transition of state s on byte class k: (target row << 1 | match).
 * Making the target may empty the cache; s then names nothing any more and
 * the transition is not stored (the scan goes on from the target).
 */
static int32_t
step(struct dfa *d, uint32_t s, int k)
{
	const struct x_re *re = d->re;
	const struct prog *g = d->g;
	int ctx = re->clsctx[k], match, b = re->rep[k];
	uint32_t nl, i, nn = 0, t, flushes = d->flushes;
	int32_t v;

	if (ctx == C_EOL) {
		match = eol_match(d, s);
		t = initial(d, C_EDGE);
	} else {
		nl = closure_of(d, s, ctx, &match);
		for (i = 0; i < nl; i++) {
			const struct inst *in = &g->in[d->list[i]];

			if (bset_has(&re->t.sets[in->set], b))
				d->next[nn++] = in->x;
		}
		if (d->unanchored)
			d->next[nn++] = g->start;
		qsort(d->next, nn, sizeof(*d->next), cmp_u32);
		for (i = 1, t = nn ? 1 : 0; i < nn; i++)
			if (d->next[i] != d->next[t - 1])
				d->next[t++] = d->next[i];
		nn = t;
		t = intern(d, d->next, nn, ctx);
	}
	v = (int32_t)((t * (uint32_t)re->ncls) << 1 | (uint32_t)match);
	if (d->flushes == flushes)
		d->trans[(size_t)s * (size_t)re->ncls + (size_t)k] = v;
	return v;
}

/* ---- compiling ---- */

static void
re_free_parts(struct x_re *re)
{
	dfa_free(&re->find);
	dfa_free(&re->anch);
	dfa_free(&re->back);
	free(re->fwd.in);
	free(re->rev.in);
	free(re->t.n);
	free(re->t.sets);
	free(re->must);
	free(re->starts);
	x_re_free(re->also);
}

void
x_re_free(struct x_re *re)
{
	if (re == NULL)
		return;
	re_free_parts(re);
	free(re);
}

/* One pattern into t: its root, or -1 and the error (X_RE_*). */
static int
parse_one(struct tree *t, const char *p, size_t len, const struct x_re_opts *o, int spans,
    int *glibc, int *err, char *why, size_t whysz)
{
	struct parser ps;
	int r;

	memset(&ps, 0, sizeof(ps));
	ps.t = t;
	ps.p = p;
	ps.left = len;
	ps.ere = o->syntax == X_RE_EXTENDED;
	ps.icase = o->icase;
	ps.spans = spans;
	ps.why = why;
	ps.whysz = whysz;
	r = parse(&ps);
	*err = ps.err;
	if (glibc != NULL)
		*glibc |= ps.glibc;
	return r;
}

/* The patterns, alternatives of each other, into t; -1 and *err on an error. */
static int
parse_all(struct tree *t, const char *const *pats, const size_t *lens, size_t n,
    const struct x_re_opts *o, int spans, int *glibc, int *err, char *why, size_t whysz)
{
	int root = -1;
	size_t i;

	for (i = 0; i < n; i++) {
		const char *p = pats[i], *end = p + lens[i];

		/* a pattern of several lines is several patterns, as in GNU grep */
		for (;;) {
			const char *lf = memchr(p, '\n', (size_t)(end - p));
			size_t len = lf ? (size_t)(lf - p) : (size_t)(end - p);
			int r;

			if (o->syntax == X_RE_FIXED)
				r = fixed(t, p, len, o->icase);
			else if ((r = parse_one(t, p, len, o, spans, glibc, err, why, whysz)) < 0)
				return -1;
			root = root < 0 ? r : tree_node(t, A_ALT, root, r);
			if (lf == NULL)
				break;
			p = lf + 1;
		}
	}
	return root < 0 ? tree_node(t, A_EMPTY, 0, 0) : root;
}

/*
 * -w and -x as GNU grep's DFA sees them: the patterns, joined by newlines
 * (alternatives), inside a text that adds what may come before and after;
 * an unmatched ')' of an extended pattern closes that text's group.
 */
static int
parse_wrapped(struct tree *t, const char *const *pats, const size_t *lens, size_t n,
    const struct x_re_opts *o, int *err, char *why, size_t whysz)
{
	static const char *const wrap[2][2][2] = {
		{ { "\\(^\\|[^[:alnum:]_]\\)\\(", "\\)\\([^[:alnum:]_]\\|$\\)" },
		  { "^\\(", "\\)$" } },
		{ { "(^|[^[:alnum:]_])(", ")([^[:alnum:]_]|$)" },
		  { "^(", ")$" } },
	};
	const char *const *w = wrap[o->syntax == X_RE_EXTENDED][o->lines != 0];
	struct ai_buf b = AI_BUF_INIT(AI_BUF_NOLIMIT);
	struct x_re_opts lo = *o;
	size_t i;
	int r;

	ai_buf_adds(&b, w[0]);
	for (i = 0; i < n; i++) {
		if (i > 0)
			ai_buf_addc(&b, '\n');
		ai_buf_add(&b, pats[i], lens[i]);
	}
	ai_buf_adds(&b, w[1]);
	r = parse_one(t, b.buf, b.len, &lo, 0, NULL, err, why, whysz);
	ai_buf_release(&b);
	return r;
}

int
x_re_compile(struct x_re **out, const char *const *pats, const size_t *lens, size_t n,
    const struct x_re_opts *o, char *why, size_t whysz)
{
	struct x_re *re = ai_xcalloc(1, sizeof(*re));
	struct tree *t = &re->t;
	int root, err = 0, glibc = 0, assertions = 1;

	*out = NULL;
	re->eol = o->eol;
	/* errors, and whether glibc's reading decides */
	root = parse_all(t, pats, lens, n, o, o->spans, &glibc, &err, why, whysz);
	if (root >= 0 && !o->spans && o->syntax != X_RE_FIXED && (o->words || o->lines)) {
		root = parse_wrapped(t, pats, lens, n, o, &err, why, whysz);
		assertions = 0;
	}
	if (root >= 0 && glibc) {
		/*
		 * GNU's DFA cannot read an equivalence class or a collating
		 * symbol: it selects the lines where the pattern matches up to
		 * there, and glibc's reading of the whole pattern must match too.
		 */
		struct x_re_opts go = *o;

		go.spans = 1;
		if ((err = x_re_compile(&re->also, pats, lens, n, &go, why, whysz)) < 0)
			root = -1;
	}
	if (root < 0) {
		x_re_free(re);
		return err;
	}
	/* the literal to look for first (-w and -x add no byte) */
	if (!o->icase) {
		struct lit l;

		lit_of(t, root, &l, 0);
		/* a literal that holds the line end can only be in a match that spans lines: none */
		if (l.in[0] != '\0' && memchr(l.in, o->eol, strlen(l.in)) == NULL) {
			size_t j;

			re->mustlen = strlen(l.in);
			re->must = ai_xmemdup(l.in, re->mustlen + 1);
			for (j = 1; j < re->mustlen; j++)
				if (byte_rank((unsigned char)l.in[j]) <
				    byte_rank((unsigned char)l.in[re->rare]))
					re->rare = j;
			re->literal = l.exact && strcmp(l.full, l.in) == 0 && !o->words && !o->lines;
		}
		lit_free(&l);
	}
	if (assertions && o->lines)
		root = tree_cat(t, tree_assert(t, K_BOL), tree_cat(t, root, tree_assert(t, K_EOL)));
	else if (assertions && o->words)
		root = tree_cat(t, tree_assert(t, K_NOWORD_BEFORE),
		    tree_cat(t, root, tree_assert(t, K_NOWORD_AFTER)));
	if (t->nsets > MAX_SETS) {
		snprintf(why, whysz, "the regular expression is too big");
		x_re_free(re);
		return X_RE_EBIG;
	}
	compile(&re->fwd, t, root, 0);
	compile(&re->rev, t, root, 1);
	if (re->fwd.big || re->rev.big) {
		snprintf(why, whysz, "the regular expression is too big: more than %u states",
		    MAX_INST);
		x_re_free(re);
		return X_RE_EBIG;
	}
	make_classes(re);
	check_classes(re);
	dfa_init(&re->find, &re->fwd, re, 1);
	dfa_init(&re->anch, &re->fwd, re, 0);
	dfa_init(&re->back, &re->rev, re, 1);
	*out = re;
	return 0;
}

/* ---- matching ---- */

static int
ends_line(const struct x_re *re, unsigned char c)
{
	return c == re->eol;
}

/*
 * The first of the literal must in p[0..n): the rarest byte is found with
 * memchr, then the rest compared.  When candidates that fail come so often
 * that comparing them costs more than the bytes passed, the rest is left
 * to memmem (linear whatever the text).
 */
static const char *
find_must(const struct x_re *re, const char *p, size_t n)
{
	const char *s = p, *end = p + n;
	size_t m = re->mustlen, j = re->rare, tries = 0;

	while ((size_t)(end - s) >= m) {
		const char *h = memchr(s + j, (unsigned char)re->must[j], (size_t)(end - s) - m + 1);

		if (h == NULL)
			return NULL;
		h -= j;
		if (memcmp(h, re->must, m) == 0)
			return h;
		s = h + 1;
		tries += m;
		if (tries > 4 * (size_t)(s - p) + 4096)
			return memmem(s, (size_t)(end - s), re->must, m);
	}
	return NULL;
}

/* The first byte at or after i of s[0..n) that is one of the nb bytes b (1 to 3). */
static size_t
find_bytes(const unsigned char *s, size_t i, size_t n, const uint8_t *b, int nb)
{
	const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
	uint64_t m0 = ones * b[0], m1 = ones * b[nb > 1], m2 = ones * b[nb - 1];

	if (nb == 1) {
		const unsigned char *h = i < n ? memchr(s + i, b[0], n - i) : NULL;

		return h != NULL ? (size_t)(h - s) : n;
	}
	for (; i + 8 <= n; i += 8) {
		uint64_t w, x0, x1, x2;

		memcpy(&w, s + i, 8);
		x0 = w ^ m0;
		x1 = w ^ m1;
		x2 = w ^ m2;
		if ((((x0 - ones) & ~x0) | ((x1 - ones) & ~x1) | ((x2 - ones) & ~x2)) & highs)
			break;
	}
	for (; i < n; i++)
		if (s[i] == b[0] || s[i] == b[nb > 1] || s[i] == b[nb - 1])
			return i;
	return n;
}

/* Which bytes leave the start state of d (the unanchored forward DFA). */
static void
make_accel(struct dfa *d)
{
	const struct x_re *re = d->re;
	uint32_t s = initial(d, C_EDGE), flushes = d->flushes;
	int32_t row = (int32_t)s * re->ncls;
	uint8_t leaves[256];
	int k, b, nb = 0;

	d->accel_n = ACCEL_NONE;
	for (k = 0; k < re->ncls; k++) {
		int32_t v = d->trans[row + k];

		if (v < 0)
			v = step(d, s, k);
		if (d->flushes != flushes)
			return;
		leaves[k] = (v & 1) || (v >> 1) != row;
	}
	for (b = 0; b < 256; b++) {
		if (!leaves[re->cls[b]])
			continue;
		if (nb == 3)
			return;
		d->accel_b[nb++] = (uint8_t)b;
	}
	d->accel_row = row;
	d->accel_n = nb;
}

/* From i in the start state: the next byte that leaves it (n when none). */
static size_t
skip_start(const struct dfa *d, const unsigned char *s, size_t i, size_t n)
{
	return d->accel_n == 0 ? n : find_bytes(s, i, n, d->accel_b, d->accel_n);
}

/*
 * Run the unanchored DFA over s[i..n) from the start of a line: where the
 * first match ends (n when none does), and in *row the state there.
 */
static size_t
scan(struct x_re *re, const unsigned char *s, size_t i, size_t n, int32_t *row)
{
	struct dfa *d = &re->find;
	int ncls = re->ncls;
	int32_t r = (int32_t)initial(d, C_EDGE) * ncls;

	if (d->accel_n < 0)
		make_accel(d);
	for (; i < n; i++) {
		int32_t v;
		int k;

		if (r == d->accel_row && d->accel_n < ACCEL_NONE) {
			i = skip_start(d, s, i, n);
			if (i == n)
				break;
		}
		k = re->cls[s[i]];
		v = d->trans[r + k];
		if (v & 1) {
			/* not known yet (-1), or a match */
			if (v < 0)
				v = step(d, (uint32_t)(r / ncls), k);
			if (v & 1)
				break;
		}
		r = v >> 1;
	}
	*row = r;
	return i;
}

/* Whether the DFA finds a match in p[0..n) (one line). */
static int
dfa_line(struct x_re *re, const char *p, size_t n)
{
	int32_t row;

	if (scan(re, (const unsigned char *)p, 0, n, &row) < n)
		return 1;
	return eol_match(&re->find, (uint32_t)(row / re->ncls));
}

int
x_re_line(struct x_re *re, const char *p, size_t n)
{
	if (re->must != NULL && find_must(re, p, n) == NULL)
		return 0;
	if (!re->literal && !dfa_line(re, p, n))
		return 0;
	return re->also == NULL || x_re_line(re->also, p, n);
}

/* The bounds of the line holding position i of p[0..n). */
static void
line_around(const struct x_re *re, const char *p, size_t n, size_t from, size_t i,
    size_t *ls, size_t *le)
{
	const char *x = i > from ? memrchr(p + from, re->eol, i - from) : NULL;
	const char *y = i < n ? memchr(p + i, re->eol, n - i) : NULL;

	*ls = x ? (size_t)(x - p) + 1 : from;
	*le = y ? (size_t)(y - p) : n;
}

static int find_line(struct x_re *re, const char *p, size_t n, size_t from, size_t *ls,
    size_t *le);

int
x_re_find_line(struct x_re *re, const char *p, size_t n, size_t from, size_t *ls, size_t *le)
{
	while (find_line(re, p, n, from, ls, le)) {
		if (re->also == NULL || x_re_line(re->also, p + *ls, *le - *ls))
			return 1;
		from = *le + 1;
	}
	return 0;
}

static int
find_line(struct x_re *re, const char *p, size_t n, size_t from, size_t *ls, size_t *le)
{
	struct dfa *d = &re->find;
	const unsigned char *s = (const unsigned char *)p;
	int ncls = re->ncls;
	int32_t row;
	size_t i;

	if (re->must != NULL) {
		while (from < n) {
			const char *hit = find_must(re, p + from, n - from);
			size_t a, b;

			if (hit == NULL)
				return 0;
			line_around(re, p, n, from, (size_t)(hit - p), &a, &b);
			if (re->literal || dfa_line(re, p + a, b - a)) {
				*ls = a;
				*le = b;
				return 1;
			}
			from = b + 1;
		}
		return 0;
	}
	i = scan(re, s, from, n, &row);
	if (i < n) {
		/* a match ends at i: in the line that i ends, or that holds i */
		if (ends_line(re, s[i])) {
			size_t a = i;

			while (a > from && !ends_line(re, s[a - 1]))
				a--;
			*ls = a;
			*le = i;
		} else {
			line_around(re, p, n, from, i, ls, le);
		}
		return 1;
	}
	if (n > from && !ends_line(re, s[n - 1]) && eol_match(d, (uint32_t)(row / ncls))) {
		line_around(re, p, n, from, n, ls, le);
		return 1;
	}
	return 0;
}

/* Where matches start in line p[0..n): re->starts[i] for i in [0, n]. */
static void
find_starts(struct x_re *re, const char *p, size_t n)
{
	struct dfa *d = &re->back;
	const unsigned char *s = (const unsigned char *)p;
	int ncls = re->ncls;
	int32_t row = (int32_t)initial(d, C_EDGE) * ncls;
	size_t i;

	if (re->startcap < n + 1) {
		free(re->starts);
		re->startcap = n + 1;
		re->starts = ai_xmalloc(re->startcap);
	}
	for (i = n; i > 0; i--) {
		int k = re->cls[s[i - 1]];
		int32_t v = d->trans[row + k];

		if (v < 0)
			v = step(d, (uint32_t)(row / ncls), k);
		re->starts[i] = (uint8_t)(v & 1);
		row = v >> 1;
	}
	re->starts[0] = (uint8_t)eol_match(d, (uint32_t)(row / ncls));
	re->mline = p;
	re->mlen = n;
}

/* The end of the longest match starting at st in line p[0..n) (one is known to exist). */
static size_t
longest(struct x_re *re, const char *p, size_t n, size_t st)
{
	struct dfa *d = &re->anch;
	const unsigned char *s = (const unsigned char *)p;
	int ncls = re->ncls;
	int prev = st == 0 ? C_EDGE : is_word(s[st - 1]) ? C_WORD : C_OTHER;
	int32_t row = (int32_t)initial(d, prev) * ncls;
	size_t i, last = st;

	for (i = st; i < n; i++) {
		int k = re->cls[s[i]];
		int32_t v = d->trans[row + k];

		if (v < 0)
			v = step(d, (uint32_t)(row / ncls), k);
		if (v & 1)
			last = i;
		row = v >> 1;
		if (d->nk[row / ncls] == 0)
			return last;
	}
	if (eol_match(d, (uint32_t)(row / ncls)))
		last = n;
	return last;
}

int
x_re_match(struct x_re *re, const char *p, size_t n, size_t from, size_t *ms, size_t *me)
{
	size_t i;

	if (re->literal) {
		const char *hit;

		if (re->mustlen == 0 || from >= n)
			return 0;
		hit = find_must(re, p + from, n - from);
		if (hit == NULL)
			return 0;
		*ms = (size_t)(hit - p);
		*me = *ms + re->mustlen;
		return 1;
	}
	if (from == 0 || re->mline != p || re->mlen != n) {
		if (re->must != NULL && find_must(re, p, n) == NULL)
			return 0;
		find_starts(re, p, n);
	}
	for (i = from; i < n; i++) {
		size_t e;

		if (!re->starts[i])
			continue;
		e = longest(re, p, n, i);
		if (e > i) {
			*ms = i;
			*me = e;
			return 1;
		}
	}
	return 0;
}
