/* futex(2): WAIT/WAKE/REQUEUE on 32-bit user words. See futex.c. */
#ifndef BAREMON_FUTEX_H
#define BAREMON_FUTEX_H

#include <stdint.h>

/* Wake up to n waiters on the futex at user address uaddr (current mm). */
int futex_wake_addr(uint64_t uaddr, int n);

#endif
