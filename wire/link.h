/*
 * The reliable link over frames (docs/export.md, "Link layer"): messages
 * arrive once, intact and in order, or the sender keeps retrying.
 *
 * Go-back-N with a window of LINK_WINDOW frames: each message gets the
 * next sequence number; the receiver delivers only the one it expects
 * and answers every data frame with an ACK carrying the next sequence
 * number it wants (cumulative). When the oldest unacknowledged frame has
 * waited `timeout` ms, or when LINK_DUP_ACKS acknowledgements in a row
 * repeat the oldest unacknowledged number (the frames after it arrived,
 * it did not; once until the window moves), every unacknowledged frame
 * is sent again. Each timeout with no acknowledgement in between doubles
 * the wait before the next (up to LINK_BACKOFF_MAX times the base); an
 * ACK that moves the window restores the base: a receiver slower than
 * a window per timeout (a guest under host load takes ~1 KB/s) would
 * otherwise be sent the window again every timeout, and the copies
 * queue in the line ahead of everything new (congestion collapse).
 *
 * Window: each side says in every HELLO (u16 after the nonce) how many
 * frames it can take at once; a side sends at most the smaller of that
 * and its own window. A HELLO of 4 bytes (an older peer) means
 * LINK_WINDOW. The guest's agent picks its window by its line: a 4 KiB
 * tty buffer or a 115200-baud line takes LINK_WINDOW, the virtio console
 * LINK_WINDOW_MAX (apps/agent/main.c).
 *
 * HELLO starts a session: its payload is a u32 nonce. A receiver that
 * sees a nonce different from its current one resets both directions to
 * sequence 0, and every HELLO is answered with a HELLO carrying the same
 * nonce (flags LINK_HELLO_REPLY), so the initiator knows the link is up.
 * The initiator (the host) ignores requests; nonce 0 is an announcement
 * ("I have started") that the link ignores and the application may use.
 *
 * No I/O and no clock of its own: the caller passes the time in ms and
 * an emit function that writes wire bytes. Not thread-safe: one user.
 */
#ifndef BAREMON_LINK_H
#define BAREMON_LINK_H

#include "frame.h"

/* Three frames of 1 KiB fit the guest tty's 4 KiB input buffer. */
#define LINK_WINDOW 3
/* The most frames in flight: 32 KiB, half the virtio console's 64 KiB
 * receive queue (export/serial_export.c). */
#define LINK_WINDOW_MAX 32
#define LINK_HELLO_REPLY 0x01
#define LINK_DUP_ACKS 2
#define LINK_BACKOFF_MAX 16

typedef void (*link_emit_fn)(void *ctx, const uint8_t *wire, size_t n);

struct link {
	link_emit_fn emit;
	void *ctx;
	uint64_t timeout;          /* ms before a retransmission, at best */
	uint64_t rto;              /* ms now: timeout, doubled per silent timeout */
	uint32_t nonce;            /* session; 0 = none yet */
	bool up;                   /* a HELLO exchange completed */
	bool initiator;            /* sends requests, never answers them */
	uint16_t window;           /* frames we take at once; our send limit too */
	uint16_t peer_window;      /* frames the peer takes at once (its HELLO) */
	/* sending */
	uint32_t tx_next;          /* sequence number of the next message */
	uint32_t tx_acked;         /* oldest unacknowledged sequence number */
	uint64_t tx_deadline;      /* when to resend, if anything is unacked */
	uint32_t dup_acks;         /* ACKs in a row that did not advance */
	bool fast_resent;          /* resent on repeated ACKs; until the window moves */
	struct frame tx[LINK_WINDOW_MAX];  /* unacked frames, slot seq % LINK_WINDOW_MAX */
	/* receiving */
	uint32_t rx_next;          /* sequence number expected next */
	/* counters */
	uint64_t retransmits;      /* frames sent again */
	uint64_t duplicates;       /* data frames received twice or early */
};

void link_init(struct link *l, link_emit_fn emit, void *ctx, uint64_t timeout_ms);
/* Our window (1 .. LINK_WINDOW_MAX), said in our HELLOs; LINK_WINDOW
 * after link_init. */
void link_set_window(struct link *l, unsigned frames);
/* Frames we may have unacknowledged now: min(ours, the peer's). */
unsigned link_send_window(const struct link *l);
/* Send a HELLO with this nonce (the initiator calls it until link->up). */
void link_hello(struct link *l, uint32_t nonce);
/* Room in the window for another message? */
bool link_can_send(const struct link *l);
/* Every message sent has been acknowledged. */
bool link_idle(const struct link *l);
/* Queue and send a message; -1 when the window is full or len too big. */
int link_send(struct link *l, uint8_t type, uint8_t channel,
	      const void *payload, size_t len, uint64_t now);
/* Handle a received frame. True when f is a new message for the
 * application (it must be consumed before the next call). */
bool link_receive(struct link *l, const struct frame *f, uint64_t now);
/* Resend what has timed out. */
void link_poll(struct link *l, uint64_t now);
/* Milliseconds until link_poll has work, or -1 when nothing is pending. */
long link_wait_ms(const struct link *l, uint64_t now);

#endif
