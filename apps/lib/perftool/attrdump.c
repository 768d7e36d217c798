/*
 * -v: each perf_event_open call in the layout of perf's -vv, the
 * non-zero fields of the attr in perf's order and the call's result:
 *   ------------------------------------------------------------
 *   perf_event_attr:
 *     type                             1
 *     size                             128
 *     { sample_period, sample_freq }   4000
 *     sample_type                      IP|TID|TIME|PERIOD
 *   ...
 *   ------------------------------------------------------------
 *   sys_perf_event_open: pid 123  cpu -1  group_fd -1  flags 0x8 = 3
 * type and size are printed even when 0 (perf leaves out a type of 0).
 */
#include <stdio.h>
#include <string.h>
#include "perftool.h"

static const char rule[] = "------------------------------------------------------------\n";

struct bit_name {
	uint64_t bit;
	const char *name;
};

#define S(n) { PERF_SAMPLE_##n, #n }
static const struct bit_name sample_bits[] = {
	S(IP), S(TID), S(TIME), S(ADDR), S(READ), S(CALLCHAIN), S(ID), S(CPU), S(PERIOD),
	S(STREAM_ID), S(RAW), S(BRANCH_STACK), S(REGS_USER), S(STACK_USER), S(IDENTIFIER),
	S(REGS_INTR), S(DATA_SRC), S(WEIGHT), S(PHYS_ADDR), S(AUX), S(CGROUP),
	S(DATA_PAGE_SIZE), S(CODE_PAGE_SIZE), S(WEIGHT_STRUCT), { 0, NULL },
};
#undef S
#define F(n) { PERF_FORMAT_##n, #n }
static const struct bit_name format_bits[] = {
	F(TOTAL_TIME_ENABLED), F(TOTAL_TIME_RUNNING), F(ID), F(GROUP), F(LOST), { 0, NULL },
};
#undef F

static void line(const char *name, const char *value)
{
	fprintf(stderr, "  %-32s %s\n", name, value);
}

static void num(const char *name, unsigned long long v)
{
	char buf[32];
	if (v) {
		snprintf(buf, sizeof buf, "%llu", v);
		line(name, buf);
	}
}

static void hex(const char *name, unsigned long long v)
{
	char buf[32];
	if (v) {
		snprintf(buf, sizeof buf, "0x%llx", v);
		line(name, buf);
	}
}

static void bits(const char *name, uint64_t v, const struct bit_name *b)
{
	char buf[256] = "";
	if (!v)
		return;
	for (; b->name; b++) {
		if (v & b->bit) {
			if (buf[0])
				strlcat(buf, "|", sizeof buf);
			strlcat(buf, b->name, sizeof buf);
		}
	}
	line(name, buf);
}

static void flags(const struct perf_event_attr *a)
{
	num("disabled", a->disabled);             num("inherit", a->inherit);
	num("pinned", a->pinned);                 num("exclusive", a->exclusive);
	num("exclude_user", a->exclude_user);     num("exclude_kernel", a->exclude_kernel);
	num("exclude_hv", a->exclude_hv);         num("exclude_idle", a->exclude_idle);
	num("mmap", a->mmap);                     num("comm", a->comm);
	num("freq", a->freq);                     num("inherit_stat", a->inherit_stat);
	num("enable_on_exec", a->enable_on_exec); num("task", a->task);
	num("watermark", a->watermark);           num("precise_ip", a->precise_ip);
	num("mmap_data", a->mmap_data);           num("sample_id_all", a->sample_id_all);
	num("exclude_host", a->exclude_host);     num("exclude_guest", a->exclude_guest);
	num("exclude_callchain_kernel", a->exclude_callchain_kernel);
	num("exclude_callchain_user", a->exclude_callchain_user);
	num("mmap2", a->mmap2);                   num("comm_exec", a->comm_exec);
	num("use_clockid", a->use_clockid);       num("context_switch", a->context_switch);
	num("write_backward", a->write_backward); num("namespaces", a->namespaces);
	num("ksymbol", a->ksymbol);               num("bpf_event", a->bpf_event);
	num("aux_output", a->aux_output);         num("cgroup", a->cgroup);
	num("text_poke", a->text_poke);           num("build_id", a->build_id);
	num("inherit_thread", a->inherit_thread); num("remove_on_exec", a->remove_on_exec);
	num("sigtrap", a->sigtrap);
}

static void rest(const struct perf_event_attr *a)
{
	num("{ wakeup_events, wakeup_watermark }", a->wakeup_events);
	num("bp_type", a->bp_type);
	hex("{ bp_addr, config1 }", a->config1);
	hex("{ bp_len, config2 }", a->config2);
	hex("branch_sample_type", a->branch_sample_type);
	hex("sample_regs_user", a->sample_regs_user);
	num("sample_stack_user", a->sample_stack_user);
	num("clockid", (unsigned)a->clockid);
	hex("sample_regs_intr", a->sample_regs_intr);
	num("aux_watermark", a->aux_watermark);
	num("sample_max_stack", a->sample_max_stack);
	num("aux_sample_size", a->aux_sample_size);
	num("sig_data", a->sig_data);
}

void attr_dump_attr(const struct perf_event_attr *a)
{
	fputs(rule, stderr);
	fputs("perf_event_attr:\n", stderr);
	fprintf(stderr, "  %-32s %u\n", "type", a->type);
	fprintf(stderr, "  %-32s %u\n", "size", a->size);
	hex("config", a->config);
	num("{ sample_period, sample_freq }", a->sample_period);
	bits("sample_type", a->sample_type, sample_bits);
	bits("read_format", a->read_format, format_bits);
	flags(a);
	rest(a);
	fputs(rule, stderr);
}

void attr_dump_call(pid_t pid, int cpu, int group_fd, unsigned long fl, int result, int err)
{
	fprintf(stderr, "sys_perf_event_open: pid %d  cpu %d  group_fd %d  flags 0x%lx", pid, cpu,
		group_fd, fl);
	if (result >= 0)
		fprintf(stderr, " = %d\n", result);
	else
		fprintf(stderr, "\nsys_perf_event_open failed, error -%d\n", err);
}

void attr_dump(const struct perf_event_attr *a, pid_t pid, int cpu, int group_fd,
	       unsigned long fl, int result, int err)
{
	attr_dump_attr(a);
	attr_dump_call(pid, cpu, group_fd, fl, result, err);
}
