/* sleep SECONDS: wait; SECONDS may have a fraction ("0.25"). */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <time.h>

/* Parse "S" or "S.FFF" into *t; returns 0, or -1 if malformed. */
static int parse(const char *s, struct timespec *t)
{
	long sec = 0, nsec = 0, scale = 100000000;

	if (!isdigit((unsigned char)*s) && *s != '.')
		return -1;
	for (; isdigit((unsigned char)*s); s++)
		if ((sec = sec * 10 + (*s - '0')) > 100000000)
			return -1;
	if (*s == '.')
		for (s++; isdigit((unsigned char)*s); s++, scale /= 10)
			nsec += (*s - '0') * scale;
	if (*s != '\0')
		return -1;
	t->tv_sec = sec;
	t->tv_nsec = nsec;
	return 0;
}

int main(int argc, char **argv)
{
	struct timespec t;

	if (argc != 2 || parse(argv[1], &t) < 0) {
		fprintf(stderr, "usage: sleep SECONDS\n");
		return 2;
	}
	while (nanosleep(&t, &t) < 0) {
		if (errno != EINTR) {
			perror("sleep");
			return 1;
		}   /* interrupted by a handled signal: sleep the rest */
	}
	return 0;
}
