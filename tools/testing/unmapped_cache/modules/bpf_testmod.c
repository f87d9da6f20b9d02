// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_testmod: an empty module under the name of BPF's selftest module,
 * for test_verifier in make peer-check (jobs/peers.sh).
 *
 * test_verifier loads "bpf_testmod.ko" from its directory before its
 * cases and stops if it cannot.  The real module
 * (tools/testing/selftests/bpf/bpf_testmod/) registers kfuncs, which
 * needs BTF, and the test kernel has none (CONFIG_DEBUG_INFO_NONE: a
 * kernel with DWARF and BTF would not build within make check's budget).
 * With this one loaded instead, the cases that call bpf_testmod's kfuncs
 * fail for want of their BTF IDs, with the cache off and on alike; every
 * other case runs as written.
 */
#include <linux/module.h>

MODULE_DESCRIPTION("Empty stand-in for BPF's bpf_testmod (no BTF in the test kernel)");
MODULE_LICENSE("GPL");
