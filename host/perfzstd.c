/*
 * perf record -z's format, written with Debian's libzstd: the data
 * section's records go through one zstd stream, flushed at the end of
 * each chunk of whole records, and the stream's bytes are cut into
 * PERF_RECORD_COMPRESSED records (type 81: a header, then zstd bytes)
 * of at most 64 KiB. perf decodes each record into a buffer of the
 * HEADER_COMPRESSED feature's mmap_len and parses the records it
 * holds; since every chunk ends in a flush and holds whole records,
 * what one COMPRESSED record decodes to is at most a chunk.
 */
#include <stdlib.h>
#include <string.h>
#include <zstd.h>
#include "perfzstd.h"
#include "wire/frame.h"

#define REC_COMPRESSED 81   /* PERF_RECORD_COMPRESSED (perf's user types) */
#define REC_HEADER 8
#define REC_MAX_DATA (65535 - REC_HEADER)
#define PERF_COMP_ZSTD 1

struct out {
	uint8_t *p;
	size_t len, cap;
};

static int reserve(struct out *o, size_t more)
{
	if (o->len + more <= o->cap)
		return 0;
	size_t cap = o->cap ? o->cap : 65536;
	while (cap < o->len + more)
		cap *= 2;
	uint8_t *p = realloc(o->p, cap);
	if (!p)
		return -1;
	o->p = p;
	o->cap = cap;
	return 0;
}

/* The zstd bytes z[0..n) as COMPRESSED records. */
static int put_records(struct out *o, const uint8_t *z, size_t n)
{
	while (n) {
		size_t k = n < REC_MAX_DATA ? n : REC_MAX_DATA;
		if (reserve(o, REC_HEADER + k))
			return -1;
		uint8_t *h = o->p + o->len;
		put_le32(h, REC_COMPRESSED);
		put_le16(h + 4, 0);
		put_le16(h + 6, (uint16_t)(REC_HEADER + k));
		memcpy(h + REC_HEADER, z, k);
		o->len += REC_HEADER + k;
		z += k;
		n -= k;
	}
	return 0;
}

/* The end of the whole records from `at` that fit a chunk (at least
 * one record, however large); 0 when the record at `at` is damaged. */
static size_t chunk_end(const uint8_t *in, size_t n, size_t at)
{
	size_t end = at;
	while (n - end >= REC_HEADER) {
		size_t size = get_le16(in + end + 6);
		if (size < REC_HEADER || size > n - end)
			break;
		if (end > at && end + size - at > PERFZ_CHUNK)
			break;
		end += size;
	}
	return end;
}

/* Compress in[at..end) and flush: its stream bytes become records. */
static int compress_chunk(ZSTD_CCtx *z, const uint8_t *in, size_t at, size_t end,
			  uint8_t *zbuf, size_t zcap, struct out *o)
{
	ZSTD_inBuffer src = { in + at, end - at, 0 };
	size_t left;
	do {
		ZSTD_outBuffer dst = { zbuf, zcap, 0 };
		left = ZSTD_compressStream2(z, &dst, &src, ZSTD_e_flush);
		if (ZSTD_isError(left) || put_records(o, zbuf, dst.pos))
			return -1;
	} while (left || src.pos < src.size);
	return 0;
}

int perfz_compress(const uint8_t *in, size_t n, int level, uint8_t **out, size_t *out_len)
{
	struct out o = { 0 };
	ZSTD_CCtx *z = ZSTD_createCCtx();
	size_t zcap = ZSTD_CStreamOutSize();
	uint8_t *zbuf = malloc(zcap);
	int r = -1;
	if (!z || !zbuf || ZSTD_isError(ZSTD_CCtx_setParameter(z, ZSTD_c_compressionLevel, level)))
		goto out;
	for (size_t at = 0; at < n;) {
		size_t end = chunk_end(in, n, at);
		if (end == at || compress_chunk(z, in, at, end, zbuf, zcap, &o))
			goto out;
		at = end;
	}
	r = 0;
out:
	ZSTD_freeCCtx(z);
	free(zbuf);
	if (r) {
		free(o.p);
		o = (struct out){ 0 };
	}
	*out = o.p;
	*out_len = o.len;
	return r;
}

void perfz_feature(uint8_t out[20], int level, size_t raw, size_t compressed)
{
	size_t ratio = compressed ? raw / compressed : 1;
	put_le32(out, 1);                  /* comp_ver */
	put_le32(out + 4, PERF_COMP_ZSTD);  /* comp_type */
	put_le32(out + 8, (uint32_t)level);
	put_le32(out + 12, (uint32_t)(ratio ? ratio : 1));
	put_le32(out + 16, PERFZ_MMAP_LEN);
}
