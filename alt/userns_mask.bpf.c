// SPDX-License-Identifier: GPL-2.0
/*
 * The series' clamps as far as a BPF LSM program on a stock kernel can
 * express them, written as strongly as we know how, for comparison
 * (docs/alternatives.md, "Why not an LSM?"):
 *
 *   mask      a capability outside it is refused in every user namespace
 *             but the initial one, live: the loader rewrites the map
 *   set       a per-task set in task storage, inherited at fork; lowered by
 *             the loader for a pid, or by the task itself with prctl()'s
 *             PR_CAP_USERNS (the series' number) under no_new_privs or
 *             CAP_SETPCAP, while it is alone (set_lower below)
 *   ceiling   recorded for each user namespace when it is made (fexit of
 *             create_user_ns()): the parent's ceiling and the creator's
 *             set; only ceilings that lack something are kept, each is
 *             dropped when its namespace's inode number is freed, and each
 *             owner has a budget of them (ceiling_budget below)
 *   ptrace    a task controls another only if its set holds all of the
 *             other's
 *   root's    a namespace real root made (its creator had CAP_SYS_ADMIN
 *             in the initial namespace) is left what real root held, past
 *             the mask, for the tasks started there (task storage,
 *             inherited at fork); while the mask takes some of it, no
 *             owner rule reaches into it from the initial namespace
 *   loopback  the loopback set-up of the series' net/core/lo_setup.c, read
 *             from the request: an rtnetlink message at netlink_send, the
 *             SIOCSIFFLAGS ioctl at dev_ioctl(); while the request that
 *             passed runs, CAP_NET_ADMIN over its namespace is left as
 *             commoncap decided it
 *
 * The capable hook runs after commoncap has granted; it then refuses what
 * the clamps cut.  A capability held in the initial namespace is never
 * touched, so real root keeps managing containers; everything else below
 * the initial namespace (the owner rule from the initial namespace too)
 * is held to mask & ceiling & set.
 *
 * Where it stops, each for a reason of the hooks: the hook sees the
 * credentials and the target namespace, not which rule of the walk
 * granted, so the ceiling taken is that of the credentials' own
 * namespace; the set is the current task's, which are not always the
 * credentials checked (a file's opener, another task's); decisions that
 * read an effective set or call cap_capable() without asking the LSMs are
 * not seen; nothing of it shows in /proc/PID/status; a BPF LSM program
 * may not return a positive value, so PR_CAP_USERNS_IS_SET has no answer
 * (kernel/bpf/bpf_lsm.c, bpf_lsm_get_retval_range()); and io_uring rings
 * a task holds only by descriptor or mapping are not looked for when it
 * lowers its set.
 *
 * The kernel's types are declared here, the few fields used, with CO-RE
 * relocations: the object loads on any kernel with BTF.
 */

#include <stdbool.h>
#include <linux/bpf.h>
#include <linux/types.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/if_addr.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#define EPERM		1
#define ENOSPC		28
#define EINVAL		22
#define ENOMEM		12
#define EALREADY	114
#define ENOSYS		38
#define FULL		(~0ULL)
/* Deep enough for the kernel's limit of 32 nested user namespaces. */
#define MAX_DEPTH	33
#define CAP_SETPCAP	8
#define CAP_NET_ADMIN	12
#define CAP_SYS_ADMIN	21
#define CAP_LAST_CAP	40

/* The series' prctl() (include/uapi/linux/prctl.h there). */
#define PR_CAP_USERNS			0x55534e53
#define PR_CAP_USERNS_IS_SET		1
#define PR_CAP_USERNS_LOWER		3
#define PR_CAP_USERNS_CLEAR_ALL		4
#define PFA_NO_NEW_PRIVS		0

/* The uapi values the loopback rule reads, from <linux/if.h> et al. */
#define AF_UNSPEC		0
#define AF_INET			2
#define AF_INET6		10
#define NETLINK_ROUTE		0
#define SIOCSIFFLAGS		0x8914
#define IFF_UP			0x1
#define LOOPBACK_IFINDEX	1
#define RT_SCOPE_HOST		254
/* __dev_change_flags() takes these from a request as they are. */
#define LO_SETUP_DEV_FLAGS	0xf0a4	/* DEBUG NOTRAILERS NOARP MULTICAST
					 * PORTSEL AUTOMEDIA DYNAMIC */
#define LO_SETUP_GFLAGS		0x300	/* PROMISC ALLMULTI */
#define LO_SETUP_NLM_LINK	(NLM_F_REQUEST | NLM_F_ACK)
#define LO_SETUP_NLM_ADDR	(LO_SETUP_NLM_LINK | NLM_F_CREATE | NLM_F_EXCL)
#define LO_SETUP_IFA_FLAGS	IFA_F_PERMANENT
#define LO_SETUP_IFA6_FLAGS	(IFA_F_PERMANENT | IFA_F_NOPREFIXROUTE)
/* A request of the set-up is one short message, or a few in one send. */
#define LO_MSG_MAX		128
#define LO_MSGS_MAX		4
#define LO_ATTRS_MAX		4

typedef struct {
	__u64 val;
} __attribute__((preserve_access_index)) kernel_cap_t;

typedef struct {
	__u32 val;
} __attribute__((preserve_access_index)) kuid_t;

typedef struct {
	int counter;
} __attribute__((preserve_access_index)) atomic_t;

struct ns_common {
	unsigned int inum;
} __attribute__((preserve_access_index));

struct user_namespace {
	struct user_namespace *parent;
	int level;
	kuid_t owner;
	struct ns_common ns;
} __attribute__((preserve_access_index));

struct cred {
	kuid_t euid;
	struct user_namespace *user_ns;
	kernel_cap_t cap_effective;
} __attribute__((preserve_access_index));

struct net {
	struct user_namespace *user_ns;
} __attribute__((preserve_access_index));

typedef struct {
	struct net *net;
} __attribute__((preserve_access_index)) possible_net_t;

struct sock_common {
	possible_net_t skc_net;
} __attribute__((preserve_access_index));

struct sock {
	struct sock_common __sk_common;
	__u16 sk_protocol;
} __attribute__((preserve_access_index));

struct sk_buff {
	unsigned int len;
	unsigned int data_len;
	unsigned char *data;
} __attribute__((preserve_access_index));

struct list_head {
	struct list_head *next;
} __attribute__((preserve_access_index));

struct signal_struct {
	int nr_threads;
} __attribute__((preserve_access_index));

struct mm_struct {
	atomic_t mm_users;
} __attribute__((preserve_access_index));

struct files_struct {
	atomic_t count;
} __attribute__((preserve_access_index));

struct fs_struct {
	int users;
} __attribute__((preserve_access_index));

struct task_struct {
	unsigned long atomic_flags;
	struct signal_struct *signal;
	struct mm_struct *mm;
	struct files_struct *files;
	struct fs_struct *fs;
	void *io_uring;
	struct list_head ptraced;
	const struct cred *cred;
} __attribute__((preserve_access_index));

struct socket;
struct msghdr;
struct ifreq;

/* The mask, key 0; the loader sets it. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} mask SEC(".maps");

/* Each task's set, where one was lowered; absent is full. */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, __u64);
} task_set SEC(".maps");

/*
 * A user namespace's ceiling, by inode number, where it lacks something
 * (absent is full), and the owner it is charged to (owner_charged()).
 */
struct ceiling_entry {
	__u64 ceiling;
	__u64 owner;
};

/*
 * Room for 64 owners' budgets: a slot is taken at userns_create, before
 * the namespace exists, and the map is preallocated, so that a recorded
 * ceiling is never lost to a full map or a failed allocation.
 */
#define CEILINGS_MAX	(1 << 16)
#define BUDGET_MAX	(CEILINGS_MAX / 64)

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, CEILINGS_MAX);
	__type(key, __u32);
	__type(value, struct ceiling_entry);
} ceiling SEC(".maps");

/* How many ceilings each owner holds. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, CEILINGS_MAX);
	__type(key, __u64);
	__type(value, __u32);
} charged SEC(".maps");

/* Ceilings held in all, key 0, against CEILINGS_MAX. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} held SEC(".maps");

/*
 * A creation in flight: the slot taken at userns_create for the
 * namespace create_user_ns() is making, with the owner it is charged to,
 * so that its fexit records the ceiling or gives the slot back.
 */
struct pending {
	__u64 owner;
	__u32 taken;
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct pending);
} creating SEC(".maps");

/*
 * A request of the loopback set-up that passed, while it runs: the user
 * namespace that owns the network namespace it was sent to.
 */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, __u64);
} lo_setup SEC(".maps");

/*
 * What real root left each namespace it made, its effective set then, by
 * inode number: only real root adds entries, so no user fills the map.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, CEILINGS_MAX);
	__type(key, __u32);
	__type(value, __u64);
} root_made SEC(".maps");

/* The root-made namespace, by inode number, whose grant a task holds. */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, __u32);
} unmasked_in SEC(".maps");

/* Each owner's budget of ceilings; the loader may lower it. */
const volatile __u32 ceiling_budget = BUDGET_MAX;

static __u64 set_of(struct task_struct *task)
{
	__u64 *set = bpf_task_storage_get(&task_set, task, 0, 0);

	return set ? *set : FULL;
}

static __u64 ceiling_of(const struct user_namespace *ns)
{
	__u32 inum = BPF_CORE_READ(ns, ns.inum);
	struct ceiling_entry *c = bpf_map_lookup_elem(&ceiling, &inum);

	return c ? c->ceiling : FULL;
}

static __u64 root_left(const struct user_namespace *ns)
{
	__u32 inum = BPF_CORE_READ(ns, ns.inum);
	__u64 *left = bpf_map_lookup_elem(&root_made, &inum);

	return left ? *left : 0;
}

/* Does @task hold what real root left @ns? */
static bool holds_root_left(struct task_struct *task,
			    const struct user_namespace *ns)
{
	__u32 *inum = bpf_task_storage_get(&unmasked_in, task, 0, 0);

	return inum && *inum == BPF_CORE_READ(ns, ns.inum);
}

static __u64 mask_now(void)
{
	__u32 key = 0;
	__u64 *m = bpf_map_lookup_elem(&mask, &key);

	return m ? *m : FULL;
}

/*
 * The namespace whose ceiling counts: the credentials' own, or, for
 * credentials of the initial namespace (the owner rule), the child of it
 * on the way up from @target.
 */
static const struct user_namespace *
holder_of(const struct cred *cred, const struct user_namespace *target)
{
	const struct user_namespace *ns = target;
	int i;

	if (BPF_CORE_READ(cred, user_ns, level) > 0)
		return BPF_CORE_READ(cred, user_ns);
	for (i = 0; i < MAX_DEPTH && BPF_CORE_READ(ns, level) > 1; i++)
		ns = BPF_CORE_READ(ns, parent);
	return ns;
}

/* Does current run a loopback set-up request to @ns's network namespace? */
static bool lo_setup_running(const struct user_namespace *ns)
{
	__u64 *ns_of = bpf_task_storage_get(&lo_setup,
					    bpf_get_current_task_btf(), 0, 0);

	return ns_of && *ns_of == (__u64)ns;
}

SEC("lsm/capable")
int BPF_PROG(userns_mask_capable, const struct cred *cred,
	     struct user_namespace *ns, int cap, unsigned int opts, int ret)
{
	struct task_struct *task = bpf_get_current_task_btf();
	const struct user_namespace *holder;
	__u64 allowed, bit, m, left;

	if (ret || cap < 0 || cap > 63 || BPF_CORE_READ(ns, level) == 0)
		return ret;
	bit = 1ULL << cap;
	/* Held in the initial namespace: real root over its containers. */
	if (BPF_CORE_READ(cred, user_ns, level) == 0 &&
	    (BPF_CORE_READ(cred, cap_effective.val) & bit))
		return 0;
	if (cap == CAP_NET_ADMIN && lo_setup_running(ns))
		return 0;
	holder = holder_of(cred, ns);
	m = mask_now();
	left = root_left(holder);
	if (BPF_CORE_READ(cred, user_ns, level) == 0) {
		/* The owner rule, into a namespace the mask takes from. */
		if (left & ~m)
			return -EPERM;
	} else if (left && holds_root_left(task, holder)) {
		m |= left;
	}
	allowed = m & ceiling_of(holder) & set_of(task);
	return allowed & bit ? 0 : -EPERM;
}

/*
 * A child starts with its parent's set; where the set cannot be stored,
 * the child is not made, rather than made with a full one.
 */
SEC("lsm/task_alloc")
int BPF_PROG(userns_mask_inherit, struct task_struct *task,
	     unsigned long clone_flags)
{
	struct task_struct *parent = bpf_get_current_task_btf();
	__u64 set = set_of(parent), *child;
	__u32 *in = bpf_task_storage_get(&unmasked_in, parent, 0, 0), *c;

	if (in) {
		c = bpf_task_storage_get(&unmasked_in, task, 0,
					 BPF_LOCAL_STORAGE_GET_F_CREATE);
		if (!c)
			return -ENOMEM;
		*c = *in;
	}
	if (set == FULL)
		return 0;
	child = bpf_task_storage_get(&task_set, task, 0,
				     BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!child)
		return -ENOMEM;
	*child = set;
	return 0;
}

/*
 * Control of another task needs a set that holds all of its, as the
 * series' ptrace rule: otherwise a lowered task could drive a fuller one
 * of the same user to make what it may not.
 */
SEC("lsm/ptrace_access_check")
int BPF_PROG(userns_mask_ptrace, struct task_struct *child, unsigned int mode,
	     int ret)
{
	if (ret)
		return ret;
	return set_of(child) & ~set_of(bpf_get_current_task_btf()) ? -EPERM : 0;
}

SEC("lsm/ptrace_traceme")
int BPF_PROG(userns_mask_traceme, struct task_struct *parent, int ret)
{
	if (ret)
		return ret;
	return set_of(bpf_get_current_task_btf()) & ~set_of(parent) ? -EPERM : 0;
}

/*
 * The series' "alone" rule for lowering a set, as far as a program can
 * read it: one thread, memory, files and root of its own, no io_uring
 * context and no tracee.  Rings held only by descriptor or mapping are
 * not looked for (the series walks the file table and the mappings).
 */
static bool set_lower_alone(struct task_struct *task)
{
	struct list_head *ptraced = &task->ptraced;

	return BPF_CORE_READ(task, signal, nr_threads) == 1 &&
	       BPF_CORE_READ(task, mm, mm_users.counter) == 1 &&
	       BPF_CORE_READ(task, files, count.counter) == 1 &&
	       BPF_CORE_READ(task, fs, users) == 1 &&
	       !BPF_CORE_READ(task, io_uring) &&
	       BPF_CORE_READ(task, ptraced.next) == ptraced;
}

/* CAP_SETPCAP in the task's own namespace, under the clamps there. */
static bool holds_setpcap(struct task_struct *task, const struct cred *cred)
{
	const struct user_namespace *ns = BPF_CORE_READ(cred, user_ns);
	__u64 bit = 1ULL << CAP_SETPCAP;

	if (!(BPF_CORE_READ(cred, cap_effective.val) & bit))
		return false;
	return BPF_CORE_READ(ns, level) == 0 ||
	       (mask_now() & ceiling_of(ns) & set_of(task) & bit);
}

/*
 * PR_CAP_USERNS: lower or clear the caller's set, under no_new_privs or
 * CAP_SETPCAP in its own namespace, as the series does.  Other options
 * are left to the kernel.
 *
 * A BPF LSM program cannot make prctl() return 0: it is attached as
 * fmod_ret to the hook's stub, a return of 0 runs the stub, and the
 * stub's -ENOSYS tells prctl() that no module knew the option, so that
 * prctl() fails with EINVAL (kernel/bpf/bpf_lsm.c, the trampoline's
 * fmod_ret test in arch/x86/net/bpf_jit_comp.c, kernel/sys.c's default
 * case).  So a call that leaves the set as asked fails with EALREADY,
 * which nothing else here returns, and a caller written for the series
 * must read that as success.
 */
SEC("lsm/task_prctl")
int BPF_PROG(userns_mask_prctl, int option, unsigned long op,
	     unsigned long cap, unsigned long arg4, unsigned long arg5,
	     int ret)
{
	struct task_struct *task = bpf_get_current_task_btf();
	const struct cred *cred = task->cred;
	__u64 *set, lower, full = FULL;

	if (option != PR_CAP_USERNS)
		return ret;
	if (arg4 | arg5)
		return -EINVAL;
	if (op == PR_CAP_USERNS_CLEAR_ALL && !cap)
		lower = FULL;
	else if (op == PR_CAP_USERNS_LOWER && cap <= CAP_LAST_CAP)
		lower = 1ULL << cap;
	else
		return -EINVAL;	/* IS_SET among them: see the top */
	if (!(task->atomic_flags & (1UL << PFA_NO_NEW_PRIVS)) &&
	    !holds_setpcap(task, cred))
		return -EPERM;
	if (!(set_of(task) & lower))
		return -EALREADY;
	if (!set_lower_alone(task))
		return -EINVAL;
	set = bpf_task_storage_get(&task_set, task, &full,
				   BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!set)
		return -ENOSPC;
	*set &= ~lower;
	return -EALREADY;	/* done: see above */
}

/*
 * The owner a namespace made under @cred's is charged to: the creator's
 * euid in the initial namespace; below it, the owner of the first
 * ancestor below the initial namespace, the user whose container it is,
 * unless that owner is uid 0, whose containers (root's runtimes') are
 * each charged on their own, by that ancestor's inode number (above
 * any uid).
 */
static __u64 owner_charged(const struct cred *cred)
{
	const struct user_namespace *ns = BPF_CORE_READ(cred, user_ns);
	__u32 owner;
	int i;

	if (BPF_CORE_READ(ns, level) == 0)
		return BPF_CORE_READ(cred, euid.val);
	for (i = 0; i < MAX_DEPTH && BPF_CORE_READ(ns, level) > 1; i++)
		ns = BPF_CORE_READ(ns, parent);
	owner = BPF_CORE_READ(ns, owner.val);
	return owner ? owner : 1ULL << 32 | BPF_CORE_READ(ns, ns.inum);
}

/*
 * A namespace whose ceiling will lack something takes a slot now, from
 * its owner's budget and the map's room; past either, the creation fails
 * with ENOSPC, as past user.max_user_namespaces.  Only a creator whose
 * set or namespace is lowered ever needs a slot, so a full budget stops
 * lowered sandboxes of that owner from nesting further, and no one else.
 */
SEC("lsm/userns_create")
int BPF_PROG(userns_mask_reserve, const struct cred *cred, int ret)
{
	struct task_struct *task = bpf_get_current_task_btf();
	__u32 key = 0, zero = 0, *n, *all;
	struct pending *p;
	__u64 owner;

	if (ret)
		return ret;
	p = bpf_task_storage_get(&creating, task, 0,
				 BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!p)
		return -ENOSPC;
	p->taken = 0;
	if ((ceiling_of(BPF_CORE_READ(cred, user_ns)) & set_of(task)) == FULL)
		return 0;
	all = bpf_map_lookup_elem(&held, &key);
	if (!all)
		return -ENOSPC;
	owner = owner_charged(cred);
	n = bpf_map_lookup_elem(&charged, &owner);
	if (!n) {
		bpf_map_update_elem(&charged, &owner, &zero, BPF_NOEXIST);
		n = bpf_map_lookup_elem(&charged, &owner);
		if (!n)
			return -ENOSPC;
	}
	if (__sync_fetch_and_add(n, 1) >= ceiling_budget) {
		__sync_fetch_and_add(n, -1);
		return -ENOSPC;
	}
	if (__sync_fetch_and_add(all, 1) >= CEILINGS_MAX) {
		__sync_fetch_and_add(all, -1);
		__sync_fetch_and_add(n, -1);
		return -ENOSPC;
	}
	p->owner = owner;
	p->taken = 1;
	return 0;
}

/* Give back the slot of @owner. */
static void slot_free(__u64 owner)
{
	__u32 key = 0, *n = bpf_map_lookup_elem(&charged, &owner);
	__u32 *all = bpf_map_lookup_elem(&held, &key);

	if (n)
		__sync_fetch_and_add(n, -1);
	if (all)
		__sync_fetch_and_add(all, -1);
}

/*
 * A namespace real root makes: what it held is recorded, and the
 * creator holds it there (an unshare()r itself; a clone()d child, which
 * task_alloc runs for after its credentials are made, takes it from us).
 */
static void root_made_record(struct task_struct *task,
			     const struct user_namespace *ns)
{
	const struct cred *cred = task->cred;
	__u64 held = BPF_CORE_READ(cred, cap_effective.val);
	__u32 inum = BPF_CORE_READ(ns, ns.inum), *in;

	if (BPF_CORE_READ(cred, user_ns, level) ||
	    !(held & (1ULL << CAP_SYS_ADMIN)))
		return;
	bpf_map_update_elem(&root_made, &inum, &held, BPF_ANY);
	in = bpf_task_storage_get(&unmasked_in, task, 0,
				  BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (in)
		*in = inum;
}

/* A new user namespace: the parent's ceiling and the creator's set. */
SEC("fexit/create_user_ns")
int BPF_PROG(userns_mask_ceiling, struct cred *new, int ret)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct pending *p = bpf_task_storage_get(&creating, task, 0, 0);
	const struct user_namespace *ns;
	struct ceiling_entry c;
	__u32 inum;

	if (!ret)
		root_made_record(task, BPF_CORE_READ(new, user_ns));
	if (!p || !p->taken)
		return 0;
	p->taken = 0;
	if (ret) {
		slot_free(p->owner);
		return 0;
	}
	ns = BPF_CORE_READ(new, user_ns);
	c.ceiling = ceiling_of(BPF_CORE_READ(ns, parent)) & set_of(task);
	c.owner = p->owner;
	inum = BPF_CORE_READ(ns, ns.inum);
	if (bpf_map_update_elem(&ceiling, &inum, &c, BPF_NOEXIST))
		slot_free(p->owner);
	return 0;
}

/*
 * A namespace's inode number is freed as it goes (ns_free_inum() in
 * free_user_ns(), for each ancestor it takes along too): its ceiling
 * goes with it.  Numbers of other namespaces and of proc entries come
 * from the same allocator, so no live namespace has a freed number.
 */
SEC("fentry/proc_free_inum")
int BPF_PROG(userns_mask_forget, unsigned int inum)
{
	struct ceiling_entry *c = bpf_map_lookup_elem(&ceiling, &inum);
	__u64 owner;

	bpf_map_delete_elem(&root_made, &inum);
	if (!c)
		return 0;
	owner = c->owner;
	if (!bpf_map_delete_elem(&ceiling, &inum))
		slot_free(owner);
	return 0;
}

/* ---- the loopback set-up, read from the request ---- */

/* RTM_NEWLINK or RTM_SETLINK: IFF_UP on the loopback device, nothing else. */
static bool lo_setup_link(const struct nlmsghdr *h, const __u8 *m)
{
	const struct ifinfomsg *ifm = (const void *)(m + NLMSG_HDRLEN);

	return !(h->nlmsg_flags & ~LO_SETUP_NLM_LINK) &&
	       h->nlmsg_len == NLMSG_HDRLEN + sizeof(*ifm) &&
	       ifm->ifi_family == AF_UNSPEC &&
	       ifm->ifi_index == LOOPBACK_IFINDEX &&
	       ifm->ifi_change == IFF_UP && (ifm->ifi_flags & IFF_UP);
}

/*
 * RTM_NEWADDR: 127.0.0.1/8 of host scope or ::1/128 on the loopback
 * device, with no attribute but the address and its flags, as a new
 * address: the kernel's own, never a replacement of it.
 */
static bool lo_setup_addr(const struct nlmsghdr *h, const __u8 *m)
{
	const struct ifaddrmsg *ifm = (const void *)(m + NLMSG_HDRLEN);
	__u32 off = NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(*ifm));
	__u32 flags, allowed = LO_SETUP_IFA_FLAGS, len = h->nlmsg_len;
	bool addr = false;
	int i;

	if (h->nlmsg_flags & ~LO_SETUP_NLM_ADDR || len < off ||
	    ifm->ifa_index != LOOPBACK_IFINDEX)
		return false;
	if (ifm->ifa_family == AF_INET) {
		if (ifm->ifa_prefixlen != 8 || ifm->ifa_scope != RT_SCOPE_HOST)
			return false;
	} else if (ifm->ifa_family == AF_INET6) {
		if (ifm->ifa_prefixlen != 128)
			return false;
		allowed = LO_SETUP_IFA6_FLAGS;
	} else {
		return false;
	}
	flags = ifm->ifa_flags;
	for (i = 0; i < LO_ATTRS_MAX && off < len; i++) {
		const struct nlattr *nla;
		const __u8 *v;
		__u16 alen;

		if (off > LO_MSG_MAX - NLA_HDRLEN - 16)
			return false;
		nla = (const void *)(m + off);
		v = m + off + NLA_HDRLEN;
		alen = nla->nla_len;
		if (alen < NLA_HDRLEN || off + alen > len)
			return false;
		switch (nla->nla_type & NLA_TYPE_MASK) {
		case IFA_LOCAL:
		case IFA_ADDRESS:
			if (ifm->ifa_family == AF_INET) {
				if (alen != NLA_HDRLEN + 4 || v[0] != 127 ||
				    v[1] || v[2] || v[3] != 1)
					return false;
			} else {
				/* ::1, read as words: attributes are 4-aligned. */
				const __u32 *a = (const void *)v;

				if (alen != NLA_HDRLEN + 16 || a[0] || a[1] ||
				    a[2] || a[3] != 0x01000000)
					return false;
			}
			addr = true;
			break;
		case IFA_FLAGS:
			if (alen != NLA_HDRLEN + 4)
				return false;
			flags |= *(const __u32 *)v;
			break;
		default:
			return false;
		}
		off += NLA_ALIGN(alen);
	}
	return addr && off == len && !(flags & ~allowed);
}

/* One message of the set-up at @at, of at most @left bytes: its length. */
static __u32 lo_setup_msg(const __u8 *at, __u32 left)
{
	__u8 m[LO_MSG_MAX] = {};
	struct nlmsghdr h;
	__u32 len;
	bool ok;

	if (left < sizeof(h) || bpf_probe_read_kernel(&h, sizeof(h), at))
		return 0;
	len = h.nlmsg_len;
	if (len < NLMSG_HDRLEN || len > left || len > LO_MSG_MAX)
		return 0;
	if (bpf_probe_read_kernel(m, len, at))
		return 0;
	switch (h.nlmsg_type) {
	case RTM_NEWLINK:
	case RTM_SETLINK:
		ok = lo_setup_link(&h, m);
		break;
	case RTM_NEWADDR:
		ok = lo_setup_addr(&h, m);
		break;
	default:
		ok = false;
	}
	return ok ? NLMSG_ALIGN(len) : 0;
}

/*
 * Every message of an rtnetlink send belongs to the set-up: then, until
 * the send returns, CAP_NET_ADMIN over the socket's namespace is left to
 * commoncap.  The messages are the kernel's copy, which rtnetlink then
 * reads as they are, in this task, before netlink_sendmsg() returns.
 */
SEC("lsm/netlink_send")
int BPF_PROG(userns_mask_lo_netlink, struct sock *sk, struct sk_buff *skb,
	     int ret)
{
	struct task_struct *task = bpf_get_current_task_btf();
	__u32 len, off = 0, n;
	const __u8 *data;
	__u64 *ns_of;
	int i;

	bpf_task_storage_delete(&lo_setup, task);
	if (ret || BPF_CORE_READ(sk, sk_protocol) != NETLINK_ROUTE ||
	    BPF_CORE_READ(skb, data_len))
		return ret;
	len = BPF_CORE_READ(skb, len);
	data = BPF_CORE_READ(skb, data);
	for (i = 0; i < LO_MSGS_MAX && off < len; i++) {
		n = lo_setup_msg(data + off, len - off);
		if (!n)
			return 0;
		off += n;
	}
	if (!len || off < len)
		return 0;
	ns_of = bpf_task_storage_get(&lo_setup, task, 0,
				     BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (ns_of)
		*ns_of = (__u64)BPF_CORE_READ(sk, __sk_common.skc_net.net,
					      user_ns);
	return 0;
}

SEC("fexit/netlink_sendmsg")
int BPF_PROG(userns_mask_lo_netlink_done, struct socket *sock,
	     struct msghdr *msg, __u64 len, int ret)
{
	bpf_task_storage_delete(&lo_setup, bpf_get_current_task_btf());
	return 0;
}

/* The part of struct ifreq SIOCSIFFLAGS reads. */
struct lo_ifreq {
	char name[16];
	short flags;
};

/*
 * SIOCSIFFLAGS that brings "lo" (or an alias of it) up and changes
 * nothing else the request could: the flags of the device it may not
 * change are asked clear, which they are on a loopback device nobody
 * with CAP_NET_ADMIN changed (the program cannot compare them with the
 * device's, as the series does, nor find the device but by its name).
 * Sockets of most families reach dev_ioctl(); AF_INET's and AF_PACKET's
 * reach devinet_ioctl() (net-tools' and busybox's ifconfig).
 */
static void lo_ioctl_mark(struct net *net, unsigned int cmd,
			  const struct ifreq *ifr)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct lo_ifreq r;
	__u32 flags;
	__u64 *ns_of;

	bpf_task_storage_delete(&lo_setup, task);
	if (cmd != SIOCSIFFLAGS || bpf_probe_read_kernel(&r, sizeof(r), ifr))
		return;
	flags = (unsigned short)r.flags;
	/* "lo", or one of its aliases ("lo:0"), which name lo itself. */
	if (r.name[0] != 'l' || r.name[1] != 'o' ||
	    (r.name[2] && r.name[2] != ':') ||
	    !(flags & IFF_UP) ||
	    (flags & (LO_SETUP_DEV_FLAGS | LO_SETUP_GFLAGS)))
		return;
	ns_of = bpf_task_storage_get(&lo_setup, task, 0,
				     BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (ns_of)
		*ns_of = (__u64)BPF_CORE_READ(net, user_ns);
}

SEC("fentry/dev_ioctl")
int BPF_PROG(userns_mask_lo_ioctl, struct net *net, unsigned int cmd,
	     struct ifreq *ifr)
{
	lo_ioctl_mark(net, cmd, ifr);
	return 0;
}

SEC("fexit/dev_ioctl")
int BPF_PROG(userns_mask_lo_ioctl_done, struct net *net, unsigned int cmd)
{
	bpf_task_storage_delete(&lo_setup, bpf_get_current_task_btf());
	return 0;
}

SEC("fentry/devinet_ioctl")
int BPF_PROG(userns_mask_lo_inet_ioctl, struct net *net, unsigned int cmd,
	     struct ifreq *ifr)
{
	lo_ioctl_mark(net, cmd, ifr);
	return 0;
}

SEC("fexit/devinet_ioctl")
int BPF_PROG(userns_mask_lo_inet_ioctl_done, struct net *net,
	     unsigned int cmd)
{
	bpf_task_storage_delete(&lo_setup, bpf_get_current_task_btf());
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
