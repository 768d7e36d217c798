/*
 * kbench.h: the kernel side of `bench -kernel` (kbench.c).
 */
#ifndef BAREMON_KBENCH_H
#define BAREMON_KBENCH_H

/* Register /dev/kbench and hook the exception vectors; after the
 * exception handlers (exceptions_init) and the VFS are set up. */
void kbench_init(void);

#endif
