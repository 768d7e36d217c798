/* Signal handlers with siginfo, masks, SIGCHLD, and sigsetjmp/siglongjmp
 * out of a SIGSEGV handler. */
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile sig_atomic_t got_usr1, got_chld, usr1_code;
static sigjmp_buf env;
static volatile int *volatile bad_pointer = (int *)8;

static void on_usr1(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	got_usr1 = sig;
	usr1_code = si->si_code;
}

static void on_chld(int sig) { (void)sig; got_chld = 1; }
static void on_segv(int sig) { (void)sig; siglongjmp(env, 1); }

int main(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_usr1;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGUSR1, &sa, NULL);
	kill(getpid(), SIGUSR1);
	printf("usr1 handled: %d, si_code %d (SI_USER %d)\n", got_usr1, usr1_code, SI_USER);

	sigset_t block, old;
	sigemptyset(&block);
	sigaddset(&block, SIGUSR1);
	sigprocmask(SIG_BLOCK, &block, &old);
	got_usr1 = 0;
	raise(SIGUSR1);
	int while_blocked = got_usr1;
	sigprocmask(SIG_SETMASK, &old, NULL);
	printf("blocked: %d, after unblock: %d\n", while_blocked, got_usr1);

	signal(SIGCHLD, on_chld);
	pid_t pid = fork();
	if (pid == 0)
		_exit(0);
	int st;
	waitpid(pid, &st, 0);
	printf("sigchld: %d\n", got_chld);

	signal(SIGSEGV, on_segv);
	int recovered = 0;
	if (sigsetjmp(env, 1) == 0)
		*bad_pointer = 1;
	else
		recovered = 1;
	printf("segv recovered: %d\n", recovered);
	return (got_usr1 == SIGUSR1 && !while_blocked && got_chld && recovered) ? 0 : 1;
}
