/*
 * The PS/2 keyboard (i8042 controller) as a second console input: keys
 * become bytes for the console terminal, as if typed on the serial line.
 * The rescue path for a machine with a screen and no serial port; most
 * PC firmware also presents a USB keyboard this way (legacy emulation).
 */
#ifndef BAREMON_KBD_H
#define BAREMON_KBD_H

#include <stdbool.h>

/* Find the controller and take its keyboard interrupt (IRQ 1). False
 * when there is no controller, no I/O APIC route, or kbd=off. */
bool kbd_init(void);

#endif
