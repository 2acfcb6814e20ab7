/* Unit tests: sha256.h against the FIPS 180-4 examples, and http.h's reader of resets. */
#include <string.h>

#include "http.h"
#include "sha256.h"
#include "t.h"

static void
digest(const char *s, size_t n, size_t piece, char out[65])
{
	struct ai_sha256 c;
	size_t i;

	ai_sha256_init(&c);
	for (i = 0; i < n; i += piece)
		ai_sha256_add(&c, s + i, n - i < piece ? n - i : piece);
	ai_sha256_hex(&c, out);
}

static void
test_sha256(void)
{
	static char million[1000000];
	const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	char out[65];

	digest("", 0, 1, out);
	CHECK_STR(out, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	digest("abc", 3, 1, out);
	CHECK_STR(out, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	/* two blocks, fed whole and a byte at a time: the same */
	digest(two, strlen(two), strlen(two), out);
	CHECK_STR(out, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
	digest(two, strlen(two), 1, out);
	CHECK_STR(out, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
	memset(million, 'a', sizeof(million));
	digest(million, sizeof(million), 4093, out);
	CHECK_STR(out, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

static void
test_reset(void)
{
	CHECK_INT(ai_http_reset_ms("1s", 2), 1000);
	CHECK_INT(ai_http_reset_ms("6m0s", 4), 360000);
	CHECK_INT(ai_http_reset_ms("20ms", 4), 20);
	CHECK_INT(ai_http_reset_ms("1.5s", 4), 1500);
	CHECK_INT(ai_http_reset_ms("1h2m3s", 6), 3723000);
	CHECK_INT(ai_http_reset_ms("7", 1), 7000);
	CHECK_INT(ai_http_reset_ms("", 0), -1);
	CHECK_INT(ai_http_reset_ms("soon", 4), -1);
	CHECK_INT(ai_http_reset_ms("5x", 2), -1);
	/* a time in the past is now; far ahead, a day */
	CHECK_INT(ai_http_reset_ms("2001-01-01T00:00:00Z", 20), 0);
	CHECK_INT(ai_http_reset_ms("2999-01-01T00:00:00Z", 20), 86400000);
}

int
main(void)
{
	test_sha256();
	test_reset();
	T_DONE();
}
