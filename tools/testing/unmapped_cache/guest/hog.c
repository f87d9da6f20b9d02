// SPDX-License-Identifier: GPL-2.0
/*
 * hog - put the guest under memory pressure, or scatter its free memory.
 *
 * Usage: hog PERCENT
 *        hog --scatter PERCENT READYFILE
 *
 * Allocates PERCENT of MemAvailable in anonymous memory and touches every
 * page.  Plain: so that reclaim runs (and with it the shrinkers), then
 * exits.  --scatter: with transparent huge pages off, then frees every
 * other page, so that free memory is made of single pages spread over the
 * whole machine; creates READYFILE when done and sleeps until killed,
 * keeping the other half.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

static long mem_available_kb(void)
{
	char line[256];
	long kb = -1;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

/* Free every other page of [p, p + len) and wait, holding the rest. */
static int scatter(char *p, size_t len, const char *ready)
{
	size_t off, freed = 0;
	int fd;

	for (off = 0; off + 4096 <= len; off += 8192) {
		if (madvise(p + off, 4096, MADV_DONTNEED)) {
			perror("madvise");
			return 1;
		}
		freed++;
	}
	printf("hog: freed every other page (%zu)\n", freed);
	fflush(stdout);
	fd = open(ready, O_CREAT | O_WRONLY, 0644);
	if (fd < 0) {
		perror(ready);
		return 1;
	}
	close(fd);
	for (;;)
		pause();
}

int main(int argc, char **argv)
{
	int scat = argc == 4 && !strcmp(argv[1], "--scatter");
	long percent = argc == 2 || scat ? strtol(argv[1 + scat], NULL, 0) : 0;
	long avail = mem_available_kb();
	size_t len, off;
	char *p;

	if (percent <= 0 || percent > 100 || avail <= 0) {
		fprintf(stderr, "usage: %s PERCENT | --scatter PERCENT READYFILE\n"
			"  (PERCENT of MemAvailable)\n", argv[0]);
		return 2;
	}
	if (scat && prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0))
		perror("PR_SET_THP_DISABLE");
	len = (size_t)avail * 1024 / 100 * percent;
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		 -1, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	for (off = 0; off < len; off += 4096)
		p[off] = 1;
	printf("hog: touched %zu MiB of %ld MiB available\n", len >> 20,
	       avail >> 10);
	fflush(stdout);
	if (scat)
		return scatter(p, len, argv[3]);
	munmap(p, len);
	return 0;
}
