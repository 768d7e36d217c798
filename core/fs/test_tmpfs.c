/* Self-tests: tmpfs files and directories. */
#include "fstest.h"
#include "core/mm/mm.h"

static uint64_t size_of(const char *path)
{
	struct stat st;
	return vfs_stat(path, &st, true) ? (uint64_t)-1 : (uint64_t)st.st_size;
}

SELFTEST(tmpfs_read_write)
{
	fs_test_init();
	char buf[32];
	vfs_unlink("/tmp/rw");
	ST_CHECK(t, fs_test_write("/tmp/rw", "hello", O_CREAT | O_TRUNC) == 5);
	ST_CHECK(t, fs_test_read("/tmp/rw", buf, sizeof(buf)) == 5 && strcmp(buf, "hello") == 0);
	ST_CHECK(t, fs_test_write("/tmp/rw", "!", O_APPEND) == 1);
	ST_CHECK(t, fs_test_read("/tmp/rw", buf, sizeof(buf)) == 6 && strcmp(buf, "hello!") == 0);
	ST_CHECK(t, fs_test_write("/tmp/rw", "J", 0) == 1);      /* overwrite at 0 */
	ST_CHECK(t, fs_test_read("/tmp/rw", buf, sizeof(buf)) == 6 && strcmp(buf, "Jello!") == 0);
	ST_CHECK(t, vfs_truncate("/tmp/rw", 2) == 0 && size_of("/tmp/rw") == 2);
	ST_CHECK(t, vfs_truncate("/tmp/rw", 5) == 0 && size_of("/tmp/rw") == 5);
	ST_CHECK(t, fs_test_read("/tmp/rw", buf, sizeof(buf)) == 5 &&
		    memcmp(buf, "Je\0\0\0", 5) == 0);         /* regrown bytes are zero */
	ST_CHECK(t, vfs_truncate("/tmp/rw", -1) == -EINVAL);
	ST_CHECK(t, fs_test_write("/tmp/rw", "", O_TRUNC) == 0 && size_of("/tmp/rw") == 0);
	ST_CHECK(t, fs_test_write("/tmp/rw", "x", O_CREAT | O_EXCL) == -EEXIST);
	ST_CHECK(t, vfs_unlink("/tmp/rw") == 0);
	ST_CHECK(t, size_of("/tmp/rw") == (uint64_t)-1);
}

/* Bytes across page boundaries, and a hole in the middle reading zeros. */
SELFTEST(tmpfs_pages_and_holes)
{
	fs_test_init();
	size_t before = tmpfs_pages_in_use();
	struct file *f;
	if (vfs_open("/tmp/big", O_CREAT | O_RDWR | O_TRUNC, 0600, &f)) {
		ST_FAIL(t, "cannot create /tmp/big");
		return;
	}
	uint8_t *buf = kmalloc(3 * 4096);
	for (int i = 0; i < 3 * 4096; i++)
		buf[i] = (uint8_t)(i * 7 + 1);
	f->pos = 1000;
	ST_CHECK(t, kernel_write(f, buf, 3 * 4096) == 3 * 4096);
	f->pos = 40000;
	ST_CHECK(t, kernel_write(f, "end", 3) == 3);
	uint64_t size;
	ST_CHECK(t, file_size(f, &size) == 0 && size == 40003);
	uint8_t *back = kzalloc(3 * 4096);
	ST_CHECK(t, kernel_read(f, back, 3 * 4096, 1000) == 3 * 4096);
	ST_CHECK(t, memcmp(back, buf, 3 * 4096) == 0);
	ST_CHECK(t, kernel_read(f, back, 100, 20000) == 100);
	bool zero = true;
	for (int i = 0; i < 100; i++)
		zero &= back[i] == 0;
	ST_CHECK(t, zero);
	ST_CHECK(t, kernel_read(f, back, 100, 40001) == 2 && back[0] == 'n');
	ST_CHECK(t, kernel_read(f, back, 100, 50000) == 0);
	ST_CHECK(t, tmpfs_pages_in_use() == before + 5);   /* 4 data + 1 tail */
	ST_CHECK(t, vfs_unlink("/tmp/big") == 0);
	/* still open: data stays until the last reference goes */
	ST_CHECK(t, kernel_read(f, back, 3, 40000) == 3 && memcmp(back, "end", 3) == 0);
	file_put(f);
	ST_CHECK(t, tmpfs_pages_in_use() == before);
	kfree(buf);
	kfree(back);
}

struct listing {
	char names[8][16];
	int n;
};

static bool collect(void *arg, const char *name, size_t len, uint64_t ino,
		    unsigned type, uint64_t next)
{
	struct listing *l = arg;
	if (l->n < 8 && len < 16) {
		memcpy(l->names[l->n], name, len);
		l->names[l->n][len] = 0;
	}
	l->n++;
	return true;
}

static int list_dir(const char *path, struct listing *l)
{
	struct file *f;
	l->n = 0;
	int r = vfs_open(path, O_RDONLY | O_DIRECTORY, 0, &f);
	if (r)
		return r;
	r = vfs_readdir(f, collect, l);
	file_put(f);
	return r;
}

static bool listed(struct listing *l, const char *name)
{
	for (int i = 0; i < l->n && i < 8; i++)
		if (strcmp(l->names[i], name) == 0)
			return true;
	return false;
}

SELFTEST(tmpfs_directories)
{
	fs_test_init();
	struct listing l;
	struct stat st;
	const char *const names[] = { "/tmp/td/a", "/tmp/td/b", "/tmp/td/c" };
	for (int i = 0; i < 3; i++)
		vfs_unlink(names[i]);
	vfs_rmdir("/tmp/td/sub");
	vfs_rmdir("/tmp/td");
	ST_CHECK(t, vfs_mkdir("/tmp/td", 0755) == 0);
	ST_CHECK(t, vfs_mkdir("/tmp/td/", 0755) == -EEXIST);
	for (int i = 0; i < 3; i++)
		ST_CHECK(t, fs_test_write(names[i], "x", O_CREAT) == 1);
	ST_CHECK(t, list_dir("/tmp/td", &l) == 0 && l.n == 5);
	ST_CHECK(t, listed(&l, ".") && listed(&l, "..") && listed(&l, "a") &&
		    listed(&l, "b") && listed(&l, "c"));
	ST_CHECK(t, vfs_unlink("/tmp/td/b") == 0);
	ST_CHECK(t, vfs_unlink("/tmp/td/b") == -ENOENT);
	ST_CHECK(t, list_dir("/tmp/td", &l) == 0 && l.n == 4 && !listed(&l, "b"));
	ST_CHECK(t, vfs_rmdir("/tmp/td") == -ENOTEMPTY);
	ST_CHECK(t, vfs_rmdir("/tmp/td/a") == -ENOTDIR);
	ST_CHECK(t, vfs_unlink("/tmp/td") == -EISDIR);
	ST_CHECK(t, vfs_unlink("/tmp/td/a/") == -ENOTDIR);
	ST_CHECK(t, vfs_mkdir("/tmp/td/sub", 0700) == 0);
	ST_CHECK(t, vfs_stat("/tmp/td", &st, true) == 0 && st.st_nlink == 3);
	ST_CHECK(t, vfs_stat("/tmp/td/sub", &st, true) == 0 &&
		    (st.st_mode & 07777) == 0700 && S_ISDIR(st.st_mode));
	ST_CHECK(t, vfs_rmdir("/tmp/td/sub") == 0);
	ST_CHECK(t, vfs_unlink("/tmp/td/a") == 0 && vfs_unlink("/tmp/td/c") == 0);
	ST_CHECK(t, vfs_rmdir("/tmp/td") == 0);
	ST_CHECK(t, vfs_stat("/tmp/td", &st, true) == -ENOENT);
}

SELFTEST(tmpfs_rename)
{
	fs_test_init();
	char buf[16];
	vfs_unlink("/tmp/rn1");
	vfs_unlink("/tmp/rn2");
	vfs_unlink("/tmp/rnd/inner/f");
	vfs_rmdir("/tmp/rnd/inner");
	vfs_rmdir("/tmp/rnd");
	vfs_rmdir("/tmp/rnd2");
	ST_CHECK(t, fs_test_write("/tmp/rn1", "one", O_CREAT) == 3);
	ST_CHECK(t, fs_test_write("/tmp/rn2", "two", O_CREAT) == 3);
	ST_CHECK(t, vfs_rename("/tmp/rn1", "/tmp/rn2") == 0);
	ST_CHECK(t, fs_test_read("/tmp/rn2", buf, sizeof(buf)) == 3 && strcmp(buf, "one") == 0);
	ST_CHECK(t, fs_test_read("/tmp/rn1", buf, sizeof(buf)) == -ENOENT);
	ST_CHECK(t, vfs_mkdir("/tmp/rnd", 0755) == 0 && vfs_mkdir("/tmp/rnd/inner", 0755) == 0);
	ST_CHECK(t, vfs_rename("/tmp/rnd", "/tmp/rnd/inner/x") == -EINVAL);
	ST_CHECK(t, vfs_rename("/tmp/rn2", "/tmp/rnd") == -EISDIR);
	ST_CHECK(t, vfs_rename("/tmp/rnd/inner", "/tmp/rn2") == -ENOTDIR);
	ST_CHECK(t, vfs_rename("/tmp/rn2", "/tmp/rnd/inner/f") == 0);
	ST_CHECK(t, vfs_mkdir("/tmp/rnd2", 0755) == 0);
	ST_CHECK(t, vfs_rename("/tmp/rnd2", "/tmp/rnd") == -ENOTEMPTY);
	ST_CHECK(t, vfs_rename("/tmp/rnd/inner", "/tmp/rnd2") == 0);  /* over empty dir */
	ST_CHECK(t, fs_test_read("/tmp/rnd2/f", buf, sizeof(buf)) == 3);
	ST_CHECK(t, vfs_unlink("/tmp/rnd2/f") == 0 && vfs_rmdir("/tmp/rnd2") == 0 &&
		    vfs_rmdir("/tmp/rnd") == 0);
}
