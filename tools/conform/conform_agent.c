// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * conform-agent: the conformance suite's agent on the reference peer
 * (librefpeer).  It listens on a TCP port for the runner (conform) and
 * creates, connects, drives and reports on one librefpeer RC QP at a
 * time, as kside --agent does for a kernel QP, so that the suite can be
 * run peer against peer.  The agent protocol is in
 * Documentation/metaroce/conformance.rst.
 *
 *   conform-agent -l 127.0.0.2 --listen 18600 [--port 4796]
 *                 [--prot auth|encrypt --key HEX --key-id N]
 */
#include <arpa/inet.h>
#include <stdarg.h>
#include <time.h>
#include <getopt.h>
#include <netinet/in.h>
#include <sys/random.h>
#include <sys/socket.h>

#include "refpeer.h"
#include "agent.h"

struct agent {
	struct rp_cfg base;		/* address, port, protection */
	struct agent_conn conn;
	struct rp_ep *ep;
	struct rp_cfg cfg;		/* of the QP being set up */
	bool created;
	u8 *region;
	u32 rkey;
	u32 peer_qkey;			/* UD: the tester's Q_Key */
	bool nowrite;			/* CREATE nowrite=1 */
	int verbose;
};

static u32 rand24(void)
{
	u32 v = 0;

	while (!(v & 0xffffff))
		if (getrandom(&v, sizeof(v), 0) != sizeof(v))
			v = (u32)getpid() * 2654435761u;
	return v & 0xffffff;
}

static u64 now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000ULL + ts.tv_nsec / 1000;
}

static void reply(struct agent *a, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void reply(struct agent *a, const char *fmt, ...)
{
	static char line[AGENT_LINE];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	if (n < 0 || n >= (int)sizeof(line) - 1)
		n = snprintf(line, sizeof(line), "ERR reply too long");
	line[n++] = '\n';
	line[n] = 0;
	if (a->verbose)
		fprintf(stderr, "conform-agent: < %s", line);
	agent_put(&a->conn, line);
}

static void destroy(struct agent *a)
{
	rp_ep_destroy(a->ep);
	a->ep = NULL;
	a->created = false;
}

static const char *wc_status(enum rp_wc_status s)
{
	switch (s) {
	case RP_WC_SUCCESS: return "success";
	case RP_WC_RETRY_EXC_ERR: return "retry_exc";
	case RP_WC_LOC_PROT_ERR: return "loc_prot";
	case RP_WC_RNR_RETRY_EXC_ERR: return "rnr_retry_exc";
	case RP_WC_REM_INV_REQ_ERR: return "rem_inv_req";
	case RP_WC_REM_ACCESS_ERR: return "rem_access";
	case RP_WC_REM_OP_ERR: return "rem_op";
	case RP_WC_LOC_LEN_ERR: return "loc_len";
	case RP_WC_FLUSH_ERR: return "flush";
	}
	return "other";
}

static const char *wc_opcode(enum rp_wc_opcode o)
{
	switch (o) {
	case RP_WC_SEND: return "send";
	case RP_WC_WRITE: return "write";
	case RP_WC_READ: return "read";
	case RP_WC_CMP_SWAP: return "cmp_swap";
	case RP_WC_FETCH_ADD: return "fetch_add";
	case RP_WC_RECV: return "recv";
	case RP_WC_RECV_RDMA_IMM: return "recv_rdma_imm";
	}
	return "other";
}

/* the counters under the kernel's names (hw_counters) */
static void counters(struct agent *a)
{
	static char line[AGENT_LINE];
	const struct rp_stats *s;
	size_t n = 0;

	if (!a->ep) {
		reply(a, "OK");
		return;
	}
	s = rp_stats(a->ep);
#define C(name, val) \
	n += snprintf(line + n, sizeof(line) - n, " %s=%llu", name, \
		      (unsigned long long)(val))
	C("rx_drop_short", s->rx_drop_wire_err[MRO_WIRE_SHORT]);
	C("rx_drop_version", s->rx_drop_wire_err[MRO_WIRE_VERSION]);
	C("rx_drop_opcode", s->rx_drop_wire_err[MRO_WIRE_OPCODE]);
	C("rx_drop_hdr_len", s->rx_drop_wire_err[MRO_WIRE_HDR_LEN]);
	C("rx_drop_crc", s->rx_drop_wire_err[MRO_WIRE_CRC]);
	C("rx_drop_field", s->rx_drop_wire_err[MRO_WIRE_FIELD] +
	  s->rx_drop_field);
	C("rx_drop_length", s->rx_drop_wire_err[MRO_WIRE_LENGTH]);
	C("rx_drop_no_qp", s->rx_drop_no_qp);
	C("rx_drop_qp_mismatch", s->rx_drop_qp - s->rx_drop_no_qp);
	C("rx_drop_sport", s->rx_drop_sport);
	C("rx_drop_window", s->rx_drop_window);
	C("rx_drop_qkey", s->rx_drop_qkey);
	C("rx_drop_no_wqe", s->rx_drop_no_wqe);
	C("rx_drop_dup_req", s->rx_drop_dup_req);
	C("rx_drop_error_ahead", s->rx_drop_error_ahead);
	C("rx_key_order_wait", s->rx_key_order_wait);
	C("rx_drop_ack_range", s->rx_drop_ack_range);
	C("rx_drop_stale_resp", s->rx_drop_stale_resp);
	C("rx_drop_qp_state", s->rx_drop_qp_state);
	C("reprobes_rcvd", s->reprobes_rcvd);
	C("rx_drop_ack_echo", s->rx_drop_ack_echo);
	C("cc_bad_feedback", s->cc_bad_feedback);
	C("rx_duplicate", s->rx_duplicate);
	C("rx_out_of_order", s->rx_out_of_order);
	C("rx_drop_auth", s->rx_drop_auth);
	C("rx_drop_replay", s->rx_drop_replay);
	C("rx_drop_unkeyed", s->rx_drop_unkeyed);
	C("acks_sent", s->acks_sent);
	C("acks_rcvd", s->acks_rcvd);
	C("acks_piggybacked", s->acks_piggybacked);
	C("retransmits", s->retransmits);
	C("rnr_nak_sent", s->rnr_nak_sent);
	C("rnr_nak_rcvd", s->rnr_naks_rcvd);
	C("nak_sent", s->nak_sent);
	C("hello_sent", s->hello_sent);
	C("hello_rcvd", s->hello_rcvd);
	C("negotiation_failed", s->negotiation_failed);
	C("tail_loss_probes", s->tlp_probes);
	C("rcvd_pkts", s->rx_pkts);
	C("sent_pkts", s->tx_pkts);
#undef C
	reply(a, "OK%s", line);
}

/* CREATE: a QP number and first PSN; the endpoint comes with CONNECT */
static void cmd_create(struct agent *a, const char *l)
{
	u64 v;

	destroy(a);
	/* the reference peer has no UC and no SRQ */
	if (strstr(l, " type=uc") || (agent_u64(l, "srq", &v) && v)) {
		reply(a, "ERR the reference peer has no UC QP and no SRQ");
		return;
	}
	a->cfg = a->base;
	a->cfg.qpn = rand24();
	a->cfg.sq_psn = rand24();
	if (agent_u64(l, "paths", &v))
		a->cfg.paths = v;
	if (agent_u64(l, "window", &v))
		a->cfg.window = v;
	if (agent_u64(l, "timeout", &v))
		a->cfg.timeout = v;
	if (agent_u64(l, "retry", &v))
		a->cfg.retry_cnt = v;
	/* nowrite=1: a region without remote write */
	a->nowrite = agent_u64(l, "nowrite", &v) && v;
	if (agent_u64(l, "rd_atom", &v)) {
		/* both ways, as kside does */
		a->cfg.max_dest_rd_atomic = v;
		a->cfg.max_rd_atomic = v;
	}
	if (strstr(l, " type=ud")) {
		a->cfg.ud = true;
		a->cfg.paths = 1;
		a->cfg.hello = false;
		/* the device's mode: its datagrams sealed or not (PROT-18) */
		a->cfg.qkey = agent_u64(l, "qkey", &v) ? v : 0x11111111;
	}
	a->created = true;
	reply(a, "OK qpn=%u psn=%u ip=%s port=%u", a->cfg.qpn, a->cfg.sq_psn,
	      inet_ntoa(a->cfg.local_ip), a->cfg.port);
}

static void cmd_connect(struct agent *a, const char *l)
{
	char ip[64];
	u64 qpn, psn;

	if (!a->created || !agent_u64(l, "qpn", &qpn) ||
	    !agent_u64(l, "psn", &psn) || !agent_word(l, "ip", ip, sizeof(ip)) ||
	    !inet_aton(ip, &a->cfg.peer_ip)) {
		reply(a, "ERR CONNECT wants qpn, psn and ip after CREATE");
		return;
	}
	a->cfg.peer_qpn = qpn & 0xffffff;
	a->cfg.rq_psn = psn & 0xffffff;
	a->peer_qkey = agent_u64(l, "qkey", &qpn) ? qpn : 0;
	a->ep = rp_ep_create(&a->cfg);
	if (!a->ep) {
		reply(a, "ERR endpoint: %s", strerror(errno));
		return;
	}
	memset(a->region, 0, AGENT_REGION);
	a->rkey = rp_reg_mr(a->ep, a->region, AGENT_REGION,
			    (a->nowrite ? 0 : RP_ACCESS_REMOTE_WRITE) |
			    RP_ACCESS_REMOTE_READ | RP_ACCESS_REMOTE_ATOMIC |
			    RP_ACCESS_FLUSH_GLOBAL);
	if (rp_ep_connect(a->ep)) {
		reply(a, "ERR connect: %s", rp_error(a->ep));
		return;
	}
	reply(a, "OK va=%llu rkey=%u len=%u flush=1 grh=0 mtu=%u",
	      (unsigned long long)(uintptr_t)a->region, a->rkey, AGENT_REGION,
	      a->cfg.mtu);
}

/* the buffer of a work request: off and len inside the region */
static u8 *wr_buf(struct agent *a, const char *l, u64 *len)
{
	u64 off = 0;

	agent_u64(l, "off", &off);
	if (!agent_u64(l, "len", len))
		*len = 0;
	if (off > AGENT_REGION || *len > AGENT_REGION - off)
		return NULL;
	return a->region + off;
}

static void cmd_post(struct agent *a, const char *verb, const char *l)
{
	u64 wr = 0, len, va = 0, rkey = 0, imm = 0, add = 0, cmp = 0, se = 0;
	bool with_imm = agent_u64(l, "imm", &imm);
	char op[16] = "";
	u8 *buf;
	int r;

	if (!a->ep) {
		reply(a, "ERR no QP");
		return;
	}
	buf = wr_buf(a, l, &len);
	agent_u64(l, "wr", &wr);
	agent_u64(l, "va", &va);
	agent_u64(l, "rkey", &rkey);
	if (!buf) {
		reply(a, "ERR off/len outside the region");
		return;
	}
	if (!strcmp(verb, "RECV")) {
		r = rp_post_recv(a->ep, wr, buf, len);
	} else if (!strcmp(verb, "SEND") && a->cfg.ud) {
		r = rp_post_ud_send(a->ep, wr, buf, len, a->peer_qkey, with_imm,
				    imm);
	} else if (!strcmp(verb, "SEND")) {
		r = rp_post_send_se(a->ep, wr, buf, len, with_imm, imm,
				    agent_u64(l, "se", &se) && se);
	} else if (!strcmp(verb, "WRITE")) {
		r = rp_post_write(a->ep, wr, buf, len, va, rkey, with_imm, imm);
	} else if (!strcmp(verb, "READ")) {
		r = rp_post_read(a->ep, wr, buf, len, va, rkey);
	} else {
		agent_word(l, "op", op, sizeof(op));
		agent_u64(l, "add", &add);
		agent_u64(l, "cmp", &cmp);
		if ((u64)(buf - a->region) & 7 ||
		    (u64)(buf - a->region) + 8 > AGENT_REGION) {
			reply(a, "ERR atomic result off");
			return;
		}
		r = rp_post_atomic(a->ep, wr, !strcmp(op, "cswap") ?
				   METAROCE_OP_CMP_SWAP : METAROCE_OP_FETCH_ADD,
				   (u64 *)buf, va, rkey, add, cmp);
	}
	if (r)
		reply(a, "ERR post %s failed", verb);
	else
		reply(a, "OK");
}

static void cmd_poll(struct agent *a, const char *l)
{
	static char line[AGENT_LINE];
	struct rp_wc wc[32];
	u64 ms = 0, t0;
	size_t n = 0;
	int got = 0, i;

	if (!a->ep) {
		reply(a, "ERR no QP");
		return;
	}
	line[0] = 0;
	agent_u64(l, "ms", &ms);
	t0 = now_us();
	for (;;) {
		rp_poll(a->ep, 1);
		got = rp_poll_cq(a->ep, wc, 32);
		if (got || now_us() - t0 >= ms * 1000)
			break;
	}
	for (i = 0; i < got && n < sizeof(line) - 100; i++)
		n += snprintf(line + n, sizeof(line) - n,
			      " wc=%llu:%s:%s:%u:%u",
			      (unsigned long long)wc[i].wr_id,
			      wc_status(wc[i].status), wc_opcode(wc[i].opcode),
			      wc[i].byte_len, wc[i].with_imm ? wc[i].imm : 0);
	reply(a, "OK n=%d%s", got, line);
}

static void cmd_mem(struct agent *a, const char *l)
{
	static char hex[AGENT_LINE];
	u64 off = 0, len = 0;

	agent_u64(l, "off", &off);
	agent_u64(l, "len", &len);
	if (off > AGENT_REGION || len > AGENT_REGION - off ||
	    2 * len + 1 > sizeof(hex) - 32) {
		reply(a, "ERR off/len");
		return;
	}
	agent_hex(a->region + off, len, hex);
	reply(a, "OK hex=%s", hex);
}

static void cmd_setmem(struct agent *a, const char *l)
{
	const char *p = strstr(l, " hex=");
	u64 off = 0;
	int n;

	agent_u64(l, "off", &off);
	if (!p || off > AGENT_REGION) {
		reply(a, "ERR off/hex");
		return;
	}
	n = agent_unhex(p + 5, a->region + off, AGENT_REGION - off);
	if (n < 0)
		reply(a, "ERR hex");
	else
		reply(a, "OK len=%d", n);
}

static void handle(struct agent *a, const char *l)
{
	char verb[16];
	size_t i = 0;

	while (l[i] && l[i] != ' ' && i + 1 < sizeof(verb)) {
		verb[i] = l[i];
		i++;
	}
	verb[i] = 0;
	if (a->verbose)
		fprintf(stderr, "conform-agent: > %s\n", l);
	if (!strcmp(verb, "INFO"))
		reply(a, "OK impl=refpeer counters=peer");
	else if (!strcmp(verb, "CREATE"))
		cmd_create(a, l);
	else if (!strcmp(verb, "CONNECT"))
		cmd_connect(a, l);
	else if (!strcmp(verb, "RECV") || !strcmp(verb, "SEND") ||
		 !strcmp(verb, "WRITE") || !strcmp(verb, "READ") ||
		 !strcmp(verb, "ATOMIC"))
		cmd_post(a, verb, l);
	else if (!strcmp(verb, "POLL"))
		cmd_poll(a, l);
	else if (!strcmp(verb, "MEM"))
		cmd_mem(a, l);
	else if (!strcmp(verb, "SETMEM"))
		cmd_setmem(a, l);
	else if (!strcmp(verb, "COUNTERS"))
		counters(a);
	else if (!strcmp(verb, "STATE"))
		reply(a, "OK state=%s", !a->ep ? "RESET" :
		      rp_error(a->ep) ? "ERR" : "RTS");
	else if (!strcmp(verb, "DESTROY")) {
		destroy(a);
		reply(a, "OK");
	} else {
		reply(a, "ERR unknown verb %s", verb);
	}
}

/* serve one runner until it hangs up; the QP's engine runs meanwhile */
static void serve(struct agent *a)
{
	static char line[AGENT_LINE];
	int r;

	for (;;) {
		if (a->ep)
			rp_poll(a->ep, 0);
		r = agent_getline(&a->conn, line, sizeof(line), a->ep ? 1 : 100);
		if (r < 0)
			break;
		if (r)
			handle(a, line);
	}
	destroy(a);
}

static void usage(void)
{
	fprintf(stderr,
"usage: conform-agent -l IP --listen PORT [options]\n"
"  -l IP              address of the QPs and of the control port\n"
"      --listen PORT  TCP control port\n"
"      --port N       metaroce UDP port (4796)\n"
"      --prot MODE    none, auth or encrypt; --key HEX, --key-id N (1)\n"
"      --paths N      path slots of each QP (8)\n"
"      --once         exit after the first runner hangs up\n"
"  -v                 log the control channel\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "listen", 1, NULL, 'L' }, { "port", 1, NULL, 'P' },
		{ "prot", 1, NULL, 'p' }, { "key", 1, NULL, 'k' },
		{ "key-id", 1, NULL, 'K' }, { "paths", 1, NULL, 'n' },
		{ "once", 0, NULL, 'o' }, { "help", 0, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct sockaddr_in sa = { .sin_family = AF_INET };
	struct agent *a = calloc(1, sizeof(*a));
	unsigned int listen_port = 0;
	bool once = false;
	int ch, lfd, one = 1, n;

	if (!a)
		return 1;
	rp_cfg_default(&a->base);
	a->base.paths = 8;
	a->base.key_id = 1;
	while ((ch = getopt_long(argc, argv, "l:vh", lo, NULL)) != -1) {
		switch (ch) {
		case 'l':
			if (!inet_aton(optarg, &a->base.local_ip))
				usage();
			break;
		case 'L': listen_port = atoi(optarg); break;
		case 'P': a->base.port = a->base.peer_port = atoi(optarg); break;
		case 'p':
			if (!strcmp(optarg, "none"))
				a->base.prot = METAROCE_PROT_NONE;
			else if (!strcmp(optarg, "auth"))
				a->base.prot = METAROCE_PROT_AUTH;
			else if (!strcmp(optarg, "encrypt"))
				a->base.prot = METAROCE_PROT_ENCRYPT;
			else
				usage();
			break;
		case 'k':
			n = agent_unhex(optarg, a->base.key, RP_MAX_KEY);
			if (n != 16 && n != 32)
				usage();
			a->base.key_len = n;
			break;
		case 'K': a->base.key_id = atoi(optarg); break;
		case 'n': a->base.paths = atoi(optarg); break;
		case 'o': once = true; break;
		case 'v': a->verbose++; break;
		default: usage();
		}
	}
	if (!listen_port || !a->base.local_ip.s_addr)
		usage();
	a->region = aligned_alloc(4096, AGENT_REGION);
	if (!a->region)
		return 1;
	lfd = socket(AF_INET, SOCK_STREAM, 0);
	if (lfd < 0)
		return 1;
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	sa.sin_addr = a->base.local_ip;
	sa.sin_port = htons(listen_port);
	if (bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) || listen(lfd, 1)) {
		fprintf(stderr, "conform-agent: control port %u: %s\n",
			listen_port, strerror(errno));
		return 1;
	}
	do {
		a->conn.fd = accept(lfd, NULL, NULL);
		if (a->conn.fd < 0)
			return 1;
		a->conn.len = 0;
		serve(a);
		close(a->conn.fd);
	} while (!once);
	close(lfd);
	free(a->region);
	free(a);
	return 0;
}
