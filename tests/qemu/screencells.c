/*
 * screencells MONITOR-SOCKET FILE.ppm [TEXT]: first, with TEXT, type it
 * on the guest's keyboard (QEMU's sendkey, then Enter; lower-case
 * letters, digits, blank, - . / = only). Then ask QEMU (through its monitor's
 * unix socket) for a screendump of the display into FILE.ppm, then read
 * the picture back as text: each 8x16 cell, thresholded to ink and
 * paper, is compared with every glyph of the kernel's own font
 * (core/font8x16.c, compiled in); an exact match prints its character,
 * a blank cell a space, anything else '?'. One output line per cell row,
 * trailing blanks dropped. No OCR: the screen must hold exactly the
 * glyphs the framebuffer console draws.
 * Build: gcc -I. -o screencells tests/qemu/screencells.c core/font8x16.c
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include "core/font8x16.h"

/* Read until the monitor's "(qemu) " prompt; 0 on success. */
static int wait_prompt(int fd)
{
	char buf[4096];
	size_t have = 0;
	for (;;) {
		ssize_t n = read(fd, buf + have, sizeof(buf) - 1 - have);
		if (n <= 0)
			return -1;
		have += (size_t)n;
		buf[have] = 0;
		if (strstr(buf, "(qemu) "))
			return 0;
		if (have > sizeof(buf) / 2) { /* keep the tail */
			memmove(buf, buf + have - 16, 16);
			have = 16;
		}
	}
}

/* One monitor command, answered by the next prompt; 0 on success. */
static int monitor_cmd(int fd, const char *cmd)
{
	size_t len = strlen(cmd);
	if (write(fd, cmd, len) != (ssize_t)len || write(fd, "\n", 1) != 1 || wait_prompt(fd)) {
		fprintf(stderr, "screencells: monitor did not answer '%s'\n", cmd);
		return -1;
	}
	return 0;
}

/* QEMU's key name for a character; NULL if not supported here. */
static const char *key_name(char c, char *buf)
{
	static const struct { char c; const char *name; } names[] = {
		{ ' ', "spc" }, { '-', "minus" }, { '.', "dot" }, { '/', "slash" },
		{ '=', "equal" },
	};
	if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) {
		buf[0] = c;
		buf[1] = 0;
		return buf;
	}
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].c == c)
			return names[i].name;
	return NULL;
}

static int type_text(int fd, const char *text)
{
	char cmd[64], buf[2];
	for (const char *p = text; *p; p++) {
		const char *k = key_name(*p, buf);
		if (!k) {
			fprintf(stderr, "screencells: cannot type '%c'\n", *p);
			return -1;
		}
		snprintf(cmd, sizeof(cmd), "sendkey %s", k);
		if (monitor_cmd(fd, cmd))
			return -1;
	}
	return monitor_cmd(fd, "sendkey ret");
}

static int monitor(const char *sock, const char *file, const char *text)
{
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	snprintf(a.sun_path, sizeof(a.sun_path), "%s", sock);
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a)) != 0) {
		perror(sock);
		return -1;
	}
	char cmd[600];
	snprintf(cmd, sizeof(cmd), "screendump %s", file);
	int r = wait_prompt(fd) || (text && type_text(fd, text)) || monitor_cmd(fd, cmd);
	close(fd);
	return r ? -1 : 0;
}

/* A binary PPM (P6, maxval 255); *w x *h RGB triples, malloc'd. */
static unsigned char *read_ppm(const char *file, int *w, int *h)
{
	FILE *f = fopen(file, "rb");
	int maxval;
	if (!f || fscanf(f, "P6 %d %d %d", w, h, &maxval) != 3 || maxval != 255 ||
	    *w <= 0 || *h <= 0 || fgetc(f) == EOF) {
		fprintf(stderr, "screencells: %s is not a P6 PPM\n", file);
		return NULL;
	}
	size_t size = (size_t)*w * (size_t)*h * 3;
	unsigned char *p = malloc(size);
	if (!p || fread(p, 1, size, f) != size) {
		fprintf(stderr, "screencells: %s is short\n", file);
		return NULL;
	}
	fclose(f);
	return p;
}

static char cell_char(const unsigned char *rgb, int w, int cx, int cy)
{
	unsigned char rows[FONT_HEIGHT];
	int ink = 0;
	for (int y = 0; y < FONT_HEIGHT; y++) {
		rows[y] = 0;
		for (int x = 0; x < FONT_WIDTH; x++) {
			const unsigned char *px = rgb + 3 * ((size_t)(cy * FONT_HEIGHT + y) * w +
							     (size_t)(cx * FONT_WIDTH + x));
			if (px[0] + px[1] + px[2] > 3 * 96) {
				rows[y] |= (unsigned char)(0x80 >> x);
				ink = 1;
			}
		}
	}
	if (!ink)
		return ' ';
	for (int g = 0; g < FONT_GLYPHS; g++)
		if (memcmp(rows, font8x16[g], FONT_HEIGHT) == 0)
			return (char)(FONT_FIRST + g);
	return '?';
}

int main(int argc, char **argv)
{
	if (argc != 3 && argc != 4) {
		fprintf(stderr, "usage: screencells MONITOR-SOCKET FILE.ppm [TEXT]\n");
		return 2;
	}
	int w, h;
	unsigned char *rgb;
	if (monitor(argv[1], argv[2], argc == 4 ? argv[3] : NULL) ||
	    !(rgb = read_ppm(argv[2], &w, &h)))
		return 1;
	char line[1024];
	for (int cy = 0; cy < h / FONT_HEIGHT; cy++) {
		int n = 0;
		for (int cx = 0; cx < w / FONT_WIDTH && n < (int)sizeof(line) - 1; cx++)
			line[n++] = cell_char(rgb, w, cx, cy);
		while (n && line[n - 1] == ' ')
			n--;
		line[n] = 0;
		printf("%s\n", line);
	}
	return 0;
}
