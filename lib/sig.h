/*
 * sig.h: SIGINT, SIGTERM and SIGHUP, the same in every tool.
 *
 * ai_init installs the plain behaviour: the process ends at once by the
 * signal, as it would with no handler at all (the shell sees 130, 143 or
 * 129), but first kills the process groups of the children it started in a
 * group of their own (proc.h registers them) and removes the files it
 * registered with ai_sig_remove_on_signal.  A SIGHUP inherited as ignored
 * (nohup) stays ignored; SIGINT and SIGTERM are always handled, also in a
 * background job of a script, which the shell starts with SIGINT ignored.
 *
 * A tool that must end in order (ai-loop: stop its children, give every
 * open tool call a result, write its last records) calls ai_sig_catch: the
 * first signal is then only noted.  Blocking reads and writes done through
 * io.h and record.h return at once with the interrupted status, writes to
 * standard output then go on only as far as they can without waiting, and
 * ai_sig_fd() becomes readable for poll loops.  A second signal ends the
 * process at once, as above.
 *
 * Everything the handlers touch is async-signal-safe: fixed arrays, kill,
 * unlink, write.  A forked child that has not yet executed anything (a
 * sandbox) inherits the handler but acts only for the process that
 * installed it.
 */
#ifndef AI_SIG_H
#define AI_SIG_H

#include <sys/types.h>

#include "err.h"

/* The plain behaviour (called by ai_init). */
void ai_sig_init(void);
/* Note the first signal instead of ending (see above). */
void ai_sig_catch(void);
/* The signal that came while catching, or 0. */
int ai_sig_caught(void);
/* Readable once a signal came while catching; -1 when not catching. */
int ai_sig_fd(void);
/* The exit status a signal stands for: 130, 143, 129 (128 + the signal otherwise). */
int ai_sig_status(int sig);
/* Set e to the status of the signal that came, with no message; returns -1. */
int ai_sig_interrupted(struct ai_err *e);
/* End the process by the signal that came, if one did (after ai_finish). */
void ai_sig_end(void);

/* A process group killed (SIGKILL) when a signal ends the process. */
void ai_sig_track(pid_t pgid);
void ai_sig_untrack(pid_t pgid);
/* A file removed when a signal ends the process, until ai_sig_keep. */
void ai_sig_remove_on_signal(const char *path);
void ai_sig_keep(const char *path);

#endif
