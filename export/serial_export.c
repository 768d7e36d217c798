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
#include "core/virtio_console.h"
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
/* On the virtio console the line is as fast as the emulation: room
 * for a link window of frames each way (wire/link.h, LINK_WINDOW_MAX). */
#define VIRTIO_TXQ 65536
#define VIRTIO_RXQ 65536
/* Idle polling period. Under a FIFO's time on the line (1.39 ms for
 * 16 bytes at 115200), so that a paced line is kept full: sleeping a
 * whole FIFO's time sent 16 bytes every 1.4 ms plus the wake-up, 25%
 * under the line rate (the bank holds at most a FIFO's worth). */
#define IDLE_NS 1000000ULL
#define READ_MAX 16384   /* bytes a read() of /dev/export returns at most */
#define ROUND_MAX 1024   /* bytes sent a round: the thread checks for resched between */

struct queue {
	uint8_t *buf;
	size_t size, head, len;    /* bytes buf[head .. head+len) modulo size */
};

static struct uart *exp_uart;
static bool exp_virtio;      /* export=virtio: core/virtio_console.c */
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

/* The free bytes after the queued ones that are contiguous in buf. */
static size_t q_tail_run(const struct queue *q, uint8_t **at)
{
	size_t tail = (q->head + q->len) & (q->size - 1);
	size_t room = q->size - q->len, run = q->size - tail;
	*at = q->buf + tail;
	return room < run ? room : run;
}

/* The queued bytes from head that are contiguous in buf. */
static size_t q_head_run(const struct queue *q, uint8_t **at)
{
	size_t run = q->size - q->head;
	*at = q->buf + q->head;
	return q->len < run ? q->len : run;
}

static void q_drop_head(struct queue *q, size_t n)
{
	q->head = (q->head + n) & (q->size - 1);
	q->len -= n;
}

/* n bytes that fit (the caller checked the room). */
static void q_put(struct queue *q, const uint8_t *p, size_t n)
{
	while (n) {
		uint8_t *at;
		size_t k = q_tail_run(q, &at);
		k = k < n ? k : n;
		memcpy(at, p, k);
		q->len += k;
		p += k;
		n -= k;
	}
}

static size_t q_take(struct queue *q, uint8_t *dst, size_t max)
{
	size_t done = 0;
	while (done < max && q->len) {
		uint8_t *at;
		size_t k = q_head_run(q, &at);
		k = k < max - done ? k : max - done;
		memcpy(dst + done, at, k);
		q_drop_head(q, k);
		done += k;
	}
	return done;
}

struct uart *serial_export_uart(void)
{
	return exp_uart;
}

bool serial_export_put(const void *p, size_t n)
{
	if (!txq.buf)
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

/* export_pack=0|1, read at boot; -1: not given. */
static int pack_setting = -1;

bool serial_export_wants_packing(void)
{
	return pack_setting >= 0 ? pack_setting != 0 : !exp_virtio;
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
	if (txq.buf)
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

/*
 * The virtio console: received bytes straight into the receive queue's
 * free run, queued bytes straight from the transmit queue into the
 * device's buffers, a page each, one notification for all of them.
 * The copies run without export_lock: only this thread adds to rxq's
 * tail and takes from txq's head, so those runs cannot move under it;
 * the lock covers the length updates that writers and readers see.
 */
static bool pump_virtio_rx(void)
{
	bool moved = false;
	for (;;) {
		uint8_t *at;
		uint64_t fl = spin_lock_irqsave(&export_lock);
		size_t run = q_tail_run(&rxq, &at);
		spin_unlock_irqrestore(&export_lock, fl);
		size_t n = run ? vcon_read(at, run) : 0;
		if (!n)
			break;
		fl = spin_lock_irqsave(&export_lock);
		rxq.len += n;
		spin_unlock_irqrestore(&export_lock, fl);
		moved = true;
	}
	if (moved) {
		waitq_wake_all(&readers);
		poll_wake_all();
	}
	return moved;
}

static bool pump_virtio_tx(void)
{
	bool moved = false, was_full = false;
	uint8_t *buf;
	while ((buf = vcon_tx_buffer())) {
		uint8_t *at;
		uint64_t fl = spin_lock_irqsave(&export_lock);
		size_t n = q_head_run(&txq, &at);
		was_full |= txq.size - txq.len < 4096;
		spin_unlock_irqrestore(&export_lock, fl);
		n = n < VCON_BUF ? n : VCON_BUF;
		if (!n)
			break;
		memcpy(buf, at, n);
		vcon_tx_submit(n);
		fl = spin_lock_irqsave(&export_lock);
		q_drop_head(&txq, n);
		spin_unlock_irqrestore(&export_lock, fl);
		moved = true;
	}
	vcon_tx_kick();
	if (moved && was_full) {
		waitq_wake_all(&writers);
		poll_wake_all();
	}
	return moved;
}

static bool pump_line(void)
{
	if (exp_virtio) {
		bool moved = pump_virtio_rx();
		return pump_virtio_tx() || moved;
	}
	return exp_uart && pump_uart();
}

static int export_thread(void *arg)
{
	(void)arg;
	for (;;) {
		uint64_t t0 = time_since_boot_ns();
		bool moved = producer && producer();
		if (pump_line())
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
	/* Up to READ_MAX bytes a call, through a small buffer: the lock
	 * is not held while user memory is written. */
	uint8_t buf[512];
	long done = 0;
	while (u->resid && done < READ_MAX) {
		uint64_t fl = spin_lock_irqsave(&export_lock);
		size_t n = q_take(&rxq, buf, u->resid < sizeof(buf) ? u->resid : sizeof(buf));
		spin_unlock_irqrestore(&export_lock, fl);
		if (!n)
			break;
		r = uio_copy_out(u, buf, n);
		if (r < 0)
			return done ? done : r;
		done += r;
	}
	return done;
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

static bool make_queues(size_t tx_size, size_t rx_size)
{
	txq = (struct queue){ .buf = kmalloc(tx_size), .size = tx_size };
	rxq = (struct queue){ .buf = kmalloc(rx_size), .size = rx_size };
	return txq.buf && rxq.buf;
}

/* export=virtio: the frames on the virtio console, if there is one. */
static void virtio_export_init(void)
{
	if (!vcon_init()) {
		klog("serial: export=virtio: no virtio console; frames stay on the console");
		return;
	}
	if (!make_queues(VIRTIO_TXQ, VIRTIO_RXQ))
		panic("serial: no memory for the export queues");
	exp_virtio = true;
	/* The hvc major, as Linux numbers its virtio consoles: the agent
	 * tells this line from a UART by it (apps/agent/main.c). */
	devfs_register("export", 0600, mkdev(229, 0), &export_fops);
	char where[40];
	vcon_describe(where, sizeof(where));
	klog("serial: export=virtio (%s): /dev/export", where);
}

void serial_export_init(void)
{
	if (cmdline_get("export_pack"))
		pack_setting = cmdline_get_u64("export_pack", 1) != 0;
	const char *spec = cmdline_get("export");
	if (!spec)
		return;
	if (strcmp(spec, "virtio") == 0) {
		virtio_export_init();
		return;
	}
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
	if (!make_queues(TXQ, RXQ))
		panic("serial: no memory for the export queues");
	uart_program(u, baud);
	exp_uart = u;
	pace = cmdline_has("export_pace");
	devfs_register("export", 0600, mkdev(4, 127), &export_fops);
	klog("serial: export=%s at %u baud: /dev/export", spec, u->baud);
}
