/* proc.c: starting, feeding, reaping and killing child processes. */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "proc.h"
#include "util.h"
#include "banned.h"

extern char **environ;

static int
env_removed(const char *entry, const char *const *unset)
{
	const char *eq = strchr(entry, '=');
	char name[256];
	size_t n = eq ? (size_t)(eq - entry) : strlen(entry), i;

	if (unset == NULL)
		return 0;
	if (n >= sizeof(name))
		n = sizeof(name) - 1;
	memcpy(name, entry, n);
	name[n] = '\0';
	for (i = 0; unset[i] != NULL; i++)
		if (fnmatch(unset[i], name, 0) == 0)
			return 1;
	return 0;
}

static int
env_replaced(const char *entry, const char *const *set)
{
	const char *eq = strchr(entry, '=');
	size_t n = eq ? (size_t)(eq - entry) : strlen(entry), i;

	for (i = 0; set != NULL && set[i] != NULL; i++)
		if (strncmp(set[i], entry, n) == 0 && set[i][n] == '=')
			return 1;
	return 0;
}

/* The child's environment, built before fork (no allocation after it). */
static char **
make_env(const struct ai_child *c)
{
	size_t n = 0, k = 0, i;
	char **env;

	for (i = 0; !c->env_clear && environ[i] != NULL; i++)
		n++;
	for (i = 0; c->env_set != NULL && c->env_set[i] != NULL; i++)
		n++;
	env = ai_xcalloc(n + 1, sizeof(*env));
	for (i = 0; !c->env_clear && environ[i] != NULL; i++)
		if (!env_removed(environ[i], c->env_unset) && !env_replaced(environ[i], c->env_set))
			env[k++] = environ[i];
	for (i = 0; c->env_set != NULL && c->env_set[i] != NULL; i++)
		env[k++] = (char *)c->env_set[i];
	env[k] = NULL;
	return env;
}

static void
close_pair(int p[2])
{
	if (p[0] >= 0)
		close(p[0]);
	if (p[1] >= 0)
		close(p[1]);
	p[0] = p[1] = -1;
}

/* In the child: make fd the standard stream target. */
static int
child_stream(int mode, int target, int pipe_end, int nullfd)
{
	if (mode == AI_FD_PIPE)
		return dup2(pipe_end, target) < 0 ? -1 : 0;
	if (mode == AI_FD_NULL)
		return dup2(nullfd, target) < 0 ? -1 : 0;
	return 0;
}

static void
child_fail(int fd, int err)
{
	(void)!write(fd, &err, sizeof(err));
	_exit(127);
}

int
ai_child_start(struct ai_child *c, struct ai_err *e)
{
	int pin[2] = { -1, -1 }, pout[2] = { -1, -1 }, perr[2] = { -1, -1 };
	int report[2] = { -1, -1 }, nullfd = -1, child_errno;
	pid_t parent = getpid();
	char **env;
	ssize_t r;

	c->pid = -1;
	c->in_fd = c->out_fd = c->err_fd = -1;
	c->reaped = 0;
	c->status = 0;
	c->timed_out = 0;
	if ((c->in == AI_FD_PIPE && pipe2(pin, O_CLOEXEC) < 0) ||
	    (c->out == AI_FD_PIPE && pipe2(pout, O_CLOEXEC) < 0) ||
	    (c->err == AI_FD_PIPE && pipe2(perr, O_CLOEXEC) < 0) ||
	    pipe2(report, O_CLOEXEC) < 0 ||
	    (nullfd = open("/dev/null", O_RDWR | O_CLOEXEC)) < 0) {
		ai_err_set(e, AI_EXIT_OSERR, "cannot create pipes for '%s': %s", c->path,
		    strerror(errno));
		goto fail;
	}
	env = make_env(c);
	c->pid = fork();
	if (c->pid < 0) {
		free(env);
		ai_err_set(e, AI_EXIT_OSERR, "cannot start '%s': %s", c->path, strerror(errno));
		goto fail;
	}
	if (c->pid == 0) {
		sigset_t none;
		int sig;

		for (sig = 1; sig < NSIG; sig++)
			if (sig != SIGKILL && sig != SIGSTOP)
				signal(sig, SIG_DFL);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		if (c->new_session)
			setsid();
		else if (c->new_pgroup)
			setpgid(0, 0);
		if (c->die_with_parent) {
			prctl(PR_SET_PDEATHSIG, SIGTERM);
			if (getppid() != parent)
				_exit(128 + SIGTERM);
		}
		if (child_stream(c->in, 0, pin[0], nullfd) < 0 ||
		    child_stream(c->out, 1, pout[1], nullfd) < 0 ||
		    child_stream(c->err, 2, perr[1], nullfd) < 0)
			child_fail(report[1], errno);
		if (c->before_exec != NULL && c->before_exec(c->before_exec_arg) < 0)
			child_fail(report[1], errno);
		/* Nothing of the parent's but the three streams (and the report pipe). */
		if (report[1] > 3)
			close_range(3, (unsigned)report[1] - 1, 0);
		close_range((unsigned)report[1] + 1, ~0U, 0);
		if (c->cwd != NULL && chdir(c->cwd) < 0)
			child_fail(report[1], errno);
		execve(c->path, c->argv, env);
		child_fail(report[1], errno);
	}
	free(env);
	close(report[1]);
	report[1] = -1;
	do
		r = read(report[0], &child_errno, sizeof(child_errno));
	while (r < 0 && errno == EINTR);
	close(report[0]);
	report[0] = -1;
	if (r == (ssize_t)sizeof(child_errno)) {
		int st;

		while (waitpid(c->pid, &st, 0) < 0 && errno == EINTR)
			;
		c->reaped = 1;
		ai_err_set(e, AI_EXIT_OSERR, "cannot run '%s': %s", c->path, strerror(child_errno));
		if (child_errno == ENOENT || child_errno == EACCES)
			e->code = AI_EXIT_UNAVAILABLE;
		goto fail;
	}
	close(nullfd);
	if (pin[0] >= 0)
		close(pin[0]);
	if (pout[1] >= 0)
		close(pout[1]);
	if (perr[1] >= 0)
		close(perr[1]);
	c->in_fd = pin[1];
	c->out_fd = pout[0];
	c->err_fd = perr[0];
	return 0;
fail:
	close_pair(pin);
	close_pair(pout);
	close_pair(perr);
	close_pair(report);
	if (nullfd >= 0)
		close(nullfd);
	c->pid = -1;
	return -1;
}

void
ai_child_close(struct ai_child *c)
{
	if (c->in_fd >= 0)
		close(c->in_fd);
	if (c->out_fd >= 0)
		close(c->out_fd);
	if (c->err_fd >= 0)
		close(c->err_fd);
	c->in_fd = c->out_fd = c->err_fd = -1;
}

void
ai_child_signal(const struct ai_child *c, int sig)
{
	if (c->pid <= 0 || c->reaped)
		return;
	if (c->new_pgroup || c->new_session)
		kill(-c->pid, sig);
	else
		kill(c->pid, sig);
}

static int
reap(struct ai_child *c, int nohang)
{
	pid_t r;

	if (c->reaped)
		return 1;
	do
		r = waitpid(c->pid, &c->status, nohang ? WNOHANG : 0);
	while (r < 0 && errno == EINTR);
	if (r == c->pid || (r < 0 && errno == ECHILD)) {
		c->reaped = 1;
		if (c->new_pgroup || c->new_session)
			kill(-c->pid, SIGKILL); /* grandchildren left in the group */
		return 1;
	}
	return 0;
}

/* Wait until the child exits or the deadline passes; 1 when reaped. */
static int
wait_until(struct ai_child *c, int64_t deadline)
{
	int pidfd = (int)syscall(SYS_pidfd_open, c->pid, 0);
	int64_t nap = 1;

	for (;;) {
		int64_t left;

		if (reap(c, 1))
			break;
		left = deadline < 0 ? -1 : deadline - ai_now_ms();
		if (deadline >= 0 && left <= 0)
			break;
		if (pidfd >= 0) {
			struct pollfd p = { pidfd, POLLIN, 0 };

			poll(&p, 1, left < 0 || left > INT_MAX ? -1 : (int)left);
		} else {
			/* no pidfd (old kernel): short naps */
			ai_sleep_ms(left < 0 || nap < left ? nap : left, NULL);
			if (nap < 20)
				nap *= 2;
		}
	}
	if (pidfd >= 0)
		close(pidfd);
	return c->reaped;
}

void
ai_child_kill(struct ai_child *c, int64_t grace_ms)
{
	if (c->pid <= 0 || c->reaped)
		return;
	ai_child_signal(c, SIGTERM);
	if (!wait_until(c, ai_now_ms() + grace_ms)) {
		ai_child_signal(c, SIGKILL);
		reap(c, 0);
	}
}

int
ai_child_wait(struct ai_child *c, int64_t timeout_ms, struct ai_err *e)
{
	ai_child_close(c);
	if (c->pid <= 0)
		return 0;
	if (!wait_until(c, timeout_ms < 0 ? -1 : ai_now_ms() + timeout_ms)) {
		ai_child_kill(c, 200);
		c->timed_out = 1;
		return ai_err_set(e, AI_EXIT_TEMPFAIL, "'%s' did not finish within %lld ms; stopped it",
		    c->path, (long long)timeout_ms);
	}
	return 0;
}

int
ai_child_exit_code(const struct ai_child *c)
{
	if (!c->reaped)
		return -1;
	if (WIFEXITED(c->status))
		return WEXITSTATUS(c->status);
	if (WIFSIGNALED(c->status))
		return 128 + WTERMSIG(c->status);
	return -1;
}

static int
drain(int *fd, struct ai_buf *b, const char *path, struct ai_err *e)
{
	char chunk[65536];
	ssize_t r;

	do
		r = read(*fd, chunk, sizeof(chunk));
	while (r < 0 && errno == EINTR);
	if (r <= 0) {
		if (r < 0 && errno == EAGAIN)
			return 0;
		close(*fd);
		*fd = -1;
		return 0;
	}
	if (b != NULL && ai_buf_add(b, chunk, (size_t)r) < 0)
		return ai_err_set(e, AI_EXIT_DATAERR, "output of '%s' is larger than the limit of %zu bytes",
		    path, b->max);
	return 0;
}

int
ai_child_run(struct ai_child *c, const char *in, size_t in_len, struct ai_buf *out,
    struct ai_buf *err, int64_t timeout_ms, struct ai_err *e)
{
	int64_t deadline = timeout_ms < 0 ? -1 : ai_now_ms() + timeout_ms;
	size_t written = 0;

	if (ai_child_start(c, e) < 0)
		return -1;
	if (c->in_fd >= 0) {
		fcntl(c->in_fd, F_SETFL, O_NONBLOCK);
		if (in_len == 0) {
			close(c->in_fd);
			c->in_fd = -1;
		}
	}
	while (c->in_fd >= 0 || c->out_fd >= 0 || c->err_fd >= 0) {
		struct pollfd p[3];
		int n = 0, rc, ii = -1, io = -1, ie = -1;
		int64_t left = deadline < 0 ? -1 : deadline - ai_now_ms();

		if (deadline >= 0 && left <= 0) {
			ai_child_kill(c, 200);
			ai_child_close(c);
			c->timed_out = 1;
			return ai_err_set(e, AI_EXIT_TEMPFAIL,
			    "'%s' did not finish within %lld ms; stopped it", c->path,
			    (long long)timeout_ms);
		}
		if (c->in_fd >= 0) {
			p[n] = (struct pollfd){ c->in_fd, POLLOUT, 0 };
			ii = n++;
		}
		if (c->out_fd >= 0) {
			p[n] = (struct pollfd){ c->out_fd, POLLIN, 0 };
			io = n++;
		}
		if (c->err_fd >= 0) {
			p[n] = (struct pollfd){ c->err_fd, POLLIN, 0 };
			ie = n++;
		}
		rc = poll(p, (nfds_t)n, left < 0 || left > INT_MAX ? -1 : (int)left);
		if (rc < 0 && errno != EINTR) {
			ai_child_kill(c, 200);
			ai_child_close(c);
			return ai_err_set(e, AI_EXIT_OSERR, "poll: %s", strerror(errno));
		}
		if (rc <= 0)
			continue;
		if (ii >= 0 && p[ii].revents) {
			ssize_t w = write(c->in_fd, in + written, in_len - written);

			if (w > 0)
				written += (size_t)w;
			if ((w < 0 && errno != EAGAIN && errno != EINTR) || written == in_len) {
				/* done, or the child stopped reading (EPIPE): it may still answer */
				close(c->in_fd);
				c->in_fd = -1;
			}
		}
		if ((io >= 0 && p[io].revents && drain(&c->out_fd, out, c->path, e) < 0) ||
		    (ie >= 0 && p[ie].revents && drain(&c->err_fd, err, c->path, e) < 0)) {
			ai_child_kill(c, 200);
			ai_child_close(c);
			return -1;
		}
	}
	if (!wait_until(c, deadline)) {
		ai_child_kill(c, 200);
		c->timed_out = 1;
		return ai_err_set(e, AI_EXIT_TEMPFAIL, "'%s' did not finish within %lld ms; stopped it",
		    c->path, (long long)timeout_ms);
	}
	return 0;
}

char *
ai_beside_self(const char *rel, int mode)
{
	char self[PATH_MAX], *slash;
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	struct ai_buf b = AI_BUF_INIT(AI_BUF_NOLIMIT);

	if (n <= 0)
		return NULL;
	self[n] = '\0';
	if ((slash = strrchr(self, '/')) == NULL)
		return NULL;
	ai_buf_add(&b, self, (size_t)(slash - self) + 1);
	ai_buf_adds(&b, rel);
	if (access(b.buf, mode) == 0)
		return ai_buf_detach(&b, NULL);
	ai_buf_release(&b);
	return NULL;
}

char *
ai_find_program(const char *name, const char *dir)
{
	const char *path, *p;
	char *found;

	if (strchr(name, '/') != NULL)
		return access(name, X_OK) == 0 ? ai_xstrdup(name) : NULL;
	if (dir != NULL && *dir) {
		struct ai_buf b = AI_BUF_INIT(AI_BUF_NOLIMIT);

		ai_buf_addf(&b, "%s/%s", dir, name);
		if (access(b.buf, X_OK) == 0)
			return ai_buf_detach(&b, NULL);
		ai_buf_release(&b);
		return NULL;
	}
	if ((found = ai_beside_self(name, X_OK)) != NULL)
		return found;
	path = getenv("PATH");
	for (p = path; p != NULL && *p;) {
		const char *colon = strchr(p, ':');
		size_t len = colon ? (size_t)(colon - p) : strlen(p);

		if (len > 0 && p[0] == '/') {
			struct ai_buf b = AI_BUF_INIT(AI_BUF_NOLIMIT);

			ai_buf_add(&b, p, len);
			ai_buf_addc(&b, '/');
			ai_buf_adds(&b, name);
			if (access(b.buf, X_OK) == 0)
				return ai_buf_detach(&b, NULL);
			ai_buf_release(&b);
		}
		p = colon ? colon + 1 : NULL;
	}
	return NULL;
}
