/*
 * attach.c: the files of -a, sent with the prompt.
 *
 * A file's type is decided by its first bytes, never by its name: PNG, JPEG,
 * GIF and WebP images, and PDF documents.  Each file is read whole (up to
 * --max-attach) and sent base64-encoded in the provider's own shape:
 * Responses input_image and input_file parts, Chat Completions image_url
 * data URLs, Anthropic image and document blocks, Gemini inlineData parts,
 * Ollama's images.  A type the provider cannot take, a provider that takes
 * no files, a file too large or unreadable: refused before any request.
 */
#include <stdlib.h>
#include <string.h>

#include "ask.h"
#include "io.h"
#include "profiles.h"
#include "util.h"
#include "banned.h"

#define ATTACH_MAX_SIZE ((uint64_t)100 << 20)   /* the largest --max-attach, and all files */

static const struct {
	const char *mime;
	int kind;
	const char *magic;
	size_t off, len;
} types[] = {
	{ "image/png", ATT_IMAGE, "\x89PNG\r\n\x1a\n", 0, 8 },
	{ "image/jpeg", ATT_IMAGE, "\xff\xd8\xff", 0, 3 },
	{ "image/gif", ATT_IMAGE, "GIF87a", 0, 6 },
	{ "image/gif", ATT_IMAGE, "GIF89a", 0, 6 },
	{ "image/webp", ATT_IMAGE, "WEBP", 8, 4 },  /* after "RIFF" and a length */
	{ "application/pdf", ATT_PDF, "%PDF-", 0, 5 },
};

int
attach_parse_size(const char *s, uint64_t *out)
{
	uint64_t v = 0, mul = 1;
	size_t i;

	for (i = 0; s[i] >= '0' && s[i] <= '9'; i++) {
		if (v > ATTACH_MAX_SIZE)
			return -1;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	if (i == 0)
		return -1;
	if (s[i] == 'k' || s[i] == 'K')
		mul = 1024;
	else if (s[i] == 'm' || s[i] == 'M')
		mul = (uint64_t)1 << 20;
	if (mul > 1)
		i++;
	if (s[i] != '\0' || v == 0 || v > ATTACH_MAX_SIZE / mul)
		return -1;
	*out = v * mul;
	return 0;
}

static const char *
kind_name(int kind)
{
	return kind == ATT_PDF ? "PDF documents" : "images";
}

/* Whether the adapter of the run takes files of this kind. */
static int
takes(const struct opts *o, int kind)
{
	const struct provider *p = o->k.p;

	if (kind == ATT_IMAGE)
		return !(o->pflags & AI_PROFILE_NO_IMAGES);
	return p == &provider_openai || p == &provider_anthropic || p == &provider_gemini;
}

static char *
base64(const unsigned char *p, size_t n)
{
	static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	char *out = ai_xmalloc((n + 2) / 3 * 4 + 1), *q = out;
	size_t i;

	for (i = 0; i + 2 < n; i += 3) {
		*q++ = tab[p[i] >> 2];
		*q++ = tab[((p[i] & 3) << 4) | (p[i + 1] >> 4)];
		*q++ = tab[((p[i + 1] & 15) << 2) | (p[i + 2] >> 6)];
		*q++ = tab[p[i + 2] & 63];
	}
	if (i < n) {
		*q++ = tab[p[i] >> 2];
		if (i + 1 < n) {
			*q++ = tab[((p[i] & 3) << 4) | (p[i + 1] >> 4)];
			*q++ = tab[(p[i + 1] & 15) << 2];
		} else {
			*q++ = tab[(p[i] & 3) << 4];
			*q++ = '=';
		}
		*q++ = '=';
	}
	*q = '\0';
	return out;
}

static int
load_one(const struct opts *o, const char *path, struct attach *a, struct ai_err *e)
{
	struct ai_buf b = AI_BUF_INIT((size_t)o->max_attach);
	const char *slash = strrchr(path, '/');
	size_t i;

	if (ai_read_file(path, &b, (size_t)o->max_attach, e) < 0) {
		ai_buf_release(&b);
		if (e->code == AI_EXIT_DATAERR)
			return ai_err_set(e, AI_EXIT_DATAERR, "attachment '%s' is larger than %llu bytes "
			    "(--max-attach)", path, (unsigned long long)o->max_attach);
		return -1;
	}
	for (i = 0; i < AI_ARRAY_SIZE(types); i++)
		if (b.len >= types[i].off + types[i].len &&
		    memcmp(b.buf + types[i].off, types[i].magic, types[i].len) == 0 &&
		    (types[i].off == 0 || memcmp(b.buf, "RIFF", 4) == 0))
			break;
	if (i == AI_ARRAY_SIZE(types)) {
		ai_buf_release(&b);
		return ai_err_set(e, AI_EXIT_DATAERR, "attachment '%s' is not a PNG, JPEG, GIF or WebP "
		    "image nor a PDF document (by its first bytes)", path);
	}
	if (!takes(o, types[i].kind)) {
		ai_buf_release(&b);
		return ai_err_set(e, AI_EXIT_DATAERR, "attachment '%s': %s cannot take %s", path,
		    o->profile, kind_name(types[i].kind));
	}
	a->path = path;
	a->name = slash != NULL ? slash + 1 : path;
	a->mime = types[i].mime;
	a->kind = types[i].kind;
	a->size = b.len;
	a->b64 = base64((const unsigned char *)b.buf, b.len);
	ai_buf_release(&b);
	return 0;
}

int
attach_load(const struct opts *o, struct attach **out, size_t *n, struct ai_err *e)
{
	struct attach *a = ai_xcalloc(o->attach.n, sizeof(*a));
	uint64_t total = 0;
	size_t i;


	for (i = 0; i < o->attach.n; i++) {
		if (load_one(o, o->attach.v[i], &a[i], e) < 0) {
			attach_free(a, i);
			return -1;
		}
		total += a[i].size;
		if (total > ATTACH_MAX_SIZE) {
			attach_free(a, i + 1);
			return ai_err_set(e, AI_EXIT_DATAERR, "the attachments are larger than %llu MiB "
			    "together", (unsigned long long)(ATTACH_MAX_SIZE >> 20));
		}
	}
	*out = a;
	*n = o->attach.n;
	return 0;
}

void
attach_free(struct attach *a, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(a[i].b64);
	free(a);
}
