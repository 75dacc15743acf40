/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers for the nscaps conformance suites: tasks placed in user namespace
 * hierarchies, that carry out one privileged operation at a time on demand.
 *
 * The suites run as real root in the guest, which is only the orchestrator:
 * every operation under test is carried out by an "agent", a child process
 * that first becomes the unprivileged user the rule is about, then (for
 * most rules) creates or joins user namespaces the way that user would.
 *
 *   agent_start()   fork an agent as a spec describes; it answers once it
 *                   sits in its namespaces with its ids and capabilities
 *   agent_do()      have it carry out one operation; returns 0 or an errno
 *   agent_stop()    kill and reap it
 */

#ifndef NSCAPS_TEST_H
#define NSCAPS_TEST_H

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/nsfs.h>
#include <sys/capability.h>
#include <sys/ioctl.h>
#include <sys/klog.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#include "nscaps_net.h"

#ifndef PR_CAP_USERNS
#error "these tests need the uapi headers of a kernel with PR_CAP_USERNS"
#endif

#define ALICE	1000
#define BOB	1001
#define KEEP	((uid_t)-1)

/*
 * The maps real root gives alice's namespace U in several suites, as
 * newuidmap would: uid 0..999 of U are host uids 200000..200999, and alice
 * keeps her own uid 1000.  Root of U is not alice on the host.
 */
#define U_MAP	"0 200000 1000\n1000 1000 1\n"

struct agent_spec {
	/* Join the user namespace of this task first (0: stay). */
	pid_t join;
	/* Further namespaces of @join to join as well (CLONE_NEWUTS ...). */
	int join_ns;
	/* The uid and gid to take, in the current namespace (KEEP: stay). */
	uid_t creator;
	/* Namespaces to create (CLONE_NEWUSER | ...; 0: none). */
	int unshare;
	/*
	 * With CLONE_NEWUSER: maps written by real root, as a setup tool such
	 * as newuidmap would; NULL: the agent maps itself, the only thing an
	 * unprivileged user can do ("0 <uid> 1", setgroups denied).
	 */
	const char *uid_map;
	const char *gid_map;
	/* The uid and gid to take in the new namespace (KEEP: stay). */
	uid_t uid;
	/* A supplementary group to keep across @creator (0: none). */
	gid_t group;
	/* Capabilities to keep across @creator and set, as cap_from_text(). */
	const char *caps;
	/*
	 * Capabilities to lower from the user namespace set.  By default the
	 * agent lowers them before it becomes @creator, with CAP_SETPCAP, as
	 * a container runtime or a PAM module would for the user it starts;
	 * with @nnp it lowers them after, as @creator, under no_new_privs,
	 * as an unprivileged sandbox does.
	 */
	unsigned long long drop;
	bool nnp;
	/*
	 * Block SIGUSR1 rather than ignore it, so that a signal that got
	 * through stays pending where the test can see it (task_pending()).
	 */
	bool victim;
};

enum agent_op {
	OP_KILL,		/* kill(pid, 0): permission only */
	OP_SIGNAL,		/* kill(pid, SIGUSR1) */
	OP_ATTACH,		/* PTRACE_ATTACH to pid, then detach */
	OP_SETHOSTNAME,		/* sethostname(str) */
	OP_SETDOMAINNAME,	/* setdomainname(str) */
	OP_UNSHARE,		/* unshare(arg) */
	OP_SETNS,		/* setns(/proc/pid/ns/<str>, 0) */
	OP_SETNS_FD,		/* setns(arg, 0): a namespace fd it inherited */
	OP_SETUID,		/* setresuid(arg, arg, arg) */
	OP_SETGID,		/* setresgid(arg, arg, arg) */
	OP_SETGROUPS,		/* setgroups(1, { arg }) */
	OP_USERNS_LOWER,	/* no_new_privs, prctl(PR_CAP_USERNS, LOWER, arg) */
	OP_LO_MTU,		/* ip link set lo mtu <its own> */
	OP_LO_UP,		/* ip link set lo up, by SIOCSIFFLAGS */
	OP_ADD_DUMMY,		/* ip link add str type dummy */
	OP_NFT_TABLE,		/* nft add table ip str */
	OP_EXEC,		/* run str, return its exit status */
	OP_NO_NEW_PRIVS,	/* prctl(PR_SET_NO_NEW_PRIVS, 1) */
	OP_TRY_SETNS,		/* in a child: setns(/proc/pid/ns/user) */
	OP_CALL,		/* ((agent_fn)arg)(cmd): a suite's own step */
};

struct agent_cmd {
	enum agent_op op;
	pid_t pid;
	long arg;
	char str[64];
};

/*
 * A step of a suite's own, run by the agent: the agent is forked from the
 * suite, so a function pointer passed as OP_CALL's arg is valid there.
 */
typedef int (*agent_fn)(const struct agent_cmd *c);

struct agent {
	pid_t pid;
	int cmd;	/* commands to the agent */
	int res;	/* its answers */
};

static inline int write_file(const char *path, const char *text)
{
	ssize_t len = strlen(text);
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	int err = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, text, len) != len)
		err = -errno;
	close(fd);
	return err;
}

static inline int proc_write(pid_t pid, const char *file, const char *text)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/%s", pid, file);
	return write_file(path, text);
}

/* Inode number of a namespace file, or 0. */
static inline ino_t ns_ino(pid_t pid, const char *type)
{
	char path[64];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/%d/ns/%s", pid ? pid : getpid(),
		 type);
	return stat(path, &st) ? 0 : st.st_ino;
}

static inline ino_t fd_ino(int fd)
{
	struct stat st;

	return fstat(fd, &st) ? 0 : st.st_ino;
}

/*
 * Become @uid and @uid's group, with @group as the one supplementary group
 * (0: none).  Root of the current namespace keeps every capability; any
 * other uid keeps none, unless @keep.
 */
static inline int become_in_group(uid_t uid, bool keep, gid_t group)
{
	if (keep && prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0))
		return -errno;
	if (setgroups(group ? 1 : 0, &group) && errno != EPERM)
		return -errno;
	if (setresgid(uid, uid, uid) || setresuid(uid, uid, uid))
		return -errno;
	/*
	 * A uid change drops capabilities only when it leaves root of the
	 * current namespace; a task that joined a namespace with setns() was
	 * not root there, so clear them explicitly.
	 */
	if (!keep && uid != 0) {
		cap_t none = cap_init();
		int err = cap_set_proc(none) ? -errno : 0;

		cap_free(none);
		if (err)
			return err;
	}
	/* A uid change makes a task non-dumpable; the rules need ptrace. */
	return prctl(PR_SET_DUMPABLE, 1, 0, 0, 0) ? -errno : 0;
}

static inline int become(uid_t uid, bool keep)
{
	return become_in_group(uid, keep, 0);
}

/*
 * On a kernel without the series, where make check-bpf attached the BPF
 * LSM version of the clamps (alt/), the suites drive its loader instead:
 * for the mask, and for a set that root lowers for a task.  Nothing else
 * of the series has a counterpart there: in particular no task can lower
 * its own set without privilege.
 */
#define BPF_LOADER	"/tests/userns-mask"
#define BPF_PINNED	"/sys/fs/bpf/userns_mask/mask"
/* kernel.userns_cap_mask, written and read as hexadecimal. */
#define MASK_PATH	"/proc/sys/kernel/userns_cap_mask"

/* Whether the running kernel has the series: its sysctl is there. */
static inline bool has_series(void)
{
	return !access(MASK_PATH, F_OK);
}

static inline bool bpf_alt(void)
{
	return !access(BPF_PINNED, F_OK);
}

/* The loader with @args, quietly: its exit status, or -1. */
static inline int bpf_loader(const char *args)
{
	char cmd[640];
	int status;

	snprintf(cmd, sizeof(cmd), BPF_LOADER " %s >/dev/null 2>&1", args);
	status = system(cmd);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Lower @caps from the set of the caller, real root, through the loader. */
static inline int bpf_lower_self(unsigned long long caps)
{
	char args[512];
	size_t n;

	n = snprintf(args, sizeof(args), "lower %d ", getpid());
	for (int cap = 0; cap <= CAP_LAST_CAP && n < sizeof(args); cap++) {
		char *name;

		if (!((caps >> cap) & 1))
			continue;
		name = cap_to_name(cap);
		n += snprintf(args + n, sizeof(args) - n, "%s,", name);
		cap_free(name);
	}
	return bpf_loader(args) ? -EPERM : 0;
}

/* Lower every capability of @caps from the user namespace set. */
static inline int userns_lower(unsigned long long caps)
{
	for (int cap = 0; cap <= CAP_LAST_CAP; cap++) {
		int err;

		if (!((caps >> cap) & 1) ||
		    !prctl(PR_CAP_USERNS, PR_CAP_USERNS_LOWER, cap, 0, 0))
			continue;
		err = errno;
		/*
		 * The BPF version's "done", which cannot be 0 (alt/); a stock
		 * kernel without it says EINVAL.  Its pins are root's alone,
		 * so a user cannot look for them.
		 */
		if (err == EALREADY && !has_series())
			continue;
		if (err == EINVAL && !has_series() && bpf_alt() &&
		    !geteuid() && !prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0))
			return bpf_lower_self(caps);
		return -err;
	}
	return 0;
}

/*
 * Lower @caps as an unprivileged process may: under no_new_privs, so that
 * no set-user-ID program ever runs with the lowered set.
 */
static inline int userns_lower_nnp(unsigned long long caps)
{
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -errno;
	return userns_lower(caps);
}

static inline int set_caps(const char *text)
{
	cap_t caps = cap_from_text(text);
	int err = 0;

	if (!caps)
		return -EINVAL;
	if (cap_set_proc(caps))
		err = -errno;
	cap_free(caps);
	return err;
}

/*
 * Write the id maps of @pid's user namespace.  Only a task of the parent
 * user namespace (or of the namespace itself) may, so for a namespace
 * nested below another one, write them from a child that joins the parent.
 */
static inline int write_maps(pid_t pid, const char *uid_map,
			     const char *gid_map)
{
	char path[64];
	int ns, parent, status;
	pid_t child;

	snprintf(path, sizeof(path), "/proc/%d/ns/user", pid);
	ns = open(path, O_RDONLY | O_CLOEXEC);
	if (ns < 0)
		return -errno;
	parent = ioctl(ns, NS_GET_PARENT);
	close(ns);
	if (parent < 0)
		return -errno;

	child = fork();
	if (child < 0)
		return -errno;
	if (child == 0) {
		if (fd_ino(parent) != ns_ino(0, "user") &&
		    setns(parent, CLONE_NEWUSER))
			_exit(1);
		if (proc_write(pid, "uid_map", uid_map) ||
		    proc_write(pid, "gid_map", gid_map))
			_exit(2);
		_exit(0);
	}
	close(parent);
	if (waitpid(child, &status, 0) != child)
		return -errno;
	return WIFEXITED(status) && !WEXITSTATUS(status) ? 0 : -EPERM;
}

static inline int join_ns(pid_t pid, int types)
{
	static const struct { int type; const char *name; } all[] = {
		{ CLONE_NEWUSER, "user" }, { CLONE_NEWUTS, "uts" },
		{ CLONE_NEWNS, "mnt" }, { CLONE_NEWPID, "pid" },
		{ CLONE_NEWNET, "net" }, { CLONE_NEWIPC, "ipc" },
	};
	char path[64];
	size_t i;
	int fd, err;

	for (i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		if (!(types & all[i].type))
			continue;
		snprintf(path, sizeof(path), "/proc/%d/ns/%s", pid,
			 all[i].name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return -errno;
		err = setns(fd, all[i].type) ? -errno : 0;
		close(fd);
		if (err)
			return err;
	}
	return 0;
}

static inline int agent_op(const struct agent_cmd *c)
{
	char path[128];
	int fd, err, status;

	switch (c->op) {
	case OP_KILL:
		return kill(c->pid, 0) ? errno : 0;
	case OP_SIGNAL:
		return kill(c->pid, SIGUSR1) ? errno : 0;
	case OP_ATTACH:
		if (ptrace(PTRACE_ATTACH, c->pid, 0, 0))
			return errno;
		waitpid(c->pid, &status, __WALL);
		ptrace(PTRACE_DETACH, c->pid, 0, 0);
		return 0;
	case OP_SETHOSTNAME:
		return sethostname(c->str, strlen(c->str)) ? errno : 0;
	case OP_SETDOMAINNAME:
		return setdomainname(c->str, strlen(c->str)) ? errno : 0;
	case OP_UNSHARE:
		return unshare(c->arg) ? errno : 0;
	case OP_SETNS:
		snprintf(path, sizeof(path), "/proc/%d/ns/%s", c->pid, c->str);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return errno;
		err = setns(fd, 0) ? errno : 0;
		close(fd);
		return err;
	case OP_SETNS_FD:
		return setns(c->arg, 0) ? errno : 0;
	case OP_SETUID:
		return setresuid(c->arg, c->arg, c->arg) ? errno : 0;
	case OP_SETGID:
		return setresgid(c->arg, c->arg, c->arg) ? errno : 0;
	case OP_SETGROUPS: {
		gid_t group = c->arg;

		return setgroups(1, &group) ? errno : 0;
	}
	case OP_USERNS_LOWER:
		return -userns_lower_nnp(1ULL << c->arg);
	case OP_TRY_SETNS: {
		pid_t child = fork();

		if (child < 0)
			return errno;
		if (child == 0) {
			struct agent_cmd in = *c;

			in.op = OP_SETNS;
			snprintf(in.str, sizeof(in.str), "user");
			_exit(agent_op(&in));
		}
		if (waitpid(child, &status, 0) != child)
			return errno;
		return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
	}
	case OP_NO_NEW_PRIVS:
		return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ? errno : 0;
	case OP_CALL:
		return ((agent_fn)c->arg)(c);
	case OP_LO_MTU:
		return net_lo_mtu();
	case OP_LO_UP:
		return net_lo_up();
	case OP_ADD_DUMMY:
		return net_add_dummy(c->str, 0);
	case OP_NFT_TABLE:
		return net_add_nft_table(c->str);
	case OP_EXEC: {
		pid_t child = fork();

		if (child < 0)
			return errno;
		if (child == 0) {
			execl(c->str, c->str, "--report", NULL);
			_exit(127);
		}
		if (waitpid(child, &status, 0) != child)
			return errno;
		return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
	}
	}
	return EINVAL;
}

/* The agent's side: set itself up, then serve commands until EOF. */
static inline void agent_main(const struct agent_spec *s, int cmd, int res)
{
	struct agent_cmd c;
	char map[64];
	uid_t outer;
	gid_t outer_gid;
	int err = 0;

	if (s->join)
		err = join_ns(s->join, CLONE_NEWUSER | s->join_ns);
	if (!err && !s->nnp)
		err = userns_lower(s->drop);
	if (!err && s->creator != KEEP)
		err = become_in_group(s->creator, s->caps, s->group);
	if (!err && s->nnp)
		err = userns_lower_nnp(s->drop);
	outer = geteuid();
	outer_gid = getegid();
	if (!err && s->unshare && unshare(s->unshare))
		err = -errno;
	if (!err && (s->unshare & CLONE_NEWUSER) && !s->uid_map) {
		snprintf(map, sizeof(map), "0 %u 1", outer);
		err = proc_write(getpid(), "setgroups", "deny");
		if (!err)
			err = proc_write(getpid(), "uid_map", map);
		snprintf(map, sizeof(map), "0 %u 1", outer_gid);
		if (!err)
			err = proc_write(getpid(), "gid_map", map);
	}
	/* Tell the caller where we are; wait for maps it writes. */
	if (write(res, &err, sizeof(err)) != sizeof(err) || err)
		_exit(1);
	if (read(cmd, &err, sizeof(err)) != sizeof(err) || err)
		_exit(1);

	if (s->uid != KEEP)
		err = become(s->uid, s->caps);
	else
		err = prctl(PR_SET_DUMPABLE, 1, 0, 0, 0) ? -errno : 0;
	if (!err && s->caps)
		err = set_caps(s->caps);
	prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
	if (s->victim) {
		sigset_t usr1;

		sigemptyset(&usr1);
		sigaddset(&usr1, SIGUSR1);
		sigprocmask(SIG_BLOCK, &usr1, NULL);
	} else {
		signal(SIGUSR1, SIG_IGN);
	}
	if (write(res, &err, sizeof(err)) != sizeof(err) || err)
		_exit(1);

	while (read(cmd, &c, sizeof(c)) == sizeof(c)) {
		err = agent_op(&c);
		if (write(res, &err, sizeof(err)) != sizeof(err))
			break;
	}
	_exit(0);
}

/* Returns 0, or the negative errno of the step that failed. */
static inline int agent_start(struct agent *a, const struct agent_spec *s)
{
	int cmd[2], res[2], err = 0;

	if (pipe2(cmd, O_CLOEXEC) || pipe2(res, O_CLOEXEC))
		return -errno;
	fflush(NULL);
	a->pid = fork();
	if (a->pid < 0)
		return -errno;
	if (a->pid == 0) {
		close(cmd[1]);
		close(res[0]);
		agent_main(s, cmd[0], res[1]);
	}
	close(cmd[0]);
	close(res[1]);
	a->cmd = cmd[1];
	a->res = res[0];

	if (read(a->res, &err, sizeof(err)) != sizeof(err))
		return -ECHILD;
	if (!err && (s->unshare & CLONE_NEWUSER) && s->uid_map)
		err = write_maps(a->pid, s->uid_map,
				 s->gid_map ? s->gid_map : s->uid_map);
	if (write(a->cmd, &err, sizeof(err)) != sizeof(err))
		return -ECHILD;
	if (!err && read(a->res, &err, sizeof(err)) != sizeof(err))
		return -ECHILD;
	return err;
}

static inline int agent_do(struct agent *a, enum agent_op op, pid_t pid,
			   long arg, const char *str)
{
	struct agent_cmd c = { .op = op, .pid = pid, .arg = arg };
	int err;

	if (str && strlen(str) >= sizeof(c.str))
		return -ENAMETOOLONG;	/* never run an op on a cut string */
	if (str)
		memcpy(c.str, str, strlen(str) + 1);
	if (write(a->cmd, &c, sizeof(c)) != sizeof(c) ||
	    read(a->res, &err, sizeof(err)) != sizeof(err))
		return -ECHILD;
	return err;
}

static inline void agent_stop(struct agent *a)
{
	if (a->pid <= 0)
		return;
	kill(a->pid, SIGKILL);
	waitpid(a->pid, NULL, 0);
	close(a->cmd);
	close(a->res);
	a->pid = 0;
}

/*
 * The real uid or gid of a task, as the caller's namespace sees it: "Uid:"
 * or "Gid:" in its status file.
 */
static inline long task_id(pid_t pid, const char *field)
{
	char path[64], line[256], fmt[16];
	long id = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	snprintf(fmt, sizeof(fmt), "%s %%ld", field);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, fmt, &id) == 1)
			break;
	fclose(f);
	return id;
}

/* A hexadecimal field of a task's status, "CapEff:", "CapUns:" ..., or -1. */
static inline long long task_caps(pid_t pid, const char *field)
{
	char path[64], line[256], fmt[32];
	unsigned long long caps;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", pid ? pid : getpid());
	snprintf(fmt, sizeof(fmt), "%s %%llx", field);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, fmt, &caps) == 1) {
			fclose(f);
			return caps;
		}
	fclose(f);
	return -1;
}

#define HAS(caps, cap)	((int)(((caps) >> (cap)) & 1))
#define ALL_CAPS	((1LL << (CAP_LAST_CAP + 1)) - 1)

/* Signals pending for a task, its own and its process's: "SigPnd|ShdPnd". */
static inline long long task_pending(pid_t pid)
{
	return task_caps(pid, "SigPnd:") | task_caps(pid, "ShdPnd:");
}

/* Copy the running program to @to, owned by @uid and @gid, with @mode. */
static inline int copy_self_as(const char *to, uid_t uid, gid_t gid,
			       mode_t mode)
{
	char buf[65536];
	int in, out, err = 0;
	ssize_t n;

	in = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0700);
	if (in < 0 || out < 0)
		return -errno;
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, n) != n)
			err = -EIO;
	close(in);
	close(out);
	if (!err && (chown(to, uid, gid) || chmod(to, mode)))
		err = -errno;
	return err;
}

static inline int copy_self(const char *to, uid_t owner, mode_t mode)
{
	return copy_self_as(to, owner, owner, mode);
}

static inline int set_mask(unsigned long long mask)
{
	char text[32];

	if (!has_series() && bpf_alt()) {
		snprintf(text, sizeof(text), "mask %llx", mask);
		return bpf_loader(text) ? -EIO : 0;
	}
	snprintf(text, sizeof(text), "%016llx\n", mask);
	return write_file(MASK_PATH, text);
}

static inline long long get_mask(void)
{
	char text[64] = "";
	unsigned long long mask;
	long long found = -1;
	ssize_t n;
	FILE *f;
	int fd;

	if (!has_series() && bpf_alt()) {
		f = popen(BPF_LOADER " show", "r");
		if (!f)
			return -1;
		while (fgets(text, sizeof(text), f))
			if (sscanf(text, "mask %llx", &mask) == 1)
				found = mask & ALL_CAPS;
		pclose(f);
		return found;
	}
	fd = open(MASK_PATH, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, text, sizeof(text) - 1);
	close(fd);
	return n > 0 ? strtoll(text, NULL, 16) : -1;
}

/* The ceiling of @pid's user namespace (NS_GET_USERNS_CAP_CEILING); -1. */
static inline long long ns_ceiling(pid_t pid)
{
	char path[64];
	__u64 ceiling;
	int fd, ret;

	snprintf(path, sizeof(path), "/proc/%d/ns/user", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ret = ioctl(fd, NS_GET_USERNS_CAP_CEILING, &ceiling);
	close(fd);
	return ret ? -1 : (long long)ceiling;
}

static inline long task_kuid(pid_t pid)
{
	return task_id(pid, "Uid:");
}

/*
 * Write @marker into the kernel log as a line of its own, to read what
 * follows with log_since(): 0, or why not.  The newline matters: the log
 * keeps a line without one open for a continuation, and readers do not
 * see it until the next message, so that a test whose next message was
 * rate-limited away would find an earlier test's marker instead.
 */
static inline int log_mark(const char *marker)
{
	char line[256];

	snprintf(line, sizeof(line), "%s\n", marker);
	return write_file("/dev/kmsg", line);
}

/*
 * The kernel log after the last line that holds @marker, read into @buf
 * (the log buffer's size at least); "" if the marker is gone.
 */
static inline const char *log_since(const char *marker, char *buf,
				    size_t size)
{
	int n = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, buf, size - 1);
	char *at, *last = NULL;

	buf[n > 0 ? n : 0] = '\0';
	for (at = strstr(buf, marker); at; at = strstr(at + 1, marker))
		last = at;
	return last ? last : buf + strlen(buf);
}

/* How many lines of @log hold @what. */
static inline int log_count(const char *log, const char *what)
{
	int n = 0;

	for (log = strstr(log, what); log; log = strstr(log, what)) {
		n++;
		log = strchr(log, '\n');
		if (!log)
			break;
	}
	return n;
}

/* The errno as a name, for readable expectations in variant tables. */
static inline const char *errname(int err)
{
	switch (err) {
	case 0:		return "allowed";
	case EPERM:	return "EPERM";
	case EACCES:	return "EACCES";
	case EINVAL:	return "EINVAL";
	case ESRCH:	return "ESRCH";
	default:	return strerror(err);
	}
}

/* Copy the file @from to @to, created or truncated: 0 or an errno. */
static inline int copy_file(const char *from, const char *to)
{
	char buf[65536];
	int in = open(from, O_RDONLY | O_CLOEXEC), out, err = 0;
	ssize_t n;

	out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (in < 0 || out < 0) {
		err = errno;
		if (in >= 0)
			close(in);
		if (out >= 0)
			close(out);
		return err;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, n) != n)
			err = EIO;
	close(in);
	close(out);
	return err;
}

/*
 * Objects of a slab cache in use, from /proc/slabinfo; -1 if absent.  SLUB
 * counts every object of a CPU's slabs as active, free or not, and an SMP
 * kernel keeps whole partial slabs per CPU: shrinking the cache first
 * (/sys/kernel/slab/NAME/shrink) hands them back, so that what is left is
 * what is allocated.
 */
static inline long slab_active(const char *cache)
{
	char line[512], name[64];
	long active = -1, n;
	FILE *f;

	snprintf(line, sizeof(line), "/sys/kernel/slab/%s/shrink", cache);
	write_file(line, "1");
	f = fopen("/proc/slabinfo", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%63s %ld", name, &n) == 2 &&
		    !strcmp(name, cache))
			active = n;
	fclose(f);
	return active;
}

#endif /* NSCAPS_TEST_H */
