/*
 * userns-off: run a command as an unprivileged user on a system where user
 * namespaces are off, as a distribution that turns them off has it.
 *
 *	userns-off UID COMMAND [ARG]...
 *
 * Run as root.  The command runs as UID (and GID UID) in a user namespace
 * of its own where UID and root are themselves (uid_map "0 0 1", "UID UID
 * 1") and where user.max_user_namespaces is 0, so that it can create no
 * user namespace: what an unprivileged bubblewrap needs.  Nothing outside
 * changes.  Exit status: the command's, or 127 when it cannot be set up.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int
write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, text, strlen(text));
	close(fd);
	return n == (ssize_t)strlen(text) ? 0 : -1;
}

static void
die(const char *what)
{
	fprintf(stderr, "userns-off: %s: %s\n", what, strerror(errno));
	_exit(127);
}

int
main(int argc, char **argv)
{
	int go[2], ready[2], st;
	char map[128], path[64], c = 0;
	long uid;
	pid_t pid;

	if (argc < 3 || (uid = strtol(argv[1], NULL, 10)) <= 0) {
		fprintf(stderr, "usage: userns-off UID COMMAND [ARG]...\n");
		return 127;
	}
	if (pipe(go) < 0 || pipe(ready) < 0)
		die("pipe");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		close(go[1]);
		close(ready[0]);
		if (unshare(CLONE_NEWUSER) < 0)
			die("unshare");
		if (write(ready[1], &c, 1) != 1 || read(go[0], &c, 1) != 1)
			die("waiting for the maps");
		if (write_file("/proc/sys/user/max_user_namespaces", "0\n") < 0)
			die("user.max_user_namespaces");
		if (setgroups(0, NULL) < 0 || setgid((gid_t)uid) < 0 || setuid((uid_t)uid) < 0)
			die("becoming the user");
		execvp(argv[2], argv + 2);
		die(argv[2]);
	}
	close(go[0]);
	close(ready[1]);
	if (read(ready[0], &c, 1) != 1)
		die("waiting for the namespace");
	snprintf(map, sizeof(map), "0 0 1\n%ld %ld 1\n", uid, uid);
	snprintf(path, sizeof(path), "/proc/%ld/uid_map", (long)pid);
	if (write_file(path, map) < 0)
		die("uid_map");
	snprintf(path, sizeof(path), "/proc/%ld/gid_map", (long)pid);
	if (write_file(path, map) < 0)
		die("gid_map");
	if (write(go[1], &c, 1) != 1)
		die("go");
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			die("waitpid");
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
