/* I/O APIC routing of legacy ISA interrupts (the UART's, today). */
#ifndef BAREMON_IOAPIC_H
#define BAREMON_IOAPIC_H

#include <stdint.h>

/* Route ISA irq (after ACPI overrides) to `vector` on the boot CPU. */
int ioapic_route_isa(unsigned irq, unsigned vector);

#endif
