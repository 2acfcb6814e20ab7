/*
 * libFuzzer target: the reader of the providers' rate-limit resets
 * (http.c): durations such as "6m0s" or "20ms", RFC 3339 times, seconds.
 * Any bytes give -1 or a wait from 0 to a day.
 */
#include <stdint.h>
#include <stdlib.h>

#include "http.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int64_t ms = ai_http_reset_ms((const char *)data, size);

	if (ms < -1 || ms > 86400000)
		abort();
	return 0;
}
