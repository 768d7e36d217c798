/*
 * ls [-al] [PATH...]: list each directory's names, sorted (read with
 * getdents64 through readdir), or name each file. -a: include names that
 * start with '.'; -l: long format (type and permissions, links, size).
 * With several PATHs each directory gets a "PATH:" heading. Status 1 if
 * any PATH could not be listed.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static bool show_all, long_format;

/* "drwxr-xr-x" for st_mode. */
static void mode_string(unsigned mode, char out[11])
{
	const char *rwx = "rwxrwxrwx";

	out[0] = S_ISDIR(mode) ? 'd' : S_ISLNK(mode) ? 'l' : S_ISCHR(mode) ? 'c'
	       : S_ISBLK(mode) ? 'b' : S_ISFIFO(mode) ? 'p'
	       : S_ISSOCK(mode) ? 's' : '-';
	for (int i = 0; i < 9; i++)
		out[1 + i] = mode & (0400 >> i) ? rwx[i] : '-';
	out[10] = '\0';
}

/* Print one name; path is where to lstat it for -l. */
static void show(const char *path, const char *name)
{
	struct stat st;
	char mode[11];

	if (!long_format) {
		printf("%s\n", name);
		return;
	}
	if (lstat(path, &st) < 0) {
		printf("?????????? %s\n", name);
		return;
	}
	mode_string(st.st_mode, mode);
	printf("%s %3lu %8ld %s\n", mode, (unsigned long)st.st_nlink,
	       (long)st.st_size, name);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Free names[0..n) and the array. */
static void free_names(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

/*
 * The names in dir (with -a, all of them), sorted, in a malloc'd array
 * of *n malloc'd strings; NULL with errno set on error.
 */
static char **read_names(const char *dir, size_t *n)
{
	DIR *d = opendir(dir);
	char **names = malloc(64 * sizeof(*names));
	size_t cap = 64;
	struct dirent *e;

	*n = 0;
	if (d == NULL || names == NULL) {
		free(names);
		return NULL;
	}
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.' && !show_all)
			continue;
		if (*n == cap) {
			char **more = realloc(names, 2 * cap * sizeof(*names));
			if (more == NULL) {
				free_names(names, *n);
				closedir(d);
				return NULL;
			}
			names = more;
			cap *= 2;
		}
		names[(*n)++] = strdup(e->d_name);
	}
	closedir(d);
	qsort(names, *n, sizeof(*names), by_name);
	return names;
}

static int list_dir(const char *dir)
{
	size_t n;
	char **names = read_names(dir, &n);
	char path[PATH_MAX];

	if (names == NULL) {
		fprintf(stderr, "ls: %s: %s\n", dir, strerror(errno));
		return 1;
	}
	for (size_t i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		show(path, names[i]);
	}
	free_names(names, n);
	return 0;
}

static int list(const char *path, bool heading)
{
	struct stat st;

	if (stat(path, &st) < 0) {
		fprintf(stderr, "ls: %s: %s\n", path, strerror(errno));
		return 1;
	}
	if (!S_ISDIR(st.st_mode)) {
		show(path, path);
		return 0;
	}
	if (heading)
		printf("%s:\n", path);
	return list_dir(path);
}

int main(int argc, char **argv)
{
	int i = 1, status = 0;

	for (; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
		for (const char *p = argv[i] + 1; *p; p++) {
			if (*p == 'a')
				show_all = true;
			else if (*p == 'l')
				long_format = true;
			else {
				fprintf(stderr, "usage: ls [-al] [PATH...]\n");
				return 2;
			}
		}
	}
	if (i == argc)
		return list(".", false);
	for (int first = i; i < argc; i++) {
		if (i > first && argc - first > 1)
			printf("\n");
		status |= list(argv[i], argc - first > 1);
	}
	return status;
}
