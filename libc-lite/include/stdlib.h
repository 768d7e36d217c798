/*
 * stdlib.h: number parsing and absolute values (libc-lite).
 *
 * There is no errno. The strto* functions report overflow only by
 * saturating: strtol/strtoll return LONG_MIN/LONG_MAX (LLONG_*), and
 * strtoul/strtoull return ULONG_MAX (ULLONG_MAX). An invalid base
 * (not 0 and not 2..36) converts nothing.
 */
#ifndef LIBC_LITE_STDLIB_H
#define LIBC_LITE_STDLIB_H

#include <stddef.h>

/*
 * Parse an integer: optional white space (isspace), optional '+' or '-',
 * then digits of `base`. base 0 picks 16 after "0x"/"0X", 8 after a
 * leading "0", else 10; base 16 also accepts "0x"/"0X". Letters a..z
 * (either case) are digits 10..35. If endptr is not NULL, *endptr is set
 * to the first unparsed character, or to nptr when no digit was found
 * (the result is then 0).
 *
 * strtoul/strtoull accept '-' and negate in unsigned arithmetic, as C
 * requires ("-1" gives ULONG_MAX); saturation is decided on the magnitude.
 */
long strtol(const char *restrict nptr, char **restrict endptr, int base);
long long strtoll(const char *restrict nptr, char **restrict endptr, int base);
unsigned long strtoul(const char *restrict nptr, char **restrict endptr,
                      int base);
unsigned long long strtoull(const char *restrict nptr, char **restrict endptr,
                            int base);

/* (int)strtol(s, NULL, 10): out-of-range input gives a truncated value. */
int atoi(const char *s);

/* Absolute value. abs(INT_MIN) and labs(LONG_MIN) are undefined. */
int abs(int x);
long labs(long x);

#endif
