// SPDX-License-Identifier: GPL-2.0
/* getpid - call getpid(2) once; a target for the bpftrace smoke test. */
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(void)
{
	printf("pid %ld\n", (long)syscall(SYS_getpid));
	return 0;
}
