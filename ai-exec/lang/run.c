/*
 * run.c: executing a checked pipeline.
 *
 * Every execution happens in a forked child (the parent keeps the cache,
 * the audit log and the record stream out of its reach).  The child puts on
 * its limits and system-call filter (sandbox.c), compiles what needs
 * compiling (regular expressions, jq programs), then runs the stages
 * together, as a shell's pipeline does: each stage's output goes to the
 * next as it is produced, through a buffer of 64 KiB, and the last stage's
 * goes to the page, which keeps only the bytes asked for and counts the
 * rest.  Files are read in pieces of 128 KiB, and no further than needed:
 * when a stage has all it wants (head has its lines), the stages before it
 * stop, and so does the reading.  A plain "cat FILE..." followed by a stage
 * that reads its input is not run: that stage reads the files itself (tail
 * from their end).  The child sends back only the page, the exact total,
 * the stderr text and what was read, over a pipe.  A runaway filter, a
 * memory bomb or a crash ends the child, not the server: the parent turns
 * how the child ended into an error that names the limit.
 *
 * A lone "cat FILE" is paged by seeking, without reading the whole file.
 * A page for a record has every secret that overlaps it replaced, whole
 * (redact.h): its offsets are the output's, and no choice of page shows a
 * part of one.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lang.h"
#include "json.h"
#include "redact.h"
#include "text.h"
#include "util.h"
#include "banned.h"

#define CHUNK (128u << 10)   /* bytes read from a file at a time */
#define OBUF (64u << 10)     /* bytes of a stage's output held before passing them on */

static const struct x_rt *const runtimes[XB_COUNT] = {
	[XB_CAT] = &x_rt_cat,
	[XB_NL] = &x_rt_nl,
	[XB_HEAD] = &x_rt_head,
	[XB_TAIL] = &x_rt_tail,
	[XB_WC] = &x_rt_wc,
	[XB_SORT] = &x_rt_sort,
	[XB_UNIQ] = &x_rt_uniq,
	[XB_CUT] = &x_rt_cut,
	[XB_GREP] = &x_rt_grep,
	[XB_JQ] = &x_rt_jq,
	[XB_CURL] = &x_rt_curl,
};

int
x_next_line(const char *p, size_t n, unsigned char eol, size_t *off, const char **line,
    size_t *len)
{
	const char *s, *lf;

	if (*off >= n)
		return 0;
	s = p + *off;
	lf = memchr(s, eol, n - *off);
	*line = s;
	*len = lf ? (size_t)(lf - s) : n - *off;
	*off += *len + (lf ? 1 : 0);
	return 1;
}

/* ---- messages ---- */

int
x_abort(struct x_run *x, const struct x_stage *st, int code, const char *fmt, ...)
{
	char msg[AI_ERR_MSG_MAX];
	va_list ap;

	if (x->abort.code)
		return XR_ABORT;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (st != NULL)
		ai_err_set(&x->abort, code, "%s: %s", st->label, msg);
	else
		ai_err_set(&x->abort, code, "%s", msg);
	return XR_ABORT;
}

int
x_fail(struct x_run *x, const struct x_stage *st, const char *fmt, ...)
{
	char msg[AI_ERR_MSG_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (!x->failed)
		ai_err_set(&x->fail, AI_EXIT_FAIL, "%s: %s", st->label, msg);
	x->failed = 1;
	if (x->err.len < X_MAX_STDERR)
		ai_buf_addf(&x->err, "%s: %s\n", st->label, msg);
	return XR_OK;
}

void
x_warn(struct x_run *x, const struct x_stage *st, const char *fmt, ...)
{
	char msg[AI_ERR_MSG_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (x->err.len < X_MAX_STDERR)
		ai_buf_addf(&x->err, "%s: %s\n", st->label, msg);
}

/* ---- output ---- */

static int
too_much(struct x_run *x, const struct x_stage *st)
{
	return x_abort(x, st, AI_EXIT_LIMIT,
	    "the output is larger than the limit of %llu bytes (--max-output)",
	    (unsigned long long)x->pol->lim.max_output);
}

/*
 * The last stage's output: counted, and kept where the page is, with one
 * byte more (to see whether the cut falls inside a character) and, for a
 * record, as much around it as the longest secret (to see one that the
 * page's edges cut).
 */
static void
page_add(struct x_run *x, const char *p, size_t n)
{
	uint64_t at = x->total, lim = x->start + x->size + 1 + x->margin;

	x->total += n;
	if (at + n <= x->page_from || at >= lim)
		return;
	if (at < x->page_from) {
		p += x->page_from - at;
		n -= (size_t)(x->page_from - at);
		at = x->page_from;
	}
	if (at + n > lim)
		n = (size_t)(lim - at);
	ai_buf_add(&x->page, p, n);
}

/* Whether stage st takes the previous stage's output. */
static int
takes_input(const struct x_stage *st)
{
	return !st->skip && st->nfiles == 0 && st->n_in_files == 0 && st->b->id != XB_CURL;
}

/* Hand bytes of stage st's output to the next stage, or to the page. */
static int
pass_on(struct x_run *x, struct x_stage *st, const char *p, size_t n)
{
	struct x_stage *next;
	int rc;

	if (st->index >= x->pl->nstages) {
		page_add(x, p, n);
		return XR_OK;
	}
	next = &x->pl->stages[st->index];
	if (!takes_input(next))
		rc = XR_STOP; /* it reads its FILEs: what comes in is dropped, as a shell would */
	else
		rc = runtimes[next->b->id]->feed(next, x, p, n);
	if (x->abort.code)
		return XR_ABORT;
	if (rc == XR_STOP) {
		st->stopped = 1;
		ai_buf_reset(&st->obuf);
	}
	return rc;
}

static int
flush(struct x_run *x, struct x_stage *st)
{
	int rc = XR_OK;

	if (st->obuf.len > 0 && !st->stopped) {
		struct ai_buf b = st->obuf;

		/* the buffer is handed on whole; a fresh one takes what comes meanwhile */
		ai_buf_init(&st->obuf, AI_BUF_NOLIMIT);
		rc = pass_on(x, st, b.buf, b.len);
		if (st->obuf.len == 0 && !st->stopped) {
			ai_buf_release(&st->obuf);
			st->obuf = b;
			ai_buf_reset(&st->obuf);
		} else {
			ai_buf_release(&b);
		}
	}
	return rc;
}

int
x_emit(struct x_run *x, struct x_stage *st, const void *p, size_t n)
{
	int rc;

	if (x->abort.code)
		return XR_ABORT;
	if (st->stopped)
		return XR_STOP;
	if (n == 0)
		return XR_OK;
	st->produced += n;
	if (st->produced > x->pol->lim.max_output)
		return too_much(x, st);
	if (st->obuf.len + n <= OBUF) {
		ai_buf_add(&st->obuf, p, n);
		return XR_OK;
	}
	if ((rc = flush(x, st)) != XR_OK)
		return rc;
	if (n >= OBUF)
		return pass_on(x, st, p, n);
	ai_buf_add(&st->obuf, p, n);
	return XR_OK;
}

int
x_emitf(struct x_run *x, struct x_stage *st, const char *fmt, ...)
{
	char tmp[512];
	va_list ap;
	int k;

	va_start(ap, fmt);
	k = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (k < 0)
		return XR_OK;
	return x_emit(x, st, tmp, (size_t)k < sizeof(tmp) ? (size_t)k : sizeof(tmp) - 1);
}

int
x_emit_number(struct x_run *x, struct x_stage *st, uint64_t v, int width, char pad, int left,
    const char *sep, size_t seplen)
{
	char buf[64];
	int i = (int)sizeof(buf), digits;

	do {
		buf[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v > 0);
	digits = (int)sizeof(buf) - i;
	if (!left) {
		while ((int)sizeof(buf) - i < width && i > 0)
			buf[--i] = pad;
		if (x_emit(x, st, buf + i, sizeof(buf) - (size_t)i) < 0)
			return XR_ABORT;
	} else {
		if (x_emit(x, st, buf + i, (size_t)digits) < 0)
			return XR_ABORT;
		for (; digits < width; digits++)
			if (x_emit(x, st, " ", 1) < 0)
				return XR_ABORT;
	}
	return x_emit(x, st, sep, seplen);
}

/* ---- lines in pieces ---- */

void
x_lines_init(struct x_lines *l, unsigned char eol)
{
	ai_buf_init(&l->carry, AI_BUF_NOLIMIT);
	l->eol = eol;
}

void
x_lines_release(struct x_lines *l)
{
	ai_buf_release(&l->carry);
}

int
x_lines_feed(struct x_lines *l, struct x_stage *st, struct x_run *x, const char *p, size_t n,
    x_lines_fn fn)
{
	const char *end = p + n, *lf;
	int rc;

	if (l->carry.len > 0) {
		lf = memchr(p, l->eol, n);
		if (lf == NULL) {
			ai_buf_add(&l->carry, p, n);
			return XR_OK;
		}
		ai_buf_add(&l->carry, p, (size_t)(lf - p) + 1);
		rc = fn(st, x, l->carry.buf, l->carry.len, 0);
		ai_buf_reset(&l->carry);
		if (rc != XR_OK)
			return rc;
		p = lf + 1;
	}
	lf = p < end ? memrchr(p, l->eol, (size_t)(end - p)) : NULL;
	if (lf != NULL) {
		if ((rc = fn(st, x, p, (size_t)(lf - p) + 1, 0)) != XR_OK)
			return rc;
		p = lf + 1;
	}
	if (p < end)
		ai_buf_add(&l->carry, p, (size_t)(end - p));
	return XR_OK;
}

int
x_lines_end(struct x_lines *l, struct x_stage *st, struct x_run *x, x_lines_fn fn)
{
	int rc = XR_OK;

	if (l->carry.len > 0) {
		rc = fn(st, x, l->carry.buf, l->carry.len, 1);
		ai_buf_reset(&l->carry);
	}
	return rc;
}

/* ---- reading listed files ---- */

/* Count bytes read against --max-read. */
static int
count_read(struct x_run *x, const struct x_stage *st, size_t n)
{
	x->bytes_read += n;
	if (x->bytes_read > x->pol->lim.max_read)
		return x_abort(x, st, AI_EXIT_LIMIT,
		    "the command read more than the limit of %llu bytes (--max-read)",
		    (unsigned long long)x->pol->lim.max_read);
	return 0;
}

/* The file is still a regular file within --max-file: its size. */
static int
check_file(struct x_run *x, const struct x_stage *st, int idx, uint64_t *size)
{
	const struct x_file *f = &x->pol->files[idx];
	struct stat sb;

	x->read[idx] = 1;
	if (fstat(f->fd, &sb) < 0 || !S_ISREG(sb.st_mode))
		return x_abort(x, st, AI_EXIT_POLICY, "'%s' is no longer a regular file", f->name);
	if ((uint64_t)sb.st_size > x->pol->lim.max_file)
		return x_abort(x, st, AI_EXIT_LIMIT,
		    "'%s' is now %lld bytes, larger than the limit of %llu bytes (--max-file)",
		    f->name, (long long)sb.st_size, (unsigned long long)x->pol->lim.max_file);
	*size = (uint64_t)sb.st_size;
	return 0;
}

static ssize_t
pread_full(int fd, char *buf, size_t n, uint64_t off)
{
	size_t got = 0;

	while (got < n) {
		ssize_t r = pread(fd, buf + got, n - got, (off_t)(off + got));

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -1;
		if (r == 0)
			break;
		got += (size_t)r;
	}
	return (ssize_t)got;
}

int
x_file_open(struct x_run *x, const struct x_stage *st, int idx, uint64_t *size)
{
	const struct x_file *f = &x->pol->files[idx];
	char head[X_SNIFF];
	ssize_t r;

	if (check_file(x, st, idx, size) < 0)
		return XR_ABORT;
	r = pread_full(f->fd, head, *size < sizeof(head) ? (size_t)*size : sizeof(head), 0);
	if (r < 0)
		return x_abort(x, st, AI_EXIT_FAIL, "cannot read '%s': %s", f->name, strerror(errno));
	if (count_read(x, st, (size_t)r) < 0)
		return XR_ABORT;
	if (x_looks_binary(head, (size_t)r))
		return x_abort(x, st, AI_EXIT_POLICY,
		    "'%s' now looks like a binary file: only text is read", f->name);
	return XR_OK;
}

int
x_file_pread(struct x_run *x, const struct x_stage *st, int idx, char *buf, size_t n,
    uint64_t off, size_t *got)
{
	const struct x_file *f = &x->pol->files[idx];
	ssize_t r = pread_full(f->fd, buf, n, off);

	if (r < 0)
		return x_abort(x, st, AI_EXIT_FAIL, "cannot read '%s': %s", f->name, strerror(errno));
	*got = (size_t)r;
	return count_read(x, st, (size_t)r) < 0 ? XR_ABORT : XR_OK;
}

/*
 * Read listed file idx in pieces into stage st, as far as st wants; who is
 * the stage whose reading it is, for messages.
 */
static int
stream_file(struct x_run *x, struct x_stage *st, const struct x_stage *who, int idx)
{
	const struct x_file *f = &x->pol->files[idx];
	const struct x_limits *l = &x->pol->lim;
	uint64_t size, off = 0;

	if (check_file(x, who, idx, &size) < 0)
		return XR_ABORT;
	for (;;) {
		size_t want = CHUNK;
		char *buf = x->chunk;
		ssize_t r;
		int rc;

		if (x->bytes_read >= l->max_read) {
			/* the limit is reached: is there more to read? */
			char probe;

			r = pread_full(f->fd, &probe, 1, off);
			if (r <= 0)
				return XR_OK;
			count_read(x, who, 1);
			return XR_ABORT;
		}
		if (runtimes[st->b->id]->space != NULL)
			buf = runtimes[st->b->id]->space(st, x, &want);
		if (l->max_read - x->bytes_read < want)
			want = (size_t)(l->max_read - x->bytes_read);
		r = pread_full(f->fd, buf, want, off);
		if (r < 0)
			return x_abort(x, who, AI_EXIT_FAIL, "cannot read '%s': %s", f->name,
			    strerror(errno));
		if (r == 0)
			return XR_OK;
		if (off == 0 && x_looks_binary(buf, (size_t)r))
			return x_abort(x, who, AI_EXIT_POLICY,
			    "'%s' now looks like a binary file: only text is read", f->name);
		off += (uint64_t)r;
		if (count_read(x, who, (size_t)r) < 0)
			return XR_ABORT;
		if (off > l->max_file)
			return x_abort(x, who, AI_EXIT_LIMIT,
			    "'%s' grew larger than the limit of %llu bytes (--max-file)", f->name,
			    (unsigned long long)l->max_file);
		rc = runtimes[st->b->id]->feed(st, x, buf, (size_t)r);
		if (rc != XR_OK || x->abort.code)
			return x->abort.code ? XR_ABORT : rc;
	}
}

/* One input of stage st made of listed files (one FILE, or a skipped cat's). */
static int
read_input(struct x_run *x, struct x_stage *st, const int *files, size_t n, const char *name,
    const struct x_stage *who)
{
	const struct x_rt *rt = runtimes[st->b->id];
	size_t i;
	int rc;

	if (rt->begin != NULL && rt->begin(st, x, name) < 0)
		return XR_ABORT;
	if (rt->read != NULL) {
		if (rt->read(st, x, files, n) < 0)
			return XR_ABORT;
	} else {
		for (i = 0; i < n; i++) {
			rc = stream_file(x, st, who, files[i]);
			if (rc == XR_ABORT)
				return XR_ABORT;
			if (rc == XR_STOP)
				break;
		}
	}
	if (rt->finish != NULL && rt->finish(st, x) < 0)
		return XR_ABORT;
	return x->abort.code ? XR_ABORT : XR_OK;
}

/*
 * "cat FILE..." with no option, before a stage that reads its input, is not
 * run: that stage reads the files as its input (and no further than it
 * needs).
 */
static void
skip_plain_cats(struct x_pipeline *pl)
{
	size_t i;

	for (i = 0; i + 1 < pl->nstages; i++) {
		struct x_stage *st = &pl->stages[i], *next = &pl->stages[i + 1];
		const struct x_opts_cat *o = st->priv;

		if (st->b->id != XB_CAT || st->nfiles == 0 || o->number || o->squeeze || o->ends ||
		    o->tabs || o->nonprinting || next->nfiles > 0 || next->b->id == XB_CURL)
			continue;
		st->skip = 1;
		next->in_files = st->files;
		next->n_in_files = st->nfiles;
		next->in_reader = st;
	}
}

/* Run the stages; the page and the status are in x. */
static void
run_stages(struct x_run *x)
{
	struct x_pipeline *pl = x->pl;
	size_t i, k;

	skip_plain_cats(pl);
	/* the stages that read their input start first, the last one first */
	for (i = pl->nstages; i-- > 1;) {
		struct x_stage *st = &pl->stages[i];
		const struct x_rt *rt = runtimes[st->b->id];

		if (takes_input(st) && rt->begin != NULL && rt->begin(st, x, NULL) < 0)
			return;
	}
	for (i = 0; i < pl->nstages && !x->abort.code; i++) {
		struct x_stage *st = &pl->stages[i];
		const struct x_rt *rt = runtimes[st->b->id];

		if (st->skip)
			continue;
		if (st->nfiles > 0) {
			for (k = 0; k < st->nfiles; k++)
				if (read_input(x, st, &st->files[k], 1, st->fnames[k], st) < 0)
					return;
		} else if (st->n_in_files > 0) {
			if (read_input(x, st, st->in_files, st->n_in_files, NULL, st->in_reader) < 0)
				return;
		} else if (!takes_input(st) || i == 0) {
			/* it reads nothing (curl fetches, jq -n) */
			if (rt->begin != NULL && rt->begin(st, x, NULL) < 0)
				return;
			if (rt->finish != NULL && rt->finish(st, x) < 0)
				return;
		} else if (rt->finish != NULL && rt->finish(st, x) < 0) {
			return;
		}
		if (rt->end != NULL && rt->end(st, x) < 0)
			return;
		if (flush(x, st) < 0)
			return;
	}
}

/* ---- the child ---- */

/* The message to the parent: tagged fields, each a tag byte and a length. */
static void
put(struct ai_buf *b, char tag, const void *p, uint64_t n)
{
	ai_buf_addc(b, tag);
	ai_buf_add(b, &n, sizeof(n));
	ai_buf_add(b, p, (size_t)n);
}

static void
put_u64(struct ai_buf *b, char tag, uint64_t v)
{
	put(b, tag, &v, sizeof(v));
}

static void
send_and_exit(int fd, struct ai_buf *msg)
{
	size_t off = 0;

	while (off < msg->len) {
		ssize_t w = write(fd, msg->buf + off, msg->len - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			_exit(AI_EXIT_IOERR);
		off += (size_t)w;
	}
	_exit(0);
}

/*
 * The page p[from..from+cut) of p[0..n): as it is, or for a record with
 * every secret that overlaps it replaced (redact.h), whole.
 */
static void
put_page(struct ai_buf *msg, const char *p, size_t n, size_t from, size_t cut, int redact)
{
	struct ai_buf red = AI_BUF_INIT(AI_BUF_NOLIMIT);

	if (!redact) {
		put(msg, 'p', p + from, cut);
		return;
	}
	ai_redact_span(&red, p, n, from, from + cut);
	put(msg, 'p', red.buf, red.len);
	ai_buf_release(&red);
}

/* The page: x->start.. to at most x->size bytes, cut on a character boundary. */
static void
page(struct ai_buf *msg, const struct x_run *x)
{
	put_u64(msg, 't', x->total);
	if (x->start < x->total) {
		/* page.buf holds the output from page_from on: the margin, then the page */
		size_t before = (size_t)(x->start - x->page_from);
		size_t kept = x->page.len - before, max = x->size < kept ? (size_t)x->size : kept;
		size_t cut = ai_utf8_cut(x->page.buf + before, kept, max);

		if (cut == 0)
			cut = max; /* a page smaller than one character: cut the bytes */
		put_page(msg, x->page.buf, x->page.len, before, cut, x->pol->redact);
		if (x->start + cut < x->total)
			put_u64(msg, 'n', x->start + cut);
	}
}

/* A lone "cat FILE": the page is read at its offset, the size taken from fstat. */
static void
seek_page(struct x_run *x, struct x_stage *st, uint64_t start, uint64_t size, struct ai_buf *msg)
{
	const struct x_file *f = &x->pol->files[st->files[0]];
	char head[X_SNIFF], *buf;
	struct stat sb;
	ssize_t r;
	size_t want, got = 0, margin, before;
	uint64_t total;

	x->read[st->files[0]] = 1;
	if (fstat(f->fd, &sb) < 0 || !S_ISREG(sb.st_mode)) {
		x_abort(x, st, AI_EXIT_POLICY, "'%s' is no longer a regular file", f->name);
		return;
	}
	if ((uint64_t)sb.st_size > x->pol->lim.max_file) {
		x_abort(x, st, AI_EXIT_LIMIT,
		    "'%s' is now %lld bytes, larger than the limit of %llu bytes (--max-file)",
		    f->name, (long long)sb.st_size, (unsigned long long)x->pol->lim.max_file);
		return;
	}
	do
		r = pread(f->fd, head, sizeof(head), 0);
	while (r < 0 && errno == EINTR);
	if (r < 0 || count_read(x, st, (size_t)r) < 0) {
		if (r < 0)
			x_abort(x, st, AI_EXIT_FAIL, "cannot read '%s': %s", f->name, strerror(errno));
		return;
	}
	if (x_looks_binary(head, (size_t)r)) {
		x_abort(x, st, AI_EXIT_POLICY, "'%s' now looks like a binary file: only text is read",
		    f->name);
		return;
	}
	total = (uint64_t)sb.st_size;
	if (start >= total) {
		put_u64(msg, 't', total);
		return;
	}
	/*
	 * One byte more than the page, to see whether the cut falls inside a
	 * character; for a record, as much around it as the longest secret, to
	 * see one the page's edges cut.
	 */
	margin = x->pol->redact ? ai_secret_maxlen() : 0;
	before = (size_t)(start < margin ? start : margin);
	want = (size_t)(size + 1 < total - start ? size + 1 : total - start);
	want += before + (size_t)(total - start - want < margin ? total - start - want : margin);
	buf = ai_xmalloc(want + 1);
	while (got < want) {
		do
			r = pread(f->fd, buf + got, want - got, (off_t)(start - before + got));
		while (r < 0 && errno == EINTR);
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	if (count_read(x, st, got) == 0 && got >= before) {
		size_t avail = got - before;

		if (got < want && start + avail < total)
			total = start + avail; /* the file shrank meanwhile */
		/* the page is buf[before..): from the window as if at offset 0 */
		{
			size_t max = size < avail ? (size_t)size : avail;
			size_t cut = ai_utf8_cut(buf + before, avail, max);

			if (cut == 0)
				cut = max;
			put_u64(msg, 't', total);
			put_page(msg, buf, got, before, cut, x->pol->redact);
			if (start + cut < total)
				put_u64(msg, 'n', start + cut);
		}
	}
	free(buf);
}

static int
lone_cat(const struct x_pipeline *pl)
{
	const struct x_stage *st = &pl->stages[0];

	const struct x_opts_cat *o = st->priv;

	return pl->nstages == 1 && st->b->id == XB_CAT && st->nfiles == 1 && !o->number &&
	    !o->squeeze && !o->ends && !o->tabs && !o->nonprinting;
}

static int
cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return x < y ? -1 : x > y;
}

/*
 * Close every descriptor above 2 but the listed files' and keep (the audit
 * log, the server's other descriptors: none of them is the child's
 * business), with close_range(2) over the gaps.
 */
static void
close_others(const struct x_policy *pol, int keep)
{
	int *k = ai_xmalloc((pol->nfiles + 2) * sizeof(*k)), lo = 3;
	size_t n = 0, i;

	k[n++] = keep;
	for (i = 0; i < pol->nfiles; i++)
		if (pol->files[i].fd >= 0)
			k[n++] = pol->files[i].fd;
	qsort(k, n, sizeof(*k), cmp_int);
	for (i = 0; i < n; i++) {
		if (k[i] > lo && close_range((unsigned)lo, (unsigned)k[i] - 1, 0) < 0) {
			int fd;

			for (fd = lo; fd < k[i]; fd++)
				(void)close(fd);
		}
		if (k[i] + 1 > lo)
			lo = k[i] + 1;
	}
	if (close_range((unsigned)lo, ~0u, 0) < 0) {
		long max = sysconf(_SC_OPEN_MAX);
		int fd;

		for (fd = lo; fd < (max > 0 && max < 65536 ? max : 65536); fd++)
			(void)close(fd);
	}
	free(k);
}

/*
 * Run the pipeline and write the message for the parent into msg: the page
 * and total, or why it stopped; the failures; what was read and fetched.
 */
static void
run_pipeline(const struct x_policy *pol, struct x_pipeline *pl, uint64_t start, uint64_t size,
    int64_t deadline, struct ai_buf *msg)
{
	struct x_run x;
	size_t i;

	memset(&x, 0, sizeof(x));
	x.pol = pol;
	x.pl = pl;
	x.deadline_ms = deadline;
	x.start = start;
	x.size = size;
	x.margin = pol->redact ? ai_secret_maxlen() : 0;
	x.page_from = start > x.margin ? start - x.margin : 0;
	ai_buf_init(&x.err, X_MAX_STDERR + 1024);
	ai_buf_init(&x.page, AI_BUF_NOLIMIT);
	x.read = ai_xcalloc(pol->nfiles + 1, 1);
	x.urls = cJSON_CreateArray();
	for (i = 0; i < pl->nstages; i++)
		ai_buf_init(&pl->stages[i].obuf, AI_BUF_NOLIMIT);
	for (i = 0; i < pl->nstages && !x.abort.code; i++) {
		struct x_stage *st = &pl->stages[i];
		const struct x_rt *rt = runtimes[st->b->id];
		struct ai_err e = AI_ERR_INIT;

		if (rt->prepare != NULL && rt->prepare(st, &x, &e) < 0)
			x.abort = e;
	}
	if (!x.abort.code && lone_cat(pl)) {
		seek_page(&x, &pl->stages[0], start, size, msg);
	} else if (!x.abort.code) {
		x.chunk = ai_xmalloc(CHUNK);
		run_stages(&x);
		if (!x.abort.code)
			page(msg, &x);
	}
	/* status: abort ('a'), else failure ('f') and the exit code */
	if (x.abort.code) {
		ai_buf_reset(msg);
		put_u64(msg, 'a', (uint64_t)x.abort.code);
		put(msg, 'm', x.abort.msg, strlen(x.abort.msg));
	} else if (x.failed) {
		put_u64(msg, 'f', 1);
		put(msg, 'm', x.fail.msg, strlen(x.fail.msg));
		put_u64(msg, 'x', 1);
	} else {
		put_u64(msg, 'x', (uint64_t)pl->stages[pl->nstages - 1].status);
	}
	put(msg, 'e', x.err.buf, x.err.len);
	put_u64(msg, 'r', x.bytes_read);
	for (i = 0; i < pol->nfiles; i++)
		if (x.read[i])
			put_u64(msg, 'i', i);
	{
		char *u = ai_json_print(x.urls);

		put(msg, 'u', u, strlen(u));
		free(u);
	}
	for (i = 0; i < pl->nstages; i++) {
		if (pl->stages[i].rt != NULL && runtimes[pl->stages[i].b->id]->release != NULL)
			runtimes[pl->stages[i].b->id]->release(&pl->stages[i]);
		ai_buf_release(&pl->stages[i].obuf);
	}
	free(x.chunk);
	free(x.read);
	cJSON_Delete(x.urls);
	ai_buf_release(&x.err);
	ai_buf_release(&x.page);
}

/* Out of memory in the child: the parent says which limit it was. */
static void
child_oom(void)
{
	_exit(X_CHILD_NOMEM);
}

static void
child(const struct x_policy *pol, struct x_pipeline *pl, uint64_t start, uint64_t size,
    int wfd, int64_t deadline)
{
	struct ai_buf msg = AI_BUF_INIT(AI_BUF_NOLIMIT);

	ai_oom_hook = child_oom;
	close_others(pol, wfd);
	x_sandbox(&pol->lim, pl->uses_net);
	run_pipeline(pol, pl, start, size, deadline, &msg);
	send_and_exit(wfd, &msg);
}

/* ---- the parent ---- */

void
x_result_free(struct x_result *r)
{
	free(r->out);
	free(r->errtext);
	free(r->files);
	cJSON_Delete(r->urls);
	memset(r, 0, sizeof(*r));
}

void
x_result_copy(struct x_result *dst, const struct x_result *src)
{
	*dst = *src;
	dst->out = ai_xmemdup(src->out ? src->out : "", src->out_len);
	dst->errtext = ai_xmemdup(src->errtext ? src->errtext : "", src->errtext_len);
	dst->files = NULL;
	if (src->nfiles > 0) {
		dst->files = ai_xmalloc(src->nfiles * sizeof(*dst->files));
		memcpy(dst->files, src->files, src->nfiles * sizeof(*dst->files));
	}
	dst->urls = src->urls ? cJSON_Duplicate(src->urls, 1) : NULL;
}

void
x_result_error(struct x_result *r, const struct ai_err *e)
{
	struct ai_buf b = AI_BUF_INIT(AI_BUF_NOLIMIT);

	r->ok = 0;
	r->err = *e;
	r->exit_code = e->code;
	ai_buf_addf(&b, "%s\n", e->msg);
	free(r->errtext);
	r->errtext = ai_buf_detach(&b, &r->errtext_len);
	free(r->out);
	r->out = ai_xstrdup("");
	r->out_len = 0;
	r->total = 0;
	r->more = 0;
}

/* Read the child's message until its end or the deadline; 1 on timeout. */
static int
collect(int fd, struct ai_buf *b, int64_t deadline)
{
	for (;;) {
		struct pollfd p = { fd, POLLIN, 0 };
		int64_t left = deadline - ai_now_ms();
		ssize_t n;
		int rc;

		if (left <= 0)
			return 1;
		rc = poll(&p, 1, left > 60000 ? 60000 : (int)left);
		if (rc < 0 && errno == EINTR)
			continue;
		if (rc == 0)
			continue;
		if (ai_buf_grow(b, 65536) < 0)
			return -1;
		n = read(fd, b->buf + b->len, 65536);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return 0;
		b->len += (size_t)n;
	}
}

/* Decode the child's message into r; -1 when it is incomplete. */
static int
decode(const struct ai_buf *b, struct x_result *r)
{
	size_t off = 0;
	int have_status = 0;

	while (off < b->len) {
		char tag;
		uint64_t n, v = 0;
		const char *p;

		if (b->len - off < 1 + sizeof(n))
			return -1;
		tag = b->buf[off];
		memcpy(&n, b->buf + off + 1, sizeof(n));
		off += 1 + sizeof(n);
		if (n > b->len - off)
			return -1;
		p = b->buf + off;
		off += (size_t)n;
		if (n == sizeof(v))
			memcpy(&v, p, sizeof(v));
		switch (tag) {
		case 'a':
			r->aborted = 1;
			r->err.code = (int)v;
			r->exit_code = (int)v;
			have_status = 1;
			break;
		case 'f':
			r->err.code = AI_EXIT_FAIL;
			break;
		case 'x':
			r->exit_code = (int)v;
			r->ok = !r->err.code;
			have_status = 1;
			break;
		case 'm':
			snprintf(r->err.msg, sizeof(r->err.msg), "%.*s", (int)n, p);
			break;
		case 'p':
			free(r->out);
			r->out = ai_xmemdup(p, (size_t)n);
			r->out_len = (size_t)n;
			break;
		case 'e':
			free(r->errtext);
			r->errtext = ai_xmemdup(p, (size_t)n);
			r->errtext_len = (size_t)n;
			break;
		case 't':
			r->total = v;
			break;
		case 'n':
			r->more = 1;
			r->next = v;
			break;
		case 'r':
			r->bytes_read = v;
			break;
		case 'i':
			r->files = ai_xrealloc(r->files, (r->nfiles + 1) * sizeof(*r->files));
			r->files[r->nfiles++] = (int)v;
			break;
		case 'u':
			cJSON_Delete(r->urls);
			r->urls = cJSON_ParseWithLength(p, (size_t)n);
			break;
		default:
			return -1;
		}
	}
	return have_status ? 0 : -1;
}

static const char *
signame(int sig)
{
	switch (sig) {
	case SIGSEGV:
		return "SIGSEGV";
	case SIGBUS:
		return "SIGBUS";
	case SIGABRT:
		return "SIGABRT";
	case SIGKILL:
		return "SIGKILL";
	case SIGXCPU:
		return "SIGXCPU";
	case SIGSYS:
		return "SIGSYS";
	default:
		return "a signal";
	}
}

/* How the child ended, when it sent no complete answer. */
static void
ended(const struct x_policy *pol, int status, int timed_out, struct ai_err *e)
{
	const struct x_limits *l = &pol->lim;
	char dur[32];

	if (timed_out) {
		ai_err_set(e, AI_EXIT_TEMPFAIL, "the command did not finish within %s (--timeout)",
		    ai_fmt_ms((int64_t)l->timeout_ms, dur, sizeof(dur)));
	} else if (WIFSIGNALED(status) &&
	    (WTERMSIG(status) == SIGXCPU || WTERMSIG(status) == SIGKILL)) {
		ai_err_set(e, AI_EXIT_LIMIT,
		    "the command used more than %llu s of CPU time (--max-cpu)",
		    (unsigned long long)l->max_cpu);
	} else if (WIFSIGNALED(status) ||
	    (WIFEXITED(status) && WEXITSTATUS(status) == X_CHILD_FAULT)) {
		ai_err_set(e, AI_EXIT_LIMIT,
		    "the command was stopped by %s: it probably ran out of stack or memory "
		    "(--max-memory %llu)", WIFSIGNALED(status) ? signame(WTERMSIG(status)) :
		    "a fault", (unsigned long long)(l->max_memory >> 20));
	} else if (WIFEXITED(status) &&
	    (WEXITSTATUS(status) == X_CHILD_NOMEM || WEXITSTATUS(status) == AI_EXIT_OSERR)) {
		ai_err_set(e, AI_EXIT_LIMIT,
		    "the command needed more than the limit of %llu MiB of memory (--max-memory)",
		    (unsigned long long)(l->max_memory >> 20));
	} else {
		ai_err_set(e, AI_EXIT_SOFTWARE, "the execution ended unexpectedly (status %d)",
		    WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
	}
}

int
x_execute(const struct x_policy *pol, const struct x_pipeline *pl, uint64_t start,
    uint64_t size, struct x_result *r)
{
	struct ai_buf msg = AI_BUF_INIT(pol->lim.max_size + 4 * X_MAX_STDERR + (8u << 20));
	int64_t t0 = ai_now_ms(), deadline = t0 + (int64_t)pol->lim.timeout_ms;
	int fds[2], status = 0, timed_out, rc;
	pid_t pid, parent = getpid();

	memset(r, 0, sizeof(*r));
	r->ran = 1;
	r->start = start;
	r->out = ai_xstrdup("");
	if (lone_cat(pl)) {
		/*
		 * A lone "cat FILE" reads one page at its offset and parses nothing
		 * (no limit can be reached, no parser sees the data), so it needs no
		 * child: it is the most frequent call, and a fork costs a millisecond.
		 */
		run_pipeline(pol, (struct x_pipeline *)pl, start, size, deadline, &msg);
		timed_out = 0;
		rc = decode(&msg, r);
	} else {
		fflush(stdout);
		fflush(stderr);
		if (pipe2(fds, O_CLOEXEC) < 0) {
			ai_err_set(&r->err, AI_EXIT_OSERR, "cannot make a pipe: %s", strerror(errno));
			x_result_error(r, &r->err);
			return -1;
		}
		pid = fork();
		if (pid < 0) {
			ai_err_set(&r->err, AI_EXIT_OSERR, "cannot fork: %s", strerror(errno));
			close(fds[0]);
			close(fds[1]);
			x_result_error(r, &r->err);
			return -1;
		}
		if (pid == 0) {
			close(fds[0]);
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			if (getppid() != parent)
				_exit(AI_EXIT_SOFTWARE);
			/* the child owns its copy of the pipeline (compiled state goes in it) */
			child(pol, (struct x_pipeline *)pl, start, size, fds[1], deadline);
		}
		close(fds[1]);
		timed_out = collect(fds[0], &msg, deadline) == 1;
		if (timed_out)
			kill(pid, SIGKILL);
		close(fds[0]);
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		rc = !timed_out && WIFEXITED(status) && WEXITSTATUS(status) == 0 ? decode(&msg, r) :
		    -1;
	}
	ai_buf_release(&msg);
	r->duration_ms = ai_now_ms() - t0;
	if (rc < 0) {
		struct ai_err e = AI_ERR_INIT;

		ended(pol, status, timed_out, &e);
		x_result_error(r, &e);
		return 0;
	}
	if (r->aborted) {
		/* stopped: nothing of the output is kept */
		struct ai_err e = r->err;

		x_result_error(r, &e);
		return 0;
	}
	r->ok = !r->err.code;
	return 0;
}
