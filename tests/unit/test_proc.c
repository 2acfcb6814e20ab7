/* Unit tests: proc.h. */
#include <errno.h>
#include <signal.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "proc.h"
#include "util.h"
#include "t.h"

static void
test_run(void)
{
	struct ai_err e = AI_ERR_INIT;
	struct ai_buf out = AI_BUF_INIT(1 << 20), err = AI_BUF_INIT(1 << 20);
	char *argv[] = { "sh", "-c", "cat; echo err >&2; exit 3", NULL };
	struct ai_child c = { .path = "/bin/sh", .argv = argv, .in = AI_FD_PIPE, .out = AI_FD_PIPE,
		.err = AI_FD_PIPE };

	CHECK_INT(ai_child_run(&c, "hello", 5, &out, &err, 5000, &e), 0);
	CHECK_STR(out.buf, "hello");
	CHECK_STR(err.buf, "err\n");
	CHECK_INT(ai_child_exit_code(&c), 3);
	ai_buf_release(&out);
	ai_buf_release(&err);
}

static void
test_big_io(void)
{
	/* more than a pipe buffer in and out at once: no deadlock */
	struct ai_err e = AI_ERR_INIT;
	struct ai_buf out = AI_BUF_INIT(8 << 20);
	size_t n = 3 << 20, i;
	char *in = ai_xmalloc(n);
	char *argv[] = { "cat", NULL };
	struct ai_child c = { .path = "/bin/cat", .argv = argv, .in = AI_FD_PIPE, .out = AI_FD_PIPE,
		.err = AI_FD_NULL };

	for (i = 0; i < n; i++)
		in[i] = (char)('a' + i % 26);
	CHECK_INT(ai_child_run(&c, in, n, &out, NULL, 10000, &e), 0);
	CHECK_INT(out.len, n);
	CHECK(out.len == n && memcmp(out.buf, in, n) == 0);
	free(in);
	ai_buf_release(&out);

	/* an output cap kills the child */
	{
		char *yes[] = { "sh", "-c", "while :; do echo yyyyyyyy; done", NULL };
		struct ai_child y = { .path = "/bin/sh", .argv = yes, .out = AI_FD_PIPE, .err = AI_FD_NULL };
		struct ai_buf small = AI_BUF_INIT(1000);

		CHECK_INT(ai_child_run(&y, NULL, 0, &small, NULL, 10000, &e), -1);
		CHECK(strstr(e.msg, "larger than the limit of 1000 bytes") != NULL);
		CHECK_INT(y.reaped, 1);
		ai_buf_release(&small);
	}
}

static void
test_env(void)
{
	struct ai_err e = AI_ERR_INIT;
	struct ai_buf out = AI_BUF_INIT(1 << 20);
	char *argv[] = { "sh", "-c", "env | sort", NULL };
	const char *unset[] = { "*_API_KEY", "SECRET_*", NULL };
	const char *set[] = { "ADDED=1", "KEEP=replaced", NULL };
	struct ai_child c = { .path = "/bin/sh", .argv = argv, .out = AI_FD_PIPE, .err = AI_FD_NULL,
		.env_unset = unset, .env_set = set };

	setenv("OPENAI_API_KEY", "sk-x", 1);
	setenv("SECRET_THING", "y", 1);
	setenv("KEEP", "orig", 1);
	CHECK_INT(ai_child_run(&c, NULL, 0, &out, NULL, 5000, &e), 0);
	CHECK(strstr(out.buf, "OPENAI_API_KEY") == NULL);
	CHECK(strstr(out.buf, "SECRET_THING") == NULL);
	CHECK(strstr(out.buf, "ADDED=1\n") != NULL);
	CHECK(strstr(out.buf, "KEEP=replaced\n") != NULL);
	CHECK(strstr(out.buf, "KEEP=orig") == NULL);
	CHECK(strstr(out.buf, "PATH=") != NULL);
	ai_buf_reset(&out);

	/* env_clear: only what is set */
	{
		char *envargv[] = { "env", NULL };
		const char *only[] = { "A=b", NULL };
		struct ai_child d = { .path = "/usr/bin/env", .argv = envargv, .out = AI_FD_PIPE,
			.env_clear = 1, .env_set = only };

		CHECK_INT(ai_child_run(&d, NULL, 0, &out, NULL, 5000, &e), 0);
		CHECK_STR(out.buf, "A=b\n");
	}
	ai_buf_release(&out);
}

/* Processes of a group that are still running (zombies awaiting init do not count). */
static int
live_in_group(pid_t pgid)
{
	char cmd[200], buf[64];
	FILE *p;
	int n = 0;

	snprintf(cmd, sizeof(cmd), "ps -eo pgid=,stat= | awk '$1 == %d && $2 !~ /^Z/' | wc -l",
	    (int)pgid);
	p = popen(cmd, "r");
	if (p != NULL && fgets(buf, sizeof(buf), p) != NULL)
		n = (int)strtol(buf, NULL, 10);
	if (p != NULL)
		pclose(p);
	return n;
}

static void
test_fail_and_timeout(void)
{
	struct ai_err e = AI_ERR_INIT;
	char *argv[] = { "nope", NULL };
	struct ai_child c = { .path = "/nonexistent/nope", .argv = argv };
	int64_t t0;

	CHECK_INT(ai_child_start(&c, &e), -1);
	CHECK_STR(e.msg, "cannot run '/nonexistent/nope': No such file or directory");
	CHECK_INT(e.code, AI_EXIT_UNAVAILABLE);

	/* a timeout kills the whole group, grandchildren too, and reaps */
	{
		char *slow[] = { "sh", "-c", "sleep 30 & sleep 30; wait", NULL };
		struct ai_child s = { .path = "/bin/sh", .argv = slow, .new_pgroup = 1 };
		pid_t pgid;

		CHECK_INT(ai_child_start(&s, &e), 0);
		pgid = s.pid;
		t0 = ai_now_ms();
		CHECK_INT(ai_child_wait(&s, 300, &e), -1);
		CHECK(ai_now_ms() - t0 < 2000);
		CHECK_INT(s.timed_out, 1);
		CHECK_INT(s.reaped, 1);
		CHECK_INT(ai_child_exit_code(&s), 128 + SIGTERM);
		usleep(100000);
		CHECK_INT(live_in_group(pgid), 0);
	}
	/* a child that ignores SIGTERM gets SIGKILL */
	{
		char *stubborn[] = { "sh", "-c", "trap '' TERM; sleep 30", NULL };
		struct ai_child s = { .path = "/bin/sh", .argv = stubborn, .new_pgroup = 1 };

		CHECK_INT(ai_child_start(&s, &e), 0);
		usleep(100000);
		ai_child_kill(&s, 200);
		CHECK_INT(s.reaped, 1);
		CHECK_INT(ai_child_exit_code(&s), 128 + SIGKILL);
	}
	/* no zombie is left: nothing to wait for */
	CHECK(waitpid(-1, NULL, WNOHANG) == -1);
}

static int
strict_umask(void *arg)
{
	umask(*(mode_t *)arg);
	return 0;
}

static int
refuse(void *arg)
{
	(void)arg;
	errno = EPERM;
	return -1;
}

/* before_exec runs in the child, before execve; its failure is the start's. */
static void
test_before_exec(void)
{
	struct ai_err e = AI_ERR_INIT;
	struct ai_buf out = AI_BUF_INIT(1 << 10);
	char *argv[] = { "sh", "-c", "umask", NULL };
	mode_t m = 077;
	struct ai_child c = { .path = "/bin/sh", .argv = argv, .out = AI_FD_PIPE, .err = AI_FD_NULL,
		.before_exec = strict_umask, .before_exec_arg = &m };
	struct ai_child r = { .path = "/bin/sh", .argv = argv, .before_exec = refuse };

	CHECK_INT(ai_child_run(&c, NULL, 0, &out, NULL, 5000, &e), 0);
	CHECK_STR(out.buf, "0077\n");
	ai_buf_release(&out);
	CHECK_INT(ai_child_start(&r, &e), -1);
	CHECK_STR(e.msg, "cannot run '/bin/sh': Operation not permitted");
	CHECK_INT(r.pid, -1);
	CHECK(waitpid(-1, NULL, WNOHANG) == -1);
}

/*
 * new_session: the child leads its own session and group, has no
 * controlling terminal (opening /dev/tty fails), and a kill reaches the
 * grandchildren in its group.
 */
static void
test_session(void)
{
	struct ai_err e = AI_ERR_INIT;
	struct ai_buf out = AI_BUF_INIT(1 << 20);
	char *tty[] = { "sh", "-c", "if (true </dev/tty) 2>/dev/null; then echo tty; else echo none; fi", NULL };
	struct ai_child c = { .path = "/bin/sh", .argv = tty, .out = AI_FD_PIPE, .err = AI_FD_NULL,
		.new_session = 1 };
	char *slow[] = { "sh", "-c", "sleep 30 & sleep 30; wait", NULL };
	struct ai_child s = { .path = "/bin/sh", .argv = slow, .new_session = 1 };

	CHECK_INT(ai_child_run(&c, NULL, 0, &out, NULL, 5000, &e), 0);
	CHECK_STR(out.buf, "none\n");
	ai_buf_release(&out);

	CHECK_INT(ai_child_start(&s, &e), 0);
	usleep(100000);
	CHECK_INT(getsid(s.pid), s.pid);
	CHECK_INT(getpgid(s.pid), s.pid);
	CHECK(getsid(s.pid) != getsid(0));
	ai_child_kill(&s, 200);
	CHECK_INT(s.reaped, 1);
	usleep(100000);
	CHECK_INT(live_in_group(s.pid), 0);
	CHECK(waitpid(-1, NULL, WNOHANG) == -1);
}

static void
test_find(void)
{
	char *p = ai_find_program("sh", NULL);

	CHECK(p != NULL && strstr(p, "/sh") != NULL);
	free(p);
	p = ai_find_program("sh", "/nonexistent");
	CHECK(p == NULL);
	p = ai_find_program("no-such-program-anywhere", NULL);
	CHECK(p == NULL);
}

int
main(void)
{
	test_run();
	test_big_io();
	test_env();
	test_fail_and_timeout();
	test_before_exec();
	test_session();
	test_find();
	T_DONE();
}
