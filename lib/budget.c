/* budget.c: the shared budget file (budget.h), read and updated under a lock. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "budget.h"
#include "buf.h"
#include "json.h"
#include "util.h"
#include "banned.h"

static const char *const dims[] = { "calls", "weighted_tokens", "cost_usd" };

static double *
dim(struct ai_budget_use *u, int i)
{
	return i == 0 ? &u->calls : i == 1 ? &u->weighted : &u->cost;
}

int
ai_budget_parse(const char *text, size_t n, struct ai_budget_use *limit,
    struct ai_budget_use *used, struct ai_err *e)
{
	cJSON *v = ai_json_parse(text, n, e);
	const cJSON *it;
	int i, rc = 0;

	memset(limit, 0, sizeof(*limit));
	memset(used, 0, sizeof(*used));
	if (v == NULL)
		return -1;
	if (!cJSON_IsObject(v)) {
		cJSON_Delete(v);
		return ai_err_set(e, AI_EXIT_DATAERR, "not a JSON object");
	}
	cJSON_ArrayForEach(it, v) {
		const cJSON *f;

		for (i = 0; i < 3 && strcmp(it->string, dims[i]) != 0; i++)
			;
		if (i == 3) {
			rc = ai_err_set(e, AI_EXIT_DATAERR, "unknown field \"%.64s\" (calls, "
			    "weighted_tokens, cost_usd)", it->string);
			break;
		}
		if (!cJSON_IsObject(it)) {
			rc = ai_err_set(e, AI_EXIT_DATAERR, "\"%s\" must be an object "
			    "{\"limit\": N, \"used\": N}", it->string);
			break;
		}
		cJSON_ArrayForEach(f, it) {
			double d = f->valuedouble;

			if (strcmp(f->string, "limit") != 0 && strcmp(f->string, "used") != 0) {
				rc = ai_err_set(e, AI_EXIT_DATAERR, "%s: unknown field \"%.64s\" "
				    "(limit, used)", it->string, f->string);
				break;
			}
			if (!cJSON_IsNumber(f) || !isfinite(d) || d < 0 || d > 1e15) {
				rc = ai_err_set(e, AI_EXIT_DATAERR, "%s.%s must be a number from 0 "
				    "to 1e15", it->string, f->string);
				break;
			}
			*dim(strcmp(f->string, "limit") == 0 ? limit : used, i) = d;
		}
		if (rc < 0)
			break;
		if (ai_json_get(it, "limit") == NULL)
			*dim(limit, i) = -1; /* not limited */
	}
	for (i = 0; i < 3; i++)
		if (ai_json_get(v, dims[i]) == NULL)
			*dim(limit, i) = -1;
	cJSON_Delete(v);
	return rc;
}

static char *
format(const struct ai_budget_use *limit, const struct ai_budget_use *used)
{
	cJSON *v = cJSON_CreateObject();
	char *s;
	int i;

	for (i = 0; i < 3; i++) {
		cJSON *d;

		if (*dim((struct ai_budget_use *)limit, i) < 0 &&
		    *dim((struct ai_budget_use *)used, i) == 0)
			continue;
		d = cJSON_AddObjectToObject(v, dims[i]);
		if (*dim((struct ai_budget_use *)limit, i) >= 0)
			ai_json_addnum(d, "limit", *dim((struct ai_budget_use *)limit, i));
		ai_json_addnum(d, "used", *dim((struct ai_budget_use *)used, i));
	}
	s = ai_json_print(v);
	cJSON_Delete(v);
	return s;
}

/* The first spent dimension, for messages; -1 when none is. */
static int
spent(const struct ai_budget_use *limit, const struct ai_budget_use *used)
{
	int i;

	for (i = 0; i < 3; i++)
		if (*dim((struct ai_budget_use *)limit, i) >= 0 &&
		    *dim((struct ai_budget_use *)used, i) >= *dim((struct ai_budget_use *)limit, i))
			return i;
	return -1;
}

/*
 * Open and lock the file, read it, let op change the use, write it back.
 * op returns 0 to write, 1 to leave the file as it is, -1 with e set.
 */
static int
update(const char *path, int (*op)(struct ai_budget_use *limit, struct ai_budget_use *used,
    void *ctx, struct ai_err *e), void *ctx, struct ai_err *e)
{
	struct ai_buf b = AI_BUF_INIT(AI_BUDGET_MAX_FILE);
	struct ai_budget_use limit, used;
	struct stat st;
	int64_t deadline = ai_now_ms() + 10000;
	int fd = open(path, O_RDWR | O_CLOEXEC | O_NOCTTY | O_NONBLOCK), rc = -1;
	char *out = NULL;
	ssize_t got;
	char chunk[4096];

	if (fd < 0)
		return ai_err_set(e, errno == ENOENT ? AI_EXIT_NOINPUT : AI_EXIT_CONFIG,
		    "cannot open budget file '%s': %s", path, strerror(errno));
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return ai_err_set(e, AI_EXIT_CONFIG, "budget file '%s' is not a regular file", path);
	}
	while (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		if (errno != EWOULDBLOCK || ai_now_ms() > deadline) {
			close(fd);
			return ai_err_set(e, AI_EXIT_TEMPFAIL,
			    "budget file '%s' stayed locked for 10 s", path);
		}
		ai_sleep_ms(5, NULL);
	}
	while ((got = pread(fd, chunk, sizeof(chunk), (off_t)b.len)) > 0)
		if (ai_buf_add(&b, chunk, (size_t)got) < 0) {
			ai_err_set(e, AI_EXIT_DATAERR, "budget file '%s' is larger than %d bytes",
			    path, AI_BUDGET_MAX_FILE);
			goto out;
		}
	if (got < 0) {
		ai_err_set(e, AI_EXIT_IOERR, "cannot read budget file '%s': %s", path,
		    strerror(errno));
		goto out;
	}
	if (ai_budget_parse(b.buf ? b.buf : "", b.len, &limit, &used, e) < 0) {
		ai_err_prefix(e, "budget file '%s'", path);
		if (e->code != AI_EXIT_DATAERR)
			e->code = AI_EXIT_DATAERR;
		goto out;
	}
	if ((rc = op(&limit, &used, ctx, e)) != 0) {
		rc = rc > 0 ? 0 : -1;
		goto out;
	}
	out = format(&limit, &used);
	/* one small write in place, then the length: the lock is on this file */
	if (pwrite(fd, out, strlen(out), 0) != (ssize_t)strlen(out) ||
	    ftruncate(fd, (off_t)strlen(out)) < 0)
		rc = ai_err_set(e, AI_EXIT_IOERR, "cannot write budget file '%s': %s", path,
		    strerror(errno));
out:
	cJSON_free(out);
	ai_buf_release(&b);
	close(fd); /* and the lock with it */
	return rc;
}

static int
spent_error(const char *path, const struct ai_budget_use *limit,
    const struct ai_budget_use *used, struct ai_err *e)
{
	int i = spent(limit, used);

	return ai_err_set(e, AI_EXIT_LIMIT, "the budget in '%s' is spent: %.15g of %.15g %s used",
	    path, *dim((struct ai_budget_use *)used, i), *dim((struct ai_budget_use *)limit, i),
	    dims[i]);
}

static int
op_take(struct ai_budget_use *limit, struct ai_budget_use *used, void *ctx, struct ai_err *e)
{
	if (spent(limit, used) >= 0)
		return spent_error(ctx, limit, used, e);
	used->calls += 1;
	return 0;
}

static int
op_check(struct ai_budget_use *limit, struct ai_budget_use *used, void *ctx, struct ai_err *e)
{
	return spent(limit, used) >= 0 ? spent_error(ctx, limit, used, e) : 1;
}

struct charge {
	double calls, weighted, cost;
};

static int
op_charge(struct ai_budget_use *limit, struct ai_budget_use *used, void *ctx, struct ai_err *e)
{
	const struct charge *c = ctx;

	(void)limit;
	(void)e;
	used->calls = used->calls + c->calls < 0 ? 0 : used->calls + c->calls;
	used->weighted += c->weighted;
	used->cost += c->cost;
	return 0;
}

int
ai_budget_take(const char *path, struct ai_err *e)
{
	return update(path, op_take, (void *)path, e);
}

int
ai_budget_check(const char *path, struct ai_err *e)
{
	return update(path, op_check, (void *)path, e);
}

int
ai_budget_charge(const char *path, double calls, double weighted, double cost, struct ai_err *e)
{
	struct charge c = { calls, weighted, cost };

	return update(path, op_charge, &c, e);
}

int
ai_budget_create(const char *path, const struct ai_budget_use *limit, struct ai_err *e)
{
	struct ai_budget_use used = { 0, 0, 0 }, lim = *limit;
	char *s;
	int fd, rc = 0, i;

	for (i = 0; i < 3; i++)
		if (*dim(&lim, i) <= 0)
			*dim(&lim, i) = -1;
	s = format(&lim, &used);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOCTTY, 0600);
	if (fd < 0 || ai_write_all(fd, s, strlen(s)) < 0)
		rc = ai_err_set(e, AI_EXIT_IOERR, "cannot write budget file '%s': %s", path,
		    strerror(errno));
	if (fd >= 0)
		close(fd);
	cJSON_free(s);
	return rc;
}
