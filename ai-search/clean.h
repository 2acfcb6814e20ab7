/*
 * clean.h: turn what search providers send into clean text.
 *
 * Titles and snippets arrive as HTML fragments (Google's htmlSnippet,
 * Brave's <strong> markup, SearXNG's entities) or as text that may still hold
 * some.  sr_clean() makes them plain text: tags dropped (a block-level tag
 * such as <br> or <p> counts as a space, <script> and <style> are dropped
 * with their content, comments too), character references decoded (the
 * named ones of HTML 4 and the common typographic ones, decimal and hex
 * numeric ones; an invalid or unknown reference is left as it is), every run
 * of white space (Unicode spaces and no-break spaces included) made one
 * space and trimmed, control characters and bidirectional controls removed,
 * and bytes that are not UTF-8 replaced by U+FFFD.  The output is never
 * longer than 3 bytes per input byte.
 *
 * sr_date() normalizes the dates providers give (ISO 8601, RFC 1123,
 * "Jul 15, 2015") to ISO 8601.
 */
#ifndef SR_CLEAN_H
#define SR_CLEAN_H

#include <stddef.h>

#include "buf.h"

/* Append the clean text of s[0..n) to out; -1 when out's cap would be passed. */
int sr_clean(struct ai_buf *out, const char *s, size_t n);
/* The same into a new string (to free()). */
char *sr_clean_str(const char *s);

/*
 * Normalize a date into out (at least 26 bytes): "YYYY-MM-DD", or
 * "YYYY-MM-DDTHH:MM:SS" followed by "Z" or "+HH:MM" when the zone is known.
 * Accepts ISO 8601 ("2024-03-18", "2024-03-18T00:00:00", "...Z",
 * "...+02:00", fractions of a second dropped), RFC 1123 ("Wed, 15 Jan 2025
 * 12:00:00 GMT") and "Jul 15, 2015".  *used (if not NULL) is the length of
 * what was read, which may be followed by anything.  Returns 0, or -1 when
 * s does not start with a date.
 */
int sr_date(const char *s, char *out, size_t outsz, size_t *used);

/* Columns a character takes on a terminal: 0 (combining), 1 or 2 (wide). */
int sr_char_width(unsigned long cp);

#endif
