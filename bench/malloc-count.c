/*
 * malloc-count.c - an LD_PRELOAD allocation counter for the benchmark.
 * It replaces malloc, calloc, realloc, free and the aligned allocators
 * (aligned_alloc, memalign, posix_memalign, valloc, pvalloc: glibc serves
 * them without calling malloc, so a counter of malloc alone misses them)
 * with wrappers that count calls and bytes and track the bytes in use (by
 * malloc_usable_size) and their peak, then call glibc's allocator.
 *
 * gcbench finds malloc_count_get() with dlsym and reads the counts before
 * and after its measured steps. Any other program (getcounter itself) gets
 * a line on standard error at exit when MALLOC_COUNT_REPORT is set:
 *   malloc-count: calls=N bytes=N peak=N live=N
 *
 * Build: cc -O2 -shared -fPIC -o malloc-count.so malloc-count.c
 */
#define _GNU_SOURCE
#include <errno.h>
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t n);
extern void __libc_free(void *p);
extern void *__libc_memalign(size_t align, size_t n);
extern void *__libc_valloc(size_t n);
extern void *__libc_pvalloc(size_t n);

static unsigned long long calls, bytes;
static long long live, peak;

/* Account for a new block p (NULL: nothing). */
static void
took(void *p, size_t asked)
{
	if (!p)
		return;
	__atomic_add_fetch(&calls, 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(&bytes, asked, __ATOMIC_RELAXED);
	long long now = __atomic_add_fetch(&live, (long long)malloc_usable_size(p),
					   __ATOMIC_RELAXED);
	if (now > peak)
		peak = now;
}

void *
malloc(size_t n)
{
	void *p = __libc_malloc(n);
	took(p, n);
	return p;
}

void *
calloc(size_t n, size_t size)
{
	void *p = __libc_calloc(n, size);
	took(p, n * size);
	return p;
}

void *
realloc(void *old, size_t n)
{
	long long before = old ? (long long)malloc_usable_size(old) : 0;
	void *p = __libc_realloc(old, n);

	if (p || n == 0)
		__atomic_sub_fetch(&live, before, __ATOMIC_RELAXED);
	took(p, n);
	return p;
}

void
free(void *p)
{
	if (p)
		__atomic_sub_fetch(&live, (long long)malloc_usable_size(p), __ATOMIC_RELAXED);
	__libc_free(p);
}

void *
memalign(size_t align, size_t n)
{
	void *p = __libc_memalign(align, n);
	took(p, n);
	return p;
}

void *
aligned_alloc(size_t align, size_t n)
{
	return memalign(align, n);
}

int
posix_memalign(void **out, size_t align, size_t n)
{
	if (align < sizeof(void *) || (align & (align - 1)) != 0)
		return EINVAL;
	void *p = memalign(align, n);
	if (!p && n)
		return ENOMEM;
	*out = p;
	return 0;
}

void *
valloc(size_t n)
{
	void *p = __libc_valloc(n);
	took(p, n);
	return p;
}

void *
pvalloc(size_t n)
{
	void *p = __libc_pvalloc(n);
	took(p, n);
	return p;
}

/* out[0] calls, out[1] bytes asked, out[2] bytes in use, out[3] peak in use. */
void
malloc_count_get(long long out[4])
{
	out[0] = (long long)calls;
	out[1] = (long long)bytes;
	out[2] = live;
	out[3] = peak;
}

/* Print the totals at exit when MALLOC_COUNT_REPORT is set. */
__attribute__((destructor)) static void
report(void)
{
	char line[160];
	int n;

	if (!getenv("MALLOC_COUNT_REPORT"))
		return;
	n = snprintf(line, sizeof(line), "malloc-count: calls=%llu bytes=%llu peak=%lld live=%lld\n",
		     calls, bytes, peak, live);
	if (n > 0)
		(void)!write(2, line, (size_t)n);
}
