/*
 * Task allocation, identifiers and the task list.
 *
 * Locking: task_lock (irqsave) protects all_tasks, tid allocation and the
 * family links (parent, children, sibling, threads) of every task.
 */
#include <string.h>
#include "core/cmdline.h"
#include "core/kernel.h"
#include "core/mm/kstack.h"
#include "core/mm/mm.h"
#include "sched.h"
#include "task.h"
#include "tasks.h"
#include "core/arch/switch.h"
#include "core/arch/tsc.h"

struct spinlock task_lock = SPINLOCK_INIT("tasks");
static struct list all_tasks = LIST_INIT(all_tasks);
static int next_tid = 1;


static bool tid_in_use(int tid)
{
	list_for_each(n, &all_tasks)
		if (list_entry(n, struct task, all_node)->tid == tid)
			return true;
	return false;
}

/* Caller holds task_lock. Tids wrap at PID_MAX and skip live ones; 0
 * when every one is taken (fork then fails with EAGAIN, as Linux). */
static int alloc_tid(void)
{
	for (int tries = 0; tries < PID_MAX; tries++) {
		int tid = next_tid++;
		if (next_tid >= PID_MAX)
			next_tid = 2;
		if (!tid_in_use(tid))
			return tid;
	}
	return 0;
}

/* What every task starts with, whatever it is for. */
static void init_fields(struct task *t, uint64_t kstack, uint8_t *fpu,
			const char *comm)
{
	t->kstack = kstack;
	t->fpu = fpu;
	fpu_init_state(t);
	t->migrate_to = -1;
	list_init(&t->run_node);
	list_init(&t->children);
	list_init(&t->sibling);
	list_init(&t->threads);
	list_init(&t->thread_node);
	waitq_init(&t->child_exit);
	list_init(&t->perf_events);
	list_init(&t->perf_owned);
	list_init(&t->itimer_node);
	ptrace_task_init(t);
	t->perf_last_cpu = -1;
	t->perf_cpu = -1;
	rlimits_init(t->rlimits);
	strlcpy(t->comm, comm, sizeof(t->comm));
	t->start_ns = time_since_boot_ns();
}

struct task *task_alloc(const char *comm)
{
	struct task *t = kzalloc(sizeof(*t));
	uint64_t stack = kstack_alloc(KSTACK_SIZE);
	uint8_t *fpu = kmalloc(FPU_AREA_SIZE);
	if (!t || !stack || !fpu) {
		kfree(t);
		kfree(fpu);
		if (stack)
			kstack_free(stack, KSTACK_SIZE);
		return NULL;
	}
	init_fields(t, stack, fpu, comm);
	t->state = TASK_SLEEPING_UNINT; /* not runnable until sched_start */
	cpumask_setall(&t->affinity);
	t->on_cpu = -1;

	uint64_t f = spin_lock_irqsave(&task_lock);
	t->tid = t->tgid = alloc_tid();
	if (t->tid)
		list_add_tail(&t->all_node, &all_tasks);
	spin_unlock_irqrestore(&task_lock, f);
	if (!t->tid) {
		kstack_free(stack, KSTACK_SIZE);
		kfree(fpu);
		kfree(t);
		return NULL;
	}
	return t;
}

void task_unlist(struct task *t)
{
	uint64_t f = spin_lock_irqsave(&task_lock);
	if (!t->unlisted) {
		list_remove(&t->all_node);
		t->unlisted = true;
	}
	spin_unlock_irqrestore(&task_lock, f);
	while (__atomic_load_n(&t->pins, __ATOMIC_ACQUIRE))
		cpu_relax(); /* a sender finishing with it; it does not sleep */
}

void task_pin(struct task *t)
{
	__atomic_add_fetch(&t->pins, 1, __ATOMIC_ACQ_REL);
}

void task_unpin(struct task *t)
{
	__atomic_sub_fetch(&t->pins, 1, __ATOMIC_ACQ_REL);
}

void task_free_stack(struct task *t)
{
	if (t->kstack)
		kstack_free(t->kstack, KSTACK_SIZE);
	kfree(t->fpu);
	t->kstack = 0;
	t->fpu = NULL;
	t->frame = NULL; /* it lived on that stack */
}

void task_free(struct task *t)
{
	task_unlist(t);
	task_free_stack(t);
	kfree(t);
}

/*
 * A test aid (task_find_spin=N on the command line, docs/cmdline.md):
 * spin N loops after a lookup by tid drops task_lock, so that the task
 * found may exit and be reaped meanwhile; a caller that uses it without
 * a pin then reads freed memory at once instead of once in many runs
 * (tests/abi/pidrace.c). task_find_pinned spins with its pin held, and
 * the reaper waits. Read on the boot CPU before the others start.
 */
static uint64_t find_spin;

static void find_spin_wait(void)
{
	for (volatile uint64_t i = 0; i < find_spin; i++)
		;
}

struct task *task_find(int tid)
{
	struct task *found = NULL;
	uint64_t f = spin_lock_irqsave(&task_lock);
	list_for_each(n, &all_tasks) {
		struct task *t = list_entry(n, struct task, all_node);
		if (t->tid == tid && t->state != TASK_DEAD) {
			found = t;
			break;
		}
	}
	spin_unlock_irqrestore(&task_lock, f);
	if (find_spin && found)
		find_spin_wait();
	return found;
}

struct task *task_find_pinned(int tid)
{
	struct task *found = NULL;
	uint64_t f = spin_lock_irqsave(&task_lock);
	list_for_each(n, &all_tasks) {
		struct task *t = list_entry(n, struct task, all_node);
		if (t->tid == tid && t->state != TASK_DEAD) {
			found = t;
			task_pin(t);
			break;
		}
	}
	spin_unlock_irqrestore(&task_lock, f);
	if (find_spin && found)
		find_spin_wait();
	return found;
}

int task_list_pids(int *out, int max)
{
	int n = 0;
	uint64_t f = spin_lock_irqsave(&task_lock);
	list_for_each(node, &all_tasks) {
		struct task *t = list_entry(node, struct task, all_node);
		if (t->tid == t->tgid && t->tid > 0 && t->state != TASK_DEAD && n < max)
			out[n++] = t->tid;
	}
	spin_unlock_irqrestore(&task_lock, f);
	return n;
}

void task_for_each(void (*fn)(struct task *t, void *ctx), void *ctx)
{
	uint64_t f = spin_lock_irqsave(&task_lock);
	list_for_each(n, &all_tasks)
		fn(list_entry(n, struct task, all_node), ctx);
	spin_unlock_irqrestore(&task_lock, f);
}

/*
 * Lay out a new task's kernel stack so that its first context_switch
 * "returns" into task_trampoline with r12 = fn and r13 = arg; above that
 * sits the trap frame a user task leaves the kernel through.
 */
struct trap_frame *task_prepare_stack(struct task *t, int (*fn)(void *), void *arg)
{
	uint64_t top = t->kstack + KSTACK_SIZE;
	struct trap_frame *frame = (struct trap_frame *)top - 1;
	memset(frame, 0, sizeof(*frame));
	uint64_t *sp = (uint64_t *)frame;
	*--sp = (uint64_t)task_trampoline;
	*--sp = 0;                 /* rbp */
	*--sp = 0;                 /* rbx */
	*--sp = (uint64_t)fn;      /* r12 */
	*--sp = (uint64_t)arg;     /* r13 */
	*--sp = 0;                 /* r14 */
	*--sp = 0;                 /* r15 */
	t->ksp = (uint64_t)sp;
	t->frame = frame;
	return frame;
}

struct task *kthread_create(int (*fn)(void *), void *arg, const char *name)
{
	struct task *t = task_alloc(name);
	if (!t)
		return NULL;
	t->tgid = t->tid;
	task_prepare_stack(t, fn, arg);
	return t;
}

void kthread_exit(int code)
{
	struct task *self = current;
	self->exit_code = code;
	irq_disable();
	self->state = TASK_DEAD;
	schedule(); /* sched_finish frees us once we are off this stack */
	panic("kthread_exit: a dead task ran again");
}

struct task *task_create_idle(unsigned cpu, uint64_t stack_base)
{
	struct task *t = kzalloc(sizeof(*t));
	uint8_t *fpu = kmalloc(FPU_AREA_SIZE);
	BUG_ON(!t || !fpu);
	init_fields(t, stack_base, fpu, "swapper");
	t->tid = t->tgid = 0; /* as on Linux, idle is pid 0 */
	if (cpu == 0)
		find_spin = cmdline_get_u64("task_find_spin", 0);
	t->affinity = cpumask_of(cpu);
	uint64_t f = spin_lock_irqsave(&task_lock);
	list_add_tail(&t->all_node, &all_tasks);
	spin_unlock_irqrestore(&task_lock, f);
	return t;
}
