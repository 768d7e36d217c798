/*
 * strtol.c: the strto* family and atoi.
 *
 * All four functions share scan(), which parses the magnitude and the sign
 * and saturates: it never computes a value larger than the limit for the
 * sign it found, so no arithmetic here can overflow.
 */
#include <ctype.h>
#include <stdbool.h>
#include <stdlib.h>

/* The value of c as a digit (0..35), or 36 when it is not one. */
static unsigned digit_value(int c)
{
	if (isdigit(c))
		return c - '0';
	if (islower(c))
		return c - 'a' + 10;
	if (isupper(c))
		return c - 'A' + 10;
	return 36;
}

struct scan {
	unsigned long long mag;  /* magnitude, <= the limit for the sign */
	bool neg;                /* a '-' was seen */
	bool overflow;           /* the true magnitude exceeded the limit */
};

/* Skip white space, sign and base prefix; returns the base, 0 if invalid. */
static int scan_prefix(const char **sp, int base, bool *neg)
{
	const char *s = *sp;

	while (isspace((unsigned char)*s))
		s++;
	*neg = *s == '-';
	if (*s == '+' || *s == '-')
		s++;
	if (base != 0 && (base < 2 || base > 36))
		return 0;
	if ((base == 0 || base == 16) && s[0] == '0' &&
	    (s[1] == 'x' || s[1] == 'X') &&
	    digit_value((unsigned char)s[2]) < 16) {
		s += 2;
		base = 16;
	} else if (base == 0) {
		base = s[0] == '0' ? 8 : 10;
	}
	*sp = s;
	return base;
}

/*
 * Parse nptr. pos_max and neg_max bound the magnitude for each sign.
 * Sets *endptr (when not NULL) as strtol specifies.
 */
static struct scan scan(const char *nptr, char **endptr, int base,
                        unsigned long long pos_max,
                        unsigned long long neg_max)
{
	struct scan r = { 0, false, false };
	const char *s = nptr;
	unsigned long long max;
	bool any = false;
	unsigned d;

	base = scan_prefix(&s, base, &r.neg);
	max = r.neg ? neg_max : pos_max;
	for (; base && (d = digit_value((unsigned char)*s)) < (unsigned)base; s++) {
		any = true;
		if (r.mag > (max - d) / base)
			r.overflow = true;
		else
			r.mag = r.mag * base + d;
	}
	if (endptr)
		*endptr = (char *)(any ? s : nptr);
	return r;
}

long long strtoll(const char *restrict nptr, char **restrict endptr, int base)
{
	unsigned long long max = __LONG_LONG_MAX__;
	struct scan r = scan(nptr, endptr, base, max, max + 1);

	if (r.overflow)
		return r.neg ? -__LONG_LONG_MAX__ - 1 : __LONG_LONG_MAX__;
	/* mag - 1 fits even when mag is LLONG_MAX + 1. */
	if (r.neg && r.mag)
		return -(long long)(r.mag - 1) - 1;
	return (long long)r.mag;
}

long strtol(const char *restrict nptr, char **restrict endptr, int base)
{
	unsigned long long max = __LONG_MAX__;
	struct scan r = scan(nptr, endptr, base, max, max + 1);

	if (r.overflow)
		return r.neg ? -__LONG_MAX__ - 1 : __LONG_MAX__;
	if (r.neg && r.mag)
		return -(long)(r.mag - 1) - 1;
	return (long)r.mag;
}

unsigned long long strtoull(const char *restrict nptr, char **restrict endptr,
                            int base)
{
	unsigned long long max = -1ull;
	struct scan r = scan(nptr, endptr, base, max, max);

	if (r.overflow)
		return max;
	return r.neg ? -r.mag : r.mag;
}

unsigned long strtoul(const char *restrict nptr, char **restrict endptr,
                      int base)
{
	unsigned long max = -1ul;
	struct scan r = scan(nptr, endptr, base, max, max);

	if (r.overflow)
		return max;
	return r.neg ? -(unsigned long)r.mag : (unsigned long)r.mag;
}

int atoi(const char *s)
{
	return (int)strtol(s, NULL, 10);
}
