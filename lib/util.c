/* util.c: allocation that cannot fail, clocks, and write_all. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util.h"
#include "banned.h"

const char *ai_progname = "aicli";
void (*ai_oom_hook)(void);

void
ai_oom(void)
{
	static const char tail[] = ": out of memory\n";

	if (ai_oom_hook != NULL)
		ai_oom_hook();

	/* No stdio here: it may need memory itself. */
	(void)!write(2, ai_progname, strlen(ai_progname));
	(void)!write(2, tail, sizeof(tail) - 1);
	_exit(AI_EXIT_OSERR);
}

void *
ai_xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (p == NULL)
		ai_oom();
	return p;
}

void *
ai_xcalloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);

	if (p == NULL)
		ai_oom();
	return p;
}

void *
ai_xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);

	if (q == NULL)
		ai_oom();
	return q;
}

char *
ai_xstrdup(const char *s)
{
	return ai_xmemdup(s, strlen(s));
}

char *
ai_xmemdup(const void *p, size_t n)
{
	char *q;

	if (n == SIZE_MAX)
		ai_oom();
	q = ai_xmalloc(n + 1);
	if (n)
		memcpy(q, p, n);
	q[n] = '\0';
	return q;
}

int64_t
ai_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int64_t
ai_wall_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void
ai_sleep_ms(int64_t ms, volatile int *stop)
{
	struct timespec ts, rem;

	if (ms <= 0)
		return;
	ts.tv_sec = ms / 1000;
	ts.tv_nsec = (long)(ms % 1000) * 1000000L;
	while (nanosleep(&ts, &rem) == -1 && errno == EINTR) {
		if (stop != NULL && *stop)
			return;
		ts = rem;
	}
}

const char *
ai_fmt_ms(int64_t ms, char *out, size_t outsz)
{
	if (ms < 1000)
		snprintf(out, outsz, "%lld ms", (long long)ms);
	else if (ms % 1000 == 0)
		snprintf(out, outsz, "%lld s", (long long)(ms / 1000));
	else
		snprintf(out, outsz, "%.1f s", (double)ms / 1000.0);
	return out;
}

int
ai_write_all(int fd, const void *p, size_t n)
{
	const char *s = p;

	while (n > 0) {
		ssize_t w = write(fd, s, n);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		s += w;
		n -= (size_t)w;
	}
	return 0;
}

const char *
ai_excerpt(const char *s, size_t n, char *out, size_t outsz)
{
	size_t i, o = 0;

	if (outsz == 0)
		return out;
	for (i = 0; i < n && o + 4 < outsz; i++) {
		unsigned char c = (unsigned char)s[i];

		out[o++] = (c < 0x20 || c == 0x7f) ? ' ' : (char)c;
	}
	if (i < n && o + 4 <= outsz) {
		memcpy(out + o, "...", 3);
		o += 3;
	}
	out[o] = '\0';
	return out;
}
