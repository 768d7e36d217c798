/*
 * string.h: memory and string functions (libc-lite).
 *
 * Standard C semantics unless a comment says otherwise. Pointer arguments
 * must be valid for the lengths involved; nothing here checks for NULL.
 * No function keeps state between calls (strtok is deliberately absent;
 * use strtok_r).
 */
#ifndef LIBC_LITE_STRING_H
#define LIBC_LITE_STRING_H

#include <stddef.h>

/* Copy n bytes from src to dst. The regions must not overlap. Returns dst. */
void *memcpy(void *restrict dst, const void *restrict src, size_t n);

/* Copy n bytes from src to dst; the regions may overlap. Returns dst. */
void *memmove(void *dst, const void *src, size_t n);

/* Fill n bytes at dst with (unsigned char)c. Returns dst. */
void *memset(void *dst, int c, size_t n);

/* Compare n bytes as unsigned char: <0, 0 or >0. */
int memcmp(const void *a, const void *b, size_t n);

/* First byte equal to (unsigned char)c in s[0..n), or NULL. */
void *memchr(const void *s, int c, size_t n);

/* Length of s, not counting the terminating NUL. */
size_t strlen(const char *s);

/* strlen(s), but looks at no more than maxlen bytes; returns at most maxlen. */
size_t strnlen(const char *s, size_t maxlen);

/* Compare as unsigned char until a difference or a NUL: <0, 0 or >0. */
int strcmp(const char *a, const char *b);

/* strcmp over at most n characters. */
int strncmp(const char *a, const char *b, size_t n);

/* First occurrence of (char)c in s, or NULL. c == 0 finds the terminator. */
char *strchr(const char *s, int c);

/* Last occurrence of (char)c in s, or NULL. c == 0 finds the terminator. */
char *strrchr(const char *s, int c);

/* Copy src with its NUL to dst (no overlap). Returns dst. */
char *strcpy(char *restrict dst, const char *restrict src);

/*
 * Copy at most n bytes of src to dst and pad the rest of dst[0..n) with
 * NULs. dst is NOT NUL-terminated when strlen(src) >= n. Returns dst.
 */
char *strncpy(char *restrict dst, const char *restrict src, size_t n);

/* Append src to the string in dst (no overlap). Returns dst. */
char *strcat(char *restrict dst, const char *restrict src);

/*
 * BSD strlcpy: copy src into dst[0..size), always NUL-terminating when
 * size > 0. Returns strlen(src); a result >= size means truncation.
 */
size_t strlcpy(char *restrict dst, const char *restrict src, size_t size);

/*
 * BSD strlcat: append src to the string in dst[0..size), always
 * NUL-terminating when there is room for it. Returns the length the
 * string would have had: min(size, strlen(dst)) + strlen(src);
 * a result >= size means truncation.
 */
size_t strlcat(char *restrict dst, const char *restrict src, size_t size);

/* First occurrence of needle in haystack, or NULL; "" matches at once. */
char *strstr(const char *haystack, const char *needle);

/* Length of the prefix of s made only of bytes in accept. */
size_t strspn(const char *s, const char *accept);

/* Length of the prefix of s made only of bytes not in reject. */
size_t strcspn(const char *s, const char *reject);

/*
 * Reentrant tokenizer. First call with s = the string, later calls with
 * s = NULL and the same *save. Writes NULs into the string. Returns the
 * next token or NULL when none is left.
 */
char *strtok_r(char *restrict s, const char *restrict delim,
               char **restrict save);

#endif
