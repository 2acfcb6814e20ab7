/* err.c: the error context and the exit-code names. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "err.h"
#include "banned.h"

int
ai_err_set(struct ai_err *e, int code, const char *fmt, ...)
{
	va_list ap;

	if (e == NULL)
		return -1;
	e->code = code;
	e->status = 0;
	e->retryable = ai_exit_retryable(code);
	e->passed = 0;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	return -1;
}

void
ai_err_prefix(struct ai_err *e, const char *fmt, ...)
{
	char pre[AI_ERR_MSG_MAX], joined[2 * AI_ERR_MSG_MAX + 4];
	size_t n;
	va_list ap;

	if (e == NULL)
		return;
	va_start(ap, fmt);
	vsnprintf(pre, sizeof(pre), fmt, ap);
	va_end(ap);
	snprintf(joined, sizeof(joined), "%s: %s", pre, e->msg);
	n = strlen(joined);
	if (n >= sizeof(e->msg))
		n = sizeof(e->msg) - 1;
	memcpy(e->msg, joined, n);
	e->msg[n] = '\0';
}

void
ai_err_clear(struct ai_err *e)
{
	e->code = 0;
	e->status = 0;
	e->retryable = 0;
	e->msg[0] = '\0';
	e->passed = 0;
}

static const struct {
	int code;
	const char *name;
} exit_names[] = {
	{ AI_EXIT_OK, "ok" },
	{ AI_EXIT_FAIL, "failed" },
	{ AI_EXIT_LIMIT, "limit" },
	{ AI_EXIT_FORMAT, "format" },
	{ AI_EXIT_USAGE, "usage" },
	{ AI_EXIT_DATAERR, "bad_input" },
	{ AI_EXIT_NOINPUT, "no_input" },
	{ AI_EXIT_UNAVAILABLE, "unavailable" },
	{ AI_EXIT_SOFTWARE, "internal" },
	{ AI_EXIT_OSERR, "os_error" },
	{ AI_EXIT_IOERR, "io_error" },
	{ AI_EXIT_TEMPFAIL, "temporary" },
	{ AI_EXIT_PROTOCOL, "protocol" },
	{ AI_EXIT_POLICY, "policy" },
	{ AI_EXIT_CONFIG, "config" },
	{ AI_EXIT_HANGUP, "hangup" },
	{ AI_EXIT_INTERRUPT, "interrupted" },
	{ AI_EXIT_PIPE, "broken_pipe" },
	{ AI_EXIT_TERM, "terminated" },
};

const char *
ai_exit_name(int code)
{
	size_t i;

	for (i = 0; i < sizeof(exit_names) / sizeof(exit_names[0]); i++)
		if (exit_names[i].code == code)
			return exit_names[i].name;
	return "failed";
}

int
ai_exit_retryable(int code)
{
	return code == AI_EXIT_UNAVAILABLE || code == AI_EXIT_TEMPFAIL;
}

int
ai_exit_code_of(const char *name)
{
	size_t i;

	for (i = 0; name != NULL && i < sizeof(exit_names) / sizeof(exit_names[0]); i++)
		if (strcmp(exit_names[i].name, name) == 0)
			return exit_names[i].code;
	return -1;
}
