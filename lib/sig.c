/* sig.c: ending on SIGINT, SIGTERM and SIGHUP, at once or in order. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "sig.h"
#include "banned.h"

#define MAX_GROUPS 64
#define MAX_PATHS 8

static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };

static volatile sig_atomic_t caught;
static volatile sig_atomic_t catching;
static int wake[2] = { -1, -1 };
static pid_t owner;
static volatile pid_t groups[MAX_GROUPS];
static char paths[MAX_PATHS][PATH_MAX];
static volatile sig_atomic_t path_used[MAX_PATHS];

/* Kill the registered groups and remove the registered files, then die by sig. */
static void
die(int sig)
{
	size_t i;

	if (getpid() == owner) {
		for (i = 0; i < MAX_GROUPS; i++)
			if (groups[i] > 0)
				kill(-groups[i], SIGKILL);
		for (i = 0; i < MAX_PATHS; i++)
			if (path_used[i])
				unlink(paths[i]);
	}
	signal(sig, SIG_DFL);
	raise(sig);
	/* the signal is blocked while its handler runs: it lands on return */
}

static void
on_signal(int sig)
{
	int saved = errno;

	if (!catching || caught || getpid() != owner) {
		die(sig);
		return;
	}
	caught = sig;
	if (wake[1] >= 0)
		(void)!write(wake[1], "", 1);
	errno = saved;
}

static void
install(int flags)
{
	struct sigaction sa, old;
	size_t i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sa.sa_flags = flags;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaddset(&sa.sa_mask, sigs[i]);
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		/* nohup's SIGHUP stays ignored; a script's background job still ends on SIGINT */
		if (sigs[i] == SIGHUP && sigaction(sigs[i], NULL, &old) == 0 &&
		    old.sa_handler == SIG_IGN)
			continue;
		sigaction(sigs[i], &sa, NULL);
	}
}

void
ai_sig_init(void)
{
	owner = getpid();
	/* the handler never returns here: restarting is moot */
	install(SA_RESTART);
}

void
ai_sig_catch(void)
{
	owner = getpid();
	if (wake[0] < 0 && pipe2(wake, O_CLOEXEC | O_NONBLOCK) < 0)
		wake[0] = wake[1] = -1;
	catching = 1;
	/* no SA_RESTART: a blocked read or write returns EINTR */
	install(0);
}

int
ai_sig_caught(void)
{
	return caught;
}

int
ai_sig_fd(void)
{
	return catching ? wake[0] : -1;
}

int
ai_sig_status(int sig)
{
	switch (sig) {
	case SIGINT:
		return AI_EXIT_INTERRUPT;
	case SIGHUP:
		return AI_EXIT_HANGUP;
	case SIGTERM:
		return AI_EXIT_TERM;
	default:
		return 128 + sig;
	}
}

int
ai_sig_interrupted(struct ai_err *e)
{
	return ai_err_set(e, ai_sig_status(caught ? caught : SIGTERM), "%s", "");
}

void
ai_sig_end(void)
{
	int sig = caught;

	if (sig == 0)
		return;
	signal(sig, SIG_DFL);
	{
		sigset_t s;

		sigemptyset(&s);
		sigaddset(&s, sig);
		sigprocmask(SIG_UNBLOCK, &s, NULL);
	}
	raise(sig);
}

void
ai_sig_track(pid_t pgid)
{
	size_t i;

	for (i = 0; i < MAX_GROUPS; i++)
		if (groups[i] == 0) {
			groups[i] = pgid;
			return;
		}
}

void
ai_sig_untrack(pid_t pgid)
{
	size_t i;

	for (i = 0; i < MAX_GROUPS; i++)
		if (groups[i] == pgid)
			groups[i] = 0;
}

void
ai_sig_remove_on_signal(const char *path)
{
	size_t i, n = strlen(path);

	if (n >= PATH_MAX)
		return;
	for (i = 0; i < MAX_PATHS; i++)
		if (!path_used[i]) {
			memcpy(paths[i], path, n + 1);
			path_used[i] = 1;
			return;
		}
}

void
ai_sig_keep(const char *path)
{
	size_t i;

	for (i = 0; i < MAX_PATHS; i++)
		if (path_used[i] && strcmp(paths[i], path) == 0)
			path_used[i] = 0;
}
