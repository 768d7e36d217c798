/*
 * The program's side-band records. perf resolves a sample's address
 * through the PERF_RECORD_MMAP2 of the executable mapping it falls in
 * and names its thread from PERF_RECORD_COMM. A kernel that implements
 * attr.comm/mmap writes them at the exec; one that does not leaves
 * record to write its own, from /proc right after the exec (synth.c).
 *
 * When the kernel's would have been written: the exec emits them
 * before the program runs a user instruction, so once a sample of the
 * program has been read (or the program has exited and every buffer
 * was drained), whatever the kernel gave is in hand. Until then record
 * writes no FINISHED_ROUND: perf holds every sample of the stream back,
 * and records of time 0, as ours are, are applied as they are read, so
 * ours still come before the samples they describe.
 */
#include <unistd.h>
#include "record.h"

void sideband_setup(struct sideband *b, pid_t pid, uint64_t sample_type)
{
	b->pid = pid;
	/* A sample starts IDENTIFIER, IP, TID (pid, tid): as many words
	 * before TID as there are of the first two. */
	b->tid_word = !!(sample_type & PERF_SAMPLE_IDENTIFIER) + !!(sample_type & PERF_SAMPLE_IP);
}

void sideband_see(struct sideband *b, const struct perf_event_header *h)
{
	const uint32_t *pid = (const uint32_t *)(h + 1);
	switch (h->type) {
	case PERF_RECORD_SAMPLE:
		b->samples++;
		if (b->execd && pid[2 * b->tid_word] == (uint32_t)b->pid)
			b->sampled = true;
		break;
	case PERF_RECORD_LOST:
		b->lost += ((const uint64_t *)(h + 1))[1];
		break;
	case PERF_RECORD_COMM:
		b->kernel_comm |= pid[0] == (uint32_t)b->pid;
		break;
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		b->kernel_mmap |= pid[0] == (uint32_t)b->pid;
		break;
	}
}

/* Linux closes the exec pipe before it maps the new program: wait (a
 * little) for an executable mapping to show. baremon's exec is whole
 * by then. */
void sideband_capture(struct sideband *b, size_t trailer)
{
	for (int tries = 0; tries < 100; tries++) {
		synth_free(&b->sy);
		if (!synth_process(&b->sy, b->pid, trailer) || b->sy.mmaps)
			break;
		usleep(1000);
	}
	b->execd = true;
}

void sideband_settle(struct sideband *b, struct out *o, bool final)
{
	if (b->decided || !b->execd || !(b->kernel_mmap || b->sampled || final))
		return;
	if (!b->kernel_comm)
		synth_write(&b->sy, o, PERF_RECORD_COMM);
	if (!b->kernel_mmap)
		synth_write(&b->sy, o, PERF_RECORD_MMAP2);
	b->wrote_comm = !b->kernel_comm && b->sy.comms;
	b->wrote_mmap = !b->kernel_mmap && b->sy.mmaps;
	b->decided = true;
}
