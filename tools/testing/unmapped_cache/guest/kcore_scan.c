// SPDX-License-Identifier: GPL-2.0
/*
 * kcore_scan - read /proc/kcore while secret pages are live, and look for
 * their contents.
 *
 * Usage: kcore_scan PAGES
 *
 * A child maps PAGES pages of memfd_secret() memory and fills every page
 * with a 64-byte pattern computed byte by byte from a seed, so that the
 * pattern exists nowhere but in secret memory (the scanner also checks it
 * byte by byte, without a copy).  The parent then reads every PT_LOAD
 * segment of /proc/kcore smaller than 64 GiB (the direct map, kernel text,
 * the module area; not the whole vmalloc space) and counts the places the
 * pattern appears.  Prints
 *   UC-KCORE segments=N bytes=N found=N
 * and exits 0 only if every read succeeded and the pattern was not found.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/elf.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef __NR_memfd_secret
#define __NR_memfd_secret 447
#endif

#define PAT_LEN	64
#define CHUNK	(1024UL * 1024)
#define MAX_SEG	(64UL << 30)

static unsigned int seed;

static unsigned char pat(unsigned int i)
{
	unsigned int x = (seed ^ 0x9e3779b9u) * (i + 1) * 2654435761u;

	return (unsigned char)(x >> 24) | 1;	/* never 0: zeroes never match */
}

static int child(unsigned long pages, int ready)
{
	struct rlimit unlimited = { RLIM_INFINITY, RLIM_INFINITY };
	long page = sysconf(_SC_PAGESIZE);
	unsigned long i, j;
	unsigned char *p;
	int fd;

	setrlimit(RLIMIT_MEMLOCK, &unlimited);
	fd = syscall(__NR_memfd_secret, 0);
	if (fd < 0 || ftruncate(fd, pages * page)) {
		perror("memfd_secret");
		return 1;
	}
	p = mmap(NULL, pages * page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	for (i = 0; i < pages; i++)
		for (j = 0; j < (unsigned long)page; j++)
			p[i * page + j] = pat(j % PAT_LEN);
	if (write(ready, "r", 1) != 1)
		return 1;
	pause();
	return 0;
}

static unsigned long scan(const unsigned char *buf, size_t len)
{
	unsigned long found = 0;
	size_t i, k;

	for (i = 0; i + PAT_LEN <= len; i++) {
		if (buf[i] != pat(0))
			continue;
		for (k = 1; k < PAT_LEN && buf[i + k] == pat(k); k++)
			;
		found += k == PAT_LEN;
	}
	return found;
}

int main(int argc, char **argv)
{
	unsigned long pages = argc == 2 ? strtoul(argv[1], NULL, 0) : 0;
	unsigned long found = 0, bytes = 0, segs = 0;
	int pipefd[2], fd, rc = 0, i;
	unsigned char *buf;
	struct elf64_hdr eh;
	pid_t pid;
	char c;

	if (!pages) {
		fprintf(stderr, "usage: %s PAGES\n", argv[0]);
		return 2;
	}
	seed = (unsigned int)getpid() * 2246822519u;
	if (pipe(pipefd))
		return 1;
	pid = fork();
	if (pid == 0)
		_exit(child(pages, pipefd[1]));
	if (read(pipefd[0], &c, 1) != 1) {
		fprintf(stderr, "child failed\n");
		return 1;
	}

	buf = malloc(CHUNK + PAT_LEN);
	fd = open("/proc/kcore", O_RDONLY);
	if (!buf || fd < 0 || pread(fd, &eh, sizeof(eh), 0) != sizeof(eh)) {
		perror("/proc/kcore");
		rc = 1;
		goto out;
	}
	for (i = 0; i < eh.e_phnum; i++) {
		struct elf64_phdr ph;
		unsigned long off;

		if (pread(fd, &ph, sizeof(ph), eh.e_phoff + i * sizeof(ph)) !=
		    sizeof(ph)) {
			perror("phdr");
			rc = 1;
			break;
		}
		if (ph.p_type != PT_LOAD || ph.p_memsz > MAX_SEG)
			continue;
		segs++;
		for (off = 0; off < ph.p_memsz; off += CHUNK) {
			size_t len = ph.p_memsz - off < CHUNK ?
				     ph.p_memsz - off : CHUNK;
			ssize_t n = pread(fd, buf, len, ph.p_offset + off);

			if (n != (ssize_t)len) {
				fprintf(stderr, "read at %#lx: %s\n",
					(unsigned long)ph.p_vaddr + off,
					n < 0 ? strerror(errno) : "short");
				rc = 1;
				break;
			}
			bytes += len;
			found += scan(buf, len);
		}
	}
out:
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	printf("UC-KCORE segments=%lu bytes=%lu found=%lu\n", segs, bytes,
	       found);
	return rc || found || !segs;
}
