/*
 * libFuzzer target: ai-context's compaction without a model (transcript.c,
 * compact.c, digest.c).  The first two bytes choose the budget, --keep and
 * --tail-lines; the rest is the transcript.  Invariants: what it writes is
 * a transcript it reads back, and compacting that again gives the same bytes
 * (idempotence).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../ai-context/compact.h"
#include "json.h"
#include "../../ai-context/transcript.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Compact in[0..n) into a new allocation; -1 when the input is not a transcript. */
static int
compact(const char *in, size_t n, const struct ac_opts *o, char **out, size_t *outlen)
{
	struct ai_err e = AI_ERR_INIT;
	struct ac_transcript t;
	struct ac_result res;
	FILE *f;

	*out = NULL;
	*outlen = 0;
	if (ac_transcript_read(&t, in, n, &e) < 0)
		return -1;
	ac_window(&t, o->keep);
	if (ac_compact(&t, o, NULL, NULL, &res, &e) < 0)
		abort(); /* nothing can fail without a summariser */
	f = open_memstream(out, outlen);
	if (f == NULL || ac_write(f, &t, &res, &e) < 0)
		abort();
	fclose(f);
	ac_result_free(&res);
	ac_transcript_free(&t);
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ac_opts o;
	char *a, *b;
	size_t alen, blen;

	if (size < 2)
		return 0;
	ai_json_init();
	memset(&o, 0, sizeof(o));
	o.budget = 100 + (uint64_t)data[0] * 8;
	o.keep = data[1] & 7;
	o.tail_lines = (data[1] >> 3) & 7;
	o.summarize = 0;
	if (compact((const char *)data + 2, size - 2, &o, &a, &alen) < 0)
		return 0;
	/* what it writes, it reads; and compacting it again changes nothing */
	if (compact(a, alen, &o, &b, &blen) < 0)
		abort();
	if (alen != blen || memcmp(a, b, alen) != 0)
		abort();
	free(a);
	free(b);
	return 0;
}
