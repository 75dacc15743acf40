// SPDX-License-Identifier: GPL-2.0
/*
 * make demo: a walk through capabilities relative to user namespaces, on
 * the running kernel.  Each step has a task of the hierarchy below try one
 * operation and prints what it tried, what the kernel answered, and which
 * rule decided it.  The demo exits non-zero if any answer is not the one
 * the rule predicts.
 */

#include <linux/fsverity.h>
#include <sys/klog.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <sys/utsname.h>

#include "nscaps_tree.h"
#include "wrap.h"

/* Alice's container: a user namespace with its own uts namespace. */
#define C_ROOT NR_ROLES

struct step {
	int actor;
	enum agent_op op;
	int target;		/* a role, or NONE */
	const char *str;
	long arg;
	int expected;
	const char *what;
	const char *rule;
};

static const struct step steps[] = {
	{ HOST_ALICE, OP_SETHOSTNAME, NONE, "alice-was-here", 0, EPERM,
	  "alice sets the host's hostname",
	  "sethostname() needs CAP_SYS_ADMIN in the user namespace that owns "
	  "the host's uts namespace, the initial one; alice has no "
	  "capabilities there" },
	{ C_ROOT, OP_SETHOSTNAME, NONE, "container", 0, 0,
	  "root of C sets the hostname of C's own uts namespace",
	  "C's uts namespace was created with C, so C owns it (seed patch 1); "
	  "root of C holds CAP_SYS_ADMIN in C (seed patch 3)" },
	{ U_ROOT, OP_SETHOSTNAME, NONE, "container", 0, EPERM,
	  "root of U, which shares the host's uts namespace, sets its name",
	  "capabilities of a child namespace act there and below, never on "
	  "the initial namespace that owns the host's uts (rule 2)" },
	{ U_ROOT, OP_SIGNAL, U_USER5, NULL, 0, 0,
	  "root of U signals uid 5 of U (no uid match)",
	  "CAP_KILL in the target's user namespace (seed patch 4, rule 2)" },
	{ U_ROOT, OP_SIGNAL, U2_ROOT, NULL, 0, 0,
	  "root of U signals root of U2, a namespace created inside U",
	  "capabilities in U act on U's descendants (rule 2)" },
	{ U_ROOT, OP_SIGNAL, HOST_BOB, NULL, 0, EPERM,
	  "root of U signals bob on the host",
	  "root of U has no capability in the parent namespace (rule 2)" },
	{ U_ROOT, OP_SIGNAL, S_ROOT, NULL, 0, EPERM,
	  "root of U signals root of S, a sibling namespace",
	  "nor in a sibling (rule 2)" },
	{ U2_ROOT, OP_SIGNAL, U_USER5, NULL, 0, EPERM,
	  "root of U2 signals uid 5 of U, its parent namespace",
	  "a nested root is just as confined (rule 2)" },
	{ HOST_ALICE, OP_SIGNAL, U_ROOT, NULL, 0, 0,
	  "alice signals root of U (kuid 200000, not alice)",
	  "alice created U: its owner, seen from the parent namespace, holds "
	  "every capability in U (rule 3)" },
	{ HOST_ALICE, OP_ATTACH, U_ROOT, NULL, 0, 0,
	  "alice attaches to root of U with ptrace",
	  "the owner rule again, for CAP_SYS_PTRACE (rule 3, seed patch 5)" },
	{ HOST_ALICE, OP_SIGNAL, U2_ROOT, NULL, 0, 0,
	  "alice signals root of U2, below U",
	  "the owner's capabilities reach U's descendants too (rule 3)" },
	{ HOST_BOB, OP_SIGNAL, U_ROOT, NULL, 0, EPERM,
	  "bob signals root of U",
	  "bob is another user of the same parent namespace: he has only his "
	  "own capabilities, none (rule 3)" },
	{ HOST_BOB, OP_SIGNAL, S_ROOT, NULL, 0, 0,
	  "bob signals root of S",
	  "bob created S (rule 3)" },
	{ HOST_BOB_CAPS, OP_ATTACH, U_ROOT, NULL, 0, 0,
	  "bob, holding CAP_SYS_PTRACE on the host, attaches to root of U",
	  "capabilities in the initial namespace act on every namespace "
	  "(rule 1)" },
	{ U_ROOT, OP_ATTACH, U_USER5, NULL, 0, 0,
	  "root of U attaches to uid 5 of U",
	  "CAP_SYS_PTRACE in U (seed patch 5)" },
	{ U_ROOT, OP_ATTACH, HOST_BOB, NULL, 0, EPERM,
	  "root of U attaches to bob on the host",
	  "no capability outside U (seed patch 5, rule 2)" },
	{ U_USER5, OP_SIGNAL, U_ROOT, NULL, 0, EPERM,
	  "uid 5 of U signals root of U",
	  "inside a namespace the usual uid rules hold: no uid match, no "
	  "CAP_KILL" },
	{ U_ROOT, OP_SETUID, NONE, NULL, 7, 0,
	  "root of U switches to uid 7 of U (kuid 200007)",
	  "setuid works inside a namespace, within its uid map (a next goal "
	  "of the seed, reached by mainline)" },
};

static int start_all(struct agent *a)
{
	struct agent_spec c = { .creator = ALICE,
				.unshare = CLONE_NEWUSER | CLONE_NEWUTS,
				.uid = 0 };
	enum role failed;
	int err;

	failed = tree_start(a, &err);
	if (failed != NONE) {
		fprintf(stderr, "demo: starting %s: %s\n",
			tree_nodes[failed].name, strerror(-err));
		return 1;
	}
	err = agent_start(&a[C_ROOT], &c);
	if (err) {
		fprintf(stderr, "demo: starting C: %s\n", strerror(-err));
		return 1;
	}
	return 0;
}

static void print_wrapped(const char *prefix, const char *text)
{
	wrap(prefix, strlen(prefix), 72, text);
}

static int nsteps, nwrong;

static void report(const char *what, int err, int expected, const char *rule)
{
	char tag[16];

	snprintf(tag, sizeof(tag), "%2d. ", ++nsteps);
	print_wrapped(tag, what);
	printf("    -> %s%s\n", errname(err),
	       err == expected ? "" : "   UNEXPECTED");
	print_wrapped("    because ", rule);
	printf("\n");
	nwrong += err != expected;
}

static void seed_walkthrough(struct agent *a)
{
	struct utsname host, now;
	size_t i;

	uname(&host);
	printf("Part 1: the seed's model\n\n"
	       "The hierarchy (real root set up U and S with id maps, as a "
	       "container\nmanager would; alice made C by herself):\n\n"
	       "  initial user namespace: alice (uid 1000), bob (uid 1001), "
	       "no capabilities\n"
	       "  +-- U  created by alice  uid 0..999 -> host uid "
	       "200000..200999,\n"
	       "  |                        uid 1000 -> host uid 1000 (alice)\n"
	       "  |   +-- U2  created by root of U\n"
	       "  +-- S  created by bob    uid 0..999 -> host uid "
	       "300000..300999\n"
	       "  +-- C  created by alice  with its own uts namespace\n\n"
	       "The rules (capabilities are relative to user namespaces):\n"
	       "  1. a task's capabilities in the initial namespace act on "
	       "every namespace;\n"
	       "  2. a task's capabilities in a child namespace act there and "
	       "below only;\n"
	       "  3. the user who creates a namespace holds every capability "
	       "in it and\n     below it, seen from the parent namespace; "
	       "another user does not.\n\n");

	for (i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		const struct step *s = &steps[i];
		pid_t target = s->target == NONE ? 0 : a[s->target].pid;

		report(s->what, agent_do(&a[s->actor], s->op, target, s->arg,
					 s->str), s->expected, s->rule);
	}
	uname(&now);
	printf("The host's hostname is still '%s' (it was '%s').\n\n",
	       now.nodename, host.nodename);
	nwrong += strcmp(now.nodename, host.nodename) != 0;
}

static unsigned long long ceiling_of(pid_t pid)
{
	char path[64];
	__u64 ceiling = 0;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/ns/user", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		ioctl(fd, NS_GET_USERNS_CAP_CEILING, &ceiling);
		close(fd);
	}
	return ceiling;
}

/* Show the administrator's view: the last clamp the kernel logged. */
static void print_last_denial(void)
{
	static char log[1 << 16];
	char *line, *last = NULL, *save;
	int n = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, log, sizeof(log) - 1);

	if (n <= 0)
		return;
	log[n] = '\0';
	for (line = strtok_r(log, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		if (strstr(line, "denied"))
			last = line;
	if (last && *last == '<' && strchr(last, '>'))
		last = strchr(last, '>') + 1;
	if (last)
		printf("    kernel log: %s\n\n", last);
}

/* Run the nscaps tool, its output going where ours goes. */
static void nscaps(const char *a, const char *b, const char *c,
		   const char *d)
{
	char *argv[] = { "nscaps", (char *)a, (char *)b, (char *)c,
			 (char *)d, NULL };
	int status;
	pid_t child;

	printf("$ nscaps %s %s%s%s%s%s\n", a, b, c ? " " : "", c ? c : "",
	       d ? " " : "", d ? d : "");
	fflush(stdout);
	child = fork();
	if (child == 0) {
		execv("/tests/nscaps", argv);
		_exit(127);
	}
	waitpid(child, &status, 0);
	printf("\n");
}

/* Part 3: the nscaps tool explains what parts 1 and 2 showed. */
static void tool_session(struct agent *c, struct agent *sb)
{
	char n[16], p[16], net[64];

	snprintf(n, sizeof(n), "%d", c->pid);
	snprintf(p, sizeof(p), "%d", sb->pid);
	snprintf(net, sizeof(net), "/proc/%d/ns/net", sb->pid);
	printf("Part 3: the nscaps tool explains it (root of N is pid %s, "
	       "root of P pid %s)\n\n", n, p);
	nscaps("show", p, NULL, NULL);
	nscaps("explain", p, "cap_net_admin", net);
	nscaps("explain", p, "cap_sys_admin", net);
	nscaps("explain", n, "cap_kill", "1");
}

/*
 * Part 2: the clamp-down of our series.  A distribution's policy, a mask
 * without CAP_NET_ADMIN, applied live to a running container; then a
 * sandbox that lowers its own user namespace set.
 */
static void clamp_walkthrough(void)
{
	struct agent_spec cspec = { .creator = ALICE, .uid = 0,
				    .unshare = CLONE_NEWUSER | CLONE_NEWNET };
	struct agent_spec sspec = { .creator = ALICE, .uid = 0,
				    .drop = 1ULL << CAP_NET_ADMIN, .nnp = true,
				    .unshare = CLONE_NEWUSER | CLONE_NEWNET };
	/* Alice's shell, and a process of her sandbox still outside P. */
	struct agent_spec shspec = { .creator = ALICE, .uid = KEEP };
	struct agent_spec lspec = { .creator = ALICE, .uid = KEEP,
				    .drop = 1ULL << CAP_NET_ADMIN, .nnp = true };
	struct agent sh = {}, low = {};
	unsigned long long full = get_mask();
	unsigned long long policy = full & ~(1ULL << CAP_NET_ADMIN);
	struct agent c = {}, sb = {};
	char line[256];

	if (agent_start(&c, &cspec)) {
		printf("demo: cannot start container N\n");
		nwrong++;
		return;
	}
	printf("Part 2: clamping down (our kernel series)\n\n"
	       "  initial user namespace: real root, the administrator\n"
	       "  +-- N  alice's running container, with a network namespace\n"
	       "  +-- P  made later by alice's sandbox, which first set "
	       "no_new_privs\n         and lowered its user namespace set: "
	       "no CAP_NET_ADMIN\n\n"
	       "N is user namespace %lu.  kernel.userns_cap_mask is %016llx: "
	       "every capability.\n\n", (unsigned long)ns_ino(c.pid, "user"),
	       full);

	report("root of N sets the MTU of its loopback interface",
	       agent_do(&c, OP_LO_MTU, 0, 0, NULL), 0,
	       "CAP_NET_ADMIN in N, which owns N's network namespace");

	snprintf(line, sizeof(line),
		 "the administrator sets kernel.userns_cap_mask to %016llx, "
		 "taking CAP_NET_ADMIN (bit 12) out of every container",
		 policy);
	report(line, -set_mask(policy), 0,
	       "writing it needs CAP_SYS_ADMIN in the initial namespace; the "
	       "mask applies at every check, no restart needed");

	report("root of N, still running, adds a dummy link",
	       agent_do(&c, OP_ADD_DUMMY, 0, 0, "dummy0"), EPERM,
	       "the mask holds every namespace but the initial one, at each "
	       "check; the denial is logged in the kernel log");
	report("root of N adds a netfilter table",
	       agent_do(&c, OP_NFT_TABLE, 0, 0, "filter"), EPERM,
	       "nf_tables, too, is behind CAP_NET_ADMIN");
	print_last_denial();
	report("root of N brings its loopback interface up",
	       agent_do(&c, OP_LO_UP, 0, 0, NULL), 0,
	       "the one thing a clamp leaves of CAP_NET_ADMIN: the "
	       "namespace's own loopback device up, with the addresses the "
	       "kernel gives it, which every sandbox sets up first");
	report("root of N makes a uts namespace and sets its hostname",
	       agent_do(&c, OP_UNSHARE, 0, CLONE_NEWUTS, NULL) ?:
	       agent_do(&c, OP_SETHOSTNAME, 0, 0, "n"), 0,
	       "only CAP_NET_ADMIN was masked; N keeps its other capabilities");
	report("real root adds a link inside N's network namespace",
	       net_add_dummy("fromhost", c.pid), 0,
	       "privileges held in the initial namespace are never masked: "
	       "the administrator still manages the container");

	report("the administrator restores the mask",
	       -set_mask(full), 0, "raising the mask restores N at once");
	report("root of N adds a dummy link",
	       agent_do(&c, OP_ADD_DUMMY, 0, 0, "dummy1"), 0,
	       "nothing holds CAP_NET_ADMIN back any more");

	if (agent_start(&sb, &sspec)) {
		printf("demo: cannot start sandbox P\n");
		nwrong++;
		agent_stop(&c);
		return;
	}
	snprintf(line, sizeof(line),
		 "alice's sandbox lowered its set (CapUns %016llx) and made P; "
		 "P's ceiling, read with NS_GET_USERNS_CAP_CEILING, is %016llx; "
		 "root of P adds a dummy link",
		 task_caps(sb.pid, "CapUns:"), ceiling_of(sb.pid));
	report(line, agent_do(&sb, OP_ADD_DUMMY, 0, 0, "dummy0"), EPERM,
	       "ceiling(P) = ceiling(parent) & creator's set: CAP_NET_ADMIN is "
	       "out of P and of everything ever created below it");
	report("root of P creates a namespace below P, and there adds a "
	       "network namespace and a link",
	       agent_do(&sb, OP_UNSHARE, 0, CLONE_NEWUSER | CLONE_NEWNET,
			NULL) ?: agent_do(&sb, OP_ADD_DUMMY, 0, 0, "d"), EPERM,
	       "nested creation never regains a capability: a ceiling never "
	       "grows");

	if (!agent_start(&sh, &shspec) && !agent_start(&low, &lspec)) {
		report("a process of the sandbox, outside P, ptrace-attaches to "
		       "alice's shell (same uid, full set)",
		       agent_do(&low, OP_ATTACH, sh.pid, 0, NULL), EPERM,
		       "only a task whose set holds all of another's may "
		       "control it: otherwise the shell could be made to "
		       "create what the sandbox may not");
		report("alice's shell ptrace-attaches to that sandbox process",
		       agent_do(&sh, OP_ATTACH, low.pid, 0, NULL), 0,
		       "her shell's full set holds the sandbox's; the uids "
		       "match");
	} else {
		printf("demo: cannot start alice's shell and sandbox\n");
		nwrong++;
	}
	agent_stop(&low);
	agent_stop(&sh);

	tool_session(&c, &sb);
	agent_stop(&sb);
	agent_stop(&c);
}

/*
 * Part 4: the seed's open goal, a filesystem image mounted inside a user
 * namespace.  Alice's image was built on the host with mkfs.erofs -T0 -U
 * (the same bytes every time) and lies on the guest's ext4 disk, which
 * supports fs-verity.
 */
#define IMAGE		"/disk/images/alice.img"
#define CHANGED		"/disk/images/changed.img"
#define SWITCH		"/proc/sys/fs/erofs/userns_mount"

/* Alice turns fs-verity on for her image: it is hers, and read-only after. */
static int op_verity(const struct agent_cmd *c)
{
	struct fsverity_enable_arg arg = {
		.version = 1, .hash_algorithm = FS_VERITY_HASH_ALG_SHA256,
		.block_size = 4096,
	};
	int fd = open(c->str, O_RDONLY | O_CLOEXEC), err;

	if (fd < 0)
		return errno;
	err = ioctl(fd, FS_IOC_ENABLE_VERITY, &arg) ? errno : 0;
	close(fd);
	return err;
}

/* The digest of @path, as fsverity-utils prints it. */
static void verity_digest(const char *path, char *out, size_t size)
{
	struct {
		struct fsverity_digest d;
		unsigned char buf[64];
	} m = { .d.digest_size = 64 };
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t i, n;

	out[0] = '\0';
	if (fd < 0 || ioctl(fd, FS_IOC_MEASURE_VERITY, &m)) {
		if (fd >= 0)
			close(fd);
		return;
	}
	close(fd);
	n = snprintf(out, size, "sha256:");
	for (i = 0; i < m.d.digest_size && n + 2 < size; i++)
		n += snprintf(out + n, size - n, "%02x", m.d.digest[i]);
}

/* Root of the container mounts c->str with fsopen(); the kernel's words
 * on failure are printed, as it gave them to the mounter. */
static int op_mount_image(const struct agent_cmd *c)
{
	char msg[256];
	int fs, mnt, err = 0;
	ssize_t n;

	mkdir("/tmp/image", 0755);
	fs = fsopen("erofs", FSOPEN_CLOEXEC);
	if (fs < 0)
		return errno;
	if (fsconfig(fs, FSCONFIG_SET_STRING, "source", c->str, 0) ||
	    fsconfig(fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0)) {
		err = errno;
		while ((n = read(fs, msg, sizeof(msg) - 1)) > 0) {
			msg[n] = '\0';
			printf("    the kernel says: %s", msg);
		}
	} else {
		mnt = fsmount(fs, FSMOUNT_CLOEXEC, MOUNT_ATTR_RDONLY);
		if (mnt < 0 || move_mount(mnt, "", AT_FDCWD, "/tmp/image",
					  MOVE_MOUNT_F_EMPTY_PATH))
			err = errno;
		if (mnt >= 0)
			close(mnt);
	}
	close(fs);
	fflush(stdout);
	return err;
}

static int op_cat_image(const struct agent_cmd *c)
{
	char buf[128];
	int fd = open("/tmp/image/hello.txt", O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0)
		return errno;
	buf[n] = '\0';
	printf("    hello.txt: %s", buf);
	fflush(stdout);
	return 0;
}

static void image_walkthrough(void)
{
	struct agent_spec cspec = { .creator = ALICE, .uid = 0,
				    .uid_map = U_MAP,
				    .unshare = CLONE_NEWUSER | CLONE_NEWNS };
	struct agent_spec aspec = { .creator = ALICE, .uid = KEEP };
	struct agent c = {}, alice = {};
	char digest[160], line[512], path[96];
	long ring = -1;
	struct stat st;
	FILE *keys;

	if (agent_start(&alice, &aspec) || agent_start(&c, &cspec)) {
		printf("demo: cannot start alice and her container\n");
		nwrong++;
		goto out;
	}
	printf("Part 4: an image of alice's own, mounted in her container "
	       "(the seed's\n\"fresh loopback mount\")\n\n"
	       "  initial user namespace: real root decides which images are "
	       "trusted\n"
	       "  +-- C  alice's container, a user and a mount namespace; "
	       "its root is\n         kuid 200000, not alice\n\n");

	report("alice turns fs-verity on for her image, " IMAGE,
	       agent_do(&alice, OP_CALL, 0, (long)op_verity, IMAGE), 0,
	       "the file is hers; fs-verity makes it read-only and checks "
	       "every byte read from it against its digest");
	verity_digest(IMAGE, digest, sizeof(digest));
	printf("    its digest: %s\n\n", digest);

	report("root of C mounts it",
	       agent_do(&c, OP_CALL, 0, (long)op_mount_image, IMAGE), EPERM,
	       "an image is input to a kernel parser: off until real root "
	       "switches it on (fs.erofs.userns_mount)");
	write_file(SWITCH, "1");
	report("real root sets fs.erofs.userns_mount to 1; root of C tries "
	       "again", agent_do(&c, OP_CALL, 0, (long)op_mount_image, IMAGE),
	       EPERM, "only images whose fs-verity digest real root put in "
	       ".erofs_trusted; this one is not there");

	keys = fopen("/proc/keys", "r");
	while (keys && fgets(line, sizeof(line), keys))
		if (strstr(line, " .erofs_trusted:"))
			ring = strtol(line, NULL, 16);
	if (keys)
		fclose(keys);
	report("real root trusts the digest: keyctl add erofs_digest "
	       "sha256:... \"\" %:.erofs_trusted",
	       syscall(SYS_add_key, "erofs_digest", digest, NULL, 0, ring) < 0 ?
	       errno : 0, 0,
	       "only a task with CAP_SYS_ADMIN in the initial namespace may "
	       "add to the keyring");
	report("root of C mounts the image",
	       agent_do(&c, OP_CALL, 0, (long)op_mount_image, IMAGE), 0,
	       "regular file, fs-verity digest trusted, nobody writing it, "
	       "core format: all five conditions hold");
	report("root of C reads hello.txt from it",
	       agent_do(&c, OP_CALL, 0, (long)op_cat_image, NULL), 0,
	       "fs-verity checks each page as it is read");
	snprintf(path, sizeof(path), "/proc/%d/root/tmp/image/hello.txt",
		 c.pid);
	snprintf(line, sizeof(line), "real root looks at hello.txt from "
		 "outside: owned by kuid %ld",
		 stat(path, &st) ? -1L : (long)st.st_uid);
	report(line, 0, 0, "the superblock belongs to C: uid 0 of the image "
	       "is root of C, kuid 200000, never real root; its set-user-ID "
	       "files and device nodes count only inside C");

	report("alice turns fs-verity on for a changed copy, " CHANGED,
	       agent_do(&alice, OP_CALL, 0, (long)op_verity, CHANGED), 0,
	       "one file differs: another digest");
	report("root of C mounts the changed image",
	       agent_do(&c, OP_CALL, 0, (long)op_mount_image, CHANGED), EPERM,
	       "real root trusted the first image, not this one");
	printf("Why? Ask the tool, before trying:\n\n");
	nscaps("image", CHANGED, NULL, NULL);
out:
	agent_stop(&c);
	agent_stop(&alice);
	write_file(SWITCH, "0");
}

int main(void)
{
	struct agent a[NR_ROLES + 1] = {};
	int i;

	if (start_all(a))
		return 1;
	seed_walkthrough(a);
	for (i = 0; i <= NR_ROLES; i++)
		agent_stop(&a[i]);
	clamp_walkthrough();
	image_walkthrough();

	printf("%d steps, %d as the rules predict.\n", nsteps,
	       nsteps - nwrong);
	return nwrong ? 1 : 0;
}
