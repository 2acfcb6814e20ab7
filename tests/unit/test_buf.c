/* Unit tests: buf.h and num.h. */
#include <stdint.h>
#include <stdlib.h>

#include "buf.h"
#include "num.h"
#include "t.h"

static void
test_buf(void)
{
	struct ai_buf b = AI_BUF_INIT(10);
	char *p;
	size_t n;

	CHECK_STR(b.buf, "");
	CHECK_INT(b.len, 0);
	CHECK_INT(ai_buf_adds(&b, "hello"), 0);
	CHECK_INT(ai_buf_addf(&b, "%d", 1234), 0);
	CHECK_STR(b.buf, "hello1234");
	/* the cap: 10 bytes, so 2 more do not fit and nothing is added */
	CHECK_INT(ai_buf_adds(&b, "xy"), -1);
	CHECK_STR(b.buf, "hello1234");
	CHECK_INT(ai_buf_addc(&b, '!'), 0);
	CHECK_INT(b.len, 10);
	CHECK_INT(ai_buf_addc(&b, '?'), -1);
	CHECK_INT(ai_buf_addf(&b, "%s", "z"), -1);
	ai_buf_consume(&b, 5);
	CHECK_STR(b.buf, "1234!");
	ai_buf_truncate(&b, 2);
	CHECK_STR(b.buf, "12");
	p = ai_buf_detach(&b, &n);
	CHECK_STR(p, "12");
	CHECK_INT(n, 2);
	CHECK_STR(b.buf, "");
	free(p);
	/* detaching an untouched buffer gives an allocation too */
	p = ai_buf_detach(&b, &n);
	CHECK_STR(p, "");
	free(p);
	/* growth past the first allocation, data with NUL inside */
	{
		struct ai_buf big = AI_BUF_INIT(1 << 20);
		size_t i;

		for (i = 0; i < 100000; i++)
			ai_buf_addc(&big, i % 7 ? 'a' : '\0');
		CHECK_INT(big.len, 100000);
		CHECK_INT(big.buf[100000], 0);
		CHECK_INT(big.buf[7], 0);
		CHECK_INT(big.buf[8], 'a');
		ai_buf_release(&big);
		CHECK_INT(big.len, 0);
		CHECK_INT(big.max, 1 << 20);
	}
	/* a size that would overflow len + extra */
	{
		struct ai_buf o = AI_BUF_INIT(AI_BUF_NOLIMIT);

		CHECK_INT(ai_buf_grow(&o, SIZE_MAX), -1);
		CHECK_INT(ai_buf_grow(&o, SIZE_MAX - 1), -1);
		ai_buf_release(&o);
	}
	ai_buf_release(&b);
}

static void
test_num(void)
{
	static const struct {
		const char *s;
		int ok;
		uint64_t v;
	} u[] = {
		{ "0", 1, 0 }, { "7", 1, 7 }, { "4096", 1, 4096 },
		{ "18446744073709551615", 1, UINT64_MAX },
		{ "18446744073709551616", 0, 0 }, { "99999999999999999999999", 0, 0 },
		{ "", 0, 0 }, { "-1", 0, 0 }, { "+1", 0, 0 }, { " 1", 0, 0 }, { "1 ", 0, 0 },
		{ "1x", 0, 0 }, { "0x10", 0, 0 }, { "1e3", 0, 0 }, { "1.0", 0, 0 },
		{ "٣", 0, 0 },
	};
	size_t i;
	uint64_t v;
	double d;
	const char *why;

	for (i = 0; i < sizeof(u) / sizeof(u[0]); i++) {
		int rc = ai_parse_u64(u[i].s, 0, UINT64_MAX, &v, &why);

		CHECK_INT(rc, u[i].ok ? 0 : -1);
		if (u[i].ok && rc == 0)
			CHECK(v == u[i].v);
	}
	CHECK_INT(ai_parse_u64("0", 1, 10, &v, &why), -1);
	CHECK_STR(why, "out of range");
	CHECK_INT(ai_parse_u64("11", 1, 10, &v, &why), -1);
	CHECK_INT(ai_parse_u64("10", 1, 10, &v, &why), 0);
	CHECK_INT(ai_parse_u64("abc", 1, 10, &v, &why), -1);
	CHECK_STR(why, "not a decimal number");
	CHECK_INT(ai_parse_u64("99999999999999999999", 0, UINT64_MAX, &v, &why), -1);
	CHECK_STR(why, "number too large");

	CHECK_INT(ai_parse_double("0.7", 0, 2, &d, &why), 0);
	CHECK(d > 0.69 && d < 0.71);
	CHECK_INT(ai_parse_double("30", 0, 100, &d, &why), 0);
	CHECK_INT(ai_parse_double("2.5", 0, 2, &d, &why), -1);
	CHECK_STR(why, "out of range");
	CHECK_INT(ai_parse_double("1e3", 0, 1e9, &d, &why), -1);
	CHECK_INT(ai_parse_double("nan", 0, 1, &d, &why), -1);
	CHECK_INT(ai_parse_double("inf", 0, 1, &d, &why), -1);
	CHECK_INT(ai_parse_double(".", 0, 1, &d, &why), -1);
	CHECK_INT(ai_parse_double("", 0, 1, &d, &why), -1);
	CHECK_INT(ai_parse_double("0x1p3", 0, 100, &d, &why), -1);
	CHECK_INT(ai_parse_double(" 1", 0, 100, &d, &why), -1);
	CHECK_INT(ai_parse_double(".5", 0, 1, &d, &why), 0);
}

int
main(void)
{
	test_buf();
	test_num();
	T_DONE();
}
