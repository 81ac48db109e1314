// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * mrofuzz: mutated metaroce packets at a host's metaroce UDP port, at rate.
 *
 * First it captures valid traffic (an AF_PACKET socket on -i, the UDP
 * datagrams to or from port -p, up to 4096 of them or -c seconds), then it
 * sends -n packets made from them to -t, from the source ports the
 * captured requests came from (the path ports 512-1023: root).  Each packet
 * is a captured one with one to three mutations:
 *
 *   flip     1-8 random bits flipped
 *   splice   a 4-byte-aligned stretch copied from another captured packet
 *            at the same offset (header fields of one kind in another)
 *   cut      truncated to a random length
 *   grow     random bytes appended, now and then past the MTU (the
 *            receiver reassembles IP fragments: a non-linear skb)
 *   opcode   the opcode byte and the 16 flag bits replaced at random
 *   aim      dqpn and sqpn set to a pair given with -q/-Q, the PSN moved a
 *            little (-q: QPNs at the target, -Q: their peers' QPNs)
 *   random   random bytes of random length
 *
 * and its CRC32C recomputed (9 times in 10: a wrong CRC stops at the first
 * check).  One in eight goes out marked CE (IP ECN 3), one in four over
 * IPv6 when -T gives the target's IPv6 address too.  Prints what it sent
 * by mutation; exit 0 when at least -n were sent, 1 otherwise, 2 on bad
 * usage.  SIGTERM or SIGINT ends the sending early, with the report.
 *
 * Usage: mrofuzz -t ADDR [-T ADDR6] [-i IF] [-p PORT] [-n COUNT] [-c SECS]
 *                [-q QPN,..] [-Q QPN,..] [-s SEED]
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/ip6.h>
#include <netinet/udp.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "mro_toolkit.h"
#include "mro_xorshift.h"

#define MAX_PKTS	4096
#define MAX_LEN		9000
#define BTH_LEN		28
#define N_SOCKS		8

enum { M_FLIP, M_SPLICE, M_CUT, M_GROW, M_OPCODE, M_AIM, M_RANDOM, M_N };
static const char *const m_name[M_N] = {
	"flip", "splice", "cut", "grow", "opcode", "aim", "random"
};

struct pkt {
	uint16_t len;
	uint16_t sport;
	int to_target;
	uint8_t *data;
};

static struct pkt corpus[MAX_PKTS];
static int ncorpus;
static uint64_t rng_state;

static uint32_t rnd(void)
{
	return mro_xorshift(&rng_state);
}

static void seal(uint8_t *p, size_t len)
{
	uint32_t c;

	if (len < 4)
		return;
	c = htonl(mro_crc32c(p, len - 4));
	memcpy(p + len - 4, &c, 4);
}

/* one datagram seen on the wire: keep its UDP payload */
static void keep(const uint8_t *udp, size_t len, int port, int to_target)
{
	const struct udphdr *u = (const struct udphdr *)udp;
	size_t n;

	if (len < sizeof(*u) || ncorpus >= MAX_PKTS || ntohs(u->dest) != port)
		return;
	n = len - sizeof(*u);
	if (n < BTH_LEN + 4 || n > MAX_LEN)
		return;
	corpus[ncorpus].data = malloc(n);
	if (!corpus[ncorpus].data)
		return;
	memcpy(corpus[ncorpus].data, udp + sizeof(*u), n);
	corpus[ncorpus].len = n;
	corpus[ncorpus].sport = ntohs(u->source);
	corpus[ncorpus].to_target = to_target;
	ncorpus++;
}

static void capture(const char *ifname, int port, double secs,
		    struct in_addr t4, const struct in6_addr *t6)
{
	struct sockaddr_ll sll = { .sll_family = AF_PACKET,
				   .sll_protocol = htons(ETH_P_ALL) };
	static uint8_t buf[65536];
	double end = mro_now_s() + secs;
	int fd;

	fd = socket(AF_PACKET, SOCK_DGRAM, htons(ETH_P_ALL));
	if (fd < 0) {
		perror("mrofuzz: AF_PACKET");
		return;
	}
	sll.sll_ifindex = if_nametoindex(ifname);
	if (!sll.sll_ifindex || bind(fd, (struct sockaddr *)&sll, sizeof(sll))) {
		perror("mrofuzz: bind to the interface");
		close(fd);
		return;
	}
	while (ncorpus < MAX_PKTS && mro_now_s() < end) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		ssize_t n;

		if (poll(&pfd, 1, 100) <= 0)
			continue;
		n = recv(fd, buf, sizeof(buf), 0);
		if (n < 20)
			continue;
		if ((buf[0] >> 4) == 4) {
			const struct iphdr *ip = (const struct iphdr *)buf;
			size_t hl = ip->ihl * 4;

			if (ip->protocol == IPPROTO_UDP && (size_t)n > hl &&
			    !(ntohs(ip->frag_off) & 0x3fff))
				keep(buf + hl, n - hl, port,
				     ip->daddr == t4.s_addr);
		} else if ((buf[0] >> 4) == 6 && n > 40) {
			const struct ip6_hdr *ip6 = (const struct ip6_hdr *)buf;

			if (ip6->ip6_nxt == IPPROTO_UDP)
				keep(buf + 40, n - 40, port,
				     t6 && !memcmp(&ip6->ip6_dst, t6, 16));
		}
	}
	close(fd);
}

static void put32(uint8_t *p, uint32_t v)
{
	v = htonl(v);
	memcpy(p, &v, 4);
}

static uint32_t get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return ntohl(v);
}

/* mutate @p (length *@len, room MAX_LEN) once; returns the mutation */
static int mutate(uint8_t *p, size_t *len, const uint32_t *q, const uint32_t *pq,
		  int nq)
{
	int m = rnd() % M_N, k;

	if (m == M_AIM && !nq)
		m = M_FLIP;
	switch (m) {
	case M_FLIP:
		for (k = 1 + rnd() % 8; k; k--)
			p[rnd() % *len] ^= 1 << (rnd() % 8);
		break;
	case M_SPLICE: {
		const struct pkt *o = &corpus[rnd() % ncorpus];
		size_t off = (rnd() % (*len / 4 + 1)) * 4, n = 4 * (1 + rnd() % 8);

		if (off < o->len) {
			if (off + n > o->len)
				n = o->len - off;
			if (off + n > *len)
				n = *len - off;
			memcpy(p + off, o->data + off, n);
		}
		break;
	}
	case M_CUT:
		*len = rnd() % *len;
		break;
	case M_GROW: {
		size_t room = (rnd() % 16) ? 256 : MAX_LEN - *len, n, i;

		if (room > MAX_LEN - *len)
			room = MAX_LEN - *len;
		n = room ? 1 + rnd() % room : 0;
		for (i = 0; i < n; i++)
			p[*len + i] = rnd();
		*len += n;
		break;
	}
	case M_OPCODE:
		if (*len >= 4) {
			p[1] = rnd() % 3 ? 0x01 + rnd() % 0x31 : rnd();
			p[2] = rnd();
			p[3] = rnd();
		}
		break;
	case M_AIM:
		if (*len >= 16) {
			k = rnd() % nq;
			put32(p + 4, q[k] & 0xffffff);
			put32(p + 8, pq[k] & 0xffffff);
			put32(p + 12, get32(p + 12) + (int32_t)(rnd() % 1024) - 512);
		}
		break;
	default: {
		size_t i;

		*len = rnd() % 1500;
		for (i = 0; i < *len; i++)
			p[i] = rnd();
		break;
	}
	}
	return m;
}

static void usage(void)
{
	fprintf(stderr, "usage: mrofuzz -t ADDR [-T ADDR6] [-i IF] [-p PORT] [-n COUNT] [-c SECS]\n"
			"               [-q QPN,..] [-Q QPN,..] [-s SEED]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *ifname = "eth0", *t4s = NULL, *t6s = NULL;
	unsigned long count = 1000000, sent = 0, errs = 0, by[M_N] = { 0 };
	uint32_t q[64], pq[64];
	int port = 4796, c, nq = 0, npq = 0, fd4[N_SOCKS], fd6[N_SOCKS];
	int nfd4 = 0, nfd6 = 0, i, have6 = 0;
	struct sockaddr_in6 dst6 = { .sin6_family = AF_INET6 };
	struct sockaddr_in dst4 = { .sin_family = AF_INET };
	static uint8_t buf[MAX_LEN + 16];
	double secs = 20, start;
	unsigned long seed = 1;

	while ((c = getopt(argc, argv, "t:T:i:p:n:c:q:Q:s:")) != -1) {
		switch (c) {
		case 't': t4s = optarg; break;
		case 'T': t6s = optarg; break;
		case 'i': ifname = optarg; break;
		case 'p': port = atoi(optarg); break;
		case 'n': count = strtoul(optarg, NULL, 0); break;
		case 'c': secs = atof(optarg); break;
		case 'q': nq = mro_parse_list(optarg, q, 64); break;
		case 'Q': npq = mro_parse_list(optarg, pq, 64); break;
		case 's': seed = strtoul(optarg, NULL, 0); break;
		default: usage();
		}
	}
	if (!t4s || inet_pton(AF_INET, t4s, &dst4.sin_addr) != 1 ||
	    (t6s && inet_pton(AF_INET6, t6s, &dst6.sin6_addr) != 1) || nq != npq)
		usage();
	have6 = !!t6s;
	dst4.sin_port = htons(port);
	dst6.sin6_port = htons(port);
	rng_state = seed * 0x9e3779b97f4a7c15ULL + 1;
	setvbuf(stdout, NULL, _IOLBF, 0);	/* "captured" is awaited */

	capture(ifname, port, secs, dst4.sin_addr, have6 ? &dst6.sin6_addr : NULL);
	printf("mrofuzz: captured %d datagrams on %s\n", ncorpus, ifname);
	if (!ncorpus)
		return 1;
	/* the ports the captured requests to the target came from */
	for (i = 0; i < ncorpus && nfd4 < N_SOCKS; i++) {
		int fd;

		if (!corpus[i].to_target || corpus[i].sport < 512 ||
		    corpus[i].sport > 1023)
			continue;
		fd = mro_open_sport(AF_INET, corpus[i].sport);
		if (fd >= 0)
			fd4[nfd4++] = fd;
		if (have6 && nfd6 < N_SOCKS) {
			fd = mro_open_sport(AF_INET6, corpus[i].sport);
			if (fd >= 0)
				fd6[nfd6++] = fd;
		}
	}
	for (i = 0; nfd4 < 2 && i < 64; i++) {	/* none seen: any path port */
		int fd = mro_open_sport(AF_INET, 512 + rnd() % 512);

		if (fd >= 0)
			fd4[nfd4++] = fd;
	}
	for (i = 0; have6 && nfd6 < 2 && i < 64; i++) {
		int fd = mro_open_sport(AF_INET6, 512 + rnd() % 512);

		if (fd >= 0)
			fd6[nfd6++] = fd;
	}
	if (!nfd4 || (have6 && !nfd6)) {
		fprintf(stderr, "mrofuzz: no source port in 512-1023 (root?)\n");
		return 1;
	}

	signal(SIGTERM, mro_on_stop);
	signal(SIGINT, mro_on_stop);
	start = mro_now_s();
	while (sent < count && !mro_stopped) {
		const struct pkt *o = &corpus[rnd() % ncorpus];
		int v6 = have6 && !(rnd() % 4), ce = !(rnd() % 8), k, m = 0;
		struct iovec iov = { .iov_base = buf };
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
		size_t len = o->len;

		memcpy(buf, o->data, len);
		for (k = 1 + (rnd() % 4 == 0) + (rnd() % 16 == 0); k; k--) {
			m = mutate(buf, &len, q, pq, nq);
			by[m]++;
			if (!len)
				break;
		}
		if (m != M_RANDOM && rnd() % 10)
			seal(buf, len);
		iov.iov_len = len;
		if (v6) {
			mh.msg_name = &dst6;
			mh.msg_namelen = sizeof(dst6);
		} else {
			mh.msg_name = &dst4;
			mh.msg_namelen = sizeof(dst4);
		}
		if (!mro_send_ce(v6 ? fd6[rnd() % nfd6] : fd4[rnd() % nfd4], &mh,
				 ce, v6)) {
			if (++errs > count)
				break;	/* nothing goes out: give up */
			continue;
		}
		sent++;
	}
	printf("mrofuzz: %lu packets to %s%s%s:%d in %.1f s (%lu send errors); mutations:",
	       sent, t4s, have6 ? " and " : "", have6 ? t6s : "", port,
	       mro_now_s() - start, errs);
	for (i = 0; i < M_N; i++)
		printf(" %s %lu", m_name[i], by[i]);
	printf("\n");
	return sent >= count ? 0 : 1;
}
