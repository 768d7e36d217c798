/*
 * Side-band records: PERF_RECORD_COMM, FORK, EXIT, MMAP and MMAP2, for
 * every event that asked (attr.comm, attr.task, attr.mmap / mmap2) among
 * the current task's events and this CPU's, enabled or not yet running
 * (Linux's perf_iterate_sb: state >= INACTIVE, CPU matching). With
 * attr.sample_id_all each record ends with the sample_id trailer (TID,
 * TIME, ID, STREAM_ID, CPU, IDENTIFIER as sample_type selects).
 *
 * Called from process context (exec, prctl, fork, exit, mmap) without
 * perf_lock; takes it.
 */
#include <string.h>
#include "pmu/events/event.h"
#include "core/kernel.h"
#include "core/arch/percpu.h"
#include "pmu/perf.h"
#include "records.h"
#include "core/proc/task.h"
#include "core/arch/tsc.h"

/* A record body built by the caller: header, fixed part, string. */
struct sb_record {
	struct perf_event_header h;
	uint8_t body[128];         /* fixed fields */
	uint32_t body_len;
	const char *str;           /* NUL-terminated, padded to 8 (or NULL) */
	int time_at;               /* body offset of a time in e's clock, or -1 */
	bool has_build_id;         /* MMAP2: the file has one */
	bool (*wants)(const struct perf_event *e, const struct sb_record *r);
};

static uint32_t str_padded(const char *s)
{
	return s ? (uint32_t)((strlen(s) + 1 + 7) & ~7u) : 0;
}

static void output_one(struct perf_event *e, const struct sb_record *r)
{
	uint32_t slen = str_padded(r->str);
	uint32_t size = sizeof(r->h) + r->body_len + slen + perf_sample_id_size(e);
	struct rb_output o;
	if (!perf_output_begin(&o, e, size))
		return;
	struct perf_event_header h = r->h;
	h.size = (uint16_t)size;
	rb_output_copy(&o, &h, sizeof(h));
	if (r->time_at >= 0) {
		uint8_t body[sizeof(r->body)];
		uint64_t now = perf_event_clock(e);
		memcpy(body, r->body, r->body_len);
		memcpy(body + r->time_at, &now, 8);
		rb_output_copy(&o, body, r->body_len);
	} else {
		rb_output_copy(&o, r->body, r->body_len);
	}
	if (slen) {
		char pad[8] = { 0 };
		uint32_t n = (uint32_t)strlen(r->str);
		rb_output_copy(&o, r->str, n);
		rb_output_copy(&o, pad, slen - n);
	}
	perf_put_sample_id(&o, e);
	perf_output_end(&o, e, false);
}

/* Linux's perf_iterate_sb filter: enabled (running or waiting), on
 * this CPU or any, with somewhere to write. */
static void visit(struct perf_event *e, void (*fn)(struct perf_event *, void *), void *arg)
{
	if (e->state >= EVENT_INACTIVE && perf_event_buffer(e) &&
	    (e->cpu < 0 || (unsigned)e->cpu == this_cpu_id()))
		fn(e, arg);
}

static void visit_ctx(struct list *ctx, void (*fn)(struct perf_event *, void *), void *arg)
{
	list_for_each(n, ctx) {
		struct perf_event *l = list_entry(n, struct perf_event, ctx_node);
		visit(l, fn, arg);
		list_for_each(m, &l->siblings)
			visit(list_entry(m, struct perf_event, sibling_node), fn, arg);
	}
}

void perf_sb_iterate(struct task *t, void (*fn)(struct perf_event *, void *), void *arg)
{
	visit_ctx(&t->perf_events, fn, arg);
	visit_ctx(perf_cpu_events(this_cpu_id()), fn, arg);
}

static void output_if(struct perf_event *e, void *arg)
{
	const struct sb_record *r = arg;
	if (r->wants(e, r))
		output_one(e, r);
}

bool perf_sideband_possible(void)
{
	return !list_empty(&current->perf_events) ||
	       !list_empty(perf_cpu_events(this_cpu_id()));
}

static void output_all(const struct sb_record *r)
{
	struct task *t = current;
	if (!perf_sideband_possible())
		return;
	uint64_t f = spin_lock_irqsave(&perf_lock);
	perf_sb_iterate(t, output_if, (void *)r);
	spin_unlock_irqrestore(&perf_lock, f);
	perf_wakeup_pending();
}

/* ---- the records ---- */

static bool wants_comm(const struct perf_event *e, const struct sb_record *r)
{
	(void)r;
	return e->attr.comm;
}

static bool wants_task(const struct perf_event *e, const struct sb_record *r)
{
	(void)r;
	return e->attr.task;
}

static bool wants_ns(const struct perf_event *e, const struct sb_record *r)
{
	(void)r;
	return e->attr.namespaces;
}

void perf_record_comm(struct task *t, bool exec)
{
	struct sb_record r = { .h = { PERF_RECORD_COMM, exec ? PERF_RECORD_MISC_COMM_EXEC : 0, 0 },
			       .str = t->comm, .time_at = -1, .wants = wants_comm };
	uint32_t ids[2] = { (uint32_t)t->tgid, (uint32_t)t->tid };
	memcpy(r.body, ids, sizeof(ids));
	r.body_len = sizeof(ids);
	output_all(&r);
}

/*
 * NAMESPACES {pid, tid, nr_namespaces, {dev, ino} x 7}: Linux writes one
 * after each FORK (perf_event_fork), and at unshare and setns, which
 * baremon refuses (one namespace of each kind). The values are those of
 * Linux 6.18's initial namespaces: nsfs device 0:4 and their fixed
 * inode numbers (what stat -L /proc/1/ns/<kind> shows on such a host).
 */
static const uint64_t init_ns_ino[NR_NAMESPACES] = {
	[NET_NS_INDEX] = 0xEFFFFFF9u,  [UTS_NS_INDEX] = 0xEFFFFFFEu,
	[IPC_NS_INDEX] = 0xEFFFFFFFu,  [PID_NS_INDEX] = 0xEFFFFFFCu,
	[USER_NS_INDEX] = 0xEFFFFFFDu, [MNT_NS_INDEX] = 0xEFFFFFF8u,
	[CGROUP_NS_INDEX] = 0xEFFFFFFBu,
};
#define NSFS_DEV 4

static void record_namespaces(struct task *t)
{
	struct sb_record r = { .h = { PERF_RECORD_NAMESPACES, 0, 0 }, .time_at = -1,
			       .wants = wants_ns };
	uint32_t ids[2] = { (uint32_t)t->tgid, (uint32_t)t->tid };
	uint64_t nr = NR_NAMESPACES;
	struct perf_ns_link_info link[NR_NAMESPACES];
	for (int i = 0; i < NR_NAMESPACES; i++) {
		link[i].dev = NSFS_DEV;
		link[i].ino = init_ns_ino[i];
	}
	memcpy(r.body, ids, 8);
	memcpy(r.body + 8, &nr, 8);
	memcpy(r.body + 16, link, sizeof(link));
	r.body_len = 16 + sizeof(link);
	output_all(&r);
}

/* FORK and EXIT: pid, ppid, tid, ptid, time (each event's clock). A
 * fork is followed by the child's NAMESPACES. */
void perf_record_task(struct task *t, struct task *parent, bool fork)
{
	struct sb_record r = { .h = { fork ? PERF_RECORD_FORK : PERF_RECORD_EXIT, 0, 0 },
			       .time_at = 16, .wants = wants_task };
	uint32_t ids[4] = { (uint32_t)t->tgid, parent ? (uint32_t)parent->tgid : 0,
			    (uint32_t)t->tid, parent ? (uint32_t)parent->tid : 0 };
	memcpy(r.body, ids, sizeof(ids));
	r.body_len = sizeof(ids) + 8;
	output_all(&r);
	if (fork)
		record_namespaces(t);
}

/* Which mappings an event hears of (Linux's perf_event_mmap_match):
 * executable ones with attr.mmap or mmap2, the others with
 * attr.mmap_data, which needs neither of those. Those with attr.mmap2
 * get MMAP2, the others MMAP; MMAP2 carries the file's build id for
 * events with attr.build_id when it has one, else
 * maj/min/ino/ino_generation. */
static bool wants_kind(const struct perf_event *e, const struct sb_record *r)
{
	bool exec = !(r->h.misc & PERF_RECORD_MISC_MMAP_DATA);
	return exec ? e->attr.mmap || e->attr.mmap2 : e->attr.mmap_data;
}

static bool wants_mmap1(const struct perf_event *e, const struct sb_record *r)
{
	return !e->attr.mmap2 && wants_kind(e, r);
}

static bool wants_mmap2_id(const struct perf_event *e, const struct sb_record *r)
{
	return e->attr.mmap2 && e->attr.build_id && r->has_build_id && wants_kind(e, r);
}

static bool wants_mmap2_plain(const struct perf_event *e, const struct sb_record *r)
{
	return e->attr.mmap2 && !(e->attr.build_id && r->has_build_id) && wants_kind(e, r);
}

void perf_record_mmap(uint64_t addr, uint64_t len, uint64_t pgoff, int prot,
		      const struct perf_mmap_file *mf)
{
	struct task *t = current;
	bool exec = prot & 4; /* PROT_EXEC */
	uint32_t ids[2] = { (uint32_t)t->tgid, (uint32_t)t->tid };
	uint64_t where[3] = { addr, len, pgoff };
	struct sb_record r = { .h = { PERF_RECORD_MMAP, PERF_RECORD_MISC_USER, 0 },
			       .str = *mf->name ? mf->name : "//anon", .time_at = -1,
			       .has_build_id = mf->build_id_size > 0 };
	if (!exec)
		r.h.misc |= PERF_RECORD_MISC_MMAP_DATA;
	memcpy(r.body, ids, 8);
	memcpy(r.body + 8, where, 24);
	r.body_len = 32;
	r.wants = wants_mmap1;
	output_all(&r);
	/* MMAP2 adds maj, min, ino, ino_generation (0: baremon's file
	 * systems keep none), prot, flags (MAP_SHARED or MAP_PRIVATE). */
	struct { uint32_t maj, min; uint64_t ino, gen; uint32_t prot, flags; } more =
		{ mf->maj, mf->min, mf->ino, 0, (uint32_t)prot, mf->shared ? 1 : 2 };
	r.h.type = PERF_RECORD_MMAP2;
	memcpy(r.body + 32, &more, sizeof(more));
	r.body_len = 32 + sizeof(more);
	r.wants = wants_mmap2_plain;
	output_all(&r);
	if (!mf->build_id_size)
		return;
	/* ... or, with a build id: size, 3 reserved bytes, 20 bytes. */
	uint8_t id[24] = { (uint8_t)mf->build_id_size };
	memcpy(id + 4, mf->build_id, BUILD_ID_MAX);
	memcpy(r.body + 32, id, sizeof(id));
	r.h.misc |= PERF_RECORD_MISC_MMAP_BUILD_ID;
	r.wants = wants_mmap2_id;
	output_all(&r);
}
