/*
 * confine.c: what a program may still do inside the sandbox: the second
 * wall, for whatever bubblewrap's (bwrap.c) would let through.
 *
 * In bubblewrap, the program is started by ai-exec itself, bound into the
 * sandbox at X_HELPER and told by its arguments how to confine it (the
 * words x_confine_args writes).  The helper is the sandbox's init (PID 1):
 * it forks, the child puts on the limits, the Landlock ruleset and the
 * system-call filter and executes the program, and the helper stays,
 * outside the program's Landlock domain, as its supervisor: it reaps the
 * program's orphans (when it ends, the kernel ends whatever is left) and
 * every X_WATCH_MS counts the program's processes; past the limit, it
 * stops them all.  Meanwhile the kernel's RLIMIT_NPROC, set inside the
 * sandbox's user namespace, holds the program's processes and threads at
 * twice the limit, but for root, whom it does not hold: for root the count
 * alone stops a fork bomb, within a tick.  (A supervisor's consent to each
 * fork, through seccomp, would be exact; but a signal that comes while a
 * fork waits for it makes the fork fail with EINTR, which shells take for
 * a failure.)  The helper reports on descriptor 3: "R" once it runs (the
 * sandbox is up), "E..." when the program cannot be started, "T" when it
 * passed its limit of processes, and "U RSS CPU" (KiB, ms) of its peak
 * memory and CPU time when it ends.
 *
 * The confinement:
 *  - limits: no core dump; CPU seconds (SIGXCPU, then SIGKILL a second
 *    later); data (heap and private writable mappings, so that a file git
 *    maps to read does not count); processes and threads (RLIMIT_NPROC);
 *  - Landlock (landlock(7)), as far as the kernel's ABI goes: at L0 no write
 *    anywhere (/dev/null excepted) and no program but its own file and its
 *    interpreters; at L1 writes only beneath the root, /tmp and /dev/null;
 *    without a rule that grants the network, no TCP (ABI 4); no signal and
 *    no abstract UNIX socket outside its domain (ABI 6);
 *  - a system-call filter: no ptrace or process_vm_*, no mount, namespace,
 *    module, key, bpf, perf, io_uring, userfaultfd, clock or reboot calls,
 *    no clone3 (its flags are behind a pointer: glibc falls back to clone),
 *    no clone that makes a namespace, no TIOCSTI/TIOCLINUX, and no socket
 *    without the network.
 *
 * With --unconfined there is no bubblewrap and no helper: the same limits
 * (but the process count), the same filter and, at L0 only, the same
 * Landlock ruleset are put on in the child before it executes the program.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <linux/landlock.h>

#include "prog.h"
#include "num.h"
#include "util.h"
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
#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x00000080
#endif

#define X_STATUS_FD 3
#define X_WATCH_MS 10            /* how often the helper counts the program's processes */

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

/* ---- the words between ai-exec and its helper ---- */

void
x_confine_args(const struct x_confine *c, struct x_argv *a)
{
	size_t i;

	x_argv_addf(a, "level=%d", c->level);
	x_argv_addf(a, "net=%d", c->network);
	x_argv_addf(a, "cpu=%llu", (unsigned long long)c->cpu);
	x_argv_addf(a, "data=%llu", (unsigned long long)c->memory);
	x_argv_addf(a, "tasks=%llu", (unsigned long long)c->tasks);
	if (c->write != NULL)
		x_argv_addf(a, "write=%s", c->write);
	for (i = 0; i < c->nexec; i++)
		x_argv_addf(a, "exec=%s", c->exec[i]);
	x_argv_add(a, "--");
}

/* Read the words back; the index of the program's path, or -1 with why. */
static int
parse_args(int argc, char **argv, struct x_confine *c, const char **why)
{
	int i;

	memset(c, 0, sizeof(*c));
	c->boxed = 1;
	for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
		const char *w = argv[i], *eq = strchr(w, '='), *bad;
		uint64_t v = 0;
		size_t n = eq ? (size_t)(eq - w) : 0;

		if (eq == NULL) {
			*why = "a word without '='";
			return -1;
		}
		if (n == 5 && memcmp(w, "write", 5) == 0) {
			c->write = eq + 1;
			continue;
		}
		if (n == 4 && memcmp(w, "exec", 4) == 0) {
			if (c->nexec == AI_ARRAY_SIZE(c->exec)) {
				*why = "too many exec= words";
				return -1;
			}
			c->exec[c->nexec++] = eq + 1;
			continue;
		}
		if (ai_parse_u64(eq + 1, 0, UINT64_MAX / 2, &v, &bad) < 0) {
			*why = "a value that is not a number";
			return -1;
		}
		if (n == 5 && memcmp(w, "level", 5) == 0 && v <= XL_L1)
			c->level = (int)v;
		else if (n == 3 && memcmp(w, "net", 3) == 0 && v <= 1)
			c->network = (int)v;
		else if (n == 3 && memcmp(w, "cpu", 3) == 0)
			c->cpu = v;
		else if (n == 4 && memcmp(w, "data", 4) == 0)
			c->memory = v;
		else if (n == 5 && memcmp(w, "tasks", 5) == 0)
			c->tasks = v;
		else {
			*why = "an unknown word";
			return -1;
		}
	}
	if (i >= argc || i + 2 >= argc) {
		*why = "no program after '--'";
		return -1;
	}
	return i + 1;
}

/* ---- limits ---- */

static int
limits(const struct x_confine *c)
{
	struct rlimit rl;

	rl.rlim_cur = rl.rlim_max = 0;
	if (setrlimit(RLIMIT_CORE, &rl) < 0)
		return -1;
	if (c->cpu > 0) {
		rl.rlim_cur = (rlim_t)c->cpu;
		rl.rlim_max = (rlim_t)c->cpu + 1;
		if (setrlimit(RLIMIT_CPU, &rl) < 0)
			return -1;
	}
	if (c->memory > 0) {
		rl.rlim_cur = rl.rlim_max = (rlim_t)c->memory;
		if (setrlimit(RLIMIT_DATA, &rl) < 0)
			return -1;
	}
	/*
	 * Inside the sandbox's user namespace RLIMIT_NPROC counts the
	 * sandbox's tasks only (the helper's and the program's): the kernel's
	 * bound, at twice the limit, so that a program past the limit stays
	 * past it until the helper's next count sees it (root, whom
	 * RLIMIT_NPROC does not hold, has the count alone).  Outside it would
	 * count all the user's processes: not set there.
	 */
	if (c->boxed && c->tasks > 0) {
		rl.rlim_cur = rl.rlim_max = (rlim_t)c->tasks * 2 + 2;
		if (setrlimit(RLIMIT_NPROC, &rl) < 0)
			return -1;
	}
	return 0;
}

/* ---- Landlock ---- */

static int
allow(int ruleset, const char *path, uint64_t access)
{
	struct landlock_path_beneath_attr pb;
	int fd = open(path, O_PATH | O_CLOEXEC), rc, err;

	if (fd < 0)
		return errno == ENOENT ? 0 : -1; /* nothing there to allow */
	memset(&pb, 0, sizeof(pb));
	pb.allowed_access = access;
	pb.parent_fd = fd;
	rc = (int)syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &pb, 0);
	err = errno;
	close(fd);
	errno = err;
	return rc;
}

/* Apply the ruleset to the calling thread; 0 also when the kernel has no Landlock. */
static int
landlock(const struct x_confine *c)
{
	uint64_t write = LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_REMOVE_DIR |
	    LANDLOCK_ACCESS_FS_REMOVE_FILE | LANDLOCK_ACCESS_FS_MAKE_CHAR |
	    LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_MAKE_REG |
	    LANDLOCK_ACCESS_FS_MAKE_SOCK | LANDLOCK_ACCESS_FS_MAKE_FIFO |
	    LANDLOCK_ACCESS_FS_MAKE_BLOCK | LANDLOCK_ACCESS_FS_MAKE_SYM;
	uint64_t file_write = LANDLOCK_ACCESS_FS_WRITE_FILE;
	struct x_ll_attr attr;
	size_t size = sizeof(uint64_t), i;
	int abi = x_landlock_abi(), fd, rc = 0, err;

	if (abi <= 0 || (c->level != XL_L0 && !c->boxed))
		return 0;
	memset(&attr, 0, sizeof(attr));
	if (abi >= 2)
		write |= LANDLOCK_ACCESS_FS_REFER;
	if (abi >= 3) {
		write |= LANDLOCK_ACCESS_FS_TRUNCATE;
		file_write |= LANDLOCK_ACCESS_FS_TRUNCATE;
	}
	attr.handled_access_fs = write | (c->level == XL_L0 ? LANDLOCK_ACCESS_FS_EXECUTE : 0);
	if (abi >= 4 && !c->network) {
		attr.handled_access_net = X_LL_NET_BIND_TCP | X_LL_NET_CONNECT_TCP;
		size = 2 * sizeof(uint64_t);
	}
	if (abi >= 6) {
		attr.scoped = X_LL_SCOPE_ABSTRACT_UNIX_SOCKET | X_LL_SCOPE_SIGNAL;
		size = sizeof(attr);
	}
	fd = (int)syscall(SYS_landlock_create_ruleset, &attr, size, 0);
	if (fd < 0)
		return -1;
	if (c->level == XL_L0) {
		for (i = 0; i < c->nexec && rc == 0; i++)
			rc = allow(fd, c->exec[i], LANDLOCK_ACCESS_FS_EXECUTE);
	} else {
		if (c->write != NULL)
			rc = allow(fd, c->write, write);
		if (rc == 0)
			rc = allow(fd, "/tmp", write);
		if (rc == 0)
			rc = allow(fd, "/dev/pts", file_write);
	}
	if (rc == 0)
		rc = allow(fd, "/dev/null", file_write);
	if (rc == 0 && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		rc = -1;
	if (rc == 0)
		rc = (int)syscall(SYS_landlock_restrict_self, fd, 0);
	err = errno;
	close(fd);
	errno = err;
	return rc;
}

/* ---- the system-call filter ---- */

/* Install the program's filter. */
static int
filter(const struct x_confine *c)
{
	static const long denied[] = {
		__NR_ptrace, __NR_process_vm_readv, __NR_process_vm_writev, __NR_mount,
		__NR_umount2, __NR_pivot_root, __NR_chroot, __NR_unshare, __NR_setns,
		__NR_kexec_load, __NR_init_module, __NR_finit_module, __NR_delete_module,
		__NR_bpf, __NR_perf_event_open, __NR_add_key, __NR_request_key, __NR_keyctl,
		__NR_userfaultfd, __NR_io_uring_setup, __NR_io_uring_enter, __NR_io_uring_register,
		__NR_open_by_handle_at, __NR_name_to_handle_at, __NR_swapon, __NR_swapoff,
		__NR_reboot, __NR_acct, __NR_settimeofday, __NR_clock_settime, __NR_adjtimex,
		__NR_clock_adjtime, __NR_syslog, __NR_quotactl, __NR_fsopen, __NR_fsconfig,
		__NR_fsmount, __NR_fspick, __NR_open_tree, __NR_move_mount, __NR_mount_setattr,
		__NR_fanotify_init, __NR_vhangup,
#ifdef __NR_kexec_file_load
		__NR_kexec_file_load,
#endif
#ifdef __NR_iopl
		__NR_iopl, __NR_ioperm,
#endif
	};
	const uint32_t newns = CLONE_NEWNS | CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET |
	    CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWCGROUP | CLONE_NEWTIME;
	struct x_bpf p;
	size_t i;

	if (!x_bpf_supported())
		return 0;
	x_bpf_begin(&p);
	for (i = 0; i < AI_ARRAY_SIZE(denied); i++)
		x_bpf_deny(&p, denied[i], EPERM);
	x_bpf_deny(&p, __NR_clone3, ENOSYS);
	x_bpf_deny_flags(&p, __NR_clone, 0, newns, EPERM);
	x_bpf_deny_value(&p, __NR_ioctl, 1, TIOCSTI, EPERM);
	x_bpf_deny_value(&p, __NR_ioctl, 1, TIOCLINUX, EPERM);
	if (!c->network)
		x_bpf_deny(&p, __NR_socket, EPERM);
	return x_bpf_install(&p, 0);
}

/* ---- without bubblewrap: in the child, before execve ---- */

int
x_confine_child(void *arg)
{
	const struct x_confine *c = arg;

	if (c == NULL)
		return 0;
	if (limits(c) < 0 || landlock(c) < 0 || filter(c) < 0)
		return -1;
	return 0;
}

/* ---- the helper, inside bubblewrap ---- */

/* A message on the status descriptor (never allocates: also used after fork). */
static void
status(const char *tag, const char *a, const char *b)
{
	char line[1024];
	int n = snprintf(line, sizeof(line), "%s%s%s%s\n", tag, a ? a : "", b ? ": " : "",
	    b ? b : "");

	if (n > 0)
		(void)!write(X_STATUS_FD, line,
		    (size_t)n < sizeof(line) ? (size_t)n : sizeof(line));
}

/*
 * Whether the program has more than max processes: those of the sandbox's
 * PID namespace but the helper (its init).  Only the directory of /proc is
 * read, and only until the count passes max: the check must stay cheap
 * when a fork bomb has made thousands.
 */
static int
over_procs(uint64_t max)
{
	char buf[32768];
	uint64_t n = 0;
	int dir = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	long got;

	if (dir < 0)
		return 0;
	while (n <= max && (got = syscall(SYS_getdents64, dir, buf, sizeof(buf))) > 0) {
		long off = 0;

		while (off < got) {
			struct {
				uint64_t ino;
				int64_t off;
				unsigned short reclen;
				unsigned char type;
				char name[];
			} *d = (void *)(buf + off);

			off += d->reclen;
			if (d->name[0] >= '1' && d->name[0] <= '9' && strcmp(d->name, "1") != 0)
				n++;
		}
	}
	close(dir);
	return n > max;
}

/* The child: confine itself, become the program. */
static void
start(const struct x_confine *c, const char *path, char **argv)
{
	if (limits(c) < 0) {
		status("E", "cannot set the limits", strerror(errno));
		_exit(127);
	}
	/* nothing of the sandbox's but the three streams and the status */
	close_range(X_STATUS_FD + 1, ~0U, 0);
	if (landlock(c) < 0) {
		status("E", "cannot apply the Landlock ruleset", strerror(errno));
		_exit(127);
	}
	if (filter(c) < 0) {
		status("E", "cannot install the system-call filter", strerror(errno));
		_exit(127);
	}
	execve(path, argv, environ);
	status("E", path, strerror(errno));
	_exit(127);
}

/*
 * Reap every child that ended: the helper is the sandbox's init, so the
 * program's orphans are its children too, and a zombie still counts.  1
 * once the program itself is reaped (its status and use in *st, *ru).
 */
static int
reap(pid_t pid, int *st, struct rusage *ru)
{
	struct rusage any;
	int s, done = 0, k;
	pid_t r = 0;

	/* a bounded number at a time: a fork bomb's orphans must not keep the count away */
	for (k = 0; k < 256 && ((r = wait4(-1, &s, WNOHANG, &any)) > 0 ||
	    (r < 0 && errno == EINTR)); k++)
		if (r == pid) {
			*st = s;
			*ru = any;
			done = 1;
		}
	return done || (r < 0 && errno == ECHILD);
}

/* 1 when ai-exec, the status pipe's only reader, is gone: an error on the writer */
static int
orphaned(void)
{
	struct pollfd p = { X_STATUS_FD, 0, 0 };

	return poll(&p, 1, 0) > 0 && (p.revents & (POLLERR | POLLHUP | POLLNVAL));
}

/*
 * The helper's wait: reap, count the program's processes every
 * X_WATCH_MS and stop it all past its limit, report its use.
 */
static int
supervise(const struct x_confine *c, pid_t pid)
{
	int pidfd = (int)syscall(SYS_pidfd_open, pid, 0), st = 0, over = 0;
	struct rusage ru;
	char usage[64];

	memset(&ru, 0, sizeof(ru));
	for (;;) {
		/* the status pipe's reader is ai-exec: gone, it is an error on the writer */
		struct pollfd p[2] = { { X_STATUS_FD, 0, 0 }, { pidfd, POLLIN, 0 } };

		if (poll(p, pidfd >= 0 ? 2 : 1, X_WATCH_MS) < 0 && errno != EINTR)
			break;
		if (p[0].revents & (POLLERR | POLLHUP | POLLNVAL)) {
			/* ai-exec died: so does all it ran, whatever became of bubblewrap */
			kill(-1, SIGKILL);
			_exit(128 + SIGKILL);
		}
		if (c->tasks > 0 && !over && over_procs(c->tasks)) {
			over = 1;
			status("T", NULL, NULL);
			kill(-1, SIGKILL); /* all in the namespace but the helper, its init */
		}
		if (reap(pid, &st, &ru))
			break;
	}
	snprintf(usage, sizeof(usage), "%ld %lld", ru.ru_maxrss,
	    (long long)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000 +
	    (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1000);
	status("U", usage, NULL);
	if (WIFSIGNALED(st))
		return 128 + WTERMSIG(st);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 127;
}

int
x_confine_main(int argc, char **argv)
{
	struct x_confine c;
	const char *why = NULL;
	int first = parse_args(argc, argv, &c, &why);
	pid_t pid;

	if (first < 0 || fcntl(X_STATUS_FD, F_SETFD, FD_CLOEXEC) < 0) {
		char msg[256];
		int n = snprintf(msg, sizeof(msg), "ai-exec: the sandbox's helper was started "
		    "wrongly: %s\n", first < 0 ? why : "no status descriptor");

		(void)!write(2, msg,
		    n > 0 && (size_t)n < sizeof(msg) ? (size_t)n : sizeof(msg) - 1);
		return 127;
	}
	signal(SIGPIPE, SIG_IGN);
	/* bubblewrap's --die-with-parent, again: its own may not reach the helper */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	/* the sandbox is up: said before the program can write anything */
	status("R", NULL, NULL);
	if (orphaned())
		return 128 + SIGKILL; /* ai-exec died while bubblewrap set up: nothing is run */
	pid = fork();
	if (pid < 0) {
		status("E", "cannot fork", strerror(errno));
		return 127;
	}
	if (pid == 0) {
		signal(SIGPIPE, SIG_DFL);
		start(&c, argv[first], argv + first + 1);
	}
	return supervise(&c, pid);
}
