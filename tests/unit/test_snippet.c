/*
 * Unit tests: ai-search's snippet cleaner and date normalizer (ai-search/clean.c),
 * table-driven: each row is an input and the text it must become.
 */
#include <stdlib.h>
#include <string.h>

#include "../../ai-search/clean.h"
#include "text.h"
#include "t.h"

static const struct {
	const char *in;
	size_t len; /* 0: strlen(in) */
	const char *want;
} clean_cases[] = {
	/* plain text passes */
	{ "plain text", 0, "plain text" },
	{ "", 0, "" },
	{ "caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x98\x80", 0, "caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x98\x80" },
	/* tags */
	{ "Listen to the <strong>1</strong> on Spotify", 0, "Listen to the 1 on Spotify" },
	{ "<b>test</b>ing", 0, "testing" },
	{ "one<br>two<br/>three<p>four</p>five", 0, "one two three four five" },
	{ "<div class=\"a>b\">x</div>", 0, "x" },
	{ "<a href='x>y' title=it>link</a>", 0, "link" },
	{ "<A HREF=\"u\">Up</A>", 0, "Up" },
	{ "a<!-- hidden -->b", 0, "ab" },
	{ "a<!-- never closed", 0, "a" },
	{ "<!DOCTYPE html>text", 0, "text" },
	{ "<?xml version=\"1.0\"?>text", 0, "text" },
	{ "x<script>alert('<b>')</script>y", 0, "xy" },
	{ "x<STYLE type=text/css>p{}</Style >y", 0, "xy" },
	{ "x<script>never closed", 0, "x" },
	/* not tags: kept as text */
	{ "a < b and c > d", 0, "a < b and c > d" },
	{ "I <3 it", 0, "I <3 it" },
	{ "x <- y", 0, "x <- y" },
	{ "cut <b", 0, "cut <b" },
	{ "<", 0, "<" },
	{ "<a<a<a", 0, "<a<a<a" },
	{ "</", 0, "</" },
	{ "<!", 0, "<!" },
	/* named references */
	{ "AT&amp;T", 0, "AT&T" },
	{ "&lt;b&gt;bold&lt;/b&gt;", 0, "<b>bold</b>" },
	{ "&quot;the 1&quot; &apos;x&apos;", 0, "\"the 1\" 'x'" },
	{ "a&nbsp;b", 0, "a b" },
	{ "looking&nbsp;...", 0, "looking ..." },
	{ "Tools &middot; Test", 0, "Tools \xc2\xb7 Test" },
	{ "wait&hellip;", 0, "wait\xe2\x80\xa6" },
	{ "&mdash;&ndash;&copy;&euro;&eacute;&Eacute;", 0,
	  "\xe2\x80\x94\xe2\x80\x93\xc2\xa9\xe2\x82\xac\xc3\xa9\xc3\x89" },
	{ "&alpha;&Omega;&thetasym;&rArr;&hearts;", 0,
	  "\xce\xb1\xce\xa9\xcf\x91\xe2\x87\x92\xe2\x99\xa5" },
	{ "&lang;x&rang;", 0, "\xe2\x9f\xa8x\xe2\x9f\xa9" },
	{ "co&shy;operate", 0, "cooperate" },
	/* unknown or malformed named references are left alone */
	{ "&nosuch; &amp &AMP; & ; &;", 0, "&nosuch; &amp &AMP; & ; &;" },
	{ "&averyveryverylongname;", 0, "&averyveryverylongname;" },
	/* numeric references */
	{ "it&#39;s &#x27;q&#X27;", 0, "it's 'q'" },
	{ "&#65;&#x42;&#0000067;", 0, "ABC" },
	{ "&#x1F600;", 0, "\xf0\x9f\x98\x80" },
	{ "&#150; &#147;x&#148;", 0, "\xe2\x80\x93 \xe2\x80\x9cx\xe2\x80\x9d" },
	/* invalid numeric references are left alone */
	{ "&#0; &#xD800; &#x110000; &#99999999999999999999; &#; &#x; &#65 &#x41", 0,
	  "&#0; &#xD800; &#x110000; &#99999999999999999999; &#; &#x; &#65 &#x41" },
	/* decoded text is text, never markup */
	{ "&lt;script&gt;x&lt;/script&gt;", 0, "<script>x</script>" },
	{ "&amp;lt;", 0, "&lt;" },
	/* white space collapsed and trimmed, Unicode spaces included */
	{ "  a \t\n b\r\n", 0, "a b" },
	{ "a\xc2\xa0\xc2\xa0" "b\xe3\x80\x80" "c\xe2\x80\xa8" "d", 0, "a b c d" },
	{ " <p> lead", 0, "lead" },
	{ "trail <br> ", 0, "trail" },
	{ "&#32;&#9;x&#10;", 0, "x" },
	/* control characters removed, also when they come from a reference */
	{ "a\x1b[31mred\x07", 0, "a[31mred" },
	{ "x&#27;y&#127;z&#x81;w", 0, "xyzw" },
	{ "dots&#x85;", 0, "dots\xe2\x80\xa6" },
	{ "bell\x7f\xc2\x9b", 0, "bell" },
	{ "bidi\xe2\x80\xae" "evil\xe2\x81\xa6" "x", 0, "bidievilx" },
	{ "\xef\xbb\xbf" "bom", 0, "bom" },
	/* joiners stay: they belong to the text */
	{ "\xf0\x9f\x91\xa8\xe2\x80\x8d\xf0\x9f\x92\xbb", 0, "\xf0\x9f\x91\xa8\xe2\x80\x8d\xf0\x9f\x92\xbb" },
	/* bytes that are not UTF-8 */
	{ "a\xff" "b", 0, "a\xef\xbf\xbd" "b" },
	{ "\xc3", 0, "\xef\xbf\xbd" },
	{ "\xed\xa0\x80", 0, "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" },
	{ "nul\0inside", 10, "nulinside" },
	/* a real Brave description */
	{ "&quot;The <strong>1</strong>&quot; is a song by the American singer-songwriter Taylor "
	  "Swift&#x27;s", 0,
	  "\"The 1\" is a song by the American singer-songwriter Taylor Swift's" },
};

static const struct {
	const char *in;
	const char *want; /* NULL: not a date */
	size_t used;
} date_cases[] = {
	{ "2024-03-18", "2024-03-18", 10 },
	{ "2024-03-18T00:00:00", "2024-03-18T00:00:00", 19 },
	{ "2025-06-30T14:22:07.123456", "2025-06-30T14:22:07", 26 },
	{ "2025-06-30T14:22:07Z", "2025-06-30T14:22:07Z", 20 },
	{ "2025-06-30T14:22:07+02:00", "2025-06-30T14:22:07+02:00", 25 },
	{ "2025-06-30T14:22:07-0530", "2025-06-30T14:22:07-05:30", 24 },
	{ "2025-06-30 14:22", "2025-06-30T14:22:00", 16 },
	{ "2025-06-30Tjunk", "2025-06-30", 10 },
	{ "Wed, 15 Jan 2025 12:00:00 GMT", "2025-01-15T12:00:00Z", 29 },
	{ "15 Jan 2025 12:00:00 +0100", "2025-01-15T12:00:00+01:00", 26 },
	{ "Mon, 9 Sep 2024", "2024-09-09", 15 },
	{ "Jul 15, 2015 ... UNLEASH", "2015-07-15", 12 },
	{ "Mar 5, 2024", "2024-03-05", 11 },
	{ "2024-02-29", "2024-02-29", 10 },
	{ "2023-02-29", NULL, 0 },
	{ "1900-02-29", NULL, 0 },
	{ "2024-13-01", NULL, 0 },
	{ "2024-00-10", NULL, 0 },
	{ "2024-04-31", NULL, 0 },
	{ "0999-01-01", NULL, 0 },
	{ "20240318", NULL, 0 },
	{ "2024-03-181", NULL, 0 },
	{ "2 weeks ago", NULL, 0 },
	{ "June 29, 2025", NULL, 0 },
	{ "Jul 15 2015", NULL, 0 },
	{ "", NULL, 0 },
	{ "2025-06-30T25:00:00", "2025-06-30", 10 },
};

static void
test_clean(void)
{
	size_t i;

	for (i = 0; i < sizeof(clean_cases) / sizeof(clean_cases[0]); i++) {
		struct ai_buf b = AI_BUF_INIT(1 << 20);
		size_t n = clean_cases[i].len ? clean_cases[i].len : strlen(clean_cases[i].in);

		CHECK_INT(sr_clean(&b, clean_cases[i].in, n), 0);
		if (strcmp(b.buf, clean_cases[i].want) != 0)
			fprintf(stderr, "clean case %zu\n", i);
		CHECK_STR(b.buf, clean_cases[i].want);
		CHECK(ai_utf8_valid(b.buf, b.len));
		CHECK(b.len <= 3 * n);
		ai_buf_release(&b);
	}
}

static void
test_clean_cap(void)
{
	struct ai_buf b = AI_BUF_INIT(4);
	char *s;

	/* the cap is honoured: an addition that does not fit fails */
	CHECK_INT(sr_clean(&b, "abcdefgh", 8), -1);
	CHECK(b.len <= 4);
	ai_buf_release(&b);
	s = sr_clean_str("<i>x</i> &amp; y");
	CHECK_STR(s, "x & y");
	free(s);
}

static void
test_date(void)
{
	size_t i, used;
	char out[32];

	for (i = 0; i < sizeof(date_cases) / sizeof(date_cases[0]); i++) {
		int rc = sr_date(date_cases[i].in, out, sizeof(out), &used);

		if (date_cases[i].want == NULL) {
			if (rc != -1)
				fprintf(stderr, "date case %zu: '%s' accepted as '%s'\n", i,
				    date_cases[i].in, out);
			CHECK_INT(rc, -1);
			continue;
		}
		CHECK_INT(rc, 0);
		if (rc == 0) {
			CHECK_STR(out, date_cases[i].want);
			CHECK_INT(used, date_cases[i].used);
		}
	}
}

static void
test_width(void)
{
	CHECK_INT(sr_char_width('a'), 1);
	CHECK_INT(sr_char_width(0xe9), 1);
	CHECK_INT(sr_char_width(0x65e5), 2);  /* 日 */
	CHECK_INT(sr_char_width(0xac00), 2);  /* 가 */
	CHECK_INT(sr_char_width(0xff21), 2);  /* fullwidth A */
	CHECK_INT(sr_char_width(0x1f600), 2); /* emoji */
	CHECK_INT(sr_char_width(0x301), 0);   /* combining acute */
	CHECK_INT(sr_char_width(0x200d), 0);  /* ZWJ */
}

int
main(void)
{
	test_clean();
	test_clean_cap();
	test_date();
	test_width();
	T_DONE();
}
