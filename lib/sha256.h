/*
 * sha256.h: SHA-256 (FIPS 180-4), for keys that name content, such as the
 * entries of a response cache.  Not for secrets: nothing here is constant
 * time.
 */
#ifndef AI_SHA256_H
#define AI_SHA256_H

#include <stddef.h>
#include <stdint.h>

struct ai_sha256 {
	uint32_t h[8];
	uint64_t len;       /* bytes hashed */
	unsigned char buf[64];
	size_t n;           /* bytes in buf */
};

void ai_sha256_init(struct ai_sha256 *c);
void ai_sha256_add(struct ai_sha256 *c, const void *p, size_t n);
/* The digest as 64 lowercase hex digits and a NUL. */
void ai_sha256_hex(struct ai_sha256 *c, char out[65]);

#endif
