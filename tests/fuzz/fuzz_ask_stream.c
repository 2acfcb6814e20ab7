/*
 * libFuzzer target: ai-ask's answer readers (ai-ask/answer.c and the five
 * adapters).  The first byte picks the provider (bit 5: Gemini), the framing (SSE, NDJSON,
 * a whole JSON body), --schema, and a split point; the rest is the body.
 * Fed whole and fed in two pieces, it must give the same answer: same
 * status, same text, same calls.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../ai-ask/ask.h"
#include "json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const struct provider *const providers[] = {
	&provider_openai, &provider_chat, &provider_anthropic, &provider_ollama
};
static const char *const types[] = {
	"text/event-stream", "application/x-ndjson", "application/json"
};

struct result {
	int rc;
	struct ai_buf out;
};

static void
feed(unsigned sel, const char *p, size_t n, size_t cut, struct result *res)
{
	struct ai_err e = AI_ERR_INIT;
	struct answer a;
	struct ask k;
	struct stream *s;
	cJSON *schema = cJSON_CreateObject();
	size_t i;

	memset(&k, 0, sizeof(k));
	k.p = (sel & 32) ? &provider_gemini : providers[sel & 3];
	k.model = "m";
	k.stream = 1;
	k.schema = (sel & 16) ? schema : NULL;
	snprintf(k.idseed, sizeof(k.idseed), "%s", "fuzz");
	answer_init(&a);
	a.service = "'fuzz'";
	s = stream_new(k.p, &a, &k);
	stream_watch_type(s, types[((sel >> 2) & 3) % 3]);
	res->rc = stream_data(s, p, cut, &e);
	if (res->rc == 0)
		res->rc = stream_data(s, p + cut, n - cut, &e);
	if (res->rc == 0)
		res->rc = stream_end(s, &e);
	if (res->rc == 0)
		res->rc = answer_finish(&a, &e);
	ai_buf_add(&res->out, a.text.buf, a.text.len);
	ai_buf_addc(&res->out, 0);
	for (i = 0; res->rc == 0 && i < a.ncalls; i++) {
		char *args = ai_json_print(a.calls[i].obj);

		ai_buf_adds(&res->out, a.calls[i].id ? a.calls[i].id : "-");
		ai_buf_adds(&res->out, a.calls[i].name);
		ai_buf_adds(&res->out, args);
		free(args);
	}
	for (i = 0; i < a.nthoughts; i++)
		ai_buf_add(&res->out, a.thoughts[i].text.buf, a.thoughts[i].text.len);
	ai_buf_addf(&res->out, "|%d|%d|%llu", a.stop, a.done, (unsigned long long)a.output);
	stream_free(s);
	answer_free(&a);
	cJSON_Delete(schema);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct result whole = { 0, AI_BUF_INIT(1 << 26) }, split = { 0, AI_BUF_INIT(1 << 26) };
	const char *p = (const char *)data + 1;
	size_t n, cut;

	if (size < 1)
		return 0;
	n = size - 1;
	cut = n ? ((size_t)data[0] * 7919u) % (n + 1) : 0;
	feed(data[0], p, n, n, &whole);
	feed(data[0], p, n, cut, &split);
	/* a whole JSON body is parsed at the end, so only the stream framings must agree */
	if (((data[0] >> 2) & 3) % 3 != 2 &&
	    (whole.rc != split.rc || whole.out.len != split.out.len ||
	    memcmp(whole.out.buf, split.out.buf, whole.out.len) != 0))
		abort();
	ai_buf_release(&whole.out);
	ai_buf_release(&split.out);
	return 0;
}
