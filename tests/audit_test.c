// SPDX-License-Identifier: GPL-2.0
/*
 * Audit records of the user namespace clamps, read from the audit netlink
 * socket as auditd reads them: AUDIT_USERNS_CAP_DENIED for a denial that
 * a ceiling, the mask or the owner's user namespace set decided, and
 * AUDIT_USERNS_CAP_CHANGE for each change of a set and each write of
 * kernel.userns_cap_mask.  The suite registers itself as the audit daemon
 * for each test, with one syscall rule loaded (a set change is recorded
 * only then, as capset() is), and checks every field the records promise.
 *
 *   init (real root: the suite, the audit daemon)
 *   +-- alice                    her own user namespace set
 *   +-- E  alice's, root of E is kuid 200000 (U_MAP), a victim
 *   +-- C  alice's, root of C is kuid 200000, with a network namespace
 */

#include <linux/audit.h>
#include <linux/netlink.h>
#include <sys/syscall.h>
#include <poll.h>
#include <pthread.h>

#include "kselftest_harness.h"
#include "nscaps_test.h"

#ifndef AUDIT_USERNS_CAP_DENIED
#error "these tests need the uapi headers of a kernel with the audit records"
#endif

#define NET		(1LL << CAP_NET_ADMIN)
#define KILL		(1LL << CAP_KILL)
/* How long a record may take to come through kauditd. */
#define RECORD_MS	5000

struct audit_nlmsg {
	struct nlmsghdr h;
	union {
		struct audit_status s;
		struct nlmsgerr err;
		char text[AUDIT_MESSAGE_TEXT_MAX];
	};
};

/* One request, answered by an acknowledgement; 0 or -errno. */
static int audit_request(int fd, __u16 type, const void *data, size_t len)
{
	struct audit_nlmsg m = {
		.h = {
			.nlmsg_len = NLMSG_LENGTH(len),
			.nlmsg_type = type,
			.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK,
		},
	};
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	ssize_t n;

	if (len > sizeof(m.text))
		return -EINVAL;
	memcpy(m.text, data, len);
	if (sendto(fd, &m, m.h.nlmsg_len, 0, (struct sockaddr *)&kernel,
		   sizeof(kernel)) < 0)
		return -errno;
	/* Records may come first: wait for the acknowledgement. */
	for (;;) {
		n = recv(fd, &m, sizeof(m), 0);
		if (n < 0)
			return -errno;
		if (m.h.nlmsg_type == NLMSG_ERROR)
			return m.err.error;
	}
}

static int audit_set(int fd, __u32 mask, __u32 enabled, __u32 pid)
{
	struct audit_status s = {
		.mask = mask,
		.enabled = enabled,
		.pid = pid,
	};

	return audit_request(fd, AUDIT_SET, &s, sizeof(s));
}

/*
 * A rule request (@op: AUDIT_ADD_RULE or AUDIT_DEL_RULE) on a socket of
 * its own: waiting for its acknowledgement on the daemon's socket would
 * pass over the records that come first, which a test must see.
 */
static int audit_rule(__u16 op, const struct audit_rule_data *r)
{
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_AUDIT);
	int err;

	if (fd < 0)
		return -errno;
	err = audit_request(fd, op, r, sizeof(*r));
	close(fd);
	return err;
}

/*
 * Add or delete the syscall rule "-a always,exit -F arch=b64 -S prctl":
 * with a syscall rule loaded, tasks' audit contexts are no longer dummies.
 */
static int audit_prctl_rule(__u16 op)
{
	struct audit_rule_data r = {
		.flags = AUDIT_FILTER_EXIT,
		.action = AUDIT_ALWAYS,
		.field_count = 1,
		.fields = { AUDIT_ARCH },
		.values = { AUDIT_ARCH_X86_64 },
		.fieldflags = { AUDIT_EQUAL },
	};

	r.mask[AUDIT_WORD(SYS_prctl)] |= AUDIT_BIT(SYS_prctl);
	return audit_rule(op, &r);
}

/*
 * Add or delete "-a always,exclude -F msgtype=1390 -F uid=@uid": denial
 * records of tasks whose uid is @uid are dropped.
 */
static int audit_exclude_rule(__u16 op, uid_t uid)
{
	struct audit_rule_data r = {
		.flags = AUDIT_FILTER_EXCLUDE,
		.action = AUDIT_ALWAYS,
		.field_count = 2,
		.fields = { AUDIT_MSGTYPE, AUDIT_UID },
		.values = { AUDIT_USERNS_CAP_DENIED, uid },
		.fieldflags = { AUDIT_EQUAL, AUDIT_EQUAL },
	};

	memset(r.mask, 0xff, sizeof(r.mask));
	return audit_rule(op, &r);
}

/* Enable audit and receive its records; the socket, or -errno. */
static int audit_open(void)
{
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_AUDIT);
	int err;

	if (fd < 0)
		return -errno;
	err = audit_set(fd, AUDIT_STATUS_ENABLED | AUDIT_STATUS_PID, 1,
			getpid());
	if (err) {
		close(fd);
		return err;
	}
	return fd;
}

/*
 * Read what kauditd still holds for us.  While the socket is full, kauditd
 * waits and the queue grows, and audit then holds back every sender of an
 * audit request, the daemon included, for up to a minute.
 */
static void audit_drain(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	struct audit_nlmsg m;

	while (poll(&p, 1, 500) == 1)
		if (recv(fd, &m, sizeof(m), 0) < 0 && errno != ENOBUFS)
			break;
}

static void audit_close(int fd)
{
	audit_drain(fd);
	audit_set(fd, AUDIT_STATUS_ENABLED | AUDIT_STATUS_PID, 0, 0);
	close(fd);
}

/*
 * The next record of type @a or @b, its text in @rec: the type, or 0 if
 * none came within RECORD_MS.  Records of other types are passed over.
 */
static int audit_next(int fd, int a, int b, char *rec, size_t size)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	struct audit_nlmsg m;
	size_t len;
	ssize_t n;

	while (poll(&p, 1, RECORD_MS) == 1) {
		n = recv(fd, &m, sizeof(m), 0);
		/* Records lost to a full socket are lost, as for auditd. */
		if (n < 0 && errno == ENOBUFS)
			continue;
		if (n < (ssize_t)NLMSG_HDRLEN)
			return 0;
		if (m.h.nlmsg_type != a && m.h.nlmsg_type != b)
			continue;
		len = n - NLMSG_HDRLEN;
		if (len >= size)
			len = size - 1;
		memcpy(rec, m.text, len);
		rec[len] = '\0';
		return m.h.nlmsg_type;
	}
	return 0;
}

/*
 * The value of field @name in @rec, "" if it has none.  Fields follow a
 * space: "audit(T:S): name=value name=value ...".
 */
static const char *field(const char *rec, const char *name)
{
	static char value[256];
	char key[64];
	const char *at;
	size_t n;

	snprintf(key, sizeof(key), " %s=", name);
	at = strstr(rec, key);
	if (!at)
		return "";
	at += strlen(key);
	n = strcspn(at, " ");
	if (n >= sizeof(value))
		n = sizeof(value) - 1;
	memcpy(value, at, n);
	value[n] = '\0';
	return value;
}

/*
 * The keys of a record's fields, in order, space-separated: a type keeps
 * one field set whatever its record says.
 */
static const char *keys(const char *rec, char *out, size_t size)
{
	const char *at = strstr(rec, "): ");
	size_t n = 0;

	out[0] = '\0';
	for (at = at ? at + 2 : rec; at && *at; at = strchr(at + 1, ' ')) {
		const char *key = at + 1, *eq = strchr(key, '=');
		size_t len = eq ? (size_t)(eq - key) : 0;

		if (!eq || memchr(key, ' ', len) || n + len + 2 > size)
			continue;
		if (n)
			out[n++] = ' ';
		memcpy(out + n, key, len);
		n += len;
		out[n] = '\0';
	}
	return out;
}

#define DENIAL_KEYS	"capability clamp userns cred_euid suppressed pid auid uid euid ses"
#define CHANGE_KEYS	"op capability old new ppid pid auid uid"

static const char *num(long long v)
{
	static char text[32];

	snprintf(text, sizeof(text), "%lld", v);
	return text;
}

static const char *hex(unsigned long long v)
{
	static char text[32];

	snprintf(text, sizeof(text), "%016llx", v);
	return text;
}

FIXTURE(audit) {
	int fd;
	long long saved;
	uid_t owner;
	struct agent alice, e, c;
	char rec[AUDIT_MESSAGE_TEXT_MAX];
};

/*
 * "alice", in these tests: a uid of the test's own, taken from its name,
 * so that each test draws on an audit budget of its own (a user's, once a
 * capability every five seconds) and not on one an earlier test spent.
 */
static uid_t test_owner(const char *name)
{
	unsigned int h = 5381;

	while (*name)
		h = h * 33 + (unsigned char)*name++;
	return 2000 + h % 30000;
}

FIXTURE_SETUP(audit)
{
	struct agent_spec alice = { .uid = KEEP };
	struct agent_spec c = { .uid = 0, .uid_map = U_MAP,
				.unshare = CLONE_NEWUSER | CLONE_NEWNET };

	self->owner = test_owner(_metadata->name);
	alice.creator = self->owner;
	c.creator = self->owner;

	self->saved = get_mask();
	ASSERT_EQ(0, agent_start(&self->alice, &alice));
	ASSERT_EQ(0, agent_start(&self->c, &c));
	self->fd = audit_open();
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, audit_prctl_rule(AUDIT_ADD_RULE));
}

FIXTURE_TEARDOWN(audit)
{
	agent_stop(&self->e);
	agent_stop(&self->c);
	agent_stop(&self->alice);
	set_mask(self->saved);
	/* Gone already if the test deleted it: ENOENT. */
	audit_prctl_rule(AUDIT_DEL_RULE);
	audit_close(self->fd);
}

/* E: alice's namespace, made with her set less @drop; its root a victim. */
static int start_e(struct agent *e, uid_t alice, long long drop)
{
	struct agent_spec s = { .creator = alice, .uid = 0, .uid_map = U_MAP,
				.unshare = CLONE_NEWUSER, .drop = drop,
				.victim = true };

	return agent_start(e, &s);
}

static int next_denial(FIXTURE_DATA(audit) *self)
{
	return audit_next(self->fd, AUDIT_USERNS_CAP_DENIED,
			  AUDIT_USERNS_CAP_DENIED, self->rec, sizeof(self->rec));
}

static int next_change(FIXTURE_DATA(audit) *self)
{
	return audit_next(self->fd, AUDIT_USERNS_CAP_CHANGE,
			  AUDIT_USERNS_CAP_CHANGE, self->rec, sizeof(self->rec));
}

/*
 * What every denial record must say: the capability, which clamp refused
 * it, and the namespace (that of task @in_ns) whose clamp it was.
 */
static void expect_denial(struct __test_metadata *const _metadata,
			  const char *rec, int cap, const char *clamp,
			  pid_t in_ns)
{
	EXPECT_STREQ(num(cap), field(rec, "capability"));
	EXPECT_STREQ(clamp, field(rec, "clamp"));
	EXPECT_STREQ(num(ns_ino(in_ns, "user")), field(rec, "userns"));
}

/* Real root writes the mask: who, what it was, what it is. */
TEST_F(audit, mask_write)
{
	ASSERT_EQ(0, set_mask(ALL_CAPS & ~NET));
	ASSERT_EQ(AUDIT_USERNS_CAP_CHANGE, next_change(self));
	TH_LOG("%s", self->rec);
	EXPECT_STREQ("mask_write", field(self->rec, "op"));
	EXPECT_STREQ("-1", field(self->rec, "capability"));
	EXPECT_STREQ(hex(self->saved), field(self->rec, "old"));
	EXPECT_STREQ(hex(ALL_CAPS & ~NET), field(self->rec, "new"));
	EXPECT_STREQ(num(getpid()), field(self->rec, "pid"));
	EXPECT_STREQ("0", field(self->rec, "uid"));
	EXPECT_STREQ("\"audit_test\"", field(self->rec, "comm"));
	EXPECT_STREQ("1", field(self->rec, "res"));
}

/*
 * Writing the mask it already holds changes nothing and records nothing,
 * as for a set: the next record is that of the write that changes it.
 */
TEST_F(audit, unchanged_mask_not_recorded)
{
	ASSERT_EQ(0, set_mask(self->saved));
	ASSERT_EQ(0, set_mask(ALL_CAPS & ~NET));
	ASSERT_EQ(AUDIT_USERNS_CAP_CHANGE, next_change(self));
	EXPECT_STREQ(hex(self->saved), field(self->rec, "old"));
	EXPECT_STREQ(hex(ALL_CAPS & ~NET), field(self->rec, "new")) {
		TH_LOG("a record for the unchanged write: %s", self->rec);
	}
}

/*
 * Root of C sets lo's MTU in its own network namespace while the mask
 * lacks CAP_NET_ADMIN: its kuid, not a uid of C, and C's inode number.
 */
TEST_F(audit, mask_denial)
{
	ASSERT_EQ(0, set_mask(ALL_CAPS & ~NET));
	EXPECT_EQ(EPERM, agent_do(&self->c, OP_LO_MTU, 0, 0, NULL));
	ASSERT_EQ(AUDIT_USERNS_CAP_DENIED, next_denial(self));
	TH_LOG("%s", self->rec);
	expect_denial(_metadata, self->rec, CAP_NET_ADMIN, "mask",
		      self->c.pid);
	EXPECT_STREQ(num(self->c.pid), field(self->rec, "pid"));
	EXPECT_STREQ("200000", field(self->rec, "uid"));
	EXPECT_STREQ("200000", field(self->rec, "euid"));
	EXPECT_STREQ("200000", field(self->rec, "cred_euid"));
	EXPECT_STREQ("\"audit_test\"", field(self->rec, "comm"));
	EXPECT_STREQ("0", field(self->rec, "res"));
}

/*
 * alice made E with her set less CAP_KILL, so E's ceiling lacks it: the
 * owner rule gives her no CAP_KILL over root of E (kuid 200000).
 */
TEST_F(audit, ceiling_denial)
{
	ASSERT_EQ(0, start_e(&self->e, self->owner, KILL));
	EXPECT_EQ(EPERM, agent_do(&self->alice, OP_KILL, self->e.pid, 0,
				  NULL));
	ASSERT_EQ(AUDIT_USERNS_CAP_DENIED, next_denial(self));
	TH_LOG("%s", self->rec);
	expect_denial(_metadata, self->rec, CAP_KILL, "ceiling", self->e.pid);
	EXPECT_STREQ(num(self->alice.pid), field(self->rec, "pid"));
	EXPECT_STREQ(num(self->owner), field(self->rec, "uid"));
}

/*
 * alice made E with a full set, then lowered CAP_KILL from hers: the
 * change is recorded, and her denial says the set decided it.
 */
TEST_F(audit, set_lower_and_set_denial)
{
	ASSERT_EQ(0, start_e(&self->e, self->owner, 0));
	ASSERT_EQ(0, agent_do(&self->alice, OP_USERNS_LOWER, 0, CAP_KILL,
			      NULL));
	ASSERT_EQ(AUDIT_USERNS_CAP_CHANGE, next_change(self));
	TH_LOG("%s", self->rec);
	EXPECT_STREQ("set_lower", field(self->rec, "op"));
	EXPECT_STREQ(num(CAP_KILL), field(self->rec, "capability"));
	EXPECT_STREQ(hex(ALL_CAPS), field(self->rec, "old"));
	EXPECT_STREQ(hex(ALL_CAPS & ~KILL), field(self->rec, "new"));
	EXPECT_STREQ(num(self->alice.pid), field(self->rec, "pid"));
	EXPECT_STREQ(num(self->owner), field(self->rec, "uid"));
	EXPECT_STREQ("1", field(self->rec, "res"));

	EXPECT_EQ(EPERM, agent_do(&self->alice, OP_KILL, self->e.pid, 0,
				  NULL));
	ASSERT_EQ(AUDIT_USERNS_CAP_DENIED, next_denial(self));
	TH_LOG("%s", self->rec);
	expect_denial(_metadata, self->rec, CAP_KILL, "set", self->e.pid);
}

/* Lowering what is already gone changes nothing and records nothing. */
TEST_F(audit, unchanged_set_not_recorded)
{
	ASSERT_EQ(0, agent_do(&self->alice, OP_USERNS_LOWER, 0, CAP_KILL,
			      NULL));
	ASSERT_EQ(0, agent_do(&self->alice, OP_USERNS_LOWER, 0, CAP_KILL,
			      NULL));
	ASSERT_EQ(0, agent_do(&self->alice, OP_USERNS_LOWER, 0, CAP_NET_RAW,
			      NULL));
	ASSERT_EQ(AUDIT_USERNS_CAP_CHANGE, next_change(self));
	EXPECT_STREQ(num(CAP_KILL), field(self->rec, "capability"));
	ASSERT_EQ(AUDIT_USERNS_CAP_CHANGE, next_change(self));
	EXPECT_STREQ(num(CAP_NET_RAW), field(self->rec, "capability")) {
		TH_LOG("a second record for CAP_KILL: %s", self->rec);
	}
}

/*
 * A set change is recorded as capset() is, only while a syscall rule is
 * loaded: with none, alice's lowering of CAP_KILL gives no record, and
 * the next one is that of CAP_NET_RAW, lowered once the rule is back.
 */
TEST_F(audit, set_change_needs_syscall_rule)
{
	ASSERT_EQ(0, audit_prctl_rule(AUDIT_DEL_RULE));
	ASSERT_EQ(0, agent_do(&self->alice, OP_USERNS_LOWER, 0, CAP_KILL,
			      NULL));
	ASSERT_EQ(0, audit_prctl_rule(AUDIT_ADD_RULE));
	ASSERT_EQ(0, agent_do(&self->alice, OP_USERNS_LOWER, 0, CAP_NET_RAW,
			      NULL));
	ASSERT_EQ(AUDIT_USERNS_CAP_CHANGE, next_change(self));
	EXPECT_STREQ(num(CAP_NET_RAW), field(self->rec, "capability")) {
		TH_LOG("a record without a syscall rule: %s", self->rec);
	}
}

/*
 * Denials are not held to syscall rules: with none loaded, root of C is
 * still recorded when the mask refuses it.
 */
TEST_F(audit, denial_without_syscall_rule)
{
	ASSERT_EQ(0, audit_prctl_rule(AUDIT_DEL_RULE));
	ASSERT_EQ(0, set_mask(ALL_CAPS & ~NET));
	EXPECT_EQ(EPERM, agent_do(&self->c, OP_LO_MTU, 0, 0, NULL));
	ASSERT_EQ(AUDIT_USERNS_CAP_DENIED, next_denial(self));
	expect_denial(_metadata, self->rec, CAP_NET_ADMIN, "mask",
		      self->c.pid);
}

static int clear_all(const struct agent_cmd *c)
{
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    prctl(PR_CAP_USERNS, PR_CAP_USERNS_CLEAR_ALL, 0, 0, 0))
		return errno;
	return 0;
}

TEST_F(audit, set_clear_all)
{
	ASSERT_EQ(0, agent_do(&self->alice, OP_CALL, 0, (long)clear_all,
			      NULL));
	ASSERT_EQ(AUDIT_USERNS_CAP_CHANGE, next_change(self));
	TH_LOG("%s", self->rec);
	EXPECT_STREQ("set_clear_all", field(self->rec, "op"));
	EXPECT_STREQ("-1", field(self->rec, "capability"));
	EXPECT_STREQ(hex(ALL_CAPS), field(self->rec, "old"));
	EXPECT_STREQ(hex(0), field(self->rec, "new"));
}

/*
 * One field set per type: a mask write, a lowering and a clearing give
 * change records with the same keys in the same order; a denial of the
 * task's own credentials and one of another's, denial records alike.
 */
TEST_F(audit, one_field_set_per_type)
{
	char first[512], other[512];

	ASSERT_EQ(0, set_mask(ALL_CAPS & ~NET));
	ASSERT_EQ(AUDIT_USERNS_CAP_CHANGE, next_change(self));
	keys(self->rec, first, sizeof(first));
	EXPECT_EQ(0, strncmp(first, CHANGE_KEYS, strlen(CHANGE_KEYS))) {
		TH_LOG("%s", self->rec);
	}
	ASSERT_EQ(0, agent_do(&self->alice, OP_USERNS_LOWER, 0, CAP_KILL,
			      NULL));
	ASSERT_EQ(AUDIT_USERNS_CAP_CHANGE, next_change(self));
	EXPECT_STREQ(first, keys(self->rec, other, sizeof(other)));
	ASSERT_EQ(0, agent_do(&self->alice, OP_CALL, 0, (long)clear_all,
			      NULL));
	ASSERT_EQ(AUDIT_USERNS_CAP_CHANGE, next_change(self));
	EXPECT_STREQ(first, keys(self->rec, other, sizeof(other)));

	EXPECT_EQ(EPERM, agent_do(&self->c, OP_LO_MTU, 0, 0, NULL));
	ASSERT_EQ(AUDIT_USERNS_CAP_DENIED, next_denial(self));
	keys(self->rec, first, sizeof(first));
	EXPECT_EQ(0, strncmp(first, DENIAL_KEYS, strlen(DENIAL_KEYS))) {
		TH_LOG("%s", self->rec);
	}
}

/* Denial records of type 1390 until the next change record; -1 if none. */
static int denials_until_change(FIXTURE_DATA(audit) *self)
{
	int n = 0, type;

	for (;;) {
		type = audit_next(self->fd, AUDIT_USERNS_CAP_DENIED,
				  AUDIT_USERNS_CAP_CHANGE, self->rec,
				  sizeof(self->rec));
		if (type == AUDIT_USERNS_CAP_CHANGE)
			return n;
		if (type != AUDIT_USERNS_CAP_DENIED)
			return -1;
		n++;
	}
}

/*
 * A budget records a denial of a capability once in each five-second
 * period, however often its tasks meet it: root of C, denied
 * CAP_NET_ADMIN thirty times in a row, gives one record (a write of the
 * mask closes each count), and one more once a period has passed, which
 * says how many it held back meanwhile (at least the other 29).
 */
TEST_F(audit, denial_once_an_interval)
{
	int i;

	ASSERT_EQ(0, set_mask(ALL_CAPS & ~NET));
	ASSERT_EQ(AUDIT_USERNS_CAP_CHANGE, next_change(self));
	for (i = 0; i < 30; i++)
		ASSERT_EQ(EPERM, agent_do(&self->c, OP_LO_MTU, 0, 0, NULL));
	ASSERT_EQ(0, set_mask(ALL_CAPS & ~NET & ~KILL));
	ASSERT_EQ(AUDIT_USERNS_CAP_DENIED, next_denial(self));
	/* The test's owner is a uid of its own: nothing held back before. */
	EXPECT_STREQ("0", field(self->rec, "suppressed"));
	EXPECT_EQ(0, denials_until_change(self));

	sleep(6);
	for (i = 0; i < 30; i++)
		ASSERT_EQ(EPERM, agent_do(&self->c, OP_LO_MTU, 0, 0, NULL));
	ASSERT_EQ(0, set_mask(ALL_CAPS & ~NET));
	ASSERT_EQ(AUDIT_USERNS_CAP_DENIED, next_denial(self));
	EXPECT_LE(29, atoi(field(self->rec, "suppressed"))) {
		TH_LOG("%s", self->rec);
	}
	EXPECT_EQ(0, denials_until_change(self));
}

/*
 * A budget is a user's, whatever namespace of theirs denies: root of C,
 * denied CAP_NET_ADMIN ten times, and root of D, another of alice's
 * containers, give one record between them; root of B, bob's, gives its
 * own; and C's denial of another capability gets one.
 *
 *   init
 *   +-- C  alice's, root kuid 200000: lo MTU x10   one record (alice)
 *   +-- D  alice's, root kuid 200000: lo MTU       none: alice's, spent
 *   +-- B  bob's, root kuid 1001: lo MTU           one record (bob)
 *   +-- C  CAP_NET_RAW refused by its set            one record (alice)
 */
static int raw_socket(const struct agent_cmd *c)
{
	int fd;

	if (userns_lower_nnp(1ULL << CAP_NET_RAW))
		return EIO;
	fd = socket(AF_INET, SOCK_RAW, IPPROTO_ICMP);
	if (fd >= 0) {
		close(fd);
		return 0;
	}
	return errno;
}

TEST_F(audit, budget_per_user)
{
	struct agent_spec ds = { .creator = self->owner, .uid = 0,
				 .uid_map = U_MAP,
				 .unshare = CLONE_NEWUSER | CLONE_NEWNET };
	/* Bob: a user of his own, the next uid. */
	struct agent_spec bs = { .creator = self->owner + 1, .uid = 0,
				 .unshare = CLONE_NEWUSER | CLONE_NEWNET };
	struct agent b;
	int i;

	ASSERT_EQ(0, set_mask(ALL_CAPS & ~NET));
	ASSERT_EQ(AUDIT_USERNS_CAP_CHANGE, next_change(self));
	/* D in the fixture's slot for E, which the teardown stops. */
	ASSERT_EQ(0, agent_start(&self->e, &ds));
	ASSERT_EQ(0, agent_start(&b, &bs));
	for (i = 0; i < 10; i++)
		ASSERT_EQ(EPERM, agent_do(&self->c, OP_LO_MTU, 0, 0, NULL));
	EXPECT_EQ(EPERM, agent_do(&self->e, OP_LO_MTU, 0, 0, NULL));
	EXPECT_EQ(EPERM, agent_do(&b, OP_LO_MTU, 0, 0, NULL));
	EXPECT_EQ(EPERM, agent_do(&self->c, OP_CALL, 0, (long)raw_socket,
				  NULL));
	/* The pid of B's root, read before it goes. */
	i = b.pid;
	agent_stop(&b);
	ASSERT_EQ(0, set_mask(ALL_CAPS & ~NET & ~KILL));

	ASSERT_EQ(AUDIT_USERNS_CAP_DENIED, next_denial(self));
	expect_denial(_metadata, self->rec, CAP_NET_ADMIN, "mask",
		      self->c.pid);
	ASSERT_EQ(AUDIT_USERNS_CAP_DENIED, next_denial(self));
	EXPECT_STREQ(num(CAP_NET_ADMIN), field(self->rec, "capability"));
	EXPECT_STREQ(num(i), field(self->rec, "pid")) {
		TH_LOG("not bob's: %s", self->rec);
	}
	ASSERT_EQ(AUDIT_USERNS_CAP_DENIED, next_denial(self));
	expect_denial(_metadata, self->rec, CAP_NET_RAW, "set", self->c.pid);
	/* Nothing else before the mask write: D's denial was not recorded. */
	EXPECT_EQ(0, denials_until_change(self));
}

/*
 * A record an exclude rule drops spends nothing: root of C (kuid 200000)
 * is denied while its records are excluded, then again once the rule is
 * gone, within the same five seconds, and that one is recorded.
 */
TEST_F(audit, excluded_spends_nothing)
{
	ASSERT_EQ(0, set_mask(ALL_CAPS & ~NET));
	ASSERT_EQ(AUDIT_USERNS_CAP_CHANGE, next_change(self));
	ASSERT_EQ(0, audit_exclude_rule(AUDIT_ADD_RULE, 200000));
	EXPECT_EQ(EPERM, agent_do(&self->c, OP_LO_MTU, 0, 0, NULL));
	ASSERT_EQ(0, audit_exclude_rule(AUDIT_DEL_RULE, 200000));
	EXPECT_EQ(EPERM, agent_do(&self->c, OP_LO_MTU, 0, 0, NULL));
	ASSERT_EQ(0, set_mask(ALL_CAPS & ~NET & ~KILL));
	EXPECT_EQ(1, denials_until_change(self));
}

/*
 * With audit disabled nothing is recorded: the first record once it is
 * enabled again is the mask write that follows, not the denial before.
 */
TEST_F(audit, nothing_while_disabled)
{
	ASSERT_EQ(0, set_mask(ALL_CAPS & ~NET));
	ASSERT_EQ(AUDIT_USERNS_CAP_CHANGE, next_change(self));
	ASSERT_EQ(0, audit_set(self->fd, AUDIT_STATUS_ENABLED, 0, 0));
	EXPECT_EQ(EPERM, agent_do(&self->c, OP_LO_MTU, 0, 0, NULL));
	ASSERT_EQ(0, set_mask(ALL_CAPS & ~NET & ~KILL));
	ASSERT_EQ(0, audit_set(self->fd, AUDIT_STATUS_ENABLED, 1, 0));
	ASSERT_EQ(0, set_mask(ALL_CAPS & ~NET));
	ASSERT_EQ(AUDIT_USERNS_CAP_CHANGE,
		  audit_next(self->fd, AUDIT_USERNS_CAP_DENIED,
			     AUDIT_USERNS_CAP_CHANGE, self->rec,
			     sizeof(self->rec))) {
		TH_LOG("recorded while disabled: %s", self->rec);
	}
	EXPECT_STREQ(hex(ALL_CAPS & ~NET & ~KILL),
		     field(self->rec, "old"));
}

/*
 * Denials made inside ptrace_may_access(), which holds the target's
 * task_lock: two tasks of C read each other's namespace links.  Both lack
 * CAP_SYS_PTRACE in their set, and each lacks a capability the other
 * holds, so each read reaches ns_capable(C, CAP_SYS_PTRACE) and the denial
 * path, whose first pass in each five seconds makes a record.  The path
 * must not take the reader's own task_lock: with two CPUs the two readers
 * would deadlock, each holding the lock the other waits for.
 *
 *   C   P (root of C, set less CAP_SYS_PTRACE, no_new_privs)
 *       +-- A  less CAP_CHOWN   reads /proc/B/ns/uts   EACCES
 *       +-- B  less CAP_FOWNER  reads /proc/A/ns/uts   EACCES
 */
#define PEER_READS	2000

/* Reads the other's pid from @from, then its link; stays until EOF. */
static void ptrace_peer(int from, int done, const char *caps)
{
	char path[64], link[64], st = 0;
	pid_t other;
	int i;

	/* Dumpable, or ptrace_may_access() refuses before any clamp. */
	if (read(from, &other, sizeof(other)) != sizeof(other) ||
	    set_caps(caps) || prctl(PR_SET_DUMPABLE, 1, 0, 0, 0))
		st = 2;
	snprintf(path, sizeof(path), "/proc/%d/ns/uts", other);
	for (i = 0; !st && i < PEER_READS; i++) {
		if (readlink(path, link, sizeof(link)) >= 0)
			st = 1;
		else if (errno != EACCES)
			st = 10 + errno;
	}
	if (write(done, &st, 1) != 1)
		_exit(3);
	while (read(from, &other, sizeof(other)) > 0)
		;
	_exit(st);
}

static int ptrace_peers(const struct agent_cmd *c)
{
	int to_a[2], to_b[2], done[2], i, err = 0;
	pid_t a, b;
	char st;

	if (userns_lower_nnp(1ULL << CAP_SYS_PTRACE) ||
	    pipe(to_a) || pipe(to_b) || pipe(done))
		return EIO;
	/* Each peer closes the writing ends, to see EOF when told to go. */
	a = fork();
	if (a == 0) {
		close(to_a[1]);
		close(to_b[1]);
		ptrace_peer(to_a[0], done[1], "all=ep cap_chown-ep");
	}
	b = fork();
	if (b == 0) {
		close(to_a[1]);
		close(to_b[1]);
		ptrace_peer(to_b[0], done[1], "all=ep cap_fowner-ep");
	}
	if (write(to_a[1], &b, sizeof(b)) != sizeof(b) ||
	    write(to_b[1], &a, sizeof(a)) != sizeof(a))
		err = EIO;
	for (i = 0; !err && i < 2; i++)
		if (read(done[0], &st, 1) != 1 || st)
			err = 1000 + st;
	close(to_a[1]);
	close(to_b[1]);
	waitpid(a, NULL, 0);
	waitpid(b, NULL, 0);
	return err;
}

/*
 * The daemon's side while the peers run: read every record, as auditd
 * would, keeping the first denial.  Unread, the records fill the backlog,
 * and the syscall records that follow each denial wait for room.
 */
struct daemon {
	int fd;
	volatile bool stop;
	int denials;
	char first[AUDIT_MESSAGE_TEXT_MAX];
};

static void *daemon_reads(void *arg)
{
	char rec[AUDIT_MESSAGE_TEXT_MAX];
	struct daemon *d = arg;

	/* Once told to stop, until RECORD_MS pass without a denial. */
	for (;;) {
		if (audit_next(d->fd, AUDIT_USERNS_CAP_DENIED,
			       AUDIT_USERNS_CAP_DENIED, rec,
			       sizeof(rec)) == AUDIT_USERNS_CAP_DENIED) {
			if (!d->denials++)
				memcpy(d->first, rec, sizeof(rec));
		} else if (d->stop) {
			return NULL;
		}
	}
}

TEST_F_TIMEOUT(audit, denial_under_target_lock, 600)
{
	struct daemon d = { .fd = self->fd };
	pthread_t reader;

	ASSERT_EQ(0, pthread_create(&reader, NULL, daemon_reads, &d));
	EXPECT_EQ(0, agent_do(&self->c, OP_CALL, 0, (long)ptrace_peers,
			      NULL));
	d.stop = true;
	pthread_join(reader, NULL);
	TH_LOG("%d denial records; the first: %s", d.denials, d.first);
	ASSERT_LT(0, d.denials);
	EXPECT_STREQ(num(CAP_SYS_PTRACE), field(d.first, "capability"));
	EXPECT_STREQ("set", field(d.first, "clamp"));
}

TEST_HARNESS_MAIN
