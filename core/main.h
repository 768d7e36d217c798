/* The kernel's C entry point. See main.c. */
#ifndef BAREMON_MAIN_H
#define BAREMON_MAIN_H

struct boot_info;

/* Called once by arch/entry.asm on the boot CPU with the loader's
 * hand-off; never returns. */
void kmain(struct boot_info *bi);

#endif
