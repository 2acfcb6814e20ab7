/*
 * output.h: results as search_result records, or as a list for people.
 *
 * Records are flushed one per line.  The list shows each result's rank,
 * title, date, URL and a snippet wrapped to a fixed width of at most three
 * lines; what
 * comes from the web goes through the terminal sanitizer, and colour is
 * used only when asked for (a terminal without NO_COLOR).
 */
#ifndef SR_OUTPUT_H
#define SR_OUTPUT_H

#include "err.h"
#include "search.h"

#define SR_TEXT_WIDTH 80
#define SR_SNIPPET_LINES 3

struct sr_out {
	int json;             /* records, else the list */
	int color;            /* SGR sequences in the list */
	int headings;         /* the list: a "# QUERY" line before each query's results */
	const char *provider; /* the name records carry */
	unsigned written;     /* results written so far */
};

/* Write one result of query. */
int sr_out_result(struct sr_out *o, const char *query, const struct sr_result *r, struct ai_err *e);

/*
 * Lay out text (clean UTF-8) in lines of at most width columns, at most
 * maxlines of them, each line after the first indented by indent spaces
 * and ended by LF; text that does not fit ends with "...".  Exposed for tests.
 */
void sr_wrap(struct ai_buf *out, const char *text, unsigned width, unsigned maxlines,
    unsigned indent);

#endif
