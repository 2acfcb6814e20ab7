/* Unit tests: text.h (UTF-8, the terminal sanitizer) and redact.h. */
#include <stdlib.h>

#include "buf.h"
#include "redact.h"
#include "text.h"
#include "t.h"

static char *
san(const char *s, size_t n)
{
	struct ai_buf b = AI_BUF_INIT(1 << 20);

	ai_term_sanitize(&b, s, n);
	return ai_buf_detach(&b, NULL);
}

#define CHECK_SAN(in, want) do { \
	char *s_ = san(in, sizeof(in) - 1); \
	CHECK_STR(s_, want); \
	free(s_); \
} while (0)

static void
test_utf8(void)
{
	uint32_t cp;
	struct ai_buf b = AI_BUF_INIT(100);

	CHECK_INT(ai_utf8_decode("\xc3\xa9", 2, &cp), 2);
	CHECK_INT(cp, 0xe9);
	CHECK_INT(ai_utf8_decode("\xf0\x9f\x98\x80", 4, &cp), 4);
	CHECK_INT(cp, 0x1f600);
	CHECK_INT(ai_utf8_decode("\xf0\x9f\x98", 3, &cp), -1);
	CHECK_INT(ai_utf8_decode("\xc0\xaf", 2, &cp), 0);
	CHECK_INT(ai_utf8_decode("\xe0\x80", 2, &cp), 0);     /* overlong, seen early */
	CHECK_INT(ai_utf8_decode("\xed\xa0", 2, &cp), 0);     /* surrogate, seen early */
	CHECK_INT(ai_utf8_decode("\xf4\x90\x80\x80", 4, &cp), 0);
	CHECK_INT(ai_utf8_decode("\x80", 1, &cp), 0);
	CHECK_INT(ai_utf8_valid("abc\xc3\xa9", 5), 1);
	CHECK_INT(ai_utf8_valid("abc\xc3", 4), 0);

	/* cuts never split a character */
	CHECK_INT(ai_utf8_count("a\xc3\xa9z", 4), 3);
	CHECK_INT(ai_utf8_count("\xf0\x9f\x98\x80", 4), 1);
	CHECK_INT(ai_utf8_count("\x80\x80", 2), 0);
	CHECK_INT(ai_utf8_count("\xff\xfe", 2), 2);
	CHECK_INT(ai_utf8_count("", 0), 0);
	CHECK_INT(ai_utf8_start("a\xc3\xa9z", 4, 2), 3);
	CHECK_INT(ai_utf8_start("a\xc3\xa9z", 4, 1), 1);
	CHECK_INT(ai_utf8_start("\xf0\x9f\x98\x80", 4, 1), 4);
	CHECK_INT(ai_utf8_start("ab", 2, 5), 5);
	CHECK_INT(ai_utf8_cut("a\xc3\xa9z", 4, 2), 1);
	CHECK_INT(ai_utf8_cut("a\xc3\xa9z", 4, 3), 3);
	CHECK_INT(ai_utf8_cut("\xf0\x9f\x98\x80x", 5, 3), 0);
	CHECK_INT(ai_utf8_cut("abc", 3, 10), 3);
	CHECK_INT(ai_utf8_cut("\x80\x80\x80\x80\x80", 5, 4), 4);

	ai_utf8_fix(&b, "a\xffz\xc3", 4);
	CHECK_STR(b.buf, "a\xef\xbf\xbdz\xef\xbf\xbd");
	ai_buf_release(&b);
}

static void
test_sanitize(void)
{
	CHECK_SAN("plain text\n\ttab", "plain text\n\ttab");
	CHECK_SAN("\x1b[31mred\x1b[0m", "^[[31mred^[[0m");
	CHECK_SAN("\x1b]0;title\x07", "^[]0;title^G");
	CHECK_SAN("a\rb\x7f\x01", "a^Mb^?^A");
	CHECK_SAN("caf\xc3\xa9 \xe2\x9c\x93", "caf\xc3\xa9 \xe2\x9c\x93");
	CHECK_SAN("\xc2\x9b" "31m", "<U+009B>31m");
	CHECK_SAN("x\xe2\x80\xaey", "x<U+202E>y");
	CHECK_SAN("\xff\xfe", "\\xff\\xfe");
	CHECK_SAN("\xc3", "\\xc3");

	/* a stream: a character split over feeds comes out whole */
	{
		struct ai_sanitizer z = AI_SANITIZER_INIT;
		struct ai_buf b = AI_BUF_INIT(100);

		ai_sanitize_feed(&z, &b, "a\xe2", 2);
		ai_sanitize_feed(&z, &b, "\x9c", 1);
		ai_sanitize_feed(&z, &b, "\x93\xc3", 2);
		ai_sanitize_feed(&z, &b, "(", 1);
		ai_sanitize_feed(&z, &b, "\xf0\x9f", 2);
		ai_sanitize_end(&z, &b);
		CHECK_STR(b.buf, "a\xe2\x9c\x93\\xc3(\\xf0\\x9f");
		ai_buf_release(&b);
	}
}

static char *
red(const char *s)
{
	return ai_redact_str(s);
}

/* Redact, compare, and check that redacting the result again changes nothing. */
#define CHECK_RED(in, want) do { \
	char *r_ = red(in), *r2_ = red(r_); \
	CHECK_STR(r_, want); \
	CHECK_STR(r2_, r_); \
	free(r_); \
	free(r2_); \
} while (0)

static void
test_redact(void)
{
	CHECK_RED("nothing secret here, a key idea", "nothing secret here, a key idea");
	CHECK_RED("key sk-proj-AbCdEf0123456789xyzXYZ used", "key [REDACTED] used");
	CHECK_RED("sk-ant-api03-abcdefghijklmnopqrstuvwxyz", "[REDACTED]");
	CHECK_RED("task-abcdefghijklmnopqrstuvwxyz is a word", "task-abcdefghijklmnopqrstuvwxyz is a word");
	CHECK_RED("Authorization: Bearer abc.def-ghi_jkl", "Authorization: Bearer [REDACTED]");
	CHECK_RED("authorization: basic dXNlcjpwYXNzd29yZA==", "authorization: basic [REDACTED]");
	CHECK_RED("x-api-key: abcdef123456", "x-api-key: [REDACTED]");
	CHECK_RED("X-Subscription-Token: BSAabcdefgh12345", "X-Subscription-Token: [REDACTED]");
	CHECK_RED("https://user:pa55@example.com/x", "https://[REDACTED]@example.com/x");
	CHECK_RED("see https://example.com/a@b", "see https://example.com/a@b");
	CHECK_RED("GET /customsearch/v1?key=AIzaSyA-abc&cx=123&q=test",
	    "GET /customsearch/v1?key=[REDACTED]&cx=123&q=test");
	CHECK_RED("url?q=1&api_key=zzz#frag", "url?q=1&api_key=[REDACTED]#frag");
	CHECK_RED("OPENAI_API_KEY=abcdef123456789", "OPENAI_API_KEY=[REDACTED]");
	CHECK_RED("{\"openai_api_key\": \"live-abcdef123456\"}", "{\"openai_api_key\": \"[REDACTED]\"}");
	CHECK_RED("password: hunter2hunter2", "password: [REDACTED]");
	CHECK_RED("primary_key: id", "primary_key: id");
	CHECK_RED("ghp_abcdefghijklmnopqrstuvwxyz0123456789", "[REDACTED]");
	CHECK_RED("AKIAABCDEFGHIJKLMNOP", "[REDACTED]");
	CHECK_RED("AIzaSyDdI0hCZtE6vySjMm-WEfRq3CPzqKqqsHI", "[REDACTED]");
	CHECK_RED("tvly-abcdefghijklmnop1234", "[REDACTED]");
	CHECK_RED("a\n-----BEGIN RSA PRIVATE KEY-----\nMIIEabc\n-----END RSA PRIVATE KEY-----\nb",
	    "a\n[REDACTED]\nb");
	CHECK_RED("-----BEGIN CERTIFICATE-----\nMIIB\n", "-----BEGIN CERTIFICATE-----\nMIIB\n");
	/* Stripe keys */
	CHECK_RED("stripe sk_live_51HabcdefGHIJKLmnop and rk_test_abcdefghijklmnop12",
	    "stripe [REDACTED] and [REDACTED]");
	CHECK_RED("sk_live_short", "sk_live_short");
	/* JSON Web Tokens, also without a name in front */
	CHECK_RED("token eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dBjftJeZ4CVPmB92K27uhbUJU1p1r_wW1gFWFOEjXk done",
	    "token [REDACTED] done");
	CHECK_RED("\"id_tok\":\"eyJhbGciOiJSUzI1NiJ9.eyJpc3MiOiJodHRwczovL2EifQ.c2lnbmF0dXJlc2lnbg\"",
	    "\"id_tok\":\"[REDACTED]\"");
	/* not a token: too few parts, too short, inside a word */
	CHECK_RED("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0");
	CHECK_RED("eyJa.eyJb.cc", "eyJa.eyJb.cc");
	CHECK_RED("xeyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.dBjftJeZ4CVPmB92",
	    "xeyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.dBjftJeZ4CVPmB92");
	/* what redaction leaves is not redacted again */
	CHECK_RED("password=[REDACTED] Bearer [REDACTED] https://[REDACTED]@h/ ?key=[REDACTED]",
	    "password=[REDACTED] Bearer [REDACTED] https://[REDACTED]@h/ ?key=[REDACTED]");

	/* registered values, wherever they are, even inside words */
	ai_secret_add("plainvalue42");
	ai_secret_add("abc"); /* too short to register */
	CHECK_RED("x=plainvalue42; embeddedplainvalue42x", "x=[REDACTED]; embedded[REDACTED]x");
	CHECK_RED("abc", "abc");
	ai_secret_clear();
	CHECK_RED("plainvalue42", "plainvalue42");
}

/* A page s[from..to) redacted with its context: into a static string. */
static const char *
span(const char *s, size_t from, size_t to)
{
	static char out[256];
	struct ai_buf b = AI_BUF_INIT(AI_BUF_NOLIMIT);

	ai_redact_span(&b, s, strlen(s), from, to);
	snprintf(out, sizeof(out), "%s", b.buf);
	ai_buf_release(&b);
	return out;
}

static void
test_redact_output(void)
{
	struct ai_buf b = AI_BUF_INIT(AI_BUF_NOLIMIT);
	const char *s = "key=correct-horse-42 and more";

	/* output keeps assignments (source code), but not key shapes */
	ai_redact_output(&b, "SECRET_KEY = os.environ[1] sk-abcdefghijklmnop0123", 48);
	CHECK_STR(b.buf, "SECRET_KEY = os.environ[1] [REDACTED]");
	ai_buf_release(&b);
	/* no secret registered: the page as it is, whatever its edges */
	CHECK_STR(span("\xe6\x97\xa5x", 0, 3), "\xe6\x97\xa5");
	CHECK_STR(span("abcdef", 2, 4), "cd");
	CHECK_INT(ai_secret_maxlen(), 0);
	/* a registered value: whole, or cut by either edge of the page, it never shows */
	ai_secret_add("correct-horse-42");
	CHECK_INT(ai_secret_maxlen(), 16);
	CHECK_STR(span(s, 0, strlen(s)), "key=[REDACTED] and more");
	CHECK_STR(span(s, 0, 6), "key=[REDACTED]");
	CHECK_STR(span(s, 6, 10), "[REDACTED]");
	CHECK_STR(span(s, 19, 24), "[REDACTED] and");
	CHECK_STR(span(s, 20, 24), " and");
	CHECK_STR(span(s, 0, 4), "key=");
	/* two values side by side are one mark */
	CHECK_STR(span("correct-horse-42correct-horse-42!", 3, 33), "[REDACTED]!");
	ai_secret_clear();
}

int
main(void)
{
	test_utf8();
	test_sanitize();
	test_redact();
	test_redact_output();
	T_DONE();
}
