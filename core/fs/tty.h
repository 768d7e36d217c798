/*
 * The console terminal: its state, shared by the line discipline
 * (n_tty.c: input processing) and the device (tty.c: read, write, poll,
 * ioctl). There is one terminal, the serial console.
 *
 * Locking: tty.lock (irqsave; input arrives in interrupt handlers)
 * guards the termios, the input ring and the line being edited. The
 * tty_* functions below take it themselves.
 */
#ifndef BAREMON_TTY_H
#define BAREMON_TTY_H

#include <asm/termios.h>
#include "fs.h"

#define TTY_BUF 4096

struct tty {
	struct spinlock lock;
	struct termios tio;
	struct winsize ws;
	int pgrp;                       /* foreground process group */
	char ring[TTY_BUF];             /* input ready for readers */
	uint8_t delim[TTY_BUF / 8];     /* byte ends a line (canonical) */
	uint8_t eof[TTY_BUF / 8];       /* byte is an EOF mark, not data */
	size_t head, count;
	unsigned lines;                 /* delimiters in the ring */
	char line[TTY_BUF];             /* canonical line being edited */
	size_t line_len;
	struct waitq readers;
};

extern struct tty console_tty;

/* Enough input for a read of `want` bytes (a line in canonical mode)? */
bool tty_ready(struct tty *t, size_t want);
/* Take up to max input bytes; *end is set when a canonical line (or an
 * end of file mark) was finished. */
size_t tty_take(struct tty *t, char *dst, size_t max, bool *end);
void tty_set_termios(struct tty *t, const struct termios *tio, bool flush);
void tty_flush_input(struct tty *t);
/* Bytes a read could return now (FIONREAD). */
int tty_input_bytes(struct tty *t);

#endif
