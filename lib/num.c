/* num.c: strict decimal parsing. */
#include <stdlib.h>
#include <string.h>

#include "num.h"
#include "banned.h"

int
ai_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out, const char **why)
{
	uint64_t v = 0;
	const char *p;

	if (s == NULL || *s == '\0') {
		*why = "empty number";
		return -1;
	}
	for (p = s; *p; p++) {
		unsigned d;

		if (*p < '0' || *p > '9') {
			*why = "not a decimal number";
			return -1;
		}
		d = (unsigned)(*p - '0');
		if (v > (UINT64_MAX - d) / 10) {
			*why = "number too large";
			return -1;
		}
		v = v * 10 + d;
	}
	if (v < min || v > max) {
		*why = "out of range";
		return -1;
	}
	*out = v;
	return 0;
}

int
ai_parse_double(const char *s, double min, double max, double *out, const char **why)
{
	const char *p = s;
	int digits = 0;
	char *end;
	double v;

	if (s == NULL || *s == '\0') {
		*why = "empty number";
		return -1;
	}
	if (*p == '-')
		p++;
	while (*p >= '0' && *p <= '9') {
		p++;
		digits++;
	}
	if (*p == '.') {
		p++;
		while (*p >= '0' && *p <= '9') {
			p++;
			digits++;
		}
	}
	if (*p != '\0' || digits == 0) {
		*why = "not a decimal number";
		return -1;
	}
	v = strtod(s, &end);
	if (*end != '\0' || v != v) {
		*why = "not a decimal number";
		return -1;
	}
	if (v < min || v > max) {
		*why = "out of range";
		return -1;
	}
	*out = v;
	return 0;
}
