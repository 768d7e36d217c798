/*
 * poweroff: the POWEROFF message (docs/export.md). The agent answers
 * RESULT(0) and then calls reboot(POWER_OFF); the kernel stops the
 * machine. Under QEMU that closes the line; a real serial line stays
 * open, so the wait for the close is bounded and only reported.
 */
#include <stdio.h>
#include <string.h>
#include "baremon.h"

#define CLOSE_WAIT_MS 10000

int cmd_poweroff(struct conn *c)
{
	conn_send(c, FRAME_POWEROFF, CHAN_CONTROL, NULL, 0);
	struct frame f;
	do
		conn_next(c, &f);
	while (f.type != FRAME_RESULT);
	int err = f.len >= 4 ? (int)get_le32(f.payload) : -1;
	if (err != 0) {
		fprintf(stderr, "baremon: poweroff refused: %.*s\n",
			f.len > 4 ? (int)strnlen((const char *)f.payload + 4, f.len - 4) : 0,
			(const char *)f.payload + 4);
		return EXIT_SOFTWARE;
	}
	conn_flush(c);
	c->powered_off = true;
	if (c->target && c->target->kind == TARGET_QEMU)
		return 0;   /* main waits for run-qemu.sh to end */
	if (conn_wait_closed(c, CLOSE_WAIT_MS))
		fprintf(stderr, "baremon: the target powered off\n");
	else
		fprintf(stderr, "baremon: poweroff sent; the line is still open\n");
	return 0;
}
