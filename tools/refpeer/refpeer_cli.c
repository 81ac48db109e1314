// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * refpeer: command-line front end of librefpeer.  One process is one RC
 * QP.  The server is the passive end (it registers a memory region and
 * posts receive buffers), the client drives a workload of WRITEs, SENDs
 * and READs against it and both verify every byte.  Connection setup
 * comes from the command line or from the TCP side channel described in
 * Documentation/metaroce/refpeer.rst.
 */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/random.h>
#include <sys/socket.h>

#include "refpeer.h"
#include "rp_pattern.h"

#define MAX_POSTED	64
#define RECV_DEPTH	128
#define UD_DEPTH	2048

struct opts {
	struct rp_cfg cfg;
	bool server;
	const char *connect;	/* client: side channel host:port */
	u16 listen_port;	/* server: side channel port */
	u64 bytes;
	u32 msg;
	bool op_write, op_send, op_read, op_atomic;
	bool ud;
	u64 peer_va;
	u32 peer_rkey;
	u64 peer_len;
	u64 atomic_va;
	u64 seed;
	bool quiet;
};

static u64 parse_size(const char *s)
{
	char *end;
	u64 v = strtoull(s, &end, 0);

	switch (*end) {
	case 'k': case 'K': return v << 10;
	case 'm': case 'M': return v << 20;
	case 'g': case 'G': return v << 30;
	default: return v;
	}
}

static int parse_key(const char *hex, struct rp_cfg *cfg)
{
	size_t n = strlen(hex), i;
	unsigned int b;

	if (n != 32 && n != 64)
		return -1;
	for (i = 0; i < n / 2; i++) {
		if (sscanf(hex + 2 * i, "%2x", &b) != 1)
			return -1;
		cfg->key[i] = b;
	}
	cfg->key_len = n / 2;
	return 0;
}

static void usage(void)
{
	fprintf(stderr,
"usage: refpeer --server|--client [options]\n"
"  -l, --local IP        local IPv4 address (packets leave from it)\n"
"  -r, --peer IP         peer IPv4 address (side channel: learned)\n"
"      --port N          local metaroce UDP port (4796)\n"
"      --peer-port N     peer's metaroce UDP port (4796)\n"
"      --listen N        server: TCP side channel port\n"
"      --connect IP:N    client: TCP side channel of the server\n"
"      --qpn N --psn N   local QPN and first PSN (random)\n"
"      --peer-qpn N --peer-psn N --peer-rkey N --peer-va N --peer-len N\n"
"                        the peer's, without side channel\n"
"      --paths N         path slots / UDP source ports (1)\n"
"      --sport-base N --sport-span N --no-sport-check\n"
"      --mtu N           payload bytes per packet (1384)\n"
"      --window N        PSNs in flight (512)\n"
"      --ack-every N --msg-window N --sack-bits N   contract overrides\n"
"      --prot none|auth|encrypt  --key HEX (32 or 64 digits)\n"
"      --key-id N --prev-key-id N\n"
"      --drop PCT --reorder PCT   lose/reorder own outgoing packets\n"
"      --bytes SIZE --msg SIZE    workload (64M, 1M)\n"
"      --ops LIST        client: write,send,read,atomic (write,send,read)\n"
"      --ud --qkey N     a UD QP: the client sends --bytes in datagrams\n"
"      --retry N --timeout N --rto-min-us N --seed N -v -q\n");
	exit(2);
}

enum {
	O_PORT = 256, O_PEER_PORT, O_LISTEN, O_CONNECT, O_QPN, O_PSN,
	O_PEER_QPN, O_PEER_PSN, O_PEER_RKEY, O_PEER_VA, O_PEER_LEN, O_PATHS,
	O_SPORT_BASE, O_SPORT_SPAN, O_NO_SPORT_CHECK, O_MTU, O_WINDOW,
	O_ACK_EVERY, O_MSG_WINDOW, O_SACK_BITS, O_PROT, O_KEY, O_KEY_ID,
	O_PREV_KEY_ID, O_DROP, O_REORDER, O_BYTES, O_MSG, O_OPS, O_RETRY,
	O_TIMEOUT, O_RTO_MIN, O_SEED, O_SERVER, O_CLIENT, O_UD, O_QKEY,
};

static const struct option longopts[] = {
	{ "local", 1, NULL, 'l' }, { "peer", 1, NULL, 'r' },
	{ "port", 1, NULL, O_PORT }, { "peer-port", 1, NULL, O_PEER_PORT },
	{ "listen", 1, NULL, O_LISTEN }, { "connect", 1, NULL, O_CONNECT },
	{ "qpn", 1, NULL, O_QPN }, { "psn", 1, NULL, O_PSN },
	{ "peer-qpn", 1, NULL, O_PEER_QPN }, { "peer-psn", 1, NULL, O_PEER_PSN },
	{ "peer-rkey", 1, NULL, O_PEER_RKEY }, { "peer-va", 1, NULL, O_PEER_VA },
	{ "peer-len", 1, NULL, O_PEER_LEN }, { "paths", 1, NULL, O_PATHS },
	{ "sport-base", 1, NULL, O_SPORT_BASE },
	{ "sport-span", 1, NULL, O_SPORT_SPAN },
	{ "no-sport-check", 0, NULL, O_NO_SPORT_CHECK },
	{ "mtu", 1, NULL, O_MTU }, { "window", 1, NULL, O_WINDOW },
	{ "ack-every", 1, NULL, O_ACK_EVERY },
	{ "msg-window", 1, NULL, O_MSG_WINDOW },
	{ "sack-bits", 1, NULL, O_SACK_BITS }, { "prot", 1, NULL, O_PROT },
	{ "key", 1, NULL, O_KEY }, { "key-id", 1, NULL, O_KEY_ID },
	{ "prev-key-id", 1, NULL, O_PREV_KEY_ID }, { "drop", 1, NULL, O_DROP },
	{ "reorder", 1, NULL, O_REORDER }, { "bytes", 1, NULL, O_BYTES },
	{ "msg", 1, NULL, O_MSG }, { "ops", 1, NULL, O_OPS },
	{ "retry", 1, NULL, O_RETRY }, { "timeout", 1, NULL, O_TIMEOUT },
	{ "rto-min-us", 1, NULL, O_RTO_MIN }, { "seed", 1, NULL, O_SEED },
	{ "server", 0, NULL, O_SERVER }, { "client", 0, NULL, O_CLIENT },
	{ "ud", 0, NULL, O_UD }, { "qkey", 1, NULL, O_QKEY },
	{ "verbose", 0, NULL, 'v' }, { "quiet", 0, NULL, 'q' },
	{ "help", 0, NULL, 'h' }, { NULL, 0, NULL, 0 },
};

static u32 rand24(void)
{
	u32 v = 0;

	while (!(v & 0xffffff))
		if (getrandom(&v, sizeof(v), 0) != sizeof(v))
			v = (u32)getpid() * 2654435761U;
	return v & 0xffffff;
}

static void parse_args(int argc, char **argv, struct opts *o)
{
	struct rp_cfg *c = &o->cfg;
	bool role = false;
	char *tok, *save;
	int ch;

	memset(o, 0, sizeof(*o));
	rp_cfg_default(c);
	c->qpn = rand24();
	c->sq_psn = rand24();
	c->qkey = 0x11111111;
	o->bytes = 64 << 20;
	o->msg = 1 << 20;
	o->op_write = o->op_send = o->op_read = true;
	while ((ch = getopt_long(argc, argv, "l:r:vqh", longopts, NULL)) != -1) {
		switch (ch) {
		case 'l':
			if (inet_pton(AF_INET, optarg, &c->local_ip) != 1)
				usage();
			break;
		case 'r':
			if (inet_pton(AF_INET, optarg, &c->peer_ip) != 1)
				usage();
			break;
		case O_PORT: c->port = atoi(optarg); break;
		case O_PEER_PORT: c->peer_port = atoi(optarg); break;
		case O_LISTEN: o->listen_port = atoi(optarg); break;
		case O_CONNECT: o->connect = optarg; break;
		case O_QPN: c->qpn = strtoul(optarg, NULL, 0); break;
		case O_PSN: c->sq_psn = strtoul(optarg, NULL, 0); break;
		case O_PEER_QPN: c->peer_qpn = strtoul(optarg, NULL, 0); break;
		case O_PEER_PSN: c->rq_psn = strtoul(optarg, NULL, 0); break;
		case O_PEER_RKEY: o->peer_rkey = strtoul(optarg, NULL, 0); break;
		case O_PEER_VA: o->peer_va = strtoull(optarg, NULL, 0); break;
		case O_PEER_LEN: o->peer_len = parse_size(optarg); break;
		case O_PATHS: c->paths = atoi(optarg); break;
		case O_SPORT_BASE: c->sport_base = atoi(optarg); break;
		case O_SPORT_SPAN: c->sport_span = atoi(optarg); break;
		case O_NO_SPORT_CHECK: c->check_sport = false; break;
		case O_MTU: c->mtu = atoi(optarg); break;
		case O_WINDOW: c->window = atoi(optarg); break;
		case O_ACK_EVERY: c->ack_every = atoi(optarg); break;
		case O_MSG_WINDOW: c->msg_window = atoi(optarg); break;
		case O_SACK_BITS: c->sack_bits = atoi(optarg); break;
		case O_PROT:
			if (!strcmp(optarg, "none"))
				c->prot = METAROCE_PROT_NONE;
			else if (!strcmp(optarg, "auth"))
				c->prot = METAROCE_PROT_AUTH;
			else if (!strcmp(optarg, "encrypt"))
				c->prot = METAROCE_PROT_ENCRYPT;
			else
				usage();
			break;
		case O_KEY:
			if (parse_key(optarg, c))
				usage();
			break;
		case O_KEY_ID: c->key_id = atoi(optarg); break;
		case O_PREV_KEY_ID: c->prev_key_id = atoi(optarg); break;
		case O_DROP: c->drop = atof(optarg) / 100; break;
		case O_REORDER: c->reorder = atof(optarg) / 100; break;
		case O_BYTES: o->bytes = parse_size(optarg); break;
		case O_MSG: o->msg = parse_size(optarg); break;
		case O_OPS:
			o->op_write = o->op_send = o->op_read = false;
			for (tok = strtok_r(optarg, ",", &save); tok;
			     tok = strtok_r(NULL, ",", &save)) {
				if (!strcmp(tok, "write"))
					o->op_write = true;
				else if (!strcmp(tok, "send"))
					o->op_send = true;
				else if (!strcmp(tok, "read"))
					o->op_read = true;
				else if (!strcmp(tok, "atomic"))
					o->op_atomic = true;
				else
					usage();
			}
			break;
		case O_RETRY: c->retry_cnt = atoi(optarg); break;
		case O_TIMEOUT: c->timeout = atoi(optarg); break;
		case O_RTO_MIN: c->rto_min_us = atoi(optarg); break;
		case O_SEED: o->seed = strtoull(optarg, NULL, 0); break;
		case O_SERVER: o->server = true; role = true; break;
		case O_CLIENT: o->server = false; role = true; break;
		case O_UD: o->ud = true; c->ud = true; break;
		case O_QKEY: c->qkey = strtoul(optarg, NULL, 0); break;
		case 'v': c->verbose++; break;
		case 'q': o->quiet = true; break;
		default: usage();
		}
	}
	if (!role || !c->local_ip.s_addr || !o->msg || (o->msg & 7) ||
	    o->msg > 0x40000000)
		usage();
	if (!o->seed)
		o->seed = ((u64)rand24() << 24) | rand24();
	c->seed = o->seed ^ (o->server ? 0x5e5e5e : 0xc1c1c1);
}

/* ---- TCP side channel: one text line per message ---- */

static int sc_fd = -1;
static char sc_buf[1024];
static size_t sc_len;

static int sc_setup(struct opts *o)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	int one = 1, lfd;
	char host[64], *colon;

	if (o->server) {
		lfd = socket(AF_INET, SOCK_STREAM, 0);
		setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		sa.sin_addr = o->cfg.local_ip;
		sa.sin_port = htons(o->listen_port);
		if (bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) ||
		    listen(lfd, 1)) {
			perror("refpeer: side channel");
			return -1;
		}
		sc_fd = accept(lfd, NULL, NULL);
		close(lfd);
	} else {
		snprintf(host, sizeof(host), "%s", o->connect);
		colon = strchr(host, ':');
		if (!colon)
			return -1;
		*colon = 0;
		if (inet_pton(AF_INET, host, &sa.sin_addr) != 1)
			return -1;
		sa.sin_port = htons(atoi(colon + 1));
		sc_fd = socket(AF_INET, SOCK_STREAM, 0);
		for (one = 0; one < 100; one++) {
			if (!connect(sc_fd, (struct sockaddr *)&sa, sizeof(sa)))
				break;
			usleep(50000);
		}
		if (one == 100) {
			perror("refpeer: side channel connect");
			return -1;
		}
	}
	return sc_fd < 0 ? -1 : 0;
}

static void sc_send(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void sc_send(const char *fmt, ...)
{
	char line[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (write(sc_fd, line, n) != n)
		perror("refpeer: side channel write");
}

/* a complete line into @out; 1 got one, 0 none yet, -1 closed */
static int sc_recv(char *out, size_t room, int timeout_ms)
{
	struct pollfd pfd = { .fd = sc_fd, .events = POLLIN };
	char *nl;
	ssize_t n;

	for (;;) {
		nl = memchr(sc_buf, '\n', sc_len);
		if (nl) {
			size_t l = nl - sc_buf;

			if (l >= room)
				l = room - 1;
			memcpy(out, sc_buf, l);
			out[l] = 0;
			sc_len -= nl + 1 - sc_buf;
			memmove(sc_buf, nl + 1, sc_len);
			return 1;
		}
		if (poll(&pfd, 1, timeout_ms) <= 0)
			return 0;
		n = read(sc_fd, sc_buf + sc_len, sizeof(sc_buf) - sc_len - 1);
		if (n <= 0)
			return -1;
		sc_len += n;
	}
}

/*
 * The client's wait for the server's RESULT line, running the endpoint
 * meanwhile: 0 if it says ok, -1 if it says otherwise or the side
 * channel closed (both reported on stderr).
 */
static int sc_wait_result(struct rp_ep *ep)
{
	char line[512];
	int r;

	for (;;) {
		rp_poll(ep, 2);
		r = sc_recv(line, sizeof(line), 0);
		if (r < 0) {
			fprintf(stderr, "refpeer client: side channel closed\n");
			return -1;
		}
		if (r > 0 && !strncmp(line, "RESULT", 6))
			break;
	}
	if (strncmp(line, "RESULT ok", 9)) {
		fprintf(stderr, "refpeer client: server says %s\n", line);
		return -1;
	}
	return 0;
}

static const char *field(const char *line, const char *key)
{
	static char val[128];
	const char *p = strstr(line, key);
	size_t i = 0;

	if (!p)
		return "0";
	p += strlen(key);
	while (*p && *p != ' ' && i < sizeof(val) - 1)
		val[i++] = *p++;
	val[i] = 0;
	return val;
}

/* ---- roles ---- */

static void print_stats(struct rp_ep *ep, const char *who)
{
	const struct rp_stats *s = rp_stats(ep);
	unsigned int i, used = 0;

	for (i = 0; i < RP_MAX_PATHS; i++)
		used += s->path_tx[i] != 0;
	fprintf(stderr, "refpeer %s: paths used %u, source ports", who, used);
	for (i = 0; i < RP_MAX_PATHS && rp_path_sport(ep, i); i++)
		fprintf(stderr, " %u", rp_path_sport(ep, i));
	fputc('\n', stderr);

	fprintf(stderr, "refpeer %s: tx %llu pkts (sim drop %llu, sim reorder %llu), rx %llu, retx %llu, rto %llu, tlp %llu, acks %llu/%llu, dup %llu, ooo %llu, drops wire %llu auth %llu replay %llu unkeyed %llu no-wqe %llu field %llu\n",
		who, (unsigned long long)s->tx_pkts,
		(unsigned long long)s->tx_dropped_sim,
		(unsigned long long)s->tx_reordered_sim,
		(unsigned long long)s->rx_pkts,
		(unsigned long long)s->retransmits,
		(unsigned long long)s->rto,
		(unsigned long long)s->tlp_probes,
		(unsigned long long)s->acks_sent,
		(unsigned long long)s->acks_rcvd,
		(unsigned long long)s->rx_duplicate,
		(unsigned long long)s->rx_out_of_order,
		(unsigned long long)s->rx_drop_wire,
		(unsigned long long)s->rx_drop_auth,
		(unsigned long long)s->rx_drop_replay,
		(unsigned long long)s->rx_drop_unkeyed,
		(unsigned long long)s->rx_drop_no_wqe,
		(unsigned long long)s->rx_drop_field);
}

static int run_server(struct opts *o, struct rp_ep *ep)
{
	u64 len = o->bytes, send_msgs = 0, send_bytes = 0, bad = 0, off;
	u8 *mr, *rbuf;
	struct rp_wc wc[32];
	char line[512];
	char done_line[512];
	bool done_seen = false;
	u64 writes_b;
	int i, n, r;
	u32 rkey;

	/* the data, then 64 bytes whose last 8 are the atomics' target */
	mr = calloc(1, len + 64);
	rbuf = malloc((size_t)(o->ud ? UD_DEPTH : RECV_DEPTH) *
		      (o->ud ? o->cfg.mtu : o->msg));
	if (!mr || !rbuf)
		return 1;
	rp_pat_fill(mr, len, o->seed ^ RP_PAT_REGION, 0);
	rkey = rp_reg_mr(ep, mr, len + 64, RP_ACCESS_REMOTE_WRITE |
			 RP_ACCESS_REMOTE_READ | RP_ACCESS_REMOTE_ATOMIC);
	if (o->ud)	/* datagrams of at most the MTU, a deeper queue */
		o->msg = o->cfg.mtu;
	for (i = 0; i < (o->ud ? UD_DEPTH : RECV_DEPTH); i++)
		rp_post_recv(ep, i, rbuf + (size_t)i * o->msg, o->msg);
	if (sc_fd >= 0)
		sc_send("MR va=%llu rkey=%u len=%llu\n",
			(unsigned long long)(uintptr_t)mr, rkey,
			(unsigned long long)len + 64);
	else
		printf("refpeer server: qpn=%u psn=%u rkey=%u va=%llu len=%llu\n",
		       o->cfg.qpn, o->cfg.sq_psn, rkey,
		       (unsigned long long)(uintptr_t)mr,
		       (unsigned long long)len + 64);
	fflush(stdout);
	for (;;) {
		n = rp_poll(ep, done_seen ? 20 : 2);
		if (n == 0 && done_seen)
			break;	/* nothing more came: check */
		if (n < 0) {
			fprintf(stderr, "refpeer server: %s\n", rp_error(ep));
			print_stats(ep, "server");
			return 1;
		}
		n = rp_poll_cq(ep, wc, 32);
		for (i = 0; i < n; i++) {
			if (wc[i].status != RP_WC_SUCCESS) {
				fprintf(stderr, "refpeer server: completion status %d\n",
					wc[i].status);
				bad++;
				continue;
			}
			if (wc[i].opcode == RP_WC_RECV) {
				u8 *b = rbuf + wc[i].wr_id * o->msg;
				u64 k = wc[i].with_imm ? wc[i].imm : send_msgs;

				if (o->ud && (!wc[i].with_imm ||
					      wc[i].src_qp != o->cfg.peer_qpn))
					bad++;
				if (rp_pat_check(b, wc[i].byte_len,
						  o->seed ^ (o->ud ? RP_PAT_UD : RP_PAT_SEND),
						  k * o->msg) != wc[i].byte_len)
					bad++;
				send_msgs++;
				send_bytes += wc[i].byte_len;
			}
			rp_post_recv(ep, wc[i].wr_id,
				     rbuf + wc[i].wr_id * o->msg, o->msg);
		}
		if (sc_fd < 0 || done_seen)
			continue;
		r = sc_recv(line, sizeof(line), 0);
		if (r < 0) {
			fprintf(stderr, "refpeer server: side channel closed before DONE\n");
			print_stats(ep, "server");
			return 1;
		}
		if (r == 0 || strncmp(line, "DONE", 4))
			continue;
		/* reap what is still queued before judging */
		done_seen = true;
		memcpy(done_line, line, sizeof(done_line));
	}
	memcpy(line, done_line, sizeof(line));
	writes_b = strtoull(field(line, "write="), NULL, 0);
	if (writes_b) {
		off = rp_pat_check(mr, writes_b, o->seed ^ RP_PAT_WRITE, 0);
		if (off != writes_b) {
			fprintf(stderr, "refpeer server: WRITE data differs at offset %llu\n",
				(unsigned long long)off);
			bad++;
		}
	}
	if (strtoull(field(line, o->ud ? "ud=" : "send="), NULL, 0) !=
	    send_msgs) {
		fprintf(stderr, "refpeer server: %llu messages received, client sent %s\n",
			(unsigned long long)send_msgs,
			field(line, o->ud ? "ud=" : "send="));
		bad++;
	}
	sc_send("RESULT %s write=%llu send=%llu sendbytes=%llu\n",
		bad ? "bad" : "ok", (unsigned long long)writes_b,
		(unsigned long long)send_msgs,
		(unsigned long long)send_bytes);
	/* answer late duplicates for a moment */
	for (i = 0; i < 50; i++)
		rp_poll(ep, 2);
	if (!o->quiet)
		print_stats(ep, "server");
	printf("refpeer server: %s: WRITE %llu bytes, %llu %s (%llu bytes) verified\n",
	       bad ? "FAILED" : "ok", (unsigned long long)writes_b,
	       (unsigned long long)send_msgs,
	       o->ud ? "datagrams" : "SENDs",
	       (unsigned long long)send_bytes);
	return bad ? 1 : 0;
}

/* post @count messages of one kind, keeping MAX_POSTED outstanding */
static int client_phase(struct opts *o, struct rp_ep *ep, int kind,
			u8 *buf, u64 total)
{
	u64 nmsg = (total + o->msg - 1) / o->msg, posted = 0, done = 0;
	struct rp_wc wc[32];
	int i, n, r;

	while (done < nmsg) {
		while (posted < nmsg && posted - done < MAX_POSTED) {
			u64 off = posted * o->msg;
			u32 len = total - off < o->msg ? total - off : o->msg;

			if (kind == 0)
				r = rp_post_write(ep, posted, buf + off, len,
						  o->peer_va + off, o->peer_rkey,
						  posted % 8 == 7, (u32)posted);
			else if (kind == 1)
				r = rp_post_send(ep, posted, buf + off, len,
						 posted % 2, (u32)posted);
			else
				r = rp_post_read(ep, posted, buf + off, len,
						 o->peer_va + off,
						 o->peer_rkey);
			if (r)
				break;
			posted++;
		}
		n = rp_poll(ep, 100);
		if (n < 0)
			return -1;
		n = rp_poll_cq(ep, wc, 32);
		for (i = 0; i < n; i++) {
			if (wc[i].status != RP_WC_SUCCESS) {
				fprintf(stderr, "refpeer client: work request %llu failed with status %d\n",
					(unsigned long long)wc[i].wr_id,
					wc[i].status);
				return -1;
			}
			done++;
		}
	}
	return 0;
}

static int run_atomics(struct opts *o, struct rp_ep *ep)
{
	u64 res = 0, before, expect;
	struct rp_wc wc;
	int n, i;

	/* FETCH_ADD 1..16, then a CMP_SWAP that must see their sum */
	if (rp_post_atomic(ep, 1, METAROCE_OP_FETCH_ADD, &before, o->atomic_va,
			   o->peer_rkey, 0, 0))
		return -1;
	do {
		if (rp_poll(ep, 100) < 0)
			return -1;
	} while (!rp_poll_cq(ep, &wc, 1));
	if (wc.status)
		return -1;
	expect = before;
	for (i = 1; i <= 16; i++) {
		if (rp_post_atomic(ep, 2, METAROCE_OP_FETCH_ADD, &res,
				   o->atomic_va, o->peer_rkey, i, 0))
			return -1;
		do {
			if (rp_poll(ep, 100) < 0)
				return -1;
		} while (!(n = rp_poll_cq(ep, &wc, 1)));
		if (wc.status || res != expect) {
			fprintf(stderr, "refpeer client: FETCH_ADD saw %llx, expected %llx\n",
				(unsigned long long)res,
				(unsigned long long)expect);
			return -1;
		}
		expect += i;
	}
	if (rp_post_atomic(ep, 3, METAROCE_OP_CMP_SWAP, &res, o->atomic_va,
			   o->peer_rkey, before, expect))
		return -1;
	do {
		if (rp_poll(ep, 100) < 0)
			return -1;
	} while (!rp_poll_cq(ep, &wc, 1));
	if (wc.status || res != expect) {
		fprintf(stderr, "refpeer client: CMP_SWAP saw %llx, expected %llx\n",
			(unsigned long long)res, (unsigned long long)expect);
		return -1;
	}
	return 0;
}

/* UD: --bytes in datagrams of the MTU, paced so the receiver keeps up */
static int run_ud_client(struct opts *o, struct rp_ep *ep)
{
	u32 mtu = o->cfg.mtu, len;
	u64 n = (o->bytes + mtu - 1) / mtu, k, bytes = 0;
	struct rp_wc wc[64];
	u8 *buf;

	buf = malloc(mtu);
	if (!buf)
		return 1;
	for (k = 0; k < n; k++) {
		len = o->bytes - k * mtu < mtu ? o->bytes - k * mtu : mtu;
		rp_pat_fill(buf, len, o->seed ^ RP_PAT_UD, k * mtu);
		if (rp_post_ud_send(ep, k, buf, len, o->cfg.qkey, true, k))
			goto fail;
		bytes += len;
		while (rp_poll_cq(ep, wc, 64))
			;
		if (k % 256 == 255)
			rp_poll(ep, 2);
	}
	sc_send("DONE write=0 ud=%llu\n", (unsigned long long)n);
	if (sc_wait_result(ep))
		goto fail;
	if (!o->quiet)
		print_stats(ep, "client");
	printf("refpeer client: ok: moved %llu bytes (ud, %llu datagrams), every byte verified\n",
	       (unsigned long long)bytes, (unsigned long long)n);
	free(buf);
	return 0;
fail:
	print_stats(ep, "client");
	printf("refpeer client: FAILED\n");
	free(buf);
	return 1;
}

static int run_client(struct opts *o, struct rp_ep *ep)
{
	u64 len = o->bytes, nsend = 0, moved = 0, off;
	u64 t0 = 0, t1;
	u8 *src, *dst = NULL;
	struct timespec ts;

	if (o->peer_len < 64) {
		fprintf(stderr, "refpeer client: the peer's region is too small\n");
		return 1;
	}
	if (len > o->peer_len - 64)
		len = o->peer_len - 64;
	o->atomic_va = (o->peer_va + o->peer_len - 8) & ~7ULL;
	src = malloc(len ? len : 8);
	if (!src)
		return 1;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	t0 = ts.tv_sec * 1000000ULL + ts.tv_nsec / 1000;
	if (o->op_write) {
		rp_pat_fill(src, len, o->seed ^ RP_PAT_WRITE, 0);
		if (client_phase(o, ep, 0, src, len))
			goto fail;
		moved += len;
	}
	if (o->op_send) {
		rp_pat_fill(src, len, o->seed ^ RP_PAT_SEND, 0);
		if (client_phase(o, ep, 1, src, len))
			goto fail;
		nsend = (len + o->msg - 1) / o->msg;
		moved += len;
	}
	if (o->op_read) {
		dst = calloc(1, len ? len : 8);
		if (!dst || client_phase(o, ep, 2, dst, len))
			goto fail;
		off = rp_pat_check(dst, len, o->seed ^ (o->op_write ? RP_PAT_WRITE :
							   RP_PAT_REGION), 0);
		if (off != len) {
			fprintf(stderr, "refpeer client: READ data differs at offset %llu\n",
				(unsigned long long)off);
			goto fail;
		}
		moved += len;
	}
	if (o->op_atomic) {
		if (run_atomics(o, ep)) {
			fprintf(stderr, "refpeer client: atomics failed\n");
			goto fail;
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &ts);
	t1 = ts.tv_sec * 1000000ULL + ts.tv_nsec / 1000;
	if (sc_fd >= 0) {
		sc_send("DONE write=%llu send=%llu\n",
			(unsigned long long)(o->op_write ? len : 0),
			(unsigned long long)nsend);
		if (sc_wait_result(ep))
			goto fail;
	}
	if (!o->quiet)
		print_stats(ep, "client");
	printf("refpeer client: ok: moved %llu bytes (%s%s%s%s) in %.3f s, every byte verified\n",
	       (unsigned long long)moved, o->op_write ? "write " : "",
	       o->op_send ? "send " : "", o->op_read ? "read " : "",
	       o->op_atomic ? "atomic" : "", (t1 - t0) / 1e6);
	free(src);
	free(dst);
	return 0;
fail:
	if (rp_error(ep))
		fprintf(stderr, "refpeer client: %s\n", rp_error(ep));
	print_stats(ep, "client");
	printf("refpeer client: FAILED\n");
	free(src);
	free(dst);
	return 1;
}

int main(int argc, char **argv)
{
	struct opts o;
	struct rp_ep *ep;
	char line[512];
	char ip[INET_ADDRSTRLEN];
	int ret;

	parse_args(argc, argv, &o);
	if (o.server ? o.listen_port != 0 : o.connect != NULL) {
		if (sc_setup(&o))
			return 1;
		inet_ntop(AF_INET, &o.cfg.local_ip, ip, sizeof(ip));
		sc_send("REFPEER1 qpn=%u psn=%u ip=%s port=%u seed=%llu\n",
			o.cfg.qpn, o.cfg.sq_psn, ip, o.cfg.port,
			(unsigned long long)o.seed);
		if (sc_recv(line, sizeof(line), 10000) != 1 ||
		    strncmp(line, "REFPEER1 ", 9)) {
			fprintf(stderr, "refpeer: no REFPEER1 line on the side channel\n");
			return 1;
		}
		o.cfg.peer_qpn = strtoul(field(line, "qpn="), NULL, 0);
		o.cfg.rq_psn = strtoul(field(line, "psn="), NULL, 0);
		inet_pton(AF_INET, field(line, "ip="), &o.cfg.peer_ip);
		o.cfg.peer_port = atoi(field(line, "port="));
		if (o.server) {
			o.seed = strtoull(field(line, "seed="), NULL, 0);
			o.cfg.seed = o.seed ^ 0x5e5e5e;
		}
	}
	ep = rp_ep_create(&o.cfg);
	if (!ep) {
		perror("refpeer: endpoint (a privileged source port needs root or CAP_NET_BIND_SERVICE)");
		return 1;
	}
	if (!o.server && sc_fd >= 0) {
		if (sc_recv(line, sizeof(line), 10000) != 1 ||
		    strncmp(line, "MR ", 3)) {
			fprintf(stderr, "refpeer: no MR line on the side channel\n");
			return 1;
		}
		o.peer_va = strtoull(field(line, "va="), NULL, 0);
		o.peer_rkey = strtoul(field(line, "rkey="), NULL, 0);
		o.peer_len = strtoull(field(line, "len="), NULL, 0);
	}
	rp_ep_connect(ep);
	if (o.server)
		ret = run_server(&o, ep);
	else if (o.ud && sc_fd >= 0)
		ret = run_ud_client(&o, ep);
	else if (o.ud)
		ret = 2;	/* UD needs the side channel's DONE/RESULT */
	else
		ret = run_client(&o, ep);
	rp_ep_destroy(ep);
	if (sc_fd >= 0)
		close(sc_fd);
	return ret;
}
