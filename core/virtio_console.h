/*
 * The virtio console (QEMU's virtio-serial-pci with a virtconsole port,
 * legacy PCI interface, device 1af4:1003): a byte stream to the host
 * with no per-byte cost. A buffer of up to VCON_BUF bytes goes to the
 * host with one register write; the host fills receive buffers as its
 * data arrives. QEMU's 16550 moves one byte per register access, and
 * each transmitted byte is a write() on the host: this port is what
 * makes a megabyte a second possible (docs/export.md).
 *
 * Port 0 only, without VIRTIO_CONSOLE_F_MULTIPORT: the device then
 * takes the port as open once the driver is ready. Polled, no
 * interrupt. Locking: none here; its one user (the export thread,
 * export/serial_export.c) calls it from one thread.
 */
#ifndef BAREMON_VIRTIO_CONSOLE_H
#define BAREMON_VIRTIO_CONSOLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define VCON_BUF 4096   /* bytes a buffer: one page */

/* Find the first virtio console on PCI and start it (after vm_init and
 * the page allocator). False when there is none or it fails. */
bool vcon_init(void);
/* "PCI 00:03.0, 128 slots" into buf. */
void vcon_describe(char *buf, size_t size);
/* Copy up to max received bytes into dst; the buffers emptied go back
 * to the device. Returns the byte count (0: nothing waiting). */
size_t vcon_read(uint8_t *dst, size_t max);
/* A free transmit buffer of VCON_BUF bytes to fill, or NULL while the
 * host has not taken the ones sent (its socket is full). */
uint8_t *vcon_tx_buffer(void);
/* Hand the buffer vcon_tx_buffer gave, with its first n bytes, to the
 * device. Nothing moves until vcon_tx_kick(). */
void vcon_tx_submit(size_t n);
/* Tell the device about the buffers submitted since the last kick. */
void vcon_tx_kick(void);
/* Bytes submitted that the host has not yet taken. */
size_t vcon_tx_pending(void);

#endif
