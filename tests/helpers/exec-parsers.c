/*
 * exec-parsers: ai-exec's output parsers and git configuration scanner,
 * driven from the command line for the table tests (tests/ai-exec-parse.bats).
 *
 *	exec-parsers parse KIND [--with-file] [--column] [--sections] [--quoted]
 *	    [--file NAME] [--max N] < OUTPUT      the "parsed" object, or null
 *	exec-parsers hint PROG CWD [ARG]...       which parser a run would get
 *	exec-parsers gitcfg < CONFIG               drivers, includes, worktree, files, unsafe
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../ai-exec/prog/prog.h"
#include "io.h"
#include "json.h"
#include "msg.h"
#include "util.h"
#include "banned.h"

static int
print(cJSON *v)
{
	char *s = ai_json_print(v);

	printf("%s\n", s);
	free(s);
	cJSON_Delete(v);
	return 0;
}

static int
kind_of(const char *s)
{
	if (strcmp(s, "git_status") == 0)
		return XP_GIT_STATUS;
	if (strcmp(s, "matches") == 0)
		return XP_MATCHES;
	if (strcmp(s, "files") == 0)
		return XP_FILES;
	return XP_NONE;
}

static cJSON *
strings(char **v, size_t n)
{
	cJSON *a = cJSON_CreateArray();
	size_t i;

	for (i = 0; i < n; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(v[i]));
	return a;
}

int
main(int argc, char **argv)
{
	struct ai_buf in = AI_BUF_INIT((size_t)64 << 20);
	struct ai_err e = AI_ERR_INIT;
	int i;

	ai_init(argv[0]);
	if (argc >= 3 && strcmp(argv[1], "parse") == 0) {
		struct x_outhint h;
		size_t max = 50;
		cJSON *p;

		memset(&h, 0, sizeof(h));
		h.kind = kind_of(argv[2]);
		for (i = 3; i < argc; i++) {
			if (strcmp(argv[i], "--with-file") == 0)
				h.with_file = 1;
			else if (strcmp(argv[i], "--column") == 0)
				h.column = 1;
			else if (strcmp(argv[i], "--sections") == 0)
				h.sections = 1;
			else if (strcmp(argv[i], "--quoted") == 0)
				h.quoted = 1;
			else if (strcmp(argv[i], "--file") == 0 && i + 1 < argc)
				h.file = argv[++i];
			else if (strcmp(argv[i], "--max") == 0 && i + 1 < argc)
				max = (size_t)strtoul(argv[++i], NULL, 10);
		}
		if (ai_read_fd(STDIN_FILENO, &in, "standard input", &e) < 0)
			return ai_finish(-1, &e);
		p = x_outparse(&h, in.buf, in.len, max);
		ai_buf_release(&in);
		return print(p != NULL ? p : cJSON_CreateNull());
	}
	if (argc >= 4 && strcmp(argv[1], "hint") == 0) {
		struct x_outhint h;
		cJSON *o = cJSON_CreateObject();

		x_outhint(argv[2], argv[3], argv + 4, (size_t)(argc - 4), &h);
		ai_json_addstr(o, "kind", x_outkind_name(h.kind));
		ai_json_addbool(o, "with_file", h.with_file);
		ai_json_addbool(o, "column", h.column);
		ai_json_addbool(o, "sections", h.sections);
		ai_json_addbool(o, "quoted", h.quoted);
		if (h.file != NULL)
			ai_json_addstr(o, "file", h.file);
		return print(o);
	}
	if (argc == 2 && strcmp(argv[1], "gitcfg") == 0) {
		struct x_gitcfg g;
		cJSON *o = cJSON_CreateObject();

		memset(&g, 0, sizeof(g));
		if (ai_read_fd(STDIN_FILENO, &in, "standard input", &e) < 0)
			return ai_finish(-1, &e);
		x_gitcfg_scan(in.buf, in.len, &g);
		ai_buf_release(&in);
		cJSON_AddItemToObject(o, "drivers", strings(g.drivers, g.ndrivers));
		cJSON_AddItemToObject(o, "includes", strings(g.includes, g.nincludes));
		ai_json_addbool(o, "worktree", g.worktree);
		if (g.nfiles > 0)
			cJSON_AddItemToObject(o, "files", strings(g.files, g.nfiles));
		if (g.unsafe != NULL)
			ai_json_addstr(o, "unsafe", g.unsafe);
		x_gitcfg_free(&g);
		return print(o);
	}
	fprintf(stderr, "usage: exec-parsers parse KIND [OPTIONS] | hint PROG CWD [ARG]... | gitcfg\n");
	return 64;
}
