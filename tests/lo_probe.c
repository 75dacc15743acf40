// SPDX-License-Identifier: GPL-2.0
/*
 * The payload of the compat suite's sandboxes: is the loopback device of
 * the network namespace we run in set up?  A TCP connection to ourselves
 * over 127.0.0.1 and over ::1.  Static, so that it runs in any sandbox's
 * root, with nothing of it bound in.  Exit status 0 if both connect.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static int connect_self(int family, struct sockaddr *addr, socklen_t len)
{
	int l = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int s = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int err = 0;

	if (l < 0 || s < 0 || bind(l, addr, len) || listen(l, 1) ||
	    getsockname(l, addr, &len) || connect(s, addr, len))
		err = errno;
	if (l >= 0)
		close(l);
	if (s >= 0)
		close(s);
	return err;
}

int main(void)
{
	struct sockaddr_in a4 = { .sin_family = AF_INET,
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct sockaddr_in6 a6 = { .sin6_family = AF_INET6,
				   .sin6_addr = IN6ADDR_LOOPBACK_INIT };
	int e4 = connect_self(AF_INET, (struct sockaddr *)&a4, sizeof(a4));
	int e6 = connect_self(AF_INET6, (struct sockaddr *)&a6, sizeof(a6));

	printf("lo_probe: 127.0.0.1 %s, ::1 %s\n", e4 ? strerror(e4) : "ok",
	       e6 ? strerror(e6) : "ok");
	return e4 || e6;
}
