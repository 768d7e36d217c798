/*
 * memory.c: ABI test of the address space: brk, anonymous mmap (private
 * and shared), MAP_FIXED, mprotect, munmap, mremap (which keeps a
 * mapping's protection and sharing), the SIGSEGV a bad
 * access raises (si_code, si_addr, and returning from the handler after
 * fixing the mapping), copy-on-write across fork, the memory a zombie
 * keeps (none of its own on baremon), and the C library heap.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>
#include "abi.h"

#define RW (PROT_READ | PROT_WRITE)
#define ANON (MAP_PRIVATE | MAP_ANONYMOUS)

static long page;

static char *map(size_t len)
{
	char *p = mmap(NULL, len, RW, ANON, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

static int all_zero(const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return 0;
	return 1;
}

/*
 * The raw brk system call (musl's brk() always fails, by design). The C
 * library's heap lives there too, so nothing may allocate until the
 * break is back where it was: results are printed afterwards.
 */
static void test_brk(void)
{
	unsigned long cur = syscall(SYS_brk, 0);
	unsigned long grown = syscall(SYS_brk, cur + 64 * 1024);
	int wrote = 0;

	if (grown == cur + 64 * 1024) {
		memset((void *)cur, 0x5a, 64 * 1024);
		wrote = ((volatile char *)cur)[64 * 1024 - 1] == 0x5a;
	}
	unsigned long back = syscall(SYS_brk, cur);
	unsigned long low = syscall(SYS_brk, 4096);

	CHECK(cur != 0, "brk(0) gives the break (%#lx)", cur);
	CHECK(grown == cur + 64 * 1024, "brk grows by 64 KiB");
	CHECK(wrote, "the new break memory is writable");
	CHECK(back == cur, "brk shrinks back");
	CHECK(low == cur, "brk refuses to go below the data segment");
}

static void test_mmap(void)
{
	char *p = map(3 * page);

	CHECK(p != NULL, "mmap 3 anonymous pages");
	if (p == NULL)
		return;
	CHECK((uintptr_t)p % page == 0, "the mapping is page aligned");
	CHECK(all_zero(p, 3 * page), "fresh anonymous memory is zero");
	memset(p, 0xa5, 3 * page);
	CHECK((unsigned char)p[3 * page - 1] == 0xa5, "and writable");
	CHECK(munmap(p, 3 * page) == 0, "munmap");
	CHECK(mmap(NULL, 0, RW, ANON, -1, 0) == MAP_FAILED && errno == EINVAL,
	      "mmap of length 0 -> EINVAL");
	CHECK(mmap(NULL, page, RW, MAP_ANONYMOUS, -1, 0) == MAP_FAILED &&
	      errno == EINVAL, "mmap neither private nor shared -> EINVAL");
	CHECK(mmap(NULL, page, RW, MAP_PRIVATE, -1, 0) == MAP_FAILED &&
	      errno == EBADF, "mmap of fd -1 without MAP_ANONYMOUS -> EBADF");
	CHECK(mmap((void *)(page + 1), page, RW, ANON | MAP_FIXED, -1, 0) ==
	      MAP_FAILED && errno == EINVAL, "MAP_FIXED misaligned -> EINVAL");
	CHECK_ERR(munmap((void *)(page + 1), page), EINVAL,
	          "munmap misaligned");
	/* raw: musl's mprotect() rounds the address down itself */
	CHECK_ERR(syscall(SYS_mprotect, page + 1, page, PROT_READ), EINVAL,
	          "mprotect misaligned");
}

static void test_fixed(void)
{
	char *p = map(3 * page), *q;

	memset(p, 1, 3 * page);
	CHECK(munmap(p + page, page) == 0, "munmap the middle page");
	q = mmap(p + page, page, RW, ANON | MAP_FIXED, -1, 0);
	CHECK(q == p + page, "MAP_FIXED maps exactly there");
	CHECK(all_zero(q, page) && p[0] == 1 && p[2 * page] == 1,
	      "the new page is zero, its neighbours kept");
	q = mmap(p, page, RW, ANON | MAP_FIXED, -1, 0);
	CHECK(q == p && p[0] == 0, "MAP_FIXED over a mapping replaces it");
	munmap(p, 3 * page);
}

/* ---- SIGSEGV: record the fault, repair the page, return ---- */

static volatile sig_atomic_t faults;
static volatile int fault_code;
static void *volatile fault_addr;
static void *volatile repair_page;   /* page the handler makes RW */
static volatile int repair_remap;    /* 1: mmap it afresh; 0: mprotect */

static void on_segv(int sig, siginfo_t *si, void *uc)
{
	faults++;
	fault_code = si->si_code;
	fault_addr = si->si_addr;
	if (repair_remap)
		mmap(repair_page, page, RW, ANON | MAP_FIXED, -1, 0);
	else
		mprotect(repair_page, page, RW);
}

static void test_segv_handler(void)
{
	struct sigaction sa = { 0 };
	volatile char *p = (volatile char *)map(page);

	sa.sa_sigaction = on_segv;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	CHECK(sigaction(SIGSEGV, &sa, NULL) == 0, "install a SIGSEGV handler");

	p[10] = 1;
	CHECK(mprotect((void *)p, page, PROT_READ) == 0, "mprotect PROT_READ");
	CHECK(p[10] == 1, "a read-only page is still readable");
	repair_page = (void *)p;
	repair_remap = 0;
	p[10] = 2;   /* faults; the handler makes the page writable */
	CHECK(faults == 1, "writing a read-only page raises SIGSEGV");
	CHECK(fault_code == SEGV_ACCERR, "si_code SEGV_ACCERR (got %d)",
	      fault_code);
	CHECK(fault_addr == p + 10, "si_addr is the address written");
	CHECK(p[10] == 2, "the write completes after the handler returns");

	CHECK(munmap((void *)p, page) == 0, "munmap the page");
	repair_remap = 1;
	char c = p[20];   /* faults; the handler maps a zero page there */
	CHECK(faults == 2, "reading an unmapped page raises SIGSEGV");
	CHECK(fault_code == SEGV_MAPERR, "si_code SEGV_MAPERR (got %d)",
	      fault_code);
	CHECK(fault_addr == p + 20, "si_addr is the address read");
	CHECK(c == 0, "the read completes after the handler returns");
	munmap((void *)p, page);
	signal(SIGSEGV, SIG_DFL);
}

/* Run fn in a child; return its wait status. */
static int child_status(void (*fn)(char *), char *arg)
{
	int status = -1;
	pid_t pid = fork();

	if (pid == 0) {
		fn(arg);
		_exit(0);
	}
	waitpid(pid, &status, 0);
	return status;
}

static void touch(char *p)  { *(volatile char *)p = 1; }
static void scribble(char *p) { memset(p, 'c', page); }

static void test_fork_memory(void)
{
	char *p = map(page), *s;
	int st;

	st = child_status(touch, p);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "a child writes a page");
	munmap(p, page);
	st = child_status(touch, p);
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV,
	      "a child touching an unmapped page dies of SIGSEGV (status %#x)",
	      st);
	p = map(page);
	mprotect(p, page, PROT_READ);
	st = child_status(touch, p);
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV,
	      "a child writing a read-only page dies of SIGSEGV");
	mprotect(p, page, RW);
	memset(p, 'p', page);
	st = child_status(scribble, p);
	CHECK(WIFEXITED(st) && p[0] == 'p' && p[page - 1] == 'p',
	      "a private page the child wrote is unchanged in the parent");
	munmap(p, page);

	s = mmap(NULL, page, RW, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	CHECK(s != MAP_FAILED, "mmap MAP_SHARED|MAP_ANONYMOUS");
	if (s != MAP_FAILED) {
		st = child_status(scribble, s);
		CHECK(WIFEXITED(st) && s[0] == 'c' && s[page - 1] == 'c',
		      "a shared page the child wrote changed in the parent");
		munmap(s, page);
	}
}

static void test_mremap(void)
{
	char *p = map(page), *q;

	memset(p, 'x', page);
	q = mremap(p, page, 4 * page, MREMAP_MAYMOVE);
	CHECK(q != MAP_FAILED, "mremap grows 1 -> 4 pages");
	if (q == MAP_FAILED)
		return;
	CHECK(q[0] == 'x' && q[page - 1] == 'x', "the contents moved along");
	q[4 * page - 1] = 'y';
	CHECK(all_zero(q + page, 3 * page - 1), "the new pages are zero");
	CHECK(mremap(q, 4 * page, page, 0) == q, "mremap shrinks in place");
	CHECK(munmap(q, page) == 0, "munmap the result");
}

/* Two free pages' worth of address space: a mapping of n pages with
 * nothing mapped in the n pages after it. */
static char *map_with_room(size_t n, int prot, int flags)
{
	char *p = mmap(NULL, 2 * n * page, prot, flags, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	munmap(p + n * page, n * page);
	return p;
}

static void write_first(char *p) { *(volatile char *)p = 'w'; }

/* Does a child writing at p die of SIGSEGV? */
static int write_faults(char *p)
{
	int st = child_status(write_first, p);

	return WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV;
}

static char *moved_to;
static void move_and_write(char *s)
{
	moved_to = mremap(s, page, page, MREMAP_MAYMOVE | MREMAP_FIXED, moved_to);
	if (moved_to == MAP_FAILED)
		_exit(2);
	moved_to[1] = 'm';
	_exit(moved_to[0] == 's' ? 0 : 3);
}

/* mremap keeps what a mapping is: its protection when it grows in
 * place or moves, its sharing when it moves; an old range must lie in
 * one mapping. */
static void test_mremap_keeps(void)
{
	char *p = map_with_room(1, PROT_READ, ANON), *q, *s;
	int st;

	q = p ? mremap(p, page, 2 * page, 0) : MAP_FAILED;
	CHECK(q == p, "mremap grows a read-only mapping in place");
	if (q == p) {
		CHECK(q[page] == 0, "its new page reads as zero");
		CHECK(write_faults(q + page), "its new page is read-only too");
		CHECK(write_faults(q), "its old page stays read-only");
		munmap(q, 2 * page);
	}

	p = map(page);
	if (p) {
		p[0] = 'r';
		mprotect(p, page, PROT_READ);
	}
	s = map_with_room(1, RW, ANON);   /* an unused place to move to */
	if (s)
		munmap(s, page);
	q = p && s ? mremap(p, page, page, MREMAP_MAYMOVE | MREMAP_FIXED, s) : MAP_FAILED;
	CHECK(q == s && q != NULL, "mremap moves a read-only mapping (FIXED)");
	if (q != MAP_FAILED && q) {
		CHECK(q[0] == 'r', "the contents moved with it");
		CHECK(write_faults(q), "it stays read-only where it moved");
		munmap(q, page);
	}

	p = map_with_room(1, RW, MAP_SHARED | MAP_ANONYMOUS);
	if (!CHECK(p != NULL, "mmap a shared anonymous page"))
		return;
	p[0] = 's';
	moved_to = p + page;              /* the free page after it */
	st = child_status(move_and_write, p);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0 && p[1] == 'm',
	      "a shared page a child moved is still shared: its write "
	      "reaches the parent (status %#x, got '%c')", st, p[1] ? p[1] : '0');
	q = mremap(p, page, 2 * page, 0);
	CHECK(q == p, "mremap grows the shared page in place");
	if (q == p) {
		st = child_status(scribble, q);
		CHECK(WIFEXITED(st) && q[0] == 'c', "the grown mapping is still shared");
		st = child_status(scribble, q + page);
		CHECK(WIFEXITED(st) && q[page] == 'c', "its new page is shared too");
	}
	munmap(p, 2 * page);

	p = mmap(NULL, page, RW, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	q = p != MAP_FAILED ? mremap(p, page, 2 * page, MREMAP_MAYMOVE) : MAP_FAILED;
	if (CHECK(q != MAP_FAILED, "mremap grows a one-page shared mapping")) {
		st = child_status(touch, q + page);
		CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGBUS,
		      "past the end of its one-page object: SIGBUS (status %#x)", st);
		munmap(q, 2 * page);
	}

	p = map(2 * page);
	if (p && mprotect(p + page, page, PROT_READ) == 0) {
		errno = 0;
		q = mremap(p, 2 * page, 3 * page, MREMAP_MAYMOVE);
		CHECK(q == MAP_FAILED && errno == EFAULT,
		      "an old range across two mappings: EFAULT (errno %d)", errno);
		munmap(p, 2 * page);
	}
}

/* A /proc/meminfo line's value in kB, or -1. */
static long meminfo_kb(const char *key)
{
	char buf[4096], *at;
	int fd = open("/proc/meminfo", O_RDONLY);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;

	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	at = strstr(buf, key);
	return at ? strtol(at + strlen(key), NULL, 10) : -1;
}

#define ZOMBIES 32

/* ZOMBIES children that each touch 64 pages and exit, left unreaped
 * (waitid WNOWAIT sees each exit). Returns how many. */
static int make_zombies(pid_t *kids)
{
	int n = 0;

	for (int i = 0; i < ZOMBIES; i++) {
		kids[i] = fork();
		if (kids[i] == 0) {
			char *p = map(64 * page);
			if (p)
				memset(p, 1, 64 * page);
			_exit(0);
		}
	}
	for (int i = 0; i < ZOMBIES; i++) {
		char si[128]; /* siginfo_t: libc-lite has no waitid() */
		n += kids[i] > 0 &&
		     syscall(SYS_waitid, P_PID, kids[i], si, WEXITED | WNOWAIT, NULL) == 0;
	}
	return n;
}

static void reap_all(pid_t *kids)
{
	for (int i = 0; i < ZOMBIES; i++)
		if (kids[i] > 0)
			waitpid(kids[i], NULL, 0);
}

/*
 * An exited child keeps only what wait needs until it is reaped: its
 * memory, kernel stack and files go at exit. A first round warms the
 * kernel's allocators; the second measures MemFree before and after
 * the children exit. Asserted on baremon, whose memory is ours alone;
 * on Linux the figure is only shown (other processes move MemFree).
 */
static void test_zombie_memory(void)
{
	pid_t kids[ZOMBIES];

	make_zombies(kids);
	reap_all(kids);
	long before = meminfo_kb("MemFree:"), slab = meminfo_kb("Slab:");
	int n = make_zombies(kids);
	long after = meminfo_kb("MemFree:"), slab_after = meminfo_kb("Slab:");
	long per = n ? (before - after) * 1024 / n : -1;

	CHECK(n == ZOMBIES && before > 0, "%d children exited, not reaped", n);
	if (abi_on_baremon())
		CHECK(per <= 8192, "a zombie holds at most 8 KiB of free memory "
		      "(%ld bytes each; heap %+ld bytes each)", per,
		      n ? (slab_after - slab) * 1024 / n : 0);
	else
		abi_note("a zombie took %ld bytes of MemFree each (heap %+ld)", per,
		         n ? (slab_after - slab) * 1024 / n : 0);
	reap_all(kids);
}

static void test_heap(void)
{
	char *a[64];
	int ok = 1;

	for (int i = 0; i < 64; i++) {
		size_t n = (size_t)i * i * 97 + 1;   /* 1 byte .. 380 KiB */
		a[i] = malloc(n);
		ok &= a[i] != NULL && (uintptr_t)a[i] % 16 == 0;
		if (a[i])
			memset(a[i], i, n);
	}
	for (int i = 0; i < 64; i++) {
		size_t n = (size_t)i * i * 97 + 1;
		ok &= a[i][0] == i && a[i][n - 1] == i;
		free(a[i]);
	}
	CHECK(ok, "malloc: 64 blocks, aligned, contents kept");
	char *z = calloc(1000, 10);
	CHECK(z && all_zero(z, 10000), "calloc is zeroed");
	z = realloc(z, 200000);
	CHECK(z && all_zero(z, 10000), "realloc keeps the contents");
	free(z);
}

int main(void)
{
	page = sysconf(_SC_PAGESIZE);
	CHECK(page == 4096, "page size is 4096");
	test_brk();
	test_mmap();
	test_fixed();
	test_segv_handler();
	test_fork_memory();
	test_mremap();
	test_mremap_keeps();
	test_zombie_memory();
	test_heap();
	return abi_done("memory");
}
