/*
 * outparse.c: known outputs read locally into short item lists
 * (structured beats raw, and costs the model fewer tokens).
 *
 * Three kinds, told from the program and its arguments before it runs:
 *   git_status  "git status --porcelain" (v1) or "--short": each entry's
 *               two status letters and path (and the path it came from,
 *               for a rename or a copy), and the branch line of -b;
 *   matches     "grep -n", "rg -n", "git grep -n": file, line, text (and
 *               column with --column);
 *   files       "ls" without a long format, "find" without -printf and the
 *               like, "rg --files", "rg -l", "grep -l", "git ls-files",
 *               "git diff --name-only": names (with the directory they were
 *               listed under, for ls -R or several directories).
 * Anything else gets no "parsed".  A parser never fails: a line it cannot
 * read is skipped.  It reads the kept standard output; items are capped,
 * "total" counts them all, and each text is cut at 512 bytes.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "prog.h"
#include "json.h"
#include "text.h"
#include "util.h"
#include "banned.h"

#define X_ITEM_TEXT 512

const char *
x_outkind_name(int kind)
{
	switch (kind) {
	case XP_GIT_STATUS:
		return "git_status";
	case XP_MATCHES:
		return "matches";
	case XP_FILES:
		return "files";
	default:
		return "none";
	}
}

/* ---- what the arguments say ---- */

struct seen {
	char shorts[128];        /* short options given */
	const char *longs[64];   /* long options given (name only, without "--") */
	size_t nlongs;
	const char *ops[16];     /* the first operands */
	size_t nops;             /* operands, all counted */
};

/*
 * Read args as a getopt program would, knowing which options take a value
 * (shortval: their letters; longval: their names).  Operands after the
 * first 16 are counted, not kept.
 */
static void
scan_args(char *const *args, size_t n, const char *shortval, const char *const *longval,
    struct seen *s)
{
	int endopts = 0;
	size_t i, k;

	memset(s, 0, sizeof(*s));
	for (i = 0; i < n; i++) {
		const char *a = args[i];

		if (endopts || a[0] != '-' || a[1] == '\0') {
			if (s->nops < AI_ARRAY_SIZE(s->ops))
				s->ops[s->nops] = a;
			s->nops++;
			continue;
		}
		if (strcmp(a, "--") == 0) {
			endopts = 1;
			continue;
		}
		if (a[1] == '-') {
			const char *name = a + 2, *eq = strchr(name, '=');
			size_t len = eq ? (size_t)(eq - name) : strlen(name);

			if (s->nlongs < AI_ARRAY_SIZE(s->longs))
				s->longs[s->nlongs++] = name;
			for (k = 0; longval != NULL && longval[k] != NULL; k++)
				if (!eq && strlen(longval[k]) == len && memcmp(longval[k], name, len) == 0)
					i++;
			continue;
		}
		for (k = 1; a[k]; k++) {
			unsigned char c = (unsigned char)a[k];

			if (c < 128)
				s->shorts[c] = 1;
			if (c < 128 && strchr(shortval, c) != NULL) {
				if (a[k + 1] == '\0')
					i++;
				break;
			}
		}
	}
}

static int
has_long(const struct seen *s, const char *name)
{
	size_t i, len = strlen(name);

	for (i = 0; i < s->nlongs; i++)
		if (strncmp(s->longs[i], name, len) == 0 &&
		    (s->longs[i][len] == '\0' || s->longs[i][len] == '='))
			return 1;
	return 0;
}

static int
has(const struct seen *s, char c, const char *name)
{
	return (c && s->shorts[(unsigned char)c]) || (name != NULL && has_long(s, name));
}

static void
hint_git(char *const *args, size_t n, struct x_outhint *h)
{
	static const char *const statval[] = { NULL };
	struct seen s;
	size_t i;

	if (n == 0)
		return;
	scan_args(args + 1, n - 1, "", statval, &s);
	if (strcmp(args[0], "status") == 0) {
		int porcelain = 0;

		for (i = 0; i < s.nlongs; i++)
			if (strcmp(s.longs[i], "porcelain") == 0 ||
			    strcmp(s.longs[i], "porcelain=v1") == 0 ||
			    strcmp(s.longs[i], "porcelain=1") == 0 || strcmp(s.longs[i], "short") == 0)
				porcelain = 1;
		if ((porcelain || s.shorts['s']) && !s.shorts['z'] && !s.shorts['v'] &&
		    !has_long(&s, "long") && !has_long(&s, "verbose") && !has_long(&s, "null"))
			h->kind = XP_GIT_STATUS;
	} else if (strcmp(args[0], "ls-files") == 0) {
		if (!s.shorts['s'] && !s.shorts['t'] && !s.shorts['v'] && !s.shorts['z'] &&
		    !s.shorts['u'] && !has_long(&s, "stage") && !has_long(&s, "debug") &&
		    !has_long(&s, "format") && !has_long(&s, "eol") && !has_long(&s, "unmerged") &&
		    !has_long(&s, "resolve-undo"))
			h->kind = XP_FILES;
		h->quoted = 1;
	} else if (strcmp(args[0], "diff") == 0 || strcmp(args[0], "show") == 0) {
		if (has_long(&s, "name-only") && !s.shorts['z'] && !has_long(&s, "stat"))
			h->kind = strcmp(args[0], "diff") == 0 ? XP_FILES : XP_NONE;
		h->quoted = 1;
	} else if (strcmp(args[0], "grep") == 0) {
		static const char *const gv[] = { "max-depth", "max-count", "after-context",
			"before-context", "context", "threads", "and", "or", NULL };

		scan_args(args + 1, n - 1, "eABCfm", gv, &s);
		if (s.shorts['l'] || s.shorts['L'] || has_long(&s, "files-with-matches") ||
		    has_long(&s, "name-only") || has_long(&s, "files-without-match")) {
			h->kind = XP_FILES;
			h->quoted = 1;
		} else if ((s.shorts['n'] || has_long(&s, "line-number")) && !s.shorts['c'] &&
		    !s.shorts['z'] && !s.shorts['h'] && !has_long(&s, "count") &&
		    !has_long(&s, "null") && !s.shorts['p'] && !s.shorts['W']) {
			h->kind = XP_MATCHES;
			h->with_file = 1;
			h->column = has_long(&s, "column");
		}
	}
}

/* The single file a grep or rg searches, or NULL (none, several, a directory). */
static const char *
single_file(const struct seen *s, size_t first, const char *cwd)
{
	struct ai_buf p = AI_BUF_INIT(AI_BUF_NOLIMIT);
	struct stat st;
	int reg;

	if (s->nops != first + 1 || first + 1 > AI_ARRAY_SIZE(s->ops))
		return NULL;
	if (s->ops[first][0] == '/')
		ai_buf_adds(&p, s->ops[first]);
	else
		ai_buf_addf(&p, "%s/%s", cwd, s->ops[first]);
	reg = stat(p.buf, &st) == 0 && !S_ISDIR(st.st_mode);
	ai_buf_release(&p);
	return reg ? s->ops[first] : NULL;
}

static void
hint_search(int rg, const char *cwd, char *const *args, size_t n, struct x_outhint *h)
{
	static const char *const rgval[] = { "regexp", "file", "glob", "iglob", "type",
		"type-not", "after-context", "before-context", "context", "max-count",
		"max-columns", "threads", "replace", "encoding", "max-depth", "max-filesize",
		"sort", "sortr", "color", "colors", "type-add", "type-clear", "ignore-file",
		"path-separator", "context-separator", "field-match-separator",
		"field-context-separator", "engine", "dfa-size-limit", "regex-size-limit", NULL };
	static const char *const grepval[] = { "regexp", "file", "max-count", "after-context",
		"before-context", "context", "include", "exclude", "exclude-dir", "exclude-from",
		"directories", "devices", "binary-files", "label", "group-separator", "color",
		"colour", NULL };
	struct seen s;
	size_t first;

	scan_args(args, n, rg ? "efgtTABCmMjrE" : "efmABCdD", rg ? rgval : grepval, &s);
	/* the pattern is the first operand unless -e or -f gave it */
	first = has(&s, 'e', "regexp") || has(&s, 'f', "file") ? 0 : 1;
	if (has(&s, 'l', "files-with-matches") || has(&s, 0, "files-without-match") ||
	    (rg && has(&s, 0, "files")) || (!rg && s.shorts['L'])) {
		h->kind = XP_FILES;
		return;
	}
	if (has(&s, 'c', "count") || has(&s, 0, "count-matches") || has(&s, 0, "json") ||
	    has(&s, 'b', "byte-offset") || has(&s, 0, "null") || (!rg && s.shorts['Z']) ||
	    (rg && s.shorts['0']) || has(&s, 'q', "quiet") || (rg && s.shorts['p']) ||
	    (rg && has(&s, 0, "pretty")) || (rg && has(&s, 0, "heading")))
		return;
	if (rg && has(&s, 0, "vimgrep")) {
		h->kind = XP_MATCHES;
		h->with_file = 1;
		h->column = 1;
		return;
	}
	if (!has(&s, 'n', "line-number") || (rg && has(&s, 'N', "no-line-number")))
		return;
	h->kind = XP_MATCHES;
	h->column = rg && has(&s, 0, "column");
	if (has(&s, 'H', "with-filename"))
		h->with_file = 1;
	else if (rg ? has(&s, 'I', "no-filename") : has(&s, 'h', "no-filename"))
		h->with_file = 0;
	else if (!rg && (has(&s, 'r', "recursive") || s.shorts['R']))
		h->with_file = 1;
	else
		h->with_file = (h->file = single_file(&s, first, cwd)) == NULL &&
		    (rg || s.nops > first + 1);
	if (h->with_file)
		h->file = NULL;
}

void
x_outhint(const char *prog, const char *cwd, char *const *args, size_t nargs, struct x_outhint *h)
{
	memset(h, 0, sizeof(*h));
	if (strcmp(prog, "git") == 0) {
		hint_git(args, nargs, h);
	} else if (strcmp(prog, "rg") == 0 || strcmp(prog, "grep") == 0) {
		hint_search(prog[0] == 'r', cwd, args, nargs, h);
	} else if (strcmp(prog, "ls") == 0) {
		static const char *const lsval[] = { "format", "sort", "time", "time-style",
			"block-size", "hide", "ignore", "indicator-style", "quoting-style", "tabsize",
			"width", "color", NULL };
		struct seen s;
		const char *c;

		scan_args(args, nargs, "ITw", lsval, &s);
		for (c = "lgonsimxCQbZ"; *c; c++)
			if (s.shorts[(unsigned char)*c])
				return;
		if (has_long(&s, "format") || has_long(&s, "full-time") || has_long(&s, "size") ||
		    has_long(&s, "inode") || has_long(&s, "numeric-uid-gid") ||
		    has_long(&s, "quote-name") || has_long(&s, "escape") || has_long(&s, "context") ||
		    has_long(&s, "zero") || has_long(&s, "author"))
			return;
		h->kind = XP_FILES;
		h->sections = s.shorts['R'] || has_long(&s, "recursive") || s.nops > 1;
	} else if (strcmp(prog, "find") == 0) {
		size_t i;

		for (i = 0; i < nargs; i++)
			if (strcmp(args[i], "-printf") == 0 || strcmp(args[i], "-print0") == 0 ||
			    strcmp(args[i], "-ls") == 0 || strncmp(args[i], "-fprint", 7) == 0 ||
			    strcmp(args[i], "-fls") == 0)
				return;
		h->kind = XP_FILES;
	}
}

/* ---- the parsers ---- */

/* A C-quoted string as git writes one ("a\tb\303\251"), from p[0] == '"'; *used: bytes read. */
static void
unquote(const char *p, size_t n, struct ai_buf *out, size_t *used)
{
	size_t i = 1;

	while (i < n && p[i] != '"') {
		char c = p[i++];

		if (c == '\\' && i < n) {
			c = p[i++];
			switch (c) {
			case 'a': c = '\a'; break;
			case 'b': c = '\b'; break;
			case 't': c = '\t'; break;
			case 'n': c = '\n'; break;
			case 'v': c = '\v'; break;
			case 'f': c = '\f'; break;
			case 'r': c = '\r'; break;
			default:
				if (c >= '0' && c <= '3' && i + 1 < n && p[i] >= '0' && p[i] <= '7' &&
				    p[i + 1] >= '0' && p[i + 1] <= '7') {
					c = (char)(((c - '0') << 6) | ((p[i] - '0') << 3) | (p[i + 1] - '0'));
					i += 2;
				}
				break;
			}
		}
		ai_buf_addc(out, c);
	}
	*used = i < n ? i + 1 : i;
}

/* A path as git prints it: quoted or not, ending at end or at " -> ". */
static size_t
git_path(const char *p, size_t n, int arrow, struct ai_buf *out)
{
	size_t used;

	if (n > 0 && p[0] == '"') {
		unquote(p, n, out, &used);
		return used;
	}
	if (arrow) {
		const char *a = memmem(p, n, " -> ", 4);

		if (a != NULL)
			n = (size_t)(a - p);
	}
	ai_buf_add(out, p, n);
	return n;
}

static void
add_text(cJSON *item, const char *key, const char *p, size_t n)
{
	x_json_addtext(item, key, p, n > X_ITEM_TEXT ? ai_utf8_cut(p, n, X_ITEM_TEXT) : n);
}

static int
digits(const char *p, size_t n)
{
	size_t i = 0;

	while (i < n && i < 15 && p[i] >= '0' && p[i] <= '9')
		i++;
	return (int)i;
}

static void
add_digits(cJSON *item, const char *key, const char *p, size_t n)
{
	double v = 0;
	size_t i;

	for (i = 0; i < n && i < 15; i++)
		v = v * 10 + (p[i] - '0');
	ai_json_addnum(item, key, v);
}

/* The number after word in [from, end), as key. */
static void
count_after(cJSON *obj, const char *key, const char *from, const char *end, const char *word)
{
	size_t wl = strlen(word);
	const char *w = memmem(from, (size_t)(end - from), word, wl);

	if (w != NULL)
		add_digits(obj, key, w + wl, (size_t)digits(w + wl, (size_t)(end - w - wl)));
}

/* "## main...origin/main [ahead 1, behind 2]" */
static void
git_branch(cJSON *parsed, const char *p, size_t n)
{
	cJSON *b = cJSON_CreateObject();
	const char *dots, *br;
	size_t name_end = n;

	if (n > 18 && memcmp(p, "No commits yet on ", 18) == 0) {
		p += 18;
		n -= 18;
		name_end = n;
	}
	br = memmem(p, n, " [", 2);
	dots = memmem(p, br ? (size_t)(br - p) : n, "...", 3);
	if (dots != NULL)
		name_end = (size_t)(dots - p);
	else if (br != NULL)
		name_end = (size_t)(br - p);
	add_text(b, "name", p, name_end);
	if (dots != NULL)
		add_text(b, "upstream", dots + 3, (size_t)((br ? br : p + n) - dots - 3));
	if (br != NULL) {
		count_after(b, "ahead", br, p + n, "ahead ");
		count_after(b, "behind", br, p + n, "behind ");
		if (memmem(br, (size_t)(p + n - br), "gone", 4) != NULL)
			ai_json_addbool(b, "gone", 1);
	}
	cJSON_AddItemToObject(parsed, "branch", b);
}

static cJSON *
git_status_item(const char *line, size_t len)
{
	struct ai_buf a = AI_BUF_INIT(AI_BUF_NOLIMIT), b = AI_BUF_INIT(AI_BUF_NOLIMIT);
	cJSON *item;
	int renamed = line[0] == 'R' || line[0] == 'C' || line[1] == 'R' || line[1] == 'C';
	size_t used;

	item = cJSON_CreateObject();
	add_text(item, "status", line, 2);
	used = git_path(line + 3, len - 3, renamed, &a);
	if (renamed && used + 3 + 4 <= len && memcmp(line + 3 + used, " -> ", 4) == 0) {
		git_path(line + 3 + used + 4, len - 3 - used - 4, 0, &b);
		add_text(item, "path", b.buf, b.len);
		add_text(item, "from", a.buf, a.len);
	} else {
		add_text(item, "path", a.buf, a.len);
	}
	ai_buf_release(&a);
	ai_buf_release(&b);
	return item;
}

/* "FILE:LINE:TEXT", "LINE:TEXT", with ":COLUMN" after LINE when asked. */
static cJSON *
match_item(const struct x_outhint *h, const char *line, size_t len)
{
	size_t at = 0, d, fend = 0;
	cJSON *item;

	if (h->with_file) {
		/* the first ":DIGITS:" ends the file name */
		for (at = 0; at < len; at++)
			if (line[at] == ':' && (d = (size_t)digits(line + at + 1, len - at - 1)) > 0 &&
			    at + 1 + d < len && line[at + 1 + d] == ':' && at > 0)
				break;
		if (at >= len)
			return NULL;
		fend = at;
		at++;
	}
	d = (size_t)digits(line + at, len - at);
	if (d == 0 || at + d >= len || line[at + d] != ':')
		return NULL;
	item = cJSON_CreateObject();
	if (h->with_file)
		add_text(item, "file", line, fend);
	else if (h->file != NULL)
		add_text(item, "file", h->file, strlen(h->file));
	add_digits(item, "line", line + at, d);
	at += d + 1;
	if (h->column) {
		d = (size_t)digits(line + at, len - at);
		if (d > 0 && at + d < len && line[at + d] == ':') {
			add_digits(item, "column", line + at, d);
			at += d + 1;
		}
	}
	add_text(item, "text", line + at, len - at);
	return item;
}

cJSON *
x_outparse(const struct x_outhint *h, const char *p, size_t n, size_t max)
{
	cJSON *parsed, *items;
	const char *line, *dir = NULL;
	size_t off = 0, len, total = 0, dirlen = 0;
	int block_start = 1;

	if (h->kind == XP_NONE)
		return NULL;
	parsed = cJSON_CreateObject();
	ai_json_addstr(parsed, "kind", x_outkind_name(h->kind));
	items = cJSON_CreateArray();
	while (off < n) {
		const char *lf = memchr(p + off, '\n', n - off);
		cJSON *item = NULL;

		line = p + off;
		len = lf ? (size_t)(lf - line) : n - off;
		off += len + (lf ? 1 : 0);

		if (len > 0 && line[len - 1] == '\r')
			len--;
		switch (h->kind) {
		case XP_GIT_STATUS:
			if (len >= 3 && memcmp(line, "## ", 3) == 0 &&
			    ai_json_get(parsed, "branch") == NULL)
				git_branch(parsed, line + 3, len - 3);
			else if (len >= 4 && line[2] == ' ' && line[0] != '#')
				item = git_status_item(line, len);
			break;
		case XP_MATCHES:
			if (!(len == 2 && memcmp(line, "--", 2) == 0))
				item = match_item(h, line, len);
			break;
		case XP_FILES:
			if (len == 0) {
				block_start = 1;
				break;
			}
			if (h->sections && block_start && line[len - 1] == ':') {
				dir = line;
				dirlen = len - 1;
				block_start = 0;
				break;
			}
			block_start = 0;
			item = cJSON_CreateObject();
			if (h->quoted && line[0] == '"') {
				struct ai_buf b = AI_BUF_INIT(AI_BUF_NOLIMIT);
				size_t used;

				unquote(line, len, &b, &used);
				add_text(item, "name", b.buf, b.len);
				ai_buf_release(&b);
			} else {
				add_text(item, "name", line, len);
			}
			if (dir != NULL)
				add_text(item, "dir", dir, dirlen);
			break;
		}
		if (item == NULL)
			continue;
		total++;
		if ((size_t)cJSON_GetArraySize(items) < max)
			cJSON_AddItemToArray(items, item);
		else
			cJSON_Delete(item);
	}
	ai_json_addnum(parsed, "total", (double)total);
	cJSON_AddItemToObject(parsed, "items", items);
	return parsed;
}
