/*
 * The pid table (pidtable.h): a two-level array indexed by tid. The top
 * level is static and covers PID_LIMIT tids; each leaf is one page of
 * task pointers, made when a tid in its range is first handed out and
 * given back when its last tid is freed. Each leaf keeps a count of its
 * used slots, so allocation passes over a full leaf at once.
 *
 * Costs: lookup and removal O(1); allocation O(1) while tids are
 * plentiful (the next tid after the last one is usually free), at worst
 * one step per leaf when the table is nearly full; one page per 512
 * tids in use, at most.
 *
 * Locking: task_lock (tasks.c) protects everything here; pmm_lock is
 * taken under it to make a leaf (task_lock -> pmm_lock), never to give
 * one back (the caller frees it after unlocking).
 */
#include "core/kernel.h"
#include "core/mm/mm.h"
#include "pidtable.h"

#define LEAF_SLOTS (PAGE_SIZE / sizeof(struct task *))
#define NLEAVES (PID_LIMIT / LEAF_SLOTS)
/* Where allocation starts again after reaching pid_max (Linux's). */
#define RESERVED_PIDS 300

struct pid_leaf {
	struct task *slot[LEAF_SLOTS];
};
_Static_assert(sizeof(struct pid_leaf) == PAGE_SIZE, "a leaf is a page");

static struct pid_leaf *leaves[NLEAVES];
static uint16_t used[NLEAVES];   /* slots taken in each leaf */
static int next_tid = 1;         /* where the next allocation looks first */

static struct pid_leaf *leaf_make(unsigned i)
{
	if (!leaves[i]) {
		uint64_t page = pmm_alloc_page(); /* zeroed: every slot free */
		if (page)
			leaves[i] = phys_to_virt(page);
	}
	return leaves[i];
}

/* The first free tid in [from, to), or 0. */
static int find_free(int from, int to)
{
	int tid = from;
	while (tid < to) {
		unsigned i = (unsigned)tid / LEAF_SLOTS;
		if (used[i] == LEAF_SLOTS) {
			tid = (int)((i + 1) * LEAF_SLOTS); /* full: the next leaf */
			continue;
		}
		if (!leaves[i] || !leaves[i]->slot[tid % LEAF_SLOTS])
			return tid;
		tid++;
	}
	return 0;
}

int pid_table_alloc(struct task *t, int pid_max)
{
	if (pid_max > PID_LIMIT)
		pid_max = PID_LIMIT;
	int low = RESERVED_PIDS < pid_max ? RESERVED_PIDS : 2;
	if (next_tid >= pid_max)
		next_tid = low;
	int tid = find_free(next_tid, pid_max);
	if (!tid)
		tid = find_free(low, next_tid);
	if (!tid)
		return 0;
	unsigned i = (unsigned)tid / LEAF_SLOTS;
	struct pid_leaf *leaf = leaf_make(i);
	if (!leaf)
		return 0;
	leaf->slot[tid % LEAF_SLOTS] = t;
	used[i]++;
	next_tid = tid + 1;
	return tid;
}

struct task *pid_table_get(int tid)
{
	if (tid <= 0 || tid >= PID_LIMIT)
		return NULL;
	struct pid_leaf *leaf = leaves[(unsigned)tid / LEAF_SLOTS];
	return leaf ? leaf->slot[tid % LEAF_SLOTS] : NULL;
}

uint64_t pid_table_remove(int tid)
{
	unsigned i = (unsigned)tid / LEAF_SLOTS;
	struct pid_leaf *leaf = tid > 0 && tid < PID_LIMIT ? leaves[i] : NULL;
	if (!leaf || !leaf->slot[tid % LEAF_SLOTS])
		return 0;
	leaf->slot[tid % LEAF_SLOTS] = NULL;
	if (--used[i] > 0)
		return 0;
	leaves[i] = NULL;
	return virt_to_phys(leaf);
}

struct task *pid_table_next(int *tid)
{
	for (int at = *tid < 1 ? 1 : *tid; at < PID_LIMIT;) {
		unsigned i = (unsigned)at / LEAF_SLOTS;
		struct pid_leaf *leaf = leaves[i];
		if (!leaf) {
			at = (int)((i + 1) * LEAF_SLOTS);
			continue;
		}
		for (unsigned s = (unsigned)at % LEAF_SLOTS; s < LEAF_SLOTS; s++, at++)
			if (leaf->slot[s]) {
				*tid = at;
				return leaf->slot[s];
			}
	}
	return NULL;
}
