/*
 * env [-i] [NAME=VALUE...] [COMMAND [ARG...]]: run COMMAND (found in
 * $PATH) with the environment changed by the assignments (-i: starting
 * empty), or print that environment when there is no COMMAND. Status 127
 * when COMMAND does not exist, 126 when it cannot be run.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Set or replace "NAME=VALUE" in env[0..*n); env has room for one more. */
static void assign(char **env, int *n, char *def)
{
	size_t len = strcspn(def, "=") + 1;

	for (int i = 0; i < *n; i++) {
		if (strncmp(env[i], def, len) == 0) {
			env[i] = def;
			return;
		}
	}
	env[(*n)++] = def;
	env[*n] = NULL;
}

int main(int argc, char **argv)
{
	int i = 1, n = 0, old = 0;
	char **env;

	if (i < argc && strcmp(argv[i], "-i") == 0)
		i++;
	else
		while (environ && environ[old])
			old++;
	env = malloc((size_t)(old + argc + 1) * sizeof(*env));
	if (env == NULL) {
		perror("env");
		return 125;
	}
	for (; n < old; n++)
		env[n] = environ[n];
	env[n] = NULL;
	for (; i < argc && strchr(argv[i], '='); i++)
		assign(env, &n, argv[i]);
	environ = env;
	if (i == argc) {
		for (char **e = env; *e; e++)
			printf("%s\n", *e);
		return 0;
	}
	execvp(argv[i], argv + i);
	fprintf(stderr, "env: '%s': %s\n", argv[i], strerror(errno));
	return errno == ENOENT ? 127 : 126;
}
