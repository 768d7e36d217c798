/* Things nearly every kernel file needs. */
#ifndef BAREMON_KERNEL_H
#define BAREMON_KERNEL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define ALIGN_UP(x, a) (((x) + (a) - 1) & ~((__typeof__(x))(a) - 1))
#define ALIGN_DOWN(x, a) ((x) & ~((__typeof__(x))(a) - 1))
#define PAGE_SIZE 4096ULL
#define KiB(x) ((uint64_t)(x) << 10)
#define MiB(x) ((uint64_t)(x) << 20)
#define GiB(x) ((uint64_t)(x) << 30)

#define __noreturn __attribute__((noreturn))
#define __packed __attribute__((packed))
#define __printf(a, b) __attribute__((format(printf, a, b)))
#define __used __attribute__((used))
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

/* A pointer that carries an errno instead (-4095..-1), as in Linux. */
#define ERR_PTR(err) ((void *)(intptr_t)(err))
#define PTR_ERR(p) ((long)(intptr_t)(p))
#define IS_ERR(p) ((uintptr_t)(p) >= (uintptr_t)-4095)

/* Console output (serial) without a log prefix; see log.c. */
int kprintf(const char *fmt, ...) __printf(1, 2);
int vkprintf(const char *fmt, va_list ap);

/* One kernel log line: timestamped, kept in the dmesg ring, printed. */
void klog(const char *fmt, ...) __printf(1, 2);

/* Print a panic report (registers when known, backtrace) and stop. */
void panic(const char *fmt, ...) __printf(1, 2) __noreturn;

#define BUG_ON(cond)                                                         \
	do {                                                                 \
		if (unlikely(cond))                                          \
			panic("BUG_ON(%s) at %s:%d", #cond, __FILE__, __LINE__); \
	} while (0)

/* Set bits in x (no POPCNT assumed: the kernel is built for any x86-64). */
static inline unsigned popcount64(uint64_t x)
{
	unsigned n = 0;
	for (; x; x &= x - 1)
		n++;
	return n;
}

#endif
