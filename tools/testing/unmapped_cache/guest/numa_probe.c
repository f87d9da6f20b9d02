// SPDX-License-Identifier: GPL-2.0
/*
 * numa_probe - where secret memory lands on a NUMA guest, and node-bound
 * memory pressure.
 *
 * Usage: numa_probe secret [--cpu C] [--policy bind|interleave|preferred
 *                          NODES] [--hold FILE] [--free-on C] PAGES
 *        numa_probe hog --node N --until-held-drops
 *
 * secret: on CPU C (sched_setaffinity), with the task's memory policy set
 * to POLICY over NODES (a list such as "1" or "0,1", set_mempolicy()),
 * faults PAGES pages of a memfd_secret() file and finds the node of each
 * page frame: the frame from /proc/self/pagemap (root sees it), the node
 * from the zone spans of /proc/zoneinfo.  Prints
 *
 *   numa_probe: secret cpu=C node_of_cpu=N policy=P pages=N node0=N
 *               node1=N unknown=N
 *
 * (one line).  With --hold FILE it then creates FILE and waits until
 * FILE is removed, so that a script can look at the cache while the pages
 * are in use; with --free-on C it moves to CPU C before the pages are
 * unmapped and the file closed, so that they are freed there.
 *
 * hog: with the policy MPOL_BIND to node N, allocates anonymous memory
 * 1 MiB at a time, touching every page, until the cache holds fewer pages
 * on node N than at the start (nr_unmapped_cache_held of
 * /sys/devices/system/node/nodeN/vmstat: reclaim on that node ran the
 * cache's shrinker), or until less than 1 MiB of the node is free.  Near
 * the watermarks it waits 50 ms after each MiB, for the node's kswapd.
 * Prints
 *
 *   numa_probe: hog node=N mb=N held_before=N held_after=N
 *
 * and exits 0 if the holding dropped, 1 otherwise.  Built static for the
 * test guests; no libnuma (system calls by number).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef __NR_memfd_secret
#define __NR_memfd_secret 447
#endif

#define MPOL_PREFERRED	1
#define MPOL_BIND	2
#define MPOL_INTERLEAVE	3

#define MAX_NODES	8
#define MAX_ZONES	64
#define BIT_ULL(n)	(1ULL << (n))
#define PM_PRESENT	BIT_ULL(63)
#define PM_PFN_MASK	(BIT_ULL(55) - 1)

struct span {
	int node;
	unsigned long start, end;	/* [start, end) in page frames */
};

static struct span spans[MAX_ZONES];
static int nr_spans;

static void die(const char *what)
{
	fprintf(stderr, "numa_probe: %s: %s\n", what, strerror(errno));
	exit(2);
}

/* Zone spans per node, from the "Node N, zone X" blocks of zoneinfo. */
static void read_zoneinfo(void)
{
	char line[256], zone[32];
	unsigned long spanned = 0, start;
	int node = -1, n;
	FILE *f = fopen("/proc/zoneinfo", "r");

	if (!f)
		die("/proc/zoneinfo");
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "Node %d, zone %31s", &n, zone) == 2) {
			node = n;
			spanned = 0;
		} else if (sscanf(line, " spanned %lu", &spanned) == 1) {
			continue;
		} else if (sscanf(line, " start_pfn: %lu", &start) == 1) {
			if (node < 0 || !spanned || nr_spans == MAX_ZONES)
				continue;
			spans[nr_spans].node = node;
			spans[nr_spans].start = start;
			spans[nr_spans].end = start + spanned;
			nr_spans++;
		}
	}
	fclose(f);
	if (!nr_spans) {
		fprintf(stderr, "numa_probe: no zone spans in /proc/zoneinfo\n");
		exit(2);
	}
}

static int node_of_pfn(unsigned long pfn)
{
	int i;

	for (i = 0; i < nr_spans; i++)
		if (pfn >= spans[i].start && pfn < spans[i].end)
			return spans[i].node;
	return -1;
}

/* The node CPU @cpu belongs to: /sys/devices/system/node/nodeN/cpuN. */
static int node_of_cpu(int cpu)
{
	char path[96];
	int n;

	for (n = 0; n < MAX_NODES; n++) {
		snprintf(path, sizeof(path),
			 "/sys/devices/system/node/node%d/cpu%d", n, cpu);
		if (!access(path, F_OK))
			return n;
	}
	return -1;
}

static void run_on(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		die("sched_setaffinity");
}

static void set_policy(int mode, const char *nodes)
{
	unsigned long mask = 0;
	const char *p = nodes;
	char *end;
	long n;

	while (*p) {
		n = strtol(p, &end, 10);
		if (end == p || n < 0 || n >= MAX_NODES) {
			fprintf(stderr, "numa_probe: bad node list %s\n", nodes);
			exit(2);
		}
		mask |= 1UL << n;
		p = *end == ',' ? end + 1 : end;
	}
	if (syscall(SYS_set_mempolicy, mode, &mask, MAX_NODES + 1))
		die("set_mempolicy");
}

static long node_vmstat(int node, const char *key)
{
	char path[96], name[64];
	long val, found = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/vmstat",
		 node);
	f = fopen(path, "r");
	if (!f)
		die(path);
	while (fscanf(f, "%63s %ld", name, &val) == 2)
		if (!strcmp(name, key)) {
			found = val;
			break;
		}
	fclose(f);
	return found;
}

static long node_free_kb(int node)
{
	char path[96], line[256];
	long kb = -1;
	int n;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/meminfo",
		 node);
	f = fopen(path, "r");
	if (!f)
		die(path);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Node %d MemFree: %ld kB", &n, &kb) == 2)
			break;
	fclose(f);
	return kb;
}

static int probe_secret(int argc, char **argv)
{
	int cpu = -1, free_on = -1, mode = 0, fd, hfd, pm, i, node;
	const char *policy = "default", *nodes = NULL, *hold = NULL;
	unsigned long count[MAX_NODES] = { 0 }, unknown = 0;
	uint64_t entry;
	long pages;
	char *p, *q;

	for (i = 2; i < argc - 1; i++) {
		if (!strcmp(argv[i], "--cpu")) {
			cpu = atoi(argv[++i]);
		} else if (!strcmp(argv[i], "--free-on")) {
			free_on = atoi(argv[++i]);
		} else if (!strcmp(argv[i], "--hold")) {
			hold = argv[++i];
		} else if (!strcmp(argv[i], "--policy") && i + 2 < argc - 1) {
			policy = argv[++i];
			nodes = argv[++i];
			if (!strcmp(policy, "bind"))
				mode = MPOL_BIND;
			else if (!strcmp(policy, "interleave"))
				mode = MPOL_INTERLEAVE;
			else if (!strcmp(policy, "preferred"))
				mode = MPOL_PREFERRED;
		} else {
			break;
		}
	}
	if (i != argc - 1 || (nodes && !mode)) {
		fprintf(stderr, "numa_probe: bad arguments to secret\n");
		return 2;
	}
	pages = atol(argv[argc - 1]);
	if (pages <= 0)
		return 2;

	read_zoneinfo();
	if (cpu >= 0)
		run_on(cpu);
	if (mode)
		set_policy(mode, nodes);

	fd = syscall(__NR_memfd_secret, 0);
	if (fd < 0)
		die("memfd_secret");
	if (ftruncate(fd, pages * 4096))
		die("ftruncate");
	p = mmap(NULL, pages * 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		die("mmap");
	for (i = 0; i < pages; i++)
		memset(p + (long)i * 4096, 0x5a, 64);

	pm = open("/proc/self/pagemap", O_RDONLY);
	if (pm < 0)
		die("/proc/self/pagemap");
	for (i = 0; i < pages; i++) {
		off_t off = ((uintptr_t)p / 4096 + i) * sizeof(entry);

		if (pread(pm, &entry, sizeof(entry), off) != sizeof(entry))
			die("pagemap");
		node = (entry & PM_PRESENT) ?
		       node_of_pfn(entry & PM_PFN_MASK) : -1;
		if (node < 0 || node >= MAX_NODES || !(entry & PM_PFN_MASK))
			unknown++;
		else
			count[node]++;
	}
	close(pm);
	printf("numa_probe: secret cpu=%d node_of_cpu=%d policy=%s%s%s",
	       sched_getcpu(), node_of_cpu(sched_getcpu()), policy,
	       nodes ? ":" : "", nodes ? nodes : "");
	printf(" pages=%ld node0=%lu node1=%lu unknown=%lu\n",
	       pages, count[0], count[1], unknown);
	fflush(stdout);

	/*
	 * The file's pages sit in this CPU's LRU batches with a reference
	 * each until the batch is drained; munmap() drains this CPU's, so
	 * that each page is freed where the file is closed and no later.
	 */
	q = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (q == MAP_FAILED || munmap(q, 4096))
		die("mmap/munmap");

	if (hold) {
		hfd = open(hold, O_CREAT | O_WRONLY, 0644);
		if (hfd < 0)
			die(hold);
		close(hfd);
		while (!access(hold, F_OK))
			usleep(20000);
	}
	if (free_on >= 0)
		run_on(free_on);
	if (munmap(p, pages * 4096))
		die("munmap");
	close(fd);
	return unknown ? 1 : 0;
}

static int probe_hog(int argc, char **argv)
{
	long held_before, held, free_kb, mb = 0;
	int node;
	char buf[8];
	char *p;

	if (argc != 5 || strcmp(argv[2], "--node") ||
	    strcmp(argv[4], "--until-held-drops")) {
		fprintf(stderr, "numa_probe: bad arguments to hog\n");
		return 2;
	}
	node = atoi(argv[3]);
	snprintf(buf, sizeof(buf), "%d", node);
	prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0);
	set_policy(MPOL_BIND, buf);
	held_before = node_vmstat(node, "nr_unmapped_cache_held");
	if (held_before < 0) {
		fprintf(stderr, "numa_probe: no nr_unmapped_cache_held\n");
		return 2;
	}
	held = held_before;
	/* Never past the node's memory: with nothing else to reclaim, OOM. */
	while (held >= held_before) {
		free_kb = node_free_kb(node);
		if (free_kb < 1024)
			break;
		/* Near the watermarks: give the node's kswapd time to run. */
		if (free_kb < 8192)
			usleep(50000);
		p = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
		if (p == MAP_FAILED)
			break;
		mb++;
		held = node_vmstat(node, "nr_unmapped_cache_held");
	}
	printf("numa_probe: hog node=%d mb=%ld held_before=%ld held_after=%ld\n",
	       node, mb, held_before, held);
	return held < held_before ? 0 : 1;
}

int main(int argc, char **argv)
{
	if (argc > 2 && !strcmp(argv[1], "secret"))
		return probe_secret(argc, argv);
	if (argc > 2 && !strcmp(argv[1], "hog"))
		return probe_hog(argc, argv);
	fputs("usage: numa_probe secret [--cpu C] [--hold FILE] [--free-on C]\n", stderr);
	fputs("                         [--policy bind|interleave|preferred NODES] PAGES\n",
	      stderr);
	fputs("       numa_probe hog --node N --until-held-drops\n", stderr);
	return 2;
}
