/* Self-tests: path resolution, mounts, the read-only root, cwd. */
#include "fstest.h"
#include "core/mm/mm.h"

static uint64_t ino_of(const char *path)
{
	struct stat st;
	return vfs_stat(path, &st, true) ? 0 : st.st_ino;
}

static int stat_err(const char *path)
{
	struct stat st;
	return vfs_stat(path, &st, true);
}

SELFTEST(vfs_path_walk)
{
	fs_test_init();
	struct stat st;
	ST_CHECK(t, vfs_stat("/", &st, true) == 0 && S_ISDIR(st.st_mode));
	ST_CHECK(t, vfs_stat("/etc/motd", &st, true) == 0 && S_ISREG(st.st_mode));
	ST_CHECK(t, ino_of("//etc///motd") == ino_of("/etc/motd"));
	ST_CHECK(t, ino_of("/etc/./motd") == ino_of("/etc/motd"));
	ST_CHECK(t, ino_of("/etc/../etc/motd") == ino_of("/etc/motd"));
	ST_CHECK(t, ino_of("/..") == ino_of("/"));
	ST_CHECK(t, ino_of("/tmp/..") == ino_of("/"));
	ST_CHECK(t, ino_of("/proc/sys/..") == ino_of("/proc"));
	ST_CHECK(t, stat_err("/etc/motd/") == -ENOTDIR);
	ST_CHECK(t, stat_err("/etc/motd/x") == -ENOTDIR);
	ST_CHECK(t, stat_err("/etc/motd/.") == -ENOTDIR);
	ST_CHECK(t, stat_err("/nonexistent") == -ENOENT);
	ST_CHECK(t, stat_err("/nonexistent/x") == -ENOENT);
	ST_CHECK(t, stat_err("") == -ENOENT);
	ST_CHECK(t, stat_err("/etc/") == 0);
}

SELFTEST(vfs_name_limits)
{
	fs_test_init();
	char *p = kmalloc(PATH_MAX + 2);
	if (!p) {
		ST_FAIL(t, "no memory");
		return;
	}
	p[0] = '/';
	memset(p + 1, 'a', 256);
	p[257] = 0;
	ST_CHECK(t, stat_err(p) == -ENAMETOOLONG);       /* 256-byte name */
	p[256] = 0;
	ST_CHECK(t, stat_err(p) == -ENOENT);             /* 255 is fine */
	memset(p, '/', PATH_MAX + 1);
	p[PATH_MAX - 1] = 0;
	ST_CHECK(t, stat_err(p) == 0);                   /* 4095 bytes: "/" */
	p[PATH_MAX - 1] = '/';
	p[PATH_MAX] = 0;
	ST_CHECK(t, stat_err(p) == -ENAMETOOLONG);       /* 4096 bytes */
	kfree(p);
}

SELFTEST(vfs_mounts)
{
	fs_test_init();
	struct stat root, tmp, dev, proc;
	ST_CHECK(t, vfs_stat("/", &root, true) == 0);
	ST_CHECK(t, vfs_stat("/tmp", &tmp, true) == 0);
	ST_CHECK(t, vfs_stat("/dev", &dev, true) == 0);
	ST_CHECK(t, vfs_stat("/proc", &proc, true) == 0);
	ST_CHECK(t, root.st_dev != tmp.st_dev && tmp.st_dev != dev.st_dev &&
		    dev.st_dev != proc.st_dev);
	ST_CHECK(t, vfs_rmdir("/tmp") == -EROFS);   /* "/" is read-only: checked first */
	ST_CHECK(t, vfs_rmdir("/tmp/.") == -EINVAL);
	ST_CHECK(t, vfs_rmdir("/tmp/..") == -ENOTEMPTY);
	ST_CHECK(t, vfs_rename("/tmp/none", "/dev/none") == -EXDEV);
	ST_CHECK(t, vfs_rename("/tmp", "/x") == -EROFS);
}

SELFTEST(vfs_readonly_root)
{
	fs_test_init();
	struct file *f;
	ST_CHECK(t, vfs_open("/etc/motd", O_WRONLY, 0, &f) == -EROFS);
	ST_CHECK(t, vfs_open("/etc/motd", O_RDWR, 0, &f) == -EROFS);
	ST_CHECK(t, vfs_open("/etc/new", O_CREAT | O_WRONLY, 0644, &f) == -EROFS);
	ST_CHECK(t, vfs_open("/etc/motd", O_RDONLY | O_TRUNC, 0, &f) == -EROFS);
	ST_CHECK(t, vfs_mkdir("/etc/d", 0755) == -EROFS);
	ST_CHECK(t, vfs_mkdir("/etc", 0755) == -EEXIST);
	ST_CHECK(t, vfs_unlink("/etc/motd") == -EROFS);
	ST_CHECK(t, vfs_rmdir("/etc") == -EROFS);
	ST_CHECK(t, vfs_truncate("/etc/motd", 0) == -EROFS);
	ST_CHECK(t, vfs_rename("/etc/motd", "/etc/motd2") == -EROFS);
	if (vfs_open("/etc/motd", O_RDONLY, 0, &f) == 0) {
		char c;
		ST_CHECK(t, kernel_write(f, "x", 1) == -EBADF);
		ST_CHECK(t, kernel_read(f, &c, 1, 0) == 1);
		file_put(f);
	} else {
		ST_FAIL(t, "cannot open /etc/motd");
	}
}

SELFTEST(vfs_open_flags)
{
	fs_test_init();
	struct file *f;
	ST_CHECK(t, vfs_open("/etc/motd", O_RDONLY | O_DIRECTORY, 0, &f) == -ENOTDIR);
	ST_CHECK(t, vfs_open("/etc/motd", O_CREAT | O_EXCL | O_RDONLY, 0, &f) == -EEXIST);
	ST_CHECK(t, vfs_open("/tmp", O_WRONLY, 0, &f) == -EISDIR);
	ST_CHECK(t, vfs_open("/tmp", O_CREAT | O_RDONLY, 0, &f) == -EISDIR);
	ST_CHECK(t, vfs_open("/tmp/nodir/", O_CREAT | O_RDWR, 0644, &f) == -EISDIR);
	ST_CHECK(t, vfs_open("/nonexistent/x", O_CREAT | O_RDWR, 0644, &f) == -ENOENT);
	if (vfs_open("/etc", O_RDONLY | O_DIRECTORY, 0, &f) == 0) {
		char c;
		ST_CHECK(t, kernel_read(f, &c, 1, 0) == -EISDIR);
		file_put(f);
	} else {
		ST_FAIL(t, "cannot open /etc as a directory");
	}
	if (vfs_open("/etc/motd", O_PATH, 0, &f) == 0) {
		char c;
		ST_CHECK(t, kernel_read(f, &c, 1, 0) == -EBADF);
		file_put(f);
	} else {
		ST_FAIL(t, "O_PATH open failed");
	}
}

SELFTEST(vfs_symlinks)
{
	fs_test_init();
	struct stat st;
	char buf[64];
	vfs_unlink("/tmp/sl_etc");
	vfs_unlink("/tmp/sl_a");
	vfs_unlink("/tmp/sl_b");
	ST_CHECK(t, vfs_symlinkat(NULL, NULL, "/etc", "/tmp/sl_etc") == 0);
	ST_CHECK(t, vfs_symlinkat(NULL, NULL, "sl_b", "/tmp/sl_a") == 0);
	ST_CHECK(t, vfs_symlinkat(NULL, NULL, "sl_a", "/tmp/sl_b") == 0);
	ST_CHECK(t, vfs_symlinkat(NULL, NULL, "x", "/tmp/sl_a") == -EEXIST);
	ST_CHECK(t, vfs_stat("/tmp/sl_etc", &st, true) == 0 && S_ISDIR(st.st_mode));
	ST_CHECK(t, vfs_stat("/tmp/sl_etc", &st, false) == 0 && S_ISLNK(st.st_mode));
	ST_CHECK(t, ino_of("/tmp/sl_etc/motd") == ino_of("/etc/motd"));
	ST_CHECK(t, vfs_stat("/tmp/sl_etc/", &st, false) == 0 && S_ISDIR(st.st_mode));
	ST_CHECK(t, vfs_readlink("/tmp/sl_etc", buf, sizeof(buf)) == 4 &&
		    memcmp(buf, "/etc", 4) == 0);
	ST_CHECK(t, vfs_readlink("/etc/motd", buf, sizeof(buf)) == -EINVAL);
	ST_CHECK(t, stat_err("/tmp/sl_a") == -ELOOP);
	struct file *f;
	ST_CHECK(t, vfs_open("/tmp/sl_etc", O_RDONLY | O_NOFOLLOW, 0, &f) == -ELOOP);
	ST_CHECK(t, vfs_unlink("/tmp/sl_etc") == 0 && vfs_unlink("/tmp/sl_a") == 0 &&
		    vfs_unlink("/tmp/sl_b") == 0);
	ST_CHECK(t, vfs_stat("/etc", &st, true) == 0);
}

SELFTEST(vfs_cwd)
{
	fs_test_init();
	char buf[64];
	vfs_rmdir("/tmp/cwd_t/sub");
	vfs_rmdir("/tmp/cwd_t");
	struct fs_context *fs = fs_new_root();
	if (!fs) {
		ST_FAIL(t, "fs_new_root");
		return;
	}
	ST_CHECK(t, vfs_getcwd(fs, buf, sizeof(buf)) == 2 && strcmp(buf, "/") == 0);
	ST_CHECK(t, vfs_mkdir("/tmp/cwd_t", 0755) == 0);
	ST_CHECK(t, vfs_chdir(fs, "/tmp/cwd_t") == 0);
	ST_CHECK(t, vfs_getcwd(fs, buf, sizeof(buf)) == 11 && strcmp(buf, "/tmp/cwd_t") == 0);
	ST_CHECK(t, vfs_getcwd(fs, buf, 10) == -ERANGE);
	ST_CHECK(t, vfs_getcwd(fs, buf, 11) == 11);
	ST_CHECK(t, vfs_mkdirat(fs, NULL, "sub", 0755) == 0);
	ST_CHECK(t, vfs_chdir(fs, "sub/..//sub") == 0);
	ST_CHECK(t, vfs_getcwd(fs, buf, sizeof(buf)) > 0 && strcmp(buf, "/tmp/cwd_t/sub") == 0);
	ST_CHECK(t, vfs_chdir(fs, "../../..") == 0);
	ST_CHECK(t, vfs_getcwd(fs, buf, sizeof(buf)) > 0 && strcmp(buf, "/") == 0);
	ST_CHECK(t, vfs_chdir(fs, "/proc/sys") == 0);
	ST_CHECK(t, vfs_getcwd(fs, buf, sizeof(buf)) > 0 && strcmp(buf, "/proc/sys") == 0);
	ST_CHECK(t, vfs_chdir(fs, "/etc/motd") == -ENOTDIR);
	ST_CHECK(t, vfs_chdir(fs, "/tmp/cwd_t/sub") == 0);
	ST_CHECK(t, vfs_rmdir("/tmp/cwd_t/sub") == 0);
	ST_CHECK(t, vfs_getcwd(fs, buf, sizeof(buf)) == -ENOENT);
	struct file *f;
	ST_CHECK(t, vfs_open_in(fs, "newfile", O_CREAT | O_RDWR, 0644, &f) == -ENOENT);
	ST_CHECK(t, vfs_chdir(fs, "..") == 0);
	ST_CHECK(t, vfs_getcwd(fs, buf, sizeof(buf)) > 0 && strcmp(buf, "/tmp/cwd_t") == 0);
	ST_CHECK(t, vfs_rmdir("/tmp/cwd_t") == 0);
	fs_put(fs);
}
