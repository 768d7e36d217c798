/*
 * The console terminal device: /dev/console, /dev/tty and /dev/ttyS0
 * are all this one terminal on COM1. Reads take input the line
 * discipline (n_tty.c) has made ready and copy it out after dropping the
 * lock; writes go straight to the console; ioctls are Linux's terminal
 * requests (termios, window size, process group, FIONREAD, flushing).
 */
#include <asm/signal.h>
#include <linux/poll.h>
#include "core/log.h"
#include "core/proc/task.h"
#include "tty.h"
#include "core/mm/mm.h"
#include "core/mm/uaccess.h"

/* ---- reading ---- */

/* Copy what input there is; *end when a canonical line or EOF ended. */
static long copy_input(struct tty *t, struct uio *u, bool *end)
{
	char buf[128];
	long done = 0;
	while (u->resid && !*end) {
		size_t n = tty_take(t, buf, u->resid < sizeof(buf) ? u->resid : sizeof(buf), end);
		if (n == 0)
			break;
		long r = uio_copy_out(u, buf, n);
		if (r < 0)
			return done ? done : r;
		done += r;
	}
	return done;
}

/* VMIN == 0 with VTIME > 0: wait up to VTIME tenths for one byte. */
static int wait_vtime(struct tty *t, unsigned vtime)
{
	uint64_t deadline = vfs_time_ns() + vtime * 100000000ULL;
	while (!tty_ready(t, 1) && vfs_time_ns() < deadline) {
		struct waiter w = { .queued = false };
		waitq_prepare(&t->readers, &w, true);
		if (!tty_ready(t, 1) && !signal_pending_current())
			schedule_until(deadline);
		waitq_finish(&t->readers, &w);
		if (signal_pending_current())
			return -ERESTARTSYS;
	}
	return 0;
}

/* Wait until a read of want bytes can proceed (VMIN/VTIME rules). */
static int wait_input(struct tty *t, struct file *f, size_t want)
{
	bool canon = t->tio.c_lflag & ICANON;
	unsigned vmin = t->tio.c_cc[VMIN], vtime = t->tio.c_cc[VTIME];
	if (tty_ready(t, want))
		return 0;
	if (f->flags & O_NONBLOCK)
		return -EAGAIN;
	if (!canon && vmin == 0)
		return vtime ? wait_vtime(t, vtime) : 0;
	return (int)wait_event_interruptible(t->readers, tty_ready(t, want));
}

static long tty_read(struct file *f, struct uio *u, uint64_t *pos)
{
	struct tty *t = &console_tty;
	size_t want = u->resid;
	for (;;) {
		int r = wait_input(t, f, want);
		if (r)
			return r;
		bool end = false;
		long n = copy_input(t, u, &end);
		bool raw_vmin0 = !(t->tio.c_lflag & ICANON) && t->tio.c_cc[VMIN] == 0;
		if (n != 0 || end || raw_vmin0)
			return n;
		/* another reader took the input first: wait again */
	}
}

/* ---- writing, polling ---- */

/* With OPOST off, a write of up to RAW_WRITE_MAX bytes goes out unchanged
 * and in one piece (the export agent's frames, docs/export.md). */
#define RAW_WRITE_MAX 4096

static long tty_write_raw(struct uio *u)
{
	size_t n = u->resid < RAW_WRITE_MAX ? u->resid : RAW_WRITE_MAX;
	char *buf = kmalloc(n);
	if (!buf)
		return -ENOMEM;
	long r = uio_copy_in(u, buf, n);
	if (r > 0)
		console_write_raw(buf, (size_t)r);
	kfree(buf);
	return r;
}

static long tty_write(struct file *f, struct uio *u, uint64_t *pos)
{
	if (!(console_tty.tio.c_oflag & OPOST))
		return tty_write_raw(u);
	char buf[256];
	long done = 0;
	while (u->resid) {
		long r = uio_copy_in(u, buf, u->resid < sizeof(buf) ? u->resid : sizeof(buf));
		if (r < 0)
			return done ? done : r;
		console_write(buf, (size_t)r);
		done += r;
	}
	return done;
}

static unsigned tty_poll(struct file *f)
{
	unsigned m = POLLOUT | POLLWRNORM;
	if (tty_ready(&console_tty, 1))
		m |= POLLIN | POLLRDNORM;
	return m;
}

/* ---- ioctl ---- */


static long ioctl_termios2(struct tty *t, unsigned cmd, void *up)
{
	struct termios2 t2;
	if (cmd == TCGETS2) {
		memcpy(&t2, &t->tio, sizeof(t->tio));
		t2.c_ispeed = t2.c_ospeed = 115200;
		return copy_to_user(up, &t2, sizeof(t2));
	}
	if (copy_from_user(&t2, up, sizeof(t2)))
		return -EFAULT;
	struct termios tio;
	memcpy(&tio, &t2, sizeof(tio));
	tty_set_termios(t, &tio, cmd == TCSETSF2);
	return 0;
}

static long ioctl_winsize(struct tty *t, unsigned cmd, void *up)
{
	if (cmd == TIOCGWINSZ)
		return copy_to_user(up, &t->ws, sizeof(t->ws));
	struct winsize ws;
	if (copy_from_user(&ws, up, sizeof(ws)))
		return -EFAULT;
	bool changed = memcmp(&ws, &t->ws, sizeof(ws)) != 0;
	t->ws = ws;
	if (changed && t->pgrp > 0)
		signal_send_pgrp(t->pgrp, SIGWINCH);
	return 0;
}

static int foreground(struct tty *t)
{
	int pg = __atomic_load_n(&t->pgrp, __ATOMIC_RELAXED);
	struct task *cur = current;
	return pg > 0 ? pg : cur ? cur->pgid : 0;
}

static long ioctl_pgrp(struct tty *t, unsigned cmd, void *up)
{
	struct task *cur = current;
	if (cmd == TIOCGPGRP)
		return put_user(foreground(t), (int *)up);
	if (cmd == TIOCGSID)
		return put_user(cur ? cur->sid : 0, (int *)up);
	int pg;
	if (get_user(pg, (int *)up))
		return -EFAULT;
	if (pg < 0)
		return -EINVAL;
	console_set_foreground(pg);
	return 0;
}

static long ioctl_flush(struct tty *t, uint64_t arg)
{
	if (arg > TCIOFLUSH)
		return -EINVAL;
	if (arg != TCOFLUSH)
		tty_flush_input(t);
	return 0;
}

static long tty_ioctl(struct file *f, unsigned cmd, uint64_t arg)
{
	struct tty *t = &console_tty;
	void *up = (void *)arg;
	struct termios tio;
	switch (cmd) {
	case TCGETS:
		tio = t->tio;
		return copy_to_user(up, &tio, sizeof(tio));
	case TCSETS:
	case TCSETSW:
	case TCSETSF:
		if (copy_from_user(&tio, up, sizeof(tio)))
			return -EFAULT;
		tty_set_termios(t, &tio, cmd == TCSETSF);
		return 0;
	case TCGETS2: case TCSETS2: case TCSETSW2: case TCSETSF2:
		return ioctl_termios2(t, cmd, up);
	case TIOCGWINSZ: case TIOCSWINSZ:
		return ioctl_winsize(t, cmd, up);
	case TIOCGPGRP: case TIOCSPGRP: case TIOCGSID:
		return ioctl_pgrp(t, cmd, up);
	case FIONREAD:
		return put_user(tty_input_bytes(t), (int *)up);
	case TIOCOUTQ:
		return put_user(0, (int *)up);
	case TCFLSH:
		return ioctl_flush(t, arg);
	case TIOCSCTTY: case TIOCNOTTY: case TCSBRK: case TCSBRKP: case TCXONC:
		return 0;
	default:
		return -ENOTTY;
	}
}

const struct file_ops tty_fops = {
	.read = tty_read,
	.write = tty_write,
	.ioctl = tty_ioctl,
	.poll = tty_poll,
};

/* For the self-tests: change c_lflag (flushing input); the old value. */
unsigned tty_test_set_lflag(unsigned set, unsigned clear)
{
	struct termios tio = console_tty.tio;
	unsigned old = tio.c_lflag;
	tio.c_lflag = (tio.c_lflag | set) & ~clear;
	tty_set_termios(&console_tty, &tio, true);
	return old;
}
