// SPDX-License-Identifier: GPL-2.0
/*
 * Debian's own sandboxes and network tools, unmodified, run by alice
 * (uid 1000) under each way of taking CAP_NET_ADMIN out of user
 * namespaces.  A row is a command line as a user or a runtime types it; a
 * configuration is how the clamp was set:
 *
 *   default   nothing clamped
 *   mask      real root wrote kernel.userns_cap_mask without CAP_NET_ADMIN
 *   mask_raw  the same without CAP_NET_RAW too, which reaches packet
 *             sockets and multicast routing
 *   nnp       alice's shell ran it under "nscaps exec --drop net_admin":
 *             no_new_privs, then her user namespace set lowered
 *   setpcap   a runtime running as root lowered the set with CAP_SETPCAP,
 *             then became alice (no no_new_privs)
 *   boot      the mask from the kernel command line
 *             (sysctl.kernel.userns_cap_mask=), a boot of its own
 *   clone0    not a clamp but the switch Debian has instead:
 *             kernel.unprivileged_userns_clone=0
 *   maxns0    and the one every kernel has: user.max_user_namespaces=0
 *
 *   init: real root, alice
 *   +-- the user namespaces alice's command makes (unshare, bwrap, crun),
 *   |   each with a network namespace, where it configures the network
 *   +-- those real root's command makes (rows whose name starts "root_"),
 *       as a container manager run by root does: the mask does not hold
 *       them; a namespace made inside one of them is held again
 *
 * Sandbox rows must pass in every configuration: they bring up their
 * loopback device and use it.  Surface rows reach the kernel code a
 * CAP_NET_ADMIN clamp is for; they pass in the default configuration and
 * are refused, with the tool's own words for EPERM, under every clamp.
 * Each result is printed as "# compat CONFIG ROW KIND RESULT" for the
 * host's matrix (scripts/compat-matrix.awk).
 */

#include <poll.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <pwd.h>

#include "kselftest_harness.h"
#include "nscaps_test.h"

#define NET		(1LL << CAP_NET_ADMIN)
#define RAW		(1LL << CAP_NET_RAW)
#define PATH_ENV	"PATH=/usr/bin:/usr/sbin:/bin:/tests"
#define ROW_TIMEOUT_MS	120000

enum config { DEFAULT, MASK, MASK_RAW, NNP, SETPCAP, BOOT, CLONE0, MAXNS0 };

static const char *const config_names[] = {
	[DEFAULT] = "default", [MASK] = "mask", [MASK_RAW] = "mask_raw",
	[NNP] = "nnp", [SETPCAP] = "setpcap", [BOOT] = "boot",
	[CLONE0] = "clone0", [MAXNS0] = "maxns0",
};

/* The switches of clone0 and maxns0, and what they are set to. */
static const char *const switch_path[] = {
	[CLONE0] = "/proc/sys/kernel/unprivileged_userns_clone",
	[MAXNS0] = "/proc/sys/user/max_user_namespaces",
};

enum kind {
	SANDBOX,	/* passes everywhere */
	SURFACE,	/* refused under every clamp, and meant to be */
	SETUID_HELPER,	/* refused under no_new_privs, and meant to be */
	ROOT_CONTAINER,	/* real root's: refused only where root lowered */
};

static const char *const kind_names[] = {
	[SANDBOX] = "sandbox", [SURFACE] = "surface",
	[SETUID_HELPER] = "setuid-helper",
	[ROOT_CONTAINER] = "root-container",
};

struct row {
	const char *name;
	enum kind kind;
	/* What the tool prints when the kernel says EPERM. */
	const char *refusal;
	const char *cmd;
	/* Run by real root rather than alice. */
	bool as_root;
};

enum result { OK, REFUSED, FAILED };

static const char *const result_names[] = {
	[OK] = "ok", [REFUSED] = "refused", [FAILED] = "FAILED",
};

static enum result expected(enum kind kind, enum config config)
{
	/*
	 * Real root's own container: the mask does not hold it, and Debian's
	 * switch is for unprivileged users; a set root lowered for itself
	 * and user.max_user_namespaces hold root too.
	 */
	if (kind == ROOT_CONTAINER)
		return config == NNP || config == SETPCAP || config == MAXNS0 ?
		       REFUSED : OK;
	/* With unprivileged user namespaces off, nothing of it runs. */
	if (config == CLONE0 || config == MAXNS0)
		return REFUSED;
	switch (kind) {
	case SURFACE:
		return config == DEFAULT ? OK : REFUSED;
	case SETUID_HELPER:
		return config == NNP ? REFUSED : OK;
	default:
		return OK;
	}
}

/*
 * Run @cmd with sh (Debian's, dash) as alice, or as real root with
 * @as_root, in a directory of hers, as @config says; collect what it
 * prints.  Returns its exit status, or -1.
 */
static int run_as(enum config config, bool as_root, const char *dir,
		  const char *cmd, char *out, size_t size)
{
	char home[96], runtime[96];
	struct pollfd p = {};
	size_t len = 0;
	int fd[2], status;
	ssize_t n;
	pid_t pid;

	snprintf(home, sizeof(home), "HOME=%s", dir);
	snprintf(runtime, sizeof(runtime), "XDG_RUNTIME_DIR=%s", dir);
	if (pipe2(fd, O_CLOEXEC))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		char *env[] = { PATH_ENV, home, runtime, "USER=alice", NULL };
		char *plain[] = { "sh", "-c", (char *)cmd, NULL };
		char *nscaps[] = { "nscaps", "exec", "--drop", "net_admin",
				   "--", "sh", "-c", (char *)cmd, NULL };

		dup2(fd[1], 1);
		dup2(fd[1], 2);
		if (config == SETPCAP && userns_lower(NET))
			_exit(125);
		if ((!as_root && become(ALICE, false)) || chdir(dir))
			_exit(125);
		if (config == NNP)
			execve("/tests/nscaps", nscaps, env);
		else
			execve("/usr/bin/sh", plain, env);
		_exit(126);
	}
	close(fd[1]);
	p.fd = fd[0];
	p.events = POLLIN;
	while (poll(&p, 1, ROW_TIMEOUT_MS) > 0) {
		n = read(fd[0], out + len, size - 1 - len);
		if (n <= 0)
			break;
		len += n;
		if (len == size - 1)
			len = 0;	/* keep the end of a long output */
	}
	out[len] = '\0';
	close(fd[0]);
	kill(pid, SIGKILL);
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

FIXTURE(compat) {
	char dir[64];
	long long saved;
	char switch_was[32];
};

FIXTURE_VARIANT(compat) {
	enum config config;
};

FIXTURE_VARIANT_ADD(compat, default) { .config = DEFAULT };
FIXTURE_VARIANT_ADD(compat, mask) { .config = MASK };
FIXTURE_VARIANT_ADD(compat, mask_raw) { .config = MASK_RAW };
FIXTURE_VARIANT_ADD(compat, nnp) { .config = NNP };
FIXTURE_VARIANT_ADD(compat, setpcap) { .config = SETPCAP };
FIXTURE_VARIANT_ADD(compat, boot) { .config = BOOT };
FIXTURE_VARIANT_ADD(compat, clone0) { .config = CLONE0 };
FIXTURE_VARIANT_ADD(compat, maxns0) { .config = MAXNS0 };

FIXTURE_SETUP(compat)
{
	self->saved = get_mask();
	ASSERT_EQ(variant->config == BOOT, self->saved != ALL_CAPS &&
					   has_series());
	if (variant->config == MASK)
		ASSERT_EQ(0, set_mask(ALL_CAPS & ~NET));
	if (variant->config == MASK_RAW)
		ASSERT_EQ(0, set_mask(ALL_CAPS & ~NET & ~RAW));
	if (variant->config == CLONE0 || variant->config == MAXNS0) {
		int fd = open(switch_path[variant->config], O_RDONLY);
		ssize_t n;

		ASSERT_LE(0, fd);
		n = read(fd, self->switch_was, sizeof(self->switch_was) - 1);
		close(fd);
		ASSERT_LT(0, n);
		self->switch_was[n] = '\0';
		ASSERT_EQ(0, write_file(switch_path[variant->config], "0"));
	}
	snprintf(self->dir, sizeof(self->dir), "/tmp/compat.XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	ASSERT_EQ(0, chown(self->dir, ALICE, ALICE));
}

FIXTURE_TEARDOWN(compat)
{
	char cmd[96];

	if (variant->config == MASK || variant->config == MASK_RAW)
		set_mask(self->saved);
	if (self->switch_was[0])
		write_file(switch_path[variant->config], self->switch_was);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", self->dir);
	if (self->dir[0] && system(cmd))
		TH_LOG("could not remove %s", self->dir);
}

static void run_row(struct __test_metadata *_metadata,
		    FIXTURE_DATA(compat) *self,
		    const FIXTURE_VARIANT(compat) *variant,
		    const struct row *row)
{
	enum result want = expected(row->kind, variant->config), got;
	char out[4096];
	int status;

	status = run_as(variant->config, row->as_root, self->dir, row->cmd,
			out, sizeof(out));
	/*
	 * A refusal counts where the tool says EPERM in its words; with user
	 * namespaces switched off, any failure is the refusal.
	 */
	if (status == 0)
		got = OK;
	else if (status > 0 && (strstr(out, row->refusal) ||
				variant->config == CLONE0 ||
				variant->config == MAXNS0))
		got = REFUSED;
	else
		got = FAILED;
	printf("# compat %s %s %s %s\n", config_names[variant->config],
	       row->name, kind_names[row->kind], result_names[got]);
	fflush(stdout);
	EXPECT_EQ(want, got) {
		TH_LOG("%s: status %d, expected %s, got %s; it printed:\n%s",
		       row->cmd, status, result_names[want],
		       result_names[got], out);
	}
}

#define ROW_BY(id, k, words, command, root)				\
	static const struct row row_##id = {				\
		.name = #id, .kind = k, .refusal = words, .cmd = command, \
		.as_root = root,					\
	};								\
	TEST_F_TIMEOUT(compat, id, 300)					\
	{								\
		run_row(_metadata, self, variant, &row_##id);		\
	}
#define ROW(id, k, words, command)	ROW_BY(id, k, words, command, false)
#define ROOT_ROW(id, k, words, command)	ROW_BY(id, k, words, command, true)

#define EPERM_WORDS	"Operation not permitted"
/* bwrap's words when the kernel refuses its loopback set-up, any errno. */
#define BWRAP_LO_WORDS	"loopback: Failed"

/*
 * Sandboxes: each makes a user and a network namespace, sets up its
 * loopback device the way the tool does, and runs lo_probe in it.
 */
ROW(unshare_lo_up, SANDBOX, EPERM_WORDS,
    "unshare -rn sh -c 'ip link set lo up && lo_probe'")
ROW(unshare_lo_addrs, SANDBOX, EPERM_WORDS,
    "unshare -rn sh -c 'ip addr add 127.0.0.1/8 dev lo && "
    "ip -6 addr add ::1/128 dev lo && ip link set lo up && lo_probe'")
ROW(unshare_nested, SANDBOX, EPERM_WORDS,
    "unshare -r unshare -rn sh -c 'ip link set lo up && lo_probe'")
ROW(bwrap_unshare_net, SANDBOX, BWRAP_LO_WORDS,
    "bwrap --unshare-net --ro-bind / / lo_probe")
ROW(bwrap_unshare_all, SANDBOX, BWRAP_LO_WORDS,
    "bwrap --unshare-all --ro-bind / / --proc /proc --dev /dev lo_probe")
/* As flatpak starts an app without the network permission. */
ROW(flatpak_like, SANDBOX, BWRAP_LO_WORDS,
    "bwrap --unshare-user --disable-userns --unshare-all "
    "--die-with-parent --new-session --ro-bind /usr /usr "
    "--ro-bind /tests /app --proc /proc --dev /dev --tmpfs /tmp "
    "--dir /run/user/1000 --setenv XDG_RUNTIME_DIR /run/user/1000 "
    "--cap-drop ALL /app/lo_probe")
/*
 * Rootless networking: slirp4netns as rootless podman 4.3.1 starts it
 * (but for --disable-host-loopback, so that 10.0.2.2 is the host's
 * loopback), and pasta as a user runs it, copying the address and the
 * default routes of the guest's uplink (ext0, which main() makes).  Each
 * makes a tap device in the container's network namespace and sets it up;
 * then a TCP connection from there reaches a listener of alice's on the
 * host through it (tcp_probe).
 */
#define LISTEN_AND(cmd) "tcp_probe listen 8099 & l=$!; " cmd "; r=$?; " \
	"[ $r = 0 ] && wait $l || { kill $l; exit 1; }"
/*
 * A container whose tap slirp4netns has set up, where root runs @inner
 * once the default route is there (exit 9 if it never comes).
 */
#define WITH_SLIRP(inner)						\
	"unshare -rn sh -c 'echo $$ >pid; i=0; until ip -4 route | "	\
	"grep -q default; do i=$((i+1)); [ $i -lt 100 ] || exit 9; "	\
	"sleep 0.2; done; " inner "' & c=$!; "				\
	"until [ -s pid ] || ! kill -0 $c 2>/dev/null; do sleep 0.1; done; " \
	"slirp4netns --configure --mtu=65520 --enable-ipv6 $(cat pid) tap0 " \
	">slirp.log 2>&1 & s=$!; wait $c; r=$?; kill $s 2>/dev/null; "	\
	"cat slirp.log; exit $r"
ROW(slirp4netns, SANDBOX, EPERM_WORDS,
    LISTEN_AND("(" WITH_SLIRP("tcp_probe send 10.0.2.2 8099") ")"))
ROW(pasta, SANDBOX, EPERM_WORDS,
    LISTEN_AND("pasta --config-net -- tcp_probe send 192.0.2.1 8099"))
/*
 * Rootless podman 4.3.1 with its default network (slirp4netns), as
 * unmodified but for what a guest without systemd, cgroups or a registry
 * needs: vfs storage, no cgroups, no events journal, an image imported
 * from a tarball holding tcp_probe.  The container connects to the
 * listener through the uplink's address.  podman maps alice's
 * subordinate ids with newuidmap, so no_new_privs refuses it.
 */
#define PODMAN	"podman --storage-driver vfs --cgroup-manager cgroupfs " \
	"--events-backend none "
ROW(podman_rootless, SETUID_HELPER, "newuidmap",
    LISTEN_AND("mkdir r && cp /tests/tcp_probe r/ && tar -C r -cf p.tar . && "
	       PODMAN "import p.tar localhost/probe >/dev/null && "
	       PODMAN "run --rm --cgroups disabled localhost/probe "
	       "/tcp_probe send 192.0.2.2 8099"))

/* crun's own rootless spec, run as it is but for its command. */
ROW(crun_rootless, SANDBOX, EPERM_WORDS,
    "mkdir rootfs && cp /tests/lo_probe rootfs/ && crun spec --rootless && "
    "sed -i 's|\"sh\"|\"/lo_probe\"|; s|\"terminal\": true|\"terminal\": false|' "
    "config.json && crun run c1")
/* The same spec with a cgroup namespace where the network one was. */
ROW(crun_rootless_host_net, SANDBOX, EPERM_WORDS,
    "mkdir rootfs && cp /tests/lo_probe rootfs/ && crun spec --rootless && "
    "sed -i 's|\"sh\"|\"/lo_probe\"|; s|\"terminal\": true|\"terminal\": false|; "
    "s|\"type\": \"network\"|\"type\": \"cgroup\"|' config.json && crun run c1")

/*
 * Containers real root makes with a user namespace, and the namespace
 * their payload makes: the shapes of a Kubernetes pod with hostUsers:
 * false, LXC, systemd-nspawn -U and podman --userns=auto run by root.
 * crun runs its own spec as root, with a user namespace and
 * CAP_NET_ADMIN added, as a pod's init container that sets up iptables
 * has it, without cgroups (make check's kernel has no BPF for crun's
 * device filter), in a directory of root's (its spec maps only uid 0);
 * net_admin_probe adds a dummy link and an nf_tables table.
 */
ROOT_ROW(root_unshare_mtu, ROOT_CONTAINER, EPERM_WORDS,
	 "unshare -Urn ip link set lo mtu 1280")
ROOT_ROW(root_unshare_nft, ROOT_CONTAINER, EPERM_WORDS,
	 "unshare -Urn nft add table ip t")
ROOT_ROW(root_crun_userns, ROOT_CONTAINER, EPERM_WORDS,
	 "cd \"$(mktemp -d)\" && "
	 "mkdir rootfs && cp /tests/net_admin_probe rootfs/ && "
	 "crun spec --rootless && "
	 "sed -i 's|\"sh\"|\"/net_admin_probe\"|; "
	 "s|\"terminal\": true|\"terminal\": false|; "
	 "s|\"CAP_KILL\"|\"CAP_KILL\", \"CAP_NET_ADMIN\"|' config.json && "
	 "grep -q CAP_NET_ADMIN config.json && grep -q '\"user\"' config.json && "
	 "crun --cgroup-manager=disabled run r1")
/*
 * podman as root with --userns=auto: a user namespace of the ids
 * /etc/subuid gives "containers", as Kubernetes gives a pod with
 * hostUsers: false, and CAP_NET_ADMIN added to the container.
 */
ROOT_ROW(root_podman_userns_auto, ROOT_CONTAINER, EPERM_WORDS,
	 "cd \"$(mktemp -d)\" && mkdir r && cp /tests/net_admin_probe r/ && "
	 "tar -C r -cf p.tar . && "
	 PODMAN "import p.tar localhost/admin >/dev/null && "
	 PODMAN "run --rm --cgroups disabled --userns=auto --network none "
	 "--cap-add NET_ADMIN localhost/admin /net_admin_probe")
/*
 * systemd-nspawn -U as root, without systemd as init or machined (the
 * guest has neither): a user namespace of a range nspawn picks, its own
 * network namespace, and the container's tree made here, holding
 * net_admin_probe and the os-release and machine-id nspawn asks of a
 * tree.
 */
ROOT_ROW(root_nspawn_userns, ROOT_CONTAINER, EPERM_WORDS,
	 "cd \"$(mktemp -d)\" && mkdir -p t/usr/lib t/etc && "
	 "cp /tests/net_admin_probe t/ && echo ID=probe >t/usr/lib/os-release && "
	 "echo 5a8c7d2e9f0b4c1d8e3f6a7b9c0d1e2f >t/etc/machine-id && "
	 "systemd-nspawn -q -U --register=no --keep-unit --link-journal=no "
	 "--private-network -D t /net_admin_probe")
ROOT_ROW(root_nested, SURFACE, EPERM_WORDS,
	 "unshare -Ur unshare -rn nft add table ip t")

/* Subordinate ids through newuidmap, a set-user-ID helper. */
ROW(unshare_map_auto, SETUID_HELPER, "newuidmap",
    "unshare --map-auto -r true")

/* nf_tables of every family, and the rest of nfnetlink. */
ROW(nft_inet, SURFACE, EPERM_WORDS, "unshare -rn nft add table inet t")
ROW(nft_ip, SURFACE, EPERM_WORDS, "unshare -rn nft add table ip t")
ROW(nft_ip6, SURFACE, EPERM_WORDS, "unshare -rn nft add table ip6 t")
ROW(nft_arp, SURFACE, EPERM_WORDS, "unshare -rn nft add table arp t")
ROW(nft_bridge, SURFACE, EPERM_WORDS, "unshare -rn nft add table bridge t")
ROW(nft_netdev, SURFACE, EPERM_WORDS, "unshare -rn nft add table netdev t")
ROW(nft_list, SURFACE, EPERM_WORDS, "unshare -rn nft list ruleset")
ROW(conntrack_list, SURFACE, "CAP_NET_ADMIN", "unshare -rn conntrack -L")
ROW(ipset_create, SURFACE, EPERM_WORDS,
    "unshare -rn ipset create s hash:ip")

/*
 * x_tables through setsockopt(), with the lock file where alice may make
 * it, as rootless runtimes set it.
 */
ROW(iptables_legacy, SURFACE, "Permission denied",
    "XTABLES_LOCKFILE=$HOME/xtables.lock "
    "unshare -rn iptables-legacy -A INPUT -j ACCEPT")
ROW(ip6tables_legacy, SURFACE, "Permission denied",
    "XTABLES_LOCKFILE=$HOME/xtables.lock "
    "unshare -rn ip6tables-legacy -A INPUT -j ACCEPT")

/* Traffic control, after the loopback device the clamp lets come up. */
#define TC(cmds) "unshare -rn sh -c 'ip link set lo up && " \
	"printf \"qdisc add dev lo root handle 1: htb\\n" cmds "\" | " \
	"tc -force -batch -'"
ROW(tc_qdisc, SURFACE, EPERM_WORDS, TC(""))
ROW(tc_class, SURFACE, EPERM_WORDS,
    TC("class add dev lo parent 1: classid 1:1 htb rate 1mbit\\n"))
ROW(tc_filter_u32, SURFACE, EPERM_WORDS,
    TC("filter add dev lo parent 1: protocol ip u32 match ip dst "
       "127.0.0.1/32 flowid 1:1\\n"))
ROW(tc_filter_fw, SURFACE, EPERM_WORDS,
    TC("filter add dev lo parent 1: protocol ip handle 1 fw flowid 1:1\\n"))
ROW(tc_filter_route, SURFACE, EPERM_WORDS,
    TC("filter add dev lo parent 1: protocol ip route to 1 flowid 1:1\\n"))
/*
 * An action as a filter carries it; "tc actions add" alone needs
 * CAP_NET_ADMIN in the initial namespace on any kernel.
 */
ROW(tc_filter_action, SURFACE, EPERM_WORDS,
    TC("filter add dev lo parent 1: protocol ip u32 match ip dst "
       "127.0.0.1/32 action gact drop\\n"))

/* xfrm. */
ROW(xfrm_policy, SURFACE, EPERM_WORDS,
    "unshare -rn ip xfrm policy add src 10.0.0.1 dst 10.0.0.2 dir out")
ROW(xfrm_state_list, SURFACE, EPERM_WORDS, "unshare -rn ip xfrm state list")

/* Devices of every kind. */
ROW(link_veth, SURFACE, EPERM_WORDS,
    "unshare -rn ip link add v0 type veth peer name v1")
ROW(link_bridge, SURFACE, EPERM_WORDS,
    "unshare -rn ip link add br0 type bridge")
ROW(link_vxlan, SURFACE, EPERM_WORDS,
    "unshare -rn ip link add vx0 type vxlan id 42 dstport 4789 local 127.0.0.1")
ROW(link_macvlan, SURFACE, EPERM_WORDS,
    "unshare -rn sh -c 'ip link add d0 type dummy && "
    "ip link add m0 link d0 type macvlan'")
ROW(link_dummy, SURFACE, EPERM_WORDS, "unshare -rn ip link add d0 type dummy")
/*
 * tun and tap devices beyond the one plain tap the clamps leave: ip tuntap
 * makes every device persistent (TUNSETPERSIST), and asks for the kinds
 * no rootless helper does.  The BPF programs and filters of a tap's file
 * and NAPI, which no tool of Debian's sets, are tests/tap_test.c's.
 */
ROW(tuntap_persist, SURFACE, EPERM_WORDS,
    "unshare -rn ip tuntap add tap0 mode tap")
ROW(tuntap_tun, SURFACE, EPERM_WORDS,
    "unshare -rn ip tuntap add tun0 mode tun")
ROW(tuntap_multi_queue, SURFACE, EPERM_WORDS,
    "unshare -rn ip tuntap add tap0 mode tap multi_queue")
ROW(tuntap_vnet_hdr, SURFACE, EPERM_WORDS,
    "unshare -rn ip tuntap add tap0 mode tap vnet_hdr")

/*
 * The routes and devices of the set-up tap beyond what the helpers send
 * (in the words of ip, as slirp4netns's own refusal would say otherwise).
 */
#define IP_EPERM_WORDS	"RTNETLINK answers: Operation not permitted"
ROW(tap_multipath, SURFACE, IP_EPERM_WORDS,
    WITH_SLIRP("ip route add 10.9.0.0/16 nexthop via 10.0.2.2 dev tap0 "
	       "nexthop via 10.0.2.3 dev tap0"))
ROW(tap_route_table, SURFACE, IP_EPERM_WORDS,
    WITH_SLIRP("ip route add 10.9.0.0/16 via 10.0.2.2 dev tap0 table 7"))
ROW(tap_route_mtu, SURFACE, IP_EPERM_WORDS,
    WITH_SLIRP("ip route add 10.9.0.0/16 via 10.0.2.2 dev tap0 mtu 1280"))
ROW(tap_neigh, SURFACE, IP_EPERM_WORDS,
    WITH_SLIRP("ip neigh add 10.0.2.9 lladdr 02:00:00:00:00:09 dev tap0"))
ROW(tap_promisc, SURFACE, IP_EPERM_WORDS,
    WITH_SLIRP("ip link set tap0 promisc on"))
/* A blackhole nexthop sits on lo, so lo comes up first. */
ROW(nexthop_object, SURFACE, IP_EPERM_WORDS,
    "unshare -rn sh -c 'ip link set lo up && "
    "ip nexthop add id 1 blackhole'")

/* The loopback device beyond its set-up: the rule stops there. */
ROW(lo_other_addr, SURFACE, EPERM_WORDS,
    "unshare -rn ip addr add 10.1.2.3/24 dev lo")
ROW(lo_route, SURFACE, EPERM_WORDS,
    "unshare -rn sh -c 'ip link set lo up && ip route add 10.9.0.0/16 dev lo'")
ROW(lo_mtu, SURFACE, EPERM_WORDS, "unshare -rn ip link set lo mtu 1500")
ROW(lo_down, SURFACE, EPERM_WORDS,
    "unshare -rn sh -c 'ip link set lo up && ip link set lo down'")

/*
 * The boot configuration runs alone, in the boot whose command line set
 * the mask; the others in a boot without it.  On a kernel without the
 * series, the default configuration, and the mask where the BPF version
 * of the clamps (alt/) stands in for it.
 */
/*
 * COMPAT_ROWS=a,b (from the kernel command line, which passes it to init)
 * runs those rows alone, in each configuration the boot runs: after the
 * configuration's own filter, "-t a -t b".
 */
static int run_rows(int argc, char **argv)
{
	char *rows = getenv("COMPAT_ROWS"), *args[64], *row;
	int n = 0;

	for (; n < argc && n < 8; n++)
		args[n] = argv[n];
	for (row = strtok(rows ? rows : (char[]){ "" }, ","); row && n < 62;
	     row = strtok(NULL, ",")) {
		args[n++] = "-t";
		args[n++] = row;
	}
	args[n] = NULL;
	return test_harness_run(n, args);
}

int main(int argc, char **argv)
{
	char *boot[] = { argv[0], "-v", "boot", NULL };
	char *stock[] = { argv[0], "-v", "default", NULL };
	char *bpf[] = { argv[0], "-v", "default", "-v", "mask", NULL };
	char *others[] = { argv[0], "-V", "boot", NULL };

	/*
	 * The uplink pasta copies into its namespace: an address and a
	 * default route of each family on a device of the initial namespace.
	 */
	/*
	 * podman keeps its locks in POSIX shared memory and copies images
	 * through /var/tmp, as a Debian system has them.
	 */
	if (mkdir("/dev/shm", 01777) && errno != EEXIST)
		perror("compat: /dev/shm");
	else if (mount("shm", "/dev/shm", "tmpfs", 0, "mode=1777"))
		perror("compat: mount /dev/shm");
	/* ICMP echo sockets for every group, as systemd's sysctl.d opens them. */
	if (write_file("/proc/sys/net/ipv4/ping_group_range", "0 2147483647"))
		perror("compat: ping_group_range");
	if (mkdir("/var", 0755) && errno != EEXIST)
		perror("compat: /var");
	if ((mkdir("/var/tmp", 01777) && errno != EEXIST) ||
	    chmod("/var/tmp", 01777))
		perror("compat: /var/tmp");
	if (system("/usr/bin/ip link add ext0 type dummy && "
		   "/usr/bin/ip link set ext0 up && "
		   "/usr/bin/ip addr add 192.0.2.2/24 dev ext0 && "
		   "/usr/bin/ip route add default via 192.0.2.1 && "
		   "/usr/bin/ip -6 addr add 2001:db8::2/64 dev ext0 nodad && "
		   "/usr/bin/ip -6 route add default via fe80::1 dev ext0"))
		fprintf(stderr, "compat: no uplink for pasta\n");
	if (argc > 1)
		return test_harness_run(argc, argv);
	if (!has_series())
		return bpf_alt() ? run_rows(5, bpf) : run_rows(3, stock);
	if (get_mask() != ALL_CAPS)
		return run_rows(3, boot);
	return run_rows(3, others);
}
