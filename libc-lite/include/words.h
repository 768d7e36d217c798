/*
 * words.h: the session language's word splitter, shared by /bin/sh
 * (apps/sh) and the kernel's rescue shell (core/shell.c). The language is
 * described in docs/session.md:
 *
 *   - blanks (space, tab) separate words;
 *   - "..." and '...' group blanks into a word; the quotes are removed;
 *   - $? becomes the status passed in, in decimal, except inside '...';
 *   - # at the start of a word ends the line (a comment).
 *
 * Pure: no allocation, no global state; safe in the kernel.
 */
#ifndef LIBC_LITE_WORDS_H
#define LIBC_LITE_WORDS_H

#include <stddef.h>

/* Errors (negative) returned by split_words. */
enum words_error {
	WORDS_E_QUOTE    = -1,  /* a quote is not closed */
	WORDS_E_TOO_LONG = -2,  /* the words do not fit in buf */
	WORDS_E_TOO_MANY = -3,  /* more than max_argv - 1 words */
};

/*
 * Split line into words stored in buf[0..size), each NUL-terminated.
 * argv[0..n) point at them and argv[n] is NULL, so argv needs max_argv
 * slots for at most max_argv - 1 words. Returns n, or a negative
 * WORDS_E_*; on an error argv and buf hold no usable result.
 */
int split_words(const char *line, int status, char *buf, size_t size,
		char **argv, int max_argv);

#endif
