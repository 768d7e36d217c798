/*
 * stdlib.h for user programs: libc-lite/include/stdlib.h (strtol...)
 * plus memory, exit and the environment (libc-lite/user/). See stdio.h
 * here for why this is a separate header.
 */
#ifndef LIBC_LITE_USER_STDLIB_H
#define LIBC_LITE_USER_STDLIB_H

#include_next <stdlib.h>

#define EXIT_SUCCESS 0
#define EXIT_FAILURE 1

/*
 * The allocator (malloc.c): 16-byte aligned blocks. Requests up to
 * 64 KiB come from power-of-two size classes carved from the program
 * break (brk), or from mmap when brk cannot grow; larger ones are
 * mmap'd on their own and munmap'd by free. Freed small blocks are kept
 * for reuse in their class, never returned to the kernel. free() of a
 * pointer malloc did not return, or a double free, aborts. realloc(p, 0)
 * frees p and returns NULL, as glibc does.
 */
void *malloc(size_t size);
void free(void *p);
void *calloc(size_t n, size_t size);
void *realloc(void *p, size_t size);

/* Run atexit functions (last registered first), flush stdio, exit_group. */
__attribute__((noreturn)) void exit(int status);
__attribute__((noreturn)) void _Exit(int status);
int atexit(void (*fn)(void));   /* up to 32 functions; -1 when full */
__attribute__((noreturn)) void abort(void);

char *getenv(const char *name);

/* Heapsort: O(n log n), not stable. */
void qsort(void *base, size_t n, size_t size,
           int (*cmp)(const void *, const void *));

#endif
