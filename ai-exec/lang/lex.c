/*
 * lex.c: the one tokenizer of the command language.
 *
 * What it accepts is a small subset of POSIX sh in which every accepted
 * command means the same as it would in sh: words of letters, digits and
 * "%+,-./:=@^_", quoted text, and '|'.  Inside '...' everything is literal
 * (as in sh); inside "..." too, and for that reason '$', '`' and '\' are
 * refused there, since a shell would expand or escape them.  Everything else
 * a shell gives meaning to is refused with a message that says what it is,
 * rather than taken literally: a model that writes ';' or '$(...)' expects
 * the shell's meaning, and must learn that it is not available.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lang.h"
#include "text.h"
#include "util.h"
#include "banned.h"

/* Characters a word may hold outside quotes. */
static int
plain(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	    (c != '\0' && strchr("%+,-./:=@^_", c) != NULL);
}

/* The column, in characters from 1, of byte offset i. */
static unsigned
column(const char *s, size_t i)
{
	return 1 + (unsigned)ai_utf8_count(s, i);
}

static int
refuse(const char *s, size_t i, int code, struct ai_err *e, const char *what)
{
	return ai_err_set(e, code, "column %u: %s", column(s, i), what);
}

/* Invisible or bidirectional-override characters that would mislead a reader. */
static int
deceptive(uint32_t cp)
{
	return (cp >= 0x80 && cp <= 0x9f) || (cp >= 0x202a && cp <= 0x202e) ||
	    (cp >= 0x2066 && cp <= 0x2069) || cp == 0x200e || cp == 0x200f || cp == 0x061c;
}

/* A control character anywhere, quoted or not. */
static int
control(const char *s, size_t i, struct ai_err *e)
{
	unsigned char c = (unsigned char)s[i];
	char what[96];

	if (c == '\n' || c == '\r')
		return refuse(s, i, AI_EXIT_POLICY, e,
		    "newlines are not allowed: one command per call");
	snprintf(what, sizeof(what), "control character U+%04X is not allowed", c);
	return refuse(s, i, AI_EXIT_POLICY, e, what);
}

/*
 * Check the character at s[i] inside quotes: any text but control, C1 and
 * bidirectional-override characters.  Returns its length, or -1.
 */
static int
quoted_char(const char *s, size_t n, size_t i, struct ai_err *e)
{
	unsigned char c = (unsigned char)s[i];
	uint32_t cp;
	int l;

	/* a TAB is data inside quotes (cut -d, sort -t); nothing else below 0x20 is */
	if ((c < 0x20 && c != '\t') || c == 0x7f)
		return control(s, i, e);
	if (c < 0x80)
		return 1;
	l = ai_utf8_decode(s + i, n - i, &cp);
	if (l <= 0)
		return refuse(s, i, AI_EXIT_POLICY, e, "the command is not valid UTF-8");
	if (deceptive(cp)) {
		char what[96];

		snprintf(what, sizeof(what), "invisible control character U+%04X is not allowed",
		    (unsigned)cp);
		return refuse(s, i, AI_EXIT_POLICY, e, what);
	}
	return l;
}

/* The message for a character that is not allowed outside quotes. */
static int
special(const char *s, size_t n, size_t i, struct ai_err *e)
{
	unsigned char c = (unsigned char)s[i], d = i + 1 < n ? (unsigned char)s[i + 1] : 0;
	const char *what;
	char buf[128];

	switch (c) {
	case ';':
		what = "';' is not allowed: only '|' joins commands";
		break;
	case '&':
		what = d == '&' ? "'&&' is not allowed: only '|' joins commands" :
				  "'&' is not allowed: nothing runs in the background";
		break;
	case '<':
		what = d == '<' ? "here-documents ('<<') are not allowed" :
				  "redirections ('<') are not allowed";
		break;
	case '>':
		what = "redirections ('>') are not allowed: nothing is written";
		break;
	case '`':
		what = "command substitution ('`') is not allowed";
		break;
	case '$':
		if (d == '(')
			what = "command substitution ('$(') is not allowed";
		else if (d == '{' || d == '_' || (d >= 'a' && d <= 'z') || (d >= 'A' && d <= 'Z') ||
		    (d >= '0' && d <= '9') || (d && strchr("@*#?$!-", d)))
			what = "variable expansion ('$') is not allowed: nothing is expanded";
		else
			what = "'$' is not allowed: nothing is expanded";
		break;
	case '(':
	case ')':
		what = "subshells ('(', ')') are not allowed";
		break;
	case '{':
	case '}':
		what = "braces ('{', '}') are not allowed: no grouping or brace expansion";
		break;
	case '*':
	case '?':
	case '[':
	case ']':
		snprintf(buf, sizeof(buf),
		    "glob character '%c' is not allowed: quote it if it is data", c);
		what = buf;
		break;
	case '~':
		what = "'~' is not allowed: no tilde expansion (give the path as listed)";
		break;
	case '\\':
		what = "backslashes are not allowed outside quotes: quote instead";
		break;
	case '#':
		what = "'#' is not allowed outside quotes: no comments";
		break;
	case '!':
		what = "'!' is not allowed outside quotes";
		break;
	default:
		if (c < 0x20 || c == 0x7f)
			return control(s, i, e);
		if (c >= 0x80) {
			uint32_t cp = 0;

			if (ai_utf8_decode(s + i, n - i, &cp) <= 0)
				return refuse(s, i, AI_EXIT_POLICY, e, "the command is not valid UTF-8");
			snprintf(buf, sizeof(buf),
			    "non-ASCII character U+%04X is not allowed outside quotes "
			    "(look-alikes of shell characters are refused; quote data)", (unsigned)cp);
			what = buf;
			break;
		}
		snprintf(buf, sizeof(buf), "'%c' is not allowed outside quotes", c);
		what = buf;
		break;
	}
	return refuse(s, i, AI_EXIT_POLICY, e, what);
}

/* Append the quoted text starting at s[*i] (a quote) to w; *i moves past it. */
static int
quoted(const char *s, size_t n, size_t *i, struct ai_buf *w, struct ai_err *e)
{
	char q = s[*i];
	size_t k = *i + 1;

	while (k < n && s[k] != q) {
		int l;

		if (q == '"' && (s[k] == '$' || s[k] == '`' || s[k] == '\\')) {
			char what[128];

			snprintf(what, sizeof(what),
			    "'%c' inside double quotes is not allowed: a shell would %s; "
			    "use single quotes", s[k], s[k] == '\\' ? "read it as an escape" : "expand it");
			return refuse(s, k, AI_EXIT_POLICY, e, what);
		}
		l = quoted_char(s, n, k, e);
		if (l < 0)
			return -1;
		ai_buf_add(w, s + k, (size_t)l);
		k += (size_t)l;
	}
	if (k >= n)
		return refuse(s, *i, AI_EXIT_DATAERR, e,
		    q == '\'' ? "unterminated single quote" : "unterminated double quote");
	*i = k + 1;
	return 0;
}

static void
push(struct x_word **v, size_t *nv, size_t *cap, char *s, size_t len, unsigned col, int q)
{
	if (*nv == *cap) {
		*cap = *cap ? *cap * 2 : 16;
		*v = ai_xrealloc(*v, *cap * sizeof(**v));
	}
	(*v)[*nv].s = s;
	(*v)[*nv].len = len;
	(*v)[*nv].col = col;
	(*v)[*nv].quoted = q;
	(*nv)++;
}

/* The pipe structure: no empty stage, at most X_MAX_STAGES stages. */
static int
check_pipes(const struct x_word *v, size_t nv, struct ai_err *e)
{
	size_t i, stages = 1;

	if (nv == 0)
		return ai_err_set(e, AI_EXIT_DATAERR, "empty command");
	for (i = 0; i < nv; i++) {
		if (v[i].s != NULL)
			continue;
		if (i == 0)
			return ai_err_set(e, AI_EXIT_DATAERR, "column %u: no command before '|'",
			    v[i].col);
		if (i + 1 == nv)
			return ai_err_set(e, AI_EXIT_DATAERR, "column %u: no command after '|'",
			    v[i].col);
		if (v[i + 1].s == NULL)
			return ai_err_set(e, AI_EXIT_DATAERR,
			    "column %u: no command between '|' and '|'", v[i + 1].col);
		stages++;
	}
	if (stages > X_MAX_STAGES)
		return ai_err_set(e, AI_EXIT_LIMIT,
		    "the command has %zu stages; the limit is %d", stages, X_MAX_STAGES);
	return 0;
}

int
x_lex(const char *s, size_t n, struct x_word **words, size_t *nwords, struct ai_err *e)
{
	struct x_word *v = NULL;
	size_t nv = 0, cap = 0, i = 0;
	struct ai_buf w = AI_BUF_INIT(X_MAX_COMMAND);

	*words = NULL;
	*nwords = 0;
	if (n > X_MAX_COMMAND)
		return ai_err_set(e, AI_EXIT_LIMIT,
		    "the command is %zu bytes long; the limit is %d", n, X_MAX_COMMAND);
	if (memchr(s, '\0', n) != NULL)
		return refuse(s, (size_t)((const char *)memchr(s, '\0', n) - s), AI_EXIT_POLICY, e,
		    "control character U+0000 is not allowed");
	while (i < n) {
		unsigned char c = (unsigned char)s[i];
		unsigned col;
		int q = 0;

		if (c == ' ') {
			i++;
			continue;
		}
		if (c == '|') {
			if (i + 1 < n && s[i + 1] == '|') {
				refuse(s, i, AI_EXIT_POLICY, e, "'||' is not allowed: only '|' joins commands");
				goto fail;
			}
			if (i + 1 < n && s[i + 1] == '&') {
				refuse(s, i, AI_EXIT_POLICY, e, "'|&' is not allowed: only '|' joins commands");
				goto fail;
			}
			push(&v, &nv, &cap, NULL, 0, column(s, i), 0);
			i++;
			continue;
		}
		col = column(s, i);
		ai_buf_reset(&w);
		while (i < n && s[i] != ' ' && s[i] != '|') {
			c = (unsigned char)s[i];
			if (c == '\'' || c == '"') {
				if (quoted(s, n, &i, &w, e) < 0)
					goto fail;
				q = 1;
			} else if (plain(c)) {
				ai_buf_addc(&w, c);
				i++;
			} else {
				special(s, n, i, e);
				goto fail;
			}
		}
		push(&v, &nv, &cap, ai_xmemdup(w.buf, w.len), w.len, col, q);
	}
	ai_buf_release(&w);
	if (check_pipes(v, nv, e) < 0) {
		x_words_free(v, nv);
		return -1;
	}
	*words = v;
	*nwords = nv;
	return 0;
fail:
	ai_buf_release(&w);
	x_words_free(v, nv);
	return -1;
}

void
x_words_free(struct x_word *w, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(w[i].s);
	free(w);
}
