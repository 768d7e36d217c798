/*
 * Random numbers: /dev/random, /dev/urandom and getrandom(2), from a
 * ChaCha20 generator (RFC 8439 block function) with fast key erasure:
 * after every request the key is replaced by fresh output, so earlier
 * output cannot be recomputed from the state. Seeded from RDRAND when
 * the CPU has it and from the TSC; writes to /dev/random mix in more.
 * The pool counts as initialised from boot: reads never block.
 *
 * Locking: rng_lock (irqsave) guards the key and counter; output is
 * produced in 256-byte pieces and copied out after the lock is dropped.
 */
#include <linux/random.h>
#include "fs.h"
#include "core/proc/sched.h"
#include "core/proc/signal.h"
#include "core/proc/syscall.h"
#include "core/mm/uaccess.h"
#include "core/arch/x86.h"

#define CHUNK 256

static struct spinlock rng_lock = SPINLOCK_INIT("rng");
static uint32_t key[8];
static uint64_t counter;
static bool seeded;

static inline uint32_t rotl(uint32_t v, int n)
{
	return (v << n) | (v >> (32 - n));
}

static void quarter(uint32_t *x, int a, int b, int c, int d)
{
	x[a] += x[b]; x[d] = rotl(x[d] ^ x[a], 16);
	x[c] += x[d]; x[b] = rotl(x[b] ^ x[c], 12);
	x[a] += x[b]; x[d] = rotl(x[d] ^ x[a], 8);
	x[c] += x[d]; x[b] = rotl(x[b] ^ x[c], 7);
}

static void chacha_block(uint32_t out[16])
{
	uint32_t in[16] = { 0x61707865, 0x3320646e, 0x79622d32, 0x6b206574 };
	memcpy(&in[4], key, sizeof(key));
	in[12] = (uint32_t)counter;
	in[13] = (uint32_t)(counter >> 32);
	in[14] = in[15] = 0;
	counter++;
	uint32_t x[16];
	memcpy(x, in, sizeof(x));
	for (int i = 0; i < 10; i++) {
		quarter(x, 0, 4, 8, 12);
		quarter(x, 1, 5, 9, 13);
		quarter(x, 2, 6, 10, 14);
		quarter(x, 3, 7, 11, 15);
		quarter(x, 0, 5, 10, 15);
		quarter(x, 1, 6, 11, 12);
		quarter(x, 2, 7, 8, 13);
		quarter(x, 3, 4, 9, 14);
	}
	for (int i = 0; i < 16; i++)
		out[i] = x[i] + in[i];
}

/* Replace the key with generator output. Caller holds rng_lock. */
static void rekey_locked(void)
{
	uint32_t b[16];
	chacha_block(b);
	memcpy(key, b, sizeof(key));
}

static bool rdrand64(uint64_t *v)
{
	for (int tries = 0; tries < 10; tries++) {
		uint8_t ok;
		__asm__ volatile("rdrand %0; setc %1" : "=r"(*v), "=qm"(ok));
		if (ok)
			return true;
	}
	return false;
}

static void seed_locked(void)
{
	bool have_rdrand = cpuid(1, 0).ecx & (1u << 30);
	for (int i = 0; i < 4; i++) {
		uint64_t v = 0;
		if (have_rdrand)
			rdrand64(&v);
		v ^= rdtsc() * 0x9e3779b97f4a7c15ULL;
		key[2 * i] ^= (uint32_t)v;
		key[2 * i + 1] ^= (uint32_t)(v >> 32);
	}
	rekey_locked();
	seeded = true;
}

void random_init(void)
{
	uint64_t fl = spin_lock_irqsave(&rng_lock);
	if (!seeded)
		seed_locked();
	spin_unlock_irqrestore(&rng_lock, fl);
}

/* Up to CHUNK bytes of output into buf. */
static void random_chunk(uint8_t *buf, size_t n)
{
	uint32_t b[16];
	uint64_t fl = spin_lock_irqsave(&rng_lock);
	if (!seeded)
		seed_locked();
	key[7] ^= (uint32_t)rdtsc();
	for (size_t done = 0; done < n; done += sizeof(b)) {
		chacha_block(b);
		size_t k = n - done < sizeof(b) ? n - done : sizeof(b);
		memcpy(buf + done, b, k);
	}
	rekey_locked();
	spin_unlock_irqrestore(&rng_lock, fl);
	memset(b, 0, sizeof(b));
}

void random_bytes(void *buf, size_t n)
{
	for (size_t done = 0; done < n; done += CHUNK)
		random_chunk((uint8_t *)buf + done, n - done < CHUNK ? n - done : CHUNK);
}

void random_mix(const void *buf, size_t n)
{
	const uint8_t *p = buf;
	uint64_t fl = spin_lock_irqsave(&rng_lock);
	for (size_t i = 0; i < n; i++) {
		((uint8_t *)key)[i % sizeof(key)] ^= p[i];
		if (i % sizeof(key) == sizeof(key) - 1)
			rekey_locked();
	}
	rekey_locked();
	spin_unlock_irqrestore(&rng_lock, fl);
}

/* Fill the whole uio; bytes copied or -EFAULT. */
static long random_fill(struct uio *u)
{
	uint8_t buf[CHUNK];
	long done = 0;
	while (u->resid) {
		if (done && done % PAGE_SIZE == 0) {
			if (signal_pending_current())
				break; /* as Linux: a signal ends a long read, short */
			sched_preempt_point();
		}
		size_t n = u->resid < CHUNK ? u->resid : CHUNK;
		random_chunk(buf, n);
		long r = uio_copy_out(u, buf, n);
		if (r < 0)
			return done ? done : r;
		done += r;
		if ((size_t)r < n)
			break;
	}
	memset(buf, 0, sizeof(buf));
	return done;
}

static long random_read(struct file *f, struct uio *u, uint64_t *pos)
{
	return random_fill(u);
}

static long random_write(struct file *f, struct uio *u, uint64_t *pos)
{
	uint8_t buf[CHUNK];
	long done = 0;
	while (u->resid) {
		if (done && done % PAGE_SIZE == 0 && signal_pending_current())
			break; /* as Linux's write_pool_user */
		long r = uio_copy_in(u, buf, u->resid < CHUNK ? u->resid : CHUNK);
		if (r < 0)
			return done ? done : r;
		random_mix(buf, (size_t)r);
		done += r;
	}
	return done;
}

static int64_t random_lseek(struct file *f, int64_t off, int whence)
{
	return 0;
}

const struct file_ops random_fops = {
	.read = random_read,
	.write = random_write,
	.lseek = random_lseek,
};

SYSCALL_DEFINE3(getrandom, uint64_t, ubuf, size_t, count, unsigned int, flags)
{
	if (flags & ~(unsigned)(GRND_NONBLOCK | GRND_RANDOM | GRND_INSECURE))
		return -EINVAL;
	if ((flags & GRND_INSECURE) && (flags & GRND_RANDOM))
		return -EINVAL;
	size_t n = count > (uint64_t)MAX_RW_COUNT ? (size_t)MAX_RW_COUNT : count;
	if (!user_range_ok(ubuf, n))
		return -EFAULT;
	struct iovec seg;
	struct uio u;
	uio_init(&u, &seg, (void __user *)ubuf, n, true);
	return n ? random_fill(&u) : 0;
}
