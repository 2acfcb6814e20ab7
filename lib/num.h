/*
 * num.h: strict number parsing for flags, DSL options and record fields.
 *
 * A number is plain decimal digits and nothing else: no sign (unless the
 * function takes one), no spaces, no "0x", no "1e3", no trailing junk, no
 * empty string.  Out-of-range values (including overflow) are refused.  On
 * failure *why says why in a few words ("not a decimal number",
 * "number too large", "out of range": the caller knows the range and says it)
 * and the function returns -1.  *why always points at a string constant.
 */
#ifndef AI_NUM_H
#define AI_NUM_H

#include <stdint.h>

int ai_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out, const char **why);
/* Decimal with an optional fraction ("0.7", "30", "1.5"); no exponent, inf or nan. */
int ai_parse_double(const char *s, double min, double max, double *out, const char **why);

#endif
