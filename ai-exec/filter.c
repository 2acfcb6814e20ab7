/*
 * filter.c: system-call filters (seccomp(2)), built as classic BPF.
 *
 * A filter is a list of rules, each on one system call: refuse it with an
 * errno, or refuse it when an argument has some flags or a value;
 * everything else is allowed.  The
 * head of every filter refuses another architecture and, on x86-64, the x32
 * system-call numbers, which would bypass the list.  The language's child
 * (lang/sandbox.c) and the programs (prog/confine.c) build theirs here.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#include "exec.h"
#include "util.h"
#include "banned.h"

#if defined(__x86_64__)
#define X_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define X_ARCH AUDIT_ARCH_AARCH64
#endif

#define ARG(n) (offsetof(struct seccomp_data, args) + (n) * sizeof(uint64_t))
#define NR offsetof(struct seccomp_data, nr)

static void
emit(struct x_bpf *p, uint16_t code, uint32_t k, uint8_t jt, uint8_t jf)
{
	if (p->n < AI_ARRAY_SIZE(p->f)) {
		struct sock_filter s = { code, jt, jf, k };

		memcpy(&p->f[p->n++], &s, sizeof(s));
	} else {
		p->overflow = 1;
	}
}

static void
ret_errno(struct x_bpf *p, int e)
{
	emit(p, BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ((uint32_t)e & SECCOMP_RET_DATA), 0, 0);
}

int
x_bpf_supported(void)
{
#ifdef X_ARCH
	return 1;
#else
	return 0;
#endif
}

void
x_bpf_begin(struct x_bpf *p)
{
	memset(p, 0, sizeof(*p));
#ifdef X_ARCH
	emit(p, BPF_LD | BPF_W | BPF_ABS, (uint32_t)offsetof(struct seccomp_data, arch), 0, 0);
	emit(p, BPF_JMP | BPF_JEQ | BPF_K, X_ARCH, 1, 0);
	ret_errno(p, ENOSYS);
	emit(p, BPF_LD | BPF_W | BPF_ABS, (uint32_t)NR, 0, 0);
#if defined(__x86_64__)
	emit(p, BPF_JMP | BPF_JGE | BPF_K, 0x40000000u, 0, 1);
	ret_errno(p, ENOSYS);
#endif
#endif
}

void
x_bpf_deny(struct x_bpf *p, long nr, int e)
{
	emit(p, BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)nr, 0, 1);
	ret_errno(p, e);
}

/* if (nr == which) { load args[arg]; if (test) return errno e; reload nr } */
static void
deny_arg(struct x_bpf *p, long nr, int arg, uint16_t test, uint32_t k, int e)
{
	emit(p, BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)nr, 0, 4);
	emit(p, BPF_LD | BPF_W | BPF_ABS, (uint32_t)ARG(arg), 0, 0);
	emit(p, BPF_JMP | test | BPF_K, k, 0, 1);
	ret_errno(p, e);
	emit(p, BPF_LD | BPF_W | BPF_ABS, (uint32_t)NR, 0, 0);
}

void
x_bpf_deny_flags(struct x_bpf *p, long nr, int arg, uint32_t flags, int e)
{
	deny_arg(p, nr, arg, BPF_JSET, flags, e);
}

void
x_bpf_deny_value(struct x_bpf *p, long nr, int arg, uint32_t value, int e)
{
	deny_arg(p, nr, arg, BPF_JEQ, value, e);
}

int
x_bpf_install(struct x_bpf *p, int listener)
{
	struct sock_fprog prog;

	emit(p, BPF_RET | BPF_K, SECCOMP_RET_ALLOW, 0, 0);
	if (p->overflow || !x_bpf_supported()) {
		errno = p->overflow ? E2BIG : ENOSYS;
		return -1;
	}
	prog.len = p->n;
	prog.filter = p->f;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return -1;
	return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
	    listener ? SECCOMP_FILTER_FLAG_NEW_LISTENER : 0, &prog);
}
