/*
 * buf.h: growable byte buffers with a size cap (git's strbuf, curl's dynbuf).
 *
 * b->buf is never NULL and always NUL-terminated (the terminator is not
 * counted in len and not counted against max), so a buffer can be used as a
 * C string as long as the data holds no NUL.  Every buffer has a cap: an
 * addition that would take len past max adds nothing and returns -1, so an
 * input of any size cannot grow memory without bound.
 *
 *	struct ai_buf b = AI_BUF_INIT(1 << 20);
 *	if (ai_buf_add(&b, p, n) < 0) ... too big ...
 *	ai_buf_release(&b);
 */
#ifndef AI_BUF_H
#define AI_BUF_H

#include <stddef.h>

#include "err.h"

struct ai_buf {
	char *buf;    /* the data, NUL-terminated; points at a shared "" until first growth */
	size_t len;   /* bytes in use */
	size_t alloc; /* bytes allocated (0 while buf is the shared "") */
	size_t max;   /* cap on len */
};

extern char ai_buf_empty[];

/* A cap for buffers whose size something else already bounds. */
#define AI_BUF_NOLIMIT ((size_t)-1 / 4)
#define AI_BUF_INIT(maxlen) { ai_buf_empty, 0, 0, (maxlen) }

void ai_buf_init(struct ai_buf *b, size_t max);
/* Free the memory; the buffer is empty and usable again, same cap. */
void ai_buf_release(struct ai_buf *b);
/* Give the caller the data (to free()); never NULL; the buffer is emptied. */
char *ai_buf_detach(struct ai_buf *b, size_t *len);
/* Empty without freeing. */
void ai_buf_reset(struct ai_buf *b);
/* Make room for extra more bytes; -1 when that would pass the cap. */
int ai_buf_grow(struct ai_buf *b, size_t extra);

/* Append; each returns 0, or -1 (and adds nothing) when the cap would be passed. */
int ai_buf_add(struct ai_buf *b, const void *p, size_t n);
int ai_buf_adds(struct ai_buf *b, const char *s);
int ai_buf_addc(struct ai_buf *b, int c);
int ai_buf_addf(struct ai_buf *b, const char *fmt, ...) AI_PRINTF(2, 3);

/* Drop the first n bytes (n <= len). */
void ai_buf_consume(struct ai_buf *b, size_t n);
/* Cut to n bytes (n <= len). */
void ai_buf_truncate(struct ai_buf *b, size_t n);

#endif
