/*
 * perf.data on the host: turning the guest's pipe-format stream
 * (docs/record.md) into perf's seekable format with feature sections
 * (perfdata.c), and perf's build-id cache (buildid.c).
 */
#ifndef HOST_PERFDATA_H
#define HOST_PERFDATA_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "wire/frame.h"

#define BUILD_ID_MAX 20

struct build_id {
	uint8_t data[BUILD_ID_MAX];
	size_t size;
};

/* Put the ELF at path into perf's build-id cache (~/.debug); its build id in *bid. 0 or -1. */
int buildid_cache_add(const char *path, struct build_id *bid);

/* What the target said about itself (perf report --header). */
struct machine_info {
	char hostname[128];
	char osrelease[128];
	char cpudesc[128];    /* /proc/cpuinfo "model name" */
	char cpuid[128];      /* perf's x86 form: vendor,family,model,stepping */
	unsigned nr_cpus;
	uint64_t mem_kb;
};

/* A binary that ran on the target: its name there, the file here. */
struct program {
	const char *guest_path;
	const char *local_path;
};

/* Write out_file from the pipe-format pipe_file. The programs, the
 * kernel (kernel_elf, may be NULL) and the initrd's /bin/NAME found as
 * bin_dir/NAME (may be NULL) that the data maps go into the build-id
 * cache and the BUILD_ID feature. 0, or -1 with a message on stderr. */
/* Records of later perfdata_convert calls go zstd-compressed at this
 * level, as perf record -z writes them (perfzstd.c); 0: not. */
void perfdata_set_compression(int level);
int perfdata_convert(const char *pipe_file, const char *out_file,
		     const struct program *programs, int nprograms,
		     const char *kernel_elf, const char *bin_dir,
		     const struct machine_info *m, const char *cmdline);

/* Copy the pipe-format pipe_file to out, still in pipe format, with the
 * same build ids and features as perfdata_convert's as HEADER_BUILD_ID
 * and HEADER_FEATURE records ahead of the kernel's records. 0, or -1
 * with a message on stderr. */
int perfdata_pipe(const char *pipe_file, FILE *out,
		  const struct program *programs, int nprograms,
		  const char *kernel_elf, const char *bin_dir,
		  const struct machine_info *m, const char *cmdline);

/* mappath.c: rewrite pipe_file so that the MMAP records of each
 * program name its local_path instead of its guest_path. 0 or -1. */
int perfdata_map_paths(const char *pipe_file, const struct program *programs, int nprograms);

/* The bytes a pipe-format record carries after its header.size: a
 * HEADER_TRACING_DATA record (type 66) is followed by the tracing data
 * its u32 counts; every other record, none. Readers that walk the
 * stream (mappath.c, perfdata.c) copy or take them. */
static inline uint32_t pipe_record_trailing(const uint8_t *r, size_t size)
{
	return get_le32(r) == 66 && size >= 12 ? get_le32(r + 8) : 0;
}

/* Fill m from "hostname\nosrelease\n" + /proc/cpuinfo + /proc/meminfo. */
void machine_info_parse(struct machine_info *m, const char *text);

#endif
