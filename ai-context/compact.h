/*
 * compact.h: deciding what to keep, digest, trim, fold or drop.
 *
 * Tokens are estimated as characters / 4 over the records a model sees,
 * times a calibration factor: the most recent usage record of one call
 * compared with the estimate of the records it was measured on (the ones
 * before it, less the answer that came with it).  At or under 80% of the
 * budget nothing changes.  Otherwise, outside the recent window and oldest
 * first: tool results become digests, search results lose all but title and
 * URL, then either everything foldable goes into one summary made by a
 * model, or (no model) the oldest records are dropped behind a note saying
 * how many.  It stops as soon as the estimate is at or under 80% again, so
 * that compacting the output a second time changes nothing.
 *
 * A usage record that comes after a record compaction changed measured a
 * conversation that is no longer there: it is left out (AC_STALE), and the
 * fit is checked both with the input's calibration and with the one a later
 * run would find in the output.
 */
#ifndef AC_COMPACT_H
#define AC_COMPACT_H

#include <stdint.h>
#include <stdio.h>
#include <cjson/cJSON.h>

#include "err.h"
#include "transcript.h"

#define AC_K_MIN 0.25
#define AC_K_MAX 4.0

struct ac_opts {
	uint64_t budget;
	uint64_t keep;        /* turns */
	uint64_t tail_lines;
	int summarize;        /* phase c may run (else records are dropped) */
};

/*
 * Make the summary of the records idx[0..n) (in their current form, see
 * ac_line).  Returns 0 with *summary set (an object with content, key_facts
 * and open_tasks), 1 when no model is configured (records are dropped
 * instead), -1 on failure with e set.
 */
typedef int (*ac_summarize_fn)(void *ctx, const struct ac_transcript *t, const size_t *idx,
    size_t n, cJSON **summary, struct ai_err *e);

struct ac_result {
	double k_in, k_out;        /* calibration of the input, and of the output */
	unsigned long k_in_line;   /* the usage record it came from, 0 for none */
	uint64_t tokens_before, tokens_after, chars_before, chars_after;
	size_t records_before, records_after;
	size_t digested, trimmed, folded, dropped, stale;
	int changed;               /* the output differs from the input */
	int summarized;
	int no_model;              /* the summariser said no model is configured */
	int over_budget;           /* even the smallest transcript exceeds the budget */
	char *inserted;            /* the summary or drop note line, owned */
	size_t inserted_at;        /* the record it stands in place of */
};

/* Tokens for chars characters with calibration k. */
uint64_t ac_estimate(uint64_t chars, double k);

/*
 * Decide.  t->window must be set (ac_window).  Returns 0, or -1 when the
 * summariser failed (e set); nothing is written.
 */
int ac_compact(struct ac_transcript *t, const struct ac_opts *o, ac_summarize_fn fn, void *ctx,
    struct ac_result *res, struct ai_err *e);
void ac_result_free(struct ac_result *res);

/* The current text of record i: its rewrite, or its line as it came. */
const char *ac_line(const struct ac_transcript *t, size_t i, size_t *len);

/* Write the compacted transcript (the input itself when nothing changed). */
int ac_write(FILE *f, const struct ac_transcript *t, const struct ac_result *res,
    struct ai_err *e);

#endif
