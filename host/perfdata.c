/*
 * Pipe-format perf data -> perf's seekable perf.data
 * (tools/perf/Documentation/perf.data-file-format.txt):
 *
 *   header (104 bytes) | attrs: per event, attr (128) + ids section |
 *   ids (u64 arrays) | data: the records | feature section table |
 *   feature contents
 *
 * The pipe's HEADER_ATTR records become the attrs section, its
 * EVENT_UPDATE names the EVENT_DESC feature; every other record is
 * copied into the data section as it is. Features: TRACING_DATA (the
 * tracepoints' formats, from the pipe's HEADER_TRACING_DATA record, when
 * tracepoints were recorded), BUILD_ID, HOSTNAME, OSRELEASE, VERSION,
 * ARCH, NRCPUS, CPUDESC, CPUID, TOTAL_MEM, CMDLINE, EVENT_DESC.
 *
 * With -o - the stream stays in pipe format, and the same features go
 * into it as records (perfdata_pipe).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include "perfdata.h"
#include "perfzstd.h"

/* perf's user-space record types and feature numbers (tools/perf:
 * lib/perf/include/perf/event.h, util/header.h); not in the uapi. */
enum {
	REC_USER_FIRST = 64,   /* types below are the kernel's */
	REC_HEADER_ATTR = 64,
	REC_HEADER_TRACING_DATA = 66,   /* { header (size 12), u32 size }, then size bytes */
	REC_HEADER_BUILD_ID = 67,
	REC_EVENT_UPDATE = 78,
	REC_HEADER_FEATURE = 80,
	EVENT_UPDATE_NAME = 2,
};
#define MISC_BUILD_ID_SIZE (1 << 15)   /* the entry's size byte is valid */
enum {
	FEAT_TRACING_DATA = 1,
	FEAT_BUILD_ID = 2, FEAT_HOSTNAME, FEAT_OSRELEASE, FEAT_VERSION, FEAT_ARCH,
	FEAT_NRCPUS, FEAT_CPUDESC, FEAT_CPUID, FEAT_TOTAL_MEM, FEAT_CMDLINE,
	FEAT_EVENT_DESC,
	FEAT_BITS = 256,
};
#define NAME_ALIGN 64
#define ATTR_SIZE 128          /* VER7: what perf 6.1 accepts */
#define HEADER_SIZE 104
#define MAX_EVENTS 64
#define MAX_IDS 256

struct event {
	uint8_t attr[ATTR_SIZE];
	uint64_t ids[MAX_IDS];
	uint32_t nr_ids;
	char name[128];
};

/* A growing byte buffer. */
struct buf {
	uint8_t *p;
	size_t len, cap;
};

static void put(struct buf *b, const void *p, size_t n)
{
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;
		while (cap < b->len + n)
			cap *= 2;
		uint8_t *q = realloc(b->p, cap);
		if (!q) {
			fprintf(stderr, "baremon: out of memory\n");
			exit(70);
		}
		b->p = q;
		b->cap = cap;
	}
	memcpy(b->p + b->len, p, n);
	b->len += n;
}

static void put_u32(struct buf *b, uint32_t v) { put(b, &v, 4); }
static void put_u64(struct buf *b, uint64_t v) { put(b, &v, 8); }

static void put_zeros(struct buf *b, size_t n)
{
	static const uint8_t z[NAME_ALIGN];
	while (n) {
		size_t k = n < sizeof(z) ? n : sizeof(z);
		put(b, z, k);
		n -= k;
	}
}

/* perf's string: u32 length (with the NUL, padded to 64), bytes. */
static void put_string(struct buf *b, const char *s)
{
	size_t n = strlen(s) + 1;
	size_t padded = (n + NAME_ALIGN - 1) / NAME_ALIGN * NAME_ALIGN;
	put_u32(b, (uint32_t)padded);
	put(b, s, n);
	put_zeros(b, padded - n);
}

struct input {
	struct event ev[MAX_EVENTS];
	int nev;
	struct buf data;      /* the records for the data section */
	struct buf tracing;   /* HEADER_TRACING_DATA's bytes, padded to 8 */
};

static struct event *event_of_id(struct input *in, uint64_t id)
{
	for (int i = 0; i < in->nev; i++)
		for (uint32_t k = 0; k < in->ev[i].nr_ids; k++)
			if (in->ev[i].ids[k] == id)
				return &in->ev[i];
	return NULL;
}

static int take_attr(struct input *in, const uint8_t *r, size_t size)
{
	const uint8_t *attr = r + sizeof(struct perf_event_header);
	uint32_t asize = get_le32(attr + 4);   /* perf_event_attr.size */
	if (in->nev == MAX_EVENTS || asize < 64 || sizeof(struct perf_event_header) + asize > size)
		return -1;
	struct event *e = &in->ev[in->nev++];
	memset(e, 0, sizeof(*e));
	memcpy(e->attr, attr, asize < ATTR_SIZE ? asize : ATTR_SIZE);
	put_le32(e->attr + 4, ATTR_SIZE);
	size_t off = sizeof(struct perf_event_header) + asize;
	while (off + 8 <= size && e->nr_ids < MAX_IDS) {
		e->ids[e->nr_ids++] = get_le64(r + off);
		off += 8;
	}
	snprintf(e->name, sizeof(e->name), "event%d", in->nev - 1);
	return 0;
}

static void take_update(struct input *in, const uint8_t *r, size_t size)
{
	size_t h = sizeof(struct perf_event_header);
	if (size < h + 17 || get_le64(r + h) != EVENT_UPDATE_NAME)
		return;
	struct event *e = event_of_id(in, get_le64(r + h + 8));
	if (!e)
		return;
	size_t n = size - h - 16;
	if (n >= sizeof(e->name))
		n = sizeof(e->name) - 1;
	memcpy(e->name, r + h + 16, n);
	e->name[n] = 0;
}

/* The bytes that follow a HEADER_TRACING_DATA record: its u32 says how
 * many. A stream has one such record at most. */
static int read_tracing_bytes(FILE *f, const uint8_t *r, size_t size, struct buf *into)
{
	if (size < 12)
		return -1;
	uint32_t n = pipe_record_trailing(r, size);
	if (n > (64u << 20))
		return -1;
	uint8_t chunk[4096];
	for (uint32_t done = 0; done < n;) {
		size_t k = n - done < sizeof(chunk) ? n - done : sizeof(chunk);
		if (fread(chunk, 1, k, f) != k)
			return -1;
		put(into, chunk, k);
		done += (uint32_t)k;
	}
	return 0;
}

static int take_tracing(struct input *in, const uint8_t *r, size_t size, FILE *f)
{
	if (in->tracing.len)
		return -1;
	return read_tracing_bytes(f, r, size, &in->tracing);
}

static int read_pipe(const char *path, struct input *in)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return -1;
	uint8_t head[16];
	if (fread(head, 1, 16, f) != 16 || memcmp(head, "PERFILE2", 8) != 0 ||
	    get_le64(head + 8) != 16) {
		fclose(f);
		errno = EINVAL;
		return -1;
	}
	static uint8_t r[65536];
	for (;;) {
		if (fread(r, 1, 8, f) != 8)
			break;
		uint16_t type = (uint16_t)get_le32(r), size = get_le16(r + 6);
		if (size < 8 || fread(r + 8, 1, size - 8u, f) != size - 8u) {
			fclose(f);
			errno = EINVAL;
			return -1;   /* a truncated record */
		}
		if (type == REC_HEADER_TRACING_DATA) {
			if (take_tracing(in, r, size, f) != 0) {
				fclose(f);
				errno = EINVAL;
				return -1;
			}
		} else if (type == REC_HEADER_ATTR) {
			if (take_attr(in, r, size) != 0) {
				fclose(f);
				errno = EINVAL;
				return -1;
			}
		} else if (type == REC_EVENT_UPDATE) {
			take_update(in, r, size);
		} else {
			put(&in->data, r, size);
		}
	}
	fclose(f);
	return in->nev ? 0 : (errno = EINVAL, -1);
}

/* One BUILD_ID entry (struct perf_record_header_build_id). */
static void put_build_id(struct buf *b, const struct build_id *bid, const char *name,
			 uint16_t misc)
{
	size_t n = strlen(name) + 1;
	size_t padded = (n + NAME_ALIGN - 1) / NAME_ALIGN * NAME_ALIGN;
	struct perf_event_header h = {
		.misc = misc | MISC_BUILD_ID_SIZE,
		.size = (uint16_t)(36 + padded),
	};
	uint8_t id[24] = { 0 };
	memcpy(id, bid->data, bid->size);
	id[20] = (uint8_t)bid->size;
	put(b, &h, sizeof(h));
	put_u32(b, (uint32_t)-1);   /* pid: the host machine */
	put(b, id, sizeof(id));
	put(b, name, n);
	put_zeros(b, padded - n);
}

/* The file name of an MMAP or MMAP2 record, or NULL. */
static const char *mapped_name(const uint8_t *r)
{
	uint32_t type = get_le32(r);
	size_t at = type == PERF_RECORD_MMAP ? 40 : type == PERF_RECORD_MMAP2 ? 72 : 0;
	if (!at || at >= get_le16(r + 6) || memchr(r + at, 0, get_le16(r + 6) - at) == NULL)
		return NULL;
	return (const char *)r + at;
}

/* A program of the initrd (/bin/NAME) that the tree built: bin_dir/NAME. */
static bool initrd_program(const char *name, const char *bin_dir, char *local, size_t size)
{
	if (!bin_dir || strncmp(name, "/bin/", 5) != 0 || strchr(name + 5, '/'))
		return false;
	snprintf(local, size, "%s/%s", bin_dir, name + 5);
	return access(local, R_OK) == 0;
}

/* Build ids of the kernel, the pushed programs and the initrd's programs
 * that samples fall in. */
static void feat_build_id(struct buf *b, const struct input *in, const struct program *p,
			  int np, const char *kernel_elf, const char *bin_dir)
{
	struct build_id bid;
	if (kernel_elf && buildid_cache_add(kernel_elf, &bid) == 0)
		put_build_id(b, &bid, "[kernel.kallsyms]", PERF_RECORD_MISC_KERNEL);
	/* The samples name the local file (mappath.c). */
	for (int i = 0; i < np; i++)
		if (buildid_cache_add(p[i].local_path, &bid) == 0)
			put_build_id(b, &bid, p[i].local_path, PERF_RECORD_MISC_USER);
	char done[32][64];
	int ndone = 0;
	for (size_t off = 0; off + 8 <= in->data.len; off += get_le16(in->data.p + off + 6)) {
		const char *name = mapped_name(in->data.p + off);
		char local[4096];
		if (!name || !initrd_program(name, bin_dir, local, sizeof(local)) || ndone == 32)
			continue;
		bool seen = false;
		for (int i = 0; i < ndone; i++)
			seen |= strcmp(done[i], name) == 0;
		if (seen || strlen(name) >= sizeof(done[0]))
			continue;
		strcpy(done[ndone++], name);
		if (buildid_cache_add(local, &bid) == 0)
			put_build_id(b, &bid, name, PERF_RECORD_MISC_USER);
	}
}

static void feat_cmdline(struct buf *b, const char *cmdline)
{
	char copy[4096];
	snprintf(copy, sizeof(copy), "%s", cmdline);
	char *w[256];
	uint32_t n = 0;
	for (char *t = strtok(copy, " "); t && n < 256; t = strtok(NULL, " "))
		w[n++] = t;
	put_u32(b, n);
	for (uint32_t i = 0; i < n; i++)
		put_string(b, w[i]);
}

static void feat_event_desc(struct buf *b, const struct input *in)
{
	put_u32(b, (uint32_t)in->nev);
	put_u32(b, ATTR_SIZE);
	for (int i = 0; i < in->nev; i++) {
		const struct event *e = &in->ev[i];
		put(b, e->attr, ATTR_SIZE);
		put_u32(b, e->nr_ids);
		put_string(b, e->name);
		put(b, e->ids, e->nr_ids * 8u);
	}
}

/* Each feature's contents, in feature-number order. */
/* perf record -z: the level, 0 for none (perfdata_set_compression). */
static int zstd_level;

void perfdata_set_compression(int level)
{
	zstd_level = level;
}

static int build_features(struct buf *feat, int *ids, const struct input *in,
			  const struct program *p, int np, const char *kernel_elf,
			  const char *bin_dir, const struct machine_info *m,
			  const char *cmdline)
{
	int n = 0;
	if (in->tracing.len) {
		put(&feat[n], in->tracing.p, in->tracing.len);
		ids[n++] = FEAT_TRACING_DATA;
	}
	for (int f = FEAT_BUILD_ID; f <= FEAT_EVENT_DESC; f++) {
		struct buf *b = &feat[n];
		switch (f) {
		case FEAT_BUILD_ID: feat_build_id(b, in, p, np, kernel_elf, bin_dir); break;
		case FEAT_HOSTNAME: put_string(b, m->hostname); break;
		case FEAT_OSRELEASE: put_string(b, m->osrelease); break;
		case FEAT_VERSION: put_string(b, "baremon-" BAREMON_VERSION); break;
		case FEAT_ARCH: put_string(b, "x86_64"); break;
		case FEAT_NRCPUS: put_u32(b, m->nr_cpus); put_u32(b, m->nr_cpus); break;
		case FEAT_CPUDESC: put_string(b, m->cpudesc); break;
		case FEAT_CPUID: put_string(b, m->cpuid); break;
		case FEAT_TOTAL_MEM: put_u64(b, m->mem_kb); break;
		case FEAT_CMDLINE: feat_cmdline(b, cmdline); break;
		case FEAT_EVENT_DESC: feat_event_desc(b, in); break;
		}
		ids[n++] = f;
	}
	return n;
}

static void put_section(struct buf *b, uint64_t offset, uint64_t size)
{
	put_u64(b, offset);
	put_u64(b, size);
}

int perfdata_convert(const char *pipe_file, const char *out_file,
		     const struct program *programs, int nprograms,
		     const char *kernel_elf, const char *bin_dir,
		     const struct machine_info *m, const char *cmdline)
{
	static struct input in;
	memset(&in, 0, sizeof(in));
	if (read_pipe(pipe_file, &in) != 0) {
		fprintf(stderr, "baremon: record: the guest's data is not perf pipe format: %s\n",
			strerror(errno));
		free(in.data.p);
		free(in.tracing.p);
		return -1;
	}
	struct buf feat[FEAT_BITS] = { 0 };
	int fids[FEAT_BITS];
	int nfeat = build_features(feat, fids, &in, programs, nprograms, kernel_elf, bin_dir,
				   m, cmdline);

	if (zstd_level) {
		/* The records through zstd, as perf record -z writes them,
		 * and the feature that says so (the last: features go in
		 * number order). */
		uint8_t *z;
		size_t zlen;
		if (perfz_compress(in.data.p, in.data.len, zstd_level, &z, &zlen) != 0) {
			fprintf(stderr, "baremon: record: -z: cannot compress the records\n");
			for (int i = 0; i < nfeat; i++)
				free(feat[i].p);
			free(in.data.p);
			return -1;
		}
		uint8_t f[20];
		perfz_feature(f, zstd_level, in.data.len, zlen);
		put(&feat[nfeat], f, sizeof(f));
		fids[nfeat++] = PERFZ_FEATURE;
		free(in.data.p);
		in.data = (struct buf){ .p = z, .len = zlen, .cap = zlen };
	}

	/* Layout: header, attrs, ids, data, feature table, features. */
	uint64_t attrs_off = HEADER_SIZE;
	uint64_t attrs_size = (uint64_t)in.nev * (ATTR_SIZE + 16);
	uint64_t ids_off = attrs_off + attrs_size;
	uint64_t ids_size = 0;
	for (int i = 0; i < in.nev; i++)
		ids_size += in.ev[i].nr_ids * 8u;
	uint64_t data_off = ids_off + ids_size;
	uint64_t feat_off = data_off + in.data.len;

	struct buf out = { 0 };
	put(&out, "PERFILE2", 8);
	put_u64(&out, HEADER_SIZE);
	put_u64(&out, ATTR_SIZE + 16);
	put_section(&out, attrs_off, attrs_size);
	put_section(&out, data_off, in.data.len);
	put_section(&out, 0, 0);   /* event_types: unused */
	uint8_t bits[FEAT_BITS / 8] = { 0 };
	for (int i = 0; i < nfeat; i++)
		bits[fids[i] / 8] |= (uint8_t)(1u << (fids[i] % 8));
	put(&out, bits, sizeof(bits));
	uint64_t id_at = ids_off;
	for (int i = 0; i < in.nev; i++) {
		put(&out, in.ev[i].attr, ATTR_SIZE);
		put_section(&out, id_at, in.ev[i].nr_ids * 8u);
		id_at += in.ev[i].nr_ids * 8u;
	}
	for (int i = 0; i < in.nev; i++)
		put(&out, in.ev[i].ids, in.ev[i].nr_ids * 8u);
	put(&out, in.data.p, in.data.len);
	uint64_t at = feat_off + (uint64_t)nfeat * 16;
	for (int i = 0; i < nfeat; i++) {
		put_section(&out, at, feat[i].len);
		at += feat[i].len;
	}
	for (int i = 0; i < nfeat; i++) {
		put(&out, feat[i].p, feat[i].len);
		free(feat[i].p);
	}
	free(in.data.p);
	free(in.tracing.p);

	FILE *f = fopen(out_file, "wb");
	int ok = f && fwrite(out.p, 1, out.len, f) == out.len;
	if (f && fclose(f) != 0)
		ok = 0;
	free(out.p);
	if (!ok) {
		fprintf(stderr, "baremon: record: cannot write %s: %s\n", out_file, strerror(errno));
		return -1;
	}
	return 0;
}

/* The features as pipe-mode records: each BUILD_ID entry becomes a
 * HEADER_BUILD_ID record (the same bytes with that type), every other
 * feature a HEADER_FEATURE record { header, u64 feature, contents },
 * as perf record writes them to a pipe. */
static void write_feature_records(FILE *out, struct buf *feat, const int *ids, int n)
{
	for (int i = 0; i < n; i++) {
		struct buf *b = &feat[i];
		if (ids[i] == FEAT_TRACING_DATA)
			continue;   /* its record stays in the stream */
		if (ids[i] == FEAT_BUILD_ID) {
			for (size_t off = 0; off + 8 <= b->len; off += get_le16(b->p + off + 6))
				put_le32(b->p + off, REC_HEADER_BUILD_ID);
			fwrite(b->p, 1, b->len, out);
			continue;
		}
		size_t size = sizeof(struct perf_event_header) + 8 + b->len;
		if (size > 0xffff)
			continue;   /* too big for one record: left out */
		struct perf_event_header h = { .type = REC_HEADER_FEATURE, .size = (uint16_t)size };
		uint64_t feat_id = (uint64_t)ids[i];
		fwrite(&h, sizeof(h), 1, out);
		fwrite(&feat_id, 8, 1, out);
		fwrite(b->p, 1, b->len, out);
	}
}

/* Copy the pipe stream, the feature records placed before the first
 * of the kernel's records (after the attrs and event names). */
static int copy_with_features(FILE *in, FILE *out, struct buf *feat, const int *ids, int n)
{
	static uint8_t r[65536];
	bool placed = false;
	if (fread(r, 1, 16, in) != 16)
		return -1;
	fwrite(r, 1, 16, out);
	while (fread(r, 1, 8, in) == 8) {
		uint16_t size = get_le16(r + 6);
		if (size < 8 || fread(r + 8, 1, size - 8u, in) != size - 8u)
			return -1;
		if (!placed && get_le32(r) < REC_USER_FIRST) {
			write_feature_records(out, feat, ids, n);
			placed = true;
		}
		fwrite(r, 1, size, out);
		if (get_le32(r) == REC_HEADER_TRACING_DATA) {
			struct buf t = { 0 };
			if (read_tracing_bytes(in, r, size, &t) != 0)
				return -1;
			fwrite(t.p, 1, t.len, out);
			free(t.p);
		}
	}
	if (!placed)
		write_feature_records(out, feat, ids, n);
	return fflush(out) == 0 && !ferror(out) ? 0 : -1;
}

int perfdata_pipe(const char *pipe_file, FILE *out,
		  const struct program *programs, int nprograms,
		  const char *kernel_elf, const char *bin_dir,
		  const struct machine_info *m, const char *cmdline)
{
	static struct input in;
	memset(&in, 0, sizeof(in));
	FILE *f = NULL;
	if (read_pipe(pipe_file, &in) != 0 || (f = fopen(pipe_file, "rb")) == NULL) {
		fprintf(stderr, "baremon: record: the guest's data is not perf pipe format: %s\n",
			strerror(errno));
		free(in.data.p);
		free(in.tracing.p);
		return -1;
	}
	struct buf feat[FEAT_BITS] = { 0 };
	int fids[FEAT_BITS];
	int nfeat = build_features(feat, fids, &in, programs, nprograms, kernel_elf, bin_dir,
				   m, cmdline);
	int r = copy_with_features(f, out, feat, fids, nfeat);
	fclose(f);
	for (int i = 0; i < nfeat; i++)
		free(feat[i].p);
	free(in.data.p);
	free(in.tracing.p);
	if (r != 0)
		fprintf(stderr, "baremon: record: cannot write the pipe data: %s\n", strerror(errno));
	return r;
}

/* "key\t: value" from /proc/cpuinfo or "Key: value" from /proc/meminfo. */
static const char *field(const char *text, const char *key, char *out, size_t size)
{
	size_t k = strlen(key);
	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		if (strncmp(l, key, k) != 0 || (l[k] != '\t' && l[k] != ':'))
			continue;
		const char *v = strchr(l, ':');
		if (!v)
			continue;
		v += 1 + strspn(v + 1, " \t");
		size_t n = strcspn(v, "\n");
		if (n >= size)
			n = size - 1;
		memcpy(out, v, n);
		out[n] = 0;
		return out;
	}
	snprintf(out, size, "unknown");
	return NULL;
}

void machine_info_parse(struct machine_info *m, const char *text)
{
	memset(m, 0, sizeof(*m));
	size_t n = strcspn(text, "\n");
	snprintf(m->hostname, sizeof(m->hostname), "%.*s", (int)n, text);
	text += n + (text[n] == '\n');
	n = strcspn(text, "\n");
	snprintf(m->osrelease, sizeof(m->osrelease), "%.*s", (int)n, text);
	text += n + (text[n] == '\n');
	field(text, "model name", m->cpudesc, sizeof(m->cpudesc));
	char vendor[64], family[16], model[16], stepping[16], mem[64];
	field(text, "vendor_id", vendor, sizeof(vendor));
	field(text, "cpu family", family, sizeof(family));
	field(text, "model", model, sizeof(model));
	field(text, "stepping", stepping, sizeof(stepping));
	snprintf(m->cpuid, sizeof(m->cpuid), "%s,%s,%s,%s", vendor, family, model, stepping);
	for (const char *l = text; (l = strstr(l, "processor")) != NULL; l++)
		if (l == text || l[-1] == '\n')
			m->nr_cpus++;
	if (field(text, "MemTotal", mem, sizeof(mem)))
		m->mem_kb = strtoull(mem, NULL, 10);
}
