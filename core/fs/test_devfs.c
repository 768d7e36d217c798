/* Self-tests: /dev/null, zero, full, urandom, and the console's line
 * discipline fed through console_input_byte. */
#include <asm/termbits.h>
#include "fstest.h"

SELFTEST(devfs_memory_devices)
{
	fs_test_init();
	struct file *f;
	char buf[16];
	struct stat st;
	ST_CHECK(t, vfs_stat("/dev/null", &st, true) == 0 && S_ISCHR(st.st_mode) &&
		    st.st_rdev == 0x103);
	ST_CHECK(t, vfs_open("/dev/null", O_RDWR, 0, &f) == 0);
	ST_CHECK(t, kernel_read(f, buf, sizeof(buf), 0) == 0);
	ST_CHECK(t, kernel_write(f, "hello", 5) == 5);
	file_put(f);
	ST_CHECK(t, vfs_open("/dev/zero", O_RDONLY, 0, &f) == 0);
	memset(buf, 0x55, sizeof(buf));
	ST_CHECK(t, kernel_read(f, buf, sizeof(buf), 0) == sizeof(buf));
	bool zero = true;
	for (unsigned i = 0; i < sizeof(buf); i++)
		zero &= buf[i] == 0;
	ST_CHECK(t, zero);
	file_put(f);
	ST_CHECK(t, fs_test_write("/dev/full", "x", 0) == -ENOSPC);
	ST_CHECK(t, vfs_unlink("/dev/null") == -EPERM);
}

SELFTEST(devfs_random)
{
	fs_test_init();
	uint8_t a[64], b[64];
	struct file *f;
	ST_CHECK(t, vfs_open("/dev/urandom", O_RDONLY, 0, &f) == 0);
	ST_CHECK(t, kernel_read(f, a, sizeof(a), 0) == sizeof(a));
	ST_CHECK(t, kernel_read(f, b, sizeof(b), 0) == sizeof(b));
	file_put(f);
	ST_CHECK(t, memcmp(a, b, sizeof(a)) != 0);
	int ones = 0;
	for (unsigned i = 0; i < sizeof(a); i++)
		for (int k = 0; k < 8; k++)
			ones += a[i] >> k & 1;
	ST_CHECK(t, ones > 160 && ones < 352);     /* 256 expected */
	ST_CHECK(t, fs_test_write("/dev/random", "entropy", 0) == 7);
}

static void feed(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		console_input_byte(s[i]);
}

static long tty_read(struct file *f, char *buf, size_t n)
{
	long r = kernel_read(f, buf, n - 1, 0);
	buf[r > 0 ? r : 0] = 0;
	return r;
}

SELFTEST(tty_line_discipline)
{
	fs_test_init();
	struct file *f;
	char buf[32];
	if (vfs_open("/dev/console", O_RDWR | O_NONBLOCK, 0, &f)) {
		ST_FAIL(t, "cannot open /dev/console");
		return;
	}
	unsigned lflag = tty_test_set_lflag(ICANON | ISIG | IEXTEN, ECHO);  /* quiet */
	ST_CHECK(t, tty_read(f, buf, sizeof(buf)) == -EAGAIN);
	feed("ab\x7f" "c", 4);
	ST_CHECK(t, tty_read(f, buf, sizeof(buf)) == -EAGAIN);   /* no line yet */
	feed("\r", 1);                                          /* ICRNL */
	ST_CHECK(t, tty_read(f, buf, sizeof(buf)) == 3 && strcmp(buf, "ac\n") == 0);
	feed("xyz\x15" "d\n", 6);                               /* ^U kills */
	ST_CHECK(t, tty_read(f, buf, sizeof(buf)) == 2 && strcmp(buf, "d\n") == 0);
	feed("one two\x17" "3\n", 10);                          /* ^W */
	ST_CHECK(t, tty_read(f, buf, sizeof(buf)) == 6 && strcmp(buf, "one 3\n") == 0);
	feed("xy\x04", 3);                                      /* ^D mid-line */
	ST_CHECK(t, tty_read(f, buf, sizeof(buf)) == 2 && strcmp(buf, "xy") == 0);
	feed("\x04", 1);                                        /* ^D at start: EOF */
	ST_CHECK(t, tty_read(f, buf, sizeof(buf)) == 0);
	ST_CHECK(t, tty_read(f, buf, sizeof(buf)) == -EAGAIN);
	feed("lost\x03", 5);                                    /* ^C flushes */
	feed("ok\n", 3);
	ST_CHECK(t, tty_read(f, buf, sizeof(buf)) == 3 && strcmp(buf, "ok\n") == 0);
	feed("abc\n", 4);
	ST_CHECK(t, kernel_read(f, buf, 2, 0) == 2);            /* part of a line */
	ST_CHECK(t, tty_read(f, buf, sizeof(buf)) == 2 && strcmp(buf, "c\n") == 0);
	tty_test_set_lflag(0, ICANON);
	feed("r", 1);
	ST_CHECK(t, tty_read(f, buf, sizeof(buf)) == 1 && buf[0] == 'r');
	tty_test_set_lflag(lflag, ~lflag);
	file_put(f);
}
