/*
 * perf.data's records compressed as `perf record -z` writes them
 * (perfzstd.c): PERF_RECORD_COMPRESSED records holding one zstd stream,
 * and the HEADER_COMPRESSED feature that tells perf how to read them.
 */
#ifndef HOST_PERFZSTD_H
#define HOST_PERFZSTD_H

#include <stddef.h>
#include <stdint.h>

/* Bytes of records compressed at once (whole records; perf decodes
 * each PERF_RECORD_COMPRESSED into a buffer of PERFZ_MMAP_LEN). */
#define PERFZ_CHUNK (64 * 1024)
#define PERFZ_MMAP_LEN (2 * PERFZ_CHUNK)
#define PERFZ_FEATURE 27   /* HEADER_COMPRESSED (tools/perf/util/header.h) */

/*
 * Compress the records in[0..n) at zstd level `level` into
 * PERF_RECORD_COMPRESSED records, malloc'd in *out (*out_len bytes).
 * Returns 0, or -1 (out of memory, a zstd error, records that do not
 * parse: a size below 8 or past the end).
 */
int perfz_compress(const uint8_t *in, size_t n, int level, uint8_t **out, size_t *out_len);
/* The HEADER_COMPRESSED feature's 20 bytes: version 1, type zstd, the
 * level, the ratio (raw over compressed, rounded down, at least 1),
 * PERFZ_MMAP_LEN. */
void perfz_feature(uint8_t out[20], int level, size_t raw, size_t compressed);

#endif
