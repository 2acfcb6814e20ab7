/*
 * budget.h: a budget a whole job shares, in a small file.
 *
 * The file (named by AICLI_BUDGET_FILE or a tool's --budget-file) holds a
 * JSON object of up to three dimensions, each with a limit and what has
 * been used of it:
 *
 *   {"calls": {"limit": 100, "used": 3},
 *    "weighted_tokens": {"limit": 500000, "used": 1234},
 *    "cost_usd": {"limit": 2.5, "used": 0.0123}}
 *
 * A dimension that is absent, or has no limit, is not limited; "used"
 * defaults to 0.  Every process that reads it takes an exclusive flock(2)
 * on the file itself for each read-modify-write (waiting at most 10 s),
 * so that make -j, xargs -P, --each and nested runs draw on one budget.
 * A call is counted before its request is made (ai_budget_take fails
 * first, with AI_EXIT_LIMIT, once any dimension is spent); its tokens and
 * cost when the answer says them (ai_budget_charge).  So calls never
 * exceed their limit, and tokens and cost exceed theirs by at most what
 * the requests in flight when it was reached spend: one request a process.
 */
#ifndef AI_BUDGET_H
#define AI_BUDGET_H

#include "err.h"

#define AI_BUDGET_MAX_FILE 65536

struct ai_budget_use {
	double calls, weighted, cost;
};

/* The file's limits and use: parse and check (errors say what is wrong, AI_EXIT_DATAERR). */
int ai_budget_parse(const char *text, size_t n, struct ai_budget_use *limit,
    struct ai_budget_use *used, struct ai_err *e);

/* Check the file and, unless a dimension is spent, count one call (-1 with e: 3 when spent). */
int ai_budget_take(const char *path, struct ai_err *e);
/* Add an answer's tokens and cost (calls: 0); give back a call that made no request (-1). */
int ai_budget_charge(const char *path, double calls, double weighted, double cost,
    struct ai_err *e);
/* Only check: 0 while something is left, -1 with e set (3) once spent, or on a bad file. */
int ai_budget_check(const char *path, struct ai_err *e);
/* Write a new budget file with these limits (0: none) and nothing used. */
int ai_budget_create(const char *path, const struct ai_budget_use *limit, struct ai_err *e);

#endif
