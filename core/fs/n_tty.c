/*
 * The console's line discipline, after Linux's n_tty: canonical mode
 * with echo and editing (erase, kill, word erase; ^D at the start of a
 * line reads as end of file), ^C, ^\ and ^Z sending SIGINT, SIGQUIT and
 * SIGTSTP to the foreground process group, non-canonical mode with VMIN.
 *
 * Input arrives through console_input_byte, possibly in an interrupt
 * handler, under tty.lock (see tty.h). Echo is written and signals are
 * sent after the lock is dropped.
 */
#include <asm/signal.h>
#include "core/log.h"
#include "core/serial.h"
#include "tty.h"

struct tty console_tty = {
	.lock = SPINLOCK_INIT("tty"),
	.tio = {
		.c_iflag = ICRNL | IXON,
		.c_oflag = OPOST | ONLCR,
		.c_cflag = B115200 | CS8 | CREAD | HUPCL | CLOCAL,
		.c_lflag = ISIG | ICANON | ECHO | ECHOE | ECHOK | ECHOCTL |
			   ECHOKE | IEXTEN,
		.c_cc = { [VINTR] = 3, [VQUIT] = 28, [VERASE] = 127,
			  [VKILL] = 21, [VEOF] = 4, [VTIME] = 0, [VMIN] = 1,
			  [VSTART] = 17, [VSTOP] = 19, [VSUSP] = 26,
			  [VREPRINT] = 18, [VDISCARD] = 15, [VWERASE] = 23,
			  [VLNEXT] = 22 },
	},
	.ws = { .ws_row = 24, .ws_col = 80 },
	.readers = WAITQ_INIT(console_tty.readers),
};

/* Bytes to echo, collected under the lock and written after it. */
struct echo {
	char buf[64];
	size_t n;
};

static void echo_add(struct echo *e, const char *s, size_t n)
{
	while (n-- && e->n < sizeof(e->buf))
		e->buf[e->n++] = *s++;
}

static bool is_ctl(unsigned char c)
{
	return (c < 32 && c != '\t' && c != '\n') || c == 127;
}

/* Echo c as the terminal would show it. */
static void echo_char(struct tty *t, struct echo *e, unsigned char c)
{
	if (!(t->tio.c_lflag & ECHO)) {
		if (c == '\n' && (t->tio.c_lflag & ECHONL))
			echo_add(e, "\n", 1);
		return;
	}
	if (is_ctl(c) && (t->tio.c_lflag & ECHOCTL)) {
		char s[2] = { '^', (char)(c ^ 0x40) };
		echo_add(e, s, 2);
	} else {
		echo_add(e, (const char *)&c, 1);
	}
}

static bool bit(const uint8_t *map, size_t i)
{
	return map[i / 8] >> (i % 8) & 1;
}

static void set_bit_to(uint8_t *map, size_t i, bool v)
{
	if (v)
		map[i / 8] |= (uint8_t)(1u << (i % 8));
	else
		map[i / 8] &= (uint8_t)~(1u << (i % 8));
}

/* Append one byte to the input ring; false when full. */
static bool ring_put(struct tty *t, char c, bool delim, bool eof)
{
	if (t->count == TTY_BUF)
		return false;
	size_t i = (t->head + t->count++) % TTY_BUF;
	t->ring[i] = c;
	set_bit_to(t->delim, i, delim);
	set_bit_to(t->eof, i, eof);
	t->lines += delim;
	return true;
}

static void flush_input(struct tty *t)
{
	t->count = t->lines = t->line_len = 0;
}

/* Move the edited line into the ring, ending it with a delimiter (an
 * EOF mark when eof is set). */
static void commit_line(struct tty *t, bool eof)
{
	size_t need = t->line_len + (eof ? 1 : 0);
	if (need == 0 || TTY_BUF - t->count < need) {
		t->line_len = 0;
		return;   /* no room: the line is lost, as on a full n_tty */
	}
	for (size_t i = 0; i < t->line_len; i++)
		ring_put(t, t->line[i], !eof && i + 1 == t->line_len, false);
	if (eof)
		ring_put(t, 0, true, true);
	t->line_len = 0;
}

static void erase_one(struct tty *t, struct echo *e)
{
	unsigned char c = (unsigned char)t->line[--t->line_len];
	if ((t->tio.c_lflag & (ECHO | ECHOE)) != (ECHO | ECHOE))
		return;
	int cols = is_ctl(c) && (t->tio.c_lflag & ECHOCTL) ? 2 : 1;
	while (cols--)
		echo_add(e, "\b \b", 3);
}

static bool is_word_char(char c)
{
	return c != ' ' && c != '\t';
}

/* Is c the special character cc[idx]? (0 disables one.) */
static bool is_cc(const struct tty *t, unsigned char c, int idx)
{
	return c && c == t->tio.c_cc[idx];
}

/* Canonical-mode editing and line completion. Backspace (^H) erases as
 * well as VERASE, since serial terminals send either. */
static void canon_input(struct tty *t, unsigned char c, struct echo *e)
{
	bool iext = t->tio.c_lflag & IEXTEN;
	if (is_cc(t, c, VERASE) || c == '\b') {
		if (t->line_len)
			erase_one(t, e);
	} else if (is_cc(t, c, VKILL)) {
		while (t->line_len)
			erase_one(t, e);
	} else if (iext && is_cc(t, c, VWERASE)) {
		while (t->line_len && !is_word_char(t->line[t->line_len - 1]))
			erase_one(t, e);
		while (t->line_len && is_word_char(t->line[t->line_len - 1]))
			erase_one(t, e);
	} else if (is_cc(t, c, VEOF)) {
		commit_line(t, t->line_len == 0);
	} else if (c == '\n' || is_cc(t, c, VEOL) || is_cc(t, c, VEOL2)) {
		t->line[t->line_len++] = (char)c;
		echo_char(t, e, c);
		commit_line(t, false);
	} else if (t->line_len < TTY_BUF - 1) {
		t->line[t->line_len++] = (char)c;
		echo_char(t, e, c);
	}
}

/* Input mapping and signal characters; returns a signal to send or 0. */
static int receive_locked(struct tty *t, unsigned char c, struct echo *e)
{
	tcflag_t ifl = t->tio.c_iflag, lfl = t->tio.c_lflag;
	if (ifl & ISTRIP)
		c &= 0x7f;
	if (c == '\r' && (ifl & IGNCR))
		return 0;
	if (c == '\r' && (ifl & ICRNL))
		c = '\n';
	else if (c == '\n' && (ifl & INLCR))
		c = '\r';
	if ((ifl & IXON) && (is_cc(t, c, VSTART) || is_cc(t, c, VSTOP)))
		return 0;   /* flow control: output is never held here */
	if (lfl & ISIG) {
		int sig = is_cc(t, c, VINTR) ? SIGINT : is_cc(t, c, VQUIT) ? SIGQUIT :
			  is_cc(t, c, VSUSP) ? SIGTSTP : 0;
		if (sig) {
			if (!(lfl & NOFLSH))
				flush_input(t);
			echo_char(t, e, c);
			return sig;
		}
	}
	if (lfl & ICANON)
		canon_input(t, c, e);
	else if (ring_put(t, (char)c, false, false))
		echo_char(t, e, c);
	return 0;
}

void console_input_byte(char c)
{
	struct tty *t = &console_tty;
	struct echo e = { .n = 0 };
	uint64_t fl = spin_lock_irqsave(&t->lock);
	int sig = receive_locked(t, (unsigned char)c, &e);
	int pgrp = t->pgrp;
	spin_unlock_irqrestore(&t->lock, fl);
	if (e.n)
		console_write(e.buf, e.n);
	if (sig && pgrp > 0)
		signal_send_pgrp(pgrp, sig);
	waitq_wake_all(&t->readers);
	poll_wake_all();
}

void console_poll_serial(void)
{
	int c;
	while ((c = serial_getc()) >= 0)
		console_input_byte((char)c);
}

void console_set_foreground(int pgid)
{
	__atomic_store_n(&console_tty.pgrp, pgid, __ATOMIC_RELAXED);
}

/* ---- what the device side uses ---- */

/* Enough input for a read of `want` bytes? */
static bool input_ready(struct tty *t, size_t want)
{
	if (t->tio.c_lflag & ICANON)
		return t->lines > 0;
	size_t vmin = t->tio.c_cc[VMIN];
	if (vmin == 0)
		return t->count > 0;
	return t->count >= (vmin < want ? vmin : want);
}

/* Take up to max bytes; *end set when a canonical line (or EOF) ended. */
static size_t take_locked(struct tty *t, char *dst, size_t max, bool *end)
{
	size_t n = 0;
	bool canon = t->tio.c_lflag & ICANON;
	while (n < max && t->count) {
		size_t i = t->head;
		bool delim = bit(t->delim, i), eof = bit(t->eof, i);
		t->head = (t->head + 1) % TTY_BUF;
		t->count--;
		t->lines -= delim;
		if (!eof)
			dst[n++] = t->ring[i];
		if (canon && delim) {
			*end = true;
			break;
		}
	}
	return n;
}

bool tty_ready(struct tty *t, size_t want)
{
	uint64_t fl = spin_lock_irqsave(&t->lock);
	bool r = input_ready(t, want);
	spin_unlock_irqrestore(&t->lock, fl);
	return r;
}

size_t tty_take(struct tty *t, char *dst, size_t max, bool *end)
{
	uint64_t fl = spin_lock_irqsave(&t->lock);
	size_t n = take_locked(t, dst, max, end);
	spin_unlock_irqrestore(&t->lock, fl);
	return n;
}

void tty_flush_input(struct tty *t)
{
	uint64_t fl = spin_lock_irqsave(&t->lock);
	flush_input(t);
	spin_unlock_irqrestore(&t->lock, fl);
}

void tty_set_termios(struct tty *t, const struct termios *tio, bool flush)
{
	uint64_t fl = spin_lock_irqsave(&t->lock);
	bool was_canon = t->tio.c_lflag & ICANON;
	t->tio = *tio;
	if (was_canon && !(tio->c_lflag & ICANON)) {
		for (size_t i = 0; i < t->line_len; i++)
			ring_put(t, t->line[i], false, false);
		t->line_len = 0;
	}
	if (flush)
		flush_input(t);
	spin_unlock_irqrestore(&t->lock, fl);
	waitq_wake_all(&t->readers);
	poll_wake_all();
}

int tty_input_bytes(struct tty *t)
{
	uint64_t fl = spin_lock_irqsave(&t->lock);
	int n = 0;
	for (size_t i = 0; i < t->count; i++)
		n += !bit(t->eof, (t->head + i) % TTY_BUF);
	spin_unlock_irqrestore(&t->lock, fl);
	return n;
}
