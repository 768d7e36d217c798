/*
 * stdio.h: formatted output (libc-lite). There are no FILE streams.
 *
 * Conversions: %d %i %u %o %x %X %c %s %p %%.
 * Flags: '-' '0' '+' ' ' '#'. Width and precision, either may be '*'
 * (a negative '*' width means '-' plus its magnitude; a negative '*'
 * precision means none). Length modifiers: hh h l ll z j t.
 *
 * Results match C99 and glibc, including these choices:
 * - %s of NULL prints "(null)", or nothing when a precision smaller than
 *   6 is given (as glibc does).
 * - %p prints "0x" and lowercase hex digits, as %#lx would (so width,
 *   precision and the '0' '+' ' ' flags apply); NULL prints "(nil)".
 * - '0' pads only numbers; %c and %s pad with spaces.
 * - %% ignores any flags, width and precision.
 * Not supported, and printed literally from the '%' through the conversion
 * character (no argument is consumed for the conversion itself): floating
 * point (%f %F %e %E %g %G %a %A; the kernel has no FPU state to use), %n,
 * %lc, %ls, and anything else unknown. A '%' at the very end of the format,
 * or a directive cut short by the end of the format, is printed literally.
 */
#ifndef LIBC_LITE_STDIO_H
#define LIBC_LITE_STDIO_H

#include <stdarg.h>
#include <stddef.h>

/*
 * Receives formatted output: n bytes at s (not NUL-terminated, n > 0).
 * Called any number of times per vformat call, in output order.
 */
typedef void (*fmt_sink)(void *ctx, const char *s, size_t n);

/*
 * Format fmt with ap, passing the output to sink(ctx, ...). Returns the
 * number of bytes produced, or -1 if that number exceeds INT_MAX (the
 * sink has still been given everything).
 */
int vformat(fmt_sink sink, void *ctx, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));

/*
 * Format into buf[0..size). Always NUL-terminates when size > 0; buf may
 * be NULL when size is 0. Returns the length the full output would have
 * had (not counting the NUL), so a result >= size means truncation; -1
 * as for vformat.
 */
int vsnprintf(char *restrict buf, size_t size, const char *restrict fmt,
              va_list ap) __attribute__((format(printf, 3, 0)));
int snprintf(char *restrict buf, size_t size, const char *restrict fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
