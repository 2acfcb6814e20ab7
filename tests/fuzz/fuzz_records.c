/*
 * libFuzzer target: what every tool does with its standard input before
 * anything else (lib/text.c, lib/record.c): the text rule, telling records
 * from text, and finding an error record that an earlier tool passed on.
 * Invariants: the text check fails exactly when there is a NUL byte or a
 * byte that is not UTF-8, and names an offset inside the input; an error
 * record found is a line of the input and gives a status from 1 to 255.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "record.h"
#include "text.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data, *line, *at;
	struct ai_err e = AI_ERR_INIT;
	size_t len;
	int bad = memchr(s, '\0', size) != NULL || !ai_utf8_valid(s, size);

	ai_json_init();
	if ((ai_text_check(s, size, "input", 0, 1, &e) < 0) != bad)
		abort();
	if (bad) {
		at = strstr(e.msg, "offset ");
		if (at == NULL || strtoull(at + 7, NULL, 10) >= size || e.code != AI_EXIT_DATAERR)
			abort();
	}
	(void)ai_input_is_records(s, size);
	ai_err_clear(&e);
	if (ai_records_upstream(s, size, &line, &len, &e)) {
		if (line < s || line + len > s + size || e.code < 1 || e.code > 255 ||
		    strncmp(e.msg, "error from ", 11) != 0)
			abort();
	}
	return 0;
}
