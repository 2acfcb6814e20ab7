/*
 * err.h: the suite's exit-code table and the error context that library
 * functions fill in.
 *
 * Library code never exits and never prints an error itself: a function that
 * fails returns -1 (or NULL) and describes the failure in a struct ai_err the
 * caller passed in.  Only main prints it (msg.h) and chooses the exit code,
 * normally e->code.  The table is documented in aicli(7).
 */
#ifndef AI_ERR_H
#define AI_ERR_H

enum {
	AI_EXIT_OK = 0,
	AI_EXIT_FAIL = 1,         /* the command, search or request itself failed */
	AI_EXIT_LIMIT = 3,        /* a limit (steps, calls, tokens, budget) was reached first */
	AI_EXIT_FORMAT = 4,       /* the answer is not in the requested format */
	AI_EXIT_USAGE = 64,       /* bad command line */
	AI_EXIT_DATAERR = 65,     /* bad input data, or a request the service rejected */
	AI_EXIT_NOINPUT = 66,     /* an input file is missing or unreadable */
	AI_EXIT_UNAVAILABLE = 69, /* service unavailable after retries */
	AI_EXIT_SOFTWARE = 70,    /* internal error */
	AI_EXIT_OSERR = 71,       /* the system refused (fork, pipe, memory) */
	AI_EXIT_IOERR = 74,       /* cannot write the output */
	AI_EXIT_TEMPFAIL = 75,    /* rate limited or timed out after retries */
	AI_EXIT_PROTOCOL = 76,    /* the service's answer cannot be understood */
	AI_EXIT_POLICY = 77,      /* refused by policy (file, URL, command) */
	AI_EXIT_CONFIG = 78,      /* configuration: missing or refused key, bad config */
	AI_EXIT_HANGUP = 129,     /* SIGHUP */
	AI_EXIT_INTERRUPT = 130,  /* SIGINT */
	AI_EXIT_PIPE = 141,       /* the reader of stdout went away (128 + SIGPIPE) */
	AI_EXIT_TERM = 143        /* SIGTERM */
};

#define AI_ERR_MSG_MAX 1024

struct ai_err {
	int code;      /* one of AI_EXIT_*; 0 while no error is set */
	int status;    /* HTTP status when the error is an HTTP answer, else 0 */
	int retryable; /* trying again later may succeed */
	char msg[AI_ERR_MSG_MAX];
	int passed;    /* an error record read on the input, already passed on as a record */
};

#define AI_ERR_INIT { 0, 0, 0, { 0 }, 0 }

#if defined(__GNUC__)
#define AI_PRINTF(f, a) __attribute__((format(printf, f, a)))
#define AI_NORETURN __attribute__((noreturn))
#else
#define AI_PRINTF(f, a)
#define AI_NORETURN
#endif

/* Set the error; returns -1 so that "return ai_err_set(...)" reads naturally. */
int ai_err_set(struct ai_err *e, int code, const char *fmt, ...) AI_PRINTF(3, 4);

/* Put "PREFIX: " in front of the message already set (context from a caller). */
void ai_err_prefix(struct ai_err *e, const char *fmt, ...) AI_PRINTF(2, 3);

void ai_err_clear(struct ai_err *e);

/* The stable short name of an exit code ("config", "rate_limit"...), for records. */
const char *ai_exit_name(int code);

/* Whether the failure behind an exit code may go away by itself. */
int ai_exit_retryable(int code);
/* The exit code of a short name ("config" -> 78), or -1 when it names none. */
int ai_exit_code_of(const char *name);

#endif
