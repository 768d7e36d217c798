/*
 * start.c: from _start (crt0.asm) to main and exit.
 *
 * Records environ and the auxiliary vector (which follows envp's NULL),
 * runs the static constructors the linker gathered in .init_array, then
 * exit(main(argc, argv, envp)).
 */
#include <stdlib.h>
#include <unistd.h>
#include "sys.h"

char **environ;
unsigned long *__auxv;

int main(int argc, char **argv, char **envp);

/* ld's default script defines these around .init_array (empty if none). */
extern void (*__init_array_start[])(int, char **, char **)
	__attribute__((weak));
extern void (*__init_array_end[])(int, char **, char **)
	__attribute__((weak));

__attribute__((noreturn)) void __libc_start(int argc, char **argv,
                                            char **envp)
{
	char **p = envp;

	environ = envp;
	while (*p)
		p++;
	__auxv = (unsigned long *)(p + 1);
	for (size_t i = 0; __init_array_start + i < __init_array_end; i++)
		__init_array_start[i](argc, argv, envp);
	exit(main(argc, argv, envp));
}
