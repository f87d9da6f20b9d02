// SPDX-License-Identifier: GPL-2.0
/*
 * kcore_peek - read a few bytes of kernel memory through /proc/kcore.
 *
 * Usage: kcore_peek ADDR LEN
 *	(ADDR: a kernel virtual address, hex with 0x or decimal;
 *	 LEN: 1 to 65536 bytes)
 *
 * The positive control of the kcore check: kcore_scan proves that secret
 * memory does not show through /proc/kcore, which means something only if
 * /proc/kcore does show the memory that it should.  kcore_peek finds the
 * PT_LOAD segment of /proc/kcore that covers [ADDR, ADDR + LEN), reads the
 * bytes there and prints them on one line in hex (two lowercase digits a
 * byte, no separators), so that the test can compare them with what the
 * kernel reports through the memory's own mapping (for instance the JITed
 * image of a BPF program, from BPF_OBJ_GET_INFO_BY_FD).  Exits 0 if it
 * printed the bytes, 1 with a message on stderr if no segment covers the
 * range or a read failed, 2 on a usage error.  Needs CAP_SYS_RAWIO.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/elf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#define MAX_LEN	65536

static unsigned char buf[MAX_LEN];

/* Parse @s as hex with a 0x prefix or as decimal, the whole of it. */
static int parse_u64(const char *s, uint64_t *val)
{
	int base = 10;
	char *end;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	}
	if (!*s || *s == '-' || *s == '+')
		return -1;
	errno = 0;
	*val = strtoull(s, &end, base);
	return errno || *end ? -1 : 0;
}

/* pread() all of @len bytes at @off, or fail. */
static int pread_all(int fd, void *dst, size_t len, off_t off)
{
	unsigned char *p = dst;
	ssize_t n;

	while (len) {
		n = pread(fd, p, len, off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (!n)
				errno = EIO;	/* past the end of the file */
			return -1;
		}
		p += n;
		len -= n;
		off += n;
	}
	return 0;
}

int main(int argc, char **argv)
{
	uint64_t addr, len, delta;
	struct elf64_phdr ph;
	struct elf64_hdr eh;
	off_t off = -1;
	unsigned int i;
	int fd;

	if (argc != 3 || parse_u64(argv[1], &addr) ||
	    parse_u64(argv[2], &len) || !len || len > MAX_LEN ||
	    addr + len < addr) {
		fprintf(stderr, "usage: %s ADDR LEN (LEN 1..%u)\n", argv[0],
			MAX_LEN);
		return 2;
	}

	fd = open("/proc/kcore", O_RDONLY | O_CLOEXEC);
	if (fd < 0 || pread_all(fd, &eh, sizeof(eh), 0)) {
		perror("/proc/kcore");
		return 1;
	}
	if (memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_phentsize != sizeof(ph)) {
		fprintf(stderr, "/proc/kcore: not an ELF64 file with %zu-byte program headers\n",
			sizeof(ph));
		return 1;
	}

	for (i = 0; i < eh.e_phnum; i++) {
		if (pread_all(fd, &ph, sizeof(ph),
			      (off_t)(eh.e_phoff + (uint64_t)i * sizeof(ph)))) {
			fprintf(stderr, "program header %u: %s\n", i,
				strerror(errno));
			return 1;
		}
		if (ph.p_type != PT_LOAD || addr < ph.p_vaddr)
			continue;
		delta = addr - ph.p_vaddr;
		if (delta > ph.p_memsz || len > ph.p_memsz - delta)
			continue;
		/* The file offset must fit in an off_t. */
		if (ph.p_offset > (uint64_t)INT64_MAX - len ||
		    delta > (uint64_t)INT64_MAX - len - ph.p_offset)
			continue;
		off = (off_t)(ph.p_offset + delta);
		break;
	}
	if (off < 0) {
		fprintf(stderr, "no PT_LOAD segment of /proc/kcore covers %#llx-%#llx\n",
			(unsigned long long)addr,
			(unsigned long long)(addr + len));
		return 1;
	}

	if (pread_all(fd, buf, len, off)) {
		fprintf(stderr, "read of %llu bytes at %#llx: %s\n",
			(unsigned long long)len, (unsigned long long)addr,
			strerror(errno));
		return 1;
	}
	close(fd);

	for (i = 0; i < len; i++)
		printf("%02x", buf[i]);
	printf("\n");
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "stdout: %s\n", strerror(errno));
		return 1;
	}
	return 0;
}
