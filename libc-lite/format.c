/*
 * format.c: the printf engine. vformat() walks the format string, turns
 * each directive into a struct spec, fetches its argument and hands the
 * pieces of the result to a sink. It keeps no state outside its frame
 * and never touches floating-point registers.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

_Static_assert(sizeof(ptrdiff_t) == sizeof(size_t),
               "%zd reads a ptrdiff_t as the signed size_t");

enum {
	F_MINUS = 1 << 0,  /* left-justify */
	F_ZERO  = 1 << 1,  /* pad numbers with zeros */
	F_PLUS  = 1 << 2,  /* '+' on non-negative signed numbers */
	F_SPACE = 1 << 3,  /* ' ' on non-negative signed numbers */
	F_ALT   = 1 << 4,  /* '#': 0x prefix, octal leading zero */
};

enum length { LEN_NONE, LEN_HH, LEN_H, LEN_L, LEN_LL, LEN_Z, LEN_J, LEN_T };

/* One parsed directive. */
struct spec {
	unsigned flags;
	int width;           /* >= 0 */
	int prec;            /* < 0: none given */
	enum length length;
	char conv;           /* conversion character; '\0' if the format ended */
};

/* Where output goes, and how much has gone there. */
struct out {
	fmt_sink sink;
	void *ctx;
	size_t total;
};

static void emit(struct out *o, const char *s, size_t n)
{
	if (n == 0)
		return;
	o->sink(o->ctx, s, n);
	o->total += n;
}

/* Emit n copies of c (' ' or '0'). */
static void pad(struct out *o, char c, size_t n)
{
	static const char spaces[32] = "                                ";
	static const char zeros[32] = "00000000000000000000000000000000";
	const char *run = c == '0' ? zeros : spaces;

	while (n > 0) {
		size_t k = n < sizeof(spaces) ? n : sizeof(spaces);
		emit(o, run, k);
		n -= k;
	}
}

/* Emit s[0..n) justified in the field width, padded with spaces. */
static void put_field(struct out *o, const struct spec *sp, const char *s,
                      size_t n)
{
	size_t fill = (size_t)sp->width > n ? sp->width - n : 0;

	if (!(sp->flags & F_MINUS))
		pad(o, ' ', fill);
	emit(o, s, n);
	if (sp->flags & F_MINUS)
		pad(o, ' ', fill);
}

/* Write the digits of v in base into the end of buf; returns the count. */
static size_t to_digits(char *buf, size_t cap, uintmax_t v, unsigned base,
                        bool upper)
{
	const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	size_t n = 0;

	do {
		buf[cap - ++n] = digits[v % base];
		v /= base;
	} while (v != 0);
	return n;
}

static unsigned base_of(char conv)
{
	switch (conv) {
	case 'o': return 8;
	case 'x': case 'X': case 'p': return 16;
	default: return 10;
	}
}

/*
 * Emit a number: [spaces][prefix][zeros][digits][spaces].
 * prefix is the sign and/or "0x"; zeros come from the precision, the '#'
 * flag of %o, or the '0' flag (which only applies without a precision).
 */
static void put_number(struct out *o, const struct spec *sp, uintmax_t mag,
                       const char *prefix)
{
	char buf[sizeof(uintmax_t) * 3];   /* enough for octal */
	size_t ndig = 0, nzero = 0, npre = strlen(prefix), len;

	/* C: zero with precision 0 has no digits at all. */
	if (!(mag == 0 && sp->prec == 0))
		ndig = to_digits(buf, sizeof(buf), mag, base_of(sp->conv),
		                 sp->conv == 'X');
	if (sp->prec > 0 && (size_t)sp->prec > ndig)
		nzero = sp->prec - ndig;
	/* '#' with %o: the first digit must be 0. */
	if (sp->conv == 'o' && (sp->flags & F_ALT) && nzero == 0 &&
	    (ndig == 0 || buf[sizeof(buf) - ndig] != '0'))
		nzero = 1;
	len = npre + nzero + ndig;
	if ((sp->flags & F_ZERO) && !(sp->flags & F_MINUS) && sp->prec < 0 &&
	    (size_t)sp->width > len) {
		nzero += sp->width - len;
		len = sp->width;
	}
	if (!(sp->flags & F_MINUS) && (size_t)sp->width > len)
		pad(o, ' ', sp->width - len);
	emit(o, prefix, npre);
	pad(o, '0', nzero);
	emit(o, buf + sizeof(buf) - ndig, ndig);
	if ((sp->flags & F_MINUS) && (size_t)sp->width > len)
		pad(o, ' ', sp->width - len);
}

/* The sign prefix of a signed conversion. */
static const char *sign_of(const struct spec *sp, bool neg)
{
	if (neg)
		return "-";
	if (sp->flags & F_PLUS)
		return "+";
	if (sp->flags & F_SPACE)
		return " ";
	return "";
}

static intmax_t arg_signed(enum length len, va_list *ap)
{
	switch (len) {
	case LEN_HH: return (signed char)va_arg(*ap, int);
	case LEN_H:  return (short)va_arg(*ap, int);
	case LEN_L:  return va_arg(*ap, long);
	case LEN_LL: return va_arg(*ap, long long);
	case LEN_Z:  return va_arg(*ap, ptrdiff_t);
	case LEN_J:  return va_arg(*ap, intmax_t);
	case LEN_T:  return va_arg(*ap, ptrdiff_t);
	default:     return va_arg(*ap, int);
	}
}

static uintmax_t arg_unsigned(enum length len, va_list *ap)
{
	switch (len) {
	case LEN_HH: return (unsigned char)va_arg(*ap, unsigned);
	case LEN_H:  return (unsigned short)va_arg(*ap, unsigned);
	case LEN_L:  return va_arg(*ap, unsigned long);
	case LEN_LL: return va_arg(*ap, unsigned long long);
	case LEN_Z:  return va_arg(*ap, size_t);
	case LEN_J:  return va_arg(*ap, uintmax_t);
	case LEN_T:  return (size_t)va_arg(*ap, ptrdiff_t);
	default:     return va_arg(*ap, unsigned);
	}
}

static void put_signed(struct out *o, const struct spec *sp, va_list *ap)
{
	intmax_t v = arg_signed(sp->length, ap);
	uintmax_t mag = v < 0 ? -(uintmax_t)v : (uintmax_t)v;

	put_number(o, sp, mag, sign_of(sp, v < 0));
}

static void put_unsigned(struct out *o, const struct spec *sp, va_list *ap)
{
	uintmax_t v = arg_unsigned(sp->length, ap);
	bool hex = sp->conv == 'x' || sp->conv == 'X';
	const char *prefix = "";

	if (hex && (sp->flags & F_ALT) && v != 0)
		prefix = sp->conv == 'x' ? "0x" : "0X";
	put_number(o, sp, v, prefix);
}

static void put_pointer(struct out *o, const struct spec *sp, va_list *ap)
{
	void *p = va_arg(*ap, void *);
	/* Like glibc, the sign flags apply to %p. */
	const char *prefix = (sp->flags & F_PLUS) ? "+0x" :
	                     (sp->flags & F_SPACE) ? " 0x" : "0x";

	if (p == NULL)
		put_field(o, sp, "(nil)", 5);
	else
		put_number(o, sp, (uintptr_t)p, prefix);
}

static void put_string(struct out *o, const struct spec *sp, va_list *ap)
{
	const char *s = va_arg(*ap, const char *);

	if (s == NULL)
		s = (sp->prec < 0 || sp->prec >= 6) ? "(null)" : "";
	put_field(o, sp, s, sp->prec < 0 ? strlen(s) : strnlen(s, sp->prec));
}

static void put_char(struct out *o, const struct spec *sp, va_list *ap)
{
	char c = (char)va_arg(*ap, int);

	put_field(o, sp, &c, 1);
}

/* Parse a decimal number, saturating at INT_MAX. */
static const char *parse_int(const char *f, int *v)
{
	*v = 0;
	for (; *f >= '0' && *f <= '9'; f++) {
		int d = *f - '0';
		*v = *v > (__INT_MAX__ - d) / 10 ? __INT_MAX__ : *v * 10 + d;
	}
	return f;
}

static const char *parse_flags(const char *f, unsigned *flags)
{
	for (;; f++) {
		switch (*f) {
		case '-': *flags |= F_MINUS; break;
		case '0': *flags |= F_ZERO; break;
		case '+': *flags |= F_PLUS; break;
		case ' ': *flags |= F_SPACE; break;
		case '#': *flags |= F_ALT; break;
		default: return f;
		}
	}
}

static const char *parse_width(const char *f, struct spec *sp, va_list *ap)
{
	if (*f != '*')
		return parse_int(f, &sp->width);
	sp->width = va_arg(*ap, int);
	if (sp->width < 0) {
		sp->flags |= F_MINUS;
		sp->width = sp->width == -__INT_MAX__ - 1 ? __INT_MAX__
		                                          : -sp->width;
	}
	return f + 1;
}

static const char *parse_precision(const char *f, struct spec *sp,
                                   va_list *ap)
{
	sp->prec = -1;
	if (*f != '.')
		return f;
	f++;
	if (*f != '*')
		return parse_int(f, &sp->prec);
	sp->prec = va_arg(*ap, int);
	if (sp->prec < 0)
		sp->prec = -1;
	return f + 1;
}

static const char *parse_length(const char *f, enum length *len)
{
	switch (*f) {
	case 'h':
		if (f[1] == 'h') {
			*len = LEN_HH;
			return f + 2;
		}
		*len = LEN_H;
		return f + 1;
	case 'l':
		if (f[1] == 'l') {
			*len = LEN_LL;
			return f + 2;
		}
		*len = LEN_L;
		return f + 1;
	case 'z': *len = LEN_Z; return f + 1;
	case 'j': *len = LEN_J; return f + 1;
	case 't': *len = LEN_T; return f + 1;
	default:  *len = LEN_NONE; return f;
	}
}

/*
 * Parse the directive after its '%'; returns a pointer to the conversion
 * character (or to the terminating NUL when the format ends early).
 * Consumes the '*' arguments.
 */
static const char *parse_spec(const char *f, struct spec *sp, va_list *ap)
{
	sp->flags = 0;
	f = parse_flags(f, &sp->flags);
	f = parse_width(f, sp, ap);
	f = parse_precision(f, sp, ap);
	f = parse_length(f, &sp->length);
	sp->conv = *f;
	return f;
}

/* Convert one directive; returns false if it is not supported. */
static bool convert(struct out *o, const struct spec *sp, va_list *ap)
{
	bool wide = sp->length == LEN_L;

	switch (sp->conv) {
	case 'd': case 'i':
		put_signed(o, sp, ap);
		return true;
	case 'u': case 'o': case 'x': case 'X':
		put_unsigned(o, sp, ap);
		return true;
	case 'c':
		if (wide)   /* %lc: no wide characters */
			return false;
		put_char(o, sp, ap);
		return true;
	case 's':
		if (wide)   /* %ls: no wide strings */
			return false;
		put_string(o, sp, ap);
		return true;
	case 'p':
		put_pointer(o, sp, ap);
		return true;
	case '%':
		emit(o, "%", 1);
		return true;
	default:
		return false;
	}
}

int vformat(fmt_sink sink, void *ctx, const char *fmt, va_list ap)
{
	struct out o = { sink, ctx, 0 };
	struct spec sp;
	const char *start, *conv;
	va_list args;

	/* Helpers take a va_list *; the address of a parameter would not do. */
	va_copy(args, ap);
	while (*fmt) {
		if (*fmt != '%') {
			start = fmt;
			fmt += strcspn(fmt, "%");
			emit(&o, start, fmt - start);
			continue;
		}
		start = fmt;
		conv = parse_spec(fmt + 1, &sp, &args);
		if (*conv == '\0') {
			emit(&o, start, conv - start);
			break;
		}
		if (!convert(&o, &sp, &args))
			emit(&o, start, conv + 1 - start);
		fmt = conv + 1;
	}
	va_end(args);
	return o.total > (size_t)__INT_MAX__ ? -1 : (int)o.total;
}
