// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * librefpeer: path slots.  Each slot is a UDP source port of its own
 * socket, drawn at random from the configured span (512..1023 by
 * default), distinct within the QP, with a per-path sequence starting at a
 * random value.  New packets are sprayed round-robin over the slots, the
 * PSNs of the ACK rhythm on a rotor of their own, retransmissions on the
 * healthiest slot other than the one that lost them; a responder answers
 * on its own slot of the request's number, a duplicate on the next other
 * slot in turn (protocol.rst, Paths and Acknowledgements).
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/socket.h>

#include "rp_internal.h"

static int bind_sport(struct rp_ep *ep, u16 sport)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	int fd, buf = 4 << 20, one = 1, pmtu = IP_PMTUDISC_DO;

	fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -1;
	/* past net.core.wmem_max when privileged, as the receive socket */
	if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &buf, sizeof(buf)))
		setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &buf, sizeof(buf));
	/* as the kernel sends: DF set, UDP checksum 0 (the CRC covers it) */
	setsockopt(fd, IPPROTO_IP, IP_MTU_DISCOVER, &pmtu, sizeof(pmtu));
	setsockopt(fd, SOL_SOCKET, SO_NO_CHECK, &one, sizeof(one));
	sa.sin_addr = ep->cfg.local_ip;
	sa.sin_port = htons(sport);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		close(fd);
		return -1;
	}
	return fd;
}

int rp_paths_open(struct rp_ep *ep)
{
	unsigned int i, j, tries = 0;
	u16 sport;
	int fd;

	for (i = 0; i < ep->cfg.paths; i++) {
		struct rp_path *p = &ep->path[i];
again:
		if (++tries > 4096) {
			errno = EADDRINUSE;
			return -1;
		}
		sport = ep->cfg.sport_base + rp_rand(ep) % ep->cfg.sport_span;
		for (j = 0; j < i; j++)
			if (ep->path[j].sport == sport)
				goto again;
		fd = bind_sport(ep, sport);
		if (fd < 0) {
			if (errno == EADDRINUSE)
				goto again;
			return -1;
		}
		memset(p, 0, sizeof(*p));
		p->fd = fd;
		p->sport = sport;
		p->seq = (u32)rp_rand(ep);
		p->first_seq = p->seq;
		ep->npaths = i + 1;
	}
	return 0;
}

/*
 * PATH-15: a re-probe (PROBE with NEW_PORT) of slot @slot: this end takes
 * a fresh source port for its side of the slot too
 */
int rp_path_renew(struct rp_ep *ep, unsigned int slot)
{
	struct rp_path *p = &ep->path[slot];
	unsigned int j, tries;
	u16 sport;
	int fd;

	if (slot >= ep->npaths)
		return -1;
	for (tries = 0; tries < 4096; tries++) {
		sport = ep->cfg.sport_base + rp_rand(ep) % ep->cfg.sport_span;
		for (j = 0; j < ep->npaths; j++)
			if (ep->path[j].sport == sport)
				break;
		if (j < ep->npaths)
			continue;
		fd = bind_sport(ep, sport);
		if (fd < 0)
			continue;
		close(p->fd);
		p->fd = fd;
		p->sport = sport;
		ep->st.reprobes_rcvd++;
		return 0;
	}
	return -1;
}

void rp_paths_close(struct rp_ep *ep)
{
	unsigned int i;

	for (i = 0; i < ep->npaths; i++)
		close(ep->path[i].fd);
	ep->npaths = 0;
}

unsigned int rp_path_pick_new(struct rp_ep *ep, u32 psn)
{
	u32 every = ep->cfg.ack_every;

	if (ep->npaths == 1)
		return 0;
	if (psn % every == every - 1)
		return ep->rhythm_rotor++ % ep->npaths;
	return ep->sched_rotor++ % ep->npaths;
}

unsigned int rp_path_pick_retx(struct rp_ep *ep, unsigned int lost_on)
{
	unsigned int i, slot, best = lost_on;
	u32 best_loss = UINT32_MAX;

	if (ep->npaths == 1)
		return 0;
	for (i = 0; i < ep->npaths; i++) {
		slot = (ep->sched_rotor + i) % ep->npaths;
		if (slot == lost_on)
			continue;
		if (ep->path[slot].loss < best_loss) {
			best_loss = ep->path[slot].loss;
			best = slot;
		}
	}
	ep->sched_rotor++;
	return best;
}

unsigned int rp_path_reply(struct rp_ep *ep, u16 req_path, bool dup)
{
	unsigned int slot;

	if (req_path >= ep->npaths)
		return ep->sched_rotor++ % ep->npaths;
	if (!dup || ep->npaths == 1)
		return req_path;
	slot = (req_path + 1 + ep->dup_rotor++ % (ep->npaths - 1)) % ep->npaths;
	return slot;
}

/* EWMA in 1/1024 with gain 1/16, per loss or delivery */
void rp_path_loss(struct rp_ep *ep, unsigned int slot)
{
	struct rp_path *p = &ep->path[slot % ep->npaths];

	p->loss += (1024 - p->loss) / 16;
}

void rp_path_delivered(struct rp_ep *ep, unsigned int slot)
{
	struct rp_path *p = &ep->path[slot % ep->npaths];

	p->loss -= p->loss / 16;
}

void rp_path_rtt(struct rp_ep *ep, unsigned int slot, u32 rtt)
{
	struct rp_path *p = &ep->path[slot % ep->npaths];
	u32 d;

	if (!p->srtt) {
		p->srtt = rtt ? rtt : 1;
		p->rttvar = rtt / 2;
		return;
	}
	d = p->srtt > rtt ? p->srtt - rtt : rtt - p->srtt;
	p->rttvar = (3 * p->rttvar + d) / 4;
	p->srtt = (7 * p->srtt + rtt) / 8;
	if (!p->srtt)
		p->srtt = 1;
}

/* whether @seq is one of the last 4 * window transmissions on @slot */
bool rp_path_seq_recent(struct rp_ep *ep, unsigned int slot, u32 seq)
{
	struct rp_path *p;
	u32 back, sent, lim = 4 * ep->cfg.window;

	if (slot >= ep->npaths)
		return false;
	p = &ep->path[slot];
	back = p->seq - seq;	/* 1: the newest transmission */
	sent = p->seq - p->first_seq;
	return back >= 1 && back <= lim && back <= sent;
}
