/*
 * text.h: UTF-8 and terminal safety.
 *
 * Text from models, files and web pages may hold escape sequences that would
 * drive a terminal (move the cursor, retitle the window, hide text).  Before
 * such text is written to a terminal it goes through the sanitizer, which
 * shows every control character visibly instead: ESC as "^[", other C0
 * controls as "^X", DEL as "^?", C1 controls and bidirectional overrides as
 * "<U+XXXX>", bytes that are not UTF-8 as "\xNN".  Tab and newline pass.
 * Output to a pipe or file is not sanitized: it is the product.
 */
#ifndef AI_TEXT_H
#define AI_TEXT_H

#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "err.h"

/*
 * Decode one character at s (n bytes available).  Returns its length 1..4 and
 * sets *cp; 0 when the bytes are not valid UTF-8 (overlong forms, surrogates
 * and values past U+10FFFF included); -1 when they are a valid beginning that
 * n cuts short.
 */
int ai_utf8_decode(const char *s, size_t n, uint32_t *cp);
int ai_utf8_valid(const char *s, size_t n);
/*
 * The suite's rule for the text a tool takes (a prompt, material, queries,
 * a task, a system prompt): UTF-8 without NUL bytes, taken whole or not at
 * all.  Returns 0, or -1 with e set (AI_EXIT_DATAERR) to what breaks it,
 * where (offsets count bytes from 0, from base on; lines from line on) and what to
 * do: "standard input is binary: a NUL byte at offset 4 (line 2)".
 */
int ai_text_check(const char *s, size_t n, const char *what, uint64_t base, unsigned long line,
    struct ai_err *e);
/* The largest length <= max that does not end inside a character of s[0..n). */
size_t ai_utf8_cut(const char *s, size_t n, size_t max);
/* Characters (UTF-8 code points; invalid bytes count one each) in s[0..n). */
size_t ai_utf8_count(const char *s, size_t n);
/* The first offset >= i that does not fall inside a character of s[0..n). */
size_t ai_utf8_start(const char *s, size_t n, size_t i);
/* Append s with every invalid sequence replaced by U+FFFD. */
int ai_utf8_fix(struct ai_buf *out, const char *s, size_t n);

/* A stream sanitizer: a character split across two feeds is handled whole. */
struct ai_sanitizer {
	char pend[4];
	size_t npend;
};
#define AI_SANITIZER_INIT { { 0 }, 0 }

int ai_sanitize_feed(struct ai_sanitizer *z, struct ai_buf *out, const char *s, size_t n);
/* Flush a character left incomplete at the end of the stream. */
int ai_sanitize_end(struct ai_sanitizer *z, struct ai_buf *out);
/* One-shot: append the sanitized form of s to out. */
int ai_term_sanitize(struct ai_buf *out, const char *s, size_t n);

#endif
