/*
 * fuzz_pack: libFuzzer target for packed export records (wire/pack.c),
 * which the host decodes from the line. Properties: no crash or
 * sanitizer report; what the decoder accepts packs again and decodes
 * to the same bytes; arbitrary bytes taken as records pack to what
 * decodes to exactly the records used.
 */
#include <stdlib.h>
#include <string.h>
#include "wire/pack.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t dec[PACK_RAW_MAX], enc[2 * PACK_RAW_MAX], again[PACK_RAW_MAX];
	long n = unpack_records(data, size, dec, sizeof(dec));
	if (n >= 0) {
		size_t used;
		size_t m = pack_records(dec, (size_t)n, enc, sizeof(enc), &used);
		if (used != (size_t)n || unpack_records(enc, m, again, sizeof(again)) != n ||
		    memcmp(again, dec, (size_t)n) != 0)
			abort();
	}
	size_t raw = size < PACK_RAW_MAX ? size : PACK_RAW_MAX, used;
	size_t out_max = size ? data[0] * 8u + 1 : 0;   /* small frames too */
	size_t m = pack_records(data, raw, enc, out_max, &used);
	if (m > out_max || used > raw)
		abort();
	if (unpack_records(enc, m, again, sizeof(again)) != (long)used ||
	    memcmp(again, data, used) != 0)
		abort();
	return 0;
}
