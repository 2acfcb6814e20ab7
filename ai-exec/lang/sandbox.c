/*
 * sandbox.c: what the executing child may still do.
 *
 * The command language is the boundary: nothing in it names a program, a
 * path that is not listed or a write.  This is the second wall, for the day a
 * bug in a built-in, the regex engine or libjq is found by a hostile file:
 *
 *  - resource limits: CPU seconds (SIGXCPU), address space (not under ASan,
 *    which reserves terabytes of shadow memory), no core dumps (they would
 *    hold file contents); a stack overflow ends the child with a status of
 *    its own;
 *  - an empty environment (API keys never reach jq, libcurl or a crash dump);
 *  - standard input and output on /dev/null (the record stream is the
 *    parent's);
 *  - a seccomp filter: no execve, no opening for writing, no unlink, rename,
 *    mkdir, chmod and the like, no io_uring (which would bypass the filter),
 *    no kill, no ptrace, and no sockets unless the command fetches a URL.
 *
 * A kernel without seccomp leaves the other protections in place.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "lang.h"
#include "banned.h"

#if defined(__SANITIZE_ADDRESS__)
#define X_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define X_ASAN 1
#endif
#endif

#ifdef X_ASAN
/*
 * Under ASan there is no RLIMIT_AS: a huge allocation returns NULL instead of
 * ending the process with a report, so that it reaches libjq's out-of-memory
 * handler and is reported as the memory limit, as in a normal build.
 */
const char *__asan_default_options(void);

const char *
__asan_default_options(void)
{
	return "allocator_may_return_null=1";
}
#endif

#define WRITE_FLAGS (O_WRONLY | O_RDWR | O_CREAT | O_TRUNC | O_APPEND)

static void
install_filter(int allow_net)
{
	static const long denied[] = {
		__NR_execve, __NR_execveat, __NR_ptrace, __NR_process_vm_writev, __NR_kill,
		__NR_unlinkat, __NR_renameat, __NR_renameat2, __NR_mkdirat, __NR_linkat,
		__NR_symlinkat, __NR_truncate, __NR_fchmodat, __NR_fchownat, __NR_mknodat,
		__NR_utimensat, __NR_setxattr, __NR_lsetxattr, __NR_fsetxattr, __NR_removexattr,
		__NR_lremovexattr, __NR_fremovexattr, __NR_mount, __NR_name_to_handle_at,
		__NR_open_by_handle_at, __NR_io_uring_setup, __NR_chroot, __NR_pivot_root,
		__NR_fchmod, __NR_fchown, __NR_ftruncate,
#ifdef __NR_creat
		__NR_creat,
#endif
#ifdef __NR_unlink
		__NR_unlink, __NR_rename, __NR_mkdir, __NR_rmdir, __NR_link, __NR_symlink,
		__NR_chmod, __NR_chown, __NR_lchown, __NR_mknod, __NR_utime, __NR_utimes,
		__NR_futimesat,
#endif
	};
	struct x_bpf p;
	size_t i;

	if (!x_bpf_supported())
		return;
	x_bpf_begin(&p);
#ifdef __NR_openat2
	x_bpf_deny(&p, __NR_openat2, ENOSYS); /* its flags are behind a pointer */
#endif
	for (i = 0; i < sizeof(denied) / sizeof(denied[0]); i++)
		x_bpf_deny(&p, denied[i], EPERM);
	if (!allow_net)
		x_bpf_deny(&p, __NR_socket, EPERM);
#ifdef __NR_open
	x_bpf_deny_flags(&p, __NR_open, 1, WRITE_FLAGS, EPERM);
#endif
	x_bpf_deny_flags(&p, __NR_openat, 2, WRITE_FLAGS, EPERM);
	(void)x_bpf_install(&p, 0);
}

/* A stack overflow (deep recursion in libjq on a deeply nested value) ends the child cleanly. */
static void
on_fault(int sig)
{
	(void)sig;
	_exit(X_CHILD_FAULT);
}

static void
catch_faults(void)
{
	static char altstack[64 * 1024];
	stack_t ss;
	struct sigaction sa;

	ss.ss_sp = altstack;
	ss.ss_size = sizeof(altstack);
	ss.ss_flags = 0;
	if (sigaltstack(&ss, NULL) < 0)
		return;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_fault;
	sa.sa_flags = SA_ONSTACK;
	sigemptyset(&sa.sa_mask);
	(void)sigaction(SIGSEGV, &sa, NULL);
	(void)sigaction(SIGBUS, &sa, NULL);
}

void
x_sandbox(const struct x_limits *lim, int allow_net)
{
	struct rlimit rl;
	int null;

	rl.rlim_cur = rl.rlim_max = 0;
	(void)setrlimit(RLIMIT_CORE, &rl);
	rl.rlim_cur = (rlim_t)lim->max_cpu;
	rl.rlim_max = (rlim_t)lim->max_cpu + 1;
	(void)setrlimit(RLIMIT_CPU, &rl);
#ifndef X_ASAN
	rl.rlim_cur = rl.rlim_max = (rlim_t)lim->max_memory;
	(void)setrlimit(RLIMIT_AS, &rl);
#endif
	signal(SIGXCPU, SIG_DFL);
	catch_faults();
	clearenv();
	null = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (null >= 0) {
		(void)dup2(null, 0);
		(void)dup2(null, 1);
		if (null > 2)
			close(null);
	}
	install_filter(allow_net);
}
