/* PCI configuration mechanism #1; see pci.h. */
#include "pci.h"
#include "core/arch/x86.h"

#define PCI_ADDR 0xcf8
#define PCI_DATA 0xcfc

static uint32_t pci_address(unsigned bus, unsigned dev, unsigned fn, unsigned reg)
{
	return 0x80000000u | bus << 16 | dev << 11 | fn << 8 | (reg & 0xfc);
}

uint32_t pci_read(unsigned bus, unsigned dev, unsigned fn, unsigned reg)
{
	outl(PCI_ADDR, pci_address(bus, dev, fn, reg));
	return inl(PCI_DATA);
}

void pci_write(unsigned bus, unsigned dev, unsigned fn, unsigned reg, uint32_t v)
{
	outl(PCI_ADDR, pci_address(bus, dev, fn, reg));
	outl(PCI_DATA, v);
}
