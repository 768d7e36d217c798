/*
 * RDPMC on the model. QEMU TCG has no RDPMC: at CPL 3 with CR4.PCE
 * clear it raises #GP (as the real instruction does), otherwise #UD. The
 * #UD handler here finishes the instruction from the model with the real
 * one's semantics (Intel SDM vol. 2, RDPMC): ECX[30] selects the fixed
 * counters, ECX[29:0] the counter, ECX[31] a fast read of the low 32
 * bits (on the amd mode, ECX 0-5 the core counters); EDX:EAX gets the value; an invalid counter, or CPL 3 without
 * CR4.PCE, is #GP. So a program that reads its counters the Linux way
 * (the control page and RDPMC) runs unchanged under TCG.
 *
 * Any other #UD goes on to the previous handler (SIGILL, or a panic in
 * the kernel). Runs with interrupts off, on the faulting CPU.
 */
#include "core/arch/trap.h"
#include "core/arch/x86.h"
#include "core/kernel.h"
#include "core/mm/uaccess.h"
#include "pmu/x86/msr.h"
#include "mode.h"

#define CR4_PCE (1ULL << 8)
#define VEC_GP 13
#define RDPMC_FAST (1u << 31)

static trap_handler next_ud_handler;

static bool is_rdpmc(const struct trap_frame *f)
{
	uint8_t b[2];
	if ((f->cs & 3) == 3) {
		if (copy_from_user(b, (const void *)f->rip, 2))
			return false;
	} else {
		b[0] = ((const uint8_t *)f->rip)[0];
		b[1] = ((const uint8_t *)f->rip)[1];
	}
	return b[0] == 0x0f && b[1] == 0x33;
}

/* Is the user entry at f an RDPMC's #UD, which the model finishes (its
 * own trap: hardware has none)? */
bool vpmu_rdpmc_trap(const struct trap_frame *f)
{
	return f->vector == VEC_INVALID_OP && (f->cs & 3) == 3 && is_rdpmc(f);
}

/* The MSR of the counter ECX selects, as the mode reads ECX; 0: none. */
static uint32_t counter_msr(uint32_t ecx)
{
	return vpmu_mode->rdpmc_msr(vpmu_this_shape(), ecx);
}

static void general_protection(struct trap_frame *f)
{
	f->vector = VEC_GP;
	f->error = 0;
	trap_get_handler(VEC_GP)(f);
}

static void ud_trap(struct trap_frame *f)
{
	if (!is_rdpmc(f)) {
		if (next_ud_handler)
			next_ud_handler(f);
		return;
	}
	bool user = (f->cs & 3) == 3;
	uint32_t ecx = (uint32_t)f->rcx, msr = counter_msr(ecx);
	if ((user && !(read_cr4() & CR4_PCE)) || !msr) {
		general_protection(f);
		return;
	}
	uint64_t v = vpmu_rdmsr(msr);
	if ((ecx & RDPMC_FAST) && !vpmu_mode->amd)
		v &= 0xffffffffULL;
	f->rax = v & 0xffffffffULL;
	f->rdx = v >> 32;
	f->rip += 2;
	if (user)
		vpmu_emulated_user_insn();
}

void vpmu_rdpmc_init(void)
{
	next_ud_handler = trap_get_handler(VEC_INVALID_OP);
	trap_set_handler(VEC_INVALID_OP, ud_trap);
}
