/* Unit tests: url.h, table-driven. */
#include <stdlib.h>

#include "url.h"
#include "t.h"

static const struct {
	const char *in;
	const char *canon; /* NULL: refused */
	const char *why;   /* part of the refusal message */
} cases[] = {
	{ "https://Example.COM/a/b?x=1#f", "https://example.com/a/b?x=1", NULL },
	{ "http://example.com", "http://example.com/", NULL },
	{ "http://example.com:80/", "http://example.com/", NULL },
	{ "https://example.com:8443/x", "https://example.com:8443/x", NULL },
	{ "HTTPS://example.com./", "https://example.com/", NULL },
	{ "https://h/a/./b/../c", "https://h/a/c", NULL },
	{ "https://h/a/%2e%2E/b", "https://h/b", NULL },
	{ "https://h/../../etc/passwd", "https://h/etc/passwd", NULL },
	{ "https://h/%7euser/%41", "https://h/~user/A", NULL },
	{ "https://h/a%2fb", NULL, "encoded '/'" },
	{ "https://h/a%5cb", NULL, "encoded '/'" },
	{ "https://h/a%zz", NULL, "percent-encoding" },
	{ "https://h/a%2", NULL, "percent-encoding" },
	{ "https://h/q?a=%e2%9c%93", "https://h/q?a=%E2%9C%93", NULL },
	{ "http://127.0.0.1:8080/v1", "http://127.0.0.1:8080/v1", NULL },
	{ "http://[::1]:8080/", "http://[::1]:8080/", NULL },
	{ "http://user:pw@h/", "http://h/", NULL },
	{ "ftp://h/", NULL, "only http and https" },
	{ "file:///etc/passwd", NULL, "only http and https" },
	{ "javascript:alert(1)", NULL, "not an absolute URL" },
	{ "//h/x", NULL, "not an absolute URL" },
	{ "https://", NULL, "empty host" },
	{ "https:///x", NULL, "empty host" },
	{ "https://h:0/", NULL, "bad port" },
	{ "https://h:65536/", NULL, "bad port" },
	{ "https://h:8a/", NULL, "bad port" },
	{ "https://h x/", NULL, "space" },
	{ "https://h\\@evil/", NULL, "backslash" },
	{ "https://exa\xc3\xa9mple.com/", NULL, "non-ASCII" },
	{ "https://ex%61mple.com/", NULL, "percent-encoded host" },
	{ "http://0x7f.0.0.1/", NULL, "four decimal octets" },
	{ "http://2130706433/", NULL, "four decimal octets" },
	{ "http://127.1/", NULL, "four decimal octets" },
	{ "http://127.000.000.001/", NULL, "four decimal octets" },
	{ "http://256.0.0.1/", NULL, "four decimal octets" },
	{ "http://1.2.3.4.5/", NULL, "four decimal octets" },
	{ "http://h..x/", NULL, "bad host name" },
	{ "https://7.0MCO..:0443/a0", NULL, "bad host name" }, /* found by fuzz_url */
	{ "https://h:0443/", "https://h/", NULL },
	{ "http://h/<script>", NULL, "not allowed" },
	{ "http://[::1/", NULL, "bad host" },
};

int
main(void)
{
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ai_err e = AI_ERR_INIT;
		struct ai_url u;
		int rc = ai_url_parse(cases[i].in, &u, &e);

		if (cases[i].canon != NULL) {
			if (rc != 0)
				fprintf(stderr, "case %zu (%s): %s\n", i, cases[i].in, e.msg);
			CHECK_INT(rc, 0);
			if (rc == 0) {
				char *s = ai_url_string(&u);

				CHECK_STR(s, cases[i].canon);
				free(s);
				ai_url_free(&u);
			}
		} else {
			CHECK_INT(rc, -1);
			if (rc == 0) {
				fprintf(stderr, "case %zu (%s) accepted\n", i, cases[i].in);
				ai_url_free(&u);
			} else if (strstr(e.msg, cases[i].why) == NULL) {
				fprintf(stderr, "case %zu: message '%s' lacks '%s'\n", i, e.msg, cases[i].why);
				CHECK(0);
			}
		}
	}
	{
		struct ai_err e = AI_ERR_INIT;
		struct ai_url u;
		char *o;

		CHECK_INT(ai_url_parse("https://u:p@Host:443/p?q#f", &u, &e), 0);
		CHECK_STR(u.userinfo, "u:p");
		CHECK_STR(u.host, "host");
		CHECK_INT(u.port, 443);
		CHECK_STR(u.path, "/p");
		CHECK_STR(u.query, "q");
		CHECK_STR(u.fragment, "f");
		o = ai_url_origin(&u);
		CHECK_STR(o, "https://host");
		free(o);
		ai_url_free(&u);
	}
	{
		/* a component: the unreserved characters as they are, every other byte encoded */
		struct ai_buf b = AI_BUF_INIT(AI_BUF_NOLIMIT);

		ai_url_encode(&b, "gemini-2.5 pro/x?&=%~_\xc3\xa9");
		ai_buf_addc(&b, '\0');
		CHECK_STR(b.buf, "gemini-2.5%20pro%2Fx%3F%26%3D%25~_%C3%A9");
		ai_buf_release(&b);
	}
	T_DONE();
}
