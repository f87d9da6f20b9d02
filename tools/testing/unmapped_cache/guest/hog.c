// SPDX-License-Identifier: GPL-2.0
/*
 * hog - put the guest under memory pressure.
 *
 * Usage: hog PERCENT
 *
 * Allocates PERCENT of MemAvailable in anonymous memory and touches every
 * page, so that reclaim runs (and with it the shrinkers), then exits.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
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

int main(int argc, char **argv)
{
	long percent = argc == 2 ? strtol(argv[1], NULL, 0) : 0;
	long avail = mem_available_kb();
	size_t len, off;
	char *p;

	if (percent <= 0 || percent > 100 || avail <= 0) {
		fprintf(stderr, "usage: %s PERCENT (of MemAvailable)\n", argv[0]);
		return 2;
	}
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
	munmap(p, len);
	return 0;
}
