/*
 * User address spaces. See usermm.h for the locking rule.
 *
 * Page ownership: a page mapped in a private vma belongs to the mappings
 * that hold it (pageref.c counts them) and is freed when the last one is
 * unmapped; pages of a shared vma belong to its shared_anon object, which
 * lives as long as any vma refers to it.
 *
 * Copy-on-write: fork maps the parent's private pages into the child
 * too, read-only on both sides (a page mapped more than once never has
 * PTE_WRITE). A write to such a page in a writable vma faults, and
 * cow_break gives the writer a copy of its own, or just the write bit
 * when it is the last mapping left. Shared vmas are never copied.
 */
#include <stdio.h>
#include <string.h>
#include <asm-generic/mman-common.h>
#include <linux/errno.h>
#include "core/kernel.h"
#include "mm.h"
#include "usermm.h"
#include "core/arch/x86.h"
#include "core/arch/percpu.h"
#include "tlb.h"
#include "core/fs/vfs.h"

struct shared_anon {
	int refs;            /* vmas referring to it (under their mm locks) */
	uint64_t npages;
	uint64_t *pages;     /* physical, 0 = not allocated yet */
	struct spinlock lock;
};

/*
 * mm->lock with interrupts off. While waiting for it, serve TLB shootdown
 * requests: the holder may be waiting for this very CPU to flush
 * (tlb.c), and with interrupts off the request's IPI cannot get in.
 */
static uint64_t mm_lock(struct mm *mm)
{
	uint64_t f = irq_save();
	while (!spin_trylock(&mm->lock)) {
		tlb_serve_pending();
		cpu_relax();
	}
	return f;
}

static void put_dead(struct list *dead);

/* Release mm->lock, then drop the file references of the file vmas
 * removed under it (a last file_put may free an inode: not with the
 * spinlock held). */
static void mm_unlock(struct mm *mm, uint64_t f)
{
	struct list dead;
	list_init(&dead);
	if (!list_empty(&mm->dead)) { /* move the entries to a local head */
		list_insert_between(&dead, mm->dead.prev, &mm->dead);
		list_remove(&mm->dead);
		list_init(&mm->dead);
	}
	spin_unlock_irqrestore(&mm->lock, f);
	put_dead(&dead);
}

/* ---- page tables ---- */

static unsigned idx(uint64_t va, int level)
{
	return (va >> (12 + 9 * level)) & 511;
}

static uint64_t *table(uint64_t entry)
{
	return phys_to_virt(entry & PTE_ADDR);
}

/* The level-0 entry for va, creating tables when `create`; NULL if none. */
static uint64_t *pte_of(struct mm *mm, uint64_t va, bool create)
{
	uint64_t *t = phys_to_virt(mm->pml4);
	for (int level = 3; level > 0; level--) {
		uint64_t *e = &t[idx(va, level)];
		if (!(*e & PTE_PRESENT)) {
			if (!create)
				return NULL;
			uint64_t page = pmm_alloc_page();
			if (!page)
				return NULL;
			*e = page | PTE_PRESENT | PTE_WRITE | PTE_USER;
		}
		t = table(*e);
	}
	return &t[idx(va, 0)];
}

/*
 * Walking a range: the level-0 entry of the first va at or after *va
 * (and before end) whose page table exists, with *va moved there, or
 * NULL when no table is left in the range. A missing table is skipped
 * whole, so a sparse range (a large stack with a few pages in it) costs
 * one look per table, not one walk per page. The entries of one page
 * table follow each other: pte_run_end says where this one's end.
 */
static uint64_t *pte_next(struct mm *mm, uint64_t *va, uint64_t end)
{
	while (*va < end) {
		uint64_t *t = phys_to_virt(mm->pml4);
		int level = 3;
		for (; level > 0; level--) {
			uint64_t e = t[idx(*va, level)];
			if (!(e & PTE_PRESENT))
				break;
			t = table(e);
		}
		if (level == 0)
			return &t[idx(*va, 0)];
		uint64_t span = 1ULL << (12 + 9 * level);
		uint64_t next = ALIGN_DOWN(*va, span) + span;
		if (next <= *va)
			break; /* the top of the address space */
		*va = next;
	}
	return NULL;
}

/* The end of the page table that holds va's entry, or end if sooner. */
static uint64_t pte_run_end(uint64_t va, uint64_t end)
{
	uint64_t next = ALIGN_DOWN(va, 1ULL << 21) + (1ULL << 21);
	return next < end ? next : end;
}

/* A page kept while its vma is PROT_NONE: not present, content kept. */
#define PTE_PROTNONE (1ULL << 9)

static bool pte_has_page(uint64_t e)
{
	return e & (PTE_PRESENT | PTE_PROTNONE);
}

static uint64_t pte_flags(int prot)
{
	if (!(prot & (PROT_READ | PROT_WRITE | PROT_EXEC)))
		return PTE_PROTNONE;
	uint64_t f = PTE_PRESENT | PTE_USER;
	if (prot & PROT_WRITE)
		f |= PTE_WRITE;
	if (!(prot & PROT_EXEC))
		f |= PTE_NX;
	return f;
}

/* The flags of a page in vma v: a private page mapped elsewhere too
 * stays read-only until a write copies it (cow_break). */
static uint64_t page_flags(const struct vma *v, uint64_t page)
{
	uint64_t f = pte_flags(v->prot);
	if ((f & PTE_WRITE) && !(v->flags & VMA_SHARED) && page_shared(page))
		f &= ~PTE_WRITE;
	return f;
}

/* The CPUs other than this one with mm loaded, into *others; true if
 * there are any. */
static bool others_active(struct mm *mm, struct cpumask *others)
{
	cpumask_load_atomic(others, &mm->active_cpus);
	cpumask_clear_cpu(others, this_cpu_id());
	return !cpumask_empty(others);
}

/* Forget va on every CPU that runs this address space (tlb.c). */
static void flush(struct mm *mm, uint64_t va)
{
	struct cpumask others;
	if (others_active(mm, &others))
		tlb_flush_others(&others, va);
	else
		invlpg(va);
}

/* Forget every user translation of mm on every CPU that runs it. */
static void flush_all(struct mm *mm)
{
	struct cpumask others;
	if (others_active(mm, &others))
		tlb_flush_others(&others, 0); /* whole TLBs there (tlb.c) */
	if (read_cr3() == mm->pml4)
		write_cr3(mm->pml4);
}

/* ---- shared anonymous objects ---- */

static struct shared_anon *shm_new(uint64_t npages)
{
	struct shared_anon *s = kzalloc(sizeof(*s));
	if (!s)
		return NULL;
	s->pages = kzalloc(npages * sizeof(uint64_t));
	if (!s->pages) {
		kfree(s);
		return NULL;
	}
	s->npages = npages;
	s->refs = 1;
	s->lock = (struct spinlock)SPINLOCK_INIT("shm");
	return s;
}

static void shm_put(struct shared_anon *s)
{
	if (__atomic_sub_fetch(&s->refs, 1, __ATOMIC_ACQ_REL) != 0)
		return;
	for (uint64_t i = 0; i < s->npages; i++)
		if (s->pages[i])
			pmm_free_pages(s->pages[i], 1);
	kfree(s->pages);
	kfree(s);
}

struct shared_anon *shm_create(uint64_t npages)
{
	struct shared_anon *s = shm_new(npages);
	if (!s)
		return NULL;
	for (uint64_t i = 0; i < npages; i++) {
		if (!(s->pages[i] = pmm_alloc_page())) {
			shm_put(s);
			return NULL;
		}
		memset(phys_to_virt(s->pages[i]), 0, PAGE_SIZE);
	}
	return s;
}

void shm_release(struct shared_anon *s)
{
	shm_put(s);
}

void *shm_kaddr(struct shared_anon *s, uint64_t i)
{
	return phys_to_virt(s->pages[i]);
}

/* The page at index i of s, allocated on first use; 0 if out of memory. */
static uint64_t shm_page(struct shared_anon *s, uint64_t i)
{
	uint64_t f = spin_lock_irqsave(&s->lock);
	if (!s->pages[i])
		s->pages[i] = pmm_alloc_page();
	uint64_t p = s->pages[i];
	spin_unlock_irqrestore(&s->lock, f);
	return p;
}

/* ---- vmas ---- */

static struct vma *vma_of(struct list *n)
{
	return list_entry(n, struct vma, node);
}

static struct vma *find_vma(struct mm *mm, uint64_t addr)
{
	list_for_each(n, &mm->vmas) {
		struct vma *v = vma_of(n);
		if (addr < v->start)
			return NULL;
		if (addr < v->end)
			return v;
	}
	return NULL;
}

static void insert_vma(struct mm *mm, struct vma *v)
{
	list_for_each(n, &mm->vmas) {
		if (vma_of(n)->start > v->start) {
			list_insert_between(&v->node, n->prev, n);
			return;
		}
	}
	list_add_tail(&v->node, &mm->vmas);
}

/* Drop the pages of [start, end) within v from the page tables. */
static void unmap_pages(struct mm *mm, struct vma *v, uint64_t start, uint64_t end)
{
	uint64_t va = start, *pte;
	while ((pte = pte_next(mm, &va, end)) != NULL) {
		for (uint64_t stop = pte_run_end(va, end); va < stop; va += PAGE_SIZE, pte++) {
			if (!pte_has_page(*pte))
				continue;
			uint64_t page = *pte & PTE_ADDR;
			*pte = 0;
			mm->rss_pages--;
			flush(mm, va); /* no CPU may still reach the page ... */
			if (!(v->flags & VMA_SHARED))
				page_put(page); /* ... before it is reused */
		}
	}
}

/* Split v at addr (inside it); returns the upper part, or NULL (no memory). */
static struct vma *split_vma(struct vma *v, uint64_t addr)
{
	struct vma *hi = kmalloc(sizeof(*hi));
	if (!hi)
		return NULL;
	*hi = *v;
	hi->start = addr;
	hi->file_off = v->file_off + (addr - v->start);
	if (v->file)
		file_get(v->file);
	if (v->shm) {
		__atomic_add_fetch(&v->shm->refs, 1, __ATOMIC_ACQ_REL);
		hi->shm_pgoff = v->shm_pgoff + (addr - v->start) / PAGE_SIZE;
	}
	v->end = addr;
	list_insert_between(&hi->node, &v->node, v->node.next);
	return hi;
}

/* Free v; a file vma waits on mm->dead for mm_unlock (or mm_put). */
static void free_vma(struct mm *mm, struct vma *v)
{
	list_remove(&v->node);
	if (v->ops && v->ops->close)
		v->ops->close(mm, v->priv);
	if (v->shm)
		shm_put(v->shm);
	if (v->file)
		list_add_tail(&v->node, &mm->dead);
	else
		kfree(v);
}

static void put_dead(struct list *dead)
{
	list_for_each_safe(n, dead) {
		struct vma *v = vma_of(n);
		list_remove(n);
		file_put(v->file);
		kfree(v);
	}
}

/* A VMA_NOSPLIT area only partly inside [start, end)? */
static bool splits_nosplit(struct mm *mm, uint64_t start, uint64_t end)
{
	list_for_each(n, &mm->vmas) {
		struct vma *v = vma_of(n);
		if (v->end <= start || v->start >= end || !(v->flags & VMA_NOSPLIT))
			continue;
		if (v->start < start || v->end > end)
			return true;
	}
	return false;
}

bool mm_range_nosplit(struct mm *mm, uint64_t start, uint64_t len)
{
	uint64_t f = mm_lock(mm);
	bool r = false;
	list_for_each(n, &mm->vmas) {
		struct vma *v = vma_of(n);
		if (v->end > start && v->start < start + len && (v->flags & VMA_NOSPLIT))
			r = true;
	}
	mm_unlock(mm, f);
	return r;
}

bool mm_special_at(struct mm *mm, uint64_t addr)
{
	uint64_t f = mm_lock(mm);
	const struct vma *v = find_vma(mm, addr);
	bool r = v && (v->flags & VMA_SPECIAL);
	mm_unlock(mm, f);
	return r;
}

/* Remove [start, end) from the address space. Caller holds mm->lock. */
static int unmap_locked(struct mm *mm, uint64_t start, uint64_t end)
{
	if (splits_nosplit(mm, start, end))
		return -EINVAL;
	list_for_each_safe(n, &mm->vmas) {
		struct vma *v = vma_of(n);
		if (v->end <= start || v->start >= end)
			continue;
		if (v->start < start) {
			/* Keep the lower part; go on with the upper one (the
			 * loop's saved next does not include it). */
			struct vma *hi = split_vma(v, start);
			if (!hi)
				return -ENOMEM;
			v = hi;
		}
		if (v->end > end && !split_vma(v, end))
			return -ENOMEM;
		unmap_pages(mm, v, v->start, v->end);
		free_vma(mm, v);
	}
	return 0;
}

/*
 * mremap of a whole VMA_NOSPLIT area to `to` (same length): Linux moves
 * a perf buffer's vma as one piece (its pages stay the driver's; here
 * they fault back in from the shared pages at the new place). 0, or
 * -EINVAL for part of an area, an overlap of old and new, or a new
 * place that would split another such area.
 */
int mm_move_whole(struct mm *mm, uint64_t old, uint64_t len, uint64_t to)
{
	if (to < old + len && old < to + len)
		return -EINVAL;
	uint64_t f = mm_lock(mm);
	struct vma *v = find_vma(mm, old);
	int r = -EINVAL;
	if (v && v->start == old && v->end == old + len && (v->flags & VMA_NOSPLIT))
		r = unmap_locked(mm, to, to + len);
	if (r == 0) {
		unmap_pages(mm, v, v->start, v->end);
		list_remove(&v->node);
		v->start = to;
		v->end = to + len;
		insert_vma(mm, v);
	}
	mm_unlock(mm, f);
	return r;
}

/* ---- mremap of ordinary mappings (mman.c checks the arguments) ---- */

/* The vma holding all of [start, start+len), or NULL. Caller holds
 * mm->lock. */
static struct vma *vma_holding(struct mm *mm, uint64_t start, uint64_t len)
{
	struct vma *v = find_vma(mm, start);
	return v && len <= v->end - start ? v : NULL;
}

int mm_grow(struct mm *mm, uint64_t old, uint64_t old_len, uint64_t new_len)
{
	uint64_t f = mm_lock(mm);
	struct vma *v = vma_holding(mm, old, old_len);
	int r = v ? 0 : -EFAULT;
	if (!r && (v->end != old + old_len || (v->flags & VMA_NOSPLIT)))
		r = -ENOMEM;
	if (!r && v->node.next != &mm->vmas &&
	    vma_of(v->node.next)->start < old + new_len)
		r = -ENOMEM; /* the next mapping is in the way */
	if (!r)
		v->end = old + new_len; /* same prot, kind and backing; a shared
					 * one's pages past its object: SIGBUS */
	mm_unlock(mm, f);
	return r;
}

/* Cut v down to exactly [start, end) (inside it): the parts around it
 * become vmas of their own. Returns the vma for [start, end), or NULL
 * (no memory: v may be split at start already, which is harmless). */
static struct vma *carve_vma(struct vma *v, uint64_t start, uint64_t end)
{
	if (v->start < start && !(v = split_vma(v, start)))
		return NULL;
	if (v->end > end && !split_vma(v, end))
		return NULL;
	return v;
}

/* Move the page table entries of [from, from+len) to [to, to+len). The
 * target's tables exist (tables_for). Caller holds mm->lock. */
static void move_ptes(struct mm *mm, uint64_t from, uint64_t to, uint64_t len)
{
	for (uint64_t off = 0; off < len; off += PAGE_SIZE) {
		uint64_t *src = pte_of(mm, from + off, false);
		if (!src || !pte_has_page(*src))
			continue;
		*pte_of(mm, to + off, false) = *src;
		*src = 0;
		flush(mm, from + off);
	}
}

/* Create the tables for the pages of [to, to+len) that will receive the
 * mapped pages of [from, from+len). Caller holds mm->lock. */
static int tables_for(struct mm *mm, uint64_t from, uint64_t to, uint64_t len)
{
	for (uint64_t off = 0; off < len; off += PAGE_SIZE) {
		uint64_t *src = pte_of(mm, from + off, false);
		if (src && pte_has_page(*src) && !pte_of(mm, to + off, true))
			return -ENOMEM;
	}
	return 0;
}

int mm_move(struct mm *mm, uint64_t old, uint64_t old_len, uint64_t new_len,
	    uint64_t to)
{
	if (to < old + old_len && old < to + new_len)
		return -EINVAL;
	uint64_t f = mm_lock(mm);
	int r = unmap_locked(mm, to, to + new_len);
	if (r)
		goto out;
	if (new_len < old_len) {
		r = unmap_locked(mm, old + new_len, old + old_len);
		if (r)
			goto out;
		old_len = new_len;
	}
	/* Looked up now: the unmapping above may have split its vma. */
	struct vma *v = vma_holding(mm, old, old_len);
	r = -EFAULT;
	if (!v)
		goto out;
	r = -EINVAL;
	if (v->flags & VMA_NOSPLIT)
		goto out;
	r = -ENOMEM;
	if (tables_for(mm, old, to, old_len) || !(v = carve_vma(v, old, old + old_len)))
		goto out;
	move_ptes(mm, old, to, old_len);
	list_remove(&v->node);
	v->start = to;
	v->end = to + new_len; /* a shared one's pages past its object: SIGBUS */
	insert_vma(mm, v);
	r = 0;
out:
	mm_unlock(mm, f);
	return r;
}

/* ---- address spaces ---- */

struct mm *mm_create(void)
{
	struct mm *mm = kzalloc(sizeof(*mm));
	uint64_t pml4 = pmm_alloc_page();
	if (!mm || !pml4) {
		kfree(mm);
		if (pml4)
			pmm_free_pages(pml4, 1);
		return NULL;
	}
	mm->dumpable = 1;
	/* The kernel half is shared: copy the top-level entries. */
	uint64_t *dst = phys_to_virt(pml4), *src = phys_to_virt(vm_kernel_pml4());
	for (int i = 256; i < 512; i++)
		dst[i] = src[i];
	mm->pml4 = pml4;
	mm->refs = 1;
	mm->lock = (struct spinlock)SPINLOCK_INIT("mm");
	list_init(&mm->vmas);
	list_init(&mm->dead);
	return mm;
}

void mm_get(struct mm *mm)
{
	__atomic_add_fetch(&mm->refs, 1, __ATOMIC_ACQ_REL);
}

/* Free the user half's page tables (not the pages: unmap did that). */
static void free_tables(uint64_t *t, int level)
{
	for (int i = 0; i < (level == 3 ? 256 : 512); i++) {
		if (!(t[i] & PTE_PRESENT))
			continue;
		if (level > 1)
			free_tables(table(t[i]), level - 1);
		pmm_free_pages(t[i] & PTE_ADDR, 1);
	}
}

void mm_put(struct mm *mm)
{
	if (__atomic_sub_fetch(&mm->refs, 1, __ATOMIC_ACQ_REL) != 0)
		return;
	BUG_ON(read_cr3() == mm->pml4);
	unmap_locked(mm, 0, 0x0000800000000000ULL);
	put_dead(&mm->dead);
	free_tables(phys_to_virt(mm->pml4), 3);
	pmm_free_pages(mm->pml4, 1);
	kfree(mm);
}

/*
 * Load mm's tables on this CPU (the kernel's for NULL) and keep
 * active_cpus true: set before the CR3 load, cleared after leaving.
 */
void mm_activate(struct mm *mm)
{
	struct percpu *cpu = this_cpu();
	struct mm *old = cpu->active_mm;
	if (mm)
		cpumask_set_atomic(&mm->active_cpus, cpu->id);
	uint64_t pml4 = mm ? mm->pml4 : vm_kernel_pml4();
	if (read_cr3() != pml4)
		write_cr3(pml4);
	cpu->active_mm = mm;
	if (old && old != mm)
		cpumask_clear_atomic(&old->active_cpus, cpu->id);
}

static struct vma *new_vma(uint64_t start, uint64_t end, int prot,
			   unsigned flags, const char *name)
{
	struct vma *v = kzalloc(sizeof(*v));
	if (!v)
		return NULL;
	list_init(&v->node);
	v->start = start;
	v->end = end;
	v->prot = prot;
	v->flags = flags;
	strlcpy(v->name, name ? name : "", sizeof(v->name));
	if (flags & VMA_SHARED) {
		v->shm = shm_new((end - start) / PAGE_SIZE);
		if (!v->shm) {
			kfree(v);
			return NULL;
		}
	}
	return v;
}

int mm_map_shm(struct mm *mm, uint64_t start, uint64_t len, int prot,
	       unsigned flags, struct shared_anon *s, const struct vma_ops *ops,
	       void *priv, const char *name)
{
	if (len != s->npages * PAGE_SIZE)
		return -EINVAL;
	struct vma *v = new_vma(start, start + len, prot, flags & ~VMA_SHARED, name);
	if (!v)
		return -ENOMEM;
	v->flags |= VMA_SHARED;
	v->shm = s;
	__atomic_add_fetch(&s->refs, 1, __ATOMIC_ACQ_REL);
	uint64_t f = mm_lock(mm);
	int r = unmap_locked(mm, start, start + len);
	if (r == 0) {
		v->ops = ops;  /* from now on, its removal tells the driver */
		v->priv = priv;
		insert_vma(mm, v);
	}
	mm_unlock(mm, f);
	if (r)
		free_vma(mm, v);
	return r;
}

int mm_map_anon(struct mm *mm, uint64_t start, uint64_t len, int prot,
		unsigned flags, const char *name)
{
	struct vma *v = new_vma(start, start + len, prot, flags, name);
	if (!v)
		return -ENOMEM;
	uint64_t f = mm_lock(mm);
	int r = unmap_locked(mm, start, start + len);
	if (r == 0)
		insert_vma(mm, v);
	mm_unlock(mm, f);
	if (r)
		free_vma(mm, v);
	return r;
}

int mm_map_file(struct mm *mm, uint64_t start, uint64_t len, int prot,
		struct file *file, uint64_t off, uint64_t end, const char *name)
{
	struct vma *v = new_vma(start, start + len, prot, 0, name);
	if (!v)
		return -ENOMEM;
	file_get(file);
	file_path_name(file); /* built now: maps reads it under mm->lock */
	v->file = file;
	v->file_off = off;
	v->file_end = end;
	file_ident(file, &v->dev, &v->ino);
	uint64_t f = mm_lock(mm);
	int r = unmap_locked(mm, start, start + len);
	if (r == 0)
		insert_vma(mm, v);
	else
		free_vma(mm, v);
	mm_unlock(mm, f);
	return r;
}

void mm_set_file_off(struct mm *mm, uint64_t start, uint64_t off)
{
	uint64_t f = mm_lock(mm);
	struct vma *v = find_vma(mm, start);
	if (v && v->start == start)
		v->file_off = off;
	mm_unlock(mm, f);
}

void mm_set_file_ident(struct mm *mm, uint64_t start, uint32_t dev, uint64_t ino)
{
	uint64_t f = mm_lock(mm);
	struct vma *v = find_vma(mm, start);
	if (v && v->start == start) {
		v->dev = dev;
		v->ino = ino;
	}
	mm_unlock(mm, f);
}

uint64_t mm_find_free(struct mm *mm, uint64_t len)
{
	uint64_t f = mm_lock(mm);
	uint64_t top = USER_MMAP_TOP, found = 0;
	/* Walk down from the top: the gap below each vma, highest first. */
	struct list *n = mm->vmas.prev;
	for (;;) {
		uint64_t floor = USER_MIN_ADDR;
		if (n != &mm->vmas) {
			struct vma *v = vma_of(n);
			if (v->start >= top) {
				n = n->prev;
				continue;
			}
			floor = v->end > top ? top : v->end;
		}
		if (top >= floor + len && top - len >= floor) {
			found = top - len;
			break;
		}
		if (n == &mm->vmas)
			break;
		top = vma_of(n)->start;
		n = n->prev;
	}
	mm_unlock(mm, f);
	return found;
}

int mm_unmap(struct mm *mm, uint64_t start, uint64_t len)
{
	uint64_t f = mm_lock(mm);
	int r = unmap_locked(mm, start, start + len);
	mm_unlock(mm, f);
	return r;
}

bool mm_range_mapped(struct mm *mm, uint64_t start, uint64_t len)
{
	uint64_t f = mm_lock(mm);
	uint64_t at = start;
	list_for_each(n, &mm->vmas) {
		struct vma *v = vma_of(n);
		if (v->end <= at)
			continue;
		if (v->start > at)
			break;
		at = v->end;
		if (at >= start + len)
			break;
	}
	mm_unlock(mm, f);
	return at >= start + len;
}

bool mm_range_overlaps(struct mm *mm, uint64_t start, uint64_t len)
{
	bool hit = false;
	uint64_t f = mm_lock(mm);
	list_for_each(n, &mm->vmas) {
		struct vma *v = vma_of(n);
		if (v->start < start + len && v->end > start) {
			hit = true;
			break;
		}
	}
	mm_unlock(mm, f);
	return hit;
}

int mm_discard(struct mm *mm, uint64_t start, uint64_t len)
{
	uint64_t f = mm_lock(mm);
	list_for_each(n, &mm->vmas) {
		struct vma *v = vma_of(n);
		if (v->end <= start || v->start >= start + len || (v->flags & VMA_SHARED))
			continue;
		uint64_t s = v->start > start ? v->start : start;
		uint64_t e = v->end < start + len ? v->end : start + len;
		unmap_pages(mm, v, s, e);
	}
	mm_unlock(mm, f);
	return 0;
}

/* Does any vma overlapping [start, end) have flag? Caller holds mm->lock. */
static bool range_has_flag(struct mm *mm, uint64_t start, uint64_t end, unsigned flag)
{
	list_for_each(n, &mm->vmas) {
		struct vma *v = vma_of(n);
		if (v->end > start && v->start < end && (v->flags & flag))
			return true;
	}
	return false;
}

int mm_protect(struct mm *mm, uint64_t start, uint64_t len, int prot)
{
	uint64_t end = start + len;
	if (!mm_range_mapped(mm, start, len))
		return -ENOMEM;
	uint64_t f = mm_lock(mm);
	int r = splits_nosplit(mm, start, end) ? -EINVAL : 0;
	if (!r && (prot & PROT_EXEC) && range_has_flag(mm, start, end, VMA_NOEXEC))
		r = -EACCES;
	if (!r && (prot & PROT_WRITE) && range_has_flag(mm, start, end, VMA_SPECIAL))
		r = -EACCES;
	list_for_each(n, &mm->vmas) {
		struct vma *v = vma_of(n);
		if (r || v->end <= start || v->start >= end)
			continue;
		if (v->start < start) {
			if (!split_vma(v, start)) {
				r = -ENOMEM;
				break;
			}
			continue;
		}
		if (v->end > end && !split_vma(v, end)) {
			r = -ENOMEM;
			break;
		}
		v->prot = prot;
		for (uint64_t va = v->start; va < v->end; va += PAGE_SIZE) {
			uint64_t *pte = pte_of(mm, va, false);
			if (!pte || !pte_has_page(*pte))
				continue;
			*pte = (*pte & PTE_ADDR) | page_flags(v, *pte & PTE_ADDR);
			flush(mm, va);
		}
	}
	mm_unlock(mm, f);
	return r;
}

/* Map the page containing addr for vma v. Caller holds mm->lock. */
static int fault_in(struct mm *mm, struct vma *v, uint64_t addr)
{
	uint64_t va = ALIGN_DOWN(addr, PAGE_SIZE);
	uint64_t *pte = pte_of(mm, va, true);
	if (!pte)
		return -ENOMEM;
	if (pte_has_page(*pte))
		return 0;
	uint64_t page, index = v->shm_pgoff + (va - v->start) / PAGE_SIZE;
	if (v->shm && index >= v->shm->npages)
		return -ENXIO; /* grown by mremap past its object */
	if (v->file)
		return -EAGAIN; /* read without mm->lock: file_page_in */
	if (v->shm)
		page = shm_page(v->shm, index);
	else
		page = pmm_alloc_page();
	if (!page)
		return -ENOMEM;
	*pte = page | pte_flags(v->prot);
	mm->rss_pages++;
	return 0;
}

/* A write to the present page at va of private vma v, which is mapped
 * read-only because fork shares it: copy it, unless no other mapping is
 * left, then just allow the write (when the vma allows it). `force`: the
 * kernel writes into a read-only private vma for someone (mm_write):
 * the page is unshared all the same, and stays read-only. Caller holds
 * mm->lock. */
static int cow_break(struct mm *mm, struct vma *v, uint64_t va, bool force)
{
	uint64_t *pte = pte_of(mm, va, false);
	if (!pte || !(*pte & PTE_PRESENT) || (v->flags & VMA_SHARED))
		return -EACCES;
	if (*pte & PTE_WRITE)
		return 0; /* another CPU's fault got here first */
	if (!(pte_flags(v->prot) & PTE_WRITE) && !force)
		return -EACCES;
	uint64_t old = *pte & PTE_ADDR, page = old;
	if (page_shared(old)) {
		page = pmm_alloc_page_dirty(); /* all of it overwritten now */
		if (!page)
			return -ENOMEM;
		memcpy(phys_to_virt(page), phys_to_virt(old), PAGE_SIZE);
	}
	*pte = page | page_flags(v, page);
	flush(mm, va);
	if (page != old)
		page_put(old); /* after the flush: this mm no longer reaches it */
	return 0;
}

/* The bytes of file vma v's page at va: where in the file, how many;
 * -ENXIO for a page wholly past the end of an mmap(2)ed file (SIGBUS).
 * Called without mm->lock: the file's size is read now. */
static int64_t file_bytes(struct file *file, uint64_t file_off, uint64_t file_end,
			  uint64_t *off)
{
	*off = file_off;
	if (file_end == MM_FILE_SIZE) {
		file_size(file, &file_end);
		if (*off >= ALIGN_UP(file_end, PAGE_SIZE))
			return -ENXIO;
	}
	if (file_end <= *off)
		return 0;
	return file_end - *off < PAGE_SIZE ? (int64_t)(file_end - *off) : (int64_t)PAGE_SIZE;
}

/*
 * Fill the page at addr of a file vma from the file (fault_in said
 * -EAGAIN). Called without mm->lock: the read may sleep (tmpfs's
 * data_lock). The page goes in only if the same file vma is still
 * there and nothing filled the entry meanwhile; either way the caller
 * looks again. 0, -ENOMEM, or -ENXIO (past the end of the file: SIGBUS).
 */
static int file_page_in(struct mm *mm, uint64_t addr)
{
	uint64_t va = ALIGN_DOWN(addr, PAGE_SIZE), off, file_off = 0, file_end = 0;
	uint64_t f = mm_lock(mm);
	struct vma *v = find_vma(mm, va);
	struct file *file = v ? v->file : NULL;
	if (file) {
		file_get(file);
		file_off = v->file_off + (va - v->start);
		file_end = v->file_end;
	}
	mm_unlock(mm, f);
	if (!file)
		return 0;
	int64_t n = file_bytes(file, file_off, file_end, &off);
	uint64_t page = n < 0 ? 0 : pmm_alloc_page_dirty();
	int r = n < 0 ? (int)n : page ? 0 : -ENOMEM;
	if (page) {
		long got = n ? kernel_read(file, phys_to_virt(page), (size_t)n, off) : 0;
		got = got < 0 ? 0 : got; /* cut short: zeros, as past the end */
		memset((char *)phys_to_virt(page) + got, 0, PAGE_SIZE - (uint64_t)got);
		f = mm_lock(mm);
		v = find_vma(mm, va);
		uint64_t *pte = v && v->file == file ? pte_of(mm, va, true) : NULL;
		if (pte && !pte_has_page(*pte)) {
			*pte = page | pte_flags(v->prot);
			mm->rss_pages++;
			page = 0;
		} else if (v && v->file == file && !pte) {
			r = -ENOMEM;
		}
		mm_unlock(mm, f);
		if (page)
			pmm_free_pages(page, 1);
	}
	file_put(file);
	return r;
}

static bool access_allowed(const struct vma *v, uint64_t error)
{
	if (!(v->prot & (PROT_READ | PROT_WRITE | PROT_EXEC)))
		return false;
	if ((error & 2) && !(v->prot & PROT_WRITE))
		return false;
	if ((error & 16) && !(v->prot & PROT_EXEC))
		return false;
	return true;
}

int mm_handle_fault(struct mm *mm, uint64_t addr, uint64_t error)
{
	uint64_t f = mm_lock(mm);
	struct vma *v = find_vma(mm, addr);
	int r;
	if (!v)
		r = -EFAULT;
	else if (!access_allowed(v, error))
		r = -EACCES;
	else if ((error & 3) == 3)
		r = cow_break(mm, v, ALIGN_DOWN(addr, PAGE_SIZE), false) == 0 ? 0 : -EACCES;
	else if (error & 1)
		r = -EACCES;  /* present page, protection violation */
	else if ((r = fault_in(mm, v, addr)) != 0 && r != -ENXIO && r != -ENOMEM &&
		 r != -EAGAIN)
		r = -EFAULT;
	mm_unlock(mm, f);
	if (r == -EAGAIN) /* the access is retried with the page there */
		r = file_page_in(mm, addr);
	return r;
}

int mm_populate(struct mm *mm, uint64_t start, uint64_t len)
{
	uint64_t f = mm_lock(mm);
	int r = 0;
	for (uint64_t va = start; va < start + len && !r; va += PAGE_SIZE) {
		struct vma *v = find_vma(mm, va);
		r = v ? fault_in(mm, v, va) : -EFAULT;
		if (r == -EAGAIN) { /* a file page: read, then this va again */
			mm_unlock(mm, f);
			r = file_page_in(mm, va);
			f = mm_lock(mm);
			va -= PAGE_SIZE;
		}
	}
	mm_unlock(mm, f);
	return r;
}

/* The physical address of addr, faulting the page in; `write`: the vma
 * must be writable; `unshare`: a page shared copy-on-write is copied
 * first (the caller will write to it). 0 if none. */
static uint64_t translate(struct mm *mm, uint64_t addr, bool write, bool unshare)
{
	uint64_t f = mm_lock(mm);
	uint64_t phys = 0, va = ALIGN_DOWN(addr, PAGE_SIZE);
	struct vma *v = find_vma(mm, addr);
	int r = v && (!write || (v->prot & PROT_WRITE)) ? fault_in(mm, v, addr) : -EFAULT;
	while (r == -EAGAIN) { /* a file page: read it in, look again */
		mm_unlock(mm, f);
		r = file_page_in(mm, addr);
		f = mm_lock(mm);
		v = find_vma(mm, addr);
		if (!r)
			r = v && (!write || (v->prot & PROT_WRITE)) ? fault_in(mm, v, addr) : -EFAULT;
	}
	if (r == 0 && unshare && (v->flags & VMA_SPECIAL))
		r = -EACCES; /* the vDSO's pages are every process's: never written */
	if (r == 0) {
		uint64_t *pte = pte_of(mm, addr, false);
		if (!unshare || (v->flags & VMA_SHARED) || !(*pte & PTE_PRESENT) ||
		    !page_shared(*pte & PTE_ADDR) || cow_break(mm, v, va, true) == 0)
			phys = (*pte & PTE_ADDR) | (addr & (PAGE_SIZE - 1));
	}
	mm_unlock(mm, f);
	return phys;
}

uint64_t mm_translate(struct mm *mm, uint64_t addr, bool write)
{
	return translate(mm, addr, write, write);
}

uint64_t mm_translate_fill(struct mm *mm, uint64_t addr)
{
	return translate(mm, addr, false, true);
}

/* Copy between kernel memory and another address space, page by page
 * through the direct map (faulting pages in). */
static int mm_copy(struct mm *mm, uint64_t addr, void *buf, uint64_t len,
		   bool to_mm)
{
	uint8_t *b = buf;
	while (len) {
		uint64_t phys = translate(mm, addr, false, to_mm);
		if (!phys)
			return -EFAULT;
		uint64_t chunk = PAGE_SIZE - (addr & (PAGE_SIZE - 1));
		if (chunk > len)
			chunk = len;
		if (to_mm)
			memcpy(phys_to_virt(phys), b, chunk);
		else
			memcpy(b, phys_to_virt(phys), chunk);
		b += chunk;
		addr += chunk;
		len -= chunk;
	}
	return 0;
}

int mm_write(struct mm *mm, uint64_t addr, const void *src, uint64_t len)
{
	return mm_copy(mm, addr, (void *)src, len, true);
}

/* ---- fork ---- */

/* Give dst's copy of private vma v the same pages as src's, copy-on-write:
 * both sides map each page read-only (cow_break copies on a write). Caller
 * holds src->lock; dst is not running yet. */
/* dst gets v's present pages read-only, as src keeps them: one
 * look-up of dst's table per run of src entries, not per page. */
static int share_pages(struct mm *dst, struct mm *src, struct vma *v)
{
	uint64_t va = v->start, *pte;
	while ((pte = pte_next(src, &va, v->end)) != NULL) {
		uint64_t *dpte = NULL;
		for (uint64_t stop = pte_run_end(va, v->end); va < stop; va += PAGE_SIZE, pte++) {
			if (!pte_has_page(*pte)) {
				if (dpte)
					dpte++;
				continue;
			}
			if (!dpte && !(dpte = pte_of(dst, va, true)))
				return -ENOMEM;
			page_get(*pte & PTE_ADDR);
			*pte &= ~PTE_WRITE;  /* src's TLBs: flushed once by mm_clone */
			*dpte++ = *pte;
			dst->rss_pages++;
		}
	}
	return 0;
}

static int clone_vma(struct mm *dst, struct mm *src, struct vma *v)
{
	if (v->flags & VMA_DONTCOPY)
		return 0;
	struct vma *c = kmalloc(sizeof(*c));
	if (!c)
		return -ENOMEM;
	*c = *v;
	if (c->shm)
		__atomic_add_fetch(&c->shm->refs, 1, __ATOMIC_ACQ_REL);
	if (c->file)
		file_get(c->file);
	list_add_tail(&c->node, &dst->vmas);
	if (v->flags & VMA_SHARED)
		return 0; /* the child faults the shared pages in itself */
	return share_pages(dst, src, v);
}

struct mm *mm_clone(struct mm *src)
{
	struct mm *mm = mm_create();
	if (!mm)
		return NULL;
	uint64_t f = mm_lock(src);
	int r = 0;
	list_for_each(n, &src->vmas)
		if ((r = clone_vma(mm, src, vma_of(n))) != 0)
			break;
	flush_all(src); /* src's pages are read-only now (or some, on failure) */
	mm->brk_start = src->brk_start;
	mm->brk = src->brk;
	mm->dumpable = src->dumpable;
	mm->arg_start = src->arg_start;
	mm->arg_end = src->arg_end;
	mm->env_start = src->env_start;
	mm->env_end = src->env_end;
	memcpy(mm->exe, src->exe, sizeof(mm->exe));
	mm_unlock(src, f);
	if (r) {
		mm_put(mm);
		return NULL;
	}
	return mm;
}

/* ---- /proc/<pid>/maps ---- */

/* Linux's MAJOR()/MINOR() of a device number as stat shows it. */
static unsigned dev_major(uint32_t dev) { return (dev >> 8) & 0xfff; }
static unsigned dev_minor(uint32_t dev) { return (dev & 0xff) | ((dev >> 12) & 0xfff00); }

/* How maps names v (under mm->lock): a special name, the path of its
 * file (built at mm_map_file), or its own; *deleted: add " (deleted)". */
static const char *vma_name(const struct vma *v, bool *deleted)
{
	*deleted = false;
	if (v->flags & VMA_STACK)
		return "[stack]";
	if (v->flags & VMA_HEAP)
		return "[heap]";
	const char *path = v->file ? __atomic_load_n(&v->file->pathname, __ATOMIC_ACQUIRE)
				   : NULL;
	if (!path)
		return v->name;
	*deleted = file_unlinked(v->file);
	return path;
}

int mm_ident_at(struct mm *mm, uint64_t addr, struct mm_ident *id)
{
	uint64_t f = mm_lock(mm);
	struct vma *v = find_vma(mm, addr);
	if (!v) {
		mm_unlock(mm, f);
		return -ENOENT;
	}
	bool deleted;
	const char *name = vma_name(v, &deleted);
	snprintf(id->name, sizeof(id->name), "%s%s", name, deleted ? " (deleted)" : "");
	id->maj = dev_major(v->dev);
	id->min = dev_minor(v->dev);
	id->ino = v->ino;
	id->pgoff = v->file_off + (addr - v->start);
	id->shared = (v->flags & (VMA_SHARED | VMA_SPECIAL)) == VMA_SHARED;
	mm_unlock(mm, f);
	return 0;
}

int mm_format_maps(struct mm *mm, char *buf, size_t max)
{
	size_t n = 0;
	uint64_t f = mm_lock(mm);
	list_for_each(node, &mm->vmas) {
		struct vma *v = vma_of(node);
		bool deleted;
		const char *name = vma_name(v, &deleted);
		/* Linux's show_map_vma: a name starts after padding to 72
		 * columns and one blank; a line without one ends "0 ". */
		int w = snprintf(buf + n, n < max ? max - n : 0,
				 "%08llx-%08llx %c%c%c%c %08llx %02x:%02x %llu ",
				 (unsigned long long)v->start, (unsigned long long)v->end,
				 v->prot & PROT_READ ? 'r' : '-',
				 v->prot & PROT_WRITE ? 'w' : '-',
				 v->prot & PROT_EXEC ? 'x' : '-',
				 (v->flags & (VMA_SHARED | VMA_SPECIAL)) == VMA_SHARED ? 's' : 'p',
				 (unsigned long long)v->file_off, dev_major(v->dev),
				 dev_minor(v->dev), (unsigned long long)v->ino);
		int pad = w < 72 ? 72 - w : 0;
		if (w > 0)
			n += (size_t)w;
		if (*name)
			w = snprintf(buf + n, n < max ? max - n : 0, "%*s %s%s\n", pad, "",
				     name, deleted ? " (deleted)" : "");
		else
			w = snprintf(buf + n, n < max ? max - n : 0, "\n");
		if (w > 0)
			n += (size_t)w;
	}
	mm_unlock(mm, f);
	return (int)n; /* like snprintf: the length the whole text needs */
}

void mm_usage(struct mm *mm, struct mm_usage *u)
{
	memset(u, 0, sizeof(*u));
	uint64_t f = mm_lock(mm);
	list_for_each(node, &mm->vmas) {
		struct vma *v = vma_of(node);
		uint64_t len = v->end - v->start;
		u->vm_bytes += len;
		if (v->flags & VMA_STACK)
			u->stack_bytes += len;
		else if ((v->prot & PROT_WRITE) && !(v->flags & VMA_SHARED))
			u->data_bytes += len;
	}
	u->rss_bytes = mm->rss_pages * PAGE_SIZE;
	mm_unlock(mm, f);
}

int mm_read(struct mm *mm, uint64_t addr, void *dst, uint64_t len)
{
	return mm_copy(mm, addr, dst, len, false);
}
