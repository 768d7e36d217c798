/* env.c: reading the environment. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The value of the first "name=value" in environ, or NULL. */
char *getenv(const char *name)
{
	size_t n = strlen(name);

	if (environ == NULL || n == 0 || strchr(name, '='))
		return NULL;
	for (char **e = environ; *e; e++)
		if (strncmp(*e, name, n) == 0 && (*e)[n] == '=')
			return *e + n + 1;
	return NULL;
}
