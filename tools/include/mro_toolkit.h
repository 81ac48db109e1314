/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the packet tools (mrofuzz, mroblind) share: the wire's CRC32C, a
 * monotonic clock in seconds, comma-separated number lists, a UDP socket
 * bound to a given source port, sending marked CE, a stop flag for
 * SIGTERM/SIGINT.
 */
#ifndef MRO_TOOLKIT_H
#define MRO_TOOLKIT_H

#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/* CRC32C (Castagnoli, reflected), as the wire's trailer; table-driven */
static inline uint32_t mro_crc32c(const uint8_t *p, size_t n)
{
	static uint32_t table[256];
	uint32_t c, i, k;

	if (!table[1]) {
		for (i = 0; i < 256; i++) {
			c = i;
			for (k = 0; k < 8; k++)
				c = (c & 1) ? (c >> 1) ^ 0x82f63b78 : c >> 1;
			table[i] = c;
		}
	}
	c = 0xffffffff;
	while (n--)
		c = table[(c ^ *p++) & 0xff] ^ (c >> 8);
	return c ^ 0xffffffff;
}

static inline double mro_now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* "1,0x20,3" into @v (at most @max); returns how many */
static inline int mro_parse_list(const char *s, uint32_t *v, int max)
{
	int n = 0;

	while (s && *s && n < max) {
		v[n++] = strtoul(s, NULL, 0);
		s = strchr(s, ',');
		if (s)
			s++;
	}
	return n;
}

/* a UDP socket of family @fam bound to source port @sport, or -1 */
static inline int mro_open_sport(int fam, uint16_t sport)
{
	struct sockaddr_storage ss = { 0 };
	int fd = socket(fam, SOCK_DGRAM, 0), one = 1;

	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (fam == AF_INET) {
		struct sockaddr_in *a = (struct sockaddr_in *)&ss;

		a->sin_family = AF_INET;
		a->sin_port = htons(sport);
	} else {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;

		a->sin6_family = AF_INET6;
		a->sin6_port = htons(sport);
	}
	if (bind(fd, (struct sockaddr *)&ss, fam == AF_INET ?
		 sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6))) {
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * Send @mh on @fd, marked CE (IP ECN 3; @v6: the socket is IPv6) when @ce;
 * after a full queue, wait a little.  Returns 1 when it went out.
 */
static inline int mro_send_ce(int fd, struct msghdr *mh, int ce, int v6)
{
	char cbuf[CMSG_SPACE(sizeof(int))] = { 0 };

	if (ce) {
		struct cmsghdr *cm;

		mh->msg_control = cbuf;
		mh->msg_controllen = sizeof(cbuf);
		cm = CMSG_FIRSTHDR(mh);
		cm->cmsg_level = v6 ? IPPROTO_IPV6 : IPPROTO_IP;
		cm->cmsg_type = v6 ? IPV6_TCLASS : IP_TOS;
		cm->cmsg_len = CMSG_LEN(sizeof(int));
		*(int *)CMSG_DATA(cm) = 3;
	}
	if (sendmsg(fd, mh, 0) >= 0)
		return 1;
	if (errno == ENOBUFS || errno == EAGAIN)
		usleep(200);
	return 0;
}

/* set by SIGTERM (a timeout) or SIGINT: stop sending, report what was sent */
static volatile sig_atomic_t mro_stopped;

static inline void mro_on_stop(int sig)
{
	(void)sig;
	mro_stopped = 1;
}

#endif /* MRO_TOOLKIT_H */
