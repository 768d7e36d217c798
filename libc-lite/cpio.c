/*
 * cpio.c: walk a newc archive in memory.
 *
 * Layout of one entry, every part starting at a multiple of 4 from the
 * archive's start:
 *   110-byte header: "070701", then 13 fields of 8 hex digits
 *   name (namesize bytes, including its NUL), padding to 4
 *   data (filesize bytes), padding to 4
 * Bounds rule: every position is checked against len by subtraction
 * (x <= len - pos), never by an addition that could wrap.
 */
#include <cpio.h>
#include <stdbool.h>
#include <string.h>

#define HEADER_SIZE 110

/* Field order in the header, after the 6-byte magic. */
enum field {
	FLD_INO, FLD_MODE, FLD_UID, FLD_GID, FLD_NLINK, FLD_MTIME,
	FLD_FILESIZE, FLD_DEVMAJOR, FLD_DEVMINOR, FLD_RDEVMAJOR,
	FLD_RDEVMINOR, FLD_NAMESIZE, FLD_CHECK, NFIELDS
};

static int hex_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Parse 8 hex digits at s into *v; false if any is not a hex digit. */
static bool parse_hex8(const char *s, uint32_t *v)
{
	*v = 0;
	for (int i = 0; i < 8; i++) {
		int d = hex_value(s[i]);
		if (d < 0)
			return false;
		*v = *v << 4 | (uint32_t)d;
	}
	return true;
}

/* pos rounded up to a multiple of 4, but no further than len (pos <= len). */
static size_t pad4(size_t pos, size_t len)
{
	size_t fill = (4 - pos % 4) % 4;

	return fill > len - pos ? len : pos + fill;
}

/* Check the magic and decode all fields of the header at h. */
static int parse_header(const char *h, uint32_t f[NFIELDS])
{
	if (memcmp(h, "07070", 5) != 0 || (h[5] != '1' && h[5] != '2'))
		return CPIO_E_BADMAGIC;
	for (int i = 0; i < NFIELDS; i++)
		if (!parse_hex8(h + 6 + 8 * i, &f[i]))
			return CPIO_E_BADHEX;
	return 0;
}

int cpio_next(const void *archive, size_t len, size_t *offset,
              struct cpio_entry *out)
{
	const char *base = archive;
	size_t pos = *offset, name_pos, data_pos, namesize, size;
	uint32_t f[NFIELDS];
	int err;

	if (pos == len)
		return 0;
	if (pos > len || len - pos < HEADER_SIZE)
		return CPIO_E_TRUNC_HEADER;
	if ((err = parse_header(base + pos, f)) < 0)
		return err;
	name_pos = pos + HEADER_SIZE;
	namesize = f[FLD_NAMESIZE];
	if (namesize > len - name_pos)
		return CPIO_E_TRUNC_NAME;
	/* The name's first NUL must be its last byte. */
	if (namesize == 0 ||
	    memchr(base + name_pos, '\0', namesize) != base + name_pos + namesize - 1)
		return CPIO_E_NAME_NUL;
	data_pos = pad4(name_pos + namesize, len);
	size = f[FLD_FILESIZE];
	if (size > len - data_pos)
		return CPIO_E_TRUNC_DATA;
	if (namesize - 1 == 10 && memcmp(base + name_pos, "TRAILER!!!", 10) == 0)
		return 0;
	*out = (struct cpio_entry){
		.name = base + name_pos, .namelen = namesize - 1,
		.data = base + data_pos, .size = size,
		.mode = f[FLD_MODE], .ino = f[FLD_INO],
		.nlink = f[FLD_NLINK], .mtime = f[FLD_MTIME],
	};
	*offset = pad4(data_pos + size, len);
	return 1;
}

/* Drop leading "/" and "./" from s[0..*n); "." alone becomes "". */
static const char *strip_root(const char *s, size_t *n)
{
	for (;;) {
		if (*n >= 1 && s[0] == '/') {
			s++;
			*n -= 1;
		} else if (*n >= 2 && s[0] == '.' && s[1] == '/') {
			s += 2;
			*n -= 2;
		} else if (*n == 1 && s[0] == '.') {
			s++;
			*n = 0;
		} else {
			return s;
		}
	}
}

int cpio_find(const void *archive, size_t len, const char *path,
              struct cpio_entry *out)
{
	size_t want_len = strlen(path), offset = 0, n;
	const char *want = strip_root(path, &want_len), *name;
	struct cpio_entry e;
	int r;

	while ((r = cpio_next(archive, len, &offset, &e)) == 1) {
		n = e.namelen;
		name = strip_root(e.name, &n);
		if (n == want_len && memcmp(name, want, n) == 0) {
			*out = e;
			return 1;
		}
	}
	return r;
}

const char *cpio_strerror(int err)
{
	switch (err) {
	case 1:                   return "entry found";
	case 0:                   return "end of archive";
	case CPIO_E_BADMAGIC:     return "bad magic";
	case CPIO_E_TRUNC_HEADER: return "truncated header";
	case CPIO_E_TRUNC_NAME:   return "truncated name";
	case CPIO_E_TRUNC_DATA:   return "truncated data";
	case CPIO_E_BADHEX:       return "bad hex field";
	case CPIO_E_NAME_NUL:     return "name not NUL-terminated";
	default:                  return "unknown error";
	}
}
