/*
 * exec.h: ai-exec, what its two subsystems share.
 *
 *   lang/      the safe read-only command language: the "execute" tool
 *              (lang/lang.h).
 *   prog/      the programs a policy allows: the "run" tool (prog/prog.h).
 *   tool.c     the context both tools run in, their arguments and the head
 *              of every tool_result (tool.h).
 *   serve.c    --serve: tool_call records in, tool_result records out, by a
 *              table of tools: "execute" and "run".
 *   audit.c    the audit log.
 *   jtext.c    bytes as JSON text.
 *   filter.c   system-call filters (seccomp), for the language's child and
 *              for the programs.
 *
 * Errors are struct ai_err with the exit code of their kind: 65 usage,
 * 77 policy, 3 limit, 75 timeout, 69 unavailable, 1 execution (x_kind).
 */
#ifndef AI_EXEC_H
#define AI_EXEC_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <cjson/cJSON.h>
#include <linux/filter.h>

#include "buf.h"
#include "err.h"
#include "url.h"

/* The name of an error's kind in a tool_result ("usage", "policy", ...). */
const char *x_kind(int code);

/* ---- audit.c ---- */

struct x_audit {
	int fd; /* -1 when there is no audit log */
	char *path;
};

int x_audit_open(struct x_audit *a, const char *path, struct ai_err *e);
void x_audit_close(struct x_audit *a);
/* A new audit line with its "time" (ISO 8601, UTC); the caller adds fields. */
cJSON *x_audit_begin(const char *tool);
/* Write the line (one write(2), O_APPEND) and free it. */
int x_audit_end(struct x_audit *a, cJSON *line, struct ai_err *e);

/* ---- jtext.c ---- */

/* Make bytes valid UTF-8 for a JSON string: invalid sequences and NUL become U+FFFD. */
void x_json_text(struct ai_buf *out, const char *p, size_t n);
/* Add p[0..n) to obj as the string member key, made valid as x_json_text does. */
void x_json_addtext(cJSON *obj, const char *key, const char *p, size_t n);
/* The same with secrets redacted (audit lines); null when s is NULL. */
void x_json_addredacted(cJSON *obj, const char *key, const char *s, size_t n);

/* ---- filter.c ---- */

/* A seccomp filter being built: rules in order, then "allow". */
struct x_bpf {
	struct sock_filter f[256];
	unsigned short n;
	int overflow;
};

/* Whether filters can be built for this architecture. */
int x_bpf_supported(void);
/* The head: another architecture (and x32) refused with ENOSYS. */
void x_bpf_begin(struct x_bpf *p);
/* System call nr fails with errno e. */
void x_bpf_deny(struct x_bpf *p, long nr, int e);
/* ... when its argument arg (its low 32 bits) has any of flags. */
void x_bpf_deny_flags(struct x_bpf *p, long nr, int arg, uint32_t flags, int e);
/* ... when its argument arg (its low 32 bits) is value. */
void x_bpf_deny_value(struct x_bpf *p, long nr, int arg, uint32_t value, int e);
/*
 * End with "allow", set no_new_privs and install the filter on the calling
 * thread; 0, or with listener the notification descriptor; -1 with errno.
 */
int x_bpf_install(struct x_bpf *p, int listener);

/* ---- tool.c ---- */

/* A string argument: 1 found, 0 absent or null, -1 (65) of another type. */
int x_str_arg(const cJSON *args, const char *key, const char **out, struct ai_err *e);
/* args is an object whose members are all in names; else 65, "unknown argument 'x' (TAKES)". */
int x_args_known(const cJSON *args, const char *const *names, const char *takes,
    struct ai_err *e);
/*
 * Write a record on standard output, with every secret the suite knows (and
 * their like: redact.h's output rules) replaced by "[REDACTED]" first.
 */
int x_record_write(cJSON *rec, struct ai_err *e);
/* A tool_result's common head: id (when not NULL), name, ok, and error and error_kind when !ok. */
cJSON *x_result_head(const cJSON *id, const char *name, int ok, const struct ai_err *err);

#endif
