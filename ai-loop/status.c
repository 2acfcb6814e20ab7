/*
 * status.c: the live status line on a terminal.
 *
 * While the loop runs, one line at the bottom of the terminal says where it
 * is: the step, what is running now (the model, or the step's tool calls:
 * the command or the query, shortened) and for how long, the tokens and
 * the cost so far.  It is drawn on stderr only when stderr is a terminal
 * that can erase a line (TERM is not "dumb"), not when the children write
 * to that terminal themselves (-vv), faint unless NO_COLOR is set; first a
 * quarter of a second after the start (a quick run shows nothing), then as
 * things happen and every quarter second.  Messages are written above it
 * (lib/msg.c calls the hooks set here), records written to the same
 * terminal too, and it is erased for good before the answer.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "json.h"
#include "loop.h"
#include "msg.h"
#include "util.h"
#include "banned.h"

#define TICK_MS 250
#define FIRST_MS 250

static struct {
	const struct loop *L;
	int on;             /* there is a status */
	int shown;          /* the line is on the terminal now */
	int faint;
	int stdout_tty;     /* stdout is a terminal as well */
	int64_t t0;         /* the start: nothing is drawn before FIRST_MS */
	int64_t since;      /* when what is running now began */
	int64_t next;       /* the next tick */
	char doing[512];    /* what is running now */
	char last[1024];    /* the line as last drawn */
} st;

/* The terminal's width, for cutting the line. */
static size_t
width(void)
{
	struct winsize ws;
	const char *c = getenv("COLUMNS");
	unsigned long n = c != NULL ? strtoul(c, NULL, 10) : 0;

	if (ioctl(2, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 1)
		return ws.ws_col;
	return n > 1 && n < 1000 ? n : 80;
}

/* The line for now, cut to the terminal's width less one column (no wrap). */
static void
compose(char *out, size_t n)
{
	const struct loop *L = st.L;
	char tok[96] = "", cost[48] = "", el[32];
	size_t cols = width() - 1, w = 0, i;
	int64_t s = (ai_now_ms() - st.since) / 1000;

	snprintf(el, sizeof(el), "%llds", (long long)s);
	if (L->in_tok + L->out_tok > 0)
		snprintf(tok, sizeof(tok), " | %llu+%llu tokens",
		    (unsigned long long)L->in_tok, (unsigned long long)L->out_tok);
	if (L->in_tok + L->out_tok > 0 && !L->cost_unknown)
		snprintf(cost, sizeof(cost), " | $%.4f", L->cost);
	snprintf(out, n, "%s: step %lu of %llu | %s %s%s%s", ai_progname,
	    L->steps > 0 ? L->steps : 1, (unsigned long long)L->o->max_steps, st.doing, el, tok,
	    cost);
	/* cut at a character boundary: what follows the cut is lost, the start stays */
	for (i = 0; out[i] != '\0'; i++) {
		if (((unsigned char)out[i] & 0xc0) == 0x80)
			continue;
		if (++w > cols) {
			out[i] = '\0';
			break;
		}
	}
}

static void
put(const char *s, size_t n)
{
	(void)!write(2, s, n);
}

static void
draw(int force)
{
	char line[1024], buf[1100];
	int k;

	if (!st.on || ai_now_ms() - st.t0 < FIRST_MS)
		return;
	compose(line, sizeof(line));
	if (!force && st.shown && strcmp(line, st.last) == 0)
		return;
	snprintf(st.last, sizeof(st.last), "%s", line);
	k = snprintf(buf, sizeof(buf), "\r%s%s%s\033[K", st.faint ? "\033[2m" : "", line,
	    st.faint ? "\033[0m" : "");
	if (k > 0)
		put(buf, (size_t)k < sizeof(buf) ? (size_t)k : sizeof(buf) - 1);
	st.shown = 1;
}

static void
erase(void)
{
	if (st.shown)
		put("\r\033[K", 4);
	st.shown = 0;
}

static void
redraw(void)
{
	draw(1);
}

void
status_start(const struct loop *L)
{
	const char *term = getenv("TERM"), *nc = getenv("NO_COLOR");

	memset(&st, 0, sizeof(st));
	if (!isatty(2) || (term != NULL && strcmp(term, "dumb") == 0) || L->o->verbose > 1)
		return;
	st.L = L;
	st.on = 1;
	st.faint = nc == NULL || *nc == '\0';
	st.stdout_tty = isatty(1) && L->o->json;
	st.t0 = st.since = ai_now_ms();
	st.next = st.t0 + FIRST_MS;
	snprintf(st.doing, sizeof(st.doing), "starting");
	ai_msg_status(erase, redraw);
}

void
status_doing(const char *what)
{
	if (!st.on)
		return;
	snprintf(st.doing, sizeof(st.doing), "%s", what);
	st.since = ai_now_ms();
	draw(0);
}

/* "name: its command or query", on one line, shortened. */
static void
describe(struct ai_buf *b, const struct call *c)
{
	static const char *const keys[] = { "command", "query", "program" };
	const cJSON *args = ai_json_get(c->rec, "arguments");
	const char *what = NULL;
	size_t i, start = b->len;

	for (i = 0; i < AI_ARRAY_SIZE(keys) && what == NULL; i++)
		what = ai_json_str(args, keys[i]);
	ai_buf_adds(b, c->name ? c->name : "tool");
	if (what != NULL) {
		ai_buf_adds(b, ": ");
		ai_buf_add(b, what, strnlen(what, 120));
		if (strlen(what) > 120)
			ai_buf_adds(b, "...");
	}
	/* a status is one line of plain text */
	for (i = start; i < b->len; i++)
		if ((unsigned char)b->buf[i] < 0x20 || b->buf[i] == 0x7f)
			b->buf[i] = ' ';
}

void
status_calls(const struct loop *L)
{
	struct ai_buf b = AI_BUF_INIT(400);
	size_t i;

	if (!st.on || L->ncalls == 0)
		return;
	if (L->ncalls > 1)
		ai_buf_addf(&b, "%zu tool calls: ", L->ncalls);
	for (i = 0; i < L->ncalls; i++) {
		if (i > 0)
			ai_buf_adds(&b, "; ");
		describe(&b, &L->calls[i]);
	}
	status_doing(b.buf);
	ai_buf_release(&b);
}

void
status_update(void)
{
	draw(0);
}

int64_t
status_next(void)
{
	return st.on ? st.next : -1;
}

void
status_tick(void)
{
	if (!st.on)
		return;
	st.next = ai_now_ms() + TICK_MS;
	draw(0);
}

void
status_pause(void)
{
	if (st.on && st.stdout_tty)
		erase();
}

void
status_resume(void)
{
	if (st.on && st.stdout_tty)
		draw(1);
}

void
status_end(void)
{
	if (!st.on)
		return;
	erase();
	ai_msg_status(NULL, NULL);
	st.on = 0;
}
