// SPDX-License-Identifier: GPL-2.0
/*
 * The tap set-up rule of user namespace clamps: a task that would hold
 * CAP_NET_ADMIN over a network namespace but for a clamp may make one
 * plain tap device there and set it up as slirp4netns (ioctls) and pasta
 * (rtnetlink) do, and write the namespace's ping_group_range as rootless
 * podman does, and nothing more.  Each request below is sent the way
 * one of them sends it, then changed by one field to show where the rule
 * ends.
 *
 *   init: alice, real root
 *   +-- U  alice's user namespace (ids mapped by real root) and its
 *          network namespace N, made by alice after the variant's clamp;
 *          root of U makes tap0 in N and sets it up; so does a user of U
 *          (uid 1, no capabilities)
 *
 *   clamp          none     mask -NET     set -NET      set -NET lowered
 *                                         before U      by root of U
 *   ------------------------------------------------------------------
 *   root of U:
 *     one tap (IFF_TAP|IFF_NO_PI), up, MTU, MAC, unicast addresses,
 *     plain routes of the main table through it
 *                                       allowed in every column
 *     anything else (another kind of device, a second tap, TUNSET*,
 *     a flag, table, type or attribute more, another device of N)
 *                                       allowed  EPERM   EPERM   EPERM
 *   user of U: every request            EPERM in every column
 */

#include <arpa/inet.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/if_addr.h>
#include <linux/if_tun.h>
#include <linux/lwtunnel.h>
#include <linux/nexthop.h>
#include <linux/vhost.h>
#include <net/route.h>
#include <netinet/in.h>
#include <sys/syscall.h>
#include <poll.h>

#include "kselftest_harness.h"
#include "nscaps_test.h"

#define NET	(1LL << CAP_NET_ADMIN)
#define TAP	"tap0"
/* Made in N by real root, as a runtime moves a veth in. */
#define OTHER	"moved0"

static int lower_net(const struct agent_cmd *c)
{
	return -userns_lower_nnp(NET);
}

/* A tap of @flags named @name; its file stays open in the agent. */
static int tun_make(const char *name, short flags, int *fdp)
{
	struct ifreq ifr = { .ifr_flags = flags };
	int fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC);

	if (fd < 0)
		return errno;
	strncpy(ifr.ifr_name, name, IFNAMSIZ - 1);
	if (ioctl(fd, TUNSETIFF, &ifr)) {
		int err = errno;

		close(fd);
		return err;
	}
	*fdp = fd;
	return 0;
}

static int tap_fd = -1;

/* tap0, as both helpers ask for it, once an agent. */
static int tap(void)
{
	return tap_fd >= 0 ? 0 : tun_make(TAP, IFF_TAP | IFF_NO_PI, &tap_fd);
}

static int tap_index(void)
{
	return if_nametoindex(TAP);
}

static int sioc(unsigned long cmd, struct ifreq *ifr, const char *name)
{
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), err = 0;

	if (fd < 0)
		return errno;
	strncpy(ifr->ifr_name, name, IFNAMSIZ - 1);
	if (ioctl(fd, cmd, ifr))
		err = errno;
	close(fd);
	return err;
}

static int sioc_flags(const char *name, short flags)
{
	struct ifreq ifr = { .ifr_flags = flags };

	return sioc(SIOCSIFFLAGS, &ifr, name);
}

static int sioc_mtu(const char *name, int mtu)
{
	struct ifreq ifr = { .ifr_mtu = mtu };

	return sioc(SIOCSIFMTU, &ifr, name);
}

static int sioc_in(unsigned long cmd, const char *name, const char *addr)
{
	struct ifreq ifr = {};
	struct sockaddr_in *sin = (struct sockaddr_in *)&ifr.ifr_addr;

	sin->sin_family = AF_INET;
	inet_pton(AF_INET, addr, &sin->sin_addr);
	return sioc(cmd, &ifr, name);
}

/* SIOCADDRT as slirp4netns sends it: default via @gw, dev @dev. */
static int sioc_route(const char *dev, const char *gw, unsigned short flags)
{
	struct rtentry rt = { .rt_flags = flags, .rt_dev = (char *)dev };
	struct sockaddr_in *sin;
	int fd, err = 0;

	sin = (struct sockaddr_in *)&rt.rt_dst;
	sin->sin_family = AF_INET;
	sin = (struct sockaddr_in *)&rt.rt_genmask;
	sin->sin_family = AF_INET;
	sin = (struct sockaddr_in *)&rt.rt_gateway;
	sin->sin_family = AF_INET;
	inet_pton(AF_INET, gw, &sin->sin_addr);
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return errno;
	if (ioctl(fd, SIOCADDRT, &rt))
		err = errno;
	close(fd);
	return err;
}

static int rtnl(struct nl_req *r)
{
	return nl_talk(NETLINK_ROUTE, r);
}

static struct nlmsghdr *link_msg(struct nl_req *r, int index,
				 unsigned int change, unsigned int flags)
{
	struct ifinfomsg ifi = { .ifi_family = AF_UNSPEC, .ifi_index = index,
				 .ifi_change = change, .ifi_flags = flags };

	return nl_msg(r, RTM_NEWLINK, NLM_F_ACK, &ifi, sizeof(ifi));
}

/* RTM_NEWADDR as pasta sends it: a new address, local and address alike. */
static struct nlmsghdr *addr_msg(struct nl_req *r, int index, int family,
				 const char *addr, int prefix,
				 unsigned int flags)
{
	struct ifaddrmsg ifa = { .ifa_family = family,
				 .ifa_prefixlen = prefix, .ifa_flags = flags,
				 .ifa_index = index };
	size_t len = family == AF_INET ? 4 : 16;
	unsigned char bin[16];
	struct nlmsghdr *h;

	inet_pton(family, addr, bin);
	h = nl_msg(r, RTM_NEWADDR, NLM_F_ACK | NLM_F_CREATE | NLM_F_EXCL,
		   &ifa, sizeof(ifa));
	nl_attr(r, h, IFA_LOCAL, bin, len);
	nl_attr(r, h, IFA_ADDRESS, bin, len);
	return h;
}

/* RTM_NEWROUTE as pasta sends it: default via @gw, RTA_OIF @index. */
static struct nlmsghdr *route_msg(struct nl_req *r, int index, int family,
				  const char *gw)
{
	struct rtmsg rtm = { .rtm_family = family,
			     .rtm_table = RT_TABLE_MAIN,
			     .rtm_protocol = RTPROT_BOOT,
			     .rtm_scope = RT_SCOPE_UNIVERSE,
			     .rtm_type = RTN_UNICAST };
	size_t len = family == AF_INET ? 4 : 16;
	unsigned char bin[16] = {}, any[16] = {};
	struct nlmsghdr *h;

	inet_pton(family, gw, bin);
	h = nl_msg(r, RTM_NEWROUTE, NLM_F_ACK | NLM_F_CREATE | NLM_F_EXCL,
		   &rtm, sizeof(rtm));
	nl_attr(r, h, RTA_OIF, &index, sizeof(index));
	nl_attr(r, h, RTA_DST, any, len);
	nl_attr(r, h, RTA_GATEWAY, bin, len);
	return h;
}

/* pasta's addresses first, so that its gateways are on the link. */
static int pasta_addrs(int index)
{
	struct nl_req r = {};

	addr_msg(&r, index, AF_INET, "192.0.2.10", 24, 0);
	addr_msg(&r, index, AF_INET6, "2001:db8::10", 64, IFA_F_NODAD);
	return rtnl(&r);
}

/* What the helpers send. */

static int make_tap(const struct agent_cmd *c)
{
	return tap();
}

/* A tap goes with its file, and another may then be made. */
static int make_tap_again(const struct agent_cmd *c)
{
	int err = tap();

	if (err)
		return err;
	close(tap_fd);
	tap_fd = -1;
	return tap();
}

static int slirp4netns_setup(const struct agent_cmd *c)
{
	return tap() ?: sioc_flags("lo", IFF_UP | IFF_RUNNING) ?:
	       sioc_flags(TAP, IFF_UP | IFF_RUNNING) ?:
	       sioc_mtu(TAP, 65520) ?:
	       sioc_in(SIOCSIFADDR, TAP, "10.0.2.100") ?:
	       sioc_in(SIOCSIFNETMASK, TAP, "255.255.255.0") ?:
	       sioc_route(TAP, "10.0.2.2", RTF_UP | RTF_GATEWAY);
}

static int pasta_setup(const struct agent_cmd *c)
{
	unsigned int mtu = 65520;
	struct nl_req link = {}, route = {};
	struct nlmsghdr *h;
	int err = tap(), index = tap_index();

	if (err)
		return err;
	link_msg(&link, 1, IFF_UP, IFF_UP);
	h = link_msg(&link, index, IFF_UP, IFF_UP);
	nl_attr(&link, h, IFLA_MTU, &mtu, sizeof(mtu));
	route_msg(&route, index, AF_INET, "192.0.2.1");
	route_msg(&route, index, AF_INET6, "fe80::1");
	return rtnl(&link) ?: pasta_addrs(index) ?: rtnl(&route);
}

/*
 * slirp4netns's set-up, then a datagram to its gateway: the tap's file
 * reads the ARP request the namespace sends for it.
 */
static int tap_carries_frames(const struct agent_cmd *c)
{
	struct sockaddr_in gw = { .sin_family = AF_INET, .sin_port = htons(9) };
	struct pollfd p = { .events = POLLIN };
	unsigned char frame[2048];
	int err = slirp4netns_setup(c), fd;
	ssize_t n;

	if (err)
		return err;
	inet_pton(AF_INET, "10.0.2.2", &gw.sin_addr);
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return errno;
	if (sendto(fd, "x", 1, 0, (struct sockaddr *)&gw, sizeof(gw)) < 0)
		err = errno;
	close(fd);
	if (err)
		return err;
	p.fd = tap_fd;
	while (poll(&p, 1, 5000) == 1) {
		n = read(tap_fd, frame, sizeof(frame));
		if (n >= 14 && frame[12] == 0x08 && frame[13] == 0x06)
			return 0;
	}
	return ETIMEDOUT;
}

/* slirp4netns --macaddress and pasta --ns-mac-addr. */
static int mac_ioctl(const struct agent_cmd *c)
{
	struct ifreq ifr = {};
	static const char mac[] = { 0x02, 0, 0, 0, 0, 0x10 };

	ifr.ifr_hwaddr.sa_family = 1;	/* ARPHRD_ETHER */
	memcpy(ifr.ifr_hwaddr.sa_data, mac, sizeof(mac));
	return tap() ?: sioc(SIOCSIFHWADDR, &ifr, TAP);
}

static int mac_rtnl(const struct agent_cmd *c)
{
	static const char mac[] = { 0x02, 0, 0, 0, 0, 0x10 };
	struct nl_req r = {};
	struct nlmsghdr *h;
	int err = tap();

	if (err)
		return err;
	h = link_msg(&r, tap_index(), IFF_UP, IFF_UP);
	nl_attr(&r, h, IFLA_ADDRESS, mac, sizeof(mac));
	return rtnl(&r);
}

/* ip link set tap0 mtu 1400: no flag at all, an MTU. */
static int mtu_rtnl(const struct agent_cmd *c)
{
	unsigned int mtu = 1400;
	struct nl_req r = {};
	struct nlmsghdr *h;
	int err = tap();

	if (err)
		return err;
	h = link_msg(&r, tap_index(), 0, 0);
	nl_attr(&r, h, IFLA_MTU, &mtu, sizeof(mtu));
	return rtnl(&r);
}

/* Later pasta replaces the tap's own addresses. */
static int addr_replace(const struct agent_cmd *c)
{
	struct nl_req r = {};
	struct nlmsghdr *h;
	int err = tap();

	if (err)
		return err;
	h = addr_msg(&r, tap_index(), AF_INET, "192.0.2.10", 24, 0);
	h->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | NLM_F_CREATE |
			 NLM_F_REPLACE;
	return pasta_addrs(tap_index()) ?: rtnl(&r);
}

/* One field further: each of these needs CAP_NET_ADMIN in full. */

static int make_tun(const struct agent_cmd *c)
{
	return tun_make("tun0", IFF_TUN | IFF_NO_PI, &tap_fd);
}

static int make_tap_pi(const struct agent_cmd *c)
{
	return tun_make(TAP, IFF_TAP, &tap_fd);
}

static int make_tap_vnet_hdr(const struct agent_cmd *c)
{
	return tun_make(TAP, IFF_TAP | IFF_NO_PI | IFF_VNET_HDR, &tap_fd);
}

static int make_tap_multi_queue(const struct agent_cmd *c)
{
	return tun_make(TAP, IFF_TAP | IFF_NO_PI | IFF_MULTI_QUEUE, &tap_fd);
}

static int make_tap_napi(const struct agent_cmd *c)
{
	return tun_make(TAP, IFF_TAP | IFF_NO_PI | IFF_NAPI, &tap_fd);
}

static int make_second_tap(const struct agent_cmd *c)
{
	int fd, err = tap() ?: tun_make("tap1", IFF_TAP | IFF_NO_PI, &fd);

	return err;
}

/* An ioctl to the tap's own file, with @arg. */
static int tap_ioctl(unsigned long cmd, void *arg)
{
	int err = tap();

	if (err)
		return err;
	return ioctl(tap_fd, cmd, arg) ? errno : 0;
}

static int tun_persist(const struct agent_cmd *c)
{
	return tap_ioctl(TUNSETPERSIST, (void *)1);
}

static int tun_owner(const struct agent_cmd *c)
{
	return tap_ioctl(TUNSETOWNER, (void *)0);
}

static int tun_steering_ebpf(const struct agent_cmd *c)
{
	int fd = -1;

	return tap_ioctl(TUNSETSTEERINGEBPF, &fd);
}

static int tun_filter_ebpf(const struct agent_cmd *c)
{
	int fd = -1;

	return tap_ioctl(TUNSETFILTEREBPF, &fd);
}

static int tun_attach_filter(const struct agent_cmd *c)
{
	struct sock_filter accept = BPF_STMT(BPF_RET | BPF_K, 0xffff);
	struct sock_fprog prog = { .len = 1, .filter = &accept };

	return tap_ioctl(TUNATTACHFILTER, &prog);
}

static int tun_offload(const struct agent_cmd *c)
{
	return tap_ioctl(TUNSETOFFLOAD, (void *)TUN_F_CSUM);
}

static int tap_promisc(const struct agent_cmd *c)
{
	return tap() ?: sioc_flags(TAP, IFF_UP | IFF_PROMISC);
}

static int tap_noarp(const struct agent_cmd *c)
{
	return tap() ?: sioc_flags(TAP, IFF_UP | IFF_MULTICAST | IFF_NOARP);
}

static int link_txqlen(const struct agent_cmd *c)
{
	unsigned int qlen = 10;
	struct nl_req r = {};
	struct nlmsghdr *h;
	int err = tap();

	if (err)
		return err;
	h = link_msg(&r, tap_index(), IFF_UP, IFF_UP);
	nl_attr(&r, h, IFLA_TXQLEN, &qlen, sizeof(qlen));
	return rtnl(&r);
}

static int link_rename(const struct agent_cmd *c)
{
	struct nl_req r = {};
	struct nlmsghdr *h;
	int err = tap();

	if (err)
		return err;
	h = link_msg(&r, tap_index(), 0, 0);
	nl_attr(&r, h, IFLA_IFNAME, "eth9", sizeof("eth9"));
	return rtnl(&r);
}

/* ifi_change 0 with flags: every flag replaced, IFF_NOARP among them. */
static int link_all_flags(const struct agent_cmd *c)
{
	struct nl_req r = {};
	int err = tap();

	if (err)
		return err;
	link_msg(&r, tap_index(), 0, IFF_UP | IFF_NOARP);
	return rtnl(&r);
}

static int addr_multicast(const struct agent_cmd *c)
{
	struct nl_req r = {};
	int err = tap();

	if (err)
		return err;
	addr_msg(&r, tap_index(), AF_INET, "224.0.0.9", 24, 0);
	return rtnl(&r);
}

/* An address of the tap, with one attribute more: TYPE, LEN bytes. */
static int addr_with(int family, const char *addr, int prefix,
		     int type, const void *data, size_t len)
{
	struct nl_req r = {};
	struct nlmsghdr *h;
	int err = tap();

	if (err)
		return err;
	h = addr_msg(&r, tap_index(), family, addr, prefix, 0);
	nl_attr(&r, h, type, data, len);
	return rtnl(&r);
}

static int addr_peer(const struct agent_cmd *c)
{
	unsigned char peer[4];

	inet_pton(AF_INET, "192.0.2.99", peer);
	/* The second IFA_ADDRESS is the one the kernel keeps. */
	return addr_with(AF_INET, "192.0.2.10", 32, IFA_ADDRESS,
			 peer, sizeof(peer));
}

static int addr_lifetime(const struct agent_cmd *c)
{
	struct ifa_cacheinfo ci = { .ifa_prefered = 60, .ifa_valid = 60 };

	return addr_with(AF_INET6, "2001:db8::10", 64, IFA_CACHEINFO,
			 &ci, sizeof(ci));
}

static int addr_mcautojoin(const struct agent_cmd *c)
{
	unsigned int flags = IFA_F_MCAUTOJOIN;

	return addr_with(AF_INET, "192.0.2.10", 24, IFA_FLAGS,
			 &flags, sizeof(flags));
}

static int addr_target_netnsid(const struct agent_cmd *c)
{
	int nsid = 0;

	return addr_with(AF_INET, "192.0.2.10", 24, IFA_TARGET_NETNSID,
			 &nsid, sizeof(nsid));
}

/* A route of another table, of another type, or with an attribute more. */
static int route_changed(int (*change)(struct nl_req *, struct nlmsghdr *))
{
	struct nl_req r = {};
	struct nlmsghdr *h;
	int err = tap();

	if (err)
		return err;
	h = route_msg(&r, tap_index(), AF_INET, "192.0.2.1");
	err = change(&r, h);
	return err ?: pasta_addrs(tap_index()) ?: rtnl(&r);
}

static int to_table_100(struct nl_req *r, struct nlmsghdr *h)
{
	((struct rtmsg *)NLMSG_DATA(h))->rtm_table = 100;
	return 0;
}

static int to_blackhole(struct nl_req *r, struct nlmsghdr *h)
{
	((struct rtmsg *)NLMSG_DATA(h))->rtm_type = RTN_BLACKHOLE;
	return 0;
}

static int to_replace(struct nl_req *r, struct nlmsghdr *h)
{
	h->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | NLM_F_CREATE |
			 NLM_F_REPLACE;
	return 0;
}

static int with_prefsrc(struct nl_req *r, struct nlmsghdr *h)
{
	unsigned char src[4];

	inet_pton(AF_INET, "192.0.2.10", src);
	nl_attr(r, h, RTA_PREFSRC, src, sizeof(src));
	return 0;
}

static int with_metrics(struct nl_req *r, struct nlmsghdr *h)
{
	unsigned int mtu = 1280;
	struct nlattr *mx = nl_attr(r, h, RTA_METRICS | NLA_F_NESTED, NULL, 0);

	nl_attr(r, h, RTAX_MTU, &mtu, sizeof(mtu));
	nl_nest_end(r, mx);
	return 0;
}

static int with_encap(struct nl_req *r, struct nlmsghdr *h)
{
	unsigned short type = LWTUNNEL_ENCAP_IP;
	unsigned char dst[4];
	struct nlattr *encap;

	inet_pton(AF_INET, "192.0.2.99", dst);
	nl_attr(r, h, RTA_ENCAP_TYPE, &type, sizeof(type));
	encap = nl_attr(r, h, RTA_ENCAP | NLA_F_NESTED, NULL, 0);
	nl_attr(r, h, LWTUNNEL_IP_DST, dst, sizeof(dst));
	nl_nest_end(r, encap);
	return 0;
}

/* The same gateway twice, through the tap, as one multipath route. */
static int to_multipath(struct nl_req *r, struct nlmsghdr *h)
{
	struct rtnexthop nh = { .rtnh_len = sizeof(nh) + NLA_HDRLEN + 4,
				.rtnh_ifindex = tap_index() };
	unsigned char gw[4];
	struct nlattr *mp;

	/* Drop RTA_OIF, RTA_DST and RTA_GATEWAY: a header alone. */
	r->len = (char *)h - r->buf + NLMSG_ALIGN(NLMSG_LENGTH(
		sizeof(struct rtmsg)));
	h->nlmsg_len = NLMSG_LENGTH(sizeof(struct rtmsg));
	inet_pton(AF_INET, "192.0.2.1", gw);
	mp = nl_attr(r, h, RTA_MULTIPATH, NULL, 0);
	for (int i = 0; i < 2; i++) {
		memcpy(r->buf + r->len, &nh, sizeof(nh));
		r->len += sizeof(nh);
		nl_attr(r, h, RTA_GATEWAY, gw, sizeof(gw));
	}
	nl_nest_end(r, mp);
	return 0;
}

/* The route pasta sends, changed by @change. */
#define ROUTE_CHANGED(name, change)					\
static int name(const struct agent_cmd *c)				\
{									\
	return route_changed(change);					\
}

ROUTE_CHANGED(route_table_100, to_table_100)
ROUTE_CHANGED(route_blackhole, to_blackhole)
ROUTE_CHANGED(route_replace, to_replace)
ROUTE_CHANGED(route_prefsrc, with_prefsrc)
ROUTE_CHANGED(route_metrics, with_metrics)
ROUTE_CHANGED(route_encap, with_encap)
ROUTE_CHANGED(route_multipath, to_multipath)

static int nexthop_object(const struct agent_cmd *c)
{
	struct nhmsg nhm = { .nh_family = AF_UNSPEC };
	struct nl_req r = {};
	struct nlmsghdr *h;
	unsigned int id = 1;

	h = nl_msg(&r, RTM_NEWNEXTHOP, NLM_F_ACK | NLM_F_CREATE | NLM_F_EXCL,
		   &nhm, sizeof(nhm));
	nl_attr(&r, h, NHA_ID, &id, sizeof(id));
	nl_attr(&r, h, NHA_BLACKHOLE, NULL, 0);
	return rtnl(&r);
}

/* SIOCADDRT that would reject, or set an MTU: a metric. */
static int sioc_route_reject(const struct agent_cmd *c)
{
	return tap() ?: sioc_in(SIOCSIFADDR, TAP, "10.0.2.100") ?:
	       sioc_route(TAP, "10.0.2.2", RTF_UP | RTF_GATEWAY | RTF_REJECT);
}

static int sioc_route_mtu(const struct agent_cmd *c)
{
	return tap() ?: sioc_in(SIOCSIFADDR, TAP, "10.0.2.100") ?:
	       sioc_route(TAP, "10.0.2.2", RTF_UP | RTF_GATEWAY | RTF_MTU);
}

/* The broadcast address of the tap: no helper sets it. */
static int sioc_broadcast(const struct agent_cmd *c)
{
	return tap() ?: sioc_in(SIOCSIFADDR, TAP, "10.0.2.100") ?:
	       sioc_in(SIOCSIFBRDADDR, TAP, "10.0.2.255");
}

/*
 * What an outside red team found the rule let through (escape catalogue
 * 130-134): an IPv6 route without NLM_F_EXCL, which joins the multipath
 * group of an equal route (ip -6 route prepend); the ioctls past the
 * netlink rule's limits: a loopback address, an alias, an alias taken
 * down; a broadcast address of any value.
 */
static int route6_prepend(const struct agent_cmd *c)
{
	struct nl_req r = {};
	struct nlmsghdr *h;
	int err = tap();

	if (err)
		return err;
	h = route_msg(&r, tap_index(), AF_INET6, "fe80::2");
	h->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | NLM_F_CREATE;
	return pasta_addrs(tap_index()) ?: rtnl(&r);
}

static int sioc_addr_loopback(const struct agent_cmd *c)
{
	return tap() ?: sioc_in(SIOCSIFADDR, TAP, "127.0.0.5");
}

static int sioc_addr_alias(const struct agent_cmd *c)
{
	return tap() ?: sioc_in(SIOCSIFADDR, TAP ":1", "10.0.2.101");
}

/* Without clamps lo has no alias: EADDRNOTAVAIL, reached. */
static int sioc_alias_down(const struct agent_cmd *c)
{
	return tap() ?: sioc_in(SIOCSIFADDR, TAP, "10.0.2.100") ?:
	       sioc_flags(TAP ":1", 0);
}

static int addr_broadcast(const struct agent_cmd *c)
{
	unsigned char brd[4];

	inet_pton(AF_INET, "8.8.8.8", brd);
	return addr_with(AF_INET, "192.0.2.10", 24, IFA_BROADCAST,
			 brd, sizeof(brd));
}

/* Another device of N, set up as the tap is. */

static int other_up(const struct agent_cmd *c)
{
	return tap() ?: sioc_flags(OTHER, IFF_UP | IFF_RUNNING);
}

static int other_mtu(const struct agent_cmd *c)
{
	return tap() ?: sioc_mtu(OTHER, 1400);
}

static int other_addr(const struct agent_cmd *c)
{
	struct nl_req r = {};
	int err = tap();

	if (err)
		return err;
	addr_msg(&r, if_nametoindex(OTHER), AF_INET, "192.0.2.10", 24, 0);
	return rtnl(&r);
}

static int other_sioc_addr(const struct agent_cmd *c)
{
	return tap() ?: sioc_in(SIOCSIFADDR, OTHER, "10.0.2.100");
}

static int other_route(const struct agent_cmd *c)
{
	struct nl_req r = {};
	int err = tap(), index = if_nametoindex(OTHER);

	if (err)
		return err;
	addr_msg(&r, index, AF_INET, "192.0.2.10", 24, 0);
	/* The address is real root's doing, so the route alone is asked. */
	err = rtnl(&r);
	if (err && err != EPERM)
		return err;
	memset(&r, 0, sizeof(r));
	route_msg(&r, index, AF_INET, "192.0.2.1");
	return rtnl(&r);
}

static int other_sioc_route(const struct agent_cmd *c)
{
	return tap() ?: sioc_route(OTHER, "10.0.2.2", RTF_UP | RTF_GATEWAY);
}

enum clamp { NONE, MASK, SET_BEFORE, SET_AFTER };

FIXTURE(tap) {
	long long saved;
	struct agent root, user;
};

FIXTURE_VARIANT(tap) {
	enum clamp clamp;
};

FIXTURE_VARIANT_ADD(tap, none) { .clamp = NONE };
FIXTURE_VARIANT_ADD(tap, mask) { .clamp = MASK };
FIXTURE_VARIANT_ADD(tap, set_before) { .clamp = SET_BEFORE };
FIXTURE_VARIANT_ADD(tap, set_after) { .clamp = SET_AFTER };

FIXTURE_SETUP(tap)
{
	struct agent_spec root = { .creator = ALICE, .uid = 0,
				   .unshare = CLONE_NEWUSER | CLONE_NEWNET,
				   .uid_map = U_MAP };
	struct agent_spec user = { .creator = KEEP, .uid = 1,
				   .join_ns = CLONE_NEWNET };

	self->saved = get_mask();
	ASSERT_EQ(ALL_CAPS, self->saved);
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
	 * The mask is read at each check, so it may come last: no assertion
	 * fails after it, where the harness would skip the teardown that
	 * restores it for the suites that follow.
	 */
	if (variant->clamp == MASK)
		ASSERT_EQ(0, set_mask(ALL_CAPS & ~NET));
	EXPECT_EQ(variant->clamp != NONE,
		  HAS(task_caps(self->root.pid, "CapClamped:"), CAP_NET_ADMIN));
}

FIXTURE_TEARDOWN(tap)
{
	agent_stop(&self->user);
	agent_stop(&self->root);
	set_mask(self->saved);
}

/* Root of U's request goes through, under every clamp; a user's never. */
#define ALLOWED(name)							\
TEST_F(tap, name)							\
{									\
	EXPECT_EQ(EPERM, agent_do(&self->user, OP_CALL, 0, (long)name, NULL)); \
	EXPECT_EQ(0, agent_do(&self->root, OP_CALL, 0, (long)name, NULL)); \
}

/*
 * Root of U's request needs CAP_NET_ADMIN in full: EPERM under a clamp;
 * without one it reaches its handler, which may still refuse it for a
 * reason of its own (an encapsulation this kernel does not build).
 */
#define REFUSED(name)							\
TEST_F(tap, name)							\
{									\
	int err;							\
									\
	EXPECT_EQ(EPERM, agent_do(&self->user, OP_CALL, 0, (long)name, NULL)); \
	err = agent_do(&self->root, OP_CALL, 0, (long)name, NULL);	\
	if (variant->clamp == NONE) {					\
		EXPECT_NE(EPERM, err);					\
	} else {							\
		EXPECT_EQ(EPERM, err);					\
	}								\
}

ALLOWED(make_tap)
ALLOWED(make_tap_again)
ALLOWED(slirp4netns_setup)
ALLOWED(pasta_setup)
ALLOWED(tap_carries_frames)
ALLOWED(mac_ioctl)
ALLOWED(mac_rtnl)
ALLOWED(mtu_rtnl)
ALLOWED(addr_replace)

REFUSED(make_tun)
REFUSED(make_tap_pi)
REFUSED(make_tap_vnet_hdr)
REFUSED(make_tap_multi_queue)
REFUSED(make_tap_napi)
REFUSED(make_second_tap)
REFUSED(tun_persist)
REFUSED(tun_owner)
REFUSED(tun_steering_ebpf)
REFUSED(tun_filter_ebpf)
REFUSED(tun_attach_filter)
REFUSED(tun_offload)
REFUSED(tap_promisc)
REFUSED(tap_noarp)
REFUSED(link_txqlen)
REFUSED(link_rename)
REFUSED(link_all_flags)
REFUSED(addr_multicast)
REFUSED(addr_peer)
REFUSED(addr_lifetime)
REFUSED(addr_mcautojoin)
REFUSED(addr_target_netnsid)
REFUSED(route_table_100)
REFUSED(route_blackhole)
REFUSED(route_replace)
REFUSED(route_prefsrc)
REFUSED(route_metrics)
REFUSED(route_encap)
REFUSED(route_multipath)
REFUSED(nexthop_object)
REFUSED(sioc_route_reject)
REFUSED(sioc_route_mtu)
REFUSED(sioc_broadcast)
REFUSED(route6_prepend)
REFUSED(sioc_addr_loopback)
REFUSED(sioc_addr_alias)
REFUSED(sioc_alias_down)
REFUSED(addr_broadcast)

/* The same as REFUSED, with OTHER made in N by real root first. */
#define REFUSED_OTHER(name)						\
TEST_F(tap, name)							\
{									\
	int err;							\
									\
	EXPECT_EQ(0, net_add_dummy(OTHER, self->root.pid));		\
	if (_metadata->exit_code)					\
		return;							\
	EXPECT_EQ(EPERM, agent_do(&self->user, OP_CALL, 0, (long)name, NULL)); \
	err = agent_do(&self->root, OP_CALL, 0, (long)name, NULL);	\
	if (variant->clamp == NONE) {					\
		EXPECT_NE(EPERM, err);					\
	} else {							\
		EXPECT_EQ(EPERM, err);					\
	}								\
}

REFUSED_OTHER(other_up)
REFUSED_OTHER(other_mtu)
REFUSED_OTHER(other_addr)
REFUSED_OTHER(other_sioc_addr)
REFUSED_OTHER(other_route)
REFUSED_OTHER(other_sioc_route)

/* Write @value to the sysctl at @path: 0 or an errno. */
static int sysctl_write(const char *path, const char *value)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), err = 0;

	if (fd < 0)
		return errno;
	if (write(fd, value, strlen(value)) < 0)
		err = errno;
	close(fd);
	return err;
}

/* What rootless podman's crun and pasta write in the container's N. */
static int ping_group_range(const struct agent_cmd *c)
{
	return sysctl_write("/proc/sys/net/ipv4/ping_group_range", "0 0");
}

/* Any other sysctl of N. */
static int ip_forward(const struct agent_cmd *c)
{
	return sysctl_write("/proc/sys/net/ipv4/ip_forward", "1");
}

#define HOME_PING_RANGE	"/proc/sys/net/ipv4/ping_group_range"

/*
 * Set the initial namespace's ping_group_range to @range (systemd's "0
 * 2147483647" opens ICMP echo sockets to every group, "1 0" closes them,
 * "0 0" opens them to real root's group alone); @was keeps the range it
 * had.
 */
static int home_pings(const char *range, char *was, size_t size)
{
	int fd = open(HOME_PING_RANGE, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, was, size - 1);

	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return errno ?: EIO;
	was[n] = '\0';
	return sysctl_write(HOME_PING_RANGE, range);
}

/*
 * The sysctls of N are root's, with CAP_NET_ADMIN over N: a user of U
 * may not write them (EACCES).  Root of U may write ping_group_range
 * under every clamp while the initial namespace opens ICMP echo sockets
 * to some group itself, as systemd's sysctl.d does, and only without a
 * clamp while it keeps them closed; any other sysctl only without one.
 */
TEST_F(tap, sysctl_ping_group_range)
{
	char was[64];

	ASSERT_EQ(0, home_pings("0 2147483647", was, sizeof(was)));
	EXPECT_EQ(EACCES, agent_do(&self->user, OP_CALL, 0,
				   (long)ping_group_range, NULL));
	EXPECT_EQ(0, agent_do(&self->root, OP_CALL, 0,
			      (long)ping_group_range, NULL));
	sysctl_write(HOME_PING_RANGE, was);
}

TEST_F(tap, sysctl_ping_group_range_closed_at_home)
{
	char was[64];

	ASSERT_EQ(0, home_pings("1 0", was, sizeof(was)));
	EXPECT_EQ(variant->clamp == NONE ? 0 : EACCES,
		  agent_do(&self->root, OP_CALL, 0, (long)ping_group_range,
			   NULL));
	sysctl_write(HOME_PING_RANGE, was);
}

/*
 * Escape catalogue 144: the initial namespace opens ICMP echo sockets to
 * real root's group alone.  Root of U writes "0 0", its own group, which
 * is alice's on the host and outside that range: without a clamp it may,
 * as root of N; under one, the clamps' exception opens the file but
 * refuses a range the host does not open itself (EPERM).  Closing the
 * namespace's range ("1 0") stays allowed.
 */
static int ping_group_range_closed(const struct agent_cmd *c)
{
	return sysctl_write("/proc/sys/net/ipv4/ping_group_range", "1 0");
}

TEST_F(tap, sysctl_ping_group_range_beyond_home)
{
	char was[64];

	ASSERT_EQ(0, home_pings("0 0", was, sizeof(was)));
	EXPECT_EQ(variant->clamp == NONE ? 0 : EPERM,
		  agent_do(&self->root, OP_CALL, 0, (long)ping_group_range,
			   NULL));
	EXPECT_EQ(0, agent_do(&self->root, OP_CALL, 0,
			      (long)ping_group_range_closed, NULL));
	sysctl_write(HOME_PING_RANGE, was);
}

/*
 * Escape catalogue 145: the range written by real root through a
 * descriptor root of U opened, as a set-user-ID root program writes to
 * the stderr its caller gave it.  The write is parsed in real root's
 * namespace and real root holds every capability, so a test of the
 * writer alone lets any range through.  Under a clamp of the namespace
 * (the mask, or a set lowered before U was made, which U's ceiling
 * keeps) the range stays within the host's whoever writes it (EPERM).
 * Without a clamp, or with only root of U's set lowered after U was made
 * (U keeps CAP_NET_ADMIN, and a task of alice's without that set may
 * write any range there), real root's write goes through, as on a stock
 * kernel.
 */
static int ping_range_open(const struct agent_cmd *c)
{
	int fd = open("/proc/sys/net/ipv4/ping_group_range", O_WRONLY);

	return fd < 0 ? 10000 + errno : fd;
}

TEST_F(tap, sysctl_ping_group_range_by_deputy)
{
	static const char every[] = "0 4294967294";
	bool held = variant->clamp == MASK || variant->clamp == SET_BEFORE;
	int fd, pidfd, ret, err = 0;
	char was[64];

	ASSERT_EQ(0, home_pings("0 0", was, sizeof(was)));
	ret = agent_do(&self->root, OP_CALL, 0, (long)ping_range_open, NULL);
	EXPECT_GT(10000, ret);
	pidfd = syscall(SYS_pidfd_open, self->root.pid, 0);
	EXPECT_LE(0, pidfd);
	fd = syscall(SYS_pidfd_getfd, pidfd, ret, 0);
	EXPECT_LE(0, fd);
	if (write(fd, every, strlen(every)) < 0)
		err = errno;
	EXPECT_EQ(held ? EPERM : 0, err);
	close(fd);
	close(pidfd);
	sysctl_write(HOME_PING_RANGE, was);
}

TEST_F(tap, sysctl_other)
{
	EXPECT_EQ(EACCES, agent_do(&self->user, OP_CALL, 0, (long)ip_forward,
				   NULL));
	EXPECT_EQ(variant->clamp == NONE ? 0 : EACCES,
		  agent_do(&self->root, OP_CALL, 0, (long)ip_forward, NULL));
}

/*
 * Escape catalogue 135: the tap handed to vhost-net as its back-end,
 * whose batched path reads a virtio header from its ring whatever the
 * tap's flags.  vhost asks tun for the tap's socket and, refused, says
 * ENOTSOCK; without a clamp it takes it.
 */
static int vhost_backend(const struct agent_cmd *c)
{
	struct vhost_vring_state num = { .index = 1, .num = 256 };
	struct vhost_vring_file backend = { .index = 1 };
	struct vhost_vring_addr addr = { .index = 1 };
	struct vhost_memory none = { .nregions = 0 };
	/* A transmit ring, so that vhost gets as far as the back-end. */
	static char ring[3 * 4096] __attribute__((aligned(4096)));
	int v, err = tap();

	if (err)
		return err;
	v = open("/dev/vhost-net", O_RDWR | O_CLOEXEC);
	if (v < 0)
		return errno;
	addr.desc_user_addr = (unsigned long)ring;
	addr.avail_user_addr = (unsigned long)ring + 4096;
	addr.used_user_addr = (unsigned long)ring + 2 * 4096;
	backend.fd = tap_fd;
	if (ioctl(v, VHOST_SET_OWNER, NULL) ||
	    ioctl(v, VHOST_SET_MEM_TABLE, &none) ||
	    ioctl(v, VHOST_SET_VRING_NUM, &num) ||
	    ioctl(v, VHOST_SET_VRING_ADDR, &addr) ||
	    ioctl(v, VHOST_NET_SET_BACKEND, &backend))
		err = errno;
	close(v);
	return err;
}

TEST_F(tap, vhost_backend)
{
	int err;

	if (access("/dev/vhost-net", F_OK))
		SKIP(return, "no /dev/vhost-net: vhost-net is not in this kernel");
	/* Its mode where systemd is built with dev-kvm-mode=0666. */
	ASSERT_EQ(0, chmod("/dev/vhost-net", 0666));
	EXPECT_EQ(EPERM, agent_do(&self->user, OP_CALL, 0,
				  (long)vhost_backend, NULL));
	err = agent_do(&self->root, OP_CALL, 0, (long)vhost_backend, NULL);
	EXPECT_EQ(variant->clamp == NONE ? 0 : ENOTSOCK, err);
}

/* SUnreclaim of /proc/meminfo, in kB. */
static long slab_kb(void)
{
	char line[128];
	long kb = -1;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "SUnreclaim: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

/*
 * Escape catalogue 130: SIOCADDRT with a metric, which the rule refuses
 * once the ioctl has made the metrics (24 bytes), 100,000 times: the
 * kernel's unreclaimable slab must not grow by what they would leak
 * (3 MB), whatever the answer.
 */
#define LEAK_ROUNDS	100000

static int sioc_route_mtu_rounds(const struct agent_cmd *c)
{
	struct rtentry rt = { .rt_flags = RTF_UP | RTF_MTU | RTF_WINDOW |
					  RTF_IRTT, .rt_mtu = 1500 };
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	long before = slab_kb(), after;

	if (fd < 0 || before < 0)
		return EINVAL;
	rt.rt_dst.sa_family = AF_INET;
	rt.rt_genmask.sa_family = AF_INET;
	for (int i = 0; i < LEAK_ROUNDS; i++)
		ioctl(fd, SIOCADDRT, &rt);
	close(fd);
	after = slab_kb();
	return after - before > LEAK_ROUNDS * 10 / 1024 ? ENOMEM : 0;
}

TEST_F_TIMEOUT(tap, sioc_route_mtu_leaks_nothing, 300)
{
	EXPECT_EQ(0, agent_do(&self->user, OP_CALL, 0,
			      (long)sioc_route_mtu_rounds, NULL));
	EXPECT_EQ(0, agent_do(&self->root, OP_CALL, 0,
			      (long)sioc_route_mtu_rounds, NULL));
}

/*
 * Move @name from the network namespace of @pid to the initial one, as
 * real root (this process), from a child that enters that namespace.
 */
static int net_move_home(const char *name, pid_t pid)
{
	char path[64];
	int status, fd;
	pid_t child;

	snprintf(path, sizeof(path), "/proc/%d/ns/net", pid);
	child = fork();
	if (child < 0)
		return errno;
	if (!child) {
		struct ifinfomsg ifi = { .ifi_family = AF_UNSPEC };
		uint32_t home = 1;
		struct nl_req r = {};
		struct nlmsghdr *h;

		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0 || setns(fd, CLONE_NEWNET))
			_exit(errno);
		ifi.ifi_index = if_nametoindex(name);
		h = nl_msg(&r, RTM_NEWLINK, NLM_F_ACK, &ifi, sizeof(ifi));
		nl_attr(&r, h, IFLA_NET_NS_PID, &home, sizeof(home));
		_exit(ifi.ifi_index ? nl_talk(NETLINK_ROUTE, &r) : ENODEV);
	}
	if (waitpid(child, &status, 0) != child)
		return errno;
	return WIFEXITED(status) ? WEXITSTATUS(status) : EINTR;
}

static int tun_persist_off(const struct agent_cmd *c)
{
	return ioctl(tap_fd, TUNSETPERSIST, (void *)0) ? errno : 0;
}

/*
 * Escape catalogue 134: real root moves the tap out of N.  Its mark goes,
 * but its file, still in root of U's hands, stays as read-only as it
 * was: TUNSETPERSIST is refused under a clamp.
 */
TEST_F(tap, moved_tap_file_stays_read_only)
{
	int err;

	ASSERT_EQ(0, agent_do(&self->root, OP_CALL, 0, (long)make_tap, NULL));
	ASSERT_EQ(0, net_move_home(TAP, self->root.pid));
	err = agent_do(&self->root, OP_CALL, 0, (long)tun_persist, NULL);
	if (variant->clamp == NONE) {
		EXPECT_EQ(0, err);
		EXPECT_EQ(0, agent_do(&self->root, OP_CALL, 0,
				      (long)tun_persist_off, NULL));
	} else {
		EXPECT_EQ(EPERM, err);
	}
}

TEST_HARNESS_MAIN
