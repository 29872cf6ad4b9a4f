/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * test_malloc.c - the glibc allocation interface's contract, threads exchanging blocks, and fork
 * from a multi-threaded process.  Runs against whatever malloc the process has: glibc in the
 * plain suite, libsecpath-malloc.so when scripts/test-malloc.sh runs it under LD_PRELOAD with
 * SECPATH_MALLOC_EXPECT=1 (then the first test checks that malloc really is the shim's).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <dlfcn.h>
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1	/* ASan's malloc reports (aborts on) overflowing and invalid requests */
#else
#define UNDER_ASAN 0
#endif

static int all_zero(const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return 0;
	return 1;
}

static void test_malloc__which(void **st)
{
	(void)st;
	const char *want = getenv("SECPATH_MALLOC_EXPECT");
	Dl_info di;
	assert_true(dladdr((void *)(uintptr_t)malloc, &di) != 0);
	int ours = di.dli_fname && strstr(di.dli_fname, "libsecpath-malloc") != NULL;
	assert_int_equal(ours, want && want[0] == '1');
}

/* The shim's classes (src/malloc/malloc.c): 16..128 by 16, eight per power of two
 * up to 2 KiB, then CLASS_HI. */
#define SHIM_NCLASS (8 + 32 + 11)
static uint32_t shim_classes[SHIM_NCLASS];

static size_t shim_class(size_t sz)
{
	if (!shim_classes[0]) {
		static const uint32_t hi[] = { 2560, 3072, 3840, 4096, 4608, 5760, 7168, 8960,
					       11136, 13824, 16384 };
		size_t n = 0;
		for (uint32_t c = 16; c <= 128; c += 16)
			shim_classes[n++] = c;
		for (uint32_t base = 128; base < 2048; base *= 2)
			for (uint32_t k = 1; k <= 8; k++)
				shim_classes[n++] = base + k * (base / 8);
		for (size_t k = 0; k < sizeof(hi) / sizeof(hi[0]); k++)
			shim_classes[n++] = hi[k];
		assert_int_equal(n, SHIM_NCLASS);
	}
	size_t k = 0;
	while (shim_classes[k] < sz)
		k++;
	return k;
}

static void test_malloc__sizes_and_alignment(void **st)
{
	(void)st;
	static const size_t sizes[] = { 0, 1, 8, 15, 16, 17, 100, 1000, 1025, 4096, 8193, 65536,
					65537, 200000, 5u << 20 };
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		unsigned char *p = malloc(sizes[i]);
		assert_non_null(p);
		assert_int_equal((uintptr_t)p % 16, 0);
		assert_true(malloc_usable_size(p) >= sizes[i]);
		memset(p, 0xa5, sizes[i]);
		free(p);
	}
	free(NULL);
	assert_int_equal(malloc_usable_size(NULL), 0);
	/* every size up to 70000: the block covers it; under the shim it is an object of the size's
	 * class (the documented table below: 1/8 slack beyond the 16-byte granule up to 2 KiB,
	 * 1/4 above) or, from 256 bytes on, of one of the next two classes (a borrowed one); a large
	 * block is page-rounded, or a cached one at most twice as big */
	const char *shim = getenv("SECPATH_MALLOC_EXPECT");
	for (size_t sz = 0; sz <= 70000; sz += sz < 4096 ? 1 : 61) {
		unsigned char *p = malloc(sz);
		assert_non_null(p);
		size_t u = malloc_usable_size(p);
		assert_true(u >= sz);
		if (shim && shim[0] == '1' && sz <= 16384) {
			size_t k = shim_class(sz);
			int ok = u == shim_classes[k] ||
				 (shim_classes[k] >= 256 &&
				  ((k + 1 < SHIM_NCLASS && u == shim_classes[k + 1]) ||
				   (k + 2 < SHIM_NCLASS && u == shim_classes[k + 2])));
			if (!ok)
				fail_msg("malloc(%zu): usable %zu, class %u", sz, u, shim_classes[k]);
		} else if (shim && shim[0] == '1') {
			assert_true(u < 2 * sz + 4096);	/* a large block, maybe a reused one */
		}
		if (sz)
			p[sz - 1] = 1;
		free(p);
	}
}

/*
 * A dry class borrows a freed object of a bigger class before it touches a fresh slot.  Runs
 * before any other test allocates 13000 bytes: malloc-13824 is dry, malloc-16k holds the block
 * just freed.
 */
static void test_malloc__borrow(void **st)
{
	(void)st;
	const char *shim = getenv("SECPATH_MALLOC_EXPECT");
	if (!shim || shim[0] != '1')
		skip();
	unsigned char *big = malloc(16000);
	assert_non_null(big);
	assert_int_equal(malloc_usable_size(big), 16384);
	memset(big, 0x5a, 16000);
	free(big);
	unsigned char *p = malloc(13000);
	assert_ptr_equal(p, big);			/* the freed 16 KiB block, in memory */
	assert_int_equal(malloc_usable_size(p), 16384);
	free(p);					/* back to its own class */
	unsigned char *z = calloc(1, 13000);		/* borrowed again, and zeroed */
	assert_ptr_equal(z, big);
	assert_true(all_zero(z, 16384));
	unsigned char *q = malloc(13000);		/* nothing left to borrow: its own class */
	assert_non_null(q);
	assert_int_equal(malloc_usable_size(q), 13824);
	free(q);
	unsigned char *r = malloc(13000);		/* and its own freed object comes first */
	assert_ptr_equal(r, q);
	free(r);
	free(z);
}

static void test_malloc__calloc_zero_and_overflow(void **st)
{
	(void)st;
	for (int round = 0; round < 3; round++) {
		void *dirty[64];
		for (int i = 0; i < 64; i++)	/* leave dirty slots behind for calloc to reuse */
			memset(dirty[i] = malloc(200), 0xff, 200);
		for (int i = 0; i < 64; i++)
			free(dirty[i]);
		for (size_t n = 1; n < 300000; n = n * 3 + 1) {
			unsigned char *p = calloc(n, 1);
			assert_non_null(p);
			assert_true(all_zero(p, n));
			memset(p, 0x5a, n);
			free(p);
		}
	}
	if (UNDER_ASAN)
		return;
	volatile size_t big = SIZE_MAX / 2;	/* opaque to the compiler's size checks */
	errno = 0;
	assert_null(calloc(big, 3));
	assert_int_equal(errno, ENOMEM);
	assert_null(reallocarray(NULL, big, 3));
}

/*
 * Large blocks freed in bulk (more than the shim keeps resident, so the oldest lose their pages
 * and return to its cache as zero blocks), then taken again by calloc: every byte must read as
 * zero, and a malloc'd one must be fully writable and hold its contents.
 */
static void test_malloc__large_reuse(void **st)
{
	(void)st;
	enum { N = 48 };
	unsigned char *v[N];
	for (int round = 0; round < 3; round++) {
		for (int i = 0; i < N; i++) {
			size_t n = 20000 + (size_t)((i * 7919) % 40) * 6000;	/* 20 KB .. 254 KB */
			v[i] = malloc(n);
			assert_non_null(v[i]);
			memset(v[i], 0xc3, n);
		}
		for (int i = 0; i < N; i++)
			free(v[i]);
		for (int i = 0; i < N; i++) {
			size_t n = 17000 + (size_t)((i * 104729) % 40) * 6000;
			v[i] = calloc(1, n);
			assert_non_null(v[i]);
			assert_true(all_zero(v[i], n));
			memset(v[i], i, n);
		}
		for (int i = 0; i < N; i++) {
			size_t n = 17000 + (size_t)((i * 104729) % 40) * 6000;
			assert_int_equal(v[i][0], (unsigned char)i);
			assert_int_equal(v[i][n - 1], (unsigned char)i);
			free(v[i]);
		}
	}
}

static void test_malloc__realloc(void **st)
{
	(void)st;
	unsigned char *p = NULL;
	size_t n = 0;
	for (size_t want = 1; want < (1u << 21); want = want * 2 + 3) {
		p = realloc(p, want);
		assert_non_null(p);
		for (size_t i = 0; i < n && i < want; i++)
			assert_int_equal(p[i], (unsigned char)(i * 7));
		for (size_t i = 0; i < want; i++)
			p[i] = (unsigned char)(i * 7);
		n = want;
	}
	for (size_t want = n; want > 1; want /= 3) {	/* shrinking keeps the prefix */
		p = realloc(p, want);
		assert_non_null(p);
		for (size_t i = 0; i < want; i++)
			assert_int_equal(p[i], (unsigned char)(i * 7));
	}
	free(p);
	p = reallocarray(NULL, 10, 10);
	assert_non_null(p);
	free(p);
}

static void test_malloc__aligned(void **st)
{
	(void)st;
	for (size_t a = 8; a <= (1u << 16); a *= 2)
		for (size_t sz = 1; sz < 70000; sz = sz * 5 + 1) {
			void *p = NULL;
			assert_int_equal(posix_memalign(&p, a, sz), 0);
			assert_int_equal((uintptr_t)p % a, 0);
			memset(p, 1, sz);
			free(p);
			p = memalign(a, sz);
			assert_non_null(p);
			assert_int_equal((uintptr_t)p % a, 0);
			free(p);
			if (UNDER_ASAN && sz % a)	/* C11's size rule, enforced by ASan */
				continue;
			p = aligned_alloc(a, sz);
			assert_non_null(p);
			assert_int_equal((uintptr_t)p % a, 0);
			free(p);
		}
	void *p = NULL;
	if (!UNDER_ASAN)
		assert_int_equal(posix_memalign(&p, 24, 10), EINVAL);
	p = valloc(100);
	assert_int_equal((uintptr_t)p % 4096, 0);
	free(p);
	p = pvalloc(5000);
	assert_int_equal((uintptr_t)p % 4096, 0);
	assert_true(malloc_usable_size(p) >= 8192);
	free(p);
}

/* Threads hand blocks to each other through a shared array: most frees are remote. */
#define NTHREADS 4
#define SLOTS 512
static void *slots[SLOTS];
static pthread_mutex_t slot_lock = PTHREAD_MUTEX_INITIALIZER;

static void *churn(void *arg)
{
	unsigned x = (unsigned)(uintptr_t)arg * 2654435761u + 1;
	for (int i = 0; i < 40000; i++) {
		x = x * 1103515245u + 12345u;
		size_t sz = (x >> 8) % 3000 + 1 + ((x & 63) == 0 ? 100000 : 0);
		unsigned char *p = malloc(sz);
		if (!p)
			return (void *)1;
		p[0] = (unsigned char)sz;
		p[sz - 1] = (unsigned char)(sz >> 3);
		pthread_mutex_lock(&slot_lock);
		unsigned k = (x >> 4) % SLOTS;
		unsigned char *old = slots[k];
		slots[k] = p;
		pthread_mutex_unlock(&slot_lock);
		free(old);
	}
	return NULL;
}

static void test_malloc__threads(void **st)
{
	(void)st;
	pthread_t t[NTHREADS];
	for (uintptr_t i = 0; i < NTHREADS; i++)
		assert_int_equal(pthread_create(&t[i], NULL, churn, (void *)i), 0);
	for (int i = 0; i < NTHREADS; i++) {
		void *rv;
		pthread_join(t[i], &rv);
		assert_null(rv);
	}
	for (int i = 0; i < SLOTS; i++) {
		free(slots[i]);
		slots[i] = NULL;
	}
}

/* fork while other threads allocate: the child must be able to allocate and free. */
static volatile int stop_spin;

static void *spin_alloc(void *arg)
{
	(void)arg;
	while (!__atomic_load_n(&stop_spin, __ATOMIC_RELAXED)) {
		void *p = malloc(64), *q = malloc(5000), *r = malloc(100000);
		free(q);
		free(p);
		free(r);
	}
	return NULL;
}

static void test_malloc__fork_with_threads(void **st)
{
	(void)st;
	pthread_t t[2];
	stop_spin = 0;
	for (int i = 0; i < 2; i++)
		assert_int_equal(pthread_create(&t[i], NULL, spin_alloc, NULL), 0);
	for (int round = 0; round < 30; round++) {
		pid_t pid = fork();
		assert_true(pid >= 0);
		if (!pid) {
			void *v[100];
			for (int i = 0; i < 100; i++)
				v[i] = malloc((size_t)i * 97 + 1);
			for (int i = 0; i < 100; i++)
				free(v[i]);
			_exit(0);
		}
		int status = 0;
		assert_int_equal(waitpid(pid, &status, 0), pid);
		assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}
	__atomic_store_n(&stop_spin, 1, __ATOMIC_RELAXED);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
}

static void test_malloc__extras(void **st)
{
	(void)st;
	void *p = malloc(1000);
	struct mallinfo2 mi = mallinfo2();
	if (!UNDER_ASAN)
		assert_true(mi.uordblks >= 1000);
	free(p);
	malloc_trim(0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_malloc__which),
		cmocka_unit_test(test_malloc__borrow),
		cmocka_unit_test(test_malloc__sizes_and_alignment),
		cmocka_unit_test(test_malloc__calloc_zero_and_overflow),
		cmocka_unit_test(test_malloc__large_reuse),
		cmocka_unit_test(test_malloc__realloc),
		cmocka_unit_test(test_malloc__aligned),
		cmocka_unit_test(test_malloc__threads),
		cmocka_unit_test(test_malloc__fork_with_threads),
		cmocka_unit_test(test_malloc__extras),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
