/*
 * path.c: whether a path stays inside the root, resolved as the kernel
 * would resolve it.  Shared by the decisions (decide.c) and git's checks
 * (gitcfg.c).
 */
#include <stdlib.h>
#include <string.h>

#include "prog.h"
#include "util.h"
#include "banned.h"

int
x_inside_root(const char *root, const char *base, const char *path)
{
	struct ai_buf full = AI_BUF_INIT(AI_BUF_NOLIMIT), real = AI_BUF_INIT(AI_BUF_NOLIMIT);
	size_t rootlen = strlen(root), cut;
	char *r = NULL;
	int ok = 0;

	if (path[0] == '/')
		ai_buf_adds(&full, path);
	else
		ai_buf_addf(&full, "%s/%s", base, path);
	/* the longest part that exists, resolved as the kernel would */
	cut = full.len;
	for (;;) {
		char save = full.buf[cut];

		full.buf[cut] = '\0';
		r = cut > 0 ? realpath(full.buf, NULL) : ai_xstrdup("/");
		full.buf[cut] = save;
		if (r != NULL)
			break;
		while (cut > 0 && full.buf[cut - 1] != '/')
			cut--;
		while (cut > 0 && full.buf[cut - 1] == '/')
			cut--;
	}
	ai_buf_adds(&real, r);
	free(r);
	/* the rest does not exist: it may not climb */
	{
		const char *p = full.buf + cut;

		while (*p) {
			size_t len;

			while (*p == '/')
				p++;
			len = strcspn(p, "/");
			if (len == 2 && p[0] == '.' && p[1] == '.')
				goto out;
			if (len > 0 && !(len == 1 && p[0] == '.'))
				ai_buf_addf(&real, "%s%.*s", real.len > 1 ? "/" : "", (int)len, p);
			p += len;
		}
	}
	ok = strcmp(root, "/") == 0 || strcmp(real.buf, root) == 0 ||
	    (strncmp(real.buf, root, rootlen) == 0 && real.buf[rootlen] == '/');
out:
	ai_buf_release(&full);
	ai_buf_release(&real);
	return ok;
}
