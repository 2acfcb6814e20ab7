/*
 * confine.c: a program run at L0 is read-only in fact, not only by its
 * rules.  It runs under a Landlock ruleset (landlock(7)) that refuses it
 * every write to the filesystem (creating, changing, removing, renaming,
 * linking; /dev/null excepted) and the execution of any program but its
 * own file and its interpreters, so that whatever a rule missed (an option
 * that runs a command, a configuration that names one) cannot start
 * another program or change a file.  From Landlock ABI 4 it also gets no
 * TCP, and from ABI 6 it cannot signal processes outside its domain.
 *
 * The ruleset is built in the parent (it needs the paths opened) and applied
 * by the child just before execve (lib/proc.h's before_exec), with
 * no_new_privs.  A kernel without Landlock runs the program without it;
 * the audit log says so ("confined": false).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/landlock.h>

#include "prog.h"
#include "banned.h"

#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#define SYS_landlock_add_rule 445
#define SYS_landlock_restrict_self 446
#endif
/* newer than the headers of Debian 12 */
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14)
#endif
#define X_LL_NET_BIND_TCP (1ULL << 0)
#define X_LL_NET_CONNECT_TCP (1ULL << 1)
#define X_LL_SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0)
#define X_LL_SCOPE_SIGNAL (1ULL << 1)

/* The attribute as of ABI 6; its size tells the kernel which members we give. */
struct x_ll_attr {
	uint64_t handled_access_fs;
	uint64_t handled_access_net;
	uint64_t scoped;
};

int
x_landlock_abi(void)
{
	long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);

	return abi < 0 ? 0 : (int)abi;
}

static int
allow(int ruleset, const char *path, uint64_t access)
{
	struct landlock_path_beneath_attr pb;
	int fd = open(path, O_PATH | O_CLOEXEC), rc;

	if (fd < 0)
		return -1;
	memset(&pb, 0, sizeof(pb));
	pb.allowed_access = access;
	pb.parent_fd = fd;
	rc = (int)syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &pb, 0);
	close(fd);
	return rc;
}

int
x_confine_prepare(struct x_confine *c, char *const *exec, size_t nexec, struct ai_err *e)
{
	uint64_t write = LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_REMOVE_DIR |
	    LANDLOCK_ACCESS_FS_REMOVE_FILE | LANDLOCK_ACCESS_FS_MAKE_CHAR |
	    LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_MAKE_REG |
	    LANDLOCK_ACCESS_FS_MAKE_SOCK | LANDLOCK_ACCESS_FS_MAKE_FIFO |
	    LANDLOCK_ACCESS_FS_MAKE_BLOCK | LANDLOCK_ACCESS_FS_MAKE_SYM;
	struct x_ll_attr attr;
	size_t size = sizeof(uint64_t), i;

	c->fd = -1;
	c->abi = x_landlock_abi();
	if (c->abi <= 0)
		return 0;
	memset(&attr, 0, sizeof(attr));
	if (c->abi >= 2)
		write |= LANDLOCK_ACCESS_FS_REFER;
	if (c->abi >= 3)
		write |= LANDLOCK_ACCESS_FS_TRUNCATE;
	attr.handled_access_fs = write | LANDLOCK_ACCESS_FS_EXECUTE;
	if (c->abi >= 4) {
		attr.handled_access_net = X_LL_NET_BIND_TCP | X_LL_NET_CONNECT_TCP;
		size = 2 * sizeof(uint64_t);
	}
	if (c->abi >= 6) {
		attr.scoped = X_LL_SCOPE_ABSTRACT_UNIX_SOCKET | X_LL_SCOPE_SIGNAL;
		size = sizeof(attr);
	}
	c->fd = (int)syscall(SYS_landlock_create_ruleset, &attr, size, 0);
	if (c->fd < 0)
		return ai_err_set(e, AI_EXIT_OSERR, "cannot create the Landlock ruleset: %s",
		    strerror(errno));
	for (i = 0; i < nexec; i++)
		if (exec[i] != NULL && allow(c->fd, exec[i], LANDLOCK_ACCESS_FS_EXECUTE) < 0) {
			int err = errno;

			x_confine_release(c);
			return ai_err_set(e, AI_EXIT_OSERR, "cannot allow '%s' in the Landlock ruleset: %s",
			    exec[i], strerror(err));
		}
	if (allow(c->fd, "/dev/null", LANDLOCK_ACCESS_FS_WRITE_FILE |
	    (c->abi >= 3 ? LANDLOCK_ACCESS_FS_TRUNCATE : 0)) < 0) {
		int err = errno;

		x_confine_release(c);
		return ai_err_set(e, AI_EXIT_OSERR, "cannot allow '/dev/null' in the Landlock ruleset: %s",
		    strerror(err));
	}
	return 0;
}

int
x_confine_apply(void *arg)
{
	const struct x_confine *c = arg;

	if (c == NULL || c->fd < 0)
		return 0;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return -1;
	return syscall(SYS_landlock_restrict_self, c->fd, 0) < 0 ? -1 : 0;
}

void
x_confine_release(struct x_confine *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
}
