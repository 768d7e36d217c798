/*
 * string.h for user programs: libc-lite/include/string.h plus the
 * functions that need the heap or static buffers (libc-lite/user/). See
 * stdio.h here for why this is a separate header.
 */
#ifndef LIBC_LITE_USER_STRING_H
#define LIBC_LITE_USER_STRING_H

#include_next <string.h>

/* A fresh malloc'd copy of s (of at most n bytes of s), or NULL. */
char *strdup(const char *s);
char *strndup(const char *s, size_t n);

/* English text for an errno value ("Unknown error N" if none). */
char *strerror(int err);

/* English text for a signal ("Unknown signal N" if none). */
char *strsignal(int sig);

/* A signal's name without "SIG" ("SEGV"), as glibc; NULL if none. */
const char *sigabbrev_np(int sig);

#endif
