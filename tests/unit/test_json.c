/* Unit tests: json.h (the strict checker, table-driven) and record.h. */
#include <fcntl.h>
#include <sys/wait.h>
#include <stdlib.h>
#include <unistd.h>

#include "json.h"
#include "redact.h"
#include "record.h"
#include "t.h"

#define JP(s) ai_json_parse((s), strlen(s), &e)
#define RP(s, line) ai_record_parse((s), strlen(s), (line), &e)
#define IS_REC(s) ai_input_is_records((s), strlen(s))

static const struct {
	const char *text;
	const char *why; /* NULL: accepted */
} cases[] = {
	{ "{}", NULL },
	{ " {\"a\":1} \n", NULL },
	{ "[1,2.5,-3e10,0,-0,\"x\",true,false,null]", NULL },
	{ "\"\\u00e9\\ud83d\\ude00\\n\\t\\\"\\\\\\/\"", NULL },
	{ "\"caf\xc3\xa9\"", NULL },
	{ "{\"type\":\"message\",\"content\":\"\\u0041\"}", NULL },
	{ "{} xyz", "trailing data after the JSON value" },
	{ "{}{}", "trailing data after the JSON value" },
	{ "0x10", "trailing data after the JSON value" },
	{ "0123", "leading zero in number" },
	{ "-", "bad number" },
	{ "1.", "bad number" },
	{ "1e", "bad number" },
	{ ".5", "unexpected character" },
	{ "+1", "unexpected character" },
	{ "NaN", "unexpected character" },
	{ "\"a\tb\"", "control character in string" },
	{ "\"a\nb\"", "control character in string" },
	{ "\"a\\u0000b\"", "\\u0000 in a string is not supported" },
	{ "\"\\ud83d\"", "lone surrogate in \\u escape" },
	{ "\"\\ude00\"", "lone surrogate in \\u escape" },
	{ "\"\\ud83d\\u0041\"", "lone surrogate in \\u escape" },
	{ "\"\\x\"", "bad escape in string" },
	{ "\"\\u12g4\"", "bad \\u escape" },
	{ "\"abc", "unterminated string" },
	{ "\"\xff\"", "invalid UTF-8 in string" },
	{ "\"\xc0\xaf\"", "invalid UTF-8 in string" },
	{ "\"\xed\xa0\x80\"", "invalid UTF-8 in string" },
	{ "\xef\xbb\xbf{}", "unexpected character" },
	{ "{\"a\":1,}", "trailing comma" },
	{ "[1,]", "trailing comma" },
	{ "[1 2]", "expected ',' or ']'" },
	{ "{\"a\" 1}", "expected ':'" },
	{ "{a:1}", "expected a string key" },
	{ "// c\n{}", "unexpected character" },
	{ "", "unexpected end of input" },
	{ "   ", "unexpected end of input" },
	{ "[", "unexpected end of input" },
	{ "{\"a\":", "unexpected end of input" },
	{ "tru", "unexpected character" },
	{ "nul", "unexpected character" },
};

static void
test_check_table(void)
{
	size_t i, off;
	const char *why;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int rc = ai_json_check(cases[i].text, strlen(cases[i].text), &off, &why);

		if (cases[i].why == NULL) {
			if (rc != 0)
				fprintf(stderr, "case %zu: refused: %s\n", i, why);
			CHECK_INT(rc, 0);
		} else {
			CHECK_INT(rc, -1);
			if (rc == -1)
				CHECK_STR(why, cases[i].why);
		}
	}
}

static void
test_depth(void)
{
	char deep[2 * (AI_JSON_DEPTH + 10) + 1];
	size_t n = AI_JSON_DEPTH + 10, i, off;
	const char *why;

	for (i = 0; i < n; i++) {
		deep[i] = '[';
		deep[n + i] = ']';
	}
	deep[2 * n] = '\0';
	CHECK_INT(ai_json_check(deep, 2 * n, &off, &why), -1);
	CHECK_STR(why, "nested too deeply");
	n = AI_JSON_DEPTH;
	for (i = 0; i < n; i++) {
		deep[i] = '[';
		deep[n + i] = ']';
	}
	CHECK_INT(ai_json_check(deep, 2 * n, &off, &why), 0);
}

static void
test_parse(void)
{
	struct ai_err e = AI_ERR_INIT;
	cJSON *v;
	uint64_t u;
	char *s;

	v = JP("{\"Model\":\"a\",\"model\":\"b\",\"n\":42,\"f\":1.5,\"t\":true}");
	CHECK(v != NULL);
	CHECK_STR(ai_json_str(v, "model"), "b");
	CHECK_STR(ai_json_str(v, "Model"), "a");
	CHECK(ai_json_str(v, "MODEL") == NULL);
	CHECK_INT(ai_json_u64(v, "n", &u), 1);
	CHECK_INT(u, 42);
	CHECK_INT(ai_json_u64(v, "f", &u), -1);
	CHECK_INT(ai_json_u64(v, "model", &u), -1);
	CHECK_INT(ai_json_u64(v, "absent", &u), 0);
	CHECK_INT(ai_json_bool(v, "t", 0), 1);
	CHECK_INT(ai_json_bool(v, "absent", 7), 7);
	CHECK_INT(ai_json_bool(v, "n", 0), -1);
	s = ai_json_print(v);
	CHECK_STR(s, "{\"Model\":\"a\",\"model\":\"b\",\"n\":42,\"f\":1.5,\"t\":true}");
	free(s);
	cJSON_Delete(v);

	/* duplicate keys are refused, also written differently, also nested */
	v = JP("{\"a\":1,\"a\":2}");
	CHECK(v == NULL);
	CHECK_STR(e.msg, "duplicate key 'a'");
	CHECK_INT(e.code, AI_EXIT_DATAERR);
	v = JP("{\"a\":1,\"\\u0061\":2}");
	CHECK(v == NULL);
	v = JP("[{\"x\":{\"k\":1,\"k\":1}}]");
	CHECK(v == NULL);
	{
		/* many keys: the sorted path */
		struct ai_buf b = AI_BUF_INIT(1 << 20);
		int i;

		ai_buf_addc(&b, '{');
		for (i = 0; i < 100; i++)
			ai_buf_addf(&b, "%s\"k%d\":%d", i ? "," : "", i % 99, i);
		ai_buf_addc(&b, '}');
		v = ai_json_parse(b.buf, b.len, &e);
		CHECK(v == NULL);
		CHECK_STR(e.msg, "duplicate key 'k0'");
		ai_buf_release(&b);
	}
	/* error position: column on one line, line and column on several */
	v = JP("{\"a\":01}");
	CHECK(v == NULL);
	CHECK_STR(e.msg, "column 7: leading zero in number");
	v = JP("{\n  \"a\": 1,\n  \"b\": x\n}");
	CHECK(v == NULL);
	CHECK_STR(e.msg, "line 3, column 8: unexpected character");
}

static void
test_records(void)
{
	struct ai_err e = AI_ERR_INIT;
	cJSON *r;

	r = RP("{\"type\":\"message\",\"role\":\"user\",\"content\":\"hi\"}", 3);
	CHECK(r != NULL);
	CHECK_STR(ai_record_type(r), "message");
	cJSON_Delete(r);
	r = RP("[1]", 4);
	CHECK(r == NULL);
	CHECK_STR(e.msg, "line 4: a record must be a JSON object");
	r = RP("{\"type\":1}", 5);
	CHECK(r == NULL);
	CHECK_STR(e.msg, "line 5: a record needs a string \"type\"");
	r = RP("{\"Type\":\"message\"}", 6);
	CHECK(r == NULL);
	r = RP("{\"type\":\"\"}", 6);
	CHECK(r == NULL);
	r = RP("{\"type\":\"x\"} junk", 7);
	CHECK(r == NULL);
	CHECK_STR(e.msg, "line 7: column 14: trailing data after the JSON value");

	CHECK_INT(IS_REC("{\"type\":\"query\",\"query\":\"q\"}\nmore"), 1);
	CHECK_INT(IS_REC("{\"type\":\"query\"}\r\n"), 1);
	CHECK_INT(IS_REC("  {\"type\":\"x\"}"), 1);
	CHECK_INT(IS_REC("hello {\"type\":\"x\"}"), 0);
	CHECK_INT(IS_REC("{\"kind\":\"x\"}"), 0);
	CHECK_INT(IS_REC("{\"type\":\"x\""), 0);
	CHECK_INT(IS_REC("\n{\"type\":\"x\"}"), 0);
	CHECK_INT(IS_REC(""), 0);
	CHECK_INT(IS_REC("[{\"type\":\"x\"}]"), 0);

	/* error records carry the exit name, the number and a redacted message */
	{
		struct ai_err x = AI_ERR_INIT;
		char *s;

		ai_err_set(&x, AI_EXIT_CONFIG, "key sk-abcdefghijklmnopqrstuvwx refused");
		x.status = 401;
		r = ai_record_error("ai-ask", &x);
		s = ai_json_print(r);
		CHECK_STR(s, "{\"type\":\"error\",\"tool\":\"ai-ask\",\"code\":\"config\",\"exit\":78,"
		    "\"message\":\"key [REDACTED] refused\",\"retryable\":false,\"status\":401}");
		free(s);
		cJSON_Delete(r);
	}
}

static void
test_reader(void)
{
	struct ai_err e = AI_ERR_INIT;
	struct ai_reader r;
	const char *line;
	size_t len;
	int p[2];
	static const char data[] = "one\r\ntwo\n\nthree-is-long\nlast";

	CHECK_INT(pipe(p), 0);
	CHECK_INT(write(p[1], data, sizeof(data) - 1), (long)(sizeof(data) - 1));
	close(p[1]);
	ai_reader_init(&r, p[0], 8, "test");
	CHECK_INT(ai_reader_next(&r, &line, &len, &e), 1);
	CHECK_INT(len, 3);
	CHECK(memcmp(line, "one", 3) == 0);
	CHECK_INT(ai_reader_next(&r, &line, &len, &e), 1);
	CHECK(len == 3 && memcmp(line, "two", 3) == 0);
	CHECK_INT(ai_reader_next(&r, &line, &len, &e), 1);
	CHECK_INT(len, 0);
	CHECK_INT(ai_line_is_blank(line, len), 1);
	CHECK_INT(ai_reader_next(&r, &line, &len, &e), -1);
	CHECK_STR(e.msg, "test: line 4 is longer than the limit of 8 bytes");
	/* a server drops the long line and goes on with the next */
	CHECK_INT(ai_reader_skip_line(&r, &e), 1);
	CHECK_INT(r.lineno, 4);
	CHECK_INT(ai_reader_next(&r, &line, &len, &e), 1);
	CHECK(len == 4 && memcmp(line, "last", 4) == 0);
	CHECK_INT(r.lineno, 5);
	CHECK_INT(ai_reader_next(&r, &line, &len, &e), 0);
	ai_reader_release(&r);
	close(p[0]);

	/* a long line spread over many reads, then one more line */
	{
		struct ai_buf big = AI_BUF_INIT(AI_BUF_NOLIMIT);
		pid_t pid;
		int i;

		for (i = 0; i < 300000; i++)
			ai_buf_addc(&big, 'x');
		ai_buf_adds(&big, "\nok\n");
		CHECK_INT(pipe(p), 0);
		pid = fork();
		if (pid == 0) {
			close(p[0]);
			(void)!write(p[1], big.buf, big.len);
			_exit(0);
		}
		close(p[1]);
		ai_reader_init(&r, p[0], 1000, "big");
		CHECK_INT(ai_reader_next(&r, &line, &len, &e), -1);
		CHECK_INT(ai_reader_skip_line(&r, &e), 1);
		CHECK_INT(ai_reader_next(&r, &line, &len, &e), 1);
		CHECK(len == 2 && memcmp(line, "ok", 2) == 0);
		CHECK_INT(r.lineno, 2);
		CHECK_INT(ai_reader_next(&r, &line, &len, &e), 0);
		/* a long last line without LF: dropped, then the end */
		ai_reader_release(&r);
		close(p[0]);
		waitpid(pid, NULL, 0);
		ai_buf_truncate(&big, 5000);
		CHECK_INT(pipe(p), 0);
		CHECK_INT(write(p[1], big.buf, big.len), 5000);
		close(p[1]);
		ai_reader_init(&r, p[0], 1000, "tail");
		CHECK_INT(ai_reader_next(&r, &line, &len, &e), -1);
		CHECK_INT(ai_reader_skip_line(&r, &e), 1);
		CHECK_INT(ai_reader_next(&r, &line, &len, &e), 0);
		CHECK_INT(ai_reader_skip_line(&r, &e), 0);
		ai_reader_release(&r);
		close(p[0]);
		ai_buf_release(&big);
	}

	/* the last line without LF, and a timeout */
	CHECK_INT(pipe(p), 0);
	CHECK_INT(write(p[1], "a\nb", 3), 3);
	ai_reader_init(&r, p[0], 100, "child");
	r.timeout_ms = 50;
	CHECK_INT(ai_reader_next(&r, &line, &len, &e), 1);
	CHECK_INT(ai_reader_next(&r, &line, &len, &e), -1);
	CHECK_INT(e.code, AI_EXIT_TEMPFAIL);
	close(p[1]);
	CHECK_INT(ai_reader_next(&r, &line, &len, &e), 1);
	CHECK(len == 1 && line[0] == 'b');
	CHECK_INT(ai_reader_next(&r, &line, &len, &e), 0);
	CHECK_INT(r.lineno, 2);
	ai_reader_release(&r);
	close(p[0]);

	/* many lines across read boundaries */
	{
		char path[] = "/tmp/aicli-unit-XXXXXX";
		int fd = mkstemp(path), i, n = 0, ok = 1;
		struct ai_buf b = AI_BUF_INIT(AI_BUF_NOLIMIT);

		for (i = 0; i < 50000; i++)
			ai_buf_addf(&b, "{\"type\":\"n\",\"i\":%d}\n", i);
		CHECK_INT(write(fd, b.buf, b.len), (long)b.len);
		lseek(fd, 0, SEEK_SET);
		ai_reader_init(&r, fd, 64, "file");
		while (ai_reader_next(&r, &line, &len, &e) == 1) {
			char want[64];

			snprintf(want, sizeof(want), "{\"type\":\"n\",\"i\":%d}", n);
			if (len != strlen(want) || memcmp(line, want, len) != 0)
				ok = 0;
			n++;
		}
		CHECK_INT(n, 50000);
		CHECK(ok);
		ai_reader_release(&r);
		ai_buf_release(&b);
		close(fd);
		unlink(path);
	}
}

static void
test_write(void)
{
	struct ai_err e = AI_ERR_INIT;
	char path[] = "/tmp/aicli-unit-XXXXXX", back[256];
	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "w+");
	cJSON *r = ai_record_message("assistant", "caf\xc3\xa9\n\x01 \"q\"");
	size_t n;

	CHECK_INT(ai_record_write(f, r, &e), 0);
	cJSON_Delete(r);
	/* flushed: visible through the descriptor without fclose */
	n = (size_t)pread(fd, back, sizeof(back) - 1, 0);
	back[n] = '\0';
	CHECK_STR(back, "{\"type\":\"message\",\"role\":\"assistant\","
	    "\"content\":\"caf\xc3\xa9\\n\\u0001 \\\"q\\\"\"}\n");
	fclose(f);
	unlink(path);
}

/* Every string of a record, names too, at any depth; the tree's shape kept. */
static void
test_redact_tree(void)
{
	struct ai_err e = AI_ERR_INIT;
	const char *in = "{\"type\":\"tool_result\",\"a\":[\"x hunter2hunter2 y\","
	    "{\"hunter2hunter2\":\"k\\\"q hunter2hunter2\"}],\"n\":1,\"t\":true,"
	    "\"s\":\"Bearer abcdefgh12345678\",\"code\":\"API_KEY = os.environ[1]\"}";
	cJSON *v = ai_json_parse(in, strlen(in), &e);
	char *out;

	ai_secret_add("hunter2hunter2");
	CHECK_INT(ai_json_redact(v), 1);
	out = ai_json_print(v);
	CHECK_STR(out, "{\"type\":\"tool_result\",\"a\":[\"x [REDACTED] y\",{\"[REDACTED]\":"
	    "\"k\\\"q [REDACTED]\"}],\"n\":1,\"t\":true,\"s\":\"Bearer [REDACTED]\","
	    "\"code\":\"API_KEY = os.environ[1]\"}");
	free(out);
	/* again: nothing left to find */
	CHECK_INT(ai_json_redact(v), 0);
	CHECK_INT(ai_json_redact(NULL), 0);
	cJSON_Delete(v);
	ai_secret_clear();
}

int
main(void)
{
	ai_json_init();
	test_redact_tree();
	test_check_table();
	test_depth();
	test_parse();
	test_records();
	test_reader();
	test_write();
	T_DONE();
}
