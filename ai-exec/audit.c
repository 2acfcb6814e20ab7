/*
 * audit.c: the audit log (--audit FILE): one NDJSON line per
 * execution, appended with a single write(2) to a file opened with O_APPEND,
 * so that lines from several processes never interleave.  The file is
 * created with mode 0600.  It holds what was asked and what happened, never
 * what was read: commands and reasons are redacted like any message.
 */
#include <errno.h>
#include <stdio.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "exec.h"
#include "json.h"
#include "util.h"
#include "banned.h"

int
x_audit_open(struct x_audit *a, const char *path, struct ai_err *e)
{
	struct stat st;
	int fd;

	a->fd = -1;
	a->path = NULL;
	if (path == NULL)
		return 0;
	/* O_NONBLOCK: a FIFO put in its place must not hang the start */
	fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOCTTY | O_NONBLOCK, 0600);
	if (fd < 0)
		return ai_err_set(e, AI_EXIT_IOERR, "cannot open the audit log '%s': %s", path,
		    strerror(errno));
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return ai_err_set(e, AI_EXIT_IOERR, "the audit log '%s' is not a regular file", path);
	}
	(void)fcntl(fd, F_SETFL, O_WRONLY | O_APPEND);
	a->fd = fd;
	a->path = ai_xstrdup(path);
	return 0;
}

void
x_audit_close(struct x_audit *a)
{
	if (a->fd >= 0)
		close(a->fd);
	free(a->path);
	a->fd = -1;
	a->path = NULL;
}

cJSON *
x_audit_begin(const char *tool)
{
	cJSON *line = cJSON_CreateObject();
	int64_t ms = ai_wall_ms();
	time_t t = (time_t)(ms / 1000);
	struct tm tm;
	char when[80];

	gmtime_r(&t, &tm);
	snprintf(when, sizeof(when), "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
	    tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, (int)(ms % 1000));
	ai_json_addstr(line, "time", when);
	ai_json_addstr(line, "tool", tool);
	return line;
}

int
x_audit_end(struct x_audit *a, cJSON *line, struct ai_err *e)
{
	char *s;
	size_t n;
	int rc = 0;

	if (a->fd < 0) {
		cJSON_Delete(line);
		return 0;
	}
	s = ai_json_print(line);
	cJSON_Delete(line);
	n = strlen(s);
	s[n] = '\n'; /* cJSON's buffer holds the NUL: n + 1 bytes are ours */
	if (ai_write_all(a->fd, s, n + 1) < 0)
		rc = ai_err_set(e, AI_EXIT_IOERR, "cannot write the audit log '%s': %s", a->path,
		    strerror(errno));
	free(s);
	return rc;
}
