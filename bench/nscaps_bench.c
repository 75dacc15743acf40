// SPDX-License-Identifier: GPL-2.0
/*
 * The hot paths of capabilities relative to user namespaces, timed in the
 * guest: make bench boots this on the stock kernel and on ours in turn.
 *
 * Real root (the orchestrator) first places targets, tasks that only
 * pause, in a chain of user namespaces that alice creates, then times each
 * operation from a worker with the credentials the path needs:
 *
 *   init_user_ns    root (all caps), carol (1002, none), alice (1000, none)
 *   |
 *   +- A1           created by alice; target T1 (alice, kuid 1000)
 *   |  +- A2 .. A8                    target T8
 *   |     +- .. A32                   target T32
 *   +- O            created by alice, maps "0 200000 1000"; target TO
 *                   (uid 0 of O, kuid 200000: not alice on the host)
 *
 *   op                        who     on          cap_capable() path
 *   sethostname_ok_own        alice   own uts ns  own namespace, allowed
 *   sethostname_eperm_own     alice   own uts ns  own namespace, denied
 *   kill_ok_depthD            root    T1,T8,T32   walks D levels, allowed
 *   kill_eperm_depthD         carol   T1,T8,T32   walks D levels, denied
 *   kill_owner                alice   TO          the owner rule
 *   ptrace_read_depth1        root    T1          ptrace_may_access()
 *   ptrace_read_owner         alice   TO          ptrace_may_access(), owner
 *   clone_vm_exit             alice   -           control for the next one
 *   clone_vm_unshare_userns   alice   -           creates, frees a userns
 *
 * Each operation runs a warm-up, then a fixed number of iterations in five
 * rounds, the fastest of which counts, timed with the time stamp counter:
 * the guest's clocksource may be as coarse as a jiffy, and under TCG the TSC
 * is the host's, or, under QEMU's -icount shift=0, the count of guest
 * instructions executed, so the same figure is then an instruction count.
 * Ticks are turned into nanoseconds against CLOCK_MONOTONIC over half a
 * second.  Output, one line per operation:
 *
 *   bench,LABEL,OP,ITERATIONS,TICKS_PER_OP,NS_PER_OP
 *
 * Usage: nscaps_bench [-l LABEL] [-m MASK] [-s SCALE]
 *   -m MASK   write MASK (hex) to kernel.userns_cap_mask for the run and
 *             restore it afterwards (our kernel only)
 *   -s SCALE  multiply every iteration count (default 1)
 */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#define ALICE	1000
#define CAROL	1002
#define DEPTH	32
#define MASK_SYSCTL "/proc/sys/kernel/userns_cap_mask"

static const char *label = "default";
static long scale = 1;

static void __attribute__((noreturn)) die(const char *what)
{
	fprintf(stderr, "nscaps_bench: %s: %s\n", what, strerror(errno));
	exit(2);
}

static void write_text(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY);

	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		die(path);
	close(fd);
}

static void proc_write(pid_t pid, const char *file, const char *text)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/%s", pid, file);
	write_text(path, text);
}

static void drop_to(uid_t uid)
{
	if (setgroups(0, NULL) || setresgid(uid, uid, uid) ||
	    setresuid(uid, uid, uid))
		die("setresuid");
	/* A uid change makes a task non-dumpable: /proc/self/ would be root's. */
	prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
}

/* An unprivileged creator maps itself to uid 0 of its new namespace. */
static void unshare_self_mapped(int flags)
{
	char map[32];
	uid_t uid = geteuid();
	gid_t gid = getegid();

	if (unshare(CLONE_NEWUSER | flags))
		die("unshare");
	snprintf(map, sizeof(map), "0 %u 1", uid);
	write_text("/proc/self/uid_map", map);
	write_text("/proc/self/setgroups", "deny");
	snprintf(map, sizeof(map), "0 %u 1", gid);
	write_text("/proc/self/gid_map", map);
}

static double ticks_per_ns;

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void calibrate(void)
{
	double t0 = now_ns(), t;
	unsigned long long c0 = __builtin_ia32_rdtsc();

	do
		t = now_ns();
	while (t - t0 < 5e8);
	ticks_per_ns = (__builtin_ia32_rdtsc() - c0) / (t - t0);
}

/*
 * Time @iters calls of @op after a tenth as many for warm-up, in ROUNDS
 * rounds, and keep the fastest round: on a shared host, a round that the
 * host preempted says nothing about the kernel.  Every warm-up call must
 * give @want (0 or an errno), or the figure would time another path.
 */
#define ROUNDS 5

static void timed(const char *name, long iters, int (*op)(void *), void *arg,
		  int want)
{
	unsigned long long t0;
	double ticks, best = 0;
	long i, per_round;
	int err, r;

	iters *= scale;
	per_round = iters / ROUNDS;
	for (i = 0; i < iters / 10 + 1; i++) {
		err = op(arg);
		if (err != want) {
			fprintf(stderr, "nscaps_bench: %s gave %s, expected %s\n",
				name, strerror(err), strerror(want));
			exit(2);
		}
	}
	for (r = 0; r < ROUNDS; r++) {
		t0 = __builtin_ia32_rdtsc();
		for (i = 0; i < per_round; i++)
			op(arg);
		ticks = (double)(__builtin_ia32_rdtsc() - t0) / per_round;
		if (!r || ticks < best)
			best = ticks;
	}
	printf("bench,%s,%s,%ld,%.1f,%.1f\n", label, name, iters, best,
	       best / ticks_per_ns);
	fflush(stdout);
}

static int op_sethostname(void *arg)
{
	return sethostname("bench", 5) ? errno : 0;
}

static int op_kill0(void *arg)
{
	return kill(*(pid_t *)arg, 0) ? errno : 0;
}

static int op_readlink_ns(void *arg)
{
	char buf[64];

	return readlink(arg, buf, sizeof(buf)) < 0 ? errno : 0;
}

static int child_exit(void *arg)
{
	_exit(0);
}

static int child_unshare(void *arg)
{
	_exit(unshare(CLONE_NEWUSER) ? 1 : 0);
}

static char clone_stack[64 * 1024] __attribute__((aligned(16)));

static int op_clone(void *fn)
{
	int status;
	pid_t pid;

	pid = clone(fn, clone_stack + sizeof(clone_stack),
		    CLONE_VM | CLONE_VFORK | SIGCHLD, NULL);
	if (pid < 0)
		return errno;
	if (waitpid(pid, &status, 0) != pid)
		return errno;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : EPERM;
}

/* Run @fn in a child as @uid with no capability; wait for it. */
static void as_user(uid_t uid, void (*fn)(void *), void *arg)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		die("fork");
	if (!pid) {
		drop_to(uid);
		fn(arg);
		exit(0);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		exit(2);
}

/* A target: tell the parent our pid through @fd, then wait to be killed. */
static void __attribute__((noreturn)) park(int fd)
{
	pid_t self = getpid();

	if (write(fd, &self, sizeof(self)) != sizeof(self))
		die("pipe");
	for (;;)
		pause();
}

/* Alice's chain: a target at depths 1, 8 and 32; pids through @fd. */
static void make_chain(int fd)
{
	int depth;

	drop_to(ALICE);
	for (depth = 1; depth <= DEPTH; depth++) {
		unshare_self_mapped(0);
		if (depth != 1 && depth != 8 && depth != DEPTH)
			continue;
		switch (fork()) {
		case -1:
			die("fork");
		case 0:
			park(fd);
		}
	}
	park(fd);
}

/*
 * Alice's namespace O with root's multi-line map; its target is uid 0 of
 * O, which is kuid 200000.  Root writes the maps, as newuidmap would.
 */
static pid_t make_owned_target(void)
{
	int go[2], ready[2];
	pid_t pid, target;
	char c = 0;

	if (pipe(go) || pipe(ready))
		die("pipe");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid) {
		drop_to(ALICE);
		if (unshare(CLONE_NEWUSER))
			die("unshare");
		if (write(ready[1], &c, 1) != 1 || read(go[0], &c, 1) != 1)
			die("pipe");
		if (setresuid(0, 0, 0))
			die("setresuid in O");
		prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
		park(ready[1]);
	}
	close(go[0]);
	close(ready[1]);
	if (read(ready[0], &c, 1) != 1)
		die("pipe");
	proc_write(pid, "uid_map", "0 200000 1000\n1000 1000 1\n");
	if (write(go[1], &c, 1) != 1 || read(ready[0], &target, sizeof(target)) !=
	    sizeof(target))
		die("pipe");
	return target;
}

static void bench_own_ns(void *arg)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2];

	unshare_self_mapped(CLONE_NEWUTS);
	timed("sethostname_ok_own", 100000, op_sethostname, NULL, 0);

	/* The same check, failing: CAP_SYS_ADMIN out of the effective set. */
	if (syscall(SYS_capget, &hdr, data))
		die("capget");
	data[CAP_TO_INDEX(CAP_SYS_ADMIN)].effective &= ~CAP_TO_MASK(CAP_SYS_ADMIN);
	if (syscall(SYS_capset, &hdr, data))
		die("capset");
	timed("sethostname_eperm_own", 100000, op_sethostname, NULL, EPERM);
}

static pid_t targets[3];
static const int depths[3] = { 1, 8, DEPTH };
static pid_t owned;

static void bench_kill_eperm(void *arg)
{
	char name[32];
	int i;

	for (i = 0; i < 3; i++) {
		snprintf(name, sizeof(name), "kill_eperm_depth%d", depths[i]);
		timed(name, 100000, op_kill0, &targets[i], EPERM);
	}
}

static void bench_owner(void *arg)
{
	char path[64];

	timed("kill_owner", 100000, op_kill0, &owned, 0);
	snprintf(path, sizeof(path), "/proc/%d/ns/uts", owned);
	timed("ptrace_read_owner", 20000, op_readlink_ns, path, 0);
}

static void bench_clone(void *arg)
{
	timed("clone_vm_exit", 3000, op_clone, child_exit, 0);
	timed("clone_vm_unshare_userns", 3000, op_clone, child_unshare, 0);
}

int main(int argc, char **argv)
{
	char old_mask[64] = "", name[32], path[64];
	int fds[2], opt, i;
	pid_t chain;

	while ((opt = getopt(argc, argv, "l:m:s:")) != -1) {
		switch (opt) {
		case 'l':
			label = optarg;
			break;
		case 'm':
			i = open(MASK_SYSCTL, O_RDONLY);
			if (i < 0 || read(i, old_mask, sizeof(old_mask) - 1) <= 0)
				die(MASK_SYSCTL);
			close(i);
			write_text(MASK_SYSCTL, optarg);
			break;
		case 's':
			scale = strtol(optarg, NULL, 10);
			if (scale < 1) {
				fprintf(stderr, "nscaps_bench: -s wants a positive count\n");
				return 2;
			}
			break;
		default:
			fprintf(stderr, "usage: nscaps_bench [-l LABEL] [-m MASK] [-s SCALE]\n");
			return 2;
		}
	}

	calibrate();
	if (pipe(fds))
		die("pipe");
	chain = fork();
	if (chain < 0)
		die("fork");
	if (!chain)
		make_chain(fds[1]);
	close(fds[1]);
	/* The chain's targets report in depth order; the creator last. */
	for (i = 0; i < 3; i++)
		if (read(fds[0], &targets[i], sizeof(pid_t)) != sizeof(pid_t))
			die("chain");
	if (read(fds[0], &chain, sizeof(pid_t)) != sizeof(pid_t))
		die("chain");
	owned = make_owned_target();

	as_user(ALICE, bench_own_ns, NULL);
	for (i = 0; i < 3; i++) {
		snprintf(name, sizeof(name), "kill_ok_depth%d", depths[i]);
		timed(name, 100000, op_kill0, &targets[i], 0);
	}
	as_user(CAROL, bench_kill_eperm, NULL);
	as_user(ALICE, bench_owner, NULL);
	snprintf(path, sizeof(path), "/proc/%d/ns/uts", targets[0]);
	timed("ptrace_read_depth1", 20000, op_readlink_ns, path, 0);
	as_user(ALICE, bench_clone, NULL);

	if (old_mask[0])
		write_text(MASK_SYSCTL, old_mask);
	for (i = 0; i < 3; i++)
		kill(targets[i], SIGKILL);
	kill(chain, SIGKILL);
	kill(owned, SIGKILL);
	return 0;
}
