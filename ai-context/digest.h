/*
 * digest.h: the smaller forms of records that compaction writes.
 *
 * A tool result's digest keeps the tool, its id,
 * ok, error, the exit code and the truncated flag, and only the last lines of
 * each text it holds, with secret-looking strings redacted.  A trimmed search
 * result keeps its title and URL (and query and rank).  A drop note is the
 * summary record that says how many records were dropped.  Every function is
 * idempotent: applied to its own output it gives the same bytes back, which
 * is what makes compacting a compacted transcript a no-op.
 */
#ifndef AC_DIGEST_H
#define AC_DIGEST_H

#include <stddef.h>
#include <stdint.h>
#include <cjson/cJSON.h>

#include "buf.h"

/* The most bytes a digest keeps of one text, whatever the number of lines. */
#define AC_TAIL_MAX_BYTES 4096
/* Arrays and objects in a tool result larger than this (printed) are left out of its digest. */
#define AC_DIGEST_MAX_VALUE 256

/*
 * Where the last lines of s[0..n) begin: at most lines lines (a final LF
 * does not begin another) and at most max_bytes bytes, never inside a UTF-8
 * character.
 */
size_t ac_tail_start(const char *s, size_t n, uint64_t lines, size_t max_bytes);

/* s redacted, then its tail: into out (appended).  Returns whether anything was cut. */
int ac_tail_text(struct ai_buf *out, const char *s, size_t n, uint64_t lines);

/* The digest of a tool_result record (a new object; rec is borrowed). */
cJSON *ac_digest_tool_result(const cJSON *rec, uint64_t lines);
/* A search_result with only type, query, rank, title and url. */
cJSON *ac_trim_search_result(const cJSON *rec);

/* The drop note for n dropped records, and whether rec is one (made by this tool). */
cJSON *ac_drop_note(uint64_t n);
int ac_is_drop_note(const cJSON *rec, uint64_t *n);

/* A summary record. */
cJSON *ac_summary_record(const char *content, const cJSON *key_facts, const cJSON *open_tasks,
    uint64_t replaces);

#endif
