/*
 * agent: the guest end of the export protocol (docs/export.md). It runs
 * on the console in raw mode, speaks frames through wire/link.c and
 * does what the host asks: run a command with its output streamed, take
 * a pushed file, send a pulled one, exit.
 *
 * One thread, one poll loop (main.c). Messages to send go through a
 * small outbox so a handler never blocks on a full link window; the
 * sources that produce many messages (a command's pipes, a pulled file)
 * are read only when the outbox is empty.
 */
#ifndef AGENT_H
#define AGENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "wire/link.h"

/* Milliseconds of CLOCK_MONOTONIC. */
uint64_t now_ms(void);

/* Queue a message for the host (main.c). False when the outbox is full. */
bool out_send(uint8_t type, uint8_t channel, const void *p, size_t n);
void out_clear(void);
bool out_empty(void);
void send_result(int err, const char *msg);

/* run.c: the running command, at most one. */
void run_start(const uint8_t *argv_block, size_t n);
bool run_active(void);
/* Descriptors to poll (-1 when none) and what to do when they are ready. */
int run_fd(int which);        /* which: 0 stdout pipe, 1 stderr pipe */
void run_drain(int which);    /* read and forward one chunk */
void run_check_exit(void);    /* reap the child once its pipes are closed */
void run_kill(void);          /* end the command and its process group, no EXIT */

/* files.c: push (host to guest) and pull (guest to host). */
void push_begin(const uint8_t *p, size_t n);
void push_data(const uint8_t *p, size_t n);
void push_end(const uint8_t *p, size_t n);
void pull_start(const uint8_t *p, size_t n);
bool pull_active(void);
void files_abort(void);        /* drop a push or pull in progress */
void pull_step(void);          /* send the next chunk (or the end) */
/* FRAME_SUM: the size and CRC-32C of a file, for the host to push only
 * what differs (host/dynpush.c). */
void sum_file(const uint8_t *p, size_t n);

/* reset.c: the warm target's fresh machine between sessions (--serve).
 * reset_snapshot keeps the boot's sysctl values; reset_machine ends
 * every other process, empties /tmp and restores them: the problems
 * (said on stderr), 0 when the machine is as booted. */
void reset_snapshot(void);
int reset_machine(void);

#endif
