// SPDX-License-Identifier: GPL-2.0
/* libFuzzer harness: the drop-in and kwatchd.conf parsers, then the kernel
 * line formatters on whatever parsed. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "ksw.h"
#include "tracefs-text.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kw_settings s;
	struct kw_file f;
	char buf[1024], reason[256];
	char *text;
	int line, k;

	if (size < 1)
		return 0;
	k = data[0] % _KW_KIND_MAX;
	kw_file_parse(k, "/fuzz/x.conf", (const char *)data + 1, size - 1, &f);
	if (!f.err) {
		if (f.kind == KW_WATCH)
			kw_watch_line(&f.watch, buf, sizeof(buf));
		else if (f.kind == KW_WPROBE) {
			unsigned int i;

			kw_wprobe_line(&f.wprobe, "kwatchd", buf, sizeof(buf));
			for (i = 0; i < f.wprobe.n_trig; i++)
				kw_trigger_line(&f.wprobe.trig[i], f.wprobe.name, buf, sizeof(buf));
		}
	}
	text = strndup((const char *)data + 1, size - 1);
	if (text) {
		kw_settings_default(&s);
		kw_settings_parse(text, &s, &line, reason, sizeof(reason));
		free(text);
	}
	return 0;
}
