// SPDX-License-Identifier: GPL-2.0
/*
 * secret_pfns - fault secret memory, say which page frames it got, and
 * optionally poison one of them while it is mapped.
 *
 * Usage: secret_pfns [--poison INDEX] PAGES
 *
 * Maps PAGES pages of a memfd_secret() file, writes a pattern to every page
 * (the first write faults the page in) and prints, from /proc/self/pagemap
 * (root sees the frame numbers),
 *
 *   pfn INDEX PFN BLOCK
 *
 * for every page: PFN in hexadecimal, BLOCK (PFN / 512, the 2 MiB block
 * it is in) in decimal.  With --poison INDEX it then writes
 * the frame of page INDEX to /sys/kernel/debug/hwpoison/corrupt-pfn, so
 * that memory_failure() handles it as a hardware error, touches that page
 * (which must raise SIGBUS) and checks that every other page still holds
 * its pattern:
 *
 *   secret_pfns: poisoned pfn=PFN sigbus=0|1 intact=N of M
 *
 * Exits non-zero on any error, or if the poisoned page did not raise
 * SIGBUS or another page lost its pattern.  Built static for the test
 * guests.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef __NR_memfd_secret
#define __NR_memfd_secret 447
#endif

#define BIT_ULL(n)	(1ULL << (n))
#define PM_PRESENT	BIT_ULL(63)
#define PM_PFN_MASK	(BIT_ULL(55) - 1)

static sigjmp_buf jump;

/*
 * memory_failure() may signal the process while it injects (BUS_MCEERR_AO,
 * "action optional": the page was taken away), which it survives;
 * touching the page later faults (BUS_MCEERR_AR), and the handler must not
 * return there.
 */
static void on_sigbus(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	if (si->si_code != BUS_MCEERR_AO)
		siglongjmp(jump, 1);
}

/* Read one byte at @q; 1 if that raised SIGBUS. */
static int touch_sigbus(const unsigned char *q)
{
	if (sigsetjmp(jump, 1))
		return 1;
	(void)__atomic_load_n(q, __ATOMIC_RELAXED);
	return 0;
}

static unsigned char fill(unsigned long i)
{
	return (unsigned char)(i * 13 % 251 + 1);
}

static int page_intact(const unsigned char *q, long page, unsigned char c)
{
	long j;

	for (j = 0; j < page; j++)
		if (q[j] != c)
			return 0;
	return 1;
}

int main(int argc, char **argv)
{
	long page = sysconf(_SC_PAGESIZE), poison = -1;
	unsigned long pages, i, intact = 0;
	int sigbus;
	unsigned char *p;
	uint64_t *pfn;
	int fd, pm;

	if (argc > 3 && !strcmp(argv[1], "--poison")) {
		poison = strtol(argv[2], NULL, 0);
		argv += 2;
		argc -= 2;
	}
	pages = argc == 2 ? strtoul(argv[1], NULL, 0) : 0;
	if (!pages || poison >= (long)pages) {
		fprintf(stderr, "usage: secret_pfns [--poison INDEX] PAGES\n");
		return 2;
	}
	pfn = calloc(pages, sizeof(*pfn));
	fd = syscall(__NR_memfd_secret, 0);
	if (!pfn || fd < 0 || ftruncate(fd, pages * page)) {
		perror("secret_pfns: memfd_secret");
		return 1;
	}
	p = mmap(NULL, pages * page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		perror("secret_pfns: mmap");
		return 1;
	}
	for (i = 0; i < pages; i++)
		memset(p + i * page, fill(i), page);

	pm = open("/proc/self/pagemap", O_RDONLY);
	if (pm < 0 || pread(pm, pfn, pages * sizeof(*pfn),
			    (uintptr_t)p / page * sizeof(*pfn)) !=
		      (ssize_t)(pages * sizeof(*pfn))) {
		perror("secret_pfns: pagemap");
		return 1;
	}
	for (i = 0; i < pages; i++) {
		if (!(pfn[i] & PM_PRESENT) || !(pfn[i] & PM_PFN_MASK)) {
			fprintf(stderr, "secret_pfns: page %lu: no frame in pagemap\n", i);
			return 1;
		}
		printf("pfn %lu %#llx %llu\n", i,
		       (unsigned long long)(pfn[i] & PM_PFN_MASK),
		       (unsigned long long)(pfn[i] & PM_PFN_MASK) / 512);
	}
	fflush(stdout);
	if (poison < 0)
		return 0;

	{
		struct sigaction sa = {
			.sa_sigaction = on_sigbus,
			.sa_flags = SA_SIGINFO,
		};

		sigaction(SIGBUS, &sa, NULL);
	}
	{
		char buf[32];
		int inj = open("/sys/kernel/debug/hwpoison/corrupt-pfn", O_WRONLY);
		int n = snprintf(buf, sizeof(buf), "%#llx\n",
				 (unsigned long long)(pfn[poison] & PM_PFN_MASK));

		if (inj < 0) {
			perror("secret_pfns: corrupt-pfn");
			return 1;
		}
		/*
		 * memory_failure()'s verdict: 0 when it recovered, an error
		 * when it could not (a dirty secretmem page cannot be
		 * truncated); either way the page is flagged.
		 */
		if (write(inj, buf, n) != n)
			printf("secret_pfns: memory_failure: %s\n", strerror(errno));
		close(inj);
	}
	sigbus = touch_sigbus(p + poison * page);
	for (i = 0; i < pages; i++)
		if ((long)i != poison && page_intact(p + i * page, page, fill(i)))
			intact++;
	printf("secret_pfns: poisoned pfn=%#llx sigbus=%d intact=%lu of %lu\n",
	       (unsigned long long)(pfn[poison] & PM_PFN_MASK), sigbus, intact,
	       pages - 1);
	return sigbus && intact == pages - 1 ? 0 : 1;
}
