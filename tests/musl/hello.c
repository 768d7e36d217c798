/* The smallest useful program: output and an exit status. */
#include <stdio.h>

int main(int argc, char **argv)
{
	printf("hello from %s with %d argument(s)\n", argv[0], argc - 1);
	for (int i = 1; i < argc; i++)
		printf("argv[%d] = %s\n", i, argv[i]);
	return argc > 1 ? 3 : 0;
}
