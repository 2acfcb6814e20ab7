/*
 * transcript.h: a transcript read into memory for compaction.
 *
 * The input is kept whole (every kept record is written back byte for byte)
 * and described by one small struct per record: where its line is, what it
 * is, how many characters it has, which tool call it pairs with, and what
 * compaction does with it.  Records are parsed once to fill this in and then
 * freed; only the records that get rewritten are parsed again.
 */
#ifndef AC_TRANSCRIPT_H
#define AC_TRANSCRIPT_H

#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "err.h"

/* What a record is, as far as compaction cares. */
enum ac_kind {
	AC_SYSTEM,      /* message, role "system": always kept */
	AC_USER,        /* message, role "user" */
	AC_ASSISTANT,   /* message, any other role */
	AC_TOOL_CALL,
	AC_TOOL_RESULT,
	AC_SEARCH,      /* search_result */
	AC_SUMMARY,
	AC_UNKNOWN,     /* a type this tool does not know: passed through, counted */
	AC_USAGE,       /* not seen by a model, not counted */
	AC_META         /* error, result, delta, query: not seen by a model, kept */
};

/* What compaction does with a record. */
enum ac_action {
	AC_KEEP,        /* the line as it was */
	AC_REWRITE,     /* a digest or a trimmed search result: repl */
	AC_FOLD,        /* folded into the new summary */
	AC_DROP,        /* dropped (or an earlier drop note merged into the new one) */
	AC_STALE        /* a usage record that measured what is no longer there */
};

struct ac_rec {
	size_t off;            /* the line in the input */
	uint32_t len;          /* without LF (and CR) */
	uint32_t lineno;
	uint32_t chars;        /* characters (code points) of the line */
	uint32_t repl_chars;
	int32_t next;          /* the next record of the same tool call, or -1 */
	int32_t group;         /* the tool_call this record pairs with (itself for a call), or -1 */
	uint8_t kind;
	uint8_t action;
	uint8_t pinned;        /* paired with a record in the recent window */
	uint8_t usage_ok;      /* a usage record that can calibrate (one call, input_tokens > 0) */
	char *repl;            /* the rewritten line (AC_REWRITE), owned */
	uint32_t repl_len;
	uint64_t input_tokens; /* usage records */
};

struct ac_transcript {
	const char *data;      /* the whole input (borrowed) */
	size_t size;
	struct ac_rec *r;
	size_t n;
	size_t window;         /* index of the first record of the recent window (n: none) */
};

/*
 * Read every record of data[0..size): strict JSON, one object with a string
 * "type" per line, blank lines skipped.  On a malformed line returns -1 with
 * e naming the line (AI_EXIT_DATAERR).  data must outlive t.
 */
int ac_transcript_read(struct ac_transcript *t, const char *data, size_t size,
    struct ai_err *e);
void ac_transcript_free(struct ac_transcript *t);

/* Whether a record of this kind is part of what a model sees (and so counted). */
int ac_visible(int kind);

/*
 * Set t->window to the start of the last keep turns and pin the records
 * outside it that pair with a record inside it.  A turn begins at each user
 * message, at each assistant message or tool call that follows a tool
 * result, and at the first message, tool call or tool result of all: a
 * question and its answer, or one step of an agent loop.
 */
void ac_window(struct ac_transcript *t, uint64_t keep);

#endif
