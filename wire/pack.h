/*
 * Packing the exporter's records for a slow line (docs/export.md,
 * "Packed frames"): FRAME_EXPORT_PACKED carries whole perf records, each
 * XORed with the record before it in the frame when both have the same
 * size (consecutive samples differ in a few bytes of ip, time and call
 * chain), then written 8 bytes at a time as a mask byte (bit j: byte j
 * is not zero) and the non-zero bytes. A frame is decoded alone: the
 * first record of each is XORed with nothing, so a lost frame costs
 * only its own records.
 *
 * Encoded record: u8 distance (0: XORed with nothing; k in 1..PACK_BACK:
 * with the record k before it in the frame, the nearest of the same
 * size), then size/8 groups of { u8 mask, popcount(mask) bytes }. The
 * header (the first group) gives the size: a multiple of 8, at least 8,
 * and the reference's size.
 *
 * Freestanding (kernel, host, tests): no allocation, no I/O, no globals.
 */
#ifndef BAREMON_PACK_H
#define BAREMON_PACK_H

#include <stddef.h>
#include <stdint.h>

/* The most record bytes one packed frame stands for. */
#define PACK_RAW_MAX 8192
/* How far back a record's reference may be. */
#define PACK_BACK 8

/*
 * Encode whole records from in[0..n) into out (at most out_max bytes).
 * Returns the bytes written and sets *used to the record bytes they
 * stand for: 0 when the first record does not fit out_max, is not
 * whole in n, or its size is not a multiple of 8 (send it unpacked).
 */
size_t pack_records(const uint8_t *in, size_t n, uint8_t *out, size_t out_max, size_t *used);

/* Decode in[0..n) into out (at most out_max bytes). Returns the record
 * bytes, or -1 when in is not a valid encoding or does not fit. */
long unpack_records(const uint8_t *in, size_t n, uint8_t *out, size_t out_max);

#endif
