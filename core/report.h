/* baremon's /proc/baremon files. See report.c. */
#ifndef BAREMON_REPORT_H
#define BAREMON_REPORT_H

struct seqbuf;

void report_init(void);
/* The `cpus` text (also used by the rescue shell's command). */
int report_cpus(struct seqbuf *out, void *arg);

#endif
