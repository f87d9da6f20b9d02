// SPDX-License-Identifier: GPL-2.0
/*
 * scatter - fragment the guest's free memory, then wait.
 *
 * Usage: scatter PERCENT READYFILE
 *
 * Touches PERCENT of MemAvailable in 4 KiB anonymous pages (transparent
 * huge pages off), then frees every other page, so that free memory is
 * made of single pages spread over the whole machine.  Creates READYFILE
 * when done and sleeps until killed, keeping the other half.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
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

int main(int argc, char **argv)
{
	long percent = argc == 3 ? strtol(argv[1], NULL, 0) : 0;
	long avail = mem_available_kb();
	size_t len, off, freed = 0;
	char *p;
	int fd;

	if (percent <= 0 || percent > 100 || avail <= 0) {
		fprintf(stderr, "usage: %s PERCENT READYFILE\n", argv[0]);
		return 2;
	}
	if (prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0))
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
	for (off = 0; off + 4096 <= len; off += 8192) {
		if (madvise(p + off, 4096, MADV_DONTNEED)) {
			perror("madvise");
			return 1;
		}
		freed++;
	}
	printf("scatter: touched %zu MiB, freed every other page (%zu)\n",
	       len >> 20, freed);
	fflush(stdout);
	fd = open(argv[2], O_CREAT | O_WRONLY, 0644);
	if (fd < 0) {
		perror(argv[2]);
		return 1;
	}
	close(fd);
	for (;;)
		pause();
}
