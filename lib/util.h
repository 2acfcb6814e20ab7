/*
 * util.h: memory, time and plain file-descriptor I/O.
 *
 * The ai_x* allocators never return NULL: on exhaustion they print
 * "PROG: out of memory" and end the process with AI_EXIT_OSERR.  That is the
 * one place library code ends the process (git's xmalloc does the same); no
 * caller could do anything more useful.
 */
#ifndef AI_UTIL_H
#define AI_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"

#ifndef AI_VERSION
#error "AI_VERSION comes from the Makefile's VERSION (-DAI_VERSION=...)"
#endif
#define AI_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* The program name used in every message ("ai-ask"). */
extern const char *ai_progname;

void *ai_xmalloc(size_t n);
void *ai_xcalloc(size_t nmemb, size_t size);
void *ai_xrealloc(void *p, size_t n);
char *ai_xstrdup(const char *s);
/* A NUL-terminated copy of n bytes of p. */
char *ai_xmemdup(const void *p, size_t n);
void ai_oom(void) AI_NORETURN;
/*
 * When set, ai_oom calls it instead of writing its message (a child whose
 * parent reports the failure in its own words); it must not return.
 */
extern void (*ai_oom_hook)(void);

/* Milliseconds on the monotonic clock, and wall-clock milliseconds since the epoch. */
int64_t ai_now_ms(void);
int64_t ai_wall_ms(void);
/* Sleep, resuming after signals; returns early only when *stop becomes nonzero. */
void ai_sleep_ms(int64_t ms, volatile int *stop);

/* A duration for messages: "250 ms", "1.5 s", "30 s". */
const char *ai_fmt_ms(int64_t ms, char *out, size_t outsz);

/* write(2) until everything is written; -1 with errno set on failure. */
int ai_write_all(int fd, const void *p, size_t n);

/* The leading n bytes of s as a short single-line excerpt for messages. */
const char *ai_excerpt(const char *s, size_t n, char *out, size_t outsz);

#endif
