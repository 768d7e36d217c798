/*
 * PCI configuration space through the legacy mechanism #1 ports (0xcf8
 * address, 0xcfc data), which every PC chipset and QEMU provide. Used
 * by the device finders (serial_discover.c, virtio_console.c); no
 * locking: they run once, on the boot CPU, before other users.
 */
#ifndef BAREMON_PCI_H
#define BAREMON_PCI_H

#include <stdint.h>

uint32_t pci_read(unsigned bus, unsigned dev, unsigned fn, unsigned reg);
void pci_write(unsigned bus, unsigned dev, unsigned fn, unsigned reg, uint32_t v);

#endif
