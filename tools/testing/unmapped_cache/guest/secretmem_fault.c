// SPDX-License-Identifier: GPL-2.0
/*
 * secretmem_fault - fault pages of memfd_secret() memory and check them.
 *
 * Usage: secretmem_fault [--check-zero] [--latency] [--tag N] [--hold FILE]
 *                        PAGES
 *
 * Maps PAGES pages of a secret memory file, writes a pattern to every page
 * (each first write faults a page in, which takes it out of the direct
 * map), reads the pattern back, and unmaps.  Page i is filled with the
 * byte (i * 7 + 1 + N) % 255 + 1, never 0, so that processes given
 * different tags leave different non-zero data behind.
 *
 * --check-zero first reads every page, before anything is written to it,
 * and counts the pages that are not all zeroes: secret memory must reach
 * its new owner cleared, whatever the page went through before.  The
 * first few such pages are described on stderr (the byte found tells
 * which writer left it behind).
 *
 * --latency times the first touch of each page (the write that faults it
 * in) and prints "secretmem_fault: first touch max_ns=N mean_ns=N" before
 * the summary line.
 *
 * --hold FILE keeps the pages mapped once they are checked: it creates FILE
 * and waits for SIGTERM, then checks every page again before it unmaps
 * (for tests that need secret memory in use meanwhile).
 *
 * Prints "secretmem_fault: P pages faulted, B bad[ nonzero=N]" and exits
 * non-zero on any error, mismatch or non-zero page.  Built static for the
 * test guests.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifndef __NR_memfd_secret
#define __NR_memfd_secret 447
#endif

/* Non-zero pages described on stderr at most. */
#define SHOW_NONZERO	4

static unsigned char fill(unsigned long i, unsigned long tag)
{
	return (unsigned char)((i * 7 + 1 + tag) % 255 + 1);
}

/* Count the pages of @p that are not all zeroes; reads every byte. */
static unsigned long count_nonzero(const unsigned char *p, unsigned long pages,
				   long page)
{
	unsigned long i, nonzero = 0;
	long j;

	for (i = 0; i < pages; i++) {
		const unsigned char *q = p + i * page;

		for (j = 0; j < page && !q[j]; j++)
			;
		if (j == page)
			continue;
		if (nonzero++ < SHOW_NONZERO)
			fprintf(stderr,
				"secretmem_fault: page %lu not zero at first touch: byte %#x at %ld\n",
				i, q[j], j);
	}
	return nonzero;
}

/* Pages of @p that do not hold their pattern. */
static unsigned long count_bad(const unsigned char *p, unsigned long pages,
			       long page, unsigned long tag)
{
	unsigned long i, bad = 0;
	long j;

	for (i = 0; i < pages; i++) {
		unsigned char want = fill(i, tag);

		for (j = 0; j < page; j++)
			if (p[i * page + j] != want) {
				bad++;
				break;
			}
	}
	return bad;
}

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* Create @file, then sleep until SIGTERM. */
static int hold(const char *file)
{
	sigset_t set;
	int sig, fd;

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	if (sigprocmask(SIG_BLOCK, &set, NULL))
		return -1;
	fd = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return -1;
	close(fd);
	return sigwait(&set, &sig) ? -1 : 0;
}

int main(int argc, char **argv)
{
	const char *hold_file = NULL;
	struct rlimit unlimited = { RLIM_INFINITY, RLIM_INFINITY };
	long page = sysconf(_SC_PAGESIZE);
	unsigned long pages = 0, tag = 0, i, bad, nonzero = 0;
	unsigned long long t, dt, max_ns = 0, sum_ns = 0;
	int fd, arg, check_zero = 0, latency = 0;
	unsigned char *p;
	size_t len;

	for (arg = 1; arg < argc - 1; arg++) {
		if (!strcmp(argv[arg], "--check-zero"))
			check_zero = 1;
		else if (!strcmp(argv[arg], "--latency"))
			latency = 1;
		else if (!strcmp(argv[arg], "--tag") && arg + 2 < argc)
			tag = strtoul(argv[++arg], NULL, 0);
		else if (!strcmp(argv[arg], "--hold") && arg + 2 < argc)
			hold_file = argv[++arg];
		else
			break;
	}
	if (arg == argc - 1)
		pages = strtoul(argv[arg], NULL, 0);
	if (!pages) {
		fprintf(stderr,
			"usage: %s [--check-zero] [--latency] [--tag N] [--hold FILE] PAGES\n",
			argv[0]);
		return 2;
	}
	len = pages * page;

	/* Secret memory is charged to RLIMIT_MEMLOCK (8 MiB by default). */
	if (setrlimit(RLIMIT_MEMLOCK, &unlimited)) {
		fprintf(stderr, "setrlimit(RLIMIT_MEMLOCK): %s\n", strerror(errno));
		return 1;
	}

	fd = syscall(__NR_memfd_secret, 0);
	if (fd < 0) {
		fprintf(stderr, "memfd_secret: %s\n", strerror(errno));
		return 1;
	}
	if (ftruncate(fd, len)) {
		fprintf(stderr, "ftruncate: %s\n", strerror(errno));
		return 1;
	}
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		fprintf(stderr, "mmap %zu bytes: %s\n", len, strerror(errno));
		return 1;
	}

	/* Reading faults every page in, before any write reaches it. */
	if (check_zero)
		nonzero = count_nonzero(p, pages, page);
	for (i = 0; i < pages; i++) {
		t = latency ? now_ns() : 0;
		memset(p + i * page, fill(i, tag), page);
		if (!latency)
			continue;
		dt = now_ns() - t;
		sum_ns += dt;
		if (dt > max_ns)
			max_ns = dt;
	}
	if (latency)
		printf("secretmem_fault: first touch max_ns=%llu mean_ns=%llu\n",
		       max_ns, sum_ns / pages);
	bad = count_bad(p, pages, page, tag);
	if (hold_file) {
		if (hold(hold_file)) {
			fprintf(stderr, "hold %s: %s\n", hold_file, strerror(errno));
			return 1;
		}
		bad += count_bad(p, pages, page, tag);
	}

	munmap(p, len);
	close(fd);
	if (check_zero)
		printf("secretmem_fault: %lu pages faulted, %lu bad nonzero=%lu\n",
		       pages, bad, nonzero);
	else
		printf("secretmem_fault: %lu pages faulted, %lu bad\n", pages,
		       bad);
	return bad || nonzero ? 1 : 0;
}
