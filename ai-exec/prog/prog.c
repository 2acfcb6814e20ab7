/*
 * prog.c: the policy of programs (--policy FILE), ai-exec(1) "Policy".
 *
 * The file is strict JSON; every key must be known, so that a misspelt rule
 * never silently allows more than meant.  It is refused when others can
 * change it.  Each program is resolved once, here, to the real path of the
 * first executable of its name in the policy's directories; that file and
 * every directory above it must belong to root and be writable by no one
 * else.  The current directory and relative directories are never searched,
 * and PATH is never read.  A program that is not found is kept: calling it
 * is "unavailable", and refusing it (L2) still works.
 *
 * What the rules mean is decide.c's; what is built in (git's overrides,
 * sed --sandbox, rg --no-config, find's -exec and the like refused) comes
 * from the name of the real path, so a policy cannot forget it.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "prog.h"
#include "io.h"
#include "json.h"
#include "util.h"
#include "banned.h"

#define X_POLICY_MAX ((size_t)1 << 20)

static const char *const default_dirs[] = { "/usr/bin", "/bin", NULL };

/* find's actions that run programs, delete or write files: refused whatever the policy says. */
static const struct {
	const char *spell, *why;
} find_deny[] = {
	{ "-exec", "runs a program" },
	{ "-execdir", "runs a program" },
	{ "-ok", "runs a program" },
	{ "-okdir", "runs a program" },
	{ "-delete", "deletes files" },
	{ "-fprint", "writes a file" },
	{ "-fprint0", "writes a file" },
	{ "-fprintf", "writes a file" },
	{ "-fls", "writes a file" },
};

const char *
x_level_name(int level)
{
	static const char *const names[] = { "L0", "L1", "L2" };

	return level >= 0 && level <= 2 ? names[level] : "none";
}

static const char *
default_why(int level)
{
	switch (level) {
	case XL_L0:
		return "reads only";
	case XL_L1:
		return "may write, use the network or take much time";
	default:
		return "destroys or raises privileges";
	}
}

int
x_trusted(const char *real, const char **why, char *where, size_t wsz)
{
	char path[PATH_MAX];
	size_t len = strlen(real), i;

	if (real[0] != '/' || len >= sizeof(path)) {
		*why = "is not an absolute path";
		snprintf(where, wsz, "%s", real);
		return 0;
	}
	/* "/", then each prefix ending before a '/', then the whole path */
	for (i = 0; i <= len; i++) {
		struct stat st;

		if (i != 0 && i != len && real[i] != '/')
			continue;
		if (i == len && len == 1)
			break;
		memcpy(path, real, i ? i : 1);
		path[i ? i : 1] = '\0';
		if (lstat(path, &st) < 0) {
			*why = "cannot be examined";
			snprintf(where, wsz, "%s", path);
			return 0;
		}
		if (st.st_uid != 0) {
			*why = "does not belong to root";
			snprintf(where, wsz, "%s", path);
			return 0;
		}
		if (!S_ISLNK(st.st_mode) && (st.st_mode & (S_IWGRP | S_IWOTH))) {
			*why = S_ISDIR(st.st_mode) && (st.st_mode & S_ISVTX) ?
			    "is writable by others (sticky, as /tmp)" : "is writable by group or others";
			snprintf(where, wsz, "%s", path);
			return 0;
		}
	}
	return 1;
}

/* ---- loading ---- */

struct loader {
	struct x_progs *ps;
	const char *file;
	struct ai_err *e;
};

static int
bad(struct loader *ld, const char *where, const char *fmt, ...) AI_PRINTF(3, 4);

static int
bad(struct loader *ld, const char *where, const char *fmt, ...)
{
	char msg[AI_ERR_MSG_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return ai_err_set(ld->e, AI_EXIT_CONFIG, "policy '%s': %s: %s", ld->file, where, msg);
}

/* Every member of obj must be one of keys ("comment" always is). */
static int
known_keys(struct loader *ld, const cJSON *obj, const char *where, const char *const *keys)
{
	const cJSON *m;

	if (!cJSON_IsObject(obj))
		return bad(ld, where, "must be an object");
	cJSON_ArrayForEach(m, obj) {
		size_t i;

		if (strcmp(m->string, "comment") == 0)
			continue;
		for (i = 0; keys[i] != NULL; i++)
			if (strcmp(m->string, keys[i]) == 0)
				break;
		if (keys[i] == NULL) {
			char ex[64];
			struct ai_buf list = AI_BUF_INIT(1024);
			int rc;

			for (i = 0; keys[i] != NULL; i++)
				ai_buf_addf(&list, "%s%s", i ? ", " : "", keys[i]);
			ai_excerpt(m->string, strlen(m->string), ex, sizeof(ex));
			rc = bad(ld, where, "unknown key '%s' (known: %s, comment)", ex, list.buf);
			ai_buf_release(&list);
			return rc;
		}
	}
	return 0;
}

static int
level_of(struct loader *ld, const cJSON *v, const char *where, int *out)
{
	const char *s = cJSON_IsString(v) ? v->valuestring : "";

	if (strcmp(s, "L0") == 0)
		*out = XL_L0;
	else if (strcmp(s, "L1") == 0)
		*out = XL_L1;
	else if (strcmp(s, "L2") == 0)
		*out = XL_L2;
	else
		return bad(ld, where, "a level is \"L0\", \"L1\" or \"L2\"");
	return 0;
}

static int
opt_char(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	    c == '-' || c == '_' || c == '.' || c == '+';
}

/* "-x", "--name", "-name": a dash or two, then letters, digits and -_.+ */
static int
valid_spell(const char *s, size_t n)
{
	size_t i = s[0] == '-' && n > 1 && s[1] == '-' ? 2 : 1;

	if (n <= i || s[0] != '-' || s[i] == '-')
		return 0;
	for (; i < n; i++)
		if (!opt_char((unsigned char)s[i]))
			return 0;
	return 1;
}

static int
valid_value_name(const char *s, size_t n)
{
	size_t i;

	if (n == 0)
		return 0;
	for (i = 0; i < n; i++)
		if (!((s[i] >= 'A' && s[i] <= 'Z') || (i > 0 && ((s[i] >= '0' && s[i] <= '9') ||
		    s[i] == '_' || s[i] == '-'))))
			return 0;
	return 1;
}

/* "options[3]", for a message: made only when one is needed. */
static const char *
at(char *w, size_t n, const char *list, size_t idx)
{
	if (snprintf(w, n, "%s[%zu]", list, idx) >= (int)n)
		w[n - 1] = '\0';
	return w;
}

/*
 * An option as the policy writes it: "-l", "--all", "-n N", "--max-count=N",
 * "-name PATTERN", "--color[=WHEN]", "-u[MODE]", "-NUM".  A value named
 * TEXT is not a path; CHDIR is the directory the paths after it are
 * relative to ("tar -C CHDIR"); DATA is text that names a file with "@"
 * ("curl -d @FILE", "-F NAME=@FILE").
 */
static int
parse_optspec(struct loader *ld, char *s, const char *list, size_t idx, struct x_optrule *o)
{
	char where[512];
	const char *sp = strchr(s, ' '), *eq = strchr(s, '='), *br = strchr(s, '[');
	const char *val = NULL;
	size_t n, vn = 0;

	memset(o, 0, sizeof(*o));
	o->level = -1;
	if (strcmp(s, "-NUM") == 0) {
		o->spell = s;
		o->arity = XA_NUMBER;
		return 0;
	}
	if (br != NULL) {
		/* "-u[MODE]" or "--color[=WHEN]" */
		size_t len = strlen(s);

		n = (size_t)(br - s);
		val = br + 1;
		if (n > 2 && s[1] == '-') {
			if (*val != '=')
				return bad(ld, at(where, sizeof(where), list, idx), "'%s': an optional value is written --name[=VALUE]", s);
			val++;
		}
		if (len < 2 || s[len - 1] != ']')
			return bad(ld, at(where, sizeof(where), list, idx), "'%s': an optional value ends with ']'", s);
		vn = (size_t)(s + len - 1 - val);
		o->arity = XA_OPTVAL;
	} else if (sp != NULL) {
		n = (size_t)(sp - s);
		val = sp + 1;
		vn = strlen(val);
		o->arity = XA_VALUE;
	} else if (eq != NULL) {
		n = (size_t)(eq - s);
		val = eq + 1;
		vn = strlen(val);
		if (n < 3 || s[1] != '-')
			return bad(ld, at(where, sizeof(where), list, idx), "'%s': only a long option is written --name=VALUE", s);
		o->arity = XA_VALUE;
	} else {
		n = strlen(s);
		o->arity = XA_FLAG;
	}
	if (!valid_spell(s, n))
		return bad(ld, at(where, sizeof(where), list, idx), "'%s' is not an option (-x, --name or -name, then ' VALUE', "
		    "'=VALUE' or '[=VALUE]')", s);
	if (val != NULL && !valid_value_name(val, vn))
		return bad(ld, at(where, sizeof(where), list, idx), "'%s': a value's name is in capitals (N, FILE, TEXT)", s);
	o->text = val != NULL && vn == 4 && memcmp(val, "TEXT", 4) == 0;
	o->chdir = val != NULL && vn == 5 && memcmp(val, "CHDIR", 5) == 0;
	o->data = val != NULL && vn == 4 && memcmp(val, "DATA", 4) == 0;
	/* the spelling, cut out of the document's string where the value begins */
	s[n] = '\0';
	o->spell = s;
	return 0;
}

static void
optrule_free(struct x_optrule *o)
{
	free(o->rule);
}

static void
denyrule_free(struct x_denyrule *d)
{
	free(d->spell);
	free(d->why);
	free(d->rule);
}

static void
cmd_free(struct x_cmd *c)
{
	size_t i;

	for (i = 0; i < c->nopts; i++)
		optrule_free(&c->opts[i]);
	for (i = 0; i < c->ndeny; i++)
		denyrule_free(&c->deny[i]);
	free(c->opts);
	free(c->deny);
	free(c->rule);
	free(c->why);
	memset(c, 0, sizeof(*c));
}

static char *
dupf(const char *fmt, ...) AI_PRINTF(1, 2);

static char *
dupf(const char *fmt, ...)
{
	struct ai_buf b = AI_BUF_INIT(AI_BUF_NOLIMIT);
	char tmp[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	ai_buf_adds(&b, tmp);
	return ai_buf_detach(&b, NULL);
}

static int
load_options(struct loader *ld, const cJSON *arr, const char *where, struct x_cmd *c)
{
	static const char *const keys[] = { "option", "level", "why", NULL };
	const cJSON *it;
	char w[512];
	size_t i = 0;

	if (!cJSON_IsArray(arr))
		return bad(ld, where, "must be an array of options");
	c->opts = ai_xcalloc((size_t)cJSON_GetArraySize(arr) + 1, sizeof(*c->opts));
	cJSON_ArrayForEach(it, arr) {
		struct x_optrule *o = &c->opts[c->nopts];
		const cJSON *spec = it, *lv = NULL, *why = NULL;
		size_t idx = i++;

		if (cJSON_IsObject(it)) {
			if (known_keys(ld, it, at(w, sizeof(w), where, idx), keys) < 0)
				return -1;
			spec = ai_json_get(it, "option");
			lv = ai_json_get(it, "level");
			why = ai_json_get(it, "why");
		}
		if (!cJSON_IsString(spec))
			return bad(ld, at(w, sizeof(w), where, idx),
			    "an option is a string, or an object with \"option\"");
		if (parse_optspec(ld, spec->valuestring, where, idx, o) < 0)
			return -1;
		c->nopts++;
		if (lv != NULL && level_of(ld, lv, at(w, sizeof(w), where, idx), &o->level) < 0)
			return -1;
		if (why != NULL && !cJSON_IsString(why))
			return bad(ld, at(w, sizeof(w), where, idx), "\"why\" must be a string");
		o->why = why != NULL ? why->valuestring : NULL;
		/* a name of its own only for an option that can decide the level */
		if (o->level >= 0)
			o->rule = dupf("%s %s", c->rule, o->spell);
	}
	return 0;
}

static void
add_deny(struct x_cmd *c, const char *spell, int prefix, const char *why)
{
	struct x_denyrule *d;

	c->deny = ai_xrealloc(c->deny, (c->ndeny + 1) * sizeof(*c->deny));
	d = &c->deny[c->ndeny++];
	d->spell = ai_xstrdup(spell);
	d->prefix = prefix;
	d->why = why != NULL ? ai_xstrdup(why) : NULL;
	d->rule = dupf("%s deny %s%s", c->rule, spell, prefix ? "*" : "");
}

static int
load_deny(struct loader *ld, const cJSON *arr, const char *where, struct x_cmd *c)
{
	static const char *const keys[] = { "option", "prefix", "why", NULL };
	const cJSON *it;
	char w[512];
	size_t i = 0;

	if (!cJSON_IsArray(arr))
		return bad(ld, where, "must be an array of options");
	cJSON_ArrayForEach(it, arr) {
		const cJSON *spec = it, *why = NULL;
		char *s;
		size_t n;
		int prefix = 0;

		if (snprintf(w, sizeof(w), "%s[%zu]", where, i++) >= (int)sizeof(w))
			w[sizeof(w) - 1] = '\0';
		if (cJSON_IsObject(it)) {
			if (known_keys(ld, it, w, keys) < 0)
				return -1;
			spec = ai_json_get(it, "option");
			why = ai_json_get(it, "why");
			if (why != NULL && !cJSON_IsString(why))
				return bad(ld, w, "\"why\" must be a string");
			if ((prefix = ai_json_bool(it, "prefix", 0)) < 0)
				return bad(ld, w, "\"prefix\" must be true or false");
		}
		if (!cJSON_IsString(spec))
			return bad(ld, w, "a denied option is a string, or an object with \"option\"");
		n = strlen(spec->valuestring);
		if (n > 0 && spec->valuestring[n - 1] == '*') {
			prefix = 1;
			n--;
		}
		s = ai_xmemdup(spec->valuestring, n);
		if (!valid_spell(s, n)) {
			free(s);
			return bad(ld, w, "'%s' is not an option (a trailing '*' denies a prefix)",
			    spec->valuestring);
		}
		add_deny(c, s, prefix, why ? why->valuestring : NULL);
		free(s);
	}
	return 0;
}

/* The members a program and a subcommand share: level, why, options, deny, operands. */
static int
load_cmd(struct loader *ld, const cJSON *obj, const char *where, int inherit, struct x_cmd *c)
{
	const cJSON *v;
	char w[512];

	c->level = -1;
	c->max_operands = -1;
	c->network = -1;
	if ((v = ai_json_get(obj, "network")) != NULL &&
	    (c->network = ai_json_bool(obj, "network", 0)) < 0)
		return bad(ld, where, "\"network\" must be true or false");
	if ((v = ai_json_get(obj, "level")) != NULL) {
		snprintf(w, sizeof(w), "%s.level", where);
		if (level_of(ld, v, w, &c->level) < 0)
			return -1;
	} else {
		c->level = inherit;
	}
	if ((v = ai_json_get(obj, "why")) != NULL) {
		if (!cJSON_IsString(v))
			return bad(ld, where, "\"why\" must be a string");
		c->why = ai_xstrdup(v->valuestring);
	}
	if ((v = ai_json_get(obj, "options")) != NULL) {
		snprintf(w, sizeof(w), "%s.options", where);
		if (load_options(ld, v, w, c) < 0)
			return -1;
	}
	if ((v = ai_json_get(obj, "deny")) != NULL) {
		snprintf(w, sizeof(w), "%s.deny", where);
		if (load_deny(ld, v, w, c) < 0)
			return -1;
	}
	if ((v = ai_json_get(obj, "operands")) != NULL) {
		uint64_t n;

		if (ai_json_u64(obj, "operands", &n) <= 0 || n > 4096)
			return bad(ld, where, "\"operands\" is the largest number of operands, 0 to 4096");
		c->max_operands = (int64_t)n;
	}
	return 0;
}

/* Whether dir is one of the policy's directories (real paths, already trusted). */
static int
known_dir(const struct x_progs *ps, const char *dir, size_t n)
{
	size_t i;

	for (i = 0; i < ps->ndirs; i++)
		if (strlen(ps->dirs[i]) == n && memcmp(ps->dirs[i], dir, n) == 0)
			return 1;
	return 0;
}

/*
 * The real path of a program's file in a trusted place, or NULL (not
 * found).  A file found in one of the policy's directories that is not a
 * symbolic link is its own real path and needs no walk up again: resolving
 * a hundred programs costs a system call or two each.
 */
static int
resolve(struct loader *ld, struct x_prog *p, const cJSON *explicit_path, const char *where)
{
	char where_bad[PATH_MAX + 32];
	const char *why, *slash;
	char *real = NULL;
	struct stat st;
	int have = 0, ok;
	size_t i;

	if (explicit_path != NULL) {
		const char *s = cJSON_IsString(explicit_path) ? explicit_path->valuestring : "";

		if (s[0] != '/')
			return bad(ld, where, "\"path\" must be an absolute path");
		real = realpath(s, NULL);
		if (real == NULL)
			return bad(ld, where, "\"path\" '%s': %s", s, strerror(errno));
	} else {
		for (i = 0; i < ld->ps->ndirs && real == NULL; i++) {
			struct ai_buf cand = AI_BUF_INIT(AI_BUF_NOLIMIT);

			ai_buf_addf(&cand, "%s/%s", ld->ps->dirs[i], p->name);
			if (lstat(cand.buf, &st) == 0) {
				if (S_ISLNK(st.st_mode)) {
					real = realpath(cand.buf, NULL);
				} else {
					real = ai_buf_detach(&cand, NULL);
					have = 1;
				}
			}
			ai_buf_release(&cand);
		}
		if (real == NULL)
			return 0;
	}
	if ((!have && stat(real, &st) < 0) || !S_ISREG(st.st_mode) || !(st.st_mode & 0111)) {
		bad(ld, where, "'%s' resolves to '%s', which is not an executable file", p->name, real);
		free(real);
		return -1;
	}
	slash = strrchr(real, '/');
	if (known_dir(ld->ps, real, (size_t)(slash - real))) {
		ok = st.st_uid == 0 && !(st.st_mode & (S_IWGRP | S_IWOTH));
		why = st.st_uid != 0 ? "does not belong to root" : "is writable by group or others";
		snprintf(where_bad, sizeof(where_bad), "%s", real);
	} else {
		ok = x_trusted(real, &why, where_bad, sizeof(where_bad));
	}
	if (!ok) {
		bad(ld, where, "'%s' resolves to '%s', which is not trusted: '%s' %s", p->name, real,
		    where_bad, why);
		free(real);
		return -1;
	}
	p->path = real;
	return 0;
}

/*
 * What a confined program may execute besides itself: the interpreter of an
 * ELF file (PT_INTERP) or of a "#!" script, and that interpreter's own.
 */
char *
x_interpreter(const char *path)
{
	unsigned char h[4096];
	char name[PATH_MAX];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);

	if (fd < 0)
		return NULL;
	n = read(fd, h, sizeof(h));
	name[0] = '\0';
	if (n >= 2 && h[0] == '#' && h[1] == '!') {
		ssize_t i = 2, j = 0;

		while (i < n && (h[i] == ' ' || h[i] == '\t'))
			i++;
		while (i < n && h[i] != ' ' && h[i] != '\t' && h[i] != '\n' && j < PATH_MAX - 1)
			name[j++] = (char)h[i++];
		name[j] = '\0';
	} else if (n >= 64 && memcmp(h, "\177ELF", 4) == 0 && h[4] == 2 /* 64-bit */ &&
	    h[5] == 1 /* little-endian */) {
		uint64_t phoff;
		uint16_t phentsize, phnum, k;

		memcpy(&phoff, h + 32, 8);
		memcpy(&phentsize, h + 54, 2);
		memcpy(&phnum, h + 56, 2);
		for (k = 0; k < phnum && phentsize >= 56; k++) {
			unsigned char ph[56];
			uint32_t type;
			uint64_t off, sz;

			if (pread(fd, ph, sizeof(ph), (off_t)(phoff + (uint64_t)k * phentsize)) !=
			    (ssize_t)sizeof(ph))
				break;
			memcpy(&type, ph, 4);
			if (type != 3 /* PT_INTERP */)
				continue;
			memcpy(&off, ph + 8, 8);
			memcpy(&sz, ph + 32, 8);
			if (sz > 1 && sz < sizeof(name) &&
			    pread(fd, name, (size_t)sz, (off_t)off) == (ssize_t)sz)
				name[sz - 1] = '\0';
			break;
		}
	}
	close(fd);
	return name[0] == '/' ? realpath(name, NULL) : NULL;
}

static int
harden_of(const char *real)
{
	const char *base = strrchr(real, '/');

	base = base ? base + 1 : real;
	if (strcmp(base, "git") == 0)
		return XH_GIT;
	if (strcmp(base, "sed") == 0)
		return XH_SED;
	if (strcmp(base, "rg") == 0)
		return XH_RG;
	if (strcmp(base, "find") == 0)
		return XH_FIND;
	if (strcmp(base, "ln") == 0)
		return XH_LN;
	return XH_NONE;
}

static int
valid_name(const char *s)
{
	size_t i;

	if (s[0] == '\0' || s[0] == '-' || s[0] == '.' || strlen(s) > 64)
		return 0;
	for (i = 0; s[i]; i++)
		if (!opt_char((unsigned char)s[i]))
			return 0;
	return 1;
}

static int
load_program(struct loader *ld, const cJSON *obj, struct x_prog *p)
{
	static const char *const keys[] = {
		"path", "level", "why", "options", "deny", "operands", "subcommands", "groups",
		"double_dash", "ok_status", "network", NULL
	};
	static const char *const subkeys[] = { "level", "why", "options", "deny", "operands",
		"network", NULL };
	char where[160], w[512];
	const cJSON *subs, *ok;
	size_t i;

	snprintf(where, sizeof(where), "programs.%s", p->name);
	if (!valid_name(p->name))
		return bad(ld, where, "a program is named by letters, digits and -_.+ (no '/')");
	if (known_keys(ld, obj, where, keys) < 0)
		return -1;
	p->cmd.rule = ai_xstrdup(p->name);
	if (load_cmd(ld, obj, where, -1, &p->cmd) < 0)
		return -1;
	if ((p->groups = ai_json_bool(obj, "groups", 1)) < 0)
		return bad(ld, where, "\"groups\" must be true or false");
	if ((p->dashdash = ai_json_bool(obj, "double_dash", 0)) < 0)
		return bad(ld, where, "\"double_dash\" must be true or false");
	p->ok[0] = 0;
	p->nok = 1;
	if ((ok = ai_json_get(obj, "ok_status")) != NULL) {
		const cJSON *v;

		if (!cJSON_IsArray(ok) || cJSON_GetArraySize(ok) < 1 ||
		    cJSON_GetArraySize(ok) > (int)AI_ARRAY_SIZE(p->ok))
			return bad(ld, where, "\"ok_status\" is an array of 1 to 8 exit statuses");
		p->nok = 0;
		cJSON_ArrayForEach(v, ok) {
			if (!cJSON_IsNumber(v) || v->valuedouble < 0 || v->valuedouble > 255 ||
			    v->valuedouble != (double)(int)v->valuedouble)
				return bad(ld, where, "\"ok_status\" is an array of exit statuses 0 to 255");
			p->ok[p->nok++] = (int)v->valuedouble;
		}
	}
	subs = ai_json_get(obj, "subcommands");
	if (subs != NULL) {
		const cJSON *s;

		snprintf(w, sizeof(w), "%s.subcommands", where);
		if (!cJSON_IsObject(subs) || cJSON_GetArraySize(subs) == 0)
			return bad(ld, w, "must be an object of one or more subcommands");
		p->subs = ai_xcalloc((size_t)cJSON_GetArraySize(subs), sizeof(*p->subs));
		cJSON_ArrayForEach(s, subs) {
			struct x_cmd *c = &p->subs[p->nsubs];

			snprintf(w, sizeof(w), "%s.subcommands.%s", where, s->string);
			if (s->string[0] == '\0' || s->string[0] == '-' || strchr(s->string, ' ') ||
			    strlen(s->string) > 64)
				return bad(ld, w, "a subcommand is a word that does not start with '-'");
			if (known_keys(ld, s, w, subkeys) < 0)
				return -1;
			c->rule = dupf("%s %s", p->name, s->string);
			p->nsubs++;
			if (load_cmd(ld, s, w, p->cmd.level, c) < 0)
				return -1;
			if (c->level < 0)
				return bad(ld, w, "no level: give one here or for the program");
			if (c->why == NULL && p->cmd.why != NULL)
				c->why = ai_xstrdup(p->cmd.why);
			if (c->network < 0)
				c->network = p->cmd.network;
		}
	} else if (p->cmd.level < 0) {
		return bad(ld, where, "no level (\"L0\", \"L1\" or \"L2\")");
	}
	/* a program that is refused whatever its arguments is never run: not looked for */
	if ((p->cmd.level != XL_L2 || p->nsubs > 0 || ai_json_get(obj, "path") != NULL) &&
	    resolve(ld, p, ai_json_get(obj, "path"), where) < 0)
		return -1;
	if (p->path != NULL)
		p->harden = harden_of(p->path);
	if (p->harden == XH_FIND)
		for (i = 0; i < AI_ARRAY_SIZE(find_deny); i++)
			add_deny(&p->cmd, find_deny[i].spell, 0, find_deny[i].why);
	return 0;
}

static int
load_dirs(struct loader *ld, const cJSON *arr)
{
	struct x_progs *ps = ld->ps;
	struct ai_buf search = AI_BUF_INIT(AI_BUF_NOLIMIT);
	const cJSON *it;
	size_t n = 0, i;
	char w[64];

	if (arr != NULL && (!cJSON_IsArray(arr) || cJSON_GetArraySize(arr) == 0))
		return bad(ld, "path", "must be an array of one or more directories");
	n = arr ? (size_t)cJSON_GetArraySize(arr) : AI_ARRAY_SIZE(default_dirs) - 1;
	ps->dirs = ai_xcalloc(n, sizeof(*ps->dirs));
	for (i = 0; i < n; i++) {
		const char *d, *why;
		char where_bad[PATH_MAX + 32], *real;

		it = arr ? cJSON_GetArrayItem(arr, (int)i) : NULL;
		d = arr ? (cJSON_IsString(it) ? it->valuestring : "") : default_dirs[i];
		snprintf(w, sizeof(w), "path[%zu]", i);
		if (d[0] != '/')
			return bad(ld, w, "'%s': only absolute directories are searched", d);
		real = realpath(d, NULL);
		if (real == NULL)
			continue; /* a directory that does not exist holds nothing */
		if (!x_trusted(real, &why, where_bad, sizeof(where_bad))) {
			bad(ld, w, "'%s' is not trusted: '%s' %s", d, where_bad, why);
			free(real);
			return -1;
		}
		{
			size_t k;

			for (k = 0; k < ps->ndirs && strcmp(ps->dirs[k], real) != 0; k++)
				;
			if (k < ps->ndirs) {
				free(real); /* /bin is /usr/bin */
				continue;
			}
		}
		ps->dirs[ps->ndirs++] = real;
		ai_buf_addf(&search, "%s%s", search.len ? ":" : "", real);
	}
	ps->search = ai_buf_detach(&search, NULL);
	return 0;
}

static int
cmp_names(const void *a, const void *b)
{
	return strcmp(((const struct x_prog *)a)->name, ((const struct x_prog *)b)->name);
}

/* The policy file: ours, or root's, and changed by no one else. */
static int
read_policy(struct loader *ld, struct ai_buf *text)
{
	struct stat st;
	int fd = open(ld->file, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY), rc;

	if (fd < 0)
		return ai_err_set(ld->e, AI_EXIT_CONFIG, "cannot open the policy '%s': %s", ld->file,
		    strerror(errno));
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return ai_err_set(ld->e, AI_EXIT_CONFIG, "the policy '%s' is not a regular file",
		    ld->file);
	}
	if (st.st_mode & (S_IWGRP | S_IWOTH)) {
		close(fd);
		return ai_err_set(ld->e, AI_EXIT_CONFIG,
		    "the policy '%s' can be changed by other users; run: chmod go-w '%s'", ld->file,
		    ld->file);
	}
	if (st.st_uid != 0 && st.st_uid != geteuid()) {
		close(fd);
		return ai_err_set(ld->e, AI_EXIT_CONFIG,
		    "the policy '%s' belongs to another user (uid %ld)", ld->file, (long)st.st_uid);
	}
	rc = ai_read_fd(fd, text, "the policy", ld->e);
	close(fd);
	if (rc < 0)
		ld->e->code = AI_EXIT_CONFIG;
	return rc;
}

/*
 * The document is parsed into an arena: thousands of small nodes and strings
 * that live exactly as long as the policy, allocated by bumping a pointer
 * and freed in one go (malloc and free for each were a third of the time
 * ai-exec --run spent before the program started).  cJSON's hooks are
 * global: they point here only while the policy is parsed.
 */
struct arena_block {
	struct arena_block *next;
	size_t used, size;
	max_align_t data[];
};

static struct arena_block *arena;

static void *
arena_alloc(size_t n)
{
	size_t need = (n + sizeof(max_align_t) - 1) / sizeof(max_align_t) * sizeof(max_align_t);
	struct arena_block *b = arena;

	if (b == NULL || b->size - b->used < need) {
		size_t size = need > ((size_t)64 << 10) ? need : (size_t)64 << 10;

		b = ai_xmalloc(sizeof(*b) + size);
		b->size = size;
		b->used = 0;
		b->next = arena;
		arena = b;
	}
	b->used += need;
	return (char *)b->data + b->used - need;
}

static void
arena_free(void *p)
{
	(void)p; /* the whole arena goes at once */
}

static void
arena_release(struct arena_block *b)
{
	while (b != NULL) {
		struct arena_block *next = b->next;

		free(b);
		b = next;
	}
}

/* Parse the policy's text into the arena; *blocks receives it (to arena_release). */
static cJSON *
parse_in_arena(const char *s, size_t n, struct arena_block **blocks, struct ai_err *e)
{
	cJSON_Hooks hooks = { arena_alloc, arena_free };
	cJSON *doc;

	arena = NULL;
	cJSON_InitHooks(&hooks);
	doc = ai_json_parse(s, n, e);
	ai_json_init();
	*blocks = arena;
	arena = NULL;
	return doc;
}

int
x_progs_load(struct x_progs *ps, const char *file, struct ai_err *e)
{
	static const char *const keys[] = { "aicli_policy", "path", "programs", NULL };
	struct loader ld = { ps, file, e };
	struct ai_buf text = AI_BUF_INIT(X_POLICY_MAX), names = AI_BUF_INIT(AI_BUF_NOLIMIT);
	const cJSON *progs, *p;
	cJSON *doc = NULL;
	uint64_t version;
	size_t i;
	int rc = -1;

	memset(ps, 0, sizeof(*ps));
	ps->file = ai_xstrdup(file);
	if (read_policy(&ld, &text) < 0)
		goto out;
	doc = parse_in_arena(text.buf, text.len, &ps->arena, e);
	if (doc == NULL) {
		ai_err_prefix(e, "policy '%s'", file);
		e->code = AI_EXIT_CONFIG;
		goto out;
	}
	if (known_keys(&ld, doc, "the top level", keys) < 0)
		goto out;
	if (ai_json_u64(doc, "aicli_policy", &version) <= 0 || version != 1) {
		bad(&ld, "aicli_policy", "must be 1 (the version of the format)");
		goto out;
	}
	if (load_dirs(&ld, ai_json_get(doc, "path")) < 0)
		goto out;
	progs = ai_json_get(doc, "programs");
	if (!cJSON_IsObject(progs)) {
		bad(&ld, "programs", "must be an object of programs");
		goto out;
	}
	ps->v = ai_xcalloc((size_t)cJSON_GetArraySize(progs) + 1, sizeof(*ps->v));
	cJSON_ArrayForEach(p, progs) {
		struct x_prog *x = &ps->v[ps->n++];

		x->name = ai_xstrdup(p->string);
		if (load_program(&ld, p, x) < 0)
			goto out;
	}
	qsort(ps->v, ps->n, sizeof(*ps->v), cmp_names);
	/* what a refusal offers instead: the programs that may run at all */
	for (i = 0; i < ps->n; i++)
		if (ps->v[i].cmd.level != XL_L2 || ps->v[i].nsubs > 0)
			ai_buf_addf(&names, "%s%s", names.len ? ", " : "", ps->v[i].name);
	if (names.len > 600) {
		char *cut = memrchr(names.buf, ',', 600);

		ai_buf_truncate(&names, cut ? (size_t)(cut - names.buf) : 600);
		ai_buf_adds(&names, ", ...");
	}
	ps->names = ai_buf_detach(&names, NULL);
	ps->doc = doc;
	rc = 0;
out:
	ai_buf_release(&text);
	ai_buf_release(&names);
	if (rc < 0)
		x_progs_free(ps);
	return rc;
}

void
x_progs_free(struct x_progs *ps)
{
	size_t i, j;

	for (i = 0; i < ps->n; i++) {
		struct x_prog *p = &ps->v[i];

		free(p->name);
		free(p->path);
		cmd_free(&p->cmd);
		for (j = 0; j < p->nsubs; j++)
			cmd_free(&p->subs[j]);
		free(p->subs);
	}
	for (i = 0; i < ps->ndirs; i++)
		free(ps->dirs[i]);
	free(ps->dirs);
	free(ps->v);
	free(ps->search);
	free(ps->names);
	free(ps->file);
	arena_release(ps->arena); /* the document: never cJSON_Delete'd */
	memset(ps, 0, sizeof(*ps));
}

const struct x_prog *
x_progs_find(const struct x_progs *ps, const char *name)
{
	size_t i;

	for (i = 0; i < ps->n; i++)
		if (strcmp(ps->v[i].name, name) == 0)
			return &ps->v[i];
	return NULL;
}

const char *
x_rule_why(const char *why, int level)
{
	return why != NULL ? why : default_why(level);
}
