/* Unit tests: lines.h and sse.h, at every split of real captured streams. */
#include <stdlib.h>

#include "buf.h"
#include "io.h"
#include "lines.h"
#include "sse.h"
#include "t.h"

/* Collects events as "event|data\n" text, to compare runs. */
static int
collect(void *ctx, const char *event, const char *data, size_t len, struct ai_err *e)
{
	struct ai_buf *b = ctx;

	(void)e;
	ai_buf_adds(b, event);
	ai_buf_addc(b, '|');
	ai_buf_add(b, data, len);
	ai_buf_addc(b, '\n');
	return 0;
}

static int
feed_split(const char *s, size_t n, size_t step, struct ai_buf *out, struct ai_err *e)
{
	struct ai_sse p;
	size_t i;
	int rc = 0;

	ai_sse_init(&p, 1 << 20, collect, out);
	for (i = 0; i < n && rc == 0; i += step)
		rc = ai_sse_feed(&p, s + i, n - i < step ? n - i : step, e);
	if (rc == 0)
		rc = ai_sse_end(&p, e);
	ai_sse_release(&p);
	return rc;
}

static int
feed_two(const char *s, size_t n, size_t cut, struct ai_buf *out, struct ai_err *e)
{
	struct ai_sse p;
	int rc;

	ai_sse_init(&p, 1 << 20, collect, out);
	rc = ai_sse_feed(&p, s, cut, e);
	if (rc == 0)
		rc = ai_sse_feed(&p, s + cut, n - cut, e);
	if (rc == 0)
		rc = ai_sse_end(&p, e);
	ai_sse_release(&p);
	return rc;
}

static void
test_basics(void)
{
	struct ai_err e = AI_ERR_INIT;
	struct ai_buf out = AI_BUF_INIT(1 << 20);
	static const char s[] =
	    ": comment\n"
	    "data: one\n\n"
	    "event: named\r\ndata:two\r\ndata:  three\r\n\r\n"
	    "id: 7\rretry: 10\rdata\r\r"
	    "data: x\n\n\n\n"
	    "event: empty-is-skipped\n\n";

	CHECK_INT(feed_split(s, sizeof(s) - 1, sizeof(s), &out, &e), 0);
	CHECK_STR(out.buf, "message|one\nnamed|two\n three\nmessage|\nmessage|x\n");
	ai_buf_release(&out);

	/* BOM, alone and split */
	CHECK_INT(feed_split("\xef\xbb\xbf" "data: a\n\n", 12, 1, &out, &e), 0);
	CHECK_STR(out.buf, "message|a\n");
	ai_buf_release(&out);
	CHECK_INT(feed_split("\xef\xbb" "data: a\n\n", 11, 1, &out, &e), 0);
	CHECK_STR(out.buf, "");
	ai_buf_release(&out);

	/* a stream cut inside an event */
	CHECK_INT(feed_split("data: a\n\ndata: {\"par", 20, 3, &out, &e), -1);
	CHECK_INT(e.code, AI_EXIT_PROTOCOL);
	CHECK_STR(e.msg, "event stream ended in the middle of an event");
	CHECK_STR(out.buf, "message|a\n");
	ai_buf_release(&out);
	CHECK_INT(feed_split("data: a\n", 8, 8, &out, &e), -1);
	ai_buf_release(&out);

	/* the cap on an event */
	{
		struct ai_sse p;
		struct ai_buf big = AI_BUF_INIT(1 << 20);

		ai_buf_adds(&big, "data: ");
		while (big.len < 5000)
			ai_buf_addc(&big, 'x');
		ai_buf_adds(&big, "\n\n");
		ai_sse_init(&p, 1000, collect, &out);
		CHECK_INT(ai_sse_feed(&p, big.buf, big.len, &e), -1);
		CHECK_INT(e.code, AI_EXIT_DATAERR);
		ai_sse_release(&p);
		ai_buf_release(&big);
		ai_buf_release(&out);
	}
}

/* Every fixture, split at every position and fed byte by byte, gives the same events. */
static void
test_fixture(const char *path, int crlf)
{
	struct ai_err e = AI_ERR_INIT;
	struct ai_buf file = AI_BUF_INIT(1 << 20), text = AI_BUF_INIT(1 << 20),
	    whole = AI_BUF_INIT(1 << 22), other = AI_BUF_INIT(1 << 22);
	size_t cut, i, bad = 0;

	if (ai_read_file(path, &file, 1 << 20, &e) < 0) {
		fprintf(stderr, "%s\n", e.msg);
		CHECK(0);
		return;
	}
	for (i = 0; i < file.len; i++) {
		if (crlf == 1 && file.buf[i] == '\n')
			ai_buf_addc(&text, '\r');
		if (crlf == 2 && file.buf[i] == '\n')
			ai_buf_addc(&text, '\r');
		else
			ai_buf_addc(&text, file.buf[i]);
	}
	CHECK_INT(feed_split(text.buf, text.len, text.len, &whole, &e), 0);
	CHECK(whole.len > 0);
	for (cut = 0; cut <= text.len; cut++) {
		ai_buf_reset(&other);
		if (feed_two(text.buf, text.len, cut, &other, &e) != 0 || other.len != whole.len ||
		    memcmp(other.buf, whole.buf, whole.len) != 0)
			bad++;
	}
	CHECK_INT(bad, 0);
	ai_buf_reset(&other);
	CHECK_INT(feed_split(text.buf, text.len, 1, &other, &e), 0);
	CHECK(other.len == whole.len && memcmp(other.buf, whole.buf, whole.len) == 0);
	ai_buf_release(&file);
	ai_buf_release(&text);
	ai_buf_release(&whole);
	ai_buf_release(&other);
}

static int
count_line(void *ctx, const char *line, size_t len, struct ai_err *e)
{
	struct ai_buf *b = ctx;

	(void)e;
	ai_buf_add(b, line, len);
	ai_buf_addc(b, '|');
	return 0;
}

static int
stop_at_two(void *ctx, const char *line, size_t len, struct ai_err *e)
{
	int *n = ctx;

	(void)line;
	(void)len;
	(void)e;
	return ++*n == 2 ? 5 : 0;
}

static void
test_lines(void)
{
	struct ai_err e = AI_ERR_INIT;
	struct ai_lines l;
	struct ai_buf out = AI_BUF_INIT(1 << 20);
	int partial, n = 0;

	ai_lines_init(&l, AI_LINES_LF, 10);
	CHECK_INT(ai_lines_feed(&l, "ab\r\ncd\nef", 9, count_line, &out, &e), 0);
	CHECK_INT(ai_lines_feed(&l, "g\r", 2, count_line, &out, &e), 0);
	CHECK_INT(ai_lines_feed(&l, "\nh", 2, count_line, &out, &e), 0);
	CHECK_INT(ai_lines_end(&l, count_line, &out, &partial, &e), 0);
	CHECK_INT(partial, 1);
	CHECK_STR(out.buf, "ab|cd|efg|h|");
	CHECK_INT(ai_lines_feed(&l, "0123456789A", 11, count_line, &out, &e), -1);
	CHECK_STR(e.msg, "line 5 is longer than the limit of 10 bytes");
	ai_lines_release(&l);

	ai_buf_reset(&out);
	ai_lines_init(&l, AI_LINES_ANY, 100);
	CHECK_INT(ai_lines_feed(&l, "a\rb\r", 4, count_line, &out, &e), 0);
	CHECK_INT(ai_lines_feed(&l, "\nc\n\rd", 5, count_line, &out, &e), 0);
	CHECK_INT(ai_lines_end(&l, count_line, &out, &partial, &e), 0);
	CHECK_STR(out.buf, "a|b|c||d|");
	ai_lines_release(&l);

	/* a callback's stop value comes back */
	ai_lines_init(&l, AI_LINES_LF, 100);
	CHECK_INT(ai_lines_feed(&l, "1\n2\n3\n", 6, stop_at_two, &n, &e), 5);
	ai_lines_release(&l);
	ai_buf_release(&out);
}

int
main(void)
{
	static const char *const fixtures[] = {
		"tests/fixtures/openai/responses_stream_text.sse",
		"tests/fixtures/openai/responses_stream_function_call.sse",
		"tests/fixtures/openai/chat_completions_stream_tool_call_split_args.sse",
		"tests/fixtures/anthropic/messages_stream_text.sse",
		"tests/fixtures/anthropic/messages_stream_tool_use_long_input_json_delta.sse",
	};
	size_t i;
	int mode;

	test_basics();
	test_lines();
	for (i = 0; i < sizeof(fixtures) / sizeof(fixtures[0]); i++)
		for (mode = 0; mode < 3; mode++)
			test_fixture(fixtures[i], mode);
	T_DONE();
}
