/*
 * proc.h: child processes (git's run-command).
 *
 * A child is run from an argument vector with execve: never a shell string,
 * no PATH search unless the caller found the program first
 * (ai_find_program).  Its environment is the parent's minus env_unset
 * (names, or "PREFIX*" and "*SUFFIX" patterns), or empty with env_clear,
 * plus env_set.  Each standard stream is inherited, /dev/null, or a pipe
 * whose other end the parent holds.  All other descriptors are closed in the
 * child, signal dispositions are reset, and a failed exec is reported to the
 * parent as an error, not as a mysterious exit status 127.
 *
 * ai_child_wait reaps the child (no zombie is left behind), killing it (its
 * whole process group when new_pgroup or new_session is set) with SIGTERM
 * and then SIGKILL when it outlives its timeout.
 *
 * new_session makes the child the leader of a new session (setsid) and so of
 * a new process group: it has no controlling terminal, so nothing it runs
 * can open /dev/tty to prompt, and a terminal's ^C reaches only the parent,
 * which then ends its children in order.
 */
#ifndef AI_PROC_H
#define AI_PROC_H

#include <stdint.h>
#include <sys/types.h>

#include "buf.h"
#include "err.h"

enum { AI_FD_INHERIT = 0, AI_FD_NULL, AI_FD_PIPE };

struct ai_child {
	/* set by the caller */
	const char *path;               /* the program to execute */
	char *const *argv;              /* argv[0] included */
	const char *const *env_set;     /* "NAME=value" entries, NULL-terminated */
	const char *const *env_unset;   /* names or patterns, NULL-terminated */
	int env_clear;
	int in, out, err;               /* AI_FD_* */
	int new_pgroup;                 /* the child leads a new process group */
	int new_session;                /* ... and a new session, without a terminal */
	int die_with_parent;            /* SIGTERM to the child if the parent dies */
	const char *cwd;
	/*
	 * Called in the child once its standard streams are in place, before
	 * the other descriptors are closed and before execve (to confine it:
	 * ai-exec's Landlock rules).  It must not allocate; -1 with errno set
	 * fails the start as a failed execve does.
	 */
	int (*before_exec)(void *arg);
	void *before_exec_arg;
	/* set by ai_child_start */
	pid_t pid;
	int in_fd, out_fd, err_fd;      /* the parent's ends of the pipes, or -1 */
	int status;                     /* wait status, once reaped */
	int reaped;
	int timed_out;
};

int ai_child_start(struct ai_child *c, struct ai_err *e);

/*
 * Wait for the child; timeout_ms < 0 waits for ever.  On timeout the child
 * is killed and reaped, c->timed_out is set, and -1 is returned with e set
 * (AI_EXIT_TEMPFAIL).  Closes the parent's pipe ends.
 */
int ai_child_wait(struct ai_child *c, int64_t timeout_ms, struct ai_err *e);

/* Send sig to the child (to its process group when new_pgroup). */
void ai_child_signal(const struct ai_child *c, int sig);
/* Terminate: SIGTERM, up to grace_ms to exit, then SIGKILL; reaps. */
void ai_child_kill(struct ai_child *c, int64_t grace_ms);
/* Close the parent's ends of the pipes that are still open. */
void ai_child_close(struct ai_child *c);

/* The exit status, or 128 + the signal that ended it. */
int ai_child_exit_code(const struct ai_child *c);

/*
 * Run to completion: start, write in[0..in_len) to its stdin (when in is a
 * pipe), collect stdout and stderr into out and err (when pipes; a stream
 * that passes its buffer's cap is an error and the child is killed), wait,
 * all within timeout_ms.
 */
int ai_child_run(struct ai_child *c, const char *in, size_t in_len, struct ai_buf *out,
    struct ai_buf *err, int64_t timeout_ms, struct ai_err *e);

/*
 * rel (a relative path) taken from the directory of the running executable,
 * when access(mode) allows it: "ai-ask" beside ai-loop, or the installed
 * "../share/doc/aicli/examples/config.json".  Returns a path to free(), or
 * NULL.
 */
char *ai_beside_self(const char *rel, int mode);

/*
 * Where to find a sibling program: dir (if not NULL), else the directory of
 * the running executable, else PATH.  Returns a path to free(), or NULL.
 */
char *ai_find_program(const char *name, const char *dir);

#endif
