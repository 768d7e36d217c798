/*
 * The virtio console, legacy PCI interface; see virtio_console.h.
 *
 * Two virtqueues: 0 receives (the host fills our buffers), 1 transmits.
 * Descriptor i of a queue always describes buffer i of that queue (one
 * page each), so a used entry's id names its buffer. Invariants: a
 * receive buffer is either posted to the device or being copied out
 * (rx_off bytes of it taken); a transmit buffer is free (on tx_free),
 * being filled (tx_cur), or owned by the device until it appears in
 * the used ring.
 */
#include <stdio.h>
#include <string.h>
#include <linux/virtio_config.h>
#include <linux/virtio_pci.h>
#include <linux/virtio_ring.h>
#include "virtio_console.h"
#include "log.h"
#include "pci.h"
#include "core/arch/x86.h"
#include "core/mm/mm.h"

#define VIRTIO_VENDOR     0x1af4
#define VCON_LEGACY_ID    0x1003   /* transitional virtio console */
#define PCI_CMD_IO        0x1
#define PCI_CMD_MASTER    0x4
#define RX_BUFS 16   /* 64 KiB the host may send ahead of our reads */
#define TX_BUFS 16   /* 64 KiB on the way to the host */

struct vq {
	struct vring r;
	uint16_t index;      /* queue number */
	uint16_t avail;      /* next avail->idx to publish */
	uint16_t used;       /* used entries taken so far */
	uint8_t *bufs;       /* buffer i at bufs + i * VCON_BUF */
};

static uint16_t io;      /* BAR0, the legacy register block */
static struct vq rx, tx;
static size_t rx_off;                    /* bytes taken from the oldest used rx buffer */
static uint16_t tx_free[TX_BUFS], tx_nfree;
static int tx_cur = -1;                  /* buffer handed out by vcon_tx_buffer */
static uint32_t tx_len[TX_BUFS];
static size_t tx_pending;
static char where[40];

static bool find_device(unsigned *bus, unsigned *dev, unsigned *fn)
{
	for (unsigned b = 0; b < 256; b++)
		for (unsigned d = 0; d < 32; d++)
			for (unsigned f = 0; f < 8; f++) {
				uint32_t id = pci_read(b, d, f, 0);
				if ((id & 0xffff) == 0xffff) {
					if (f == 0)
						break;
					continue;
				}
				if (id == (VCON_LEGACY_ID << 16 | VIRTIO_VENDOR)) {
					*bus = b, *dev = d, *fn = f;
					return true;
				}
				if (f == 0 && !((pci_read(b, d, 0, 0x0c) >> 16) & 0x80))
					break;   /* not multi-function */
			}
	return false;
}

/* Give queue q its ring and nbufs page buffers (descriptor i = buffer i). */
static bool setup_queue(struct vq *q, uint16_t index, unsigned nbufs, uint16_t flags)
{
	outw(io + VIRTIO_PCI_QUEUE_SEL, index);
	unsigned num = inw(io + VIRTIO_PCI_QUEUE_NUM);
	if (num < nbufs)
		return false;
	size_t pages = (vring_size(num, VIRTIO_PCI_VRING_ALIGN) + PAGE_SIZE - 1) / PAGE_SIZE;
	uint64_t ring = pmm_alloc_pages(pages);            /* zeroed */
	uint64_t bufs = pmm_alloc_pages(nbufs * VCON_BUF / PAGE_SIZE);
	if (!ring || !bufs || (ring >> VIRTIO_PCI_QUEUE_ADDR_SHIFT) >> 32)
		return false;
	vring_init(&q->r, num, phys_to_virt(ring), VIRTIO_PCI_VRING_ALIGN);
	q->index = index;
	q->bufs = phys_to_virt(bufs);
	for (unsigned i = 0; i < nbufs; i++)
		q->r.desc[i] = (struct vring_desc){ .addr = bufs + (uint64_t)i * VCON_BUF,
						    .len = VCON_BUF, .flags = flags };
	q->r.avail->flags = VRING_AVAIL_F_NO_INTERRUPT;   /* we poll */
	outl(io + VIRTIO_PCI_QUEUE_PFN, (uint32_t)(ring >> VIRTIO_PCI_QUEUE_ADDR_SHIFT));
	return true;
}

static void post(struct vq *q, uint16_t id)
{
	q->r.avail->ring[q->avail++ % q->r.num] = id;
}

/* Publish what post() added, then tell the device. */
static void kick(struct vq *q)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST);   /* ring entries before the index */
	__atomic_store_n(&q->r.avail->idx, q->avail, __ATOMIC_RELEASE);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	outw(io + VIRTIO_PCI_QUEUE_NOTIFY, q->index);
}

static bool used_waiting(const struct vq *q)
{
	return __atomic_load_n(&q->r.used->idx, __ATOMIC_ACQUIRE) != q->used;
}

bool vcon_init(void)
{
	unsigned bus, dev, fn;
	if (!find_device(&bus, &dev, &fn))
		return false;
	uint32_t bar = pci_read(bus, dev, fn, 0x10);
	if (!(bar & 1))
		return false;   /* the legacy interface is an I/O BAR */
	io = (uint16_t)(bar & ~3u);
	uint32_t cmd = pci_read(bus, dev, fn, 0x04);
	pci_write(bus, dev, fn, 0x04, cmd | PCI_CMD_IO | PCI_CMD_MASTER);
	outb(io + VIRTIO_PCI_STATUS, 0);   /* reset */
	outb(io + VIRTIO_PCI_STATUS, VIRTIO_CONFIG_S_ACKNOWLEDGE | VIRTIO_CONFIG_S_DRIVER);
	/* No features: without MULTIPORT the device opens port 0 itself
	 * once we are ready, and needs no control queue. */
	(void)inl(io + VIRTIO_PCI_HOST_FEATURES);
	outl(io + VIRTIO_PCI_GUEST_FEATURES, 0);
	if (!setup_queue(&rx, 0, RX_BUFS, VRING_DESC_F_WRITE) || !setup_queue(&tx, 1, TX_BUFS, 0)) {
		outb(io + VIRTIO_PCI_STATUS, VIRTIO_CONFIG_S_FAILED);
		return false;
	}
	for (uint16_t i = 0; i < RX_BUFS; i++)
		post(&rx, i);
	for (uint16_t i = 0; i < TX_BUFS; i++)
		tx_free[tx_nfree++] = i;
	outb(io + VIRTIO_PCI_STATUS, VIRTIO_CONFIG_S_ACKNOWLEDGE | VIRTIO_CONFIG_S_DRIVER |
					     VIRTIO_CONFIG_S_DRIVER_OK);
	kick(&rx);
	snprintf(where, sizeof(where), "PCI %02x:%02x.%u, io %#x", bus, dev, fn, io);
	return true;
}

void vcon_describe(char *buf, size_t size)
{
	snprintf(buf, size, "%s", where);
}

size_t vcon_read(uint8_t *dst, size_t max)
{
	size_t n = 0;
	bool reposted = false;
	while (n < max && used_waiting(&rx)) {
		struct vring_used_elem *e = &rx.r.used->ring[rx.used % rx.r.num];
		uint32_t id = e->id, len = e->len;
		if (id >= RX_BUFS || len > VCON_BUF)
			len = 0;   /* a device bug: drop the entry, keep the buffer */
		size_t k = len - rx_off < max - n ? len - rx_off : max - n;
		memcpy(dst + n, rx.bufs + (size_t)id * VCON_BUF + rx_off, k);
		n += k;
		rx_off += k;
		if (rx_off < len)
			break;   /* dst is full; the rest next time */
		rx_off = 0;
		rx.used++;
		if (id < RX_BUFS) {
			post(&rx, (uint16_t)id);
			reposted = true;
		}
	}
	if (reposted)
		kick(&rx);
	return n;
}

/* Take back the transmit buffers the host has written out. */
static void reap_tx(void)
{
	while (used_waiting(&tx)) {
		uint32_t id = tx.r.used->ring[tx.used % tx.r.num].id;
		tx.used++;
		if (id >= TX_BUFS)
			continue;
		tx_pending -= tx_len[id];
		tx_len[id] = 0;
		tx_free[tx_nfree++] = (uint16_t)id;
	}
}

uint8_t *vcon_tx_buffer(void)
{
	if (tx_cur < 0) {
		reap_tx();
		if (!tx_nfree)
			return NULL;
		tx_cur = tx_free[--tx_nfree];
	}
	return tx.bufs + (size_t)tx_cur * VCON_BUF;
}

void vcon_tx_submit(size_t n)
{
	if (tx_cur < 0)
		return;
	uint16_t id = (uint16_t)tx_cur;
	tx_cur = -1;
	if (!n) {
		tx_free[tx_nfree++] = id;
		return;
	}
	tx.r.desc[id].len = (uint32_t)n;
	tx_len[id] = (uint32_t)n;
	tx_pending += n;
	post(&tx, id);
}

void vcon_tx_kick(void)
{
	if (tx.avail != __atomic_load_n(&tx.r.avail->idx, __ATOMIC_RELAXED))
		kick(&tx);
}

size_t vcon_tx_pending(void)
{
	reap_tx();
	return tx_pending;
}
