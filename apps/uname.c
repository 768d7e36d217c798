/*
 * uname [-asnrvm]: print fields of the system name: -s system (the
 * default), -n node, -r release, -v version, -m machine, -a all five.
 */
#include <stdio.h>
#include <sys/utsname.h>

enum { S = 1, N = 2, R = 4, V = 8, M = 16, ALL = 31 };

static int parse(int argc, char **argv)
{
	int want = 0;

	for (int i = 1; i < argc; i++) {
		if (argv[i][0] != '-' || argv[i][1] == '\0')
			return -1;
		for (const char *p = argv[i] + 1; *p; p++) {
			switch (*p) {
			case 'a': want |= ALL; break;
			case 's': want |= S; break;
			case 'n': want |= N; break;
			case 'r': want |= R; break;
			case 'v': want |= V; break;
			case 'm': want |= M; break;
			default: return -1;
			}
		}
	}
	return want ? want : S;
}

int main(int argc, char **argv)
{
	struct utsname u;
	int want = parse(argc, argv);
	const char *field[] = { u.sysname, u.nodename, u.release, u.version,
	                        u.machine };
	const char *sep = "";

	if (want < 0) {
		fprintf(stderr, "usage: uname [-asnrvm]\n");
		return 2;
	}
	if (uname(&u) < 0) {
		perror("uname");
		return 1;
	}
	for (int i = 0; i < 5; i++) {
		if (want & (1 << i)) {
			printf("%s%s", sep, field[i]);
			sep = " ";
		}
	}
	printf("\n");
	return 0;
}
