/*
 * The export UART (`export=SPEC`, docs/export.md): a second UART that
 * carries the frame stream while the console keeps the first. User
 * space reaches it as /dev/export, a raw byte stream (the agent speaks
 * the protocol on it: `agent /dev/export`); the kernel's exporter
 * (export/exporter.c) queues frames to it with serial_export_put().
 *
 * Only the export thread ("exportd", pinned to CPU 0, the housekeeping
 * CPU) touches the UART: it moves bytes from the transmit queue to the
 * UART while the transmitter has room, collects received bytes into
 * the receive queue, runs the exporter's producer, and sleeps 1 ms when
 * there is nothing to do. So a measured CPU never waits for the line.
 *
 * Locking: export_lock (irqsave) guards both queues; it is never held
 * while user memory is copied (writes go through a kernel buffer) or
 * while the UART is polled.
 */
#include <errno.h>
#include <string.h>
#include <linux/poll.h>
#include "core/serial.h"
#include "serial_export.h"
#include "core/cmdline.h"
#include "core/log.h"
#include "core/fs/fs.h"
#include "core/fs/vfs.h"
#include "core/mm/mm.h"
#include "core/proc/sched.h"
#include "core/proc/task.h"
#include "core/proc/tasks.h"
#include "core/arch/tsc.h"
#include "core/proc/waitq.h"

#define TXQ 16384    /* a power of two; at least a few frames */
#define RXQ 8192
/* Idle polling period. Under a FIFO's time on the line (1.39 ms for
 * 16 bytes at 115200), so that a paced line is kept full: sleeping a
 * whole FIFO's time sent 16 bytes every 1.4 ms plus the wake-up, 25%
 * under the line rate (the bank holds at most a FIFO's worth). */
#define IDLE_NS 1000000ULL
#define ROUND_MAX 1024   /* bytes sent a round: the thread checks for resched between */

struct queue {
	uint8_t *buf;
	size_t size, head, len;    /* bytes buf[head .. head+len) modulo size */
};

static struct uart *exp_uart;
static struct spinlock export_lock = SPINLOCK_INIT("export");
static struct queue txq, rxq;
static struct waitq readers = WAITQ_INIT(readers);
static struct waitq writers = WAITQ_INIT(writers);
static struct task *thread;
static bool (*producer)(void);
/* export_pace: send no faster than the programmed baud rate (10 bits a
 * byte), as a real line would; under QEMU the line is otherwise as
 * fast as the emulation. pace_start/pace_sent: since the first byte. */
static bool pace;
static uint64_t pace_start, pace_sent;
static uint64_t rx_dropped;
static uint64_t busy_ns;   /* the export thread's rounds that moved bytes */

static void q_put(struct queue *q, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		q->buf[(q->head + q->len + i) & (q->size - 1)] = p[i];
	q->len += n;
}

static size_t q_take(struct queue *q, uint8_t *dst, size_t max)
{
	size_t n = q->len < max ? q->len : max;
	for (size_t i = 0; i < n; i++)
		dst[i] = q->buf[(q->head + i) & (q->size - 1)];
	q->head = (q->head + n) & (q->size - 1);
	q->len -= n;
	return n;
}

struct uart *serial_export_uart(void)
{
	return exp_uart;
}

bool serial_export_put(const void *p, size_t n)
{
	if (!exp_uart)
		return false;
	bool ok = false;
	uint64_t fl = spin_lock_irqsave(&export_lock);
	if (txq.size - txq.len >= n) {
		q_put(&txq, p, n);
		ok = true;
	}
	spin_unlock_irqrestore(&export_lock, fl);
	return ok;
}

size_t serial_export_room(void)
{
	uint64_t fl = spin_lock_irqsave(&export_lock);
	size_t room = txq.size - txq.len;
	spin_unlock_irqrestore(&export_lock, fl);
	return room;
}

bool serial_export_send(const void *p, size_t n)
{
	if (exp_uart)
		return serial_export_put(p, n);
	console_write_raw(p, n);
	return true;
}

uint64_t serial_export_busy_ns(void)
{
	return __atomic_load_n(&busy_ns, __ATOMIC_RELAXED);
}

void serial_export_set_producer(bool (*fn)(void))
{
	producer = fn;
}

/* Bytes the line may take now: a FIFO's worth, or with export_pace
 * what the baud rate has let out since the first byte. */
static size_t tx_allowed(void)
{
	size_t fifo = uart_fifo_size(exp_uart);
	if (!pace)
		return SIZE_MAX;
	uint64_t now = time_since_boot_ns();
	if (!pace_start)
		pace_start = now;
	uint64_t due = (now - pace_start) / 1000 * (exp_uart->baud / 10) / 1000000;
	/* An idle line banks no credit: at most a FIFO's worth is due at
	 * once (else after a pause it ran unpaced). */
	if (due > pace_sent + fifo)
		pace_sent = due - fifo;
	return due > pace_sent ? due - pace_sent : 0;
}

/*
 * Send while the transmitter reports empty: a FIFO's worth each time
 * (16 bytes on a 16550A; one poll of LSR a burst, not a byte), as many
 * bursts as it takes - on a real line it is busy again after one, under
 * QEMU it empties at once (up to ROUND_MAX a round). Writers and pollers are woken only when the
 * queue had less room than a write may need (4 KiB): waking them for
 * every burst cost more than the burst.
 */
static bool send_bursts(void)
{
	size_t allowed = tx_allowed(), sent = 0, fifo = uart_fifo_size(exp_uart);
	uint8_t b[16];
	bool was_full = false;
	while (allowed > sent && sent < ROUND_MAX && uart_tx_ready(exp_uart)) {
		size_t want = allowed - sent < fifo ? allowed - sent : fifo;
		uint64_t fl = spin_lock_irqsave(&export_lock);
		was_full |= txq.size - txq.len < 4096;
		size_t n = q_take(&txq, b, want < sizeof(b) ? want : sizeof(b));
		pace_sent += n;
		spin_unlock_irqrestore(&export_lock, fl);
		if (!n)
			break;
		uart_write_fifo(exp_uart, b, n);
		sent += n;
	}
	if (sent && was_full) {
		waitq_wake_all(&writers);
		poll_wake_all();
	}
	return sent != 0;
}

/* Receive what the UART holds; send while the transmitter takes bytes.
 * True when something moved. */
static bool pump_uart(void)
{
	bool moved = false;
	uint8_t b[64];
	size_t n = 0;
	int c;
	while (n < sizeof(b) && (c = uart_getc(exp_uart)) >= 0)
		b[n++] = (uint8_t)c;
	if (n) {
		uint64_t fl = spin_lock_irqsave(&export_lock);
		size_t room = rxq.size - rxq.len, k = n < room ? n : room;
		q_put(&rxq, b, k);
		rx_dropped += n - k;
		spin_unlock_irqrestore(&export_lock, fl);
		waitq_wake_all(&readers);
		poll_wake_all();
		moved = true;
	}
	if (send_bursts())
		moved = true;
	return moved;
}

static int export_thread(void *arg)
{
	(void)arg;
	for (;;) {
		uint64_t t0 = time_since_boot_ns();
		bool moved = producer && producer();
		if (exp_uart && pump_uart())
			moved = true;
		if (moved) {
			__atomic_add_fetch(&busy_ns, time_since_boot_ns() - t0, __ATOMIC_RELAXED);
			if (sched_need_resched())
				sched_yield_now();
			continue;
		}
		current->state = TASK_SLEEPING;
		schedule_until(time_since_boot_ns() + IDLE_NS);
		current->state = TASK_RUNNABLE;
	}
	return 0;
}

void serial_export_start_thread(void)
{
	static int started;
	if (__atomic_exchange_n(&started, 1, __ATOMIC_ACQ_REL))
		return;
	struct task *t = kthread_create(export_thread, NULL, "exportd");
	if (!t) {
		__atomic_store_n(&started, 0, __ATOMIC_RELEASE);
		return;
	}
	t->affinity = cpumask_of(0); /* the housekeeping CPU */
	thread = t;
	sched_start(t);
}

/* ---- /dev/export ---- */

static bool rx_ready(void)
{
	return __atomic_load_n(&rxq.len, __ATOMIC_ACQUIRE) > 0;
}

static long export_read(struct file *f, struct uio *u, uint64_t *pos)
{
	(void)pos;
	serial_export_start_thread();
	if (!u->resid)
		return 0;
	if (!rx_ready() && (f->flags & O_NONBLOCK))
		return -EAGAIN;
	long r = wait_event_interruptible(readers, rx_ready());
	if (r)
		return r;
	uint8_t buf[512];
	uint64_t fl = spin_lock_irqsave(&export_lock);
	size_t n = q_take(&rxq, buf, u->resid < sizeof(buf) ? u->resid : sizeof(buf));
	spin_unlock_irqrestore(&export_lock, fl);
	return uio_copy_out(u, buf, n);
}

/* One write is queued whole (when it fits the queue), so a frame
 * written in one write() is never split by another writer's bytes. */
static long export_write(struct file *f, struct uio *u, uint64_t *pos)
{
	(void)pos;
	serial_export_start_thread();
	size_t n = u->resid < 4096 ? u->resid : 4096;
	uint8_t *buf = kmalloc(n ? n : 1);
	if (!buf)
		return -ENOMEM;
	long r = uio_copy_in(u, buf, n);
	if (r <= 0)
		goto out;
	n = (size_t)r;
	while (!serial_export_put(buf, n)) {
		if (f->flags & O_NONBLOCK) {
			r = -EAGAIN;
			goto out;
		}
		long w = wait_event_interruptible(writers, serial_export_room() >= n);
		if (w) {
			r = w;
			goto out;
		}
	}
out:
	kfree(buf);
	return r;
}

static unsigned export_poll(struct file *f)
{
	(void)f;
	serial_export_start_thread();
	unsigned m = 0;
	if (rx_ready())
		m |= POLLIN | POLLRDNORM;
	if (serial_export_room() >= 2048)
		m |= POLLOUT | POLLWRNORM;
	return m;
}

static const struct file_ops export_fops = {
	.read = export_read,
	.write = export_write,
	.poll = export_poll,
};

void serial_export_init(void)
{
	const char *spec = cmdline_get("export");
	if (!spec)
		return;
	uint32_t baud = 115200;
	struct uart *u = serial_resolve(spec, &baud, 1);
	if (!u) {
		klog("serial: export=%s: no such port; frames stay on the console", spec);
		return;
	}
	if (u == serial_console()) {
		klog("serial: export=%s is the console; frames stay on it", spec);
		return;
	}
	txq = (struct queue){ .buf = kmalloc(TXQ), .size = TXQ };
	rxq = (struct queue){ .buf = kmalloc(RXQ), .size = RXQ };
	if (!txq.buf || !rxq.buf)
		panic("serial: no memory for the export queues");
	uart_program(u, baud);
	exp_uart = u;
	pace = cmdline_has("export_pace");
	devfs_register("export", 0600, mkdev(4, 127), &export_fops);
	klog("serial: export=%s at %u baud: /dev/export", spec, u->baud);
}
