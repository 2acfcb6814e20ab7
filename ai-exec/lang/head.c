/*
 * head.c: head and tail, which read no more than they need.
 *
 * head takes its first lines (or bytes) and then stops its input: a FILE
 * is read no further, and the stages before it stop too.  tail reads a
 * listed file (or a plain "cat FILE..." before it) from the end, backwards,
 * until it has its lines.  From the previous stage's output tail keeps the
 * last lines only; "-n -N" (head) and "+N" (tail) stream.  Several FILEs
 * get GNU's "==> FILE <==" headers; -z makes NUL the end of a line.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lang.h"
#include "util.h"
#include "banned.h"

#define BACK (64u << 10)   /* bytes read at a time from the end of a file */

struct ht_rt {
	uint64_t left;         /* lines or bytes still to pass on (head), to skip (tail +N) */
	struct ai_buf held;    /* what is kept until the input ends */
	int inputs;            /* inputs begun, for the headers */
};

static int
ht_prepare(struct x_stage *st, struct x_run *x, struct ai_err *e)
{
	struct ht_rt *rt = ai_xcalloc(1, sizeof(*rt));

	(void)x;
	(void)e;
	ai_buf_init(&rt->held, AI_BUF_NOLIMIT);
	st->rt = rt;
	return 0;
}

static void
ht_release(struct x_stage *st)
{
	struct ht_rt *rt = st->rt;

	ai_buf_release(&rt->held);
	free(rt);
	st->rt = NULL;
}

/* A new input: its header when there are several FILEs (or -v). */
static int
ht_begin(struct x_stage *st, struct x_run *x, const char *name)
{
	const struct x_opts_ht *o = st->priv;
	struct ht_rt *rt = st->rt;

	ai_buf_reset(&rt->held);
	if (st->b->id == XB_HEAD)
		rt->left = o->count;
	else
		rt->left = o->count > 0 ? o->count - 1 : 0;
	if (st->b->id == XB_TAIL && o->count == 0 && !o->from_start)
		return XR_OK; /* GNU's tail prints nothing at all, not even the header */
	if (o->headers == 1 || (o->headers < 0 && st->nfiles > 1)) {
		if (x_emitf(x, st, "%s==> %s <==\n", rt->inputs > 0 ? "\n" : "",
		    name ? name : "standard input") == XR_ABORT)
			return XR_ABORT;
	}
	rt->inputs++;
	return XR_OK;
}

/* Offset just past the first count lines of p[0..n), and how many were found. */
static size_t
first_lines(const char *p, size_t n, unsigned char eol, uint64_t *count)
{
	size_t off = 0;

	while (*count > 0 && off < n) {
		const char *lf = memchr(p + off, eol, n - off);

		if (lf == NULL)
			return n;
		off = (size_t)(lf - p) + 1;
		(*count)--;
	}
	return off;
}

/* Where the last count lines of p[0..n) start (a last line without its end counts). */
static size_t
last_lines(const char *p, size_t n, unsigned char eol, uint64_t count)
{
	size_t end = n;

	if (count == 0)
		return n;
	if (end > 0 && (unsigned char)p[end - 1] == eol)
		end--;
	while (end > 0) {
		const char *lf = memrchr(p, eol, end);

		if (lf == NULL)
			return 0;
		if (--count == 0)
			return (size_t)(lf - p) + 1;
		end = (size_t)(lf - p);
	}
	return 0;
}

/* ---- head ---- */

static int
head_feed(struct x_stage *st, struct x_run *x, const char *p, size_t n)
{
	const struct x_opts_ht *o = st->priv;
	struct ht_rt *rt = st->rt;
	size_t take;

	if (o->all_but) {
		ai_buf_add(&rt->held, p, n);
		return XR_OK;
	}
	if (rt->left == 0)
		return XR_STOP;
	if (o->bytes) {
		take = rt->left < n ? (size_t)rt->left : n;
		rt->left -= take;
	} else {
		take = first_lines(p, n, o->eol, &rt->left);
	}
	if (x_emit(x, st, p, take) != XR_OK)
		return XR_STOP;
	return rt->left == 0 ? XR_STOP : XR_OK;
}

static int
head_finish(struct x_stage *st, struct x_run *x)
{
	const struct x_opts_ht *o = st->priv;
	struct ht_rt *rt = st->rt;
	size_t end;

	if (!o->all_but)
		return XR_OK;
	if (o->bytes)
		end = o->count < rt->held.len ? rt->held.len - (size_t)o->count : 0;
	else
		end = last_lines(rt->held.buf, rt->held.len, o->eol, o->count);
	return x_emit(x, st, rt->held.buf, end) == XR_ABORT ? XR_ABORT : XR_OK;
}

const struct x_rt x_rt_head = {
	.prepare = ht_prepare,
	.begin = ht_begin,
	.feed = head_feed,
	.finish = head_finish,
	.release = ht_release,
};

/* ---- tail ---- */

static int
tail_feed(struct x_stage *st, struct x_run *x, const char *p, size_t n)
{
	const struct x_opts_ht *o = st->priv;
	struct ht_rt *rt = st->rt;

	if (o->count == 0 && !o->from_start)
		return XR_STOP;
	if (o->from_start) {
		size_t skip;

		if (o->bytes) {
			skip = rt->left < n ? (size_t)rt->left : n;
			rt->left -= skip;
		} else {
			skip = first_lines(p, n, o->eol, &rt->left);
			if (rt->left > 0)
				skip = n;
		}
		return x_emit(x, st, p + skip, n - skip) == XR_OK ? XR_OK : XR_STOP;
	}
	ai_buf_add(&rt->held, p, n);
	/* keep what the last lines can need, and a little more */
	if (rt->held.len > (4u << 20)) {
		size_t from;

		if (o->bytes)
			from = o->count < rt->held.len ? rt->held.len - (size_t)o->count : 0;
		else
			from = last_lines(rt->held.buf, rt->held.len, o->eol,
			    o->count < UINT64_MAX ? o->count + 1 : o->count);
		if (from > rt->held.len / 2)
			ai_buf_consume(&rt->held, from);
	}
	return XR_OK;
}

static int
tail_finish(struct x_stage *st, struct x_run *x)
{
	const struct x_opts_ht *o = st->priv;
	struct ht_rt *rt = st->rt;
	size_t from;

	if (o->from_start)
		return XR_OK;
	if (o->bytes)
		from = o->count < rt->held.len ? rt->held.len - (size_t)o->count : 0;
	else
		from = last_lines(rt->held.buf, rt->held.len, o->eol, o->count);
	return x_emit(x, st, rt->held.buf + from, rt->held.len - from) == XR_ABORT ? XR_ABORT :
	    XR_OK;
}

/* Listed files as one input, read at offsets of their concatenation. */
struct span {
	const int *files;
	size_t n;
	uint64_t *size;
	uint64_t total;
};

static int
span_read(struct x_run *x, const struct x_stage *who, const struct span *s, char *buf,
    size_t len, uint64_t off)
{
	size_t i;
	uint64_t base = 0;

	for (i = 0; i < s->n && len > 0; i++) {
		if (off < base + s->size[i]) {
			uint64_t at = off - base;
			size_t take = s->size[i] - at < len ? (size_t)(s->size[i] - at) : len, got;

			if (x_file_pread(x, who, s->files[i], buf, take, at, &got) < 0)
				return -1;
			if (got < take)
				memset(buf + got, 0, take - got); /* the file shrank meanwhile */
			buf += take;
			len -= take;
			off += take;
		}
		base += s->size[i];
	}
	return 0;
}

/* tail of listed files: from the end, backwards, as far as the lines need. */
static int
tail_read(struct x_stage *st, struct x_run *x, const int *files, size_t n)
{
	const struct x_opts_ht *o = st->priv;
	const struct x_stage *who = files == st->in_files && st->in_reader ? st->in_reader : st;
	struct span s = { files, n, NULL, 0 };
	uint64_t from = 0, pos, count = o->count;
	size_t i;
	int rc = XR_OK;

	if (o->from_start && !o->bytes) {
		/* it is reading from the start: a stream, like any input */
		s.size = NULL;
		for (i = 0; i < n && rc == XR_OK; i++) {
			uint64_t size, off = 0;

			if (x_file_open(x, who, files[i], &size) < 0)
				return XR_ABORT;
			while (off < size && rc == XR_OK) {
				size_t want = size - off < BACK ? (size_t)(size - off) : BACK, got;

				if (x_file_pread(x, who, files[i], x->chunk, want, off, &got) < 0)
					return XR_ABORT;
				if (got == 0)
					break;
				off += got;
				rc = tail_feed(st, x, x->chunk, got);
			}
		}
		return x->abort.code ? XR_ABORT : XR_OK;
	}
	s.size = ai_xcalloc(n ? n : 1, sizeof(*s.size));
	for (i = 0; i < n; i++) {
		if (x_file_open(x, who, files[i], &s.size[i]) < 0) {
			free(s.size);
			return XR_ABORT;
		}
		s.total += s.size[i];
	}
	if (o->bytes) {
		from = o->from_start ? (o->count > 0 ? o->count - 1 : 0) :
		    o->count < s.total ? s.total - o->count : 0;
		if (from > s.total)
			from = s.total;
	} else if (count == 0) {
		from = s.total;
	} else {
		int last_byte = 1;

		size_t piece = 4096;

		/* backwards, a piece at a time (growing to 64 KiB), counting line ends */
		pos = s.total;
		from = 0;
		while (pos > 0) {
			size_t len = pos < piece ? (size_t)pos : piece, k;

			if (piece < BACK)
				piece *= 2;

			if (span_read(x, who, &s, x->chunk, len, pos - len) < 0) {
				free(s.size);
				return XR_ABORT;
			}
			for (k = len; k-- > 0;) {
				if ((unsigned char)x->chunk[k] != o->eol)
					continue;
				if (last_byte && pos - len + k == s.total - 1)
					continue; /* the last line's own end */
				if (--count == 0) {
					from = pos - len + k + 1;
					goto found;
				}
			}
			last_byte = 0;
			pos -= len;
		}
	}
found:
	/* forwards from there */
	for (pos = from; pos < s.total;) {
		size_t len = s.total - pos < BACK ? (size_t)(s.total - pos) : BACK;

		if (span_read(x, who, &s, x->chunk, len, pos) < 0) {
			free(s.size);
			return XR_ABORT;
		}
		if (x_emit(x, st, x->chunk, len) != XR_OK)
			break;
		pos += len;
	}
	free(s.size);
	return x->abort.code ? XR_ABORT : XR_OK;
}

const struct x_rt x_rt_tail = {
	.prepare = ht_prepare,
	.begin = ht_begin,
	.feed = tail_feed,
	.finish = tail_finish,
	.read = tail_read,
	.release = ht_release,
};
