/*
 * confine.c: what a program may still do inside the sandbox: the second
 * wall, for whatever bubblewrap's (bwrap.c) would let through.
 *
 * In bubblewrap, the program is started by ai-exec itself, bound into the
 * sandbox at X_HELPER and told by its arguments how to confine it (the
 * words x_confine_args writes).  The helper forks; the child puts on the
 * limits, the Landlock ruleset and the system-call filter and executes the
 * program; the helper stays, outside the program's Landlock domain, as its
 * supervisor: every process or thread the program starts (fork, vfork,
 * clone) waits for the helper's consent (SECCOMP_RET_USER_NOTIF), which it
 * gets while the program has fewer than its limit, so a fork bomb stops at
 * the limit whoever runs it (root included, whom RLIMIT_NPROC does not
 * hold).  It is the sandbox's init (PID 1): the program's orphans are
 * reaped by it, and when it ends, the kernel ends everything left.  The
 * helper reports on descriptor 3: "R" once it runs (the
 * sandbox is up), "E..." when the program cannot be started, "T" when it passed its limit of
 * processes (it is then killed with all it started), and "U RSS CPU" (KiB,
 * ms) of its peak memory and CPU time when it ends.
 *
 * The confinement:
 *  - limits: no core dump; CPU seconds (SIGXCPU, then SIGKILL a second
 *    later); data (heap and private writable mappings, so that a file git
 *    maps to read does not count); processes and threads;
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
#include <dirent.h>
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
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <linux/landlock.h>
#include <linux/seccomp.h>

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
	 * sandbox's tasks only (bubblewrap's init, the helper, the program's):
	 * the kernel's own stop where the helper's consent cannot be asked.
	 * Outside it would count all the user's processes: not set there.
	 */
	if (c->boxed && c->tasks > 0) {
		rl.rlim_cur = rl.rlim_max = (rlim_t)c->tasks + 3;
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

/* Install the program's filter; the listener of its process starts with notify, else 0. */
static int
filter(const struct x_confine *c, int notify)
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
	if (notify) {
		x_bpf_notify(&p, __NR_clone);
#ifdef __NR_fork
		x_bpf_notify(&p, __NR_fork);
		x_bpf_notify(&p, __NR_vfork);
#endif
	}
	return x_bpf_install(&p, notify);
}

/* ---- without bubblewrap: in the child, before execve ---- */

int
x_confine_child(void *arg)
{
	const struct x_confine *c = arg;

	if (c == NULL)
		return 0;
	if (limits(c) < 0 || landlock(c) < 0 || filter(c, 0) < 0)
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

/* The tasks (processes and threads) of the sandbox's PID namespace but init and self. */
static uint64_t
count_tasks(void)
{
	char buf[8192], path[64], stat[1024];
	uint64_t n = 0;
	long self = (long)getpid();
	int dir = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	long got;

	if (dir < 0)
		return 0;
	while ((got = syscall(SYS_getdents64, dir, buf, sizeof(buf))) > 0) {
		long off = 0;

		while (off < got) {
			struct {
				uint64_t ino;
				int64_t off;
				unsigned short reclen;
				unsigned char type;
				char name[];
			} *d = (void *)(buf + off);
			char *end;
			long pid = strtol(d->name, &end, 10);

			off += d->reclen;
			if (*end != '\0' || pid <= 1 || pid == self)
				continue;
			snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
			{
				int fd = open(path, O_RDONLY | O_CLOEXEC);
				ssize_t r = fd >= 0 ? read(fd, stat, sizeof(stat) - 1) : -1;
				const char *p;
				int field;

				if (fd >= 0)
					close(fd);
				if (r <= 0)
					continue; /* gone meanwhile */
				stat[r] = '\0';
				/*
				 * num_threads is field 20; the name (field 2) may
				 * hold anything but ends at the last ')'
				 */
				p = strrchr(stat, ')');
				for (field = 2; p != NULL && field < 20; field++)
					p = strchr(p + 1, ' ');
				n += p != NULL ? strtoull(p + 1, NULL, 10) : 1;
			}
		}
	}
	close(dir);
	return n;
}

/* Answer one process-creation request: go on under the limit; else 0 (the limit is passed). */
static int
consent(int listener, uint64_t tasks)
{
	struct seccomp_notif_sizes sizes;
	union {
		struct seccomp_notif n;
		char space[512];
	} req;
	union {
		struct seccomp_notif_resp r;
		char space[256];
	} resp;
	int ok;

	if (syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sizes) < 0 ||
	    sizes.seccomp_notif > sizeof(req) || sizes.seccomp_notif_resp > sizeof(resp))
		return 1;
	memset(&req, 0, sizeof(req));
	if (ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, &req) < 0)
		return 1; /* the asking task died meanwhile */
	ok = count_tasks() < tasks;
	memset(&resp, 0, sizeof(resp));
	resp.r.id = req.n.id;
	if (ok) {
		resp.r.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
	} else {
		resp.r.error = -EAGAIN;
	}
	(void)ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, &resp);
	return ok;
}

/* A one-byte message with room for one descriptor. */
union x_cmsg {
	struct cmsghdr h;
	char space[CMSG_SPACE(sizeof(int))];
};

static void
msg_init(struct msghdr *m, struct iovec *iov, char *byte, union x_cmsg *u)
{
	memset(m, 0, sizeof(*m));
	memset(u, 0, sizeof(*u));
	iov->iov_base = byte;
	iov->iov_len = 1;
	m->msg_iov = iov;
	m->msg_iovlen = 1;
	m->msg_control = u->space;
	m->msg_controllen = sizeof(u->space);
}

/* Send fd over the socket (SCM_RIGHTS), or no descriptor when fd < 0. */
static void
send_fd(int sock, int fd)
{
	union x_cmsg u;
	struct msghdr m;
	struct iovec iov;
	char byte = fd >= 0 ? 'f' : 'n';

	msg_init(&m, &iov, &byte, &u);
	if (fd >= 0) {
		CMSG_FIRSTHDR(&m)->cmsg_level = SOL_SOCKET;
		CMSG_FIRSTHDR(&m)->cmsg_type = SCM_RIGHTS;
		CMSG_FIRSTHDR(&m)->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(CMSG_FIRSTHDR(&m)), &fd, sizeof(int));
	} else {
		m.msg_control = NULL;
		m.msg_controllen = 0;
	}
	(void)sendmsg(sock, &m, MSG_NOSIGNAL);
}

/* The descriptor sent by send_fd, or -1. */
static int
recv_fd(int sock)
{
	union x_cmsg u;
	struct msghdr m;
	struct iovec iov;
	char byte;
	int fd = -1;

	msg_init(&m, &iov, &byte, &u);
	if (recvmsg(sock, &m, MSG_CMSG_CLOEXEC) <= 0)
		return -1;
	if (CMSG_FIRSTHDR(&m) != NULL && CMSG_FIRSTHDR(&m)->cmsg_type == SCM_RIGHTS)
		memcpy(&fd, CMSG_DATA(CMSG_FIRSTHDR(&m)), sizeof(int));
	return fd;
}

/*
 * Whether the kernel lets a supervisor wave a system call through
 * (SECCOMP_USER_NOTIF_FLAG_CONTINUE, Linux 5.5): without it a request could
 * only be refused, so the helper does not ask for them.
 */
static int
can_consent(void)
{
	struct utsname u;
	unsigned major = 0, minor = 0;

	if (uname(&u) < 0 || sscanf(u.release, "%u.%u", &major, &minor) != 2)
		return 0;
	return major > 5 || (major == 5 && minor >= 5);
}

/* The child: confine itself, hand the listener over, become the program. */
static void
start(const struct x_confine *c, int sock, const char *path, char **argv)
{
	int listener, notify;

	if (limits(c) < 0) {
		status("E", "cannot set the limits", strerror(errno));
		_exit(127);
	}
	/* nothing of the sandbox's but the three streams, the status and the socket */
	if (sock > X_STATUS_FD + 1)
		close_range(X_STATUS_FD + 1, (unsigned)sock - 1, 0);
	close_range((unsigned)sock + 1, ~0U, 0);
	if (landlock(c) < 0) {
		status("E", "cannot apply the Landlock ruleset", strerror(errno));
		_exit(127);
	}
	notify = c->tasks > 0 && can_consent();
	listener = filter(c, notify);
	if (listener < 0) {
		status("E", "cannot install the system-call filter", strerror(errno));
		_exit(127);
	}
	send_fd(sock, notify ? listener : -1);
	if (listener > 0)
		close(listener);
	close(sock);
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
	int s, done = 0;
	pid_t r;

	while ((r = wait4(-1, &s, WNOHANG, &any)) > 0 || (r < 0 && errno == EINTR))
		if (r == pid) {
			*st = s;
			*ru = any;
			done = 1;
		}
	return done || (r < 0 && errno == ECHILD);
}

/* The helper's wait: consent to processes, stop a program past its limit, report its use. */
static int
supervise(const struct x_confine *c, pid_t pid, int listener)
{
	int pidfd = (int)syscall(SYS_pidfd_open, pid, 0), st = 0, over = 0, done;
	struct rusage ru;
	char usage[64];

	memset(&ru, 0, sizeof(ru));
	for (;;) {
		struct pollfd p[2] = { { pidfd, POLLIN, 0 }, { listener, POLLIN, 0 } };

		if (poll(p, listener >= 0 ? 2 : 1, pidfd >= 0 ? 1000 : 20) < 0 && errno != EINTR)
			break;
		done = reap(pid, &st, &ru);
		if (listener >= 0 && (p[1].revents & POLLIN) && !consent(listener, c->tasks) &&
		    !over) {
			over = 1;
			status("T", NULL, NULL);
			kill(-1, SIGKILL); /* all in the namespace but the helper, its init */
		}
		if (listener >= 0 && (p[1].revents & (POLLHUP | POLLERR | POLLNVAL))) {
			close(listener);
			listener = -1;
		}
		if (done || reap(pid, &st, &ru))
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
	int first = parse_args(argc, argv, &c, &why), sv[2], listener;
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
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0) {
		status("E", "cannot make a socket", strerror(errno));
		return 127;
	}
	/* the sandbox is up: said before the program can write anything */
	status("R", NULL, NULL);
	pid = fork();
	if (pid < 0) {
		status("E", "cannot fork", strerror(errno));
		return 127;
	}
	if (pid == 0) {
		signal(SIGPIPE, SIG_DFL);
		close(sv[0]);
		start(&c, sv[1], argv[first], argv + first + 1);
	}
	close(sv[1]);
	listener = recv_fd(sv[0]);
	close(sv[0]);
	return supervise(&c, pid, listener);
}
