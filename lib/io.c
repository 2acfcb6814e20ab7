/* io.c: capped reads, checked writes. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io.h"
#include "util.h"
#include "banned.h"

int
ai_read_fd(int fd, struct ai_buf *b, const char *what, struct ai_err *e)
{
	for (;;) {
		ssize_t r;
		size_t room = 65536;

		if (b->max - b->len < room)
			room = b->max - b->len;
		if (room == 0) {
			char probe;

			do
				r = read(fd, &probe, 1);
			while (r < 0 && errno == EINTR);
			if (r == 0)
				return 0;
			if (r > 0)
				return ai_err_set(e, AI_EXIT_DATAERR,
				    "%s is larger than the limit of %zu bytes", what, b->max);
		} else {
			if (ai_buf_grow(b, room) < 0)
				return ai_err_set(e, AI_EXIT_DATAERR,
				    "%s is larger than the limit of %zu bytes", what, b->max);
			do
				r = read(fd, b->buf + b->len, room);
			while (r < 0 && errno == EINTR);
			if (r == 0)
				return 0;
			if (r > 0) {
				b->len += (size_t)r;
				b->buf[b->len] = '\0';
				continue;
			}
		}
		return ai_err_set(e, AI_EXIT_IOERR, "cannot read %s: %s", what, strerror(errno));
	}
}

int
ai_read_file(const char *path, struct ai_buf *b, size_t max, struct ai_err *e)
{
	struct stat st;
	int fd, rc;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return ai_err_set(e, AI_EXIT_NOINPUT, "cannot open '%s': %s", path, strerror(errno));
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return ai_err_set(e, AI_EXIT_NOINPUT, "'%s' is not a regular file", path);
	}
	if ((uint64_t)st.st_size > max) {
		close(fd);
		return ai_err_set(e, AI_EXIT_DATAERR, "'%s' is larger than the limit of %zu bytes",
		    path, max);
	}
	b->max = max;
	rc = ai_read_fd(fd, b, path, e);
	close(fd);
	return rc;
}

static int
out_error(FILE *f, struct ai_err *e)
{
	int err = errno;

	clearerr(f);
	if (err == EPIPE) {
		ai_err_set(e, AI_EXIT_PIPE, "broken pipe");
		return -1;
	}
	return ai_err_set(e, AI_EXIT_IOERR, "write error: %s", strerror(err));
}

int
ai_out_write(FILE *f, const void *p, size_t n, struct ai_err *e)
{
	if (n == 0)
		return 0;
	errno = 0;
	if (fwrite(p, 1, n, f) != n)
		return out_error(f, e);
	return 0;
}

int
ai_out_flush(FILE *f, struct ai_err *e)
{
	errno = 0;
	if (fflush(f) != 0)
		return out_error(f, e);
	return 0;
}

int
ai_out_close(struct ai_err *e)
{
	errno = 0;
	if (fflush(stdout) != 0 || ferror(stdout))
		return out_error(stdout, e);
	errno = 0;
	if (fclose(stdout) != 0 && errno != EBADF) {
		if (errno == EPIPE)
			return ai_err_set(e, AI_EXIT_PIPE, "broken pipe");
		return ai_err_set(e, AI_EXIT_IOERR, "write error: %s", strerror(errno));
	}
	return 0;
}

int
ai_sealed_file(const char *name, const char *data, size_t n, char *path, size_t pathsz,
    struct ai_err *e)
{
	int fd = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING), probe;

	if (fd < 0)
		return ai_err_set(e, AI_EXIT_OSERR, "cannot create the %s file: %s", name,
		    strerror(errno));
	if (ai_write_all(fd, data, n) < 0 ||
	    fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) < 0) {
		ai_err_set(e, AI_EXIT_OSERR, "cannot write the %s file: %s", name, strerror(errno));
		close(fd);
		return -1;
	}
	snprintf(path, pathsz, "/proc/%ld/fd/%d", (long)getpid(), fd);
	/* the children open it by this path: /proc must be there */
	if ((probe = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
		ai_err_set(e, AI_EXIT_OSERR, "cannot open '%s' (is /proc mounted?): %s", path,
		    strerror(errno));
		close(fd);
		return -1;
	}
	close(probe);
	return fd;
}
