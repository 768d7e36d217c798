/*
 * fuzz_frame: libFuzzer target for what reads the serial line: the frame
 * reader (wire/frame.c) on arbitrary bytes, every frame it accepts
 * fed to a link (wire/link.c). Properties: no crash or sanitizer
 * report; an accepted frame re-encodes to bytes the decoder accepts
 * again unchanged; within a session (a HELLO nonce) a link delivers
 * sequence numbers 0, 1, 2... once each, in order.
 */
#include <stdlib.h>
#include <string.h>
#include "wire/link.h"

static void discard(void *ctx, const uint8_t *p, size_t n)
{
	(void)ctx;
	(void)p;
	(void)n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct frame_reader r;
	static struct link l;
	static struct frame f, g;
	frame_reader_init(&r);
	link_init(&l, discard, NULL, 100);
	uint32_t delivered = 0;
	for (size_t i = 0; i < size; i++) {
		if (frame_reader_push(&r, data[i], &f) != READ_FRAME)
			continue;
		uint8_t wire[FRAME_MAX_WIRE];
		size_t n = frame_encode(&f, wire);
		if (n < 2 || frame_decode(wire + 1, n - 2, &g) != FRAME_OK ||
		    g.len != f.len || g.seq != f.seq || g.type != f.type ||
		    memcmp(g.payload, f.payload, f.len) != 0)
			abort();
		uint32_t nonce = l.nonce;
		bool fresh = link_receive(&l, &f, i);
		if (l.nonce != nonce)
			delivered = 0;   /* a new session starts at 0 */
		if (fresh) {
			if (f.seq != delivered)
				abort();   /* out of order or twice */
			delivered++;
		}
		link_poll(&l, i);
	}
	return 0;
}
