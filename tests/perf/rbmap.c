/*
 * rbmap.c: what munmap, mprotect, mremap and MAP_FIXED do to a perf
 * ring buffer's mapping (Linux's VM_DONTEXPAND and unsplittable perf
 * vmas, 6.16+): a buffer is unmapped, protected, moved or replaced only
 * whole. Part of it: EINVAL (munmap, mprotect, MAP_FIXED over it,
 * shrinking or moving part, shrinking from an address inside it with
 * the old range running to its end: Linux before 6.16 split the vma
 * and took that, 6.16 on refuses it); growing: EFAULT, from inside it
 * too; the same length from inside it is a no-op; moving all of it
 * (MREMAP_MAYMOVE | MREMAP_FIXED) keeps the buffer working at the new
 * address and leaves nothing at the old one. Perf fds are on a noexec
 * mount: PROT_EXEC is EPERM at mmap and EACCES at mprotect.
 */
#define _GNU_SOURCE
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include "perf.h"

static long pg;

static int comm_event(void)
{
	struct perf_event_attr a;

	perf_attr(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY);
	a.comm = 1;
	a.exclude_kernel = a.exclude_hv = 1;
	return perf_open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

static uint64_t head(void *meta)
{
	return __atomic_load_n(&((struct perf_event_mmap_page *)meta)->data_head, __ATOMIC_ACQUIRE);
}

int main(void)
{
	pg = sysconf(_SC_PAGESIZE);
	size_t len = (size_t)(3 * pg);
	int fd = comm_event();
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);

	if (!CHECK(fd >= 0 && p != MAP_FAILED, "a dummy event with comm, 1 + 2 pages mapped"))
		return abi_done("rbmap");
	CHECK_ERR(munmap(p, (size_t)pg), EINVAL, "munmap of the control page alone");
	CHECK_ERR(munmap(p + 2 * pg, (size_t)pg), EINVAL, "munmap of the last data page");
	CHECK_ERR(munmap(p - pg, (size_t)(2 * pg)), EINVAL, "munmap from below into it");
	CHECK_ERR(mprotect(p + pg, (size_t)pg, PROT_READ), EINVAL, "mprotect of one page");
	CHECK(mprotect(p, len, PROT_READ | PROT_WRITE) == 0, "mprotect of all of it");
	CHECK_ERR(mprotect(p, len, PROT_READ | PROT_EXEC), EACCES, "mprotect to PROT_EXEC");
	CHECK_ERR(mmap(NULL, len, PROT_READ | PROT_EXEC, MAP_SHARED, fd, 0), EPERM,
	          "a PROT_EXEC mapping");
	CHECK_ERR(mmap(NULL, len, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0), EPERM,
	          "a private PROT_EXEC mapping");
	CHECK_ERR(mmap(p + pg, (size_t)pg, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0),
	          EINVAL, "MAP_FIXED over one page of it");
	CHECK_ERR(mremap(p, len, len + (size_t)pg, 0), EFAULT, "mremap to grow in place");
	CHECK_ERR(mremap(p, len, len + (size_t)pg, MREMAP_MAYMOVE), EFAULT, "mremap to grow, may move");
	CHECK_ERR(mremap(p, len, len - (size_t)pg, 0), EINVAL, "mremap to shrink");
	CHECK(mremap(p, len, len, MREMAP_MAYMOVE) == p, "mremap to the same length: stays");
	CHECK_ERR(mremap(p + pg, len - (size_t)pg, (size_t)pg, 0), EINVAL,
	          "mremap shrinking from inside it to its end");
	CHECK_ERR(mremap(p + pg, len - (size_t)pg, (size_t)pg, MREMAP_MAYMOVE), EINVAL,
	          "mremap shrinking from inside it, may move");
	CHECK_ERR(mremap(p + pg, len - (size_t)pg, len, 0), EFAULT,
	          "mremap growing from inside it");
	CHECK(mremap(p + pg, len - (size_t)pg, len - (size_t)pg, 0) == p + pg,
	      "mremap from inside it to the same length: stays");

	prctl(PR_SET_NAME, "one", 0, 0, 0);
	uint64_t h = head(p);
	CHECK(h > 0, "a COMM written (data_head %llu)", (unsigned long long)h);
	char *space = mmap(NULL, 2 * len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK_ERR(mremap(p, (size_t)(2 * pg), (size_t)(2 * pg), MREMAP_MAYMOVE | MREMAP_FIXED, space),
	          EINVAL, "moving part of it");
	CHECK_ERR(mremap(p, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, p + pg), EINVAL,
	          "moving it onto itself, overlapping");
	char *q = mremap(p, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, space + pg);
	CHECK(q == space + pg, "moving all of it (MAYMOVE | FIXED): at the new address");
	CHECK(q != MAP_FAILED && head(q) == h, "the control page there says the same data_head");
	CHECK(q != MAP_FAILED && memcmp(q + pg + 16, "one", 4) == 0, "and the COMM is there");
	prctl(PR_SET_NAME, "two", 0, 0, 0);
	CHECK(q != MAP_FAILED && head(q) == 2 * h && memcmp(q + pg + h + 16, "two", 4) == 0,
	      "a new COMM lands in the moved buffer");
	CHECK_ERR(mremap(p, (size_t)pg, (size_t)pg, 0), EFAULT, "nothing is left at the old address");
	CHECK(mmap(q, len, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == q,
	      "MAP_FIXED over all of it replaces it");
	char *r = mmap(NULL, (size_t)(5 * pg), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHECK(r != MAP_FAILED, "the buffer is gone: the event maps again with another size");
	if (r != MAP_FAILED)
		munmap(r, (size_t)(5 * pg));
	munmap(space, 2 * len);
	close(fd);
	return abi_done("rbmap");
}
