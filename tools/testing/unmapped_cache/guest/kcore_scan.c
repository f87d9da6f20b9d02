// SPDX-License-Identifier: GPL-2.0
/*
 * kcore_scan - read /proc/kcore while secret pages are live, and look for
 * their contents.
 *
 * Usage: kcore_scan PAGES [--image-ok]
 *
 * A child maps PAGES pages of memfd_secret() memory and fills every page
 * with a 64-byte pattern computed byte by byte from a seed, so that the
 * pattern exists nowhere but in secret memory (the scanner also checks it
 * byte by byte, without a copy).  As a positive control, the child also
 * fills CONTROL_PAGES pages of ordinary anonymous memory, mlock()ed so
 * that they stay resident in the direct map, with a second pattern made
 * the same way from another seed: a scan that cannot find that one proves
 * nothing by not finding the secret.  The parent then reads every PT_LOAD
 * segment of /proc/kcore smaller than 64 GiB (the direct map, kernel text,
 * the module area; not the whole vmalloc space) and counts, in the same
 * pass, the places each pattern appears.  Prints
 *   UC-KCORE segments=N bytes=N found=N found_image=N control=N
 * (found: the secret pattern outside the kernel image's segment,
 * found_image: in it, control: the control pattern) and exits 0 only if
 * every read succeeded, the secret pattern was not found and the control
 * pattern was found at least once.
 *
 * The kernel image's segment (the one starting at _text, from
 * /proc/kallsyms) reads the image through the kernel's high mapping, which
 * also maps the image's memory freed after boot (init sections) and given
 * to the page allocator.  A stock kernel takes a secret page out of the
 * direct map only, so a secret page taken from that memory still shows
 * there unless the high mapping was removed (PTI does).  With --image-ok
 * such finds are counted and allowed (the stock kernel's figure); without
 * it they fail.
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
#define CONTROL_PAGES	4

/* Seeds of the secret pattern and of the control pattern. */
static unsigned int seed, control_seed;

static unsigned char pat_of(unsigned int s, unsigned int i)
{
	unsigned int x = (s ^ 0x9e3779b9u) * (i + 1) * 2654435761u;

	return (unsigned char)(x >> 24) | 1;	/* never 0: zeroes never match */
}

static unsigned char pat(unsigned int i)
{
	return pat_of(seed, i);
}

static unsigned char control_pat(unsigned int i)
{
	return pat_of(control_seed, i);
}

/* Ordinary memory, resident in the direct map, holding the control pattern. */
static int fill_control(long page)
{
	size_t len = CONTROL_PAGES * page, j;
	unsigned char *q;

	q = mmap(NULL, len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (q == MAP_FAILED) {
		perror("mmap control");
		return 1;
	}
	for (j = 0; j < len; j++)
		q[j] = control_pat(j % PAT_LEN);
	if (mlock(q, len)) {
		perror("mlock control");
		return 1;
	}
	return 0;
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
	if (fill_control(page))
		return 1;
	if (write(ready, "r", 1) != 1)
		return 1;
	pause();
	return 0;
}

/* Count the secret and the control pattern in @buf. */
static void scan(const unsigned char *buf, size_t len, unsigned long *found,
		 unsigned long *control)
{
	unsigned char first = pat(0), control_first = control_pat(0);
	size_t i, k;

	for (i = 0; i + PAT_LEN <= len; i++) {
		if (buf[i] == first) {
			for (k = 1; k < PAT_LEN && buf[i + k] == pat(k); k++)
				;
			*found += k == PAT_LEN;
		}
		if (buf[i] == control_first) {
			for (k = 1; k < PAT_LEN && buf[i + k] == control_pat(k);
			     k++)
				;
			*control += k == PAT_LEN;
		}
	}
}

/* The address of _text in /proc/kallsyms, or 0 if it cannot be read. */
static unsigned long image_start(void)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	unsigned long addr, text = 0;
	char type, name[256];

	if (!f)
		return 0;
	while (fscanf(f, "%lx %c %255s%*[^\n]", &addr, &type, name) == 3) {
		if (!strcmp(name, "_text")) {
			text = addr;
			break;
		}
	}
	fclose(f);
	return text;
}

int main(int argc, char **argv)
{
	unsigned long pages = argc >= 2 ? strtoul(argv[1], NULL, 0) : 0;
	int image_ok = argc == 3 && !strcmp(argv[2], "--image-ok");
	unsigned long found = 0, found_image = 0, control = 0, bytes = 0;
	unsigned long segs = 0, text = image_start();
	int pipefd[2], fd, rc = 0, i;
	unsigned char *buf;
	struct elf64_hdr eh;
	pid_t pid;
	char c;

	if (!pages || (argc == 3 && !image_ok) || argc > 3) {
		fprintf(stderr, "usage: %s PAGES [--image-ok]\n", argv[0]);
		return 2;
	}
	seed = (unsigned int)getpid() * 2246822519u;
	control_seed = seed ^ 0x5bd1e995u;
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
			scan(buf, len, text && ph.p_vaddr == text ?
				       &found_image : &found, &control);
		}
	}
out:
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	printf("UC-KCORE segments=%lu bytes=%lu found=%lu found_image=%lu control=%lu\n",
	       segs, bytes, found, found_image, control);
	return rc || found || (found_image && !image_ok) || !control || !segs;
}
