/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The network operations that CAP_NET_ADMIN gates, done the plain way,
 * with one request each, for the ceiling suites: set lo's MTU, bring lo
 * up, add a dummy link, add a netfilter table.  Each returns 0 or an
 * errno.
 */

#ifndef NSCAPS_NET_H
#define NSCAPS_NET_H

#include <errno.h>
#include <stdio.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <linux/if_link.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nf_tables.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

struct nl_req {
	char buf[512];
	size_t len;
};

static inline struct nlmsghdr *nl_msg(struct nl_req *r, int type, int flags,
				      const void *body, size_t blen)
{
	struct nlmsghdr *h = (struct nlmsghdr *)(r->buf + r->len);

	memset(h, 0, NLMSG_LENGTH(blen));
	h->nlmsg_len = NLMSG_LENGTH(blen);
	h->nlmsg_type = type;
	h->nlmsg_flags = NLM_F_REQUEST | flags;
	h->nlmsg_seq = r->len + 1;
	memcpy(NLMSG_DATA(h), body, blen);
	r->len += NLMSG_ALIGN(h->nlmsg_len);
	return h;
}

static inline struct nlattr *nl_attr(struct nl_req *r, struct nlmsghdr *h,
				     int type, const void *data, size_t dlen)
{
	struct nlattr *a = (struct nlattr *)(r->buf + r->len);

	a->nla_type = type;
	a->nla_len = NLA_HDRLEN + dlen;
	if (dlen)
		memcpy((char *)a + NLA_HDRLEN, data, dlen);
	r->len += NLA_ALIGN(a->nla_len);
	h->nlmsg_len = r->buf + r->len - (char *)h;
	return a;
}

/* Close a nested attribute opened with nl_attr(..., NULL, 0). */
static inline void nl_nest_end(struct nl_req *r, struct nlattr *nest)
{
	nest->nla_len = r->buf + r->len - (char *)nest;
}

/* Send the request; return the first error any message was acked with. */
static inline int nl_talk(int proto, struct nl_req *r)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	char reply[4096];
	struct nlmsghdr *h;
	int fd, err = 0, acks = 0, want = 0;
	ssize_t n;

	for (h = (struct nlmsghdr *)r->buf; (char *)h < r->buf + r->len;
	     h = (struct nlmsghdr *)((char *)h + NLMSG_ALIGN(h->nlmsg_len)))
		want += !!(h->nlmsg_flags & NLM_F_ACK);

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, proto);
	if (fd < 0)
		return errno;
	if (sendto(fd, r->buf, r->len, 0, (struct sockaddr *)&sa,
		   sizeof(sa)) < 0) {
		err = errno;
		goto out;
	}
	while (acks < want) {
		n = recv(fd, reply, sizeof(reply), 0);
		if (n < 0) {
			err = errno;
			break;
		}
		for (h = (struct nlmsghdr *)reply; NLMSG_OK(h, n);
		     h = NLMSG_NEXT(h, n)) {
			struct nlmsgerr *e = NLMSG_DATA(h);

			if (h->nlmsg_type != NLMSG_ERROR)
				continue;
			acks++;
			if (e->error && !err)
				err = -e->error;
		}
	}
out:
	close(fd);
	return err;
}

/*
 * ip link set lo mtu <its own MTU>: a change of nothing that still needs
 * CAP_NET_ADMIN over the namespace, which no clamp leaves (unlike bringing
 * lo up, see net_lo_ioctl()).
 */
static inline int net_lo_mtu(void)
{
	struct ifreq ifr = {};
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	int err;

	if (fd < 0)
		return errno;
	strcpy(ifr.ifr_name, "lo");
	err = ioctl(fd, SIOCGIFMTU, &ifr) || ioctl(fd, SIOCSIFMTU, &ifr) ?
	      errno : 0;
	close(fd);
	return err;
}

/*
 * SIOCSIFFLAGS on @ifname with @flags, through a socket of @family:
 * AF_INET and AF_PACKET go to devinet_ioctl(), others to dev_ioctl().
 */
static inline int net_lo_ioctl(int family, const char *ifname, short flags)
{
	struct ifreq ifr = { .ifr_flags = flags };
	int fd = socket(family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	int err;

	if (fd < 0)
		return errno;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	err = ioctl(fd, SIOCSIFFLAGS, &ifr) ? errno : 0;
	close(fd);
	return err;
}

/* ip link set lo up as crun does it: UP and RUNNING, nothing else. */
static inline int net_lo_up(void)
{
	return net_lo_ioctl(AF_INET, "lo", IFF_UP | IFF_RUNNING);
}

/*
 * ip link add NAME type dummy, in the caller's network namespace or, with
 * @netns_pid, in that task's.
 */
static inline int net_add_dummy(const char *name, pid_t netns_pid)
{
	struct ifinfomsg ifi = { .ifi_family = AF_UNSPEC };
	struct nl_req r = {};
	struct nlmsghdr *h;
	struct nlattr *info;
	uint32_t pid = netns_pid;

	h = nl_msg(&r, RTM_NEWLINK, NLM_F_ACK | NLM_F_CREATE | NLM_F_EXCL,
		   &ifi, sizeof(ifi));
	nl_attr(&r, h, IFLA_IFNAME, name, strlen(name) + 1);
	if (netns_pid)
		nl_attr(&r, h, IFLA_NET_NS_PID, &pid, sizeof(pid));
	info = nl_attr(&r, h, IFLA_LINKINFO | NLA_F_NESTED, NULL, 0);
	nl_attr(&r, h, IFLA_INFO_KIND, "dummy", sizeof("dummy"));
	nl_nest_end(&r, info);
	return nl_talk(NETLINK_ROUTE, &r);
}

/* nft add table ip NAME */
static inline int net_add_nft_table(const char *name)
{
	struct nfgenmsg batch = { .nfgen_family = AF_UNSPEC,
				  .res_id = htons(NFNL_SUBSYS_NFTABLES) };
	struct nfgenmsg table = { .nfgen_family = NFPROTO_IPV4,
				  .version = NFNETLINK_V0 };
	struct nl_req r = {};
	struct nlmsghdr *h;

	nl_msg(&r, NFNL_MSG_BATCH_BEGIN, 0, &batch, sizeof(batch));
	h = nl_msg(&r, (NFNL_SUBSYS_NFTABLES << 8) | NFT_MSG_NEWTABLE,
		   NLM_F_ACK | NLM_F_CREATE, &table, sizeof(table));
	nl_attr(&r, h, NFTA_TABLE_NAME, name, strlen(name) + 1);
	nl_msg(&r, NFNL_MSG_BATCH_END, 0, &batch, sizeof(batch));
	return nl_talk(NETLINK_NETFILTER, &r);
}

#endif /* NSCAPS_NET_H */
