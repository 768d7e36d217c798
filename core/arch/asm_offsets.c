/*
 * Structure offsets for the assembly entry code. Not linked: the build
 * compiles it to assembly (-S) and turns each "->NAME value" marker into
 * a NASM %define in $(BUILD)/kernel/asm_offsets.inc, so the offsets
 * follow struct task whatever its layout (the debug kernel's differs).
 */
#include <stddef.h>
#include "core/proc/ptrace.h"
#include "core/proc/task.h"

#define DEFINE(name, value) \
	__asm__ volatile("\n.ascii \"->" #name " %c0\"" : : "i"(value))

void asm_offsets(void);
void asm_offsets(void)
{
	DEFINE(TASK_WORK, offsetof(struct task, work));
	DEFINE(TASK_PT_FLAGS, offsetof(struct task, pt.flags));
}
