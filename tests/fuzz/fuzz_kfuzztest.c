// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness of KFuzzTest's input parser, lib/kfuzztest/parse.c
 * from the kernel series, built on the host with the shim headers in
 * kfuzztest-shim/.  Beyond ASan/UBSan on the parser itself, it checks
 * what a valid input must give: the argument structure inside the input
 * and region 0 starting where it does, every patched pointer inside the
 * input or NULL, every poisoned range inside the input and ending on a
 * KASAN granule, and a refused input left as it was, byte for byte.  The
 * parser checks the alignment before it patches anything, so a poisoning
 * refused afterwards (its WARN_ON_ONCE(), see the shim's bug.h) aborts
 * the run too.  fuzz_kfuzztest_tags is the same harness for a 16-byte
 * granule (tag-based KASAN), where regions 8 bytes apart are refused.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <linux/kasan.h>
#include <linux/kfuzztest.h>

#ifdef CONFIG_KASAN
#define GRANULE	KASAN_GRANULE_SIZE
#else
#define GRANULE	8
#endif

static const unsigned char *cur_start, *cur_end;

int kasan_poison_range(const void *addr, size_t size)
{
	const unsigned char *p = addr;

	if (p < cur_start || p + size > cur_end || size > (size_t)(cur_end - cur_start))
		abort();
	if (((uintptr_t)(p + size)) % GRANULE)
		return -EINVAL;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct reloc_region_array *ra;
	const struct reloc_table *rt;
	void *arg = NULL;
	unsigned char *buf;
	size_t arg_size = 16, i;

	/* Like kmalloc(): granule-aligned, exactly @size bytes for ASan. */
	buf = aligned_alloc(GRANULE, size ? (size + GRANULE - 1) / GRANULE * GRANULE : GRANULE);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	cur_start = buf;
	cur_end = buf + size;
	if (size >= 16)
		arg_size = data[size / 2] % 64;

	if (kfuzztest_parse_and_relocate(buf, size, arg_size, &arg)) {
		/* Refused: nothing patched. */
		if (memcmp(buf, data, size))
			abort();
	} else {
		if ((unsigned char *)arg < buf || (unsigned char *)arg + arg_size > buf + size)
			abort();
		ra = (const void *)(buf + 8);
		rt = (const void *)(buf + 12 + 8 * ra->num_regions);
		/* The target gets region 0 as its structure: it must be @arg. */
		if (ra->regions[0].offset != 0)
			abort();
		for (i = 0; i < rt->num_entries; i++) {
			const struct reloc_entry *e = &rt->entries[i];
			uintptr_t v;

			memcpy(&v, (unsigned char *)arg + ra->regions[e->region_id].offset +
			       e->region_offset, sizeof(v));
			if (v && (v < (uintptr_t)buf || v >= (uintptr_t)(buf + size)))
				abort();
		}
	}
	free(buf);
	return 0;
}
