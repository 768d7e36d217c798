/*
 * agent main loop: the console in raw mode, frames in and out, one poll
 * for the console, the command's pipes and the retransmission timer.
 *
 *   agent            speak the protocol on stdin/stdout (the console)
 *   agent DEVICE     speak it on DEVICE (/dev/export: the export UART,
 *                    docs/export.md), the console left alone
 *   agent --serve [DEVICE]
 *                    the warm target's agent (docs/host.md): one host
 *                    session after another, the machine reset between
 *                    them (reset.c)
 * The agent announces itself every second until a host answers.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <linux/reboot.h>
#include "agent.h"

#define RETRANSMIT_MS 500
#define OUTBOX 8
#define LINGER_MS 10000
#define HVC_MAJOR 229   /* Linux's hvc consoles; baremon's virtio /dev/export */
#define ANNOUNCE_MS 1000

static struct link link;
static struct frame_reader reader;
static struct termios saved_tio;
static bool have_tio;
/* Where frames come in and go out: the console, or the device named. */
static int in_fd = STDIN_FILENO, out_fd = STDOUT_FILENO;

/* Messages waiting for room in the link window, oldest first. */
static struct frame outbox[OUTBOX];
static int out_head, out_count;

uint64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* The link's output: one write per frame, so the kernel puts the whole
 * frame on the UART at once (tty_write with OPOST off). */
static void emit(void *ctx, const uint8_t *p, size_t n)
{
	(void)ctx;
	while (n) {
		ssize_t r = write(out_fd, p, n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return;   /* nowhere to write: the host will time out */
		p += r;
		n -= (size_t)r;
	}
}

bool out_send(uint8_t type, uint8_t channel, const void *p, size_t n)
{
	if (out_count == OUTBOX || n > FRAME_MAX_PAYLOAD)
		return false;
	struct frame *f = &outbox[(out_head + out_count++) % OUTBOX];
	f->type = type;
	f->channel = channel;
	f->len = (uint16_t)n;
	if (n)
		memcpy(f->payload, p, n);
	return true;
}

void out_clear(void)
{
	out_head = out_count = 0;
}

bool out_empty(void)
{
	return out_count == 0;
}

void send_result(int err, const char *msg)
{
	uint8_t p[256];
	size_t n = strlen(msg);
	if (n > sizeof(p) - 5)
		n = sizeof(p) - 5;
	put_le32(p, (uint32_t)err);
	memcpy(p + 4, msg, n);
	p[4 + n] = 0;
	out_send(FRAME_RESULT, CHAN_CONTROL, p, n + 5);
}

static void flush_outbox(void)
{
	while (out_count && link_can_send(&link)) {
		struct frame *f = &outbox[out_head];
		link_send(&link, f->type, f->channel, f->payload, f->len, now_ms());
		out_head = (out_head + 1) % OUTBOX;
		out_count--;
	}
}

static void raw_console(void)
{
	struct termios t;
	if (ioctl(in_fd, TCGETS, &t) != 0)
		return;   /* not a terminal (a test pipe): nothing to change */
	saved_tio = t;
	have_tio = true;
	t.c_iflag &= ~(tcflag_t)(IGNBRK | BRKINT | PARMRK | ISTRIP | INLCR |
				 IGNCR | ICRNL | IXON);
	t.c_oflag &= ~(tcflag_t)OPOST;
	t.c_lflag &= ~(tcflag_t)(ECHO | ECHONL | ICANON | ISIG | IEXTEN);
	t.c_cflag = (t.c_cflag & ~(tcflag_t)(CSIZE | PARENB)) | CS8;
	t.c_cc[VMIN] = 1;
	t.c_cc[VTIME] = 0;
	ioctl(in_fd, TCSETSF, &t);
}

static void restore_console(void)
{
	if (have_tio)
		ioctl(in_fd, TCSETS, &saved_tio);
}

/*
 * Frames in flight on our line (wire/link.h): the virtio console (the
 * hvc major, 229, as on Linux) takes LINK_WINDOW_MAX, the kernel's
 * queue holding 64 KiB; a tty's 4 KiB input buffer, or a UART whose
 * 115200 baud drains 1 KiB in 90 ms, takes LINK_WINDOW.
 */
static unsigned line_window(void)
{
	struct stat st;
	if (fstat(in_fd, &st) == 0 && S_ISCHR(st.st_mode) && major(st.st_rdev) == HVC_MAJOR)
		return LINK_WINDOW_MAX;
	return LINK_WINDOW;
}

static bool finished;
static bool power_off;
static int exit_status;
/* --serve: sessions follow one another; dirty once one asked for
 * anything, until the machine is reset. */
static bool serve;
static bool dirty;

/* Between two sessions of --serve: nothing of the last one survives,
 * and the link waits for the next host, announcing itself. */
static void end_session(void)
{
	run_kill();
	files_abort();
	out_clear();
	if (dirty && reset_machine() != 0)
		fprintf(stderr, "agent: the machine was not fully reset (above)\n");
	dirty = false;
	link.up = false;
	link_hello(&link, 0);
}

static void handle(const struct frame *f)
{
	dirty = true;
	switch (f->type) {
	case FRAME_RUN: run_start(f->payload, f->len); break;
	case FRAME_FILE_BEGIN: push_begin(f->payload, f->len); break;
	case FRAME_FILE_DATA: push_data(f->payload, f->len); break;
	case FRAME_FILE_END: push_end(f->payload, f->len); break;
	case FRAME_PULL: pull_start(f->payload, f->len); break;
	case FRAME_SUM: sum_file(f->payload, f->len); break;
	case FRAME_BYE:
		/* The host is done, or was stopped (a signal: status
		 * 128+N) while the command ran: end the command. */
		if (serve) {
			end_session();
			break;
		}
		run_kill();
		finished = true;
		exit_status = f->len >= 4 ? (int)get_le32(f->payload) : 0;
		break;
	case FRAME_POWEROFF:
		/* Acknowledged at once (link_receive); then the RESULT, so
		 * the host knows it was taken, then off. */
		send_result(0, "powering off");
		finished = power_off = true;
		break;
	default: send_result(-EINVAL, "unknown message type"); break;
	}
}

/*
 * A HELLO with a new nonce: another host session. The one before is
 * gone (a tool killed mid-command, say): what it started ends, and
 * nothing of it is sent to the new one.
 */
static void new_session(void)
{
	run_kill();
	files_abort();
	out_clear();
	if (serve && dirty) {
		reset_machine();
		dirty = false;
	}
}

/*
 * Text on the console while the agent runs: the host types "agent" when
 * it takes the line for a shell's (docs/host.md). An agent already
 * running - its last host killed, say - answers that line with its
 * announcement, as a starting one would, so the new host says HELLO at
 * once instead of after its announcement wait. The session is not
 * reset here: the new host's HELLO does that (new_session).
 */
static void console_text(uint8_t b)
{
	static char line[8];
	static unsigned len;
	if (b == '\n' || b == '\r') {
		if (len == 5 && !memcmp(line, "agent", 5))
			link_hello(&link, link.nonce);
		len = 0;
	} else if (len < sizeof(line)) {
		line[len++] = (char)b;
	}
}

static void read_console(void)
{
	uint8_t buf[4096];
	ssize_t n = read(in_fd, buf, sizeof(buf));
	if (n <= 0) {
		if (n == 0)
			finished = true;   /* the console went away */
		return;
	}
	for (ssize_t i = 0; i < n; i++) {
		static struct frame f;
		enum frame_read r = frame_reader_push(&reader, buf[i], &f);
		if (r == READ_TEXT)
			console_text(buf[i]);
		if (r != READ_FRAME)
			continue;
		uint32_t session = link.nonce;
		bool deliver = link_receive(&link, &f, now_ms());
		if (link.nonce != session)
			new_session();
		if (deliver)
			handle(&f);
	}
}

/* Wait for the console, and for the command's pipes when there is room
 * to forward what they hold. */
static void wait_and_serve(long max_wait)
{
	struct pollfd p[3] = { { .fd = in_fd, .events = POLLIN } };
	int n = 1;
	bool room = out_empty() && link_can_send(&link);
	for (int w = 0; w < 2; w++)
		if (room && run_fd(w) >= 0)
			p[n++] = (struct pollfd){ .fd = run_fd(w), .events = POLLIN };
	long wait = link_wait_ms(&link, now_ms());
	if (run_active() && (wait < 0 || wait > 50))
		wait = 50;   /* reap a child whose pipes are closed */
	if (room && pull_active())
		wait = 0;
	if (max_wait >= 0 && (wait < 0 || wait > max_wait))
		wait = max_wait;
	if (poll(p, (nfds_t)n, (int)wait) > 0) {
		if (p[0].revents)
			read_console();
		for (int i = 1; i < n; i++)
			if (p[i].revents)
				run_drain(p[i].fd == run_fd(0) ? 0 : 1);
	}
	if (room && pull_active())
		pull_step();
	run_check_exit();
	flush_outbox();
	link_poll(&link, now_ms());
}

int main(int argc, char **argv)
{
	int arg = 1;
	if (arg < argc && strcmp(argv[arg], "--serve") == 0) {
		serve = true;
		arg++;
	}
	if (arg < argc) {
		int fd = open(argv[arg], O_RDWR | O_CLOEXEC);
		if (fd < 0) {
			fprintf(stderr, "agent: %s: %s\n", argv[arg], strerror(errno));
			return 1;
		}
		in_fd = out_fd = fd;
	}
	if (serve)
		reset_snapshot();
	raw_console();
	link_init(&link, emit, NULL, RETRANSMIT_MS);
	link_set_window(&link, line_window());
	frame_reader_init(&reader);
	link_hello(&link, 0);   /* the announcement: the host may start */
	uint64_t announced = now_ms();
	while (!finished) {
		/* The announcement is repeated until a host answers: one
		 * lost on the line (or, for a warm target, sent while no
		 * host was connected) costs a second, not the host's wait. */
		if (!link.up && now_ms() - announced >= ANNOUNCE_MS) {
			link_hello(&link, 0);
			announced = now_ms();
		}
		wait_and_serve(!link.up ? ANNOUNCE_MS : -1);
	}
	/* Deliver what is still queued; give up on a host that has gone.
	 * Exit at once after that: the next host session may already be
	 * typing at the shell. */
	uint64_t end = now_ms() + LINGER_MS;
	while (now_ms() < end && (!out_empty() || !link_idle(&link)))
		wait_and_serve(100);
	run_kill();   /* a host that left without waiting for the EXIT */
	restore_console();
	if (power_off) {
		syscall(SYS_reboot, LINUX_REBOOT_MAGIC1, LINUX_REBOOT_MAGIC2,
			LINUX_REBOOT_CMD_POWER_OFF, 0);
		fprintf(stderr, "agent: power off: %s\n", strerror(errno));
		return 1;
	}
	return exit_status;
}
