/* compact.c: the compaction plan. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compact.h"
#include "digest.h"
#include "io.h"
#include "json.h"
#include "text.h"
#include "util.h"
#include "banned.h"

/* A usage record that can calibrate, and its factor. */
struct calib {
	size_t at;
	double k;
};

struct state {
	struct ac_transcript *t;
	const struct ac_opts *o;
	struct ac_result *res;
	struct calib *cal;
	size_t ncal;
	uint64_t chars;     /* visible characters of the output as planned */
	size_t first;       /* the first record changed (t->n: none) */
	size_t ncal_kept;   /* calibrations before first: the ones a later run can see */
};

uint64_t
ac_estimate(uint64_t chars, double k)
{
	return (uint64_t)ceil((double)chars * k / 4.0);
}

const char *
ac_line(const struct ac_transcript *t, size_t i, size_t *len)
{
	const struct ac_rec *r = &t->r[i];

	if (r->action == AC_REWRITE) {
		*len = r->repl_len;
		return r->repl;
	}
	*len = r->len;
	return t->data + r->off;
}

static uint32_t
cur_chars(const struct ac_rec *r)
{
	return r->action == AC_REWRITE ? r->repl_chars : r->chars;
}

/*
 * The calibration factor of every usage record of one call: its
 * input_tokens against chars/4 of the visible records before it, not
 * counting the answer it came with (ai-ask writes the assistant message and
 * its tool calls just before the usage record).
 */
static void
calibrations(struct state *s)
{
	struct ac_transcript *t = s->t;
	uint64_t prefix = 0;
	size_t i, cap = 0;

	s->cal = NULL;
	s->ncal = 0;
	for (i = 0; i < t->n; i++) {
		const struct ac_rec *r = &t->r[i];

		if (r->kind == AC_USAGE && r->usage_ok) {
			uint64_t answer = 0;
			size_t j = i;

			while (j > 0 && t->r[j - 1].kind == AC_TOOL_CALL)
				answer += t->r[--j].chars;
			if (j > 0 && t->r[j - 1].kind == AC_ASSISTANT)
				answer += t->r[--j].chars;
			if (prefix > answer) {
				double k = (double)r->input_tokens / ((double)(prefix - answer) / 4.0);

				if (k < AC_K_MIN)
					k = AC_K_MIN;
				if (k > AC_K_MAX)
					k = AC_K_MAX;
				if (s->ncal == cap) {
					cap = cap ? cap * 2 : 16;
					s->cal = ai_xrealloc(s->cal, cap * sizeof(*s->cal));
				}
				s->cal[s->ncal].at = i;
				s->cal[s->ncal].k = k;
				s->ncal++;
			}
		}
		if (ac_visible(r->kind))
			prefix += r->chars;
	}
}

/* The factor a run would find in a transcript whose first change is at first. */
static double
factor_before(const struct state *s, size_t first, size_t *at)
{
	size_t i = s->ncal;

	while (i > 0 && s->cal[i - 1].at >= first)
		i--;
	if (i == 0) {
		if (at != NULL)
			*at = (size_t)-1;
		return 1.0;
	}
	if (at != NULL)
		*at = s->cal[i - 1].at;
	return s->cal[i - 1].k;
}

static double
factor_out(const struct state *s)
{
	double k = s->ncal_kept > 0 ? s->cal[s->ncal_kept - 1].k : 1.0;

	return k > s->res->k_in ? k : s->res->k_in;
}

/* At or under 80% of the budget, by both calibrations. */
static int
fits(const struct state *s)
{
	return ac_estimate(s->chars, factor_out(s)) * 5 <= s->o->budget * 4;
}

static void
changed(struct state *s, size_t i)
{
	if (i >= s->first)
		return;
	s->first = i;
	while (s->ncal_kept > 0 && s->cal[s->ncal_kept - 1].at >= i)
		s->ncal_kept--;
}

/* Replace record i by the printed form of v if that differs from its line. */
static int
rewrite(struct state *s, size_t i, cJSON *v)
{
	struct ac_rec *r = &s->t->r[i];
	char *p = ai_json_print(v);
	size_t n = strlen(p);

	cJSON_Delete(v);
	if (n == r->len && memcmp(p, s->t->data + r->off, n) == 0) {
		free(p);
		return 0;
	}
	s->chars -= r->chars;
	r->repl = p;
	r->repl_len = (uint32_t)n;
	r->repl_chars = (uint32_t)ai_utf8_count(p, n);
	r->action = AC_REWRITE;
	s->chars += r->repl_chars;
	changed(s, i);
	return 1;
}

static cJSON *
parse_rec(const struct ac_transcript *t, size_t i)
{
	struct ai_err e = AI_ERR_INIT;

	/* it parsed once already */
	return ai_json_parse(t->data + t->r[i].off, t->r[i].len, &e);
}

/* Phases a and b: digest tool results, then trim search results, oldest first. */
static int
shrink_kind(struct state *s, int kind)
{
	struct ac_transcript *t = s->t;
	size_t i;

	for (i = 0; i < t->window; i++) {
		struct ac_rec *r = &t->r[i];
		cJSON *rec, *v;

		if (r->kind != kind || r->pinned || r->action != AC_KEEP)
			continue;
		if ((rec = parse_rec(t, i)) == NULL)
			continue;
		v = kind == AC_TOOL_RESULT ? ac_digest_tool_result(rec, s->o->tail_lines) :
		    ac_trim_search_result(rec);
		cJSON_Delete(rec);
		if (rewrite(s, i, v)) {
			if (kind == AC_TOOL_RESULT)
				s->res->digested++;
			else
				s->res->trimmed++;
			if (fits(s))
				return 1;
		}
	}
	return 0;
}

static void
set_inserted(struct state *s, cJSON *rec, size_t at)
{
	char *p = ai_json_print(rec);

	cJSON_Delete(rec);
	if (s->res->inserted != NULL)
		s->chars -= ai_utf8_count(s->res->inserted, strlen(s->res->inserted));
	free(s->res->inserted);
	s->res->inserted = p;
	s->res->inserted_at = at;
	s->chars += ai_utf8_count(p, strlen(p));
}

static int
foldable(const struct ac_rec *r)
{
	return ac_visible(r->kind) && r->kind != AC_SYSTEM && r->kind != AC_UNKNOWN && !r->pinned;
}

/* How many records a summary stands for (its "replaces", at least 1). */
static uint64_t
summary_replaces(const struct ac_transcript *t, size_t i)
{
	cJSON *rec = parse_rec(t, i);
	uint64_t n = 1;

	if (rec != NULL && (ai_json_u64(rec, "replaces", &n) != 1 || n == 0))
		n = 1;
	cJSON_Delete(rec);
	return n;
}

/* Phase c: everything foldable outside the window into one summary.  1: done, 0: no model. */
static int
fold(struct state *s, ac_summarize_fn fn, void *ctx, struct ai_err *e)
{
	struct ac_transcript *t = s->t;
	size_t *idx = ai_xcalloc(t->window + 1, sizeof(*idx)), n = 0, fresh = 0, i;
	uint64_t replaces = 0;
	cJSON *sum = NULL, *rec;
	int rc;

	for (i = 0; i < t->window; i++)
		if (foldable(&t->r[i])) {
			idx[n++] = i;
			if (t->r[i].kind == AC_SUMMARY)
				replaces += summary_replaces(t, i);
			else {
				replaces++;
				fresh++;
			}
		}
	if (fresh == 0) {
		/* only earlier summaries: nothing new to fold */
		free(idx);
		return 1;
	}
	rc = fn(ctx, t, idx, n, &sum, e);
	if (rc != 0) {
		free(idx);
		if (rc > 0)
			s->res->no_model = 1;
		return rc > 0 ? 0 : -1;
	}
	rec = ac_summary_record(ai_json_str(sum, "content"), ai_json_get(sum, "key_facts"),
	    ai_json_get(sum, "open_tasks"), replaces);
	cJSON_Delete(sum);
	for (i = 0; i < n; i++) {
		struct ac_rec *r = &t->r[idx[i]];

		s->chars -= cur_chars(r);
		r->action = AC_FOLD;
	}
	s->res->folded = n;
	s->res->summarized = 1;
	changed(s, idx[0]);
	set_inserted(s, rec, idx[0]);
	free(idx);
	return 1;
}

static int
droppable(const struct ac_rec *r)
{
	return (r->kind == AC_USER || r->kind == AC_ASSISTANT || r->kind == AC_TOOL_CALL ||
	    r->kind == AC_TOOL_RESULT || r->kind == AC_SEARCH) && !r->pinned &&
	    (r->action == AC_KEEP || r->action == AC_REWRITE);
}

static void
drop_one(struct state *s, size_t i, uint64_t *count)
{
	struct ac_rec *r = &s->t->r[i];

	s->chars -= cur_chars(r);
	r->action = AC_DROP;
	(*count)++;
	changed(s, i);
}

/* Phase d: drop the oldest records, a tool call and its results together. */
static void
drop(struct state *s)
{
	struct ac_transcript *t = s->t;
	uint64_t earlier = 0, count = 0;
	size_t i, at = t->n;
	int started = 0;

	for (i = 0; i < t->window; i++) {
		struct ac_rec *r = &t->r[i];

		if (!droppable(r))
			continue;
		if (!started) {
			size_t j;

			/* earlier drop notes are merged into the new one */
			for (j = 0; j < t->window; j++) {
				cJSON *rec;
				uint64_t n;

				if (t->r[j].kind != AC_SUMMARY || t->r[j].pinned)
					continue;
				rec = parse_rec(t, j);
				if (rec != NULL && ac_is_drop_note(rec, &n)) {
					s->chars -= t->r[j].chars;
					t->r[j].action = AC_DROP;
					earlier += n;
					changed(s, j);
					if (j < at)
						at = j;
				}
				cJSON_Delete(rec);
			}
			if (i < at)
				at = i;
			started = 1;
		}
		if ((r->kind == AC_TOOL_CALL || r->kind == AC_TOOL_RESULT) && r->group >= 0) {
			int32_t g = r->group, j;

			if (t->r[g].action != AC_DROP)
				drop_one(s, (size_t)g, &count);
			for (j = t->r[g].next; j >= 0; j = t->r[j].next)
				if (t->r[j].action != AC_DROP)
					drop_one(s, (size_t)j, &count);
		} else {
			drop_one(s, i, &count);
		}
		set_inserted(s, ac_drop_note(earlier + count), at);
		if (fits(s))
			break;
	}
	s->res->dropped = count;
}

int
ac_compact(struct ac_transcript *t, const struct ac_opts *o, ac_summarize_fn fn, void *ctx,
    struct ac_result *res, struct ai_err *e)
{
	struct state s;
	size_t i, at;
	int done;

	memset(res, 0, sizeof(*res));
	memset(&s, 0, sizeof(s));
	s.t = t;
	s.o = o;
	s.res = res;
	s.first = t->n;
	calibrations(&s);
	s.ncal_kept = s.ncal;
	res->k_in = factor_before(&s, t->n, &at);
	res->k_in_line = at == (size_t)-1 ? 0 : t->r[at].lineno;
	for (i = 0; i < t->n; i++)
		if (ac_visible(t->r[i].kind))
			s.chars += t->r[i].chars;
	res->chars_before = s.chars;
	res->tokens_before = ac_estimate(s.chars, res->k_in);
	res->records_before = t->n;
	done = fits(&s);
	if (!done)
		done = shrink_kind(&s, AC_TOOL_RESULT);
	if (!done)
		done = shrink_kind(&s, AC_SEARCH);
	if (!done && o->summarize && fn != NULL) {
		int rc = fold(&s, fn, ctx, e);

		if (rc < 0) {
			free(s.cal);
			return -1;
		}
		done = rc;
	}
	if (!done)
		drop(&s);
	/* usage records after the first change measured what is gone */
	for (i = s.first + 1; i < t->n; i++)
		if (t->r[i].kind == AC_USAGE) {
			t->r[i].action = AC_STALE;
			res->stale++;
		}
	res->changed = s.first < t->n;
	res->k_out = factor_before(&s, s.first, NULL);
	res->chars_after = s.chars;
	res->tokens_after = ac_estimate(s.chars, factor_out(&s));
	res->over_budget = res->tokens_after > o->budget;
	res->records_after = res->inserted != NULL;
	res->digested = res->trimmed = 0;
	for (i = 0; i < t->n; i++) {
		const struct ac_rec *r = &t->r[i];

		res->records_after += r->action == AC_KEEP || r->action == AC_REWRITE;
		/* what the output holds: a digest that was dropped later is not counted */
		if (r->action == AC_REWRITE && r->kind == AC_TOOL_RESULT)
			res->digested++;
		if (r->action == AC_REWRITE && r->kind == AC_SEARCH)
			res->trimmed++;
	}
	free(s.cal);
	return 0;
}

void
ac_result_free(struct ac_result *res)
{
	free(res->inserted);
	res->inserted = NULL;
}

int
ac_write(FILE *f, const struct ac_transcript *t, const struct ac_result *res, struct ai_err *e)
{
	size_t i;

	if (!res->changed)
		return ai_out_write(f, t->data, t->size, e);
	for (i = 0; i < t->n; i++) {
		const char *p;
		size_t n;

		if (res->inserted != NULL && res->inserted_at == i &&
		    (ai_out_write(f, res->inserted, strlen(res->inserted), e) < 0 ||
		    ai_out_write(f, "\n", 1, e) < 0))
			return -1;
		if (t->r[i].action != AC_KEEP && t->r[i].action != AC_REWRITE)
			continue;
		p = ac_line(t, i, &n);
		if (ai_out_write(f, p, n, e) < 0 || ai_out_write(f, "\n", 1, e) < 0)
			return -1;
	}
	return 0;
}
