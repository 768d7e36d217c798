/*
 * twofunc [N]: a profile's ground truth. light() runs N iterations of a
 * loop, heavy() 3N iterations of the same loop, both called from main
 * and nothing else of note, so a profile of user time, cycles or
 * instructions must name the two functions, heavy three times as often
 * as light. Built with frame pointers and symbols (the Makefile).
 */
#include <stdio.h>
#include <stdlib.h>

/* n iterations of a five-instruction loop that no compiler folds. */
static inline void spin(unsigned long n)
{
	__asm__ volatile("1: add $1, %%rax\n\t"
			 "xor %%rdx, %%rax\n\t"
			 "nop\n\t"
			 "dec %0\n\t"
			 "jnz 1b"
			 : "+r"(n) : : "rax", "rdx", "cc");
}

__attribute__((noinline)) void light(unsigned long n)
{
	spin(n);
}

__attribute__((noinline)) void heavy(unsigned long n)
{
	spin(3 * n);
}

int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 0) : 2000000;
	light(n);
	heavy(n);
	printf("twofunc: %lu and %lu iterations\n", n, 3 * n);
	return 0;
}
