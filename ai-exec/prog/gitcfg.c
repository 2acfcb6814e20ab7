/*
 * gitcfg.c: running git without letting its configuration run programs or
 * read files.
 *
 * git reads its system, global and repository configuration, and many keys
 * name programs it then runs (a pager, an fsmonitor hook, an external diff,
 * hooks, an SSH command, filter, diff and merge drivers, a remote's upload
 * program, credential helpers...) or files it reads (an ignore-revisions
 * list that git blame quotes when it cannot parse it, an order file, a
 * template, cookies, keys).  A repository unpacked from an archive, or one
 * the model could write to, would run them on a plain "git status".  So
 * ai-exec runs git with the system and global files ignored, with every
 * such key overridden at the command line's level (which git reads last),
 * and with the keys of the repository's own named sections (drivers,
 * remotes, per-URL http and credential settings, submodules) overridden one
 * by one: it reads the repository's configuration files itself, as git
 * reads them (a UTF-8 byte-order mark skipped, CRLF line ends, includes
 * followed whatever their condition), for their names.  The repository is
 * found as git finds it, and refused when it leads out of the root: a
 * configuration that moves the work tree (core.worktree), a ".git" that is
 * a symbolic link, or a "gitdir:" file or a "commondir" naming a directory
 * outside the root.
 *
 * The scanner follows git-config(1)'s syntax; what it cannot read git
 * refuses too ("bad config line"), and it keeps every section header it
 * sees, so it errs on the side of overriding more.  The sandbox is the
 * boundary (bwrap.c): this is the second wall.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "prog.h"
#include "io.h"
#include "util.h"
#include "banned.h"

#define X_GIT_MAX_DRIVERS 256
#define X_GIT_MAX_INCLUDES 64
#define X_GIT_MAX_DEPTH 10          /* as git's include depth */
#define X_GIT_MAX_CONFIG ((size_t)1 << 20)

/*
 * git's overrides, given in the environment (GIT_CONFIG_COUNT, read as the
 * command line's "-c"): every key that names a program it may run, and what
 * keeps it from paging, prompting, signing or colouring.
 */
static const char *const overrides[] = {
	"core.pager=cat",
	"core.fsmonitor=false",
	"core.hooksPath=/dev/null",
	"core.sshCommand=ssh",
	"core.editor=:",
	"sequence.editor=:",
	"core.askPass=",
	"credential.helper=",
	"core.alternateRefsCommand=",
	"core.gitProxy=none",
	"diff.external=",
	"protocol.ext.allow=never",
	"log.showSignature=false",
	"commit.gpgSign=false",
	"tag.gpgSign=false",
	"gpg.program=gpg",
	"gpg.openpgp.program=gpg",
	"gpg.x509.program=gpgsm",
	"gpg.ssh.program=ssh-keygen",
	"gc.auto=0",
	"maintenance.auto=false",
	"safe.bareRepository=explicit",
	"color.ui=false",
	/* files git reads (and may quote) */
	"blame.ignoreRevsFile=",
	"core.excludesFile=/dev/null",
	"core.attributesFile=/dev/null",
	"diff.orderFile=/dev/null",
	"commit.template=",
	"mailmap.file=/dev/null",
	"init.templateDir=",
	"gpg.ssh.allowedSignersFile=",
	"gpg.ssh.revocationFile=",
	"http.cookieFile=",
	"http.saveCookies=false",
	"http.sslCert=",
	"http.sslKey=",
	"http.proxySSLCert=",
	"http.proxySSLKey=",
	"uploadpack.packObjectsHook=",
	/* nothing runs in submodules behind the call's back */
	"submodule.recurse=false",
	"fetch.recurseSubmodules=false",
	"push.recurseSubmodules=no",
	NULL
};

/*
 * The keys of a named section ("[remote \"origin\"]") that name a program or
 * a file, and what they are set to: for each of the repository's names.
 */
static const struct {
	const char *section;
	const char *const *kv;   /* key, value, key, value..., NULL */
} named[] = {
	{ "filter", (const char *const[]){ "clean", "", "smudge", "", "process", "",
		"required", "false", NULL } },
	{ "diff", (const char *const[]){ "textconv", "", "command", "", NULL } },
	{ "merge", (const char *const[]){ "driver", "", NULL } },
	{ "http", (const char *const[]){ "cookieFile", "", "saveCookies", "false", "sslCert", "",
		"sslKey", "", "proxySSLCert", "", "proxySSLKey", "", NULL } },
	{ "credential", (const char *const[]){ "helper", "", NULL } },
	{ "submodule", (const char *const[]){ "update", "checkout", NULL } },
};

const char *const x_git_env[] = {
	"GIT_CONFIG_NOSYSTEM=1",
	"GIT_CONFIG_GLOBAL=/dev/null",
	"GIT_ATTR_NOSYSTEM=1",
	"GIT_OPTIONAL_LOCKS=0",
	"GIT_TERMINAL_PROMPT=0",
	"GIT_PAGER=cat",
	"GIT_EDITOR=:",
	NULL
};

/* ---- argument vectors ---- */

void
x_argv_add(struct x_argv *a, const char *s)
{
	a->v = ai_xrealloc(a->v, (a->n + 2) * sizeof(*a->v));
	a->v[a->n++] = ai_xstrdup(s);
	a->v[a->n] = NULL;
}

void
x_argv_addf(struct x_argv *a, const char *fmt, ...)
{
	struct ai_buf b = AI_BUF_INIT(AI_BUF_NOLIMIT);
	char tmp[PATH_MAX + 256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	ai_buf_adds(&b, tmp);
	a->v = ai_xrealloc(a->v, (a->n + 2) * sizeof(*a->v));
	a->v[a->n++] = ai_buf_detach(&b, NULL);
	a->v[a->n] = NULL;
}

void
x_argv_free(struct x_argv *a)
{
	size_t i;

	for (i = 0; i < a->n; i++)
		free(a->v[i]);
	free(a->v);
	a->v = NULL;
	a->n = 0;
}

/* ---- the scanner ---- */

void
x_gitcfg_free(struct x_gitcfg *g)
{
	size_t i;

	for (i = 0; i < g->ndrivers; i++)
		free(g->drivers[i]);
	for (i = 0; i < g->nincludes; i++)
		free(g->includes[i]);
	for (i = 0; i < g->nfiles; i++)
		free(g->files[i]);
	free(g->drivers);
	free(g->includes);
	free(g->files);
	free(g->outside);
	free(g->unsafe);
	memset(g, 0, sizeof(*g));
}

static void
add_str(char ***v, size_t *n, size_t max, const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < *n; i++)
		if (strlen((*v)[i]) == len && memcmp((*v)[i], s, len) == 0)
			return;
	if (*n >= max)
		return;
	*v = ai_xrealloc(*v, (*n + 1) * sizeof(**v));
	(*v)[(*n)++] = ai_xmemdup(s, len);
}

static int
keychar(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	    c == '-';
}

static int
lower(int c)
{
	return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

/* The index of section in named[], or -1. */
static int
named_section(const char *section)
{
	size_t i;

	for (i = 0; i < AI_ARRAY_SIZE(named); i++)
		if (strcmp(named[i].section, section) == 0)
			return (int)i;
	return -1;
}

struct scan {
	const char *p;
	size_t n, i;
	char section[64];
	struct ai_buf sub;     /* the subsection, as git keys it */
	int has_sub;
	struct x_gitcfg *g;
};

static void
skip_line(struct scan *s)
{
	while (s->i < s->n && s->p[s->i] != '\n')
		s->i++;
}

/* "[section]", "[section \"sub\"]" or "[section.sub]"; 0, or -1 when malformed. */
static int
header(struct scan *s)
{
	size_t len = 0;
	char *dot;

	s->i++; /* '[' */
	s->has_sub = 0;
	ai_buf_reset(&s->sub);
	s->section[0] = '\0';
	while (s->i < s->n) {
		int c = (unsigned char)s->p[s->i++];

		if (c == ']')
			break;
		if (c == ' ' || c == '\t') {
			/* the extended form: spaces, then a quoted subsection */
			while (s->i < s->n && (s->p[s->i] == ' ' || s->p[s->i] == '\t'))
				s->i++;
			if (s->i >= s->n || s->p[s->i] != '"')
				return -1;
			s->i++;
			while (s->i < s->n && s->p[s->i] != '"') {
				c = (unsigned char)s->p[s->i++];
				if (c == '\n')
					return -1;
				if (c == '\\') {
					if (s->i >= s->n || s->p[s->i] == '\n')
						return -1;
					c = (unsigned char)s->p[s->i++];
				}
				ai_buf_addc(&s->sub, c);
			}
			if (s->i + 1 >= s->n || s->p[s->i + 1] != ']')
				return -1;
			s->i += 2;
			s->has_sub = 1;
			break;
		}
		if (!keychar(c) && c != '.')
			return -1;
		if (len + 1 >= sizeof(s->section))
			return -1;
		s->section[len++] = (char)lower(c);
		s->section[len] = '\0';
	}
	/* the old dotted form: lower case throughout */
	dot = strchr(s->section, '.');
	if (dot != NULL && !s->has_sub) {
		ai_buf_adds(&s->sub, dot + 1);
		*dot = '\0';
		s->has_sub = 1;
	}
	if (s->has_sub && memchr(s->sub.buf, '\0', s->sub.len) == NULL &&
	    named_section(s->section) >= 0) {
		struct ai_buf d = AI_BUF_INIT(AI_BUF_NOLIMIT);

		ai_buf_addf(&d, "%s.", s->section);
		ai_buf_add(&d, s->sub.buf, s->sub.len);
		if (s->g->ndrivers >= X_GIT_MAX_DRIVERS)
			s->g->overflow = 1;
		add_str(&s->g->drivers, &s->g->ndrivers, X_GIT_MAX_DRIVERS, d.buf, d.len);
		ai_buf_release(&d);
	}
	return 0;
}

/* A value as git reads it: quotes, escapes, continued lines, comments. */
static void
value(struct scan *s, struct ai_buf *v)
{
	int quoted = 0;
	size_t spaces = 0;

	while (s->i < s->n && (s->p[s->i] == ' ' || s->p[s->i] == '\t'))
		s->i++;
	while (s->i < s->n) {
		int c = (unsigned char)s->p[s->i++];

		if (c == '\n' && !quoted)
			break;
		if (c == '\n')
			break; /* git refuses it; stop */
		if (!quoted && (c == ' ' || c == '\t')) {
			spaces++;
			continue;
		}
		if (!quoted && (c == '#' || c == ';')) {
			skip_line(s);
			break;
		}
		for (; spaces > 0; spaces--)
			ai_buf_addc(v, ' ');
		if (c == '"') {
			quoted = !quoted;
			continue;
		}
		if (c == '\\' && s->i < s->n) {
			c = (unsigned char)s->p[s->i++];
			if (c == '\n')
				continue;
			c = c == 'n' ? '\n' : c == 't' ? '\t' : c == 'b' ? '\b' : c;
		}
		ai_buf_addc(v, c);
	}
}

/* "name = value" or "name" in the current section. */
static void
variable(struct scan *s)
{
	char key[64];
	size_t len = 0;
	struct ai_buf v = AI_BUF_INIT(PATH_MAX);

	while (s->i < s->n && keychar((unsigned char)s->p[s->i])) {
		if (len + 1 < sizeof(key))
			key[len++] = (char)lower((unsigned char)s->p[s->i]);
		s->i++;
	}
	key[len] = '\0';
	while (s->i < s->n && (s->p[s->i] == ' ' || s->p[s->i] == '\t'))
		s->i++;
	if (s->i < s->n && s->p[s->i] == '=') {
		s->i++;
		value(s, &v);
	} else {
		skip_line(s);
	}
	if (strcmp(s->section, "core") == 0 && !s->has_sub && strcmp(key, "worktree") == 0)
		s->g->worktree = 1;
	/* a program git runs and takes the first of: cannot be overridden, so refused */
	if (strcmp(s->section, "remote") == 0 && s->has_sub && s->g->unsafe == NULL &&
	    (strcmp(key, "uploadpack") == 0 || strcmp(key, "receivepack") == 0)) {
		struct ai_buf k = AI_BUF_INIT(AI_BUF_NOLIMIT);

		ai_buf_adds(&k, "remote.");
		ai_buf_add(&k, s->sub.buf, s->sub.len);
		ai_buf_addf(&k, ".%s", key);
		s->g->unsafe = ai_buf_detach(&k, NULL);
	}
	/* a file git reads and cannot be told to forget (blame keeps it, whatever comes later) */
	if (strcmp(s->section, "blame") == 0 && !s->has_sub && strcmp(key, "ignorerevsfile") == 0 &&
	    v.len > 0 && memchr(v.buf, '\0', v.len) == NULL)
		add_str(&s->g->files, &s->g->nfiles, X_GIT_MAX_INCLUDES, v.buf, v.len);
	/* a NUL ends the C string git would use: no path of ours holds one */
	if (strcmp(key, "path") == 0 && v.len > 0 && memchr(v.buf, '\0', v.len) == NULL &&
	    ((strcmp(s->section, "include") == 0 && !s->has_sub) ||
	    (strcmp(s->section, "includeif") == 0 && s->has_sub)))
		add_str(&s->g->includes, &s->g->nincludes, X_GIT_MAX_INCLUDES, v.buf, v.len);
	ai_buf_release(&v);
}

void
x_gitcfg_scan(const char *p, size_t n, struct x_gitcfg *g)
{
	struct ai_buf text = AI_BUF_INIT(AI_BUF_NOLIMIT);
	struct scan s;
	size_t i;

	/* as git reads it: a byte-order mark at the start skipped, CRLF an LF */
	if (n >= 3 && memcmp(p, "\xef\xbb\xbf", 3) == 0) {
		p += 3;
		n -= 3;
	}
	for (i = 0; i < n; i++)
		if (!(p[i] == '\r' && i + 1 < n && p[i + 1] == '\n'))
			ai_buf_addc(&text, p[i]);
	memset(&s, 0, sizeof(s));
	s.p = text.len ? text.buf : "";
	s.n = text.len;
	s.g = g;
	ai_buf_init(&s.sub, 4096);
	while (s.i < s.n) {
		int c = (unsigned char)s.p[s.i];

		if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
			s.i++;
		} else if (c == '#' || c == ';') {
			skip_line(&s);
		} else if (c == '[') {
			if (header(&s) < 0)
				skip_line(&s);
		} else if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) {
			variable(&s);
		} else {
			skip_line(&s);
		}
	}
	ai_buf_release(&s.sub);
	ai_buf_release(&text);
}

/* ---- the files ---- */

static void scan_file(const char *path, int depth, struct x_gitcfg *g);

static void
scan_includes(const char *from, const struct x_gitcfg *found, int depth, struct x_gitcfg *g)
{
	const char *slash = strrchr(from, '/');
	size_t i;

	for (i = 0; i < found->nincludes; i++) {
		const char *inc = found->includes[i];
		struct ai_buf path = AI_BUF_INIT(AI_BUF_NOLIMIT);
		const char *home = getenv("HOME");

		if (inc[0] == '~' && inc[1] == '/' && home != NULL)
			ai_buf_addf(&path, "%s%s", home, inc + 1);
		else if (inc[0] == '/')
			ai_buf_adds(&path, inc);
		else
			ai_buf_addf(&path, "%.*s/%s", slash ? (int)(slash - from) : 1,
			    slash ? from : ".", inc);
		scan_file(path.buf, depth + 1, g);
		ai_buf_release(&path);
	}
}

static void
scan_file(const char *path, int depth, struct x_gitcfg *g)
{
	struct ai_buf text = AI_BUF_INIT(X_GIT_MAX_CONFIG);
	struct ai_err e = AI_ERR_INIT;
	struct x_gitcfg found;
	struct stat st;
	size_t i;
	int fd;

	if (depth > X_GIT_MAX_DEPTH)
		return;
	/* a FIFO or a device named as a config file must not hang or touch anything */
	if (stat(path, &st) < 0 || !S_ISREG(st.st_mode))
		return;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return;
	if (ai_read_fd(fd, &text, path, &e) < 0)
		g->overflow = 1; /* too big to read: too big to trust */
	close(fd);
	memset(&found, 0, sizeof(found));
	x_gitcfg_scan(text.buf, text.len, &found);
	ai_buf_release(&text);
	for (i = 0; i < found.ndrivers; i++)
		add_str(&g->drivers, &g->ndrivers, X_GIT_MAX_DRIVERS, found.drivers[i],
		    strlen(found.drivers[i]));
	g->worktree |= found.worktree;
	if (g->unsafe == NULL && found.unsafe != NULL) {
		g->unsafe = found.unsafe;
		found.unsafe = NULL;
	}
	for (i = 0; i < found.nfiles; i++)
		add_str(&g->files, &g->nfiles, X_GIT_MAX_INCLUDES, found.files[i],
		    strlen(found.files[i]));
	g->overflow |= found.overflow || found.ndrivers + g->ndrivers > 2 * X_GIT_MAX_DRIVERS;
	scan_includes(path, &found, depth, g);
	x_gitcfg_free(&found);
}

/* path, resolved, must lie inside the root (a path that does not exist leads nowhere). */
static int
leads_out(const char *root, const char *path, struct x_gitcfg *g, const char *what)
{
	char *real = realpath(path, NULL);
	int out = real != NULL && !x_inside_root(root, "/", real);

	if (out && g->outside == NULL) {
		struct ai_buf m = AI_BUF_INIT(AI_BUF_NOLIMIT);

		ai_buf_addf(&m, "%s '%s' leads to '%s',", what, path, real);
		g->outside = ai_buf_detach(&m, NULL);
	}
	free(real);
	return out;
}

/* A git directory's configuration: its own, its worktree's, its common directory's. */
static void
scan_gitdir(const char *root, const char *dir, struct x_gitcfg *g)
{
	struct ai_buf p = AI_BUF_INIT(AI_BUF_NOLIMIT), common = AI_BUF_INIT(PATH_MAX);
	struct ai_err e = AI_ERR_INIT;

	if (leads_out(root, dir, g, "the git directory"))
		goto out;
	ai_buf_addf(&p, "%s/config", dir);
	scan_file(p.buf, 0, g);
	ai_buf_reset(&p);
	ai_buf_addf(&p, "%s/config.worktree", dir);
	scan_file(p.buf, 0, g);
	ai_buf_reset(&p);
	ai_buf_addf(&p, "%s/commondir", dir);
	if (ai_read_file(p.buf, &common, PATH_MAX - 1, &e) == 0 && common.len > 0) {
		while (common.len > 0 && (common.buf[common.len - 1] == '\n' ||
		    common.buf[common.len - 1] == '\r'))
			ai_buf_truncate(&common, common.len - 1);
		ai_buf_reset(&p);
		if (common.buf[0] == '/')
			ai_buf_adds(&p, common.buf);
		else
			ai_buf_addf(&p, "%s/%s", dir, common.buf);
		if (leads_out(root, p.buf, g, "the common directory"))
			goto out;
		ai_buf_adds(&p, "/config");
		scan_file(p.buf, 0, g);
	}
out:
	ai_buf_release(&p);
	ai_buf_release(&common);
}

/* A ".git" file: "gitdir: PATH", PATH relative to the file's directory. */
static void
scan_gitfile(const char *root, const char *dir, const char *file, struct x_gitcfg *g)
{
	struct ai_buf f = AI_BUF_INIT(PATH_MAX), p = AI_BUF_INIT(AI_BUF_NOLIMIT);
	struct ai_err e = AI_ERR_INIT;

	if (ai_read_file(file, &f, PATH_MAX - 1, &e) == 0 && strncmp(f.buf, "gitdir:", 7) == 0) {
		const char *t = f.buf + 7;
		size_t tl;

		while (*t == ' ')
			t++;
		tl = strcspn(t, "\r\n");
		if (t[0] == '/')
			ai_buf_addf(&p, "%.*s", (int)tl, t);
		else
			ai_buf_addf(&p, "%s/%.*s", dir, (int)tl, t);
		scan_gitdir(root, p.buf, g);
	}
	ai_buf_release(&f);
	ai_buf_release(&p);
}

/*
 * The repository git would find from cwd, looked for as git does (a ".git"
 * directory or a symbolic link to one, a ".git" file naming one, a
 * directory that is one), no higher than the root (GIT_CEILING_DIRECTORIES
 * keeps git there too).
 */
static void
scan_repo(const char *root, const char *cwd, struct x_gitcfg *g)
{
	struct ai_buf d = AI_BUF_INIT(AI_BUF_NOLIMIT), p = AI_BUF_INIT(AI_BUF_NOLIMIT);
	size_t rootlen = strlen(root);

	ai_buf_adds(&d, cwd);
	for (;;) {
		struct stat st;

		ai_buf_reset(&p);
		ai_buf_addf(&p, "%s/.git", d.len > 1 ? d.buf : "");
		/* git follows a symbolic link: so does the scan, and the link must stay inside */
		if (lstat(p.buf, &st) == 0 && S_ISLNK(st.st_mode) &&
		    leads_out(root, p.buf, g, "'.git', a symbolic link,"))
			break;
		if (stat(p.buf, &st) == 0 && S_ISDIR(st.st_mode)) {
			char *real = realpath(p.buf, NULL);

			scan_gitdir(root, real ? real : p.buf, g);
			free(real);
			break;
		}
		if (stat(p.buf, &st) == 0 && S_ISREG(st.st_mode)) {
			scan_gitfile(root, d.buf, p.buf, g);
			break;
		}
		ai_buf_reset(&p);
		ai_buf_addf(&p, "%s/HEAD", d.len > 1 ? d.buf : "");
		if (lstat(p.buf, &st) == 0 && S_ISREG(st.st_mode)) {
			ai_buf_reset(&p);
			ai_buf_addf(&p, "%s/objects", d.len > 1 ? d.buf : "");
			if (stat(p.buf, &st) == 0 && S_ISDIR(st.st_mode)) {
				scan_gitdir(root, d.buf, g);
				break;
			}
		}
		if (d.len <= rootlen || d.len <= 1)
			break;
		{
			char *slash = memrchr(d.buf, '/', d.len);

			ai_buf_truncate(&d, slash && slash != d.buf ? (size_t)(slash - d.buf) : 1);
		}
	}
	ai_buf_release(&d);
	ai_buf_release(&p);
}

int
x_git_setup(const char *root, const char *cwd, const char *sub, struct x_argv *env,
    struct ai_err *e)
{
	static const char *const remote_subs[] = { "fetch", "pull", "push", "clone", "ls-remote",
		"remote", "submodule", "archive", NULL };
	struct x_gitcfg g;
	size_t i, n = 0;

	memset(&g, 0, sizeof(g));
	scan_repo(root, cwd, &g);
	for (i = 0; i < g.nfiles && g.outside == NULL; i++) {
		/* as git takes the path: "~/" from the home, relative from the working directory */
		struct ai_buf p = AI_BUF_INIT(AI_BUF_NOLIMIT);
		const char *home = getenv("HOME"), *f = g.files[i];

		if (f[0] == '~' && f[1] == '/')
			ai_buf_addf(&p, "%s%s", home ? home : "", f + 1);
		else
			ai_buf_adds(&p, f);
		if (!x_inside_root(root, cwd, p.buf)) {
			struct ai_buf m = AI_BUF_INIT(AI_BUF_NOLIMIT);

			ai_buf_addf(&m, "blame.ignoreRevsFile '%s' names a file", f);
			g.outside = ai_buf_detach(&m, NULL);
		}
		ai_buf_release(&p);
	}
	if (g.outside != NULL) {
		ai_err_set(e, AI_EXIT_POLICY, "git: %s outside the root: git would read %s (rule "
		    "'git': built in)", g.outside, strncmp(g.outside, "blame.", 6) == 0 ? "it" :
		    "another repository");
		x_gitcfg_free(&g);
		return -1;
	}
	for (i = 0; g.unsafe != NULL && remote_subs[i] != NULL; i++)
		if (sub != NULL && strcmp(sub, remote_subs[i]) == 0)
			break;
	if (g.unsafe != NULL && remote_subs[i] != NULL) {
		ai_err_set(e, AI_EXIT_POLICY, "git: the repository's configuration sets %s: git "
		    "would run the program it names, and takes the first it is given (rule 'git': "
		    "built in)", g.unsafe);
		x_gitcfg_free(&g);
		return -1;
	}
	if (g.worktree || g.overflow) {
		int wt = g.worktree;

		x_gitcfg_free(&g);
		return ai_err_set(e, AI_EXIT_POLICY, "git: %s (rule 'git': built in)", wt ?
		    "the repository's configuration sets core.worktree: git would work on files "
		    "outside the root" :
		    "the repository's configuration is too large or names too many drivers");
	}
	for (i = 0; x_git_env[i] != NULL; i++)
		x_argv_add(env, x_git_env[i]);
	/* git stops looking for the repository at the root */
	if (strcmp(root, "/") != 0) {
		const char *slash = strrchr(root, '/');

		x_argv_addf(env, "GIT_CEILING_DIRECTORIES=%.*s", slash == root ? 1 : (int)(slash - root),
		    root);
	}
	/* key and value apart: a section's name may hold '=', which "-c" would split on */
	for (i = 0; overrides[i] != NULL; i++) {
		const char *eq = strchr(overrides[i], '=');

		x_argv_addf(env, "GIT_CONFIG_KEY_%zu=%.*s", n, (int)(eq - overrides[i]), overrides[i]);
		x_argv_addf(env, "GIT_CONFIG_VALUE_%zu=%s", n++, eq + 1);
	}
	for (i = 0; i < g.ndrivers; i++) {
		const char *dot = strchr(g.drivers[i], '.');
		char section[16];
		int k;
		size_t j;

		snprintf(section, sizeof(section), "%.*s", (int)(dot - g.drivers[i]), g.drivers[i]);
		if ((k = named_section(section)) < 0)
			continue;
		for (j = 0; named[k].kv[j] != NULL; j += 2) {
			x_argv_addf(env, "GIT_CONFIG_KEY_%zu=%s.%s", n, g.drivers[i],
			    named[k].kv[j]);
			x_argv_addf(env, "GIT_CONFIG_VALUE_%zu=%s", n++, named[k].kv[j + 1]);
		}
	}
	x_argv_addf(env, "GIT_CONFIG_COUNT=%zu", n);
	x_gitcfg_free(&g);
	return 0;
}

void
x_git_after(const char *sub, struct x_argv *a)
{
	if (strcmp(sub, "diff") == 0 || strcmp(sub, "log") == 0 || strcmp(sub, "show") == 0) {
		x_argv_add(a, "--no-ext-diff");
		x_argv_add(a, "--no-textconv");
	} else if (strcmp(sub, "blame") == 0 || strcmp(sub, "grep") == 0) {
		x_argv_add(a, "--no-textconv");
	}
}
