// SPDX-License-Identifier: GPL-2.0
/*
 * hog - put the guest under memory pressure, or scatter its free memory.
 *
 * Usage: hog PERCENT
 *        hog --scatter PERCENT READYFILE
 *        hog --huge READYFILE
 *        hog --thp PERCENT
 *
 * Allocates PERCENT of MemAvailable in anonymous memory and touches every
 * page.  Plain: so that reclaim runs (and with it the shrinkers), then
 * exits.  --scatter: with transparent huge pages off, then frees every
 * other page, so that free memory is made of single pages spread over the
 * whole machine; creates READYFILE when done and sleeps until killed,
 * keeping the other half.  --huge: takes transparent huge pages (the
 * caller sets THP defrag to "never", so that only free order-9 pages are
 * taken and nothing is compacted for them) 64 MiB at a time until a 64 MiB
 * region gets none, so that no free order-9 page is left; creates
 * READYFILE and sleeps until killed, holding them.  --thp: the probe of
 * how many huge pages memory still gives: maps PERCENT of MemTotal (not
 * MemAvailable, which the memory a cache holds lowers: the cache-off and
 * cache-on boots ask for the same size) with MADV_HUGEPAGE, touches a
 * byte per 2 MiB (each touch faults in a huge page, compacting for it as
 * THP's defrag setting allows, or a single page when none can be had),
 * prints "hog: thp asked_mib=N huge_mib=N" (AnonHugePages of the process)
 * and exits.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

/* The "KEY: N kB" line of a /proc file, in kB (-1 if there is none). */
static long proc_kb(const char *path, const char *key)
{
	char line[256], fmt[64];
	long kb = -1;
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	snprintf(fmt, sizeof(fmt), "%s: %%ld kB", key);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, fmt, &kb) == 1)
			break;
	fclose(f);
	return kb;
}

static long mem_available_kb(void)
{
	return proc_kb("/proc/meminfo", "MemAvailable");
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

/* The process's AnonHugePages, in kB (-1 if unknown). */
static long anon_huge_kb(void)
{
	return proc_kb("/proc/self/smaps_rollup", "AnonHugePages");
}

#define HUGE_SIZE	(2UL << 20)

/* A 2 MiB-aligned anonymous mapping of @len bytes, MADV_HUGEPAGE, or NULL. */
static char *map_huge(size_t len)
{
	char *p = mmap(NULL, len + HUGE_SIZE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		perror("mmap");
		return NULL;
	}
	p = (char *)(((unsigned long)p + HUGE_SIZE - 1) & ~(HUGE_SIZE - 1));
	if (madvise(p, len, MADV_HUGEPAGE)) {
		perror("madvise(MADV_HUGEPAGE)");
		return NULL;
	}
	return p;
}

/* Take every free order-9 page as a huge page, then wait holding them. */
static int take_huge(const char *ready)
{
	const size_t step = 64UL << 20;
	long before, after = anon_huge_kb();
	size_t off;
	char *p;
	int fd;

	if (after < 0) {
		fprintf(stderr, "hog: no AnonHugePages in smaps_rollup\n");
		return 1;
	}
	do {
		p = map_huge(step);
		if (!p)
			return 1;
		before = after;
		for (off = 0; off < step; off += HUGE_SIZE)
			p[off] = 1;
		after = anon_huge_kb();
	} while (after - before >= 2048);
	printf("hog: holding %ld MiB in huge pages\n", after >> 10);
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

/* Fault PERCENT of MemTotal in as huge pages; report how many came. */
static int thp_probe(long percent, long total)
{
	size_t len = ((size_t)total * 1024 / 100 * percent) & ~(HUGE_SIZE - 1);
	size_t off;
	char *p = map_huge(len);

	if (!p)
		return 1;
	for (off = 0; off < len; off += HUGE_SIZE)
		p[off] = 1;
	printf("hog: thp asked_mib=%zu huge_mib=%ld\n", len >> 20,
	       anon_huge_kb() >> 10);
	return 0;
}

int main(int argc, char **argv)
{
	int scat = argc == 4 && !strcmp(argv[1], "--scatter");
	long percent = argc == 2 || scat ? strtol(argv[1 + scat], NULL, 0) : 0;
	long avail = mem_available_kb();
	size_t len, off;
	char *p;

	if (argc == 3 && !strcmp(argv[1], "--huge"))
		return take_huge(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "--thp")) {
		long total = proc_kb("/proc/meminfo", "MemTotal");

		percent = strtol(argv[2], NULL, 0);
		if (percent <= 0 || percent > 100 || total <= 0)
			return 2;
		return thp_probe(percent, total);
	}
	if (percent <= 0 || percent > 100 || avail <= 0) {
		fprintf(stderr, "usage: %s PERCENT | --scatter PERCENT READYFILE |\n"
			"       --huge READYFILE | --thp PERCENT\n"
			"  (PERCENT of MemAvailable; for --thp, of MemTotal)\n", argv[0]);
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
