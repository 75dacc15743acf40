// SPDX-License-Identifier: GPL-2.0
/*
 * The one part of CAP_NET_ADMIN a user namespace clamp leaves: setting up
 * the loopback device of a network namespace, for a task that would hold
 * CAP_NET_ADMIN over it but for the clamp.  Each request below is sent the
 * way a tool sends it (ip, bwrap and systemd by rtnetlink, crun by
 * SIOCSIFFLAGS), then changed by one field to show where the rule ends.
 *
 *   init: alice, real root
 *   +-- U  alice's user namespace (ids mapped by real root) and its
 *          network namespace N, made by alice after the variant's clamp;
 *          root of U sends each request for N's loopback device, and so
 *          does a user of U (uid 1, no capabilities)
 *
 *   clamp          none     mask -NET     set -NET      set -NET lowered
 *                                         before U      by root of U
 *   ------------------------------------------------------------------
 *   root of U:
 *     lo up, 127.0.0.1/8, ::1/128       allowed in every column
 *     any other request                 allowed   EPERM   EPERM   EPERM
 *     (a flag more, such as NLM_F_REPLACE; another device of N)
 *   user of U: every request            EPERM in every column
 */

#include <arpa/inet.h>
#include <linux/if_addr.h>
#include <netinet/in.h>

#include "kselftest_harness.h"
#include "nscaps_test.h"

#define NET	(1LL << CAP_NET_ADMIN)

/* Lower CAP_NET_ADMIN from root of U's own set, under no_new_privs. */
static int lower_net(const struct agent_cmd *c)
{
	return -userns_lower_nnp(NET);
}

/* RTM_NEWLINK or RTM_SETLINK for @index, with @flags under @change. */
static struct nlmsghdr *link_msg(struct nl_req *r, int type, int index,
				 unsigned int change, unsigned int flags)
{
	struct ifinfomsg ifi = { .ifi_family = AF_UNSPEC, .ifi_index = index,
				 .ifi_change = change, .ifi_flags = flags };

	return nl_msg(r, type, NLM_F_ACK, &ifi, sizeof(ifi));
}

/*
 * RTM_NEWADDR on lo: @addr/@prefix of @family, IFA_LOCAL and IFA_ADDRESS,
 * with @nlflags in the header (NLM_F_REQUEST is always there).
 */
static struct nlmsghdr *addr_msg_as(struct nl_req *r, int nlflags,
				    int family, const char *addr, int prefix,
				    int scope, unsigned int flags)
{
	struct ifaddrmsg ifa = { .ifa_family = family,
				 .ifa_prefixlen = prefix, .ifa_scope = scope,
				 .ifa_flags = flags, .ifa_index = 1 };
	unsigned char bin[16];
	size_t len = family == AF_INET ? 4 : 16;
	struct nlmsghdr *h;

	inet_pton(family, addr, bin);
	h = nl_msg(r, RTM_NEWADDR, nlflags, &ifa, sizeof(ifa));
	nl_attr(r, h, IFA_LOCAL, bin, len);
	nl_attr(r, h, IFA_ADDRESS, bin, len);
	return h;
}

/* ... as ip addr add and bubblewrap send it: a new address, acked. */
static struct nlmsghdr *addr_msg(struct nl_req *r, int family,
				 const char *addr, int prefix, int scope,
				 unsigned int flags)
{
	return addr_msg_as(r, NLM_F_ACK | NLM_F_CREATE | NLM_F_EXCL, family,
			   addr, prefix, scope, flags);
}

static int rtnl(struct nl_req *r)
{
	return nl_talk(NETLINK_ROUTE, r);
}

/* What the tools send. */

static int iproute_up(const struct agent_cmd *c)
{
	struct nl_req r = {};

	link_msg(&r, RTM_NEWLINK, 1, IFF_UP, IFF_UP);
	return rtnl(&r);
}

static int systemd_up(const struct agent_cmd *c)
{
	struct nl_req r = {};

	link_msg(&r, RTM_SETLINK, 1, IFF_UP, IFF_UP);
	return rtnl(&r);
}

static int crun_up(const struct agent_cmd *c)
{
	return net_lo_up();
}

/* The same ioctl through an AF_UNIX socket goes to dev_ioctl(). */
static int unix_socket_up(const struct agent_cmd *c)
{
	return net_lo_ioctl(AF_UNIX, "lo", IFF_UP);
}

static int bwrap_addr(const struct agent_cmd *c)
{
	struct nl_req r = {};

	addr_msg(&r, AF_INET, "127.0.0.1", 8, RT_SCOPE_HOST, IFA_F_PERMANENT);
	return rtnl(&r);
}

static int systemd_addr6(const struct agent_cmd *c)
{
	unsigned int flags = IFA_F_PERMANENT | IFA_F_NOPREFIXROUTE;
	struct nl_req r = {};
	struct nlmsghdr *h;

	h = addr_msg(&r, AF_INET6, "::1", 128, RT_SCOPE_HOST, IFA_F_PERMANENT);
	nl_attr(&r, h, IFA_FLAGS, &flags, sizeof(flags));
	return rtnl(&r);
}

/*
 * The sandbox's whole setup, then the loopback device in use: lo_probe,
 * the compat suite's payload, connects to itself over 127.0.0.1 and ::1.
 */
static int sandbox_setup(const struct agent_cmd *c)
{
	int err = bwrap_addr(c) ?: iproute_up(c), status;
	pid_t pid;

	if (err)
		return err;
	pid = fork();
	if (pid < 0)
		return errno;
	if (!pid) {
		execl("/tests/lo_probe", "lo_probe", NULL);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) != pid)
		return errno;
	return WIFEXITED(status) && !WEXITSTATUS(status) ? 0 : ENETDOWN;
}

/* One field further: each of these needs CAP_NET_ADMIN in full. */

static int up_with_mtu(const struct agent_cmd *c)
{
	unsigned int mtu = 65536;
	struct nl_req r = {};
	struct nlmsghdr *h;

	h = link_msg(&r, RTM_NEWLINK, 1, IFF_UP, IFF_UP);
	nl_attr(&r, h, IFLA_MTU, &mtu, sizeof(mtu));
	return rtnl(&r);
}

static int up_and_noarp(const struct agent_cmd *c)
{
	struct nl_req r = {};

	link_msg(&r, RTM_NEWLINK, 1, IFF_UP | IFF_NOARP, IFF_UP | IFF_NOARP);
	return rtnl(&r);
}

static int up_by_name(const struct agent_cmd *c)
{
	struct nl_req r = {};
	struct nlmsghdr *h;

	h = link_msg(&r, RTM_NEWLINK, 0, IFF_UP, IFF_UP);
	nl_attr(&r, h, IFLA_IFNAME, "lo", sizeof("lo"));
	return rtnl(&r);
}

static int down(const struct agent_cmd *c)
{
	struct nl_req r = {};

	link_msg(&r, RTM_NEWLINK, 1, IFF_UP, 0);
	return crun_up(c) ?: rtnl(&r);
}

static int ioctl_noarp(const struct agent_cmd *c)
{
	return net_lo_ioctl(AF_INET, "lo", IFF_UP | IFF_NOARP);
}

static int ioctl_down(const struct agent_cmd *c)
{
	return crun_up(c) ?: net_lo_ioctl(AF_UNIX, "lo", 0);
}

/*
 * An alias's SIOCSIFFLAGS: with IFF_UP a no-op, without it the deletion of
 * the alias's address.  lo:1 has none, so where the request is let through
 * the answer is EADDRNOTAVAIL, as on a kernel without clamps.
 */
static int alias_ioctl(short flags)
{
	int err = net_lo_ioctl(AF_INET, "lo:1", flags);

	return err == EADDRNOTAVAIL ? 0 : err ?: EINVAL;
}

static int alias_up(const struct agent_cmd *c)
{
	return alias_ioctl(IFF_UP | IFF_RUNNING);
}

static int alias_down(const struct agent_cmd *c)
{
	return alias_ioctl(0);
}

static int addr_other(const struct agent_cmd *c)
{
	struct nl_req r = {};

	addr_msg(&r, AF_INET, "127.0.0.2", 8, RT_SCOPE_HOST, 0);
	return rtnl(&r);
}

static int addr_prefix16(const struct agent_cmd *c)
{
	struct nl_req r = {};

	addr_msg(&r, AF_INET, "127.0.0.1", 16, RT_SCOPE_HOST, 0);
	return rtnl(&r);
}

static int addr_scope_global(const struct agent_cmd *c)
{
	struct nl_req r = {};

	addr_msg(&r, AF_INET, "127.0.0.1", 8, RT_SCOPE_UNIVERSE, 0);
	return rtnl(&r);
}

static int addr_lifetime(const struct agent_cmd *c)
{
	struct ifa_cacheinfo ci = { .ifa_prefered = 60, .ifa_valid = 60 };
	struct nl_req r = {};
	struct nlmsghdr *h;

	h = addr_msg(&r, AF_INET, "127.0.0.1", 8, RT_SCOPE_HOST, 0);
	nl_attr(&r, h, IFA_CACHEINFO, &ci, sizeof(ci));
	return rtnl(&r);
}

static int addr_label(const struct agent_cmd *c)
{
	struct nl_req r = {};
	struct nlmsghdr *h;

	h = addr_msg(&r, AF_INET, "127.0.0.1", 8, RT_SCOPE_HOST, 0);
	nl_attr(&r, h, IFA_LABEL, "lo:1", sizeof("lo:1"));
	return rtnl(&r);
}

static int addr_flag_other(const struct agent_cmd *c)
{
	unsigned int flags = IFA_F_NODAD;
	struct nl_req r = {};
	struct nlmsghdr *h;

	h = addr_msg(&r, AF_INET, "127.0.0.1", 8, RT_SCOPE_HOST, 0);
	nl_attr(&r, h, IFA_FLAGS, &flags, sizeof(flags));
	return rtnl(&r);
}

static int addr6_other(const struct agent_cmd *c)
{
	struct nl_req r = {};

	addr_msg(&r, AF_INET6, "::2", 128, RT_SCOPE_HOST, 0);
	return rtnl(&r);
}

static int addr_private(const struct agent_cmd *c)
{
	struct nl_req r = {};

	addr_msg(&r, AF_INET, "10.0.0.1", 8, RT_SCOPE_UNIVERSE, 0);
	return rtnl(&r);
}

/*
 * lo up, which gives it 127.0.0.1/8 and ::1/128, then the same address
 * again with NLM_F_REPLACE: a rewrite of the kernel's own address (and,
 * with IFA_F_NOPREFIXROUTE, the removal of its route), not a set-up.
 */
static int addr_replace(const struct agent_cmd *c)
{
	struct nl_req r = {};

	addr_msg_as(&r, NLM_F_ACK | NLM_F_REPLACE | NLM_F_CREATE, AF_INET,
		    "127.0.0.1", 8, RT_SCOPE_HOST, IFA_F_PERMANENT);
	return crun_up(c) ?: rtnl(&r);
}

static int addr6_replace(const struct agent_cmd *c)
{
	unsigned int flags = IFA_F_PERMANENT | IFA_F_NOPREFIXROUTE;
	struct nl_req r = {};
	struct nlmsghdr *h;

	h = addr_msg_as(&r, NLM_F_ACK | NLM_F_REPLACE, AF_INET6, "::1", 128,
			RT_SCOPE_HOST, IFA_F_PERMANENT);
	nl_attr(&r, h, IFA_FLAGS, &flags, sizeof(flags));
	return crun_up(c) ?: rtnl(&r);
}

/*
 * 127.0.0.1/8 with IFA_F_NOPREFIXROUTE before lo is up: the kernel then
 * keeps this address for its own, and 127.0.0.0/8 has no route.
 */
static int addr_noprefixroute(const struct agent_cmd *c)
{
	unsigned int flags = IFA_F_PERMANENT | IFA_F_NOPREFIXROUTE;
	struct nl_req r = {};
	struct nlmsghdr *h;

	h = addr_msg(&r, AF_INET, "127.0.0.1", 8, RT_SCOPE_HOST, 0);
	nl_attr(&r, h, IFA_FLAGS, &flags, sizeof(flags));
	return rtnl(&r);
}

/* A flag no tool's set-up sends: the kernel would echo the request. */
static int up_echo(const struct agent_cmd *c)
{
	struct nl_req r = {};
	struct nlmsghdr *h;

	h = link_msg(&r, RTM_NEWLINK, 1, IFF_UP, IFF_UP);
	h->nlmsg_flags |= NLM_F_ECHO;
	return rtnl(&r);
}

/*
 * Another device of N (a dummy link real root made there, as a runtime
 * moves in a veth) brought up the way lo is: by rtnetlink, by its index,
 * and by SIOCSIFFLAGS.
 */
#define OTHER	"moved0"

static int other_up(const struct agent_cmd *c)
{
	struct nl_req r = {};
	int index = if_nametoindex(OTHER);

	if (!index)
		return errno;
	link_msg(&r, RTM_NEWLINK, index, IFF_UP, IFF_UP);
	return rtnl(&r);
}

static int other_ioctl_up(const struct agent_cmd *c)
{
	return net_lo_ioctl(AF_INET, OTHER, IFF_UP | IFF_RUNNING);
}

static int set_mtu(const struct agent_cmd *c)
{
	return net_lo_mtu();
}

static int add_dummy(const struct agent_cmd *c)
{
	return net_add_dummy("dummy0", 0);
}

static int add_table(const struct agent_cmd *c)
{
	return net_add_nft_table("filter");
}

/*
 * Two messages in one send: the loopback's address, then a dummy link.
 * Each is judged alone: the first goes through, the second does not.
 */
static int batch_then_dummy(const struct agent_cmd *c)
{
	struct ifinfomsg ifi = { .ifi_family = AF_UNSPEC };
	struct nl_req r = {};
	struct nlattr *info;
	struct nlmsghdr *h;

	addr_msg(&r, AF_INET, "127.0.0.1", 8, RT_SCOPE_HOST, 0);
	h = nl_msg(&r, RTM_NEWLINK, NLM_F_ACK | NLM_F_CREATE | NLM_F_EXCL,
		   &ifi, sizeof(ifi));
	nl_attr(&r, h, IFLA_IFNAME, "dummy0", sizeof("dummy0"));
	info = nl_attr(&r, h, IFLA_LINKINFO | NLA_F_NESTED, NULL, 0);
	nl_attr(&r, h, IFLA_INFO_KIND, "dummy", sizeof("dummy"));
	nl_nest_end(&r, info);
	return rtnl(&r);
}

enum clamp { NONE, MASK, SET_BEFORE, SET_AFTER };

FIXTURE(lo) {
	long long saved;
	struct agent root, user;
};

FIXTURE_VARIANT(lo) {
	enum clamp clamp;
};

FIXTURE_VARIANT_ADD(lo, none) { .clamp = NONE };
FIXTURE_VARIANT_ADD(lo, mask) { .clamp = MASK };
FIXTURE_VARIANT_ADD(lo, set_before) { .clamp = SET_BEFORE };
FIXTURE_VARIANT_ADD(lo, set_after) { .clamp = SET_AFTER };

FIXTURE_SETUP(lo)
{
	struct agent_spec root = { .creator = ALICE, .uid = 0,
				   .unshare = CLONE_NEWUSER | CLONE_NEWNET,
				   .uid_map = U_MAP };
	struct agent_spec user = { .creator = KEEP, .uid = 1,
				   .join_ns = CLONE_NEWNET };

	self->saved = get_mask();
	ASSERT_EQ(ALL_CAPS, self->saved);
	if (variant->clamp == MASK)
		ASSERT_EQ(0, set_mask(ALL_CAPS & ~NET));
	if (variant->clamp == SET_BEFORE) {
		root.drop = NET;
		root.nnp = true;
	}
	ASSERT_EQ(0, agent_start(&self->root, &root));
	user.join = self->root.pid;
	ASSERT_EQ(0, agent_start(&self->user, &user));
	if (variant->clamp == SET_AFTER)
		ASSERT_EQ(0, agent_do(&self->root, OP_CALL, 0, (long)lower_net,
				      NULL));
	/*
	 * Whatever the clamp, CapClamped says so, and CapEff does not; the
	 * BPF version (make check-bpf) has no such line, and is compared on
	 * its decisions alone.
	 */
	if (has_series())
		EXPECT_EQ(variant->clamp != NONE,
			  HAS(task_caps(self->root.pid, "CapClamped:"),
			      CAP_NET_ADMIN));
	EXPECT_TRUE(HAS(task_caps(self->root.pid, "CapEff:"), CAP_NET_ADMIN));
}

FIXTURE_TEARDOWN(lo)
{
	agent_stop(&self->user);
	agent_stop(&self->root);
	set_mask(self->saved);
}

/* Root of U's request goes through, under every clamp; a user's never. */
#define ALLOWED(name, fn)						\
TEST_F(lo, name)							\
{									\
	EXPECT_EQ(EPERM, agent_do(&self->user, OP_CALL, 0, (long)fn, NULL)); \
	EXPECT_EQ(0, agent_do(&self->root, OP_CALL, 0, (long)fn, NULL)); \
}

/* Root of U's request needs CAP_NET_ADMIN in full: EPERM under a clamp. */
#define REFUSED(name, fn)						\
TEST_F(lo, name)							\
{									\
	EXPECT_EQ(EPERM, agent_do(&self->user, OP_CALL, 0, (long)fn, NULL)); \
	EXPECT_EQ(variant->clamp == NONE ? 0 : EPERM,			\
		  agent_do(&self->root, OP_CALL, 0, (long)fn, NULL));	\
}

ALLOWED(iproute_up, iproute_up)
ALLOWED(systemd_up, systemd_up)
ALLOWED(crun_up, crun_up)
ALLOWED(unix_socket_up, unix_socket_up)
ALLOWED(bwrap_addr, bwrap_addr)
ALLOWED(systemd_addr6, systemd_addr6)
ALLOWED(sandbox_setup, sandbox_setup)
ALLOWED(alias_up, alias_up)

REFUSED(up_with_mtu, up_with_mtu)
REFUSED(up_and_noarp, up_and_noarp)
REFUSED(up_by_name, up_by_name)
REFUSED(down, down)
REFUSED(ioctl_noarp, ioctl_noarp)
REFUSED(ioctl_down, ioctl_down)
REFUSED(alias_down, alias_down)
REFUSED(addr_other, addr_other)
REFUSED(addr_prefix16, addr_prefix16)
REFUSED(addr_scope_global, addr_scope_global)
REFUSED(addr_lifetime, addr_lifetime)
REFUSED(addr_label, addr_label)
REFUSED(addr_flag_other, addr_flag_other)
REFUSED(addr6_other, addr6_other)
REFUSED(addr_private, addr_private)
REFUSED(set_mtu, set_mtu)
REFUSED(add_dummy, add_dummy)
REFUSED(add_table, add_table)
REFUSED(batch_then_dummy, batch_then_dummy)
REFUSED(addr_replace, addr_replace)
REFUSED(addr6_replace, addr6_replace)
REFUSED(up_echo, up_echo)
REFUSED(addr_noprefixroute, addr_noprefixroute)

/*
 * The same as REFUSED, with OTHER made in N by real root first (no
 * ASSERT: the teardown must run to restore the mask).
 */
#define REFUSED_OTHER(name, fn)						\
TEST_F(lo, name)							\
{									\
	EXPECT_EQ(0, net_add_dummy(OTHER, self->root.pid));		\
	if (_metadata->exit_code)					\
		return;							\
	EXPECT_EQ(EPERM, agent_do(&self->user, OP_CALL, 0, (long)fn, NULL)); \
	EXPECT_EQ(variant->clamp == NONE ? 0 : EPERM,			\
		  agent_do(&self->root, OP_CALL, 0, (long)fn, NULL));	\
}

REFUSED_OTHER(other_up, other_up)
REFUSED_OTHER(other_ioctl_up, other_ioctl_up)

TEST_HARNESS_MAIN
