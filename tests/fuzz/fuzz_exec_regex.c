/*
 * libFuzzer target: ai-exec's regular expressions (ai-exec/lang/regex.c).
 * The input is a flags byte (syntax in bits 0-1: basic, extended, fixed;
 * then -i, -w, -x, -z, spans), a pattern, a NUL, and the text to search.
 * Invariants: no crash, no leak, a refusal has a message and one of the
 * three codes; a compiled pattern gives the same answer for a line whether
 * it is asked alone (x_re_line) or found among others (x_re_find_line);
 * spans are non-empty, inside their line, and move forward.
 *
 * fuzz-sources: ai-exec/lang/regex.c
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../ai-exec/lang/regex.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct x_re_opts o;
	struct x_re *re = NULL;
	const char *pat, *text, *nul;
	size_t plen, tlen, off, ls, le;
	char why[256] = "";
	int rc;

	if (size < 1)
		return 0;
	memset(&o, 0, sizeof(o));
	o.syntax = data[0] & 3;
	if (o.syntax > X_RE_FIXED)
		o.syntax = X_RE_BASIC;
	o.icase = (data[0] >> 2) & 1;
	o.words = (data[0] >> 3) & 1;
	o.lines = (data[0] >> 4) & 1;
	o.eol = (data[0] >> 5) & 1 ? '\0' : '\n';
	o.spans = (data[0] >> 6) & 1;
	pat = (const char *)data + 1;
	nul = memchr(pat, '\0', size - 1);
	plen = nul ? (size_t)(nul - pat) : size - 1;
	text = nul ? nul + 1 : pat + plen;
	tlen = size - 1 - plen - (nul ? 1 : 0);
	if (plen > 256)
		return 0;
	rc = x_re_compile(&re, &pat, &plen, 1, &o, why, sizeof(why));
	if (rc != 0) {
		if (re != NULL || why[0] == '\0' ||
		    (rc != X_RE_ESYNTAX && rc != X_RE_EBACKREF && rc != X_RE_EBIG))
			abort();
		return 0;
	}
	/* every line: alone, and as found among the others */
	off = 0;
	while (off < tlen) {
		const char *e = memchr(text + off, o.eol, tlen - off);
		size_t end = e ? (size_t)(e - text) : tlen, from = 0, ms, me;
		int alone = x_re_line(re, text + off, end - off);
		int found = x_re_find_line(re, text, tlen, off, &ls, &le) && ls == off;

		if (alone != found)
			abort();
		if (found && le != end)
			abort();
		while (from < end - off && x_re_match(re, text + off, end - off, from, &ms, &me)) {
			if (ms < from || me <= ms || me > end - off)
				abort();
			from = me;
		}
		off = end + 1;
	}
	x_re_free(re);
	return 0;
}
