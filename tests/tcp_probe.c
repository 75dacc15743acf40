// SPDX-License-Identifier: GPL-2.0
/*
 * The payload of the compat suite's rootless network rows: does a TCP
 * connection from a container's network namespace reach the host through
 * its tap device and the helper (slirp4netns, pasta) that serves it?
 *
 *   tcp_probe listen PORT       on the host: accept connections on PORT
 *                               (every address: slirp4netns and pasta
 *                               reach the host's loopback, a container
 *                               its uplink's address) until one says
 *                               hello, and print it
 *   tcp_probe send ADDR PORT    in the container: connect to ADDR:PORT,
 *                               send "hello" and wait for "ok", trying
 *                               for 40 s
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
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static int listen_once(struct sockaddr_in *a)
{
	int l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1, c;
	char buf[64];
	ssize_t n;

	a->sin_addr.s_addr = htonl(INADDR_ANY);
	if (l < 0 ||
	    setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(l, (struct sockaddr *)a, sizeof(*a)) || listen(l, 1)) {
		perror("tcp_probe: listen");
		return 1;
	}
	/*
	 * A helper may connect and close before the container's connection
	 * comes through (a probe, an attempt the container gave up on):
	 * wait for the one that says hello, for 110 s at most (a row has 120).
	 */
	alarm(110);
	for (;;) {
		c = accept(l, NULL, NULL);
		if (c < 0) {
			perror("tcp_probe: accept");
			return 1;
		}
		n = read(c, buf, sizeof(buf) - 1);
		if (n <= 0) {
			close(c);
			continue;
		}
		buf[n] = '\0';
		printf("tcp_probe: received %s\n", buf);
		/* The answer tells the sender its words went all the way. */
		if (write(c, "ok", 2) != 2)
			perror("tcp_probe: answer");
		close(c);
		return strcmp(buf, "hello") != 0;
	}
}

/*
 * One connection: send hello, then wait for the answer, so that a helper
 * that took the connection but never reached the host counts as a failure
 * to try again, and closing early never races the helper's forwarding.
 */
static int hello_once(int s, const struct sockaddr_in *a)
{
	struct timeval tv = { .tv_sec = 10 };
	char buf[8];

	if (connect(s, (const struct sockaddr *)a, sizeof(*a)) ||
	    write(s, "hello", 5) != 5 ||
	    setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)))
		return errno;
	if (read(s, buf, 2) != 2 || memcmp(buf, "ok", 2))
		return errno ?: ECONNRESET;
	return 0;
}

static int send_hello(const struct sockaddr_in *a)
{
	int err = 0;

	/* A connection the helper resets shows as EPIPE, not as a signal. */
	signal(SIGPIPE, SIG_IGN);
	for (time_t end = time(NULL) + 40; time(NULL) < end;) {
		int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

		if (s < 0)
			break;
		errno = 0;
		err = hello_once(s, a);
		close(s);
		if (!err)
			return 0;
		usleep(200000);
	}
	fprintf(stderr, "tcp_probe: no answer: %s\n", strerror(err));
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
