/* SPDX-License-Identifier: MIT */
/*
 * hltools.h - what the benchmarks (hl-bench, hl-coll-bench) share: their
 * size arguments ("4K", "1M+12", lists of them). Header-only.
 */
#ifndef HLTOOLS_H
#define HLTOOLS_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/*
 * Bytes: "64", "0x100", "4K", "2M", "1G" (k, m, g too), each optionally
 * followed by "+N" to add N bytes ("1M+12"). 0, or -1 for a bad size.
 */
static inline int hltools_parse_size(const char *s, uint64_t *out)
{
	char *end;
	uint64_t v = strtoull(s, &end, 0), add = 0;

	if (end == s)
		return -1;
	switch (*end) {
	case 'k': case 'K':
		v <<= 10;
		end++;
		break;
	case 'm': case 'M':
		v <<= 20;
		end++;
		break;
	case 'g': case 'G':
		v <<= 30;
		end++;
		break;
	}
	if (*end == '+') {
		s = end + 1;
		add = strtoull(s, &end, 0);
		if (end == s)
			return -1;
	}
	if (*end)
		return -1;
	*out = v + add;
	return 0;
}

/*
 * A comma-separated list of sizes into @out (at most @max): the number of
 * sizes (at least 1), or -1 for a bad size, too many or none.
 */
static inline int hltools_parse_sizes(const char *list, uint64_t *out,
				      int max)
{
	char *copy = strdup(list), *tok, *save = NULL;
	int n = 0;

	if (!copy)
		return -1;
	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (n == max || hltools_parse_size(tok, &out[n])) {
			n = 0;
			break;
		}
		n++;
	}
	free(copy);
	return n ? n : -1;
}

#endif /* HLTOOLS_H */
