/*
 * record.h: the aicli record protocol (NDJSON), see aicli(7).
 *
 * A record is one line holding one JSON object with a string "type".  Readers
 * are strict (json.h) and name the line of any error; writers put one record
 * per line and flush it at once, also into a pipe, so a downstream tool sees
 * each record as soon as it exists.
 */
#ifndef AI_RECORD_H
#define AI_RECORD_H

#include <stdint.h>
#include <stdio.h>
#include <cjson/cJSON.h>

#include "buf.h"
#include "err.h"

/* The default cap on one record line, and on plain-text input read whole. */
#define AI_MAX_LINE ((size_t)16 << 20)

/* Pull lines from a file descriptor with a per-line cap and an optional timeout. */
struct ai_reader {
	int fd;
	struct ai_buf in;     /* read but not yet returned */
	size_t off;           /* start of the unreturned data in in */
	size_t scanned;       /* bytes after off already known to hold no LF */
	size_t max_line;
	unsigned long lineno; /* number of the line last returned */
	uint64_t base;        /* offset in the stream of in.buf[0] */
	uint64_t line_off;    /* offset in the stream of the line last returned */
	int eof;
	int timeout_ms;       /* per read; -1 waits for ever */
	const char *what;     /* for messages: "standard input", "ai-exec" */
};

void ai_reader_init(struct ai_reader *r, int fd, size_t max_line, const char *what);
void ai_reader_release(struct ai_reader *r);
/*
 * Next line without its LF (a CR before it is dropped).  Returns 1 with the
 * line (valid until the next call), 0 at end of input, -1 on error (too
 * long, read error, timeout).  A last line without LF is still a line.
 */
int ai_reader_next(struct ai_reader *r, const char **line, size_t *len, struct ai_err *e);
/*
 * After ai_reader_next failed on a line longer than the cap, drop the rest of
 * that line so that a reader which answers every line (a server) can go on
 * with the next one.  Returns 1 when the line was dropped (it counts in
 * lineno), 0 at end of input, -1 on a read error or timeout.
 */
int ai_reader_skip_line(struct ai_reader *r, struct ai_err *e);

/* A whitespace-only line carries nothing; readers of streams skip it. */
int ai_line_is_blank(const char *s, size_t n);

/*
 * Parse one record: strict JSON, an object, with a string "type".  Errors
 * read "line N: ..." (AI_EXIT_DATAERR).  The caller owns the result.
 */
cJSON *ai_record_parse(const char *line, size_t len, unsigned long lineno, struct ai_err *e);
const char *ai_record_type(const cJSON *rec);

/*
 * Whether input is records rather than plain text: its first line is a JSON
 * object with a string "type".  Empty input is plain text.
 */
int ai_input_is_records(const char *data, size_t len);

/*
 * Errors travel in the stream (aicli(7)): a tool that reads an error record
 * on its input does nothing that costs, passes the record on (records out)
 * or says its message (text out), and ends with the status it carries.
 *
 * ai_record_upstream: whether rec is an error record; if so e gets its
 * status ("exit", else the status its "code" names, else 1), its message
 * ("error from ai-search: ...") and retryable, and 1 is returned.
 */
int ai_record_upstream(const cJSON *rec, struct ai_err *e);
/*
 * The first error record of a record stream in memory: 1 with e set as
 * above and the line in *line, *len; 0 when there is none.  Lines that are
 * not records are left to the reader that reads the stream for real.
 */
int ai_records_upstream(const char *data, size_t n, const char **line, size_t *len,
    struct ai_err *e);
/*
 * Pass an error record on: with records out, write the line to stdout, and
 * e (set by ai_record_upstream) keeps the status but no message
 * (e->passed); with text out, e keeps the message for stderr.  Returns -1
 * (the failure), or -1 with e set to the write error.
 */
int ai_error_pass(const char *line, size_t len, int records_out, struct ai_err *e);

/* Write rec as one line and flush. */
int ai_record_write(FILE *f, const cJSON *rec, struct ai_err *e);

/* New records (the caller owns them). */
cJSON *ai_record_new(const char *type);
cJSON *ai_record_message(const char *role, const char *content);
/*
 * An error record for e: tool, code (the exit name), exit, message
 * (redacted), retryable, and status when e carries an HTTP status.
 */
cJSON *ai_record_error(const char *tool, const struct ai_err *e);

#endif
