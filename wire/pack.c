/* Packed records: see pack.h. */
#include <stdbool.h>
#include <string.h>
#include "pack.h"

#define HEADER 8   /* struct perf_event_header: u32 type, u16 misc, u16 size */

/* Where the last PACK_BACK records of a frame start: back(h, k) is the
 * k-th before the current one (1..PACK_BACK), or -1. */
struct history {
	long at[PACK_BACK];
	unsigned count;
};

static long back(const struct history *h, unsigned k)
{
	return k >= 1 && k <= h->count ? h->at[(h->count - k) % PACK_BACK] : -1;
}

static void remember(struct history *h, long at)
{
	h->at[h->count++ % PACK_BACK] = at;
	if (h->count >= 2 * PACK_BACK)
		h->count -= PACK_BACK;   /* same slots, no overflow */
}

static size_t record_size(const uint8_t *header)
{
	return (size_t)header[6] | (size_t)header[7] << 8;
}

/* The 8 bytes at p XORed with ref (NULL: with zeros) as mask + bytes.
 * out holds at least 9 bytes. */
typedef uint64_t __attribute__((may_alias, aligned(1))) word_t;

static size_t pack_group(const uint8_t *p, const uint8_t *ref, uint8_t *out)
{
	/* Most groups of a sample repeat the one before (pid, period,
	 * the call chain's return addresses): one word compare. */
	if (ref && *(const word_t *)p == *(const word_t *)ref) {
		out[0] = 0;
		return 1;
	}
	uint8_t mask = 0;
	size_t o = 1;
	for (int j = 0; j < 8; j++) {
		uint8_t b = ref ? p[j] ^ ref[j] : p[j];
		if (b) {
			mask |= (uint8_t)(1u << j);
			out[o++] = b;
		}
	}
	out[0] = mask;
	return o;
}

/* One record of size bytes into out, or 0 when more than room; ref is
 * the record `distance` before it (0: none). */
static size_t pack_one(const uint8_t *rec, const uint8_t *ref, unsigned distance,
		       size_t size, uint8_t *out, size_t room)
{
	if (room < 1)
		return 0;
	out[0] = (uint8_t)distance;
	size_t o = 1;
	for (size_t g = 0; g < size; g += 8) {
		if (room - o < 9)
			return 0;   /* a group may take 9 bytes */
		o += pack_group(rec + g, ref ? ref + g : NULL, out + o);
	}
	return o;
}

size_t pack_records(const uint8_t *in, size_t n, uint8_t *out, size_t out_max, size_t *used)
{
	size_t at = 0, o = 0;
	struct history h = { .count = 0 };
	while (n - at >= HEADER) {
		size_t size = record_size(in + at);
		if (size < HEADER || size % 8 || size > n - at)
			break;
		unsigned distance = 0;
		for (unsigned k = 1; k <= PACK_BACK && back(&h, k) >= 0; k++)
			if (record_size(in + back(&h, k)) == size) {
				distance = k;
				break;
			}
		const uint8_t *ref = distance ? in + back(&h, distance) : NULL;
		size_t k = pack_one(in + at, ref, distance, size, out + o, out_max - o);
		if (!k)
			break;
		o += k;
		remember(&h, (long)at);
		at += size;
	}
	*used = at;
	return o;
}

/* A group: mask and its bytes from in (*i advanced), XORed with ref. */
static bool unpack_group(const uint8_t *in, size_t n, size_t *i, const uint8_t *ref,
			 uint8_t *out)
{
	if (*i >= n)
		return false;
	uint8_t mask = in[(*i)++];
	for (int j = 0; j < 8; j++) {
		uint8_t b = 0;
		if (mask >> j & 1) {
			if (*i >= n || in[*i] == 0)
				return false;   /* a byte marked non-zero is never zero */
			b = in[(*i)++];
		}
		out[j] = ref ? (uint8_t)(b ^ ref[j]) : b;
	}
	return true;
}

long unpack_records(const uint8_t *in, size_t n, uint8_t *out, size_t out_max)
{
	size_t i = 0, o = 0;
	struct history h = { .count = 0 };
	while (i < n) {
		uint8_t distance = in[i++];
		long ref_at = distance ? back(&h, distance) : 0;
		if (ref_at < 0 || out_max - o < HEADER)
			return -1;
		const uint8_t *ref = distance ? out + ref_at : NULL;
		if (!unpack_group(in, n, &i, ref, out + o))
			return -1;
		size_t size = record_size(out + o);
		if (size < HEADER || size % 8 || size > out_max - o ||
		    (ref && size != record_size(ref)))
			return -1;
		for (size_t g = HEADER; g < size; g += 8)
			if (!unpack_group(in, n, &i, ref ? ref + g : NULL, out + o + g))
				return -1;
		remember(&h, (long)o);
		o += size;
	}
	return (long)o;
}
