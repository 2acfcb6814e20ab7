/*
 * lines.h: split a byte stream that arrives in pieces into lines.
 *
 * Push style, for data that comes from a callback (an HTTP body, a child's
 * output): feed whatever arrived, get a call per complete line, at any split
 * of the input.  In AI_LINES_LF mode a line ends at LF and one CR before it
 * is dropped (NDJSON); in AI_LINES_ANY mode CR, LF and CRLF all end a line,
 * also when CR and LF arrive in different pieces (SSE).  A line longer than
 * the cap is an error rather than unbounded memory.
 */
#ifndef AI_LINES_H
#define AI_LINES_H

#include "buf.h"
#include "err.h"

enum { AI_LINES_LF, AI_LINES_ANY };

/*
 * Called per line (without its terminator).  Return 0 to go on; anything
 * else stops the feed, which returns that value (set e first if it is -1).
 */
typedef int (*ai_line_fn)(void *ctx, const char *line, size_t len, struct ai_err *e);

struct ai_lines {
	struct ai_buf part;   /* the start of a line not yet ended */
	int mode;
	int after_cr;         /* the previous piece ended with CR (AI_LINES_ANY) */
	unsigned long lineno; /* lines delivered so far */
};

void ai_lines_init(struct ai_lines *l, int mode, size_t max_line);
int ai_lines_feed(struct ai_lines *l, const char *p, size_t n, ai_line_fn fn, void *ctx,
    struct ai_err *e);
/*
 * End of input: deliver a last line that had no terminator, if any.  Returns
 * what ai_lines_feed would; *had_partial (if not NULL) says whether there was one.
 */
int ai_lines_end(struct ai_lines *l, ai_line_fn fn, void *ctx, int *had_partial, struct ai_err *e);
void ai_lines_release(struct ai_lines *l);

#endif
