/*
 * test_cpio.c: libc-lite's cpio reader on archives written by the host's
 * cpio (newc and crc), compared with the files they were made from; on
 * every truncation of such an archive; on hand-built and corrupted
 * archives; and under random corruption. Archives always sit in heap
 * blocks of exactly their length, so AddressSanitizer reports any read
 * outside them.
 */
#include "unit.h"
#include <stdbool.h>
#include <stdlib.h>
#include <ctype.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "ll.h"

#define MAX_ENTRIES 64


/* A copy of the first len bytes in a block of exactly len bytes. */
static unsigned char *exact_copy(const void *p, size_t len)
{
	unsigned char *q = malloc(len ? len : 1);

	memcpy(q, p, len);
	return q;
}

/* Walk a whole archive; returns the last cpio_next result. */
static int walk(const void *a, size_t len, struct cpio_entry *ents,
                size_t *count, size_t *final_offset)
{
	size_t off = 0;
	int r;

	*count = 0;
	while ((r = ll_cpio_next(a, len, &off, &ents[*count])) == 1) {
		assert_true(*count < MAX_ENTRIES);
		(*count)++;
	}
	*final_offset = off;
	return r;
}

/* Compare one entry with the file it came from, under FIXTURES/tree. */
static void check_against_file(const struct cpio_entry *e)
{
	char path[512], target[256];
	struct stat st;

	assert_int_equal(strlen(e->name), e->namelen);
	snprintf(path, sizeof(path), "%s/tree/%s", FIXTURES, e->name);
	assert_int_equal(lstat(path, &st), 0);
	assert_int_equal(e->mode, st.st_mode);
	assert_int_equal(e->nlink, st.st_nlink);
	assert_int_equal(e->mtime, (uint32_t)st.st_mtime);
	assert_int_equal(e->ino, (uint32_t)st.st_ino);
	if (S_ISREG(st.st_mode)) {
		struct blob b = load(path);
		assert_int_equal(e->size, b.len);
		assert_memory_equal(e->data, b.p, b.len);
		free(b.p);
	} else if (S_ISLNK(st.st_mode)) {
		ssize_t n = readlink(path, target, sizeof(target));
		assert_int_equal(e->size, (size_t)n);
		assert_memory_equal(e->data, target, (size_t)n);
	} else {
		assert_int_equal(e->size, 0);
	}
}

/* The archive lists exactly the files of list.txt, in order. */
static void check_fixture(const char *file)
{
	char path[512], line[512];
	struct cpio_entry ents[MAX_ENTRIES];
	size_t n, end, i = 0;
	struct blob a;
	FILE *list;

	snprintf(path, sizeof(path), "%s/%s", FIXTURES, file);
	a = load(path);
	unsigned char *p = exact_copy(a.p, a.len);
	assert_int_equal(walk(p, a.len, ents, &n, &end), 0);

	snprintf(path, sizeof(path), "%s/list.txt", FIXTURES);
	list = fopen(path, "r");
	assert_non_null(list);
	while (fgets(line, sizeof(line), list)) {
		line[strcspn(line, "\n")] = '\0';
		assert_true(i < n);
		/* GNU cpio stores "./x" as "x" and "." as "." */
		assert_string_equal(ents[i].name,
		                    strcmp(line, ".") ? line + 2 : line);
		check_against_file(&ents[i]);
		i++;
	}
	fclose(list);
	assert_int_equal(i, n);
	/* The trailer stops the walk and keeps stopping it. */
	assert_int_equal(ll_cpio_next(p, a.len, &end, &ents[0]), 0);
	free(p);
	free(a.p);
}

static void test_host_newc(void **state)
{
	(void)state;
	check_fixture("sample.cpio");
}

static void test_host_crc(void **state)
{
	(void)state;
	check_fixture("sample-crc.cpio");
}

static void test_find(void **state)
{
	(void)state;
	char path[512];
	struct cpio_entry e;

	snprintf(path, sizeof(path), "%s/sample.cpio", FIXTURES);
	struct blob a = load(path);
	const char *hits[] = { "hello.txt", "/hello.txt", "./hello.txt",
	                       "//hello.txt", "././hello.txt", "/./hello.txt" };

	for (size_t i = 0; i < sizeof(hits) / sizeof(hits[0]); i++) {
		memset(&e, 0, sizeof(e));
		assert_int_equal(ll_cpio_find(a.p, a.len, hits[i], &e), 1);
		assert_string_equal(e.name, "hello.txt");
		assert_int_equal(e.size, 13);
		assert_memory_equal(e.data, "hello, world\n", 13);
	}
	assert_int_equal(ll_cpio_find(a.p, a.len, "/etc/sub/abcd", &e), 1);
	assert_memory_equal(e.data, "abcd", 4);
	assert_int_equal(ll_cpio_find(a.p, a.len, "etc/sub", &e), 1);
	assert_true(S_ISDIR(e.mode));
	assert_int_equal(ll_cpio_find(a.p, a.len, "/", &e), 1);
	assert_string_equal(e.name, ".");
	assert_int_equal(ll_cpio_find(a.p, a.len, ".", &e), 1);
	assert_string_equal(e.name, ".");
	assert_int_equal(ll_cpio_find(a.p, a.len, "link", &e), 1);
	assert_true(S_ISLNK(e.mode));

	const char *misses[] = { "hello", "hello.txt/", "etc/sub/ab",
	                         "TRAILER!!!", "/nothing", "etc/sub/abcde" };
	for (size_t i = 0; i < sizeof(misses) / sizeof(misses[0]); i++)
		assert_int_equal(ll_cpio_find(a.p, a.len, misses[i], &e), 0);
	free(a.p);
}

/* --- hand-built archives ------------------------------------------------- */

struct builder {
	char buf[4096];
	size_t len;
};

static void put_pad(struct builder *b)
{
	while (b->len % 4)
		b->buf[b->len++] = '\0';
}

/* Append an entry; namesize is normally strlen(name) + 1. */
static void put_raw(struct builder *b, const char *magic, const char *name,
                    size_t namesize, const void *data, size_t size,
                    uint32_t mode)
{
	b->len += sprintf(b->buf + b->len,
	                  "%s%08X%08X%08X%08X%08X%08X%08zX%08X%08X%08X%08X%08zX%08X",
	                  magic, 77u, mode, 0u, 0u, 1u, 1700000000u, size,
	                  0u, 0u, 0u, 0u, namesize, 0u);
	memcpy(b->buf + b->len, name, namesize);
	b->len += namesize;
	put_pad(b);
	memcpy(b->buf + b->len, data, size);
	b->len += size;
	put_pad(b);
}

static void put(struct builder *b, const char *name, const char *data)
{
	put_raw(b, "070701", name, strlen(name) + 1, data, strlen(data),
	        S_IFREG | 0644);
}

static void put_trailer(struct builder *b)
{
	put_raw(b, "070701", "TRAILER!!!", 11, "", 0, 0);
}

/* cpio_next on b's first entry (in an exact-size copy). */
static int first(const struct builder *b, struct cpio_entry *e)
{
	unsigned char *p = exact_copy(b->buf, b->len);
	size_t off = 0;
	int r = ll_cpio_next(p, b->len, &off, e);

	if (r != 1)
		assert_int_equal(off, 0);   /* not advanced on error or end */
	free(p);
	return r;
}

static void test_built(void **state)
{
	(void)state;
	struct builder b = { .len = 0 };
	struct cpio_entry e[8];
	size_t n, end;

	/* Names and sizes of every length mod 4 exercise both paddings. */
	put(&b, "a", "1");
	put(&b, "ab", "12");
	put(&b, "abc", "123");
	put(&b, "abcd", "1234");
	put(&b, "/abs/path", "");
	put_raw(&b, "070702", "crc", 4, "xyz", 3, S_IFREG | 0600);
	unsigned char *p = exact_copy(b.buf, b.len);
	/* No trailer: the walk ends exactly at the end of the data. */
	assert_int_equal(walk(p, b.len, e, &n, &end), 0);
	assert_int_equal(n, 6);
	assert_int_equal(end, b.len);
	assert_string_equal(e[2].name, "abc");
	assert_int_equal(e[2].namelen, 3);
	assert_memory_equal(e[2].data, "123", 3);
	assert_int_equal(e[3].size, 4);
	assert_int_equal(e[4].size, 0);
	assert_int_equal(e[5].mode, S_IFREG | 0600);
	assert_int_equal(e[5].ino, 77);
	assert_int_equal(e[5].nlink, 1);
	assert_int_equal(e[5].mtime, 1700000000u);
	assert_int_equal(ll_cpio_find(p, b.len, "abs/path", &e[0]), 1);
	free(p);

	/* Final padding missing: tolerated. */
	b.len = 0;
	put(&b, "x", "12345");
	b.len -= 3;
	p = exact_copy(b.buf, b.len);
	assert_int_equal(walk(p, b.len, e, &n, &end), 0);
	assert_int_equal(n, 1);
	assert_int_equal(end, b.len);
	free(p);
}

static void test_lowercase_hex(void **state)
{
	(void)state;
	struct builder b = { .len = 0 };
	struct cpio_entry e;

	put_raw(&b, "070701", "f", 2, "0123456789", 10, 0x81a4);
	for (size_t i = 6; i < 110; i++)
		b.buf[i] = (char)tolower((unsigned char)b.buf[i]);
	assert_int_equal(first(&b, &e), 1);
	assert_int_equal(e.mode, 0x81a4);
	assert_int_equal(e.size, 10);
}

static void test_bad_magic(void **state)
{
	(void)state;
	struct builder b = { .len = 0 };
	struct cpio_entry e;

	put(&b, "name", "data");
	for (int i = 0; i < 6; i++) {
		char saved = b.buf[i];
		const char *subst = "8 x\0";
		for (int k = 0; k < 4; k++) {
			b.buf[i] = subst[k];
			assert_int_equal(first(&b, &e), CPIO_E_BADMAGIC);
		}
		b.buf[i] = saved;
	}
	memcpy(b.buf, "070707", 6);   /* old portable format */
	assert_int_equal(first(&b, &e), CPIO_E_BADMAGIC);
	memcpy(b.buf, "070700", 6);
	assert_int_equal(first(&b, &e), CPIO_E_BADMAGIC);
}

static void test_bad_hex_every_field(void **state)
{
	(void)state;
	struct builder b = { .len = 0 };
	struct cpio_entry e;

	put(&b, "name", "data");
	for (size_t pos = 6; pos < 110; pos++) {
		char saved = b.buf[pos];
		const char *subst = "gG x-+";
		for (const char *c = subst; *c; c++) {
			b.buf[pos] = *c;
			assert_int_equal(first(&b, &e), CPIO_E_BADHEX);
		}
		b.buf[pos] = saved;
	}
	assert_int_equal(first(&b, &e), 1);
}

static void test_bad_names(void **state)
{
	(void)state;
	struct builder b;
	struct cpio_entry e;

	b.len = 0;   /* namesize 0 */
	put_raw(&b, "070701", "", 0, "d", 1, 0);
	assert_int_equal(first(&b, &e), CPIO_E_NAME_NUL);

	b.len = 0;   /* last name byte is not NUL */
	put_raw(&b, "070701", "abcd", 4, "d", 1, 0);
	assert_int_equal(first(&b, &e), CPIO_E_NAME_NUL);

	b.len = 0;   /* NUL inside the name */
	put_raw(&b, "070701", "ab\0cd", 6, "d", 1, 0);
	assert_int_equal(first(&b, &e), CPIO_E_NAME_NUL);

	b.len = 0;   /* namesize past the end */
	put_raw(&b, "070701", "abc", 4, "", 0, 0);
	memcpy(b.buf + 94, "00001000", 8);
	assert_int_equal(first(&b, &e), CPIO_E_TRUNC_NAME);
	memcpy(b.buf + 94, "FFFFFFFF", 8);
	assert_int_equal(first(&b, &e), CPIO_E_TRUNC_NAME);
}

static void test_bad_sizes(void **state)
{
	(void)state;
	struct builder b = { .len = 0 };
	struct cpio_entry e;

	put(&b, "f", "abcde");               /* 112 + 5 + 3 padding */
	assert_int_equal(b.len, 120);
	memcpy(b.buf + 54, "00000009", 8);   /* data runs 1 byte too far */
	assert_int_equal(first(&b, &e), CPIO_E_TRUNC_DATA);
	memcpy(b.buf + 54, "FFFFFFFF", 8);
	assert_int_equal(first(&b, &e), CPIO_E_TRUNC_DATA);
	memcpy(b.buf + 54, "00000008", 8);   /* data + padding: fits */
	assert_int_equal(first(&b, &e), 1);
	assert_int_equal(e.size, 8);
}

static void test_offsets(void **state)
{
	(void)state;
	struct builder b = { .len = 0 };
	struct cpio_entry e;
	size_t off;

	put(&b, "f", "data");
	put_trailer(&b);
	unsigned char *p = exact_copy(b.buf, b.len);

	off = b.len;
	assert_int_equal(ll_cpio_next(p, b.len, &off, &e), 0);
	off = b.len + 1;
	assert_int_equal(ll_cpio_next(p, b.len, &off, &e), CPIO_E_TRUNC_HEADER);
	off = (size_t)-1;
	assert_int_equal(ll_cpio_next(p, b.len, &off, &e), CPIO_E_TRUNC_HEADER);
	assert_int_equal(off, (size_t)-1);
	off = 0;
	assert_int_equal(ll_cpio_next(p, 0, &off, &e), 0);
	assert_int_equal(ll_cpio_next(NULL, 0, &off, &e), 0);
	assert_int_equal(ll_cpio_find(NULL, 0, "x", &e), 0);
	free(p);
}

/* --- truncation and corruption ------------------------------------------ */

/* Where each entry of the full archive starts, and its name and data end. */
struct layout {
	size_t n;                         /* entries before the trailer */
	size_t start[MAX_ENTRIES + 1];    /* [n] is the trailer */
	size_t name_end[MAX_ENTRIES + 1];
	size_t data_end[MAX_ENTRIES + 1];
	size_t need[MAX_ENTRIES + 1];     /* data_end, or name_end if no data */
	struct cpio_entry ent[MAX_ENTRIES];
};

static void measure(const unsigned char *a, size_t len, struct layout *lo)
{
	size_t off = 0, i = 0;

	while (ll_cpio_next(a, len, &off, &lo->ent[i]) == 1) {
		const struct cpio_entry *e = &lo->ent[i];
		lo->name_end[i] = (size_t)(e->name - (const char *)a) + e->namelen + 1;
		lo->data_end[i] = (size_t)((const unsigned char *)e->data - a) + e->size;
		lo->need[i] = e->size ? lo->data_end[i] : lo->name_end[i];
		lo->start[i + 1] = off;
		i++;
	}
	lo->start[0] = 0;
	lo->n = i;
	lo->name_end[i] = lo->start[i] + 110 + 11;   /* "TRAILER!!!" */
	lo->data_end[i] = lo->need[i] = lo->name_end[i];
}

/*
 * Cut at L, an entry is returned iff its name and all of its data lie
 * before L (padding may be cut); the walk then stops with the error for
 * the part that was cut, or with 0 if the cut falls exactly at an entry's
 * end or in its padding.
 */
static void check_prefix(const unsigned char *full, const struct layout *lo,
                         size_t L)
{
	unsigned char *p = exact_copy(full, L);
	struct cpio_entry e[MAX_ENTRIES];
	size_t n, end, k = 0;
	int r = walk(p, L, e, &n, &end);

	while (k < lo->n && lo->need[k] <= L)
		k++;
	assert_int_equal(n, k);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(e[i].namelen, lo->ent[i].namelen);
		assert_memory_equal(e[i].name, lo->ent[i].name, e[i].namelen + 1);
		assert_int_equal(e[i].size, lo->ent[i].size);
		assert_memory_equal(e[i].data, lo->ent[i].data, e[i].size);
	}
	if (L <= lo->start[k] || (k == lo->n && L >= lo->name_end[k]))
		assert_int_equal(r, 0);
	else if (L - lo->start[k] < 110)
		assert_int_equal(r, CPIO_E_TRUNC_HEADER);
	else if (L < lo->name_end[k])
		assert_int_equal(r, CPIO_E_TRUNC_NAME);
	else
		assert_int_equal(r, CPIO_E_TRUNC_DATA);
	free(p);
}

static void truncate_every_byte(const char *file)
{
	char path[512];
	struct layout lo;

	snprintf(path, sizeof(path), "%s/%s", FIXTURES, file);
	struct blob a = load(path);
	measure(a.p, a.len, &lo);
	assert_true(lo.n >= 10);
	for (size_t L = 0; L <= a.len; L++)
		check_prefix(a.p, &lo, L);
	free(a.p);
}

static void test_truncate_every_byte(void **state)
{
	(void)state;
	truncate_every_byte("sample.cpio");
	truncate_every_byte("sample-crc.cpio");
}

static uint32_t rng_state = 2463534242u;
static uint32_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 17;
	rng_state ^= rng_state << 5;
	return rng_state;
}

/* Random corruption: never a crash, never an entry outside the archive. */
static void test_random_corruption(void **state)
{
	(void)state;
	char path[512];
	struct cpio_entry e;

	snprintf(path, sizeof(path), "%s/sample.cpio", FIXTURES);
	struct blob a = load(path);
	size_t len = a.len > 700 ? 700 : a.len;   /* the small entries */
	unsigned char *p = malloc(len);
	const char *hexish = "0123456789abcdefABCDEFgx\0 ";

	for (int round = 0; round < 20000; round++) {
		memcpy(p, a.p, len);
		for (int k = 1 + rng() % 4; k > 0; k--)
			p[rng() % len] = rng() % 2 ? (unsigned char)rng()
			                           : (unsigned char)hexish[rng() % 26];
		size_t off = 0, prev = 0;
		int r, steps = 0;
		while ((r = ll_cpio_next(p, len, &off, &e)) == 1) {
			assert_true(off > prev && off <= len);
			assert_true(e.name >= (char *)p && e.name + e.namelen < (char *)p + len);
			assert_true((unsigned char *)e.data >= p &&
			            e.size <= (size_t)(p + len - (unsigned char *)e.data));
			prev = off;
			assert_true(++steps < 1000);
		}
		assert_true(r <= 0 && r >= CPIO_E_NAME_NUL);
	}
	free(p);
	free(a.p);
}

static void test_find_in_broken_archive(void **state)
{
	(void)state;
	struct builder b = { .len = 0 };
	struct cpio_entry e;

	put(&b, "first", "1");
	size_t second = b.len;
	put(&b, "second", "2");
	put(&b, "third", "3");
	put_trailer(&b);
	b.buf[second] = 'X';
	unsigned char *p = exact_copy(b.buf, b.len);
	assert_int_equal(ll_cpio_find(p, b.len, "first", &e), 1);
	assert_int_equal(ll_cpio_find(p, b.len, "third", &e), CPIO_E_BADMAGIC);
	free(p);
}

static void test_strerror(void **state)
{
	(void)state;
	const int codes[] = { CPIO_E_BADMAGIC, CPIO_E_TRUNC_HEADER,
	                      CPIO_E_TRUNC_NAME, CPIO_E_TRUNC_DATA,
	                      CPIO_E_BADHEX, CPIO_E_NAME_NUL };
	const size_t n = sizeof(codes) / sizeof(codes[0]);

	for (size_t i = 0; i < n; i++) {
		const char *s = ll_cpio_strerror(codes[i]);
		assert_non_null(s);
		assert_string_not_equal(s, "unknown error");
		for (size_t j = 0; j < i; j++)
			assert_string_not_equal(s, ll_cpio_strerror(codes[j]));
	}
	assert_string_equal(ll_cpio_strerror(CPIO_E_BADMAGIC), "bad magic");
	assert_string_equal(ll_cpio_strerror(CPIO_E_NAME_NUL),
	                    "name not NUL-terminated");
	assert_string_equal(ll_cpio_strerror(-100), "unknown error");
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_host_newc),
	cmocka_unit_test(test_host_crc),
	cmocka_unit_test(test_find),
	cmocka_unit_test(test_built),
	cmocka_unit_test(test_lowercase_hex),
	cmocka_unit_test(test_bad_magic),
	cmocka_unit_test(test_bad_hex_every_field),
	cmocka_unit_test(test_bad_names),
	cmocka_unit_test(test_bad_sizes),
	cmocka_unit_test(test_offsets),
	cmocka_unit_test(test_truncate_every_byte),
	cmocka_unit_test(test_random_corruption),
	cmocka_unit_test(test_find_in_broken_archive),
	cmocka_unit_test(test_strerror),
};

UNIT_MAIN(tests)
