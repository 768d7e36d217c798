/*
 * Sample paths that resolve on the host: in the guest's pipe-format
 * data, the MMAP and MMAP2 records of a pushed program name its guest
 * path (/tmp/NAME). Each is rewritten to name the local file it was
 * pushed from (its absolute path), so that perf report, perf script and
 * perf annotate open that file with no --symfs, and the BUILD_ID
 * feature names it too (record.c passes the same local paths).
 *
 * A record is header | fixed fields | filename, NUL-padded to 8 bytes |
 * sample_id trailer; the trailer is what follows the padded name and is
 * kept as it is.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>
#include "perfdata.h"

#define ALIGN8(n) (((n) + 7) & ~(size_t)7)

/* The offset of the filename in an MMAP or MMAP2 record, or 0. */
static size_t name_offset(uint32_t type)
{
	return type == PERF_RECORD_MMAP ? 40 : type == PERF_RECORD_MMAP2 ? 72 : 0;
}

static const char *local_of(const char *guest, const struct program *p, int n)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(p[i].guest_path, guest))
			return p[i].local_path;
	return NULL;
}

/* Write record r (size bytes) to out, its filename replaced when it is
 * a pushed program's. */
static int put_record(FILE *out, const uint8_t *r, size_t size, const struct program *p,
		      int n)
{
	size_t at = name_offset(get_le32(r));
	const char *name = (const char *)r + at;
	const char *local = at && at < size && memchr(name, 0, size - at) ?
			    local_of(name, p, n) : NULL;
	size_t old_len = local ? ALIGN8(strlen(name) + 1) : 0;
	if (!local || at + old_len > size)
		return fwrite(r, 1, size, out) == size ? 0 : -1;
	size_t new_len = ALIGN8(strlen(local) + 1), trailer = size - at - old_len;
	size_t new_size = at + new_len + trailer;
	if (new_size > 0xffff)
		return fwrite(r, 1, size, out) == size ? 0 : -1;
	uint8_t rec[65536] = { 0 };
	memcpy(rec, r, at);
	put_le16(rec + 6, (uint16_t)new_size);
	memcpy(rec + at, local, strlen(local));
	memcpy(rec + at + new_len, r + at + old_len, trailer);
	return fwrite(rec, 1, new_size, out) == new_size ? 0 : -1;
}

int perfdata_map_paths(const char *pipe_file, const struct program *p, int n)
{
	FILE *in = fopen(pipe_file, "rb");
	char tmp[4200];
	snprintf(tmp, sizeof(tmp), "%s.map", pipe_file);
	FILE *out = in ? fopen(tmp, "wb") : NULL;
	static uint8_t r[65536];
	int err = !in || !out || fread(r, 1, 16, in) != 16 || fwrite(r, 1, 16, out) != 16;
	while (!err && fread(r, 1, 8, in) == 8) {
		size_t size = get_le16(r + 6);
		err = size < 8 || fread(r + 8, 1, size - 8, in) != size - 8 ||
		      put_record(out, r, size, p, n) != 0;
		for (uint32_t left = err ? 0 : pipe_record_trailing(r, size); left && !err;) {
			uint8_t chunk[4096];
			size_t k = left < sizeof(chunk) ? left : sizeof(chunk);
			err = fread(chunk, 1, k, in) != k || fwrite(chunk, 1, k, out) != k;
			left -= (uint32_t)k;
		}
	}
	if (in)
		fclose(in);
	if (out && fclose(out) != 0)
		err = 1;
	if (err || rename(tmp, pipe_file) != 0) {
		remove(tmp);
		return -1;
	}
	return 0;
}
