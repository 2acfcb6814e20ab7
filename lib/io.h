/*
 * io.h: reading inputs with a cap, and writing the product to stdout.
 *
 * Writes to stdout that fail because the reader went away (EPIPE) return -1
 * with e->code AI_EXIT_PIPE and no message: main then ends the process the
 * way coreutils end, quietly by SIGPIPE (see ai_finish in msg.h).  SIGPIPE
 * itself is ignored in every tool (ai_init), so that a child process that
 * dies does not kill a parent writing to it; the EPIPE is handled instead.
 */
#ifndef AI_IO_H
#define AI_IO_H

#include <stdio.h>

#include "buf.h"
#include "err.h"

/* Read fd to end of input into b; more than b->max bytes is an error naming what. */
int ai_read_fd(int fd, struct ai_buf *b, const char *what, struct ai_err *e);
/* Read a whole regular file (at most max bytes). */
int ai_read_file(const char *path, struct ai_buf *b, size_t max, struct ai_err *e);

/*
 * A read-only file in memory (a sealed memfd) holding data[0..n), that this
 * process and its children open by the /proc path written to path: gone
 * when the process ends.  Returns the fd, or -1 with e set.
 */
int ai_sealed_file(const char *name, const char *data, size_t n, char *path, size_t pathsz,
    struct ai_err *e);

/* fwrite everything; EPIPE gives AI_EXIT_PIPE, other failures AI_EXIT_IOERR. */
int ai_out_write(FILE *f, const void *p, size_t n, struct ai_err *e);
int ai_out_flush(FILE *f, struct ai_err *e);
/* Flush and close stdout at the end of main (sbase's fshut). */
int ai_out_close(struct ai_err *e);

#endif
