/* Deliberate kernel faults, for testing the panic report
 * (command line fault=KIND, or the `fault` command). */
#ifndef BAREMON_FAULT_H
#define BAREMON_FAULT_H

#include <stdbool.h>

#define FAULT_KINDS "pagefault|gp|ud|divide|stack|panic"

bool fault_kind_valid(const char *kind);
/* Trigger it; does not return for a valid kind. */
void fault_inject(const char *kind);

#endif
