// SPDX-License-Identifier: GPL-2.0
/*
 * secretmem_fault - fault pages of memfd_secret() memory and check them.
 *
 * Usage: secretmem_fault PAGES
 *
 * Maps PAGES pages of a secret memory file, writes a pattern to every page
 * (each first write faults a page in, which takes it out of the direct
 * map), reads the pattern back, and unmaps.  Exits non-zero on any error
 * or mismatch.  Built static for the test guests.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef __NR_memfd_secret
#define __NR_memfd_secret 447
#endif

int main(int argc, char **argv)
{
	struct rlimit unlimited = { RLIM_INFINITY, RLIM_INFINITY };
	long page = sysconf(_SC_PAGESIZE);
	unsigned long pages, i, bad = 0;
	unsigned char *p;
	size_t len;
	int fd;

	pages = argc == 2 ? strtoul(argv[1], NULL, 0) : 0;
	if (!pages) {
		fprintf(stderr, "usage: %s PAGES\n", argv[0]);
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

	for (i = 0; i < pages; i++)
		memset(p + i * page, (int)(i * 7 + 1), page);
	for (i = 0; i < pages; i++) {
		unsigned char want = (unsigned char)(i * 7 + 1);
		long j;

		for (j = 0; j < page; j++)
			if (p[i * page + j] != want) {
				bad++;
				break;
			}
	}

	munmap(p, len);
	close(fd);
	printf("secretmem_fault: %lu pages faulted, %lu bad\n", pages, bad);
	return bad ? 1 : 0;
}
