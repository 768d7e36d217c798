/* Stopping the machine. See power.c. */
#ifndef BAREMON_POWER_H
#define BAREMON_POWER_H

#include "core/kernel.h"

/* Print "baremon: exit status N", then leave: QEMU's isa-debug-exit when
 * the command line names its port (qemu_exit=0xf4), else ACPI S5, else
 * halt forever. */
void machine_exit(int status) __noreturn;

/* After a panic report: exit like machine_exit, or halt when the command
 * line says panic=halt (the default when no qemu_exit port is set, so the
 * report stays on a real machine's screen). */
void machine_stop_after_panic(int status) __noreturn;

#endif
