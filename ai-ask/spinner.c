/*
 * spinner.c: a sign of life on stderr while the model thinks.
 *
 * Only when stderr is a terminal (never in a pipe, a log or cron), not on a
 * dumb terminal, and drawn faint unless NO_COLOR is set.  It runs in a
 * thread because the request blocks inside libcurl; it appears only after a
 * quarter of a second and is erased, line and all, before the first byte of
 * the answer or any message is written.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ask.h"
#include "util.h"
#include "banned.h"

static struct {
	pthread_t th;
	pthread_mutex_t m;
	pthread_cond_t c;
	int running;
	int stop;
	int faint;
	char label[160];
} sp = { .m = PTHREAD_MUTEX_INITIALIZER, .c = PTHREAD_COND_INITIALIZER };

/* Wait up to ms for the stop flag (with sp.m held); returns it. */
static int
wait_stop(int64_t ms)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += (time_t)(ms / 1000);
	ts.tv_nsec += (long)(ms % 1000) * 1000000L;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	while (!sp.stop)
		if (pthread_cond_timedwait(&sp.c, &sp.m, &ts) == ETIMEDOUT)
			break;
	return sp.stop;
}

static void *
spin(void *arg)
{
	static const char frames[] = "|/-\\";
	unsigned i = 0;
	int drawn = 0;

	(void)arg;
	pthread_mutex_lock(&sp.m);
	if (!wait_stop(250)) {
		do {
			char line[256];
			int n = snprintf(line, sizeof(line), "\r%s%s %c%s", sp.faint ? "\033[2m" : "",
			    sp.label, frames[i++ % 4], sp.faint ? "\033[0m" : "");

			if (n > 0)
				(void)!write(2, line, (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1);
			drawn = 1;
		} while (!wait_stop(100));
	}
	if (drawn)
		(void)!write(2, "\r\033[K", 4);
	pthread_mutex_unlock(&sp.m);
	return NULL;
}

void
spinner_start(const char *label)
{
	const char *term = getenv("TERM"), *nc = getenv("NO_COLOR");

	if (sp.running || !isatty(2) || (term != NULL && strcmp(term, "dumb") == 0))
		return;
	snprintf(sp.label, sizeof(sp.label), "%s", label);
	sp.faint = nc == NULL || *nc == '\0';
	sp.stop = 0;
	if (pthread_create(&sp.th, NULL, spin, NULL) == 0)
		sp.running = 1;
}

void
spinner_stop(void)
{
	if (!sp.running)
		return;
	pthread_mutex_lock(&sp.m);
	sp.stop = 1;
	pthread_cond_signal(&sp.c);
	pthread_mutex_unlock(&sp.m);
	pthread_join(sp.th, NULL);
	sp.running = 0;
}
