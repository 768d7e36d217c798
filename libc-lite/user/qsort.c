/*
 * qsort.c: heapsort. In place, O(n log n) compares in the worst case,
 * no recursion, not stable. Elements are swapped byte by byte.
 */
#include <stdlib.h>

static void swap(char *a, char *b, size_t size)
{
	while (size--) {
		char t = *a;
		*a++ = *b;
		*b++ = t;
	}
}

/*
 * Sift element i down the max-heap held in base[0..n): afterwards the
 * subtree rooted at i is a heap again, if both child subtrees were.
 */
static void sift_down(char *base, size_t i, size_t n, size_t size,
                      int (*cmp)(const void *, const void *))
{
	for (;;) {
		size_t big = i, l = 2 * i + 1, r = l + 1;
		if (l < n && cmp(base + l * size, base + big * size) > 0)
			big = l;
		if (r < n && cmp(base + r * size, base + big * size) > 0)
			big = r;
		if (big == i)
			return;
		swap(base + i * size, base + big * size, size);
		i = big;
	}
}

void qsort(void *base, size_t n, size_t size,
           int (*cmp)(const void *, const void *))
{
	char *b = base;

	for (size_t i = n / 2; i-- > 0;)
		sift_down(b, i, n, size, cmp);
	/* Invariant: b[0..end) is a heap, b[end..n) sorted and >= the heap. */
	for (size_t end = n; end > 1; end--) {
		swap(b, b + (end - 1) * size, size);
		sift_down(b, 0, end - 1, size, cmp);
	}
}
