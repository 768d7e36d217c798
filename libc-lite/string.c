/*
 * string.c: memory and string functions.
 *
 * gcc recognises copy and fill loops and may replace them with calls to
 * memcpy or memset; inside memcpy and memset that would be infinite
 * recursion. NO_LIBCALL turns the transformation off; every function in
 * this file carries it so none can become a call into this file.
 *
 * Bulk copies move 8 bytes at a time through word_t, a type that may sit at
 * any address and alias any object (x86-64 allows unaligned loads). From
 * BULK bytes on, forward copies and fills use REP MOVSQ / REP STOSQ: one
 * instruction per 8 bytes where the loop takes four or five, which is what
 * an emulator that counts instructions (QEMU's -icount) charges, and on
 * hardware the string engine's fast path. Every user of this file (the
 * kernel, user programs, host tests) runs with the direction flag clear,
 * as the SysV ABI says at every call.
 */
#include <stdint.h>
#include <string.h>

#define NO_LIBCALL __attribute__((optimize("no-tree-loop-distribute-patterns")))

typedef uint64_t __attribute__((may_alias, aligned(1))) word_t;

#define BULK 64

/* Forward copy. Safe for overlapping regions when dst <= src (REP MOVSQ
 * moves one word at a time upwards, as the loop does). */
NO_LIBCALL static void copy_forward(unsigned char *d, const unsigned char *s,
                                    size_t n)
{
#if defined(__x86_64__)
	if (n >= BULK) {
		size_t words = n / 8;
		__asm__ volatile("rep movsq"
				 : "+D"(d), "+S"(s), "+c"(words) : : "memory");
		n %= 8;
	}
#endif
	for (; n >= 8; n -= 8, d += 8, s += 8)
		*(word_t *)d = *(const word_t *)s;
	while (n--)
		*d++ = *s++;
}

/* Backward copy. Safe for overlapping regions when dst >= src. */
NO_LIBCALL static void copy_backward(unsigned char *d, const unsigned char *s,
                                     size_t n)
{
	d += n;
	s += n;
	for (; n >= 8; n -= 8) {
		d -= 8;
		s -= 8;
		*(word_t *)d = *(const word_t *)s;
	}
	while (n--)
		*--d = *--s;
}

NO_LIBCALL void *memcpy(void *restrict dst, const void *restrict src, size_t n)
{
	copy_forward(dst, src, n);
	return dst;
}

NO_LIBCALL void *memmove(void *dst, const void *src, size_t n)
{
	if ((uintptr_t)dst <= (uintptr_t)src)
		copy_forward(dst, src, n);
	else
		copy_backward(dst, src, n);
	return dst;
}

NO_LIBCALL void *memset(void *dst, int c, size_t n)
{
	unsigned char *d = dst;
	uint64_t pattern = (unsigned char)c * 0x0101010101010101ull;

#if defined(__x86_64__)
	if (n >= BULK) {
		size_t words = n / 8;
		__asm__ volatile("rep stosq"
				 : "+D"(d), "+c"(words) : "a"(pattern) : "memory");
		n %= 8;
	}
#endif
	for (; n >= 8; n -= 8, d += 8)
		*(word_t *)d = pattern;
	while (n--)
		*d++ = (unsigned char)c;
	return dst;
}

NO_LIBCALL int memcmp(const void *a, const void *b, size_t n)
{
	const unsigned char *p = a, *q = b;

	for (; n; n--, p++, q++)
		if (*p != *q)
			return *p - *q;
	return 0;
}

NO_LIBCALL void *memchr(const void *s, int c, size_t n)
{
	const unsigned char *p = s;

	for (; n; n--, p++)
		if (*p == (unsigned char)c)
			return (void *)p;
	return NULL;
}

NO_LIBCALL size_t strlen(const char *s)
{
	const char *p = s;

	while (*p)
		p++;
	return p - s;
}

NO_LIBCALL size_t strnlen(const char *s, size_t maxlen)
{
	size_t n = 0;

	while (n < maxlen && s[n])
		n++;
	return n;
}

NO_LIBCALL int strcmp(const char *a, const char *b)
{
	const unsigned char *p = (const void *)a, *q = (const void *)b;

	while (*p && *p == *q)
		p++, q++;
	return *p - *q;
}

NO_LIBCALL int strncmp(const char *a, const char *b, size_t n)
{
	const unsigned char *p = (const void *)a, *q = (const void *)b;

	for (; n; n--, p++, q++)
		if (*p != *q || !*p)
			return *p - *q;
	return 0;
}

NO_LIBCALL char *strchr(const char *s, int c)
{
	for (;; s++) {
		if (*s == (char)c)
			return (char *)s;
		if (!*s)
			return NULL;
	}
}

NO_LIBCALL char *strrchr(const char *s, int c)
{
	const char *last = NULL;

	for (;; s++) {
		if (*s == (char)c)
			last = s;
		if (!*s)
			return (char *)last;
	}
}

NO_LIBCALL char *strcpy(char *restrict dst, const char *restrict src)
{
	char *d = dst;

	while ((*d++ = *src++))
		;
	return dst;
}

NO_LIBCALL char *strncpy(char *restrict dst, const char *restrict src, size_t n)
{
	size_t i = 0;

	for (; i < n && src[i]; i++)
		dst[i] = src[i];
	for (; i < n; i++)
		dst[i] = '\0';
	return dst;
}

NO_LIBCALL char *strcat(char *restrict dst, const char *restrict src)
{
	strcpy(dst + strlen(dst), src);
	return dst;
}

NO_LIBCALL size_t strlcpy(char *restrict dst, const char *restrict src,
                          size_t size)
{
	size_t len = strlen(src);
	size_t n;

	if (size == 0)
		return len;
	n = len < size - 1 ? len : size - 1;
	copy_forward((unsigned char *)dst, (const unsigned char *)src, n);
	dst[n] = '\0';
	return len;
}

NO_LIBCALL size_t strlcat(char *restrict dst, const char *restrict src,
                          size_t size)
{
	size_t dlen = strnlen(dst, size);

	/* No NUL within size: nothing can be appended or terminated. */
	if (dlen == size)
		return size + strlen(src);
	return dlen + strlcpy(dst + dlen, src, size - dlen);
}

NO_LIBCALL char *strstr(const char *haystack, const char *needle)
{
	size_t n = strlen(needle);

	for (; *haystack; haystack++)
		if (strncmp(haystack, needle, n) == 0)
			return (char *)haystack;
	return n == 0 ? (char *)haystack : NULL;
}

NO_LIBCALL size_t strspn(const char *s, const char *accept)
{
	size_t n = 0;

	while (s[n] && strchr(accept, s[n]))
		n++;
	return n;
}

NO_LIBCALL size_t strcspn(const char *s, const char *reject)
{
	size_t n = 0;

	while (s[n] && !strchr(reject, s[n]))
		n++;
	return n;
}

NO_LIBCALL char *strtok_r(char *restrict s, const char *restrict delim,
                          char **restrict save)
{
	char *end;

	if (s == NULL)
		s = *save;
	s += strspn(s, delim);
	if (*s == '\0') {
		*save = s;
		return NULL;
	}
	end = s + strcspn(s, delim);
	if (*end != '\0')
		*end++ = '\0';
	*save = end;
	return s;
}
