/*
 * libFuzzer target: the reader of the budget file (budget.c).  What it
 * accepts has limits and use that are finite, from 0 (or -1: no limit).
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "budget.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ai_err e = AI_ERR_INIT;
	struct ai_budget_use limit, used;

	if (ai_budget_parse((const char *)data, size, &limit, &used, &e) == 0) {
		const double v[] = { limit.calls, limit.weighted, limit.cost, used.calls, used.weighted,
			used.cost };
		size_t i;

		for (i = 0; i < 6; i++)
			if (!isfinite(v[i]) || v[i] < (i < 3 ? -1 : 0) || v[i] > 1e15)
				abort();
	} else if (e.code == 0 || e.msg[0] == '\0') {
		abort();
	}
	return 0;
}
