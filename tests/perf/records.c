/*
 * records.c: side-band records in the ring buffer. A dummy event on this
 * process, inherited, one per CPU (an inherited per-task event can only
 * be mapped per CPU), with comm, task, mmap and sample_id_all (TID,
 * TIME): PR_SET_NAME gives a COMM; an executable anonymous mapping an
 * MMAP named //anon; a child's fork, exec (COMM with COMM_EXEC and an
 * MMAP of the executable) and exit come in that order with its pid.
 */
#define _GNU_SOURCE
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include "perf.h"

#define MAXCPU 64
#define PAGES 16

struct ring {
	struct perf_event_mmap_page *meta;
	unsigned char *data;
	uint64_t pos;
};

static struct ring rings[MAXCPU];
static int fds[MAXCPU], ncpu;

static int open_all(void)
{
	struct perf_event_attr a;
	long page = sysconf(_SC_PAGESIZE);

	perf_attr(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY);
	a.comm = a.task = a.mmap = a.sample_id_all = a.inherit = 1;
	a.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	a.exclude_kernel = a.exclude_hv = 1;
	ncpu = (int)sysconf(_SC_NPROCESSORS_ONLN);
	if (ncpu > MAXCPU)
		ncpu = MAXCPU;
	for (int c = 0; c < ncpu; c++) {
		void *p;

		fds[c] = perf_open(&a, 0, c, -1, PERF_FLAG_FD_CLOEXEC);
		if (fds[c] < 0)
			return -1;
		p = mmap(NULL, (size_t)(1 + PAGES) * (size_t)page,
		         PROT_READ | PROT_WRITE, MAP_SHARED, fds[c], 0);
		if (p == MAP_FAILED)
			return -1;
		rings[c].meta = p;
		rings[c].data = (unsigned char *)p + page;
	}
	return 0;
}

/* One record's bytes, the trailer's TID and TIME pulled out. */
struct rec {
	struct perf_event_header h;
	unsigned char body[4096];
	uint32_t tpid, ttid;
	uint64_t time;
};

/* The next record of any CPU's buffer, oldest trailer TIME first. */
static int next(struct rec *out)
{
	long page = sysconf(_SC_PAGESIZE);
	uint64_t size = (uint64_t)PAGES * (uint64_t)page;
	int best = -1;
	uint64_t best_time = 0;

	for (int c = 0; c < ncpu; c++) {
		struct ring *r = &rings[c];
		struct perf_event_header h;
		uint64_t t;

		if (r->pos >= __atomic_load_n(&r->meta->data_head, __ATOMIC_ACQUIRE))
			continue;
		for (size_t i = 0; i < sizeof(h); i++)
			((unsigned char *)&h)[i] = r->data[(r->pos + i) % size];
		for (size_t i = 0; i < 8; i++)
			((unsigned char *)&t)[i] = r->data[(r->pos + h.size - 8 + i) % size];
		if (best < 0 || t < best_time)
			best = c, best_time = t;
	}
	if (best < 0)
		return 0;
	struct ring *r = &rings[best];
	unsigned char *o = (unsigned char *)out;
	for (size_t i = 0; i < sizeof(out->h); i++)
		o[i] = r->data[(r->pos + i) % size];
	for (size_t i = sizeof(out->h); i < out->h.size && i - sizeof(out->h) < sizeof(out->body); i++)
		out->body[i - sizeof(out->h)] = r->data[(r->pos + i) % size];
	memcpy(&out->tpid, out->body + out->h.size - sizeof(out->h) - 16, 4);
	memcpy(&out->ttid, out->body + out->h.size - sizeof(out->h) - 12, 4);
	memcpy(&out->time, out->body + out->h.size - sizeof(out->h) - 8, 8);
	r->pos += out->h.size;
	__atomic_store_n(&r->meta->data_tail, r->pos, __ATOMIC_RELEASE);
	return 1;
}

static void child_after_exec(void)
{
	_exit(7);
}

int main(int argc, char **argv)
{
	struct rec r;
	pid_t me = getpid(), kid;
	long page = sysconf(_SC_PAGESIZE);
	void *code;
	int st, comm_renamed = 0, anon = 0, step = 0, trailers_ok = 1;
	int fork_seen = 0, exec_comm = 0, exec_mmap = 0, exit_seen = 0;

	if (argc > 1 && strcmp(argv[1], "--child") == 0)
		child_after_exec();
	if (!CHECK(open_all() == 0, "a dummy event per CPU with comm, task, mmap, "
	           "sample_id_all, inherit; each mapped"))
		return abi_done("records");
	prctl(PR_SET_NAME, "renamed", 0, 0, 0);
	code = mmap(NULL, (size_t)page, PROT_READ | PROT_EXEC,
	            MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	kid = fork();
	if (kid == 0) {
		char *args[] = { argv[0], "--child", NULL };

		execv("/proc/self/exe", args);
		_exit(99);
	}
	waitpid(kid, &st, 0);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 7, "the child execs this program and exits 7");
	while (next(&r)) {
		uint32_t *ids = (uint32_t *)r.body;
		uint64_t *u64 = (uint64_t *)r.body;

		switch (r.h.type) {
		case PERF_RECORD_COMM:
			if (ids[0] == (uint32_t)me && strcmp((char *)&ids[2], "renamed") == 0 &&
			    !(r.h.misc & PERF_RECORD_MISC_COMM_EXEC))
				comm_renamed = 1;
			if (ids[0] == (uint32_t)kid && (r.h.misc & PERF_RECORD_MISC_COMM_EXEC) &&
			    step == 1)
				exec_comm = 1, step = 2;
			break;
		case PERF_RECORD_MMAP:
			if (ids[0] == (uint32_t)me && u64[1] == (uint64_t)code &&
			    u64[2] == (uint64_t)page && strcmp((char *)&u64[4], "//anon") == 0)
				anon = 1;
			if (ids[0] == (uint32_t)kid && step == 2 && r.body[32] == '/')
				exec_mmap = 1;
			break;
		case PERF_RECORD_FORK:
			if (ids[0] == (uint32_t)kid && ids[1] == (uint32_t)me && step == 0)
				fork_seen = 1, step = 1;
			break;
		case PERF_RECORD_EXIT:
			if (ids[0] == (uint32_t)kid && ids[2] == (uint32_t)kid && step == 2)
				exit_seen = 1, step = 3;
			break;
		}
		if ((r.h.type == PERF_RECORD_COMM || r.h.type == PERF_RECORD_MMAP) &&
		    (r.tpid != ids[0] || r.ttid != ids[1]))
			trailers_ok = 0;
	}
	CHECK(comm_renamed, "PR_SET_NAME: COMM 'renamed', no COMM_EXEC");
	CHECK(anon, "an executable anonymous mapping: MMAP //anon with its address and length");
	CHECK(fork_seen, "FORK: the child's pid, our pid as ppid");
	CHECK(exec_comm, "then the child's exec: COMM with PERF_RECORD_MISC_COMM_EXEC");
	CHECK(exec_mmap, "then an MMAP of the executable (a path)");
	CHECK(exit_seen, "then EXIT of the child");
	CHECK(trailers_ok, "sample_id_all trailers: TID of the task the record is about");
	return abi_done("records");
}
