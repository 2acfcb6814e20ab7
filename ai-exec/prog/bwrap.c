/*
 * bwrap.c: the sandbox every program runs in, made by bubblewrap (bwrap(1),
 * the tool Flatpak's sandbox is built on) rather than by namespace code of
 * our own.
 *
 * The program sees a file system of a fresh tmpfs, read-only itself, that
 * holds only:
 *  - /usr and the /bin, /sbin and /lib* links or directories, read-only,
 *    and the directories of the policy that lie elsewhere;
 *  - the few files of /etc a program needs (users and groups for names,
 *    the dynamic loader's cache, the time zone, the alternatives, name
 *    resolution and certificates for a program given the network), read-only;
 *  - the root, read-only at L0, writable at L1;
 *  - a private /tmp (its HOME and TMPDIR), a minimal /dev and a /proc of
 *    its own PID namespace;
 *  - ai-exec itself at X_HELPER, which confines and supervises it
 *    (confine.c).
 * The configuration files of the suite, and every hidden file of the home
 * directory when the root holds it (keys, shell history, other programs'
 * configuration), are masked: an empty file or a read-only empty directory
 * stands in their place, even when they lie under the root.
 *
 * It runs in new user, PID, IPC, UTS, cgroup and network namespaces (the
 * network namespace is shared only when its rule grants the network), with
 * no capability, in a new session (no terminal to push input into), with
 * user namespaces off inside, and it dies with ai-exec.
 *
 * bubblewrap is looked for at X_BWRAP only (never on PATH) and must be
 * trusted as the programs are (prog.c).  Run as a user other than root, it
 * needs unprivileged user namespaces (or a setuid bwrap): the start-up
 * check refuses (78) when the kernel says they are off, and a sandbox that
 * cannot start is a refusal with bubblewrap's own words.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "prog.h"
#include "config.h"
#include "util.h"
#include "banned.h"

#define X_NO_USERNS "bubblewrap needs user namespaces, and this system allows"
#define X_INSTALL_HINT "install it (Debian, Ubuntu: apt-get install bubblewrap; Fedora: dnf " \
	"install bubblewrap; Arch: pacman -S bubblewrap), or give --unconfined to run programs " \
	"with the argument checks alone"

/* The system's directories, read-only: a link stays a link. */
static const char *const system_dirs[] = {
	"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", NULL
};

/*
 * What of /etc a program needs; none holds a secret.  Few, since each is a
 * mount: names of users and groups, the dynamic loader's cache, the time
 * zone, and the links by which the system chooses its programs (cc, editor).
 */
static const char *const etc_files[] = {
	"/etc/passwd", "/etc/group", "/etc/nsswitch.conf", "/etc/ld.so.cache", "/etc/localtime",
	"/etc/alternatives", NULL
};

/* ... and for a program given the network. */
static const char *const etc_net[] = {
	"/etc/resolv.conf", "/etc/hosts", "/etc/host.conf", "/etc/gai.conf", "/etc/services",
	"/etc/protocols", "/etc/ssl", "/etc/ca-certificates", "/etc/pki", "/etc/crypto-policies",
	NULL
};

/* Whether path is dir or lies under it (both real). */
static int
under(const char *dir, const char *path)
{
	size_t n = strlen(dir);

	if (strcmp(dir, "/") == 0)
		return 1;
	return strncmp(path, dir, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

/* A sysctl that reads "0". */
static int
sysctl_off(const char *path)
{
	char v[16];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, v, sizeof(v) - 1) : -1;

	if (fd >= 0)
		close(fd);
	return n > 0 && v[0] == '0' && (n == 1 || v[1] == '\n');
}

int
x_sandbox_init(struct x_sandbox *sb, const struct x_progs *ps, struct ai_err *e)
{
	char where[PATH_MAX + 32], *sys[AI_ARRAY_SIZE(system_dirs)];
	const char *why;
	struct stat st;
	size_t i, k;

	memset(sb, 0, sizeof(sb[0]));
	if (stat(X_BWRAP, &st) < 0)
		return ai_err_set(e, AI_EXIT_CONFIG, "the run tool runs programs in bubblewrap, "
		    "which is not installed (%s: %s): %s", X_BWRAP, strerror(errno),
		    X_INSTALL_HINT);
	if (!S_ISREG(st.st_mode) || !(st.st_mode & 0111))
		return ai_err_set(e, AI_EXIT_CONFIG, "'%s' is not an executable file: %s", X_BWRAP,
		    X_INSTALL_HINT);
	if (!x_trusted(X_BWRAP, &why, where, sizeof(where)))
		return ai_err_set(e, AI_EXIT_CONFIG, "bubblewrap '%s' is not trusted: '%s' %s",
		    X_BWRAP, where, why);
	if (geteuid() != 0 && !(st.st_mode & S_ISUID)) {
		if (sysctl_off("/proc/sys/user/max_user_namespaces"))
			return ai_err_set(e, AI_EXIT_CONFIG, "%s none (user.max_user_namespaces = "
			    "0): run 'sysctl -w user.max_user_namespaces=15000' as root, or give "
			    "--unconfined", X_NO_USERNS);
		if (sysctl_off("/proc/sys/kernel/unprivileged_userns_clone"))
			return ai_err_set(e, AI_EXIT_CONFIG, "%s them to root only "
			    "(kernel.unprivileged_userns_clone = 0): run 'sysctl -w "
			    "kernel.unprivileged_userns_clone=1' as root, or give --unconfined",
			    X_NO_USERNS);
	}
	sb->self = realpath("/proc/self/exe", NULL);
	if (sb->self == NULL)
		return ai_err_set(e, AI_EXIT_CONFIG, "cannot find ai-exec's own file to start the "
		    "sandbox with (/proc/self/exe: %s)", strerror(errno));
	/* the policy's directories, and the programs' own, that the system ones do not hold */
	for (k = 0; system_dirs[k] != NULL; k++)
		sys[k] = realpath(system_dirs[k], NULL);
	sb->dirs = ai_xcalloc(ps->ndirs + ps->n + 1, sizeof(*sb->dirs));
	for (i = 0; i < ps->ndirs + ps->n; i++) {
		const char *p = i < ps->ndirs ? ps->dirs[i] : ps->v[i - ps->ndirs].path;
		const char *slash = p != NULL && i >= ps->ndirs ? strrchr(p, '/') : NULL;
		char *d;
		size_t j;
		int held = 0;

		if (p == NULL || (i >= ps->ndirs && slash == NULL))
			continue;
		d = i < ps->ndirs ? ai_xstrdup(p) :
		    ai_xmemdup(p, slash == p ? 1 : (size_t)(slash - p));
		for (k = 0; system_dirs[k] != NULL && !held; k++)
			held = sys[k] != NULL && under(sys[k], d);
		for (j = 0; j < sb->ndirs && !held; j++)
			held = under(sb->dirs[j], d);
		if (held || strcmp(d, "/") == 0)
			free(d);
		else
			sb->dirs[sb->ndirs++] = d;
	}
	for (k = 0; system_dirs[k] != NULL; k++)
		free(sys[k]);
	return 0;
}

void
x_sandbox_free(struct x_sandbox *sb)
{
	size_t i;

	for (i = 0; i < sb->ndirs; i++)
		free(sb->dirs[i]);
	free(sb->dirs);
	free(sb->self);
	for (i = 0; i < AI_ARRAY_SIZE(sb->hide); i++)
		free(sb->hide[i]);
	memset(sb, 0, sizeof(*sb));
}

/* ---- the arguments ---- */

static void
bind(struct x_argv *a, const char *how, const char *src, const char *dst)
{
	x_argv_add(a, how);
	x_argv_add(a, src);
	x_argv_add(a, dst);
}

/* Put an empty file, or a read-only empty directory, in place of real (inside the root). */
static void
mask(struct x_argv *a, const char *real)
{
	struct stat st;

	if (lstat(real, &st) < 0)
		return;
	if (S_ISDIR(st.st_mode)) {
		x_argv_add(a, "--tmpfs");
		x_argv_add(a, real);
		x_argv_add(a, "--remount-ro");
		x_argv_add(a, real);
	} else if (!S_ISLNK(st.st_mode)) {
		/* the device itself: the root's mount keeps no device usable (nodev) */
		bind(a, "--dev-bind", "/dev/null", real);
	}
}

/* path, resolved, when it exists inside root: masked. */
static void
mask_inside(struct x_argv *a, const char *root, const char *path)
{
	char *real = realpath(path, NULL);

	if (real != NULL && under(root, real))
		mask(a, real);
	free(real);
}

/*
 * The secrets of the user that the root may hold: the suite's configuration
 * files wherever they are, the policy and the audit log, and when the root
 * holds the home directory every hidden entry of it (resolved: a link to a
 * file inside the root masks that file).  ai-exec's own file, when the root
 * holds it, is read-only: a program at L1 cannot change the sandbox's maker.
 */
static void
masks(const struct x_sandbox *sb, struct x_argv *a, const char *root)
{
	char *files[AI_CONFIG_FILES], *home;
	size_t n = ai_config_files(files), i;
	const char *h = getenv("HOME");

	for (i = 0; i < n; i++) {
		mask_inside(a, root, files[i]);
		free(files[i]);
	}
	for (i = 0; i < AI_ARRAY_SIZE(sb->hide); i++)
		if (sb->hide[i] != NULL)
			mask_inside(a, root, sb->hide[i]);
	if (under(root, sb->self))
		bind(a, "--ro-bind", sb->self, sb->self);
	home = h != NULL && h[0] == '/' ? realpath(h, NULL) : NULL;
	if (home != NULL && under(root, home)) {
		DIR *d = opendir(home);
		struct dirent *de;

		while (d != NULL && (de = readdir(d)) != NULL) {
			struct ai_buf p = AI_BUF_INIT(AI_BUF_NOLIMIT);

			if (de->d_name[0] != '.' || strcmp(de->d_name, ".") == 0 ||
			    strcmp(de->d_name, "..") == 0)
				continue;
			ai_buf_addf(&p, "%s/%s", strcmp(home, "/") == 0 ? "" : home, de->d_name);
			mask_inside(a, root, p.buf);
			ai_buf_release(&p);
		}
		if (d != NULL)
			closedir(d);
	}
	free(home);
}

static void
system_binds(struct x_argv *a, const struct x_sandbox *sb, int network)
{
	const char *const *etc[2] = { etc_files, network ? etc_net : NULL };
	size_t i, k;

	for (i = 0; system_dirs[i] != NULL; i++) {
		char target[PATH_MAX];
		ssize_t n = readlink(system_dirs[i], target, sizeof(target) - 1);
		struct stat st;

		if (n > 0) {
			target[n] = '\0';
			x_argv_add(a, "--symlink");
			x_argv_add(a, target);
			x_argv_add(a, system_dirs[i]);
		} else if (stat(system_dirs[i], &st) == 0 && S_ISDIR(st.st_mode)) {
			bind(a, "--ro-bind", system_dirs[i], system_dirs[i]);
		}
	}
	for (i = 0; i < sb->ndirs; i++)
		bind(a, "--ro-bind", sb->dirs[i], sb->dirs[i]);
	for (k = 0; k < 2; k++)
		for (i = 0; etc[k] != NULL && etc[k][i] != NULL; i++)
			bind(a, "--ro-bind-try", etc[k][i], etc[k][i]);
}

void
x_sandbox_argv(const struct x_sandbox *sb, const struct x_box *b, struct x_argv *a)
{
	/* a root that holds /tmp ("/", which ai-exec refuses) goes first: /tmp covers it */
	int root_first = strcmp(b->root, "/") == 0;

	x_argv_add(a, X_BWRAP);
	x_argv_add(a, "--unshare-all");
	x_argv_add(a, "--unshare-user");
	if (b->network)
		x_argv_add(a, "--share-net");
	x_argv_add(a, "--disable-userns");
	x_argv_add(a, "--as-pid-1"); /* the helper is the init: no process of bubblewrap's */
	x_argv_add(a, "--die-with-parent");
	x_argv_add(a, "--new-session");
	x_argv_add(a, "--cap-drop");
	x_argv_add(a, "ALL");
	if (root_first)
		bind(a, b->writable ? "--bind" : "--ro-bind", b->root, b->root);
	system_binds(a, sb, b->network);
	x_argv_add(a, "--proc");
	x_argv_add(a, "/proc");
	x_argv_add(a, "--dev");
	x_argv_add(a, "/dev");
	x_argv_add(a, "--size");
	x_argv_addf(a, "%llu", (unsigned long long)b->tmp_size);
	x_argv_add(a, "--tmpfs");
	x_argv_add(a, "/tmp");
	if (!root_first)
		bind(a, b->writable ? "--bind" : "--ro-bind", b->root, b->root);
	masks(sb, a, b->root);
	bind(a, "--ro-bind", sb->self, X_HELPER);
	x_argv_add(a, "--remount-ro");
	x_argv_add(a, "/");
	x_argv_add(a, "--chdir");
	x_argv_add(a, b->cwd);
	x_argv_add(a, "--");
	x_argv_add(a, X_HELPER);
	x_confine_args(b->conf, a);
	x_argv_add(a, b->path);
	{
		size_t i;

		for (i = 0; b->argv[i] != NULL; i++)
			x_argv_add(a, b->argv[i]);
	}
}
