/* The known loop the tools count: n iterations of `dec; jnz`, so 2n
 * user instructions and n branch instructions retired (n - 1 taken). */
#ifndef CPUMODEL_LOOP_H
#define CPUMODEL_LOOP_H

static inline void known_loop(unsigned long n)
{
	__asm__ volatile("1: dec %0\n\tjnz 1b" : "+r"(n) : : "cc");
}

#endif
