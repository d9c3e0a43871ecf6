// SPDX-License-Identifier: GPL-2.0
/* libFuzzer harness: the stack variable index parser, then a resolution
 * on what parsed.  The input's first line is "FUNCTION VARIABLE"; the rest
 * is the index (its header is put in front half of the time, to get past
 * it). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "stackvars.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kw_stackvars sv = {};
	struct kw_svar_watch w;
	char names[256], err[256], why[512], line[1024];
	const char *nl = memchr(data, '\n', size), *var;
	size_t head = strlen(KW_SVAR_HEADER "\n"), nlen, rest;
	char *text, *sp;

	if (!nl || size < 1)
		return 0;
	nlen = nl - (const char *)data;
	if (nlen >= sizeof(names))
		return 0;
	memcpy(names, data, nlen);
	names[nlen] = '\0';
	rest = size - nlen - 1;
	text = malloc(head + rest + 1);
	if (!text)
		return 0;
	if (data[0] & 1) {
		memcpy(text, KW_SVAR_HEADER "\n", head);
	} else {
		head = 0;
	}
	memcpy(text + head, nl + 1, rest);
	text[head + rest] = '\0';
	sp = strchr(names, ' ');
	var = NULL;
	if (sp) {
		*sp = '\0';
		var = sp + 1;
	}
	if (kw_stackvars_parse(&sv, text, err, sizeof(err)) == 0 &&
	    kw_stackvars_resolve(&sv, names, var, &w, why, sizeof(why)) == 0)
		kw_svar_line(&w, data[0], line, sizeof(line));
	kw_stackvars_free(&sv);
	return 0;
}
