/*
 * Framebuffer console. See fbcon.h.
 *
 * The screen is a grid of 8x16 cells (font8x16.c). Text goes left to
 * right; '\n' starts a new line and the last line's newline scrolls the
 * whole picture up one cell row. '\r', '\b' and '\t' move the cursor;
 * ANSI escape sequences (ESC [ ... final byte) are skipped; other
 * control bytes are ignored. Pixels are 32-bit RGBX or BGRX: the grey
 * and black used read the same in both orders.
 */
#include <string.h>
#include "cmdline.h"
#include "fbcon.h"
#include "font8x16.h"
#include "kernel.h"
#include "log.h"
#include "core/mm/mm.h"

#define INK   0x00c0c0c0u
#define PAPER 0x00000000u

enum esc_state { ESC_NONE, ESC_START, ESC_CSI };

static struct {
	volatile uint32_t *pixels;
	uint32_t pitch;          /* pixels per line */
	uint32_t cols, rows;     /* in cells */
	uint32_t col, row;       /* the cursor */
	enum esc_state esc;
	bool on;
} con;

static volatile uint32_t *line(uint32_t y)
{
	return con.pixels + (size_t)y * con.pitch;
}

static void draw(uint32_t col, uint32_t row, char ch)
{
	unsigned c = (unsigned char)ch;
	const unsigned char *glyph = font8x16[c >= FONT_FIRST && c < FONT_FIRST + FONT_GLYPHS
					      ? c - FONT_FIRST : '?' - FONT_FIRST];
	for (uint32_t y = 0; y < FONT_HEIGHT; y++) {
		volatile uint32_t *p = line(row * FONT_HEIGHT + y) + col * FONT_WIDTH;
		for (uint32_t x = 0; x < FONT_WIDTH; x++)
			p[x] = (glyph[y] & (0x80 >> x)) ? INK : PAPER;
	}
}

static void clear_rows(uint32_t first, uint32_t count)
{
	for (uint32_t y = first * FONT_HEIGHT; y < (first + count) * FONT_HEIGHT; y++) {
		volatile uint32_t *p = line(y);
		for (uint32_t x = 0; x < con.cols * FONT_WIDTH; x++)
			p[x] = PAPER;
	}
}

/* Everything up one cell row; the last row blank. */
static void scroll(void)
{
	size_t bytes = (size_t)con.cols * FONT_WIDTH * 4;
	for (uint32_t y = 0; y < (con.rows - 1) * FONT_HEIGHT; y++)
		memmove((void *)line(y), (const void *)line(y + FONT_HEIGHT), bytes);
	clear_rows(con.rows - 1, 1);
}

static void newline(void)
{
	con.col = 0;
	if (con.row + 1 < con.rows)
		con.row++;
	else
		scroll();
}

/* True while `c` belongs to an escape sequence (and is swallowed). */
static bool in_escape(char c)
{
	switch (con.esc) {
	case ESC_START:
		con.esc = c == '[' ? ESC_CSI : ESC_NONE;
		return true;
	case ESC_CSI:
		if (c >= 0x40 && c <= 0x7e)
			con.esc = ESC_NONE;
		return true;
	default:
		if (c != 0x1b)
			return false;
		con.esc = ESC_START;
		return true;
	}
}

static void put(char c)
{
	if (in_escape(c))
		return;
	switch (c) {
	case '\n': newline(); return;
	case '\r': con.col = 0; return;
	case '\b': if (con.col) con.col--; return;
	case '\t':
		do
			put(' ');
		while (con.col % 8);
		return;
	}
	if ((unsigned char)c < 0x20 || c == 0x7f)
		return;
	if (con.col == con.cols)
		newline();
	draw(con.col++, con.row, c);
}

void fbcon_write(const char *s, size_t n)
{
	if (!con.on)
		return;
	for (size_t i = 0; i < n; i++)
		put(s[i]);
}

bool fbcon_init(const struct boot_framebuffer *fb, const char *banner)
{
	const char *opt = cmdline_get("fbcon");
	if ((opt && strcmp(opt, "off") == 0) || !fb->base ||
	    (fb->format != BOOT_FB_RGBX && fb->format != BOOT_FB_BGRX) ||
	    fb->width < FONT_WIDTH || fb->height < FONT_HEIGHT ||
	    (uint64_t)fb->pixels_per_line * fb->height * 4 > fb->size)
		return false;
	con.pixels = vm_map_mmio(fb->base, fb->size);
	if (!con.pixels)
		return false;
	con.pitch = fb->pixels_per_line;
	con.cols = fb->width / FONT_WIDTH;
	con.rows = fb->height / FONT_HEIGHT;
	clear_rows(0, con.rows);
	con.on = true;
	fbcon_write(banner, strlen(banner));
	static char past[LOG_RING_SIZE]; /* the log so far, replayed */
	size_t n = log_read(past, sizeof(past));
	fbcon_write(past, n);
	klog("fbcon: %ux%u framebuffer, %ux%u text", fb->width, fb->height,
	     con.cols, con.rows);
	return true;
}
