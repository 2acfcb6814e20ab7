/*
 * summarize.h: folding records into a summary by running ai-ask.
 *
 * The folded records are written out as a plain-text document (a summary
 * as "Earlier summary", messages under their role, tool calls and results
 * and search results on their own lines), redacted, and given to
 *
 *	ai-ask --json --schema FILE -s SYSTEM [-m MODEL] [--provider NAME] [-v] -- PROMPT
 *
 * on its standard input.  Plain text rather than records: a provider then
 * sees no tool calls it has no declaration for, and the model sees material
 * to summarise rather than a conversation to continue.  The answer (the
 * content of ai-ask's message record) must be a JSON object with content,
 * key_facts and open_tasks.
 */
#ifndef AC_SUMMARIZE_H
#define AC_SUMMARIZE_H

#include <stddef.h>
#include <stdint.h>
#include <cjson/cJSON.h>

#include "buf.h"
#include "err.h"
#include "transcript.h"

/* One rendered record is cut to this many bytes (its head and its tail). */
#define AC_BLOCK_MAX 4096

struct ac_summarizer {
	const char *program;     /* ai-ask, or NULL when none was found */
	const char *where;       /* where it was looked for, for messages */
	const char *model;       /* -m, or NULL */
	const char *provider;    /* --provider, or NULL */
	int explicit_model;      /* -m or --provider was given: a missing model is an error */
	double timeout_s;        /* ai-ask's total time (AICLI_TIMEOUT for the child) */
	int verbose;
	size_t doc_max;          /* what one summarising call may take */
	uint64_t max_calls;      /* summarising calls one compaction may make */
	/* results */
	int have_usage;
	uint64_t in_tokens, out_tokens;
	unsigned calls;
};

/*
 * The material: the records idx[0..n) of t (current forms) rendered one
 * block each (a record cut to its first and last 2 KiB; an earlier summary
 * whole), into blocks[0..n).
 */
void ac_render(const struct ac_transcript *t, const size_t *idx, size_t n, struct ai_buf *blocks);
/*
 * The parts of the material, in order: blocks[start[k]..start[k + 1]) is part
 * k, each at most max bytes but for one block that is alone larger, and
 * every part after the first leaves a quarter of max for the summary of the
 * parts before it.  Returns how many (start has room for n + 1).
 */
size_t ac_parts(const struct ai_buf *blocks, size_t n, size_t max, size_t *start);

/* The ac_summarize_fn: ctx is a struct ac_summarizer. */
int ac_summarize(void *ctx, const struct ac_transcript *t, const size_t *idx, size_t n,
    cJSON **summary, struct ai_err *e);

/* Check ai-ask's answer text and make the summary object from it (strings redacted). */
cJSON *ac_parse_answer(const char *text, size_t n, struct ai_err *e);

#endif
