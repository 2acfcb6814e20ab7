/*
 * policy.c: what a command may read.
 *
 * Files: each --file is opened once, at start-up, and kept open; that
 * descriptor is the file's identity and the only way it is ever read.  A path
 * in a command is matched as text (made absolute against the start-up
 * directory and normalized) against the names each listed file was known by
 * at start-up; the filesystem is never asked about a path a command gives, so
 * a path swapped for a symlink, "..", /proc/self/... or /dev/fd/... reach
 * nothing but a listed file, and an unlisted path is refused the same way
 * whether it exists or not, without even a stat(2) (which could trigger an
 * automount or hang on a dead network filesystem).
 *
 * URLs: a prefix and a URL are both parsed strictly (url.h) and compared as
 * parts: scheme, host and port exactly, then the path on a '/' boundary.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lang.h"
#include "buf.h"
#include "text.h"
#include "util.h"
#include "banned.h"

void
x_policy_init(struct x_policy *p)
{
	memset(p, 0, sizeof(*p));
	p->cwd = getcwd(NULL, 0);
}

void
x_policy_free(struct x_policy *p)
{
	size_t i;

	for (i = 0; i < p->nfiles; i++) {
		if (p->files[i].fd >= 0)
			close(p->files[i].fd);
		free(p->files[i].name);
		free(p->files[i].abs);
		free(p->files[i].real);
	}
	for (i = 0; i < p->nurls; i++) {
		free(p->urls[i].text);
		ai_url_free(&p->urls[i].u);
	}
	free(p->files);
	free(p->urls);
	free(p->cwd);
	memset(p, 0, sizeof(*p));
}

/* Append the segments of p to b as "/seg", resolving "." and ".." as text. */
static void
add_segments(struct ai_buf *b, const char *p)
{
	while (*p) {
		const char *end;
		size_t n;

		while (*p == '/')
			p++;
		end = strchr(p, '/');
		n = end ? (size_t)(end - p) : strlen(p);
		if (n == 0)
			break;
		if (n == 2 && p[0] == '.' && p[1] == '.') {
			char *slash = b->len ? memrchr(b->buf, '/', b->len) : NULL;

			ai_buf_truncate(b, slash ? (size_t)(slash - b->buf) : 0);
		} else if (!(n == 1 && p[0] == '.')) {
			ai_buf_addc(b, '/');
			ai_buf_add(b, p, n);
		}
		p += n;
	}
}

/*
 * path made absolute (against cwd) with "//", "." and ".." resolved as text.
 * NULL when it is relative and the start-up directory is unknown.
 */
static char *
normalize(const char *cwd, const char *path)
{
	struct ai_buf b = AI_BUF_INIT(AI_BUF_NOLIMIT);

	if (path[0] != '/') {
		if (cwd == NULL)
			return NULL;
		add_segments(&b, cwd);
	}
	add_segments(&b, path);
	if (b.len == 0)
		ai_buf_addc(&b, '/');
	return ai_buf_detach(&b, NULL);
}

int
x_looks_binary(const char *s, size_t n)
{
	size_t i = 0, odd = 0;

	if (n > X_SNIFF)
		n = X_SNIFF;
	if (memchr(s, '\0', n) != NULL)
		return 1;
	while (i < n) {
		unsigned char c = (unsigned char)s[i];
		uint32_t cp;
		int l;

		if (c >= 0x80) {
			l = ai_utf8_decode(s + i, n - i, &cp);
			if (l == -1)
				break; /* a character cut by the sniff window */
			if (l == 0) {
				odd++;
				l = 1;
			}
			i += (size_t)l;
			continue;
		}
		if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f' && c != '\v') ||
		    c == 0x7f)
			odd++;
		i++;
	}
	return n > 0 && odd * 10 > n * 3;
}

int
x_policy_add_file(struct x_policy *p, const char *path, struct ai_err *e)
{
	struct stat st, fst;
	char head[X_SNIFF];
	struct x_file *f;
	ssize_t got;
	size_t i;
	int fd;

	if (path[0] == '\0')
		return ai_err_set(e, AI_EXIT_USAGE, "--file needs a path");
	/* Look before opening: opening a device or a FIFO can have effects or block. */
	if (stat(path, &st) < 0)
		return ai_err_set(e, AI_EXIT_NOINPUT, "cannot open '%s': %s", path, strerror(errno));
	if (!S_ISREG(st.st_mode))
		return ai_err_set(e, AI_EXIT_POLICY,
		    "'%s' is not a regular file: only regular files can be listed", path);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return ai_err_set(e, AI_EXIT_NOINPUT, "cannot open '%s': %s", path, strerror(errno));
	if (fstat(fd, &fst) < 0 || !S_ISREG(fst.st_mode) || fst.st_dev != st.st_dev ||
	    fst.st_ino != st.st_ino) {
		close(fd);
		return ai_err_set(e, AI_EXIT_POLICY,
		    "'%s' changed while it was opened, or is not a regular file", path);
	}
	if ((uint64_t)fst.st_size > p->lim.max_file) {
		close(fd);
		return ai_err_set(e, AI_EXIT_LIMIT,
		    "'%s' is %lld bytes, larger than the limit of %llu bytes (--max-file)", path,
		    (long long)fst.st_size, (unsigned long long)p->lim.max_file);
	}
	do
		got = pread(fd, head, sizeof(head), 0);
	while (got < 0 && errno == EINTR);
	if (got < 0) {
		int err = errno;

		close(fd);
		return ai_err_set(e, AI_EXIT_NOINPUT, "cannot read '%s': %s", path, strerror(err));
	}
	if (x_looks_binary(head, (size_t)got)) {
		close(fd);
		return ai_err_set(e, AI_EXIT_POLICY,
		    "'%s' looks like a binary file: only text files can be listed", path);
	}
	p->files = ai_xrealloc(p->files, (p->nfiles + 1) * sizeof(*p->files));
	f = &p->files[p->nfiles++];
	f->name = ai_xstrdup(path);
	f->abs = normalize(p->cwd, path);
	f->real = realpath(path, NULL);
	f->fd = fd;
	f->dev = fst.st_dev;
	f->ino = fst.st_ino;
	/* The same file listed twice is one file: read through the first descriptor. */
	for (i = 0; i + 1 < p->nfiles; i++)
		if (p->files[i].dev == f->dev && p->files[i].ino == f->ino) {
			close(f->fd);
			f->fd = -1;
			break;
		}
	return 0;
}

int
x_policy_add_url(struct x_policy *p, const char *prefix, struct ai_err *e)
{
	struct x_prefix *x;
	struct ai_url u;

	if (ai_url_parse(prefix, &u, e) < 0) {
		ai_err_prefix(e, "--allow-url '%s'", prefix);
		e->code = AI_EXIT_USAGE;
		return -1;
	}
	if (u.userinfo != NULL || u.query != NULL || u.fragment != NULL) {
		ai_url_free(&u);
		return ai_err_set(e, AI_EXIT_USAGE,
		    "--allow-url '%s': a prefix is scheme://host[:port][/path], without "
		    "user information, query or fragment", prefix);
	}
	p->urls = ai_xrealloc(p->urls, (p->nurls + 1) * sizeof(*p->urls));
	x = &p->urls[p->nurls++];
	x->u = u;
	x->text = ai_url_string(&u);
	return 0;
}

/* FNV-1a, 64 bits. */
static uint64_t
fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *s = p;
	size_t i;

	for (i = 0; i < n; i++) {
		h ^= s[i];
		h *= 1099511628211ull;
	}
	return h;
}

void
x_policy_seal(struct x_policy *p)
{
	uint64_t h = 14695981039346656037ull;
	size_t i;

	for (i = 0; i < p->nfiles; i++) {
		uint64_t id[2] = { (uint64_t)p->files[i].dev, (uint64_t)p->files[i].ino };

		h = fnv(h, id, sizeof(id));
		h = fnv(h, p->files[i].name, strlen(p->files[i].name) + 1);
	}
	for (i = 0; i < p->nurls; i++)
		h = fnv(h, p->urls[i].text, strlen(p->urls[i].text) + 1);
	h = fnv(h, &p->lim, sizeof(p->lim));
	p->fingerprint = h;
}

int
x_policy_file(const struct x_policy *p, const char *path)
{
	char *n;
	size_t i;
	int found = -1;

	if (path[0] == '\0' || strlen(path) >= PATH_MAX)
		return -1;
	{
		/* "x/", "x/." and "x/.." name directories, never a listed file (as in sh) */
		const char *last = strrchr(path, '/');

		last = last ? last + 1 : path;
		if (*last == '\0' || strcmp(last, ".") == 0 || strcmp(last, "..") == 0)
			return -1;
	}
	n = normalize(p->cwd, path);
	if (n == NULL)
		return -1;
	for (i = 0; i < p->nfiles && found < 0; i++) {
		const struct x_file *f = &p->files[i];

		if ((f->abs != NULL && strcmp(n, f->abs) == 0) ||
		    (f->real != NULL && strcmp(n, f->real) == 0))
			found = (int)i;
	}
	free(n);
	if (found >= 0 && p->files[found].fd < 0) {
		/* listed twice: the first listing holds the descriptor */
		for (i = 0; i < (size_t)found; i++)
			if (p->files[i].dev == p->files[found].dev &&
			    p->files[i].ino == p->files[found].ino)
				return (int)i;
	}
	return found;
}

int
x_policy_refuse_file(const struct x_policy *p, const char *path, struct ai_err *e)
{
	struct ai_buf names = AI_BUF_INIT(1024);
	char ex[160];
	size_t i;

	for (i = 0; i < p->nfiles; i++)
		ai_buf_addf(&names, "%s'%s'", i ? ", " : "", p->files[i].name);
	ai_excerpt(path, strlen(path), ex, sizeof(ex));
	if (p->nfiles == 0)
		ai_err_set(e, AI_EXIT_POLICY,
		    "cannot read '%s': not allowed (no file was given with --file)", ex);
	else
		ai_err_set(e, AI_EXIT_POLICY,
		    "cannot read '%s': not allowed (the files given with --file: %s)", ex, names.buf);
	ai_buf_release(&names);
	return -1;
}

/* The path of u is prefix's path or under it, on a '/' boundary. */
static int
path_under(const char *path, const char *prefix)
{
	size_t n = strlen(prefix);

	if (strncmp(path, prefix, n) != 0)
		return 0;
	return path[n] == '\0' || path[n] == '/' || (n > 0 && prefix[n - 1] == '/');
}

int
x_policy_url(const struct x_policy *p, const char *url, char **canon, struct ai_err *e)
{
	struct ai_url u;
	char ex[200];
	size_t i;

	*canon = NULL;
	ai_excerpt(url, strlen(url), ex, sizeof(ex));
	if (ai_url_parse(url, &u, e) < 0) {
		ai_err_prefix(e, "bad URL '%s'", ex);
		e->code = AI_EXIT_DATAERR;
		return -1;
	}
	if (u.userinfo != NULL) {
		ai_url_free(&u);
		return ai_err_set(e, AI_EXIT_POLICY,
		    "URL '%s' is not allowed: URLs with user information are refused", ex);
	}
	for (i = 0; i < p->nurls; i++) {
		const struct ai_url *a = &p->urls[i].u;

		if (strcmp(a->scheme, u.scheme) == 0 && strcmp(a->host, u.host) == 0 &&
		    a->port == u.port && a->ipv6 == u.ipv6 && path_under(u.path, a->path)) {
			*canon = ai_url_string(&u);
			ai_url_free(&u);
			return 0;
		}
	}
	ai_url_free(&u);
	if (p->nurls == 0)
		return ai_err_set(e, AI_EXIT_POLICY,
		    "URL '%s' is not allowed: no URL prefix was given with --allow-url", ex);
	{
		struct ai_buf names = AI_BUF_INIT(2048);

		for (i = 0; i < p->nurls; i++)
			ai_buf_addf(&names, "%s'%s'", i ? ", " : "", p->urls[i].text);
		ai_err_set(e, AI_EXIT_POLICY, "URL '%s' is not allowed (allowed prefixes: %s)", ex,
		    names.buf);
		ai_buf_release(&names);
	}
	return -1;
}
