/* The HPET main counter, used as a reference clock for TSC calibration. */
#ifndef BAREMON_HPET_H
#define BAREMON_HPET_H

#include <stdbool.h>
#include <stdint.h>

/* Map and start the HPET found by ACPI; false if there is none. */
bool hpet_init(void);
bool hpet_present(void);
uint64_t hpet_read(void);
uint64_t hpet_hz(void);

#endif
