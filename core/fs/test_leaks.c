/* Self-test: a round of file system work gives back all its memory. */
#include "fstest.h"
#include "core/mm/mm.h"

static bool ignore(void *arg, const char *name, size_t len, uint64_t ino,
		   unsigned type, uint64_t next)
{
	return true;
}

static void list(const char *path)
{
	struct file *f;
	if (vfs_open(path, O_RDONLY | O_DIRECTORY, 0, &f) == 0) {
		vfs_readdir(f, ignore, NULL);
		file_put(f);
	}
}

static void one_round(void)
{
	char buf[256];
	struct file *r, *w;
	fs_test_write("/tmp/leak", "some bytes", O_CREAT | O_TRUNC);
	fs_test_read("/tmp/leak", buf, sizeof(buf));
	vfs_mkdir("/tmp/leakdir", 0755);
	fs_test_write("/tmp/leakdir/f", "x", O_CREAT);
	list("/tmp/leakdir");
	vfs_rename("/tmp/leakdir/f", "/tmp/leakdir/g");
	vfs_unlink("/tmp/leakdir/g");
	vfs_rmdir("/tmp/leakdir");
	vfs_unlink("/tmp/leak");
	fs_test_read("/proc/cpuinfo", buf, sizeof(buf));
	fs_test_read("/proc/sys/kernel/perf_event_paranoid", buf, sizeof(buf));
	fs_test_read("/sys/devices/system/cpu/online", buf, sizeof(buf));
	fs_test_read("/dev/urandom", buf, sizeof(buf));
	list("/proc");
	list("/");
	list("/dev");
	if (pipe_create(&r, &w, O_NONBLOCK) == 0) {
		kernel_write(w, "abc", 3);
		file_put(r);
		file_put(w);
	}
	struct fs_context *fs = fs_new_root();
	if (fs) {
		vfs_chdir(fs, "/proc/sys/kernel");
		vfs_getcwd(fs, buf, sizeof(buf));
		fs_put(fs);
	}
	struct files *files = files_new();
	if (files) {
		files_open_console(files);
		struct files *copy = files_clone(files);
		files_put(copy);
		files_put(files);
	}
}

/* Other CPUs and tasks may allocate meanwhile: one clean try of five
 * is enough to show this code gives everything back. */
SELFTEST(vfs_no_leaks)
{
	fs_test_init();
	one_round();     /* first-use allocations happen here */
	long heap_delta = 0, page_delta = 0;
	for (int try = 0; try < 5; try++) {
		size_t heap = heap_in_use(), pages = pmm_free_count();
		for (int i = 0; i < 3; i++)
			one_round();
		heap_delta = (long)(heap_in_use() - heap);
		page_delta = (long)(pages - pmm_free_count());
		if (!heap_delta && !page_delta)
			return;
	}
	ST_FAIL(t, "heap grew by %ld bytes, %ld pages in use", heap_delta, page_delta);
}
