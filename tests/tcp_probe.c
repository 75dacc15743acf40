// SPDX-License-Identifier: GPL-2.0
/*
 * The payload of the compat suite's rootless network rows: does a TCP
 * connection from a container's network namespace reach the host through
 * its tap device and the helper (slirp4netns, pasta) that serves it?
 *
 *   tcp_probe listen PORT       on the host: accept one connection on
 *                               127.0.0.1:PORT, print what it sent
 *   tcp_probe send ADDR PORT    in the container: connect to ADDR:PORT,
 *                               trying for 20 s, and send "hello"
 *
 * Static, so that it runs in any namespace.  Exit status 0 on success.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static int listen_once(struct sockaddr_in *a)
{
	int l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1, c;
	char buf[64];
	ssize_t n;

	a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (l < 0 ||
	    setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(l, (struct sockaddr *)a, sizeof(*a)) || listen(l, 1)) {
		perror("tcp_probe: listen");
		return 1;
	}
	/*
	 * A helper may connect and close before the container's connection
	 * comes through (a probe, an attempt the container gave up on):
	 * wait for the one that says hello, for 60 s at most.
	 */
	alarm(60);
	for (;;) {
		c = accept(l, NULL, NULL);
		if (c < 0) {
			perror("tcp_probe: accept");
			return 1;
		}
		n = read(c, buf, sizeof(buf) - 1);
		close(c);
		if (n <= 0)
			continue;
		buf[n] = '\0';
		printf("tcp_probe: received %s\n", buf);
		return strcmp(buf, "hello") != 0;
	}
}

static int send_hello(struct sockaddr_in *a)
{
	int err = 0;

	/* A connection the helper resets shows as EPIPE, not as a signal. */
	signal(SIGPIPE, SIG_IGN);
	for (int i = 0; i < 100; i++) {
		int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

		if (s < 0)
			break;
		if (!connect(s, (struct sockaddr *)a, sizeof(*a))) {
			err = write(s, "hello", 5) == 5 ? 0 : errno;
			close(s);
			if (err)
				fprintf(stderr, "tcp_probe: write: %s\n",
					strerror(err));
			return !!err;
		}
		err = errno;
		close(s);
		usleep(200000);
	}
	fprintf(stderr, "tcp_probe: connect: %s\n", strerror(err));
	return 1;
}

int main(int argc, char **argv)
{
	struct sockaddr_in a = { .sin_family = AF_INET };

	if (argc == 3 && !strcmp(argv[1], "listen")) {
		a.sin_port = htons(atoi(argv[2]));
		return listen_once(&a);
	}
	if (argc == 4 && !strcmp(argv[1], "send") &&
	    inet_pton(AF_INET, argv[2], &a.sin_addr) == 1) {
		a.sin_port = htons(atoi(argv[3]));
		return send_hello(&a);
	}
	fprintf(stderr, "usage: tcp_probe listen PORT | send ADDR PORT\n");
	return 2;
}
