// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_load - stress the BPF JIT's executable-memory allocator.
 *
 * Usage: bpf_load [-n NPROGS] [-s SEED] [-r ROUNDS] [-H FILE]
 *	(defaults: 2000 programs, seed 1, 1 round; 0 rounds with -H)
 *
 * Loads NPROGS straight-line socket filter programs whose length is picked
 * roughly log-uniformly between 4 and 8000 BPF instructions, so the JITed
 * images range from tens of bytes to tens of KiB.  Each program computes a
 * 64-bit value with ALU64 add/sub/xor/mul immediates and returns it; the
 * loader computes the same value and checks it (truncated to u32) against
 * the retval of one BPF_PROG_TEST_RUN.  Every program must be JIT-compiled
 * (jited_prog_len > 0).  Then, ROUNDS times, half of the programs are
 * closed in random order and replaced by new programs of the same lengths,
 * which are test-run again.  Raw bpf(2) syscalls, no libbpf; must run as
 * root.  Ends with one line:
 *
 * UC-BPF progs=<loads incl. reloads> runs=<test runs> bad=<mismatches>
 *	jit_min=<bytes> jit_max=<bytes> jit_total=<bytes of first load wave>
 *
 * (all on one line) and exits 0 only if everything passed.
 *
 * A kernel without CONFIG_NET (the debug and RT test kernels; no
 * /proc/net) has neither socket filters nor BPF_PROG_TEST_RUN: the same
 * programs are then loaded as sleepable BPF_PROG_TYPE_SYSCALL programs,
 * which go through the same JIT and program packs, and are not run (runs=0);
 * the line ends with " mode=load-only".  Hold mode needs the test runs.
 *
 * With -H FILE (hold mode) the programs stay loaded after that line, for a
 * test that hibernates or inspects the kernel meanwhile.  The reload rounds
 * are skipped unless -r is given too, and the loader exits 1 right after
 * the UC-BPF line if anything failed so far.  Otherwise it prints, for the
 * programs in the first and the last slot (the first and the last one
 * loaded, unless a reload round replaced them: the first may share a pack
 * with programs the kernel loaded at boot, the last is in the newest
 * pack), the address and the start of its JITed image as
 * BPF_OBJ_GET_INFO_BY_FD reports them (which needs kptr_restrict to allow
 * raw dumps):
 *
 * UC-BPF-JIT prog=<slot> addr=0x<jited_ksyms[0]> len=<jited_prog_len>
 *	bytes=<first min(64, len) bytes of the image, in hex>
 *
 * (one line each), creates the empty FILE to tell the caller that it is
 * ready, and waits for SIGUSR1.  Then it test-runs every live program once
 * more, checks the retval as before and prints
 *
 * UC-BPF-HOLD progs=<programs checked> runs=<test runs>
 *	bad=<mismatches or failed runs>
 *
 * (all on one line), exiting 0 only if every program ran and bad is 0.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <linux/bpf.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MIN_INSNS	4
#define MAX_INSNS	8000
#define PKT_LEN		64
#define LOG_SIZE	(4U << 20)
/* Bytes of the JITed image printed in hold mode. */
#define JIT_DUMP	64

struct prog {
	int fd;
	unsigned int insns;	/* program length in BPF instructions */
	unsigned int gen;	/* how many times this slot was (re)loaded */
	uint32_t expect;	/* expected test-run retval */
};

static struct bpf_insn insn_buf[MAX_INSNS];
static unsigned char pkt[PKT_LEN];
static uint64_t seed = 1;
static unsigned long long nr_loads, nr_runs, nr_bad;
/* No CONFIG_NET: load SYSCALL programs, run nothing (see the top). */
static int load_only;
static unsigned long long jit_min = ~0ULL, jit_max, jit_total;

static long sys_bpf(int cmd, union bpf_attr *attr)
{
	return syscall(__NR_bpf, cmd, attr, sizeof(*attr));
}

/* splitmix64: mixes a key into a well-spread 64-bit value. */
static uint64_t mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

/* xorshift64*; the state must never be zero. */
static uint64_t rnd(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dULL;
}

static struct bpf_insn alu64_imm(int op, int32_t imm)
{
	struct bpf_insn insn = {
		.code = BPF_ALU64 | op | BPF_K,
		.dst_reg = BPF_REG_0,
		.imm = imm,
	};

	return insn;
}

/*
 * Fill insn_buf with a cnt-instruction program: r0 = 64-bit constant,
 * cnt - 3 ALU64 ops on r0 with immediates, exit.  Everything is derived
 * from key.  Returns the value the program returns, truncated to u32.
 */
static uint32_t gen_prog(unsigned int cnt, uint64_t key)
{
	static const int ops[] = { BPF_ADD, BPF_SUB, BPF_XOR, BPF_MUL };
	uint64_t s = mix64(key) | 1, r0 = rnd(&s), r;
	struct bpf_insn *insn = insn_buf;
	unsigned int i;

	memset(insn_buf, 0, cnt * sizeof(*insn));
	insn[0].code = BPF_LD | BPF_DW | BPF_IMM;
	insn[0].dst_reg = BPF_REG_0;
	insn[0].imm = (int32_t)(uint32_t)r0;
	insn[1].imm = (int32_t)(uint32_t)(r0 >> 32);
	for (i = 2; i < cnt - 1; i++) {
		int op = ops[(r = rnd(&s)) & 3];
		int32_t imm = (int32_t)(r >> 32);
		uint64_t v;

		/* Half the immediates fit in 8 bits: shorter x86 encodings. */
		if (r & 4)
			imm = (int8_t)imm;
		/* Odd multipliers keep r0 from collapsing to zero. */
		if (op == BPF_MUL)
			imm |= 1;
		v = (uint64_t)(int64_t)imm;	/* ALU64 sign-extends imm */
		switch (op) {
		case BPF_ADD:
			r0 += v;
			break;
		case BPF_SUB:
			r0 -= v;
			break;
		case BPF_XOR:
			r0 ^= v;
			break;
		default:
			r0 *= v;
			break;
		}
		insn[i] = alu64_imm(op, imm);
	}
	insn[cnt - 1].code = BPF_JMP | BPF_EXIT;
	return (uint32_t)r0;
}

static void load_prog(struct prog *p, unsigned int idx, int first_wave)
{
	union bpf_attr attr;
	struct bpf_prog_info info;
	char *log;
	int fd, err;

	p->gen++;
	p->expect = gen_prog(p->insns, seed ^ mix64(((uint64_t)p->gen << 32) |
						   idx));
	memset(&attr, 0, sizeof(attr));
	attr.prog_type = BPF_PROG_TYPE_SOCKET_FILTER;
	if (load_only) {
		attr.prog_type = BPF_PROG_TYPE_SYSCALL;
		attr.prog_flags = BPF_F_SLEEPABLE;
	}
	attr.insn_cnt = p->insns;
	attr.insns = (uintptr_t)insn_buf;
	attr.license = (uintptr_t)"GPL";
	memcpy(attr.prog_name, "uc_bpf_load", sizeof("uc_bpf_load"));
	fd = sys_bpf(BPF_PROG_LOAD, &attr);
	if (fd < 0) {
		err = errno;
		fprintf(stderr, "BPF_PROG_LOAD prog %u (%u insns): %s\n",
			idx, p->insns, strerror(err));
		log = calloc(1, LOG_SIZE);
		if (log) {
			attr.log_level = 1;
			attr.log_size = LOG_SIZE;
			attr.log_buf = (uintptr_t)log;
			fd = sys_bpf(BPF_PROG_LOAD, &attr);
			fprintf(stderr, "retry with log: %s\n--- verifier log ---\n%s\n",
				fd < 0 ? strerror(errno) : "loaded?!", log);
		}
		exit(1);
	}
	p->fd = fd;
	nr_loads++;

	memset(&info, 0, sizeof(info));
	memset(&attr, 0, sizeof(attr));
	attr.info.bpf_fd = fd;
	attr.info.info_len = sizeof(info);
	attr.info.info = (uintptr_t)&info;
	if (sys_bpf(BPF_OBJ_GET_INFO_BY_FD, &attr)) {
		fprintf(stderr, "BPF_OBJ_GET_INFO_BY_FD prog %u: %s\n",
			idx, strerror(errno));
		exit(1);
	}
	if (!info.jited_prog_len) {
		fprintf(stderr, "prog %u (%u insns) was not JIT-compiled\n",
			idx, p->insns);
		exit(1);
	}
	if (info.jited_prog_len < jit_min)
		jit_min = info.jited_prog_len;
	if (info.jited_prog_len > jit_max)
		jit_max = info.jited_prog_len;
	if (first_wave)
		jit_total += info.jited_prog_len;
}

/*
 * Test-run @p once and check its retval.  Returns 0 if it matched, 1 on a
 * mismatch (counted in nr_bad) and -1 if the run itself failed, which ends
 * the program unless @may_fail.
 */
static int run_prog(struct prog *p, unsigned int idx, int may_fail)
{
	union bpf_attr attr;

	if (load_only)
		return 0;
	memset(&attr, 0, sizeof(attr));
	attr.test.prog_fd = p->fd;
	attr.test.data_in = (uintptr_t)pkt;
	attr.test.data_size_in = sizeof(pkt);
	attr.test.repeat = 1;
	if (sys_bpf(BPF_PROG_TEST_RUN, &attr)) {
		fprintf(stderr, "BPF_PROG_TEST_RUN prog %u: %s\n",
			idx, strerror(errno));
		if (!may_fail)
			exit(1);
		return -1;
	}
	nr_runs++;
	if (attr.test.retval != p->expect) {
		fprintf(stderr, "prog %u gen %u (%u insns): retval %#x, expected %#x\n",
			idx, p->gen, p->insns, attr.test.retval, p->expect);
		nr_bad++;
		return 1;
	}
	return 0;
}

/*
 * Print the UC-BPF-JIT line of @p: the address of its JITed image and its
 * first bytes, as BPF_OBJ_GET_INFO_BY_FD copies them.  A first call learns
 * the sizes, a second one fetches the image and the address.
 */
/* BPF_OBJ_GET_INFO_BY_FD of @p into @info (which says what to fetch). */
static void get_info(struct prog *p, unsigned int idx,
		     struct bpf_prog_info *info)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.info.bpf_fd = p->fd;
	attr.info.info_len = sizeof(*info);
	attr.info.info = (uintptr_t)info;
	if (sys_bpf(BPF_OBJ_GET_INFO_BY_FD, &attr)) {
		fprintf(stderr, "BPF_OBJ_GET_INFO_BY_FD prog %u: %s\n",
			idx, strerror(errno));
		exit(1);
	}
}

static void print_jit(struct prog *p, unsigned int idx)
{
	struct bpf_prog_info info;
	uint64_t ksym = 0;
	unsigned char *img;
	uint32_t len, i;

	memset(&info, 0, sizeof(info));
	get_info(p, idx, &info);
	len = info.jited_prog_len;
	if (!len || !info.nr_jited_ksyms) {
		fprintf(stderr, "prog %u: jited_prog_len %u, nr_jited_ksyms %u\n",
			idx, len, info.nr_jited_ksyms);
		exit(1);
	}
	img = calloc(1, len);
	if (!img) {
		fprintf(stderr, "calloc: %s\n", strerror(errno));
		exit(1);
	}

	memset(&info, 0, sizeof(info));
	info.nr_jited_ksyms = 1;
	info.jited_ksyms = (uintptr_t)&ksym;
	info.jited_prog_len = len;
	info.jited_prog_insns = (uintptr_t)img;
	get_info(p, idx, &info);
	/* Without raw dumps allowed, the kernel zeroes both pointers. */
	if (!ksym || !info.jited_ksyms || !info.jited_prog_insns ||
	    info.jited_prog_len != len) {
		fprintf(stderr, "prog %u: JIT addr %#llx, len %u of %u (kptr_restrict?)\n",
			idx, (unsigned long long)ksym, info.jited_prog_len,
			len);
		exit(1);
	}

	printf("UC-BPF-JIT prog=%u addr=0x%llx len=%u bytes=", idx,
	       (unsigned long long)ksym, len);
	for (i = 0; i < len && i < JIT_DUMP; i++)
		printf("%02x", img[i]);
	printf("\n");
	free(img);
}

/* Create the empty @path, telling the caller that the programs are held. */
static void signal_ready(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	if (fd < 0 || close(fd)) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		exit(1);
	}
}

/*
 * Hold mode, after the UC-BPF line: print the UC-BPF-JIT line, create
 * @ready, wait for SIGUSR1 (already blocked), test-run every live program
 * again and print the UC-BPF-HOLD line.  Returns the exit status.
 */
static int hold(struct prog *progs, unsigned int nprogs, const char *ready,
		const sigset_t *usr1)
{
	unsigned long long checked = 0, runs = 0, bad = 0;
	unsigned int i;
	int sig, err, r;

	print_jit(&progs[0], 0);
	if (nprogs > 1)
		print_jit(&progs[nprogs - 1], nprogs - 1);
	/* The caller may read stdout as soon as @ready exists. */
	if (fflush(stdout)) {
		fprintf(stderr, "stdout: %s\n", strerror(errno));
		return 1;
	}
	signal_ready(ready);

	do {
		err = sigwait(usr1, &sig);
	} while (err == EINTR);
	if (err) {
		fprintf(stderr, "sigwait: %s\n", strerror(err));
		return 1;
	}

	for (i = 0; i < nprogs; i++) {
		if (progs[i].fd < 0)
			continue;
		checked++;
		r = run_prog(&progs[i], i, 1);
		if (r >= 0)
			runs++;
		if (r)
			bad++;
	}
	printf("UC-BPF-HOLD progs=%llu runs=%llu bad=%llu\n",
	       checked, runs, bad);
	return bad || checked != nprogs || runs != nprogs;
}

static void raise_limits(unsigned int nprogs)
{
	struct rlimit rl = { RLIM_INFINITY, RLIM_INFINITY };
	rlim_t need = nprogs + 64;

	setrlimit(RLIMIT_MEMLOCK, &rl);	/* only matters on old kernels */

	if (getrlimit(RLIMIT_NOFILE, &rl)) {
		fprintf(stderr, "getrlimit(RLIMIT_NOFILE): %s\n",
			strerror(errno));
		exit(1);
	}
	if (rl.rlim_cur >= need)
		return;
	if (rl.rlim_max < need)
		rl.rlim_max = need < 4096 ? 4096 : need;
	rl.rlim_cur = rl.rlim_max;
	if (setrlimit(RLIMIT_NOFILE, &rl)) {
		fprintf(stderr, "setrlimit(RLIMIT_NOFILE, %llu): %s (need %llu fds)\n",
			(unsigned long long)rl.rlim_cur, strerror(errno),
			(unsigned long long)need);
		exit(1);
	}
}

static void print_usage(const char *argv0)
{
	fprintf(stderr, "usage: %s [-n NPROGS] [-s SEED] [-r ROUNDS] [-H FILE]\n",
		argv0);
	exit(2);
}

int main(int argc, char **argv)
{
	unsigned int nprogs = 2000, rounds = 1, i, j, round;
	const char *ready = NULL;
	int opt, rounds_set = 0, rc;
	struct prog *progs;
	unsigned int *order;
	sigset_t usr1;
	uint64_t s;

	while ((opt = getopt(argc, argv, "n:s:r:H:")) != -1) {
		switch (opt) {
		case 'n':
			nprogs = strtoul(optarg, NULL, 0);
			break;
		case 's':
			seed = strtoull(optarg, NULL, 0);
			break;
		case 'r':
			rounds = strtoul(optarg, NULL, 0);
			rounds_set = 1;
			break;
		case 'H':
			ready = optarg;
			break;
		default:
			print_usage(argv[0]);
		}
	}
	if (optind != argc || !nprogs || nprogs > 1000000)
		print_usage(argv[0]);
	if (ready && !rounds_set)
		rounds = 0;
	load_only = access("/proc/net", F_OK) != 0;
	if (load_only && ready) {
		fprintf(stderr, "hold mode needs BPF_PROG_TEST_RUN (CONFIG_NET)\n");
		return 1;
	}
	/*
	 * Hold mode takes SIGUSR1 with sigwait(), so it stays blocked from
	 * now on: one sent before the wait is kept pending, not lost.
	 */
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	if (ready && sigprocmask(SIG_BLOCK, &usr1, NULL)) {
		fprintf(stderr, "sigprocmask: %s\n", strerror(errno));
		return 1;
	}

	raise_limits(nprogs);
	progs = calloc(nprogs, sizeof(*progs));
	order = calloc(nprogs, sizeof(*order));
	if (!progs || !order) {
		fprintf(stderr, "calloc: %s\n", strerror(errno));
		return 1;
	}
	for (i = 0; i < PKT_LEN; i++)
		pkt[i] = i;

	/* Lengths: a random power of two in [4, 4096], plus up to itself. */
	s = mix64(seed) | 1;
	for (i = 0; i < nprogs; i++) {
		unsigned int e = 2 + rnd(&s) % 11;
		unsigned int n = (1U << e) + rnd(&s) % (1U << e);

		progs[i].insns = n < MIN_INSNS ? MIN_INSNS :
				 n > MAX_INSNS ? MAX_INSNS : n;
		progs[i].fd = -1;
	}

	for (i = 0; i < nprogs; i++)
		load_prog(&progs[i], i, 1);
	for (i = 0; i < nprogs; i++)
		run_prog(&progs[i], i, 0);

	for (i = 0; i < nprogs; i++)
		order[i] = i;
	for (round = 0; round < rounds; round++) {
		/* Fisher-Yates shuffle; the first half gets replaced. */
		for (i = nprogs - 1; i > 0; i--) {
			unsigned int t;

			j = rnd(&s) % (i + 1);
			t = order[i];
			order[i] = order[j];
			order[j] = t;
		}
		for (i = 0; i < nprogs / 2; i++) {
			close(progs[order[i]].fd);
			progs[order[i]].fd = -1;
		}
		for (i = 0; i < nprogs / 2; i++)
			load_prog(&progs[order[i]], order[i], 0);
		for (i = 0; i < nprogs / 2; i++)
			run_prog(&progs[order[i]], order[i], 0);
	}

	/* Hold mode keeps the programs for after the UC-BPF line. */
	if (!ready)
		for (i = 0; i < nprogs; i++)
			close(progs[i].fd);

	printf("UC-BPF progs=%llu runs=%llu bad=%llu jit_min=%llu jit_max=%llu jit_total=%llu%s\n",
	       nr_loads, nr_runs, nr_bad, jit_min, jit_max, jit_total,
	       load_only ? " mode=load-only" : "");
	rc = nr_bad ? 1 : 0;
	if (ready && !rc) {
		rc = hold(progs, nprogs, ready, &usr1);
		for (i = 0; i < nprogs; i++)
			close(progs[i].fd);
	}
	free(progs);
	free(order);
	return rc;
}
