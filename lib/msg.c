/* msg.c: diagnostics and the end of main. */
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "msg.h"
#include "buf.h"
#include "io.h"
#include "json.h"
#include "redact.h"
#include "text.h"
#include "util.h"
#include "banned.h"

/* A live status line on stderr, if a tool keeps one: erased around each message. */
static void (*status_erase)(void), (*status_redraw)(void);

void
ai_msg_status(void (*erase)(void), void (*redraw)(void))
{
	status_erase = erase;
	status_redraw = redraw;
}

/* stderr without the status line while text is written, then the line again. */
static void
to_stderr(const char *p, size_t n)
{
	fflush(stdout);
	if (status_erase != NULL)
		status_erase();
	(void)!fwrite(p, 1, n, stderr);
	fflush(stderr);
	if (status_redraw != NULL)
		status_redraw();
}

void
ai_init(const char *argv0)
{
	const char *slash;

	if (argv0 != NULL && *argv0) {
		slash = strrchr(argv0, '/');
		ai_progname = slash ? slash + 1 : argv0;
	}
	signal(SIGPIPE, SIG_IGN);
	ai_json_init();
}

static void
emit(const char *kind, const char *fmt, va_list ap)
{
	struct ai_buf raw = AI_BUF_INIT(1 << 20), red = AI_BUF_INIT(1 << 20),
	    out = AI_BUF_INIT(4 << 20);
	va_list aq;
	int n;

	va_copy(aq, ap);
	n = vsnprintf(NULL, 0, fmt, aq);
	va_end(aq);
	if (n > 0 && ai_buf_grow(&raw, (size_t)n) == 0) {
		vsnprintf(raw.buf, (size_t)n + 1, fmt, ap);
		raw.len = (size_t)n;
	}
	ai_redact(&red, raw.buf, raw.len);
	ai_buf_adds(&out, ai_progname);
	ai_buf_adds(&out, ": ");
	if (kind != NULL)
		ai_buf_adds(&out, kind);
	ai_term_sanitize(&out, red.buf, red.len);
	ai_buf_addc(&out, '\n');
	to_stderr(out.buf, out.len);
	ai_buf_release(&raw);
	ai_buf_release(&red);
	ai_buf_release(&out);
}

void
ai_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	emit(NULL, fmt, ap);
	va_end(ap);
}

void
ai_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	emit("warning: ", fmt, ap);
	va_end(ap);
}

void
ai_relay(const char *p, size_t n)
{
	struct ai_buf red = AI_BUF_INIT(AI_BUF_NOLIMIT), out = AI_BUF_INIT(AI_BUF_NOLIMIT);

	if (n == 0)
		return;
	ai_redact(&red, p, n);
	ai_term_sanitize(&out, red.buf, red.len);
	if (out.len > 0 && out.buf[out.len - 1] != '\n')
		ai_buf_addc(&out, '\n');
	to_stderr(out.buf, out.len);
	ai_buf_release(&red);
	ai_buf_release(&out);
}

void
ai_err_print(const struct ai_err *e)
{
	if (e->msg[0])
		ai_error("%s", e->msg);
}

int
ai_finish(int code, struct ai_err *e)
{
	struct ai_err ce = AI_ERR_INIT;

	if (code == -1)
		code = e->code ? e->code : AI_EXIT_SOFTWARE;
	if (code != AI_EXIT_OK && code != AI_EXIT_PIPE && e->msg[0]) {
		ai_err_print(e);
		if (code == AI_EXIT_USAGE)
			ai_error("try '%s --help' for more information", ai_progname);
	}
	if (code != AI_EXIT_PIPE && ai_out_close(&ce) < 0) {
		if (ce.code == AI_EXIT_PIPE) {
			code = AI_EXIT_PIPE;
		} else {
			ai_err_print(&ce);
			if (code == AI_EXIT_OK)
				code = ce.code;
		}
	}
	ai_secret_clear();
	if (code == AI_EXIT_PIPE) {
		signal(SIGPIPE, SIG_DFL);
		raise(SIGPIPE);
	}
	return code;
}
