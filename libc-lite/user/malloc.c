/*
 * malloc.c: the memory allocator.
 *
 * Small requests (up to 64 KiB) are rounded up to a power of two, a size
 * class, and served from that class's free list or else carved from the
 * arena. The arena grows with brk in steps of ARENA_STEP; when the break
 * cannot move (no brk, or no room) a step is mmap'd instead. Freed small
 * blocks go back on their class's list and are never returned to the
 * kernel. Big requests get an mmap of their own, which free() unmaps.
 *
 * Every block is preceded by a 16-byte header, so payloads are 16-byte
 * aligned (carved blocks are 16 + 2^k bytes). The header's magic catches
 * free() of a foreign pointer and double frees: both abort.
 *
 * Invariants: [arena_next, arena_end) is unused memory we own and
 * arena_next is 16-byte aligned; every block on free_list[c] has
 * magic FREE and shift c + MIN_SHIFT.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define MIN_SHIFT 4                    /* smallest class: 16 bytes */
#define MAX_SHIFT 16                   /* largest class: 64 KiB */
#define NCLASSES (MAX_SHIFT - MIN_SHIFT + 1)
#define ARENA_STEP (256 * 1024)
#define PAGE 4096
#define MAGIC_USED 0x6d616c6cu         /* "mall" */
#define MAGIC_FREE 0x66726565u         /* "free" */

struct header {
	uint32_t magic;
	uint32_t shift;   /* size class, or 0 for a block with its own mmap */
	size_t size;      /* usable bytes after the header */
};
_Static_assert(sizeof(struct header) == 16, "payloads must stay aligned");

/* A free block's payload starts with the link to the next free block. */
struct free_block {
	struct free_block *next;
};

static struct free_block *free_list[NCLASSES];
static char *arena_next, *arena_end;

static size_t round_up(size_t n, size_t to)
{
	return (n + to - 1) & ~(to - 1);
}

static void *map_anon(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
	               MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* Try to extend the arena with brk; 0 on success. */
static int grow_by_brk(size_t step)
{
	char *now = sbrk(0);
	char *start;

	if (now == (char *)-1)
		return -1;
	/* Contiguous with the arena: keep its tail. Otherwise start afresh. */
	start = now == arena_end ? now : (char *)round_up((uintptr_t)now, 16);
	if (sbrk((start - now) + step) == (void *)-1)
		return -1;
	if (now != arena_end)
		arena_next = start;
	arena_end = start + step;
	return 0;
}

/* Make room for at least need bytes at arena_next; 0 on success. */
static int grow_arena(size_t need)
{
	size_t step = need > ARENA_STEP ? round_up(need, PAGE) : ARENA_STEP;
	int saved = errno;
	char *m;

	if (grow_by_brk(step) == 0) {
		errno = saved;
		return 0;
	}
	m = map_anon(step);
	if (m == NULL)
		return -1;
	errno = saved;
	arena_next = m;
	arena_end = m + step;
	return 0;
}

static void *alloc_small(unsigned shift)
{
	struct free_block **list = &free_list[shift - MIN_SHIFT];
	size_t need = sizeof(struct header) + ((size_t)1 << shift);
	struct header *h;

	if (*list) {
		h = (struct header *)*list - 1;
		*list = (*list)->next;
	} else {
		if ((size_t)(arena_end - arena_next) < need &&
		    grow_arena(need) < 0)
			return NULL;
		h = (struct header *)arena_next;
		arena_next += need;
		h->shift = shift;
		h->size = (size_t)1 << shift;
	}
	h->magic = MAGIC_USED;
	return h + 1;
}

static void *alloc_big(size_t size)
{
	size_t len = round_up(size + sizeof(struct header), PAGE);
	struct header *h = map_anon(len);

	if (h == NULL)
		return NULL;
	h->magic = MAGIC_USED;
	h->shift = 0;
	h->size = len - sizeof(struct header);
	return h + 1;
}

void *malloc(size_t size)
{
	unsigned shift = MIN_SHIFT;

	if (size > ((size_t)1 << MAX_SHIFT)) {
		if (size > SIZE_MAX / 2) {
			errno = ENOMEM;
			return NULL;
		}
		return alloc_big(size);
	}
	while (((size_t)1 << shift) < size)
		shift++;
	return alloc_small(shift);
}

/* The header of a block malloc returned; aborts if p is not one. */
static struct header *header_of(void *p, const char *who)
{
	struct header *h = (struct header *)p - 1;

	if (h->magic != MAGIC_USED) {
		static const char msg[] = ": invalid pointer or double free\n";
		write(2, who, strlen(who));
		write(2, msg, sizeof(msg) - 1);
		abort();
	}
	return h;
}

void free(void *p)
{
	struct header *h;
	struct free_block *b = p;

	if (p == NULL)
		return;
	h = header_of(p, "free()");
	h->magic = MAGIC_FREE;
	if (h->shift == 0) {
		munmap(h, h->size + sizeof(struct header));
		return;
	}
	b->next = free_list[h->shift - MIN_SHIFT];
	free_list[h->shift - MIN_SHIFT] = b;
}

void *calloc(size_t n, size_t size)
{
	size_t total;
	void *p;

	if (__builtin_mul_overflow(n, size, &total)) {
		errno = ENOMEM;
		return NULL;
	}
	p = malloc(total);
	if (p)
		memset(p, 0, total);
	return p;
}

/* Blocks never shrink in place; growing moves to a bigger block. */
void *realloc(void *p, size_t size)
{
	struct header *h;
	void *q;

	if (p == NULL)
		return malloc(size);
	if (size == 0) {
		free(p);
		return NULL;
	}
	h = header_of(p, "realloc()");
	if (size <= h->size)
		return p;
	q = malloc(size);
	if (q) {
		memcpy(q, p, h->size);
		free(p);
	}
	return q;
}
