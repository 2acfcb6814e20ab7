/*
 * sse.h: a Server-Sent Events parser (the WHATWG event-stream format).
 *
 * Feed the body as it arrives, in pieces of any size (one byte at a time
 * works); each complete event is passed to the callback with its type
 * ("message" when the stream names none) and its data (multi-line "data:"
 * fields joined with LF).  Lines may end in CR, LF or CRLF, also split
 * across pieces; comment lines (":...") are skipped; "data:x" and
 * "data: x" mean the same; a leading BOM is dropped.  An event is complete
 * at its blank line; data left when the stream ends is an event cut short,
 * which ai_sse_end reports.
 */
#ifndef AI_SSE_H
#define AI_SSE_H

#include "buf.h"
#include "err.h"
#include "lines.h"

/* Return 0 to go on; anything else stops ai_sse_feed, which returns it. */
typedef int (*ai_sse_fn)(void *ctx, const char *event, const char *data, size_t len,
    struct ai_err *e);

struct ai_sse {
	struct ai_lines lines;
	struct ai_buf event;  /* the "event:" field of the event being read */
	struct ai_buf data;   /* its data lines, each followed by LF */
	int has_data;         /* a data field was seen (data may still be empty) */
	int started;          /* past the optional BOM */
	int pending;          /* some field of an unfinished event has been read */
	unsigned long events; /* events delivered */
	ai_sse_fn fn;
	void *ctx;
};

/* max_event caps one event's data (and one line). */
void ai_sse_init(struct ai_sse *s, size_t max_event, ai_sse_fn fn, void *ctx);
int ai_sse_feed(struct ai_sse *s, const char *p, size_t n, struct ai_err *e);
/*
 * End of the stream.  Returns 0, or -1 with AI_EXIT_PROTOCOL when the stream
 * stopped inside an event (a cut stream); an unterminated last line counts.
 */
int ai_sse_end(struct ai_sse *s, struct ai_err *e);
void ai_sse_release(struct ai_sse *s);

#endif
