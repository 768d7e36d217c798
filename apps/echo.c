/* echo [-n] WORDS: print the words separated by blanks; -n: no newline. */
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
	int newline = 1, i = 1;

	if (argc > 1 && strcmp(argv[1], "-n") == 0) {
		newline = 0;
		i = 2;
	}
	for (int first = i; i < argc; i++)
		printf("%s%s", i > first ? " " : "", argv[i]);
	if (newline)
		printf("\n");
	return fflush(stdout) == 0 && !ferror(stdout) ? 0 : 1;
}
