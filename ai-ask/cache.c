/*
 * cache.c: the response cache of --cache.
 *
 * An entry is the body of one successful answer, as it arrived (a stream's
 * events or a JSON body), kept under the SHA-256 of the request's endpoint
 * and body: never of its headers, so never of the key.  It is a file
 * DIR/ab/abcdef... holding one line of JSON (the content type and when it
 * was written), then the body.  Entries are written to a temporary file in
 * the same folder and renamed into place, so that a concurrent reader sees
 * a whole entry or none; one that cannot be read as an entry is a miss.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ask.h"
#include "io.h"
#include "json.h"
#include "msg.h"
#include "sha256.h"
#include "util.h"
#include "banned.h"

/* The largest entry read: the largest answer and its header line. */
#define CACHE_MAX_ENTRY (((size_t)32 << 20) + 4096)

static int
mkdirs(char *path)
{
	char *p;

	for (p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(path, 0700) < 0 && errno != EEXIST) {
			*p = '/';
			return -1;
		}
		*p = '/';
	}
	return mkdir(path, 0700) < 0 && errno != EEXIST ? -1 : 0;
}

int
cache_open(struct opts *o, struct ai_err *e)
{
	const char *dir = getenv("AICLI_CACHE_DIR"), *xdg = getenv("XDG_CACHE_HOME");
	const char *home = getenv("HOME");
	struct ai_buf b = AI_BUF_INIT(PATH_MAX);
	struct stat st;

	if (dir != NULL && *dir)
		ai_buf_adds(&b, dir);
	else if (xdg != NULL && *xdg == '/')
		ai_buf_addf(&b, "%s/aicli", xdg);
	else if (home != NULL && *home == '/')
		ai_buf_addf(&b, "%s/.cache/aicli", home);
	else
		return ai_err_set(e, AI_EXIT_CONFIG,
		    "--cache needs a folder: set AICLI_CACHE_DIR, XDG_CACHE_HOME or HOME");
	while (b.len > 1 && b.buf[b.len - 1] == '/')
		ai_buf_truncate(&b, b.len - 1);
	o->cache_dir = ai_buf_detach(&b, NULL);
	if (mkdirs(o->cache_dir) < 0 || stat(o->cache_dir, &st) < 0 || !S_ISDIR(st.st_mode) ||
	    access(o->cache_dir, W_OK | X_OK) < 0)
		return ai_err_set(e, AI_EXIT_CONFIG, "cache folder '%s' cannot be used: %s",
		    o->cache_dir, errno ? strerror(errno) : "not a folder");
	return 0;
}

/* The entry's path for a request: DIR/ab/abcdef... */
static void
entry_path(const struct opts *o, const char *url, const char *body, size_t n,
    struct ai_buf *path)
{
	struct ai_sha256 c;
	char hex[65];

	ai_sha256_init(&c);
	ai_sha256_add(&c, url, strlen(url) + 1); /* the NUL keeps the two apart */
	ai_sha256_add(&c, body, n);
	ai_sha256_hex(&c, hex);
	ai_buf_addf(path, "%s/%.2s/%s", o->cache_dir, hex, hex);
}

int
cache_get(const struct opts *o, const char *url, const char *body, size_t n,
    struct ai_buf *data, char *ctype, size_t ctsz)
{
	struct ai_buf path = AI_BUF_INIT(AI_BUF_NOLIMIT), b = AI_BUF_INIT(CACHE_MAX_ENTRY);
	struct ai_err e = AI_ERR_INIT;
	const char *nl;
	cJSON *head = NULL;
	uint64_t created = 0;
	int hit = 0;

	entry_path(o, url, body, n, &path);
	if (ai_read_file(path.buf, &b, CACHE_MAX_ENTRY, &e) < 0 ||
	    (nl = memchr(b.buf, '\n', b.len)) == NULL ||
	    (head = ai_json_parse(b.buf, (size_t)(nl - b.buf), &e)) == NULL ||
	    ai_json_str(head, "content_type") == NULL || ai_json_u64(head, "created", &created) != 1)
		goto out;
	if (o->cache_ttl_ms > 0 && (int64_t)created + o->cache_ttl_ms < ai_wall_ms())
		goto out;
	snprintf(ctype, ctsz, "%s", ai_json_str(head, "content_type"));
	ai_buf_reset(data);
	if (ai_buf_add(data, nl + 1, b.len - (size_t)(nl + 1 - b.buf)) < 0)
		goto out;
	hit = 1;
	if (o->verbose)
		ai_error("answered from the cache ('%s')", path.buf);
out:
	cJSON_Delete(head);
	ai_buf_release(&b);
	ai_buf_release(&path);
	return hit;
}

void
cache_put(const struct opts *o, const char *url, const char *body, size_t n,
    const char *ctype, const char *data, size_t len)
{
	struct ai_buf path = AI_BUF_INIT(AI_BUF_NOLIMIT), tmp = AI_BUF_INIT(AI_BUF_NOLIMIT);
	cJSON *head = cJSON_CreateObject();
	char *line;
	int fd = -1, ok = 0;

	entry_path(o, url, body, n, &path);
	ai_json_addstr(head, "content_type", ctype);
	ai_json_addnum(head, "created", (double)ai_wall_ms());
	line = ai_json_print(head);
	/* the entry's folder, then a temporary file in it, renamed into place */
	ai_buf_add(&tmp, path.buf, path.len - 65);
	if (mkdir(tmp.buf, 0700) < 0 && errno != EEXIST)
		goto out;
	ai_buf_addf(&tmp, "/.tmp.%ld.XXXXXX", (long)getpid());
	if ((fd = mkstemp(tmp.buf)) < 0)
		goto out;
	if (ai_write_all(fd, line, strlen(line)) < 0 || ai_write_all(fd, "\n", 1) < 0 ||
	    ai_write_all(fd, data, len) < 0 || close(fd) < 0) {
		fd = -1;
		unlink(tmp.buf);
		goto out;
	}
	fd = -1;
	if (rename(tmp.buf, path.buf) < 0) {
		unlink(tmp.buf);
		goto out;
	}
	ok = 1;
out:
	if (fd >= 0) {
		close(fd);
		unlink(tmp.buf);
	}
	if (!ok)
		ai_warn("cannot write the cache entry '%s': %s", path.buf, strerror(errno));
	cJSON_free(line);
	cJSON_Delete(head);
	ai_buf_release(&tmp);
	ai_buf_release(&path);
}
