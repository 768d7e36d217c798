/* The export UART's transmit path and thread; see serial_export.c. */
#ifndef BAREMON_SERIAL_EXPORT_H
#define BAREMON_SERIAL_EXPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Queue n bytes for the export UART, all or nothing: false when there
 * is no export UART or no room (the caller keeps them and retries). */
bool serial_export_put(const void *p, size_t n);
size_t serial_export_room(void);
/* Should the exporter pack records (wire/pack.h)? export_pack=0|1, or
 * by default where the line is a UART (the console or export=ttySN),
 * not on the virtio console, which has no baud rate to save. */
bool serial_export_wants_packing(void);
/* A whole frame's wire bytes for the frame stream: queued to the export
 * UART (false when there is no room: the caller keeps them), or, with
 * no export UART, written to the console under its lock (the export
 * thread, CPU 0, waits for the UART). */
bool serial_export_send(const void *p, size_t n);
/* fn runs on the export thread each round (the kernel's exporter);
 * it returns whether it sent anything. */
void serial_export_set_producer(bool (*fn)(void));
/* ns the export thread spent in rounds that moved bytes (frames made,
 * bytes sent or received), since boot: the exporter's cost. */
uint64_t serial_export_busy_ns(void);
/* Start the export thread on CPU 0 if it is not running (process
 * context, after the scheduler is up). */
void serial_export_start_thread(void);

#endif
