/*
 * Console output and the kernel log.
 *
 * Locking: console_lock (irqsave) serialises whole kprintf/klog calls so
 * lines from different CPUs never interleave; it also protects the log
 * ring. Once log_enter_panic() ran, output goes out unlocked: the panicking
 * CPU may hold the lock, and other CPUs are being stopped.
 */
#include <stdio.h>
#include <string.h>
#include "fbcon.h"
#include "log.h"
#include "serial.h"
#include "spinlock.h"
#include "core/arch/tsc.h"

static struct spinlock console_lock = SPINLOCK_INIT("console");
static volatile bool panicking;

static char ring[LOG_RING_SIZE];
static size_t ring_head;   /* total bytes ever written; index = head % size */

static void ring_put(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		ring[(ring_head + i) % LOG_RING_SIZE] = s[i];
	ring_head += n;
}

size_t log_read(char *buf, size_t max)
{
	uint64_t f = spin_lock_irqsave(&console_lock);
	size_t avail = ring_head < LOG_RING_SIZE ? ring_head : LOG_RING_SIZE;
	size_t n = avail < max ? avail : max;
	size_t start = ring_head - avail + (avail - n);
	for (size_t i = 0; i < n; i++)
		buf[i] = ring[(start + i) % LOG_RING_SIZE];
	spin_unlock_irqrestore(&console_lock, f);
	return n;
}

void log_enter_panic(void)
{
	panicking = true;
}

struct sink_ctx {
	bool to_ring;
};

static void console_sink(void *ctx, const char *s, size_t n)
{
	struct sink_ctx *c = ctx;
	serial_write(s, n);
	fbcon_write(s, n);
	if (c->to_ring)
		ring_put(s, n);
}

static uint64_t console_lock_take(void)
{
	if (panicking)
		return irq_save();
	return spin_lock_irqsave(&console_lock);
}

static void console_lock_drop(uint64_t flags)
{
	if (panicking)
		irq_restore(flags);
	else
		spin_unlock_irqrestore(&console_lock, flags);
}

void console_write(const char *s, size_t n)
{
	uint64_t f = console_lock_take();
	serial_write(s, n);
	fbcon_write(s, n);
	console_lock_drop(f);
}

void console_write_raw(const void *p, size_t n)
{
	uint64_t f = console_lock_take();
	serial_write_raw(p, n);
	console_lock_drop(f);
}

int vkprintf(const char *fmt, va_list ap)
{
	struct sink_ctx c = { .to_ring = false };
	uint64_t f = console_lock_take();
	int n = vformat(console_sink, &c, fmt, ap);
	console_lock_drop(f);
	return n;
}

int kprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vkprintf(fmt, ap);
	va_end(ap);
	return n;
}

static void format_to_sink(struct sink_ctx *c, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vformat(console_sink, c, fmt, ap);
	va_end(ap);
}

void klog(const char *fmt, ...)
{
	struct sink_ctx c = { .to_ring = true };
	uint64_t us = time_since_boot_ns() / 1000;
	va_list ap;
	va_start(ap, fmt);
	uint64_t f = console_lock_take();
	format_to_sink(&c, "[%5llu.%06llu] ", (unsigned long long)(us / 1000000),
		       (unsigned long long)(us % 1000000));
	vformat(console_sink, &c, fmt, ap);
	console_sink(&c, "\n", 1);
	console_lock_drop(f);
	va_end(ap);
}
