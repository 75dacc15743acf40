// SPDX-License-Identifier: GPL-2.0
/*
 * The escape catalogue: an unprivileged user, through user namespaces,
 * tries to act outside what the rules allow.  Every attempt must fail with
 * the error the kernel documents, and leave the world as it was.
 *
 *   init user namespace       hostname nscaps-host, mask as set per attempt
 *   |  host_root   real root, all caps                          (victim)
 *   |  host_alice  alice (1000), no caps, full set              (victim)
 *   |  alice_nonet alice, set lowered -NET by real root         (victim)
 *   |  attacker    alice, her set maybe lowered; real root with a
 *   |              lowered set; or root of U
 *   |
 *   +-- U       alice's own, she maps herself to root (attackers "U...")
 *   +-- O       alice's, maps 0 200000 1000 written by real root
 *   |           o_root: uid 0 of O, kuid 200000                  (victim)
 *   +-- B       bob's (1001), his own uts namespace "bob-box"
 *               bob_box: root of B                              (victim)
 *
 * Victims block SIGUSR1, so a signal that got through stays pending.
 * Before and after each attempt the suite writes down the world as text:
 * host and bob's hostnames, the victims' pending signals and nice value,
 * the host's mounts, links and /tmp, the id maps of every namespace
 * above, the mask, real root's key, and the attacker's ids and every
 * capability set.  The two must match.
 *
 * An attempt that would change the attacker's own process runs in a child
 * of it ("in_child"), so that a kernel that let it through would show in
 * the result rather than in a broken attacker.
 */

#include <netinet/in.h>
#include <linux/mroute.h>
#include <linux/if_packet.h>
#include <pthread.h>
#include <stdarg.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/utsname.h>

#include "kselftest_harness.h"
#include "nscaps_keys.h"
#include "nscaps_test.h"

#define NET	(1LL << CAP_NET_ADMIN)
#define KILL	(1LL << CAP_KILL)
#define PTRACE	(1LL << CAP_SYS_PTRACE)
#define RAW	(1LL << CAP_NET_RAW)

#define SUID_HELPER	"/tmp/escape-suid"	/* set-user-ID real root */
#define FCAPS_HELPER	"/tmp/escape-fcaps"	/* file caps cap_net_admin+ep */
#define PLAIN_HELPER	"/tmp/escape-plain"	/* real root's, 0755 */
#define SGID_COPY	"/tmp/escape-sgid"	/* alice's, set-group-ID users */
#define HOST_FILE	"/tmp/escape-file"	/* real root's, mode 0600 */
#define USERS_GID	100			/* a group alice is in */

/* The victims, known to the attacker, which is forked after them. */
static struct {
	pid_t host_root, host_alice, bob_box, o_root, alice_nonet;
	long key;
	int o_userns;	/* O's user namespace, as a helper could pass it */
} w;

/* A byte every task of the suite has at the same address. */
static char probe = 'p';

enum attacker {
	ALICE_HOST,	/* alice, no caps */
	ALICE_NONET,	/* alice, CAP_NET_ADMIN lowered by real root */
	ALICE_NONET_NNP,	/* alice, lowered it herself: no_new_privs */
	ALICE_NOKILL,	/* alice, CAP_KILL and CAP_SYS_PTRACE lowered */
	HOST_ROOT,	/* real root */
	HOST_ROOT_NONET,	/* real root, its runtime lowered CAP_NET_ADMIN */
	U_ROOT,		/* root of U: user namespace only */
	U_ROOT_NS,	/* root of U, with uts, mount, net, ipc of U's own */
	U_ROOT_NONET,	/* root of U, created with CAP_NET_ADMIN lowered */
};

static const struct agent_spec attackers[] = {
	[ALICE_HOST] = { .creator = ALICE, .uid = KEEP },
	[ALICE_NONET] = { .creator = ALICE, .uid = KEEP, .drop = NET,
			  .group = USERS_GID },
	[ALICE_NONET_NNP] = { .creator = ALICE, .uid = KEEP, .drop = NET,
			      .nnp = true },
	[ALICE_NOKILL] = { .creator = ALICE, .uid = KEEP,
			   .drop = KILL | PTRACE },
	[HOST_ROOT] = { .creator = KEEP, .uid = KEEP },
	[HOST_ROOT_NONET] = { .creator = KEEP, .uid = KEEP, .drop = NET },
	[U_ROOT] = { .creator = ALICE, .unshare = CLONE_NEWUSER, .uid = KEEP },
	[U_ROOT_NS] = { .creator = ALICE, .uid = KEEP,
			.unshare = CLONE_NEWUSER | CLONE_NEWUTS | CLONE_NEWNS |
				   CLONE_NEWNET | CLONE_NEWIPC },
	[U_ROOT_NONET] = { .creator = ALICE, .uid = KEEP, .drop = NET,
			   .unshare = CLONE_NEWUSER | CLONE_NEWNET },
};

/* Map oneself, @uid and @gid outside, to root of one's new namespace. */
static int map_self(uid_t uid, gid_t gid)
{
	char map[32];
	int err;

	snprintf(map, sizeof(map), "0 %u 1", uid);
	err = -proc_write(getpid(), "setgroups", "deny");
	if (!err)
		err = -proc_write(getpid(), "uid_map", map);
	snprintf(map, sizeof(map), "0 %u 1", gid);
	return err ? err : -proc_write(getpid(), "gid_map", map);
}

/* Create a user namespace (and @flags) and map oneself to its root. */
static int unshare_mapped(int flags)
{
	uid_t uid = geteuid();
	gid_t gid = getegid();

	if (unshare(CLONE_NEWUSER | flags))
		return errno;
	return map_self(uid, gid);
}

static int open_ns(pid_t pid, const char *type)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/ns/%s", pid ? pid : getpid(),
		 type);
	return open(path, O_RDONLY | O_CLOEXEC);
}

/*
 * Run the helper (a copy of this program) with @arg: its exit status, an
 * errno like the rest, or the errno of a refused execve().
 */
static int run_helper(const char *path, const char *arg)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return errno;
	if (!pid) {
		execl(path, path, arg, NULL);
		_exit(errno);
	}
	if (waitpid(pid, &status, 0) != pid)
		return errno;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

/* Keep an fd to the parent's @type namespace, then try to go back. */
static int setns_back(int nstype, const char *type)
{
	int fd = open_ns(0, type), err;

	if (fd < 0)
		return errno;
	err = unshare_mapped(nstype == CLONE_NEWUSER ? 0 : nstype);
	if (!err)
		err = setns(fd, nstype) ? errno : 0;
	close(fd);
	return err;
}

/* Toward the parent or a sibling namespace. */
static int sethostname_host(void) { return sethostname("escaped", 7) ? errno : 0; }
static int setdomainname_host(void) { return setdomainname("escaped", 7) ? errno : 0; }
static int open_sibling_ns(void) { return open_ns(w.bob_box, "uts") < 0 ? errno : 0; }
static int signal_host_root(void) { return kill(w.host_root, SIGUSR1) ? errno : 0; }
static int signal_sibling_root(void) { return kill(w.bob_box, SIGUSR1) ? errno : 0; }
static int signal_sibling_ns_root(void) { return kill(w.o_root, SIGUSR1) ? errno : 0; }
static int signal_broadcast(void) { return kill(-1, SIGUSR1) ? errno : 0; }
static int ptrace_pid(pid_t pid)
{
	struct agent_cmd c = { .op = OP_ATTACH, .pid = pid };

	return agent_op(&c);
}
static int ptrace_host_root(void) { return ptrace_pid(w.host_root); }
static int ptrace_sibling_root(void) { return ptrace_pid(w.bob_box); }
static int ptrace_creator_outside(void) { return ptrace_pid(w.host_alice); }
static int setns_back_user(void) { return setns_back(CLONE_NEWUSER, "user"); }
static int setns_back_mnt(void) { return setns_back(CLONE_NEWNS, "mnt"); }
static int setns_back_net(void) { return setns_back(CLONE_NEWNET, "net"); }
static int setns_back_uts(void) { return setns_back(CLONE_NEWUTS, "uts"); }
static int setns_back_ipc(void) { return setns_back(CLONE_NEWIPC, "ipc"); }
static int mount_in(int flags, const char *src, const char *type)
{
	int err = flags ? unshare_mapped(flags) : 0;

	return err ? err : mount(src, "/root", type, 0, NULL) ? errno : 0;
}
static int mount_tmpfs_host(void) { return mount_in(0, "none", "tmpfs"); }
static int mount_proc_host_pidns(void) { return mount_in(CLONE_NEWNS, "proc", "proc"); }
static int mount_sysfs_host_netns(void) { return mount_in(CLONE_NEWNS, "sysfs", "sysfs"); }
static int mount_ext2(void) { return mount_in(CLONE_NEWNS, "/dev/null", "ext2"); }
static int umount_locked(void)
{
	int err = unshare_mapped(CLONE_NEWNS);

	return err ? err : umount2("/proc", 0) ? errno : 0;
}
static int sysctl_hostname(void) { return -write_file("/proc/sys/kernel/hostname", "escaped"); }
static int sysctl_mask(void) { return -write_file(MASK_PATH, "1fffffffff"); }
static int sysctl_host_net(void) { return -write_file("/proc/sys/net/ipv4/ip_forward", "1"); }

/* Id maps. */
static int map_new(const char *uid_map, bool deny)
{
	if (unshare(CLONE_NEWUSER))
		return errno;
	if (deny && proc_write(getpid(), "setgroups", "deny"))
		return errno;
	return -proc_write(getpid(), deny ? "uid_map" : "gid_map", uid_map);
}
static int map_host_root(void) { return map_new("0 0 1", true); }
static int map_two_lines(void) { return map_new("0 1000 1\n1 1001 1", true); }
static int map_gid_without_deny(void) { return map_new("0 1000 1", false); }
static int map_rewrite_own(void) { return -proc_write(getpid(), "uid_map", "0 1000 1"); }
static int map_sibling(void) { return -proc_write(w.bob_box, "uid_map", "0 1000 1"); }
static int setgroups_allow_after_deny(void) { return -proc_write(getpid(), "setgroups", "allow"); }
static int setgroups_after_deny(void)
{
	gid_t root = 0;

	return setgroups(1, &root) ? errno : 0;
}
static int setuid_unmapped(void) { return setresuid(1, 1, 1) ? errno : 0; }

/* Real root's key, possessed by no one but real root. */
static int key_read(void)
{
	char buf[64];

	return keyctl(KEYCTL_READ, w.key, (long)buf, sizeof(buf)) < 0 ? errno : 0;
}
static int key_setperm(void) { return keyctl(KEYCTL_SETPERM, w.key, 0x3f3f0000, 0) ? errno : 0; }
static int key_chown(void) { return keyctl(KEYCTL_CHOWN, w.key, 0, -1) ? errno : 0; }
static int key_invalidate(void) { return keyctl(KEYCTL_INVALIDATE, w.key, 0, 0) ? errno : 0; }
static int key_link(void)
{
	return keyctl(KEYCTL_LINK, w.key, KEY_SPEC_SESSION_KEYRING, 0) ? errno : 0;
}

/* Regaining a dropped capability; each ends on setting lo's MTU. */
static int lo_mtu(void) { return net_lo_mtu(); }
static int nested_creation(void)
{
	int err = unshare_mapped(CLONE_NEWNET);

	err = err ? err : unshare_mapped(CLONE_NEWNET);
	return err ? err : net_lo_mtu();
}
static int into_o_then_lo_mtu(void)
{
	int err;

	err = setns(w.o_userns, CLONE_NEWUSER) ? errno : 0;
	if (!err)
		err = unshare(CLONE_NEWNET) ? errno : 0;
	return err ? err : net_lo_mtu();
}
static int exec_setuid_root_in_ns(void) { return run_helper(SUID_HELPER, "--lo-mtu"); }
static int exec_file_caps_in_ns(void) { return run_helper(FCAPS_HELPER, "--lo-mtu"); }
/* The ambient set's raise (2), asked of the user namespace set, which has none. */
static int prctl_raise(void)
{
	return prctl(PR_CAP_USERNS, 2, CAP_NET_ADMIN, 0, 0) ? errno : 0;
}
/*
 * The sets of root of a clamped namespace hold every capability, as on a
 * kernel without clamps: raising one in them is allowed, using it is not.
 */
static int capset_raise(void) { return -set_caps("all=ep") ?: net_lo_mtu(); }
static int ambient_raise(void)
{
	int err = -set_caps("all=ep cap_net_admin+i");

	if (!err && prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, CAP_NET_ADMIN,
			  0, 0))
		err = errno;
	return err ? err : run_helper(PLAIN_HELPER, "--lo-mtu");
}
static int owner_signal(void) { return kill(w.o_root, SIGUSR1) ? errno : 0; }
static int owner_ptrace(void) { return ptrace_pid(w.o_root); }

/*
 * clone(CLONE_NEWUSER) from a thread, as a multithreaded program may (it
 * may not unshare() or setns() a user namespace): the child maps itself,
 * makes a network namespace and sets lo's MTU.
 */
static void *thread_clone_userns(void *arg)
{
	uid_t uid = geteuid();
	gid_t gid = getegid();
	int status, err;
	pid_t pid;

	pid = syscall(SYS_clone, CLONE_NEWUSER | SIGCHLD, NULL, NULL, NULL,
		      NULL);
	if (pid < 0)
		return (void *)(long)errno;
	if (!pid) {
		err = map_self(uid, gid);
		if (!err)
			err = unshare(CLONE_NEWNET) ? errno : net_lo_mtu();
		_exit(err);
	}
	if (waitpid(pid, &status, 0) != pid)
		return (void *)(long)errno;
	return (void *)(long)(WIFEXITED(status) ? WEXITSTATUS(status) : 128);
}

/*
 * The set is held by each thread, but only a process with no other thread
 * (and no other process sharing its memory) may lower it, so a thread
 * started after the lowering inherits it and a thread started before
 * makes the lowering fail.  @started_before says which one makes the
 * namespace.
 */
static pthread_barrier_t lowered;

static void *thread_clone_once_lowered(void *arg)
{
	pthread_barrier_wait(&lowered);
	return thread_clone_userns(arg);
}

static int thread_clone(bool started_before)
{
	pthread_t t;
	void *ret;
	int err;

	if (started_before) {
		pthread_barrier_init(&lowered, NULL, 2);
		err = pthread_create(&t, NULL, thread_clone_once_lowered, NULL);
		if (err)
			return err;
		err = -userns_lower_nnp(NET);
		pthread_barrier_wait(&lowered);
	} else {
		err = -userns_lower_nnp(NET);
		if (!err)
			err = pthread_create(&t, NULL, thread_clone_userns,
					     NULL);
		if (err)
			return err;
	}
	pthread_join(t, &ret);
	return err ? err : (int)(long)ret;
}
static int thread_started_after_lowering(void) { return thread_clone(false); }
static int thread_started_before_lowering(void) { return thread_clone(true); }

/*
 * Getting a lowered set back: the routes an outside review found.  Each
 * ends, as above, on setting lo's MTU in a user and network namespace made
 * after the attempt.
 */
static int exec_setgid_own_group(void)
{
	int err = -copy_self_as(SGID_COPY, ALICE, USERS_GID, 02755);

	if (!err)
		err = run_helper(SGID_COPY, "--ns-lo-mtu");
	unlink(SGID_COPY);
	return err;
}
static int exec_setuid_drop_back(void) { return run_helper(SUID_HELPER, "--drop-back"); }
static int setns_setresuid_exec(void)
{
	int err;

	err = setns(w.o_userns, CLONE_NEWUSER) ? errno : 0;
	/* euid 0 of O, real uid still alice's: exec sees an id change. */
	if (!err && setresuid(-1, 0, -1))
		err = errno;
	return err ? err : run_helper(PLAIN_HELPER, "--ns-lo-mtu");
}
static int capset_empty_then_exec(void)
{
	int err = -set_caps("=");

	return err ? err : run_helper(PLAIN_HELPER, "--ns-lo-mtu");
}
/*
 * A child joins a new session keyring and installs it in the attacker,
 * its parent, whose credentials the kernel then rebuilds.  The attacker's
 * set must come through whole (the snapshot compares CapUns), and a
 * namespace made afterwards must hold what the set allows: CAP_SYS_ADMIN,
 * and CAP_NET_ADMIN only if the set has it.
 */
static int session_to_parent(void)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return errno;
	if (!pid) {
		if (keyctl(KEYCTL_JOIN_SESSION_KEYRING, 0, 0, 0) < 0 ||
		    keyctl(KEYCTL_SESSION_TO_PARENT, 0, 0, 0))
			_exit(errno);
		_exit(0);
	}
	/* The new session takes effect as waitpid() returns. */
	if (waitpid(pid, &status, 0) != pid)
		return errno;
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
	pid = fork();
	if (pid < 0)
		return errno;
	if (!pid) {
		if (unshare(CLONE_NEWUSER))
			_exit(errno);
		long long clamped = task_caps(0, "CapClamped:");

		/* No CapClamped line: a kernel without the series. */
		if (clamped > 0 && HAS(clamped, CAP_SYS_ADMIN))
			_exit(ENOTRECOVERABLE);
		_exit(unshare(CLONE_NEWNET) ? errno : net_lo_mtu());
	}
	if (waitpid(pid, &status, 0) != pid)
		return errno;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}
static int ptrace_fuller(void) { return ptrace_pid(w.host_alice); }
static int ptrace_lowered(void) { return ptrace_pid(w.alice_nonet); }
static int mem_write_fuller(void)
{
	char path[64];
	int fd, err = 0;

	snprintf(path, sizeof(path), "/proc/%d/mem", w.host_alice);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return errno;
	if (pwrite(fd, &probe, 1, (off_t)(unsigned long)&probe) != 1)
		err = errno;
	close(fd);
	return err;
}
static int vm_write_fuller(void)
{
	struct iovec local = { &probe, 1 }, remote = { &probe, 1 };

	return process_vm_writev(w.host_alice, &local, 1, &remote, 1, 0) < 0 ?
	       errno : 0;
}
/*
 * A child that shares its parent's file table (CLONE_FILES), with a memory
 * of its own, lowers its set: it could then act through the fuller
 * parent's descriptors.  Refused.
 */
static int lower_in_child(void *unused)
{
	return -userns_lower_nnp(NET);
}
static int files_sharer_lowers(void)
{
	static char stack[1 << 16];
	int status;
	pid_t pid = clone(lower_in_child, stack + sizeof(stack),
			  CLONE_FILES | SIGCHLD, NULL);

	if (pid < 0)
		return errno;
	if (waitpid(pid, &status, 0) != pid)
		return errno;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

/* Read-mode access to a fuller task: its files, its root, its environment. */
static int proc_open(pid_t pid, const char *file, int flags)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/%s", pid, file);
	fd = open(path, flags | O_CLOEXEC);
	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}
static int proc_fd_write_fuller(void) { return proc_open(w.host_alice, "fd/1", O_WRONLY); }
static int proc_root_fuller(void)
{
	return proc_open(w.host_alice, "root/tmp", O_RDONLY | O_DIRECTORY);
}
static int proc_environ_fuller(void) { return proc_open(w.host_alice, "environ", O_RDONLY); }
static int proc_ns_fuller(void) { return proc_open(w.o_root, "ns/user", O_RDONLY); }
static int proc_environ_equal(void) { return proc_open(w.alice_nonet, "environ", O_RDONLY); }
/* A sandbox that is root of its own namespace, lowering the set there. */
static int own_ns_lo_mtu_after_lowering(void)
{
	int err = -userns_lower_nnp(NET);

	return err ? err : net_lo_mtu();
}
static int own_ns_new_netns_after_lowering(void)
{
	int err = -userns_lower_nnp(NET);

	if (!err)
		err = unshare(CLONE_NEWNET) ? errno : 0;
	return err ? err : net_lo_mtu();
}
static int getfd_fuller(void)
{
	int pidfd = syscall(SYS_pidfd_open, w.host_alice, 0), fd, err;

	if (pidfd < 0)
		return errno;
	fd = syscall(SYS_pidfd_getfd, pidfd, 2, 0);
	err = fd < 0 ? errno : 0;
	if (fd >= 0)
		close(fd);
	close(pidfd);
	return err;
}
/* A child asks to be traced by its parent, which lowered its set since. */
static int traceme_fuller_child(void)
{
	int go[2], status, err;
	pid_t pid;
	char c = 0;

	if (pipe(go))
		return errno;
	pid = fork();
	if (pid < 0)
		return errno;
	if (!pid) {
		if (read(go[0], &c, 1) != 1)
			_exit(EIO);
		_exit(ptrace(PTRACE_TRACEME, 0, 0, 0) ? errno : 0);
	}
	err = -userns_lower_nnp(NET);
	if (write(go[1], &c, 1) != 1 && !err)
		err = errno;
	if (waitpid(pid, &status, 0) != pid)
		return errno;
	return err ? err : WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

/* Past a lowered mask. */
static int exec_setuid_root_ns_lo_mtu(void) { return run_helper(SUID_HELPER, "--ns-lo-mtu"); }
static int prctl_raise_then_create(void)
{
	int err = prctl_raise();

	return err != EINVAL ? err ?: -1 : nested_creation();
}

/* The host's other resources. */
static int add_link_host(void) { return net_add_dummy("escape0", 0); }
static int nft_table_host(void) { return net_add_nft_table("escape"); }
static int renice_host_root(void) { return setpriority(PRIO_PROCESS, w.host_root, 5) ? errno : 0; }
static int write_host_file(void) { return -write_file(HOST_FILE, "escaped"); }

#define NR_VICTIMS	5

FIXTURE(escape) {
	struct agent victims[NR_VICTIMS], attacker;
	long long saved_mask;
	char before[8192], after[8192];
};

FIXTURE_VARIANT(escape) {
	enum attacker attacker;
	int (*attempt)(void);
	bool in_child;		/* the attempt would change its own process */
	long long mask;		/* set before the attacker starts (0: none) */
	long long late_mask;	/* set once it runs (0: none) */
	int expected;
	bool control;		/* allowed, and may change the world */
	bool reaches_alice;	/* a uid match lets a signal reach host_alice */
};

#define ATTEMPT(name, who, fn, child, err)				\
	FIXTURE_VARIANT_ADD(escape, name) {				\
		.attacker = who, .attempt = fn, .in_child = child,	\
		.expected = err,					\
	}
#define MASKED(name, who, fn, child, m, late, err)			\
	FIXTURE_VARIANT_ADD(escape, name) {				\
		.attacker = who, .attempt = fn, .in_child = child,	\
		.mask = m, .late_mask = late, .expected = err,		\
	}

/* Toward the parent or a sibling namespace. */
ATTEMPT(sethostname_host,	U_ROOT, sethostname_host, false, EPERM);
ATTEMPT(setdomainname_host,	U_ROOT, setdomainname_host, false, EPERM);
ATTEMPT(open_sibling_ns,	U_ROOT, open_sibling_ns, false, EACCES);
ATTEMPT(signal_host_root,	U_ROOT, signal_host_root, false, EPERM);
ATTEMPT(signal_sibling_root,	U_ROOT, signal_sibling_root, false, EPERM);
ATTEMPT(signal_sibling_ns_root,	U_ROOT, signal_sibling_ns_root, false, EPERM);
/*
 * kill(-1) reaches host_alice and alice_nonet, whose kuid root of U shares
 * (a uid match, no capability), and no one else: it returns 0.
 */
FIXTURE_VARIANT_ADD(escape, signal_broadcast) {
	.attacker = U_ROOT, .attempt = signal_broadcast, .in_child = true,
	.reaches_alice = true,
};
ATTEMPT(ptrace_host_root,	U_ROOT, ptrace_host_root, false, EPERM);
ATTEMPT(ptrace_sibling_root,	U_ROOT, ptrace_sibling_root, false, EPERM);
ATTEMPT(ptrace_creator_outside,	U_ROOT, ptrace_creator_outside, false, EPERM);
ATTEMPT(setns_back_user,	ALICE_HOST, setns_back_user, true, EPERM);
ATTEMPT(setns_back_mnt,		ALICE_HOST, setns_back_mnt, true, EPERM);
ATTEMPT(setns_back_net,		ALICE_HOST, setns_back_net, true, EPERM);
ATTEMPT(setns_back_uts,		ALICE_HOST, setns_back_uts, true, EPERM);
ATTEMPT(setns_back_ipc,		ALICE_HOST, setns_back_ipc, true, EPERM);
ATTEMPT(mount_tmpfs_host,	U_ROOT, mount_tmpfs_host, true, EPERM);
ATTEMPT(mount_proc_host_pidns,	ALICE_HOST, mount_proc_host_pidns, true, EPERM);
ATTEMPT(mount_sysfs_host_netns,	ALICE_HOST, mount_sysfs_host_netns, true, EPERM);
ATTEMPT(mount_ext2,		ALICE_HOST, mount_ext2, true, EPERM);
ATTEMPT(umount_locked,		ALICE_HOST, umount_locked, true, EINVAL);
ATTEMPT(sysctl_hostname,	U_ROOT, sysctl_hostname, false, EACCES);
ATTEMPT(sysctl_mask,		U_ROOT, sysctl_mask, false, EACCES);
ATTEMPT(sysctl_host_net,	U_ROOT, sysctl_host_net, false, EACCES);
ATTEMPT(add_link_host,		U_ROOT, add_link_host, false, EPERM);
ATTEMPT(nft_table_host,		U_ROOT, nft_table_host, false, EPERM);
ATTEMPT(renice_host_root,	U_ROOT, renice_host_root, false, EPERM);
ATTEMPT(write_host_file,	U_ROOT, write_host_file, false, EACCES);

/* Id maps and ids. */
ATTEMPT(map_host_root,		ALICE_HOST, map_host_root, true, EPERM);
ATTEMPT(map_two_lines,		ALICE_HOST, map_two_lines, true, EPERM);
ATTEMPT(map_gid_without_deny,	ALICE_HOST, map_gid_without_deny, true, EPERM);
ATTEMPT(map_rewrite_own,	U_ROOT, map_rewrite_own, false, EPERM);
ATTEMPT(map_sibling,		U_ROOT, map_sibling, false, EACCES);
ATTEMPT(setgroups_allow_after_deny, U_ROOT, setgroups_allow_after_deny, false, EPERM);
ATTEMPT(setgroups_after_deny,	U_ROOT, setgroups_after_deny, false, EPERM);
ATTEMPT(setuid_unmapped,	U_ROOT, setuid_unmapped, false, EINVAL);

/* Real root's key. */
ATTEMPT(key_read,		U_ROOT, key_read, false, EACCES);
ATTEMPT(key_setperm,		U_ROOT, key_setperm, false, EACCES);
ATTEMPT(key_chown,		U_ROOT, key_chown, false, EACCES);
ATTEMPT(key_invalidate,		U_ROOT, key_invalidate, false, EACCES);
ATTEMPT(key_link,		U_ROOT, key_link, false, EACCES);

/* Regaining a capability dropped from the user namespace set. */
ATTEMPT(nested_creation,	ALICE_NONET, nested_creation, true, EPERM);
ATTEMPT(setns_older_ns,		ALICE_NONET, into_o_then_lo_mtu, true, EPERM);
ATTEMPT(exec_setuid_root_in_ns,	U_ROOT_NONET, exec_setuid_root_in_ns, false, EPERM);
ATTEMPT(exec_file_caps_in_ns,	U_ROOT_NONET, exec_file_caps_in_ns, false, EPERM);
ATTEMPT(prctl_raise,		ALICE_NONET, prctl_raise, false, EINVAL);
ATTEMPT(capset_raise,		U_ROOT_NONET, capset_raise, true, EPERM);
ATTEMPT(ambient_raise,		U_ROOT_NONET, ambient_raise, true, EPERM);
ATTEMPT(owner_rule_signal,	ALICE_NOKILL, owner_signal, false, EPERM);
ATTEMPT(owner_rule_ptrace,	ALICE_NOKILL, owner_ptrace, false, EPERM);
ATTEMPT(thread_started_after_lowering, ALICE_HOST, thread_started_after_lowering, true, EPERM);

/* Getting a lowered set back: the routes of the outside review. */
ATTEMPT(exec_setgid_own_group,	ALICE_NONET, exec_setgid_own_group, true, EPERM);
ATTEMPT(exec_setuid_drop_back,	ALICE_NONET, exec_setuid_drop_back, false, EPERM);
ATTEMPT(setns_setresuid_exec,	ALICE_NONET, setns_setresuid_exec, true, EPERM);
ATTEMPT(capset_empty_then_exec,	HOST_ROOT_NONET, capset_empty_then_exec, true, EPERM);
ATTEMPT(exec_setuid_under_nnp,	ALICE_NONET_NNP, exec_setuid_root_ns_lo_mtu, false, EPERM);
ATTEMPT(session_to_parent_lowered, ALICE_NONET, session_to_parent, false, EPERM);
ATTEMPT(session_to_parent_full,	ALICE_HOST, session_to_parent, false, 0);
ATTEMPT(ptrace_fuller_same_uid,	ALICE_NONET, ptrace_fuller, false, EPERM);
ATTEMPT(mem_write_fuller,	ALICE_NONET, mem_write_fuller, false, EACCES);
ATTEMPT(vm_write_fuller,	ALICE_NONET, vm_write_fuller, false, EPERM);
ATTEMPT(pidfd_getfd_fuller,	ALICE_NONET, getfd_fuller, false, EPERM);
ATTEMPT(ptrace_fuller_by_lowered_root, HOST_ROOT_NONET, ptrace_fuller, false, EPERM);
ATTEMPT(traceme_fuller_child,	ALICE_HOST, traceme_fuller_child, true, EPERM);

/* Routes a second outside review found. */
ATTEMPT(thread_started_before_lowering, ALICE_HOST, thread_started_before_lowering, true, EINVAL);
ATTEMPT(files_sharer_lowers,	ALICE_HOST, files_sharer_lowers, true, EINVAL);
ATTEMPT(proc_fd_write_fuller,	ALICE_NONET, proc_fd_write_fuller, false, EACCES);
ATTEMPT(proc_root_fuller,	ALICE_NONET, proc_root_fuller, false, EACCES);
ATTEMPT(proc_environ_fuller,	ALICE_NONET, proc_environ_fuller, false, EACCES);
ATTEMPT(proc_ns_fuller,		ALICE_NONET, proc_ns_fuller, false, EACCES);
ATTEMPT(own_ns_after_lowering,	U_ROOT_NS, own_ns_lo_mtu_after_lowering, true, EPERM);
ATTEMPT(own_ns_new_netns_after_lowering, U_ROOT_NS, own_ns_new_netns_after_lowering, true, EPERM);

/*
 * Controls: legitimate neighbours of the attempts go through in the same
 * world, so the refusals are the rules' and not a broken setup.
 */
#define CONTROL(name, who, fn, child)					\
	FIXTURE_VARIANT_ADD(escape, name) {				\
		.attacker = who, .attempt = fn, .in_child = child,	\
		.control = true,					\
	}
CONTROL(control_owner_signal,	ALICE_HOST, owner_signal, false);
CONTROL(control_owner_ptrace,	ALICE_HOST, owner_ptrace, false);
CONTROL(control_nested_creation, ALICE_HOST, nested_creation, true);
CONTROL(control_setns_older_ns,	ALICE_HOST, into_o_then_lo_mtu, true);
CONTROL(control_own_hostname,	U_ROOT_NS, sethostname_host, false);
CONTROL(control_own_lo_mtu,	U_ROOT_NS, lo_mtu, false);
CONTROL(control_ptrace_equal_set, ALICE_NONET, ptrace_lowered, false);
CONTROL(control_ptrace_smaller_set, ALICE_HOST, ptrace_lowered, false);
CONTROL(control_root_ptrace_lowered, HOST_ROOT, ptrace_lowered, false);
CONTROL(control_proc_environ_equal, ALICE_NONET, proc_environ_equal, false);

/* Past a mask without CAP_NET_ADMIN (or CAP_KILL). */
MASKED(mask_live,		U_ROOT_NS, lo_mtu, false, 0, ALL_CAPS & ~NET, EPERM);
MASKED(mask_nested_creation,	ALICE_HOST, nested_creation, true, ALL_CAPS & ~NET, 0, EPERM);
MASKED(mask_setns_older_ns,	ALICE_HOST, into_o_then_lo_mtu, true, ALL_CAPS & ~NET, 0, EPERM);
/*
 * A set-user-ID-root program is real root, and the mask does not hold the
 * namespaces real root makes: its namespace keeps CAP_NET_ADMIN (a
 * decision, design.md, "Namespaces real root makes").
 */
MASKED(mask_exec_setuid_root,	ALICE_HOST, exec_setuid_root_ns_lo_mtu, false, ALL_CAPS & ~NET, 0, 0);
MASKED(mask_prctl_raise,	ALICE_HOST, prctl_raise_then_create, true, ALL_CAPS & ~NET, 0, EPERM);
MASKED(mask_owner_rule,		ALICE_HOST, owner_signal, false, ALL_CAPS & ~KILL, 0, EPERM);
MASKED(mask_write,		U_ROOT, sysctl_mask, false, ALL_CAPS & ~NET, 0, EACCES);

/*
 * What CAP_NET_RAW reaches of network configuration, which a clamp of
 * CAP_NET_ADMIN alone leaves (an outside review's finding, written down
 * as a decision: clamp CAP_NET_RAW with it): becoming the multicast router
 * of one's namespace, which makes a pimreg device and adds routes, and a
 * packet socket's promiscuous membership of lo.
 */
static int mroute_init(void)
{
	struct vifctl vif = { .vifc_vifi = 0, .vifc_flags = VIFF_REGISTER };
	int one = 1, err = 0;
	int fd = socket(AF_INET, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_IGMP);

	if (fd < 0)
		return errno;
	if (setsockopt(fd, IPPROTO_IP, MRT_INIT, &one, sizeof(one)) ||
	    setsockopt(fd, IPPROTO_IP, MRT_ADD_VIF, &vif, sizeof(vif)))
		err = errno;
	close(fd);
	return err;
}
static int packet_promisc(void)
{
	struct packet_mreq mr = { .mr_ifindex = 1, .mr_type = PACKET_MR_PROMISC };
	int err = 0;
	int fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return errno;
	if (setsockopt(fd, SOL_PACKET, PACKET_ADD_MEMBERSHIP, &mr, sizeof(mr)))
		err = errno;
	close(fd);
	return err;
}
MASKED(mask_raw_mroute,		U_ROOT_NS, mroute_init, true, 0, ALL_CAPS & ~NET & ~RAW, EPERM);
MASKED(mask_raw_packet_promisc,	U_ROOT_NS, packet_promisc, true, 0, ALL_CAPS & ~NET & ~RAW, EPERM);
/* The decision's other half: with CAP_NET_ADMIN alone masked, both work. */
FIXTURE_VARIANT_ADD(escape, control_mask_net_only_mroute) {
	.attacker = U_ROOT_NS, .attempt = mroute_init, .in_child = true,
	.late_mask = ALL_CAPS & ~NET, .control = true,
};
FIXTURE_VARIANT_ADD(escape, control_mask_net_only_packet_promisc) {
	.attacker = U_ROOT_NS, .attempt = packet_promisc, .in_child = true,
	.late_mask = ALL_CAPS & ~NET, .control = true,
};

/*
 * The attempt of the running test, set before the attacker is forked and
 * so known to it; OP_CALL has the attacker run it.
 */
static int (*attempt)(void);
static bool attempt_in_child;

static int run_attempt(const struct agent_cmd *c)
{
	int status;
	pid_t pid;

	if (!attempt_in_child)
		return attempt();
	pid = fork();
	if (pid < 0)
		return errno;
	if (!pid)
		_exit(attempt());
	if (waitpid(pid, &status, 0) != pid)
		return errno;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

/* Append "label: contents of @path" to @buf. */
static void note_file(char *buf, size_t size, const char *label,
		      const char *path)
{
	size_t len = strlen(buf);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = 0;

	len += snprintf(buf + len, size - len, "%s:\n", label);
	if (fd >= 0 && len < size) {
		n = read(fd, buf + len, size - len - 1);
		close(fd);
	}
	buf[len + (n > 0 ? n : 0)] = '\0';
}

static void note(char *buf, size_t size, const char *fmt, ...)
{
	size_t len = strlen(buf);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf + len, size - len, fmt, ap);
	va_end(ap);
}

/* The hostname of @pid's uts namespace. */
static void uts_of(pid_t pid, char *name, size_t size)
{
	int fd[2];
	pid_t child;

	snprintf(name, size, "?");
	if (pipe(fd))
		return;
	child = fork();
	if (!child) {
		struct utsname u;

		if (join_ns(pid, CLONE_NEWUTS) || uname(&u))
			_exit(1);
		_exit(write(fd[1], u.nodename, strlen(u.nodename) + 1) < 0);
	}
	close(fd[1]);
	if (child > 0 && read(fd[0], name, size - 1) > 0)
		name[size - 1] = '\0';
	close(fd[0]);
	waitpid(child, NULL, 0);
}

static void snapshot(char *buf, size_t size, pid_t attacker)
{
	static const char * const fields[] = {
		"Uid:", "Gid:", "CapInh:", "CapPrm:", "CapEff:", "CapBnd:",
		"CapAmb:", "CapUns:", "NoNewPrivs:",
	};
	const struct { const char *name; pid_t pid; } tasks[] = {
		{ "host_root", w.host_root }, { "host_alice", w.host_alice },
		{ "bob_box", w.bob_box }, { "o_root", w.o_root },
		{ "alice_nonet", w.alice_nonet }, { "attacker", attacker },
	};
	char text[256], path[64];
	struct utsname u;
	struct stat st;
	size_t i;

	buf[0] = '\0';
	uname(&u);
	uts_of(w.bob_box, text, sizeof(text));
	note(buf, size, "host %s %s, bob %s, mask %llx\n", u.nodename,
	     u.domainname, text, get_mask());
	for (i = 0; i < sizeof(tasks) / sizeof(tasks[0]); i++) {
		note(buf, size, "%s: pending %llx nice %d\n", tasks[i].name,
		     task_pending(tasks[i].pid),
		     getpriority(PRIO_PROCESS, tasks[i].pid));
		snprintf(path, sizeof(path), "/proc/%d/uid_map", tasks[i].pid);
		note_file(buf, size, "uid_map", path);
		snprintf(path, sizeof(path), "/proc/%d/gid_map", tasks[i].pid);
		note_file(buf, size, "gid_map", path);
	}
	for (i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		note(buf, size, "attacker %s %llx\n", fields[i],
		     task_caps(attacker, fields[i]));
	note_file(buf, size, "mounts", "/proc/self/mountinfo");
	note_file(buf, size, "links", "/proc/net/dev");
	text[0] = '\0';
	keyctl(KEYCTL_DESCRIBE, w.key, (long)text, sizeof(text));
	note(buf, size, "key %s\n", text);
	memset(text, 0, sizeof(text));
	keyctl(KEYCTL_READ, w.key, (long)text, sizeof(text) - 1);
	note(buf, size, "key payload %s\n", text);
	if (!stat(HOST_FILE, &st))
		note(buf, size, "host file %u:%u %o %lld\n", st.st_uid,
		     st.st_gid, st.st_mode, (long long)st.st_size);
}

FIXTURE_SETUP(escape)
{
	const struct agent_spec victims[NR_VICTIMS] = {
		{ .creator = KEEP, .uid = KEEP, .victim = true },
		{ .creator = ALICE, .uid = KEEP, .victim = true },
		{ .creator = BOB, .uid = KEEP, .victim = true,
		  .unshare = CLONE_NEWUSER | CLONE_NEWUTS },
		{ .creator = ALICE, .uid = 0, .victim = true,
		  .unshare = CLONE_NEWUSER, .uid_map = U_MAP },
		{ .creator = ALICE, .uid = KEEP, .victim = true, .drop = NET },
	};
	pid_t *pids[NR_VICTIMS] = { &w.host_root, &w.host_alice, &w.bob_box,
				    &w.o_root, &w.alice_nonet };
	int i;

	self->saved_mask = get_mask();
	ASSERT_EQ(ALL_CAPS, self->saved_mask);
	for (i = 0; i < NR_VICTIMS; i++) {
		ASSERT_EQ(0, agent_start(&self->victims[i], &victims[i]));
		*pids[i] = self->victims[i].pid;
	}
	ASSERT_EQ(0, agent_do(&self->victims[2], OP_SETHOSTNAME, 0, 0,
			      "bob-box"));
	w.o_userns = open_ns(w.o_root, "user");
	ASSERT_LE(0, w.o_userns);
	/* Inherited by the attacker, forked below, as a passed fd would be. */
	ASSERT_EQ(0, fcntl(w.o_userns, F_SETFD, 0));
	i = open(HOST_FILE, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	ASSERT_LE(0, i);
	ASSERT_EQ(6, write(i, "root's", 6));
	close(i);
	w.key = syscall(SYS_add_key, "user", "nscaps-secret", "s3cret", 6,
			KEY_SPEC_USER_KEYRING);
	ASSERT_LT(0, w.key);
	ASSERT_EQ(0, keyctl(KEYCTL_SETPERM, w.key, 0x3f010000, 0));

	if (variant->mask)
		ASSERT_EQ(0, set_mask(variant->mask));
	attempt = variant->attempt;
	attempt_in_child = variant->in_child;
	ASSERT_EQ(0, agent_start(&self->attacker, &attackers[variant->attacker]));
	if (variant->late_mask)
		ASSERT_EQ(0, set_mask(variant->late_mask));
}

FIXTURE_TEARDOWN(escape)
{
	int i;

	set_mask(self->saved_mask);
	agent_stop(&self->attacker);
	for (i = NR_VICTIMS - 1; i >= 0; i--)
		agent_stop(&self->victims[i]);
	keyctl(KEYCTL_UNLINK, w.key, KEY_SPEC_USER_KEYRING, 0);
	unlink(HOST_FILE);
	close(w.o_userns);
}

TEST_F(escape, attempt)
{
	int err;

	snapshot(self->before, sizeof(self->before), self->attacker.pid);
	err = agent_do(&self->attacker, OP_CALL, 0, (long)run_attempt, NULL);
	EXPECT_EQ(variant->expected, err) {
		TH_LOG("expected %s, got %s", errname(variant->expected),
		       errname(err));
	}
	snapshot(self->after, sizeof(self->after), self->attacker.pid);
	if (variant->reaches_alice) {
		/* SIGUSR1 pending for alice's two tasks, and for them alone. */
		static const char * const got[] = {
			"\nhost_alice: pending 200 ", "\nalice_nonet: pending 200 ",
		};

		for (size_t i = 0; i < sizeof(got) / sizeof(got[0]); i++) {
			char *line = strstr(self->after, got[i]);
			size_t at = strlen(got[i]) - strlen("200 ");

			ASSERT_NE(NULL, line);
			line[at] = '0';
			memmove(line + at + 1, line + at + 3,
				strlen(line + at + 3) + 1);
		}
	}
	/* A control may leave a signal pending; nothing else. */
	if (!variant->control || variant->attempt != owner_signal) {
		EXPECT_STREQ(self->before, self->after);
	} else {
		EXPECT_STRNE(self->before, self->after);
	}
}

/* The helper, as the exec attempts run it. */
static int helper(const char *what)
{
	/*
	 * A set-ID exec leaves the helper non-dumpable, and its /proc files
	 * root's; it writes its own id maps there.
	 */
	if (prctl(PR_SET_DUMPABLE, 1, 0, 0, 0))
		return errno;
	if (!strcmp(what, "--drop-back")) {
		/*
		 * As newgrp or sg do: back to the caller's own ids, then run
		 * the caller's command, here a plain copy of this program.
		 */
		if (setresgid(getgid(), getgid(), getgid()) ||
		    setresuid(getuid(), getuid(), getuid()))
			return errno;
		execl(PLAIN_HELPER, PLAIN_HELPER, "--ns-lo-mtu", NULL);
		return errno;
	}
	if (!strcmp(what, "--ns-lo-mtu")) {
		int err = unshare_mapped(CLONE_NEWNET);

		return err ? err : net_lo_mtu();
	}
	return net_lo_mtu();
}

static int make_helpers(void)
{
	cap_t caps = cap_from_text("cap_net_admin+ep");
	int err;

	err = copy_self(SUID_HELPER, 0, 04755);
	if (!err)
		err = copy_self(PLAIN_HELPER, 0, 0755);
	if (!err)
		err = copy_self(FCAPS_HELPER, 0, 0755);
	if (!err && (!caps || cap_set_file(FCAPS_HELPER, caps)))
		err = -errno;
	cap_free(caps);
	return err;
}

int main(int argc, char **argv)
{
	int ret, err;

	if (argc > 1 && (!strcmp(argv[1], "--lo-mtu") ||
			 !strcmp(argv[1], "--ns-lo-mtu") ||
			 !strcmp(argv[1], "--drop-back")))
		return helper(argv[1]);
	err = make_helpers();
	if (err) {
		fprintf(stderr, "escape_test: helpers: %s\n", strerror(-err));
		return 1;
	}
	ret = test_harness_run(argc, argv);
	unlink(SUID_HELPER);
	unlink(PLAIN_HELPER);
	unlink(FCAPS_HELPER);
	return ret;
}
