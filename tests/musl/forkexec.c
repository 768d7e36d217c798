/* fork + exec + wait chains: a process tree of depth N, statuses passed up. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int depth = argc > 1 ? atoi(argv[1]) : 5;
	if (depth == 0)
		return 7;
	pid_t pid = fork();
	if (pid < 0) {
		perror("fork");
		return 1;
	}
	if (pid == 0) {
		char arg[16];
		snprintf(arg, sizeof arg, "%d", depth - 1);
		execl("/proc/self/exe", argv[0], arg, (char *)NULL);
		perror("execl");
		_exit(127);
	}
	int status;
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) {
		printf("depth %d: bad wait\n", depth);
		return 1;
	}
	int code = WEXITSTATUS(status);
	printf("depth %d: child %d exited %d\n", depth, (int)pid, code);
	return code;
}
