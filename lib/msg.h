/*
 * msg.h: the process frame every tool's main uses, and diagnostics.
 *
 *	int main(int argc, char **argv) {
 *		struct ai_err e = AI_ERR_INIT;
 *		ai_init(argv[0]);
 *		return ai_finish(run(argc, argv, &e), &e);
 *	}
 *
 * Diagnostics go to stderr as "PROG: message", git style: lower case, the
 * subject quoted, no final period.  Every message is redacted (redact.h) and
 * has its control characters made visible (text.h), whatever it quotes.
 */
#ifndef AI_MSG_H
#define AI_MSG_H

#include <stddef.h>

#include "err.h"

/* Program name from argv[0], SIGPIPE ignored (io.h), cJSON allocation hooks. */
void ai_init(const char *argv0);

/* "PROG: message" on stderr. */
void ai_error(const char *fmt, ...) AI_PRINTF(1, 2);
/* "PROG: warning: message" on stderr. */
void ai_warn(const char *fmt, ...) AI_PRINTF(1, 2);
/*
 * Pass a child's diagnostics (already "ai-ask: ..." lines) on to stderr,
 * redacted and with control characters made visible, ending in a newline.
 */
void ai_relay(const char *p, size_t n);
/*
 * A tool that keeps a live status line on stderr (a terminal) sets these:
 * erase() before each message is written, redraw() after, so that messages
 * go above the line instead of through it.  NULL, NULL: no status line.
 */
void ai_msg_status(void (*erase)(void), void (*redraw)(void));
/* Print an error context set by a library call. */
void ai_err_print(const struct ai_err *e);

/*
 * End of main: print e's message when code is an error and a message is set
 * (for a usage error, with the hint to --help that option errors carry),
 * close stdout checking for write errors, and return the exit code.  A reader
 * that went away (AI_EXIT_PIPE) ends the process silently by SIGPIPE, as
 * coreutils do.  Also releases the secret registry.
 */
int ai_finish(int code, struct ai_err *e);

#endif
