/*
 * The host end of the link: reads the line, splits console text from
 * frames, keeps delivered messages in a queue for conn_next, retransmits,
 * and turns every way the target can fail into one message and a
 * distinct exit status (baremon.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/random.h>
#include "baremon.h"

#define RETRANSMIT_MS 500
#define HELLO_EVERY_MS 500
#define ANNOUNCE_WAIT_MS 20000
#define RETYPE_MS 5000
#define QUIET_MS 1500
#define QUEUE 64
#define PANIC_MAX (64 * 1024)

uint64_t host_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Which of the target's lines fd is, for messages. */
static const char *line_name(const struct conn *c, int fd)
{
	if (c->console_fd < 0)
		return "line";
	return fd == c->console_fd ? "console line" : "export line";
}

/*
 * The target closed a line (end of file) or it failed (err, from op):
 * keep the first such event for check_health's message, which names the
 * line and how, e.g. "the export line (read: ECONNRESET)".
 */
static void line_closed(struct conn *c, int fd, const char *op, int err)
{
	if (!c->closed)
		snprintf(c->closed_why, sizeof(c->closed_why), "the %s (%s: %s)", line_name(c, fd),
			 op, err ? strerrorname_np(err) : "end of file");
	c->closed = true;
}

/* A read that returned n: false (and the line marked closed) at its end
 * or on an error other than "nothing yet". */
static bool read_ok(struct conn *c, int fd, ssize_t n)
{
	if (n > 0)
		return true;
	if (n == 0)
		line_closed(c, fd, "read", 0);
	else if (errno != EINTR && errno != EAGAIN)
		line_closed(c, fd, "read", errno);
	return false;
}

/* Keep bytes that arrive while we wait to write; pump takes them first. */
static void stash_input(struct conn *c)
{
	uint8_t buf[4096];
	ssize_t n = read(c->fd, buf, sizeof(buf));
	if (!read_ok(c, c->fd, n))
		return;
	if (c->stash_len + (size_t)n > c->stash_cap) {
		size_t cap = (c->stash_len + (size_t)n) * 2;
		uint8_t *q = realloc(c->stash, cap);
		if (!q)
			return;   /* dropped: the link retransmits */
		c->stash = q;
		c->stash_cap = cap;
	}
	memcpy(c->stash + c->stash_len, buf, (size_t)n);
	c->stash_len += (size_t)n;
}

static void read_console_line(struct conn *c);
static void check_health(struct conn *c, bool waiting);

/*
 * Write wire bytes. The descriptor is non-blocking: a target that is
 * itself waiting for us to read (a UART whose transmitter is full holds
 * its CPU, a relay between us) would otherwise never read what we write,
 * so while the write cannot proceed, we read - both lines: with an
 * export line, a guest that has not yet started reading it (still
 * booting) is writing its console, and stalls with interrupts off, its
 * console UART full, if that line is not read meanwhile.
 */
static void emit(void *ctx, const uint8_t *p, size_t n)
{
	struct conn *c = ctx;
	uint64_t start = host_now_ms();
	while (n && !c->closed) {
		stop_check();
		/* Cancelling (stop_now): a line that takes nothing for a
		 * second is given up, not waited for. */
		if (stop_signal && host_now_ms() - start > 1000)
			return;
		ssize_t r = write(c->fd, p, n);
		if (r > 0) {
			p += r;
			n -= (size_t)r;
			continue;
		}
		if (r < 0 && errno != EINTR && errno != EAGAIN) {
			line_closed(c, c->fd, "write", errno);
			return;
		}
		struct pollfd pf[2] = { { .fd = c->fd, .events = POLLIN | POLLOUT },
					{ .fd = c->console_fd, .events = POLLIN } };
		if (poll(pf, c->console_fd >= 0 ? 2 : 1, 100) > 0) {
			if (pf[0].revents & POLLIN)
				stash_input(c);
			uint64_t text = c->text_bytes;
			if (c->console_fd >= 0 && pf[1].revents)
				read_console_line(c);
			if (c->text_bytes != text)
				start = host_now_ms();   /* alive: booting, say */
			check_health(c, false);          /* a panic, a closed line */
		}
		int limit = c->target ? c->target->timeout_s : 60;
		if (limit > 0 && host_now_ms() - start > (uint64_t)limit * 1000)
			conn_fail(c, EXIT_TIMEOUT, "the target takes no input (%d s)", limit);
	}
}

void conn_init(struct conn *c, int fd, struct target *t)
{
	memset(c, 0, sizeof(*c));
	c->fd = fd;
	c->target = t;
	c->console_fd = t ? t->console_fd : -1;
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	if (c->console_fd >= 0)
		fcntl(c->console_fd, F_SETFL, fcntl(c->console_fd, F_GETFL) | O_NONBLOCK);
	c->queue = calloc(QUEUE, sizeof(struct frame));
	c->panic_text = malloc(PANIC_MAX);
	c->exported = calloc(1, sizeof(*c->exported));
	if (!c->queue || !c->panic_text || !c->exported) {
		fprintf(stderr, "baremon: out of memory\n");
		exit(EXIT_SOFTWARE);
	}
	link_init(&c->link, emit, c, RETRANSMIT_MS);
	c->link.initiator = true;
	/* The host reads its lines into large buffers: the agent's HELLO
	 * says how many frames the guest's line can take (wire/link.h). */
	link_set_window(&c->link, LINK_WINDOW_MAX);
	frame_reader_init(&c->reader);
	c->last_progress = host_now_ms();
}

/* Damage is bad frames; frames sent again or received twice without
 * any are a slow target (a loaded host), said only with -v. */
void conn_report(struct conn *c)
{
	bool verbose = c->target && c->target->verbose;
	if (c->reader.bad_frames || (verbose && (c->link.retransmits || c->link.duplicates)))
		fprintf(stderr, "baremon: line damage: %llu bad frames (%llu bytes skipped), "
			"%llu frames sent again, %llu duplicates received\n",
			(unsigned long long)c->reader.bad_frames,
			(unsigned long long)c->reader.skipped,
			(unsigned long long)c->link.retransmits,
			(unsigned long long)c->link.duplicates);
}

void conn_fail(struct conn *c, int status, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	if (c)
		boot_watch_done(c);
	fprintf(stderr, "baremon: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	if (c && c->panicked) {
		fprintf(stderr, "baremon: the target's panic report:\n");
		fwrite(c->panic_text, 1, c->panic_len, stderr);
	}
	if (c)
		conn_report(c);
	if (c && c->target)
		target_close(c->target);
	exit(status);
}

/* A line of console text: shown with -v; a panic report is kept. */
static void text_line(struct conn *c)
{
	c->line[c->line_len] = 0;
	if (strncmp(c->line, "PANIC: ", 7) == 0)
		c->panicked = true;
	if (c->panicked && c->panic_len + c->line_len + 1 < PANIC_MAX) {
		memcpy(c->panic_text + c->panic_len, c->line, c->line_len);
		c->panic_len += c->line_len;
		c->panic_text[c->panic_len++] = '\n';
	}
	if (!c->link.up)
		boot_watch_line(c, c->line);
	if (c->target && c->target->verbose)
		fprintf(stderr, "%s\n", c->line);
	c->line_len = 0;
}

/* Not what a console prints: a hint of a wrong baud rate. */
static bool odd_byte(uint8_t b)
{
	return b >= 0x80 || (b < 0x20 && b != '\r' && b != '\n' && b != '\t' && b != '\b' &&
			     b != '\a' && b != 0x1b);
}

static void text_byte(struct conn *c, uint8_t b)
{
	c->text_bytes++;
	c->odd_bytes += odd_byte(b);
	c->last_text_ms = host_now_ms();
	if (b == '\r')
		return;
	if (b == '\n' || c->line_len == sizeof(c->line) - 1) {
		text_line(c);
		if (b == '\n')
			return;
	}
	c->line[c->line_len++] = (char)b;
	if (c->line_len >= 2 && c->line[c->line_len - 2] == '>' && b == ' ')
		c->seen_prompt = true;
}

static void take_byte(struct conn *c, uint8_t b)
{
	struct frame *slot = &c->queue[(c->q_head + c->q_count) % QUEUE];
	switch (frame_reader_push(&c->reader, b, slot)) {
	case READ_TEXT:
		text_byte(c, b);
		break;
	case READ_FRAME: {
		if (slot->type == FRAME_EXPORT_DATA || slot->type == FRAME_EXPORT_PACKED ||
		    slot->type == FRAME_EXPORT_END) {
			/* The kernel's exporter: datagrams beside the link. */
			export_rx_frame(c->exported, slot);
			c->last_progress = host_now_ms();
			break;
		}
		uint32_t acked = c->link.tx_acked;
		bool hello_up = c->link.up;
		if (link_receive(&c->link, slot, host_now_ms())) {
			c->q_count++;
			c->last_progress = host_now_ms();
		}
		if (acked != c->link.tx_acked || hello_up != c->link.up)
			c->last_progress = host_now_ms();
		break;
	}
	default:
		break;
	}
}

/* What the frames' line holds now. */
static void read_line(struct conn *c)
{
	uint8_t buf[512];
	ssize_t n = read(c->fd, buf, sizeof(buf));
	if (!read_ok(c, c->fd, n))
		return;
	for (ssize_t i = 0; i < n; i++)
		take_byte(c, buf[i]);
}

/* With an export line, the console's line carries text only: the boot
 * log, the shell, a panic report. */
static void read_console_line(struct conn *c)
{
	uint8_t buf[512];
	ssize_t n = read(c->console_fd, buf, sizeof(buf));
	if (!read_ok(c, c->console_fd, n))
		return;
	for (ssize_t i = 0; i < n; i++)
		if (buf[i])
			text_byte(c, buf[i]);
}

/* Wait up to ms for the line; handle what arrives, retransmit on time. */
static void pump(struct conn *c, long ms)
{
	stop_check();
	long wait = link_wait_ms(&c->link, host_now_ms());
	if (wait < 0 || wait > ms)
		wait = ms;
	struct pollfd p = { .fd = c->fd, .events = POLLIN };
	bool room = c->q_count < QUEUE - 8;
	size_t i = 0;
	for (; room && i < c->stash_len && c->q_count < QUEUE - 8; i++)
		take_byte(c, c->stash[i]);
	if (i) {
		memmove(c->stash, c->stash + i, c->stash_len - i);
		c->stash_len -= i;
		wait = 0;
	}
	if (room && c->stash_len == 0 && c->console_fd >= 0) {
		struct pollfd two[2] = { p, { .fd = c->console_fd, .events = POLLIN } };
		if (poll(two, 2, (int)wait) > 0) {
			if (two[1].revents)
				read_console_line(c);
			if (two[0].revents)
				read_line(c);
		}
	} else if (room && c->stash_len == 0 && poll(&p, 1, (int)wait) > 0) {
		read_line(c);
	}
	link_poll(&c->link, host_now_ms());
}

/* Fail when the target is gone, has panicked, or stopped answering. */
static void check_health(struct conn *c, bool waiting)
{
	if (stop_signal)
		return;   /* stop_now's cancel: its loops watch c->closed */
	if (c->panicked) {
		/* Let the rest of the report arrive. */
		uint64_t end = host_now_ms() + 1500;
		while (!c->closed && host_now_ms() < end)
			pump(c, 100);
		if (c->line_len)
			text_line(c);
		conn_fail(c, EXIT_PANIC, "the target kernel panicked");
	}
	if (c->closed) {
		const char *why = c->target ? target_gone_reason(c->target) : NULL;
		if (why)
			conn_fail(c, EXIT_UNAVAILABLE, "QEMU stopped: %s", why);
		conn_fail(c, EXIT_PROTOCOL, "the target closed %s", c->closed_why);
	}
	int limit = c->target ? c->target->timeout_s : 30;
	if (waiting && limit > 0 &&
	    host_now_ms() - c->last_progress > (uint64_t)limit * 1000) {
		if (!c->reader.frames && (c->reader.bad_frames || c->odd_bytes))
			conn_fail(c, EXIT_TIMEOUT, "the target is not answering (%d s without "
				  "progress): no frame, only garbage (wrong baud rate?)", limit);
		conn_fail(c, EXIT_TIMEOUT, "the target is not answering (%d s without progress)",
			  limit);
	}
}

/*
 * May we type at the guest's shell? At its prompt (the line so far ends
 * "> ", as "baremon> " does), or when the console has said nothing at
 * all since we connected and has been quiet for QUIET_MS (a prompt
 * printed before). Never while it boots: typed text and HELLO frames
 * would sit in its input until the shell reads them as a command line,
 * and a HELLO's 0x03 byte is ^C to the agent being started.
 */
static bool shell_ready(struct conn *c)
{
	if (c->line_len >= 2 && c->line[c->line_len - 2] == '>' &&
	    c->line[c->line_len - 1] == ' ')
		return true;
	return c->text_bytes == 0 && host_now_ms() - c->last_text_ms >= QUIET_MS;
}

/*
 * Does the frames' line take bytes now? A HELLO goes out only then: a
 * guest that does not read the line yet (booting, the agent not yet
 * started) would otherwise collect HELLOs in the socket until our
 * writes block - and a write that waits must not be how we wait for
 * a boot (emit).
 */
static bool line_has_room(struct conn *c)
{
	struct pollfd p = { .fd = c->fd, .events = POLLOUT };
	return poll(&p, 1, 0) > 0 && (p.revents & POLLOUT);
}

void conn_start(struct conn *c, bool type_agent)
{
	uint32_t nonce = 0;
	while (nonce == 0)
		if (getrandom(&nonce, sizeof(nonce), 0) != sizeof(nonce))
			nonce = (uint32_t)host_now_ms() ^ (uint32_t)getpid();

	/* Under QEMU the agent announces itself once it runs: ask then (a
	 * request sent earlier would only be echoed by the shell), or after
	 * ANNOUNCE_WAIT_MS in case the announcement was lost; then every
	 * HELLO_EVERY_MS. Booting counts as progress while there is text. */
	uint64_t next = type_agent ? UINT64_MAX : host_now_ms() + ANNOUNCE_WAIT_MS;
	/* A warm target's agent serves already: ask at once. One that is
	 * still booting announces itself every second once it runs: wait
	 * for that, never type into a boot. */
	if (c->target && c->target->warm)
		next = c->target->warm_ready ? host_now_ms() : UINT64_MAX;
	uint64_t next_type = host_now_ms();
	uint64_t typed_at = UINT64_MAX;   /* console text seen when we typed */
	c->last_text_ms = host_now_ms();
	bool announced = false;
	unsigned hellos = 0;
	while (!c->link.up) {
		/* Typed again only at a prompt that came after the last
		 * typing (the command failed), with an export line: a guest
		 * that has not yet echoed is slow (-icount), and the text
		 * typed twice would start a second agent after the first. */
		bool answered = c->console_fd < 0 || c->text_bytes != typed_at;
		if (type_agent && host_now_ms() >= next_type && answered && shell_ready(c)) {
			/* At a shell prompt this starts the agent; an agent
			 * already running takes it as text and ignores it.
			 * Typed again in case the shell missed it. */
			if (c->console_fd >= 0) {
				const char *cmd = "\nagent /dev/export\n";
				if (write(c->console_fd, cmd, strlen(cmd)) < 0 && errno != EAGAIN)
					line_closed(c, c->console_fd, "write", errno);
			} else {
				const char *cmd = "\nagent\n";
				emit(c, (const uint8_t *)cmd, strlen(cmd));
			}
			next_type = host_now_ms() + RETYPE_MS;
			typed_at = c->text_bytes;
			/* HELLO once the agent announces itself (it does so
			 * after leaving canonical mode); without it (an agent
			 * already running), after ANNOUNCE_WAIT_MS. Earlier, a
			 * HELLO reaches the shell or the starting agent's tty
			 * as input, and its bytes include ^C (0x03): SIGINT
			 * would kill the agent being started. */
			if (next == UINT64_MAX)
				next = host_now_ms() + ANNOUNCE_WAIT_MS;
		}
		/* Without the announcement, only into a console quiet after
		 * a prompt (or silent from the start): a shell echoes what
		 * is typed, an agent in raw mode does not; a boot is never
		 * past its prompt. */
		bool quiet = host_now_ms() - c->last_text_ms >= QUIET_MS &&
			     (c->seen_prompt || c->text_bytes == 0);
		/* An export line is not the shell's: a HELLO there can only
		 * reach an agent - one started by an earlier session's
		 * second typing, say, while the guest was slow (-icount),
		 * whose announcement nobody heard. */
		bool own_line = c->console_fd >= 0;
		if (host_now_ms() >= next && (announced || !type_agent || quiet || own_line) &&
		    line_has_room(c)) {
			link_hello(&c->link, nonce);
			hellos++;
			next = host_now_ms() + HELLO_EVERY_MS;
		}
		uint64_t text = c->text_bytes, frames = c->reader.frames;
		pump(c, 100);
		/* Console text, frames, or QEMU running (a silent firmware). */
		if (c->text_bytes != text || c->reader.frames != frames || boot_watch_ran(c))
			c->last_progress = host_now_ms();
		boot_watch_show(c);
		if (c->reader.frames != frames && c->q_count == 0) {
			next = host_now_ms();   /* the announcement, perhaps */
			if (!announced && !hellos && c->target && c->target->verbose)
				fprintf(stderr, "baremon: the agent announced itself\n");
			announced = true;
		}
		check_health(c, true);
	}
	c->last_progress = host_now_ms();
	boot_watch_done(c);
}

void conn_send(struct conn *c, uint8_t type, uint8_t chan, const void *p, size_t n)
{
	while (!link_can_send(&c->link)) {
		pump(c, 100);
		check_health(c, true);
	}
	if (link_idle(&c->link))
		c->last_progress = host_now_ms();
	link_send(&c->link, type, chan, p, n, host_now_ms());
}

void conn_next(struct conn *c, struct frame *f)
{
	while (c->q_count == 0) {
		pump(c, 100);
		/* A command may run silently for long: only unacknowledged
		 * frames count against the timeout. */
		check_health(c, !link_idle(&c->link));
	}
	*f = c->queue[c->q_head];
	c->q_head = (c->q_head + 1) % QUEUE;
	c->q_count--;
}

void conn_flush(struct conn *c)
{
	while (!link_idle(&c->link)) {
		pump(c, 100);
		check_health(c, true);
	}
}

void conn_bye(struct conn *c, uint32_t status)
{
	uint8_t p[4];
	put_le32(p, status);
	conn_send(c, FRAME_BYE, CHAN_CONTROL, p, sizeof(p));
	uint64_t end = host_now_ms() + 5000;
	while (!link_idle(&c->link) && !c->closed && host_now_ms() < end)
		pump(c, 100);
}

void conn_cancel(struct conn *c, uint32_t status, int ms)
{
	uint64_t end = host_now_ms() + (uint64_t)ms;
	if (!c->link.up || c->powered_off)
		return;
	while (!c->closed && !link_can_send(&c->link) && host_now_ms() < end)
		pump(c, 100);
	if (c->closed || !link_can_send(&c->link))
		return;
	uint8_t p[4];
	put_le32(p, status);
	link_send(&c->link, FRAME_BYE, CHAN_CONTROL, p, sizeof(p), host_now_ms());
	while (!c->closed && !link_idle(&c->link) && host_now_ms() < end)
		pump(c, 100);
}

bool conn_wait_closed(struct conn *c, int ms)
{
	uint64_t end = host_now_ms() + (uint64_t)ms;
	while (!c->closed && host_now_ms() < end)
		pump(c, 100);
	return c->closed;
}
