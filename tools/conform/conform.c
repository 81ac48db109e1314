// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * conform: the case runner of the metaroce conformance suite
 * (Documentation/metaroce/conformance.rst).  Connects to an agent that
 * drives the target implementation, runs the cases of cases_*.c against
 * it and prints TAP and a coverage table of the rule identifiers of
 * protocol.rst:
 *
 *   conform -l LOCAL_IP --agent TARGET_IP:PORT --rules RULES [options]
 */
#include <arpa/inet.h>
#include <getopt.h>
#include <stdarg.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>

#include "conform.h"

#define MAX_RULES	1024
#define MAX_CASES	512

u64 cx_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000ULL + ts.tv_nsec / 1000;
}

static u32 rand32(void)
{
	u32 v;

	if (getrandom(&v, sizeof(v), 0) != sizeof(v))
		v = (u32)cx_now_us() * 2654435761u;
	return v;
}

void cx_fail(struct cx *cx, int line, const char *fmt, ...)
{
	va_list ap;

	printf("#   line %d: ", line);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	cx->fails++;
}

void cx_note(struct cx *cx, const char *fmt, ...)
{
	va_list ap;

	printf("#   ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

/* ---- the agent ---- */

int cx_agent(struct cx *cx, const char *fmt, ...)
{
	char line[AGENT_LINE];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	if (n < 0 || n >= (int)sizeof(line) - 1)
		return -1;
	if (cx->g->verbose > 1)
		printf("#   agent > %s\n", line);
	line[n++] = '\n';
	line[n] = 0;
	if (agent_put(&cx->g->ag, line))
		return -1;
	/* the tester's endpoint keeps running while the agent works */
	for (;;) {
		n = agent_getline(&cx->g->ag, cx->reply, sizeof(cx->reply), 1);
		if (n < 0) {
			snprintf(cx->reply, sizeof(cx->reply), "ERR agent gone");
			return -1;
		}
		if (n)
			break;
		if (cx->ep)
			rp_poll(cx->ep, 0);
	}
	if (cx->g->verbose > 1)
		printf("#   agent < %.200s\n", cx->reply);
	return strncmp(cx->reply, "OK", 2) ? -1 : 0;
}

int cx_wc(struct cx *cx, int ms, struct twc *wc, int max)
{
	const char *p;
	u64 n = 0;
	int i = 0;

	if (cx_agent(cx, "POLL ms=%d", ms) || !agent_u64(cx->reply, "n", &n))
		return -1;
	p = cx->reply;
	while (i < max && (p = strstr(p, " wc="))) {
		char st[24], op[24];
		unsigned long long wr;
		unsigned int len, imm;

		if (sscanf(p, " wc=%llu:%23[^:]:%23[^:]:%u:%u", &wr, st, op,
			   &len, &imm) != 5)
			break;
		wc[i].wr = wr;
		snprintf(wc[i].status, sizeof(wc[i].status), "%s", st);
		snprintf(wc[i].opcode, sizeof(wc[i].opcode), "%s", op);
		wc[i].len = len;
		wc[i].imm = imm;
		i++;
		p++;
	}
	return i;
}

int cx_wc_wait(struct cx *cx, int ms, struct twc *wc, int max)
{
	u64 end = cx_now_us() + ms * 1000ULL;
	int k;

	while (cx_now_us() < end) {
		k = cx_wc(cx, 100, wc, max);
		if (k > 0)
			return k;
	}
	return 0;
}

void cx_state(struct cx *cx, char *out, size_t room)
{
	if (cx_agent(cx, "STATE") || !agent_word(cx->reply, "state", out, room))
		snprintf(out, room, "?");
}

int cx_mem(struct cx *cx, u32 off, u32 len, u8 *out)
{
	const char *p;

	if (cx_agent(cx, "MEM off=%u len=%u", off, len))
		return -1;
	p = strstr(cx->reply, " hex=");
	if (!p || agent_unhex(p + 5, out, len) != (int)len)
		return -1;
	return 0;
}

int cx_setmem(struct cx *cx, u32 off, const u8 *p, u32 len)
{
	char hex[2 * 4096 + 1];

	if (len > 4096)
		return -1;
	agent_hex(p, len, hex);
	return cx_agent(cx, "SETMEM off=%u hex=%s", off, hex);
}

static unsigned int read_ctrs(struct cx *cx, struct ctr *c, unsigned int max)
{
	static u64 last_us;
	const char *p;
	unsigned int n = 0;
	u64 now = cx_now_us();

	/*
	 * The RDMA core caches a port's hw_counters for 10 ms
	 * (RDMA_HW_STATS_DEFAULT_LIFESPAN): two reads closer than that may
	 * show the same values.  Keep them 25 ms apart, the tester running.
	 */
	if (now - last_us < 25000 && cx->ep)
		cx_pump(cx, (25000 - (now - last_us)) / 1000 + 1);
	else if (now - last_us < 25000)
		usleep(25000 - (now - last_us));
	last_us = cx_now_us();

	if (cx_agent(cx, "COUNTERS")) {
		cx_note(cx, "COUNTERS: %s", cx->reply);
		return 0;
	}
	p = cx->reply + 2;
	while (n < max && *p == ' ') {
		unsigned long long v;
		char name[40];
		int used;

		if (sscanf(p, " %39[^=]=%llu%n", name, &v, &used) != 2)
			break;
		snprintf(c[n].name, sizeof(c[n].name), "%s", name);
		c[n].val = v;
		n++;
		p += used;
	}
	return n;
}

void cx_snap(struct cx *cx)
{
	cx->nctr0 = read_ctrs(cx, cx->ctr0, CX_MAX_CTRS);
}

long long cx_delta(struct cx *cx, const char *name)
{
	struct ctr now[CX_MAX_CTRS];
	unsigned int n = read_ctrs(cx, now, CX_MAX_CTRS), i, j;

	for (i = 0; i < n; i++) {
		if (strcmp(now[i].name, name))
			continue;
		for (j = 0; j < cx->nctr0; j++)
			if (!strcmp(cx->ctr0[j].name, name))
				return now[i].val - cx->ctr0[j].val;
		return now[i].val;
	}
	return -1;
}

void cx_expect_delta(struct cx *cx, int line, const char *name,
		     long long want)
{
	long long d = cx_delta(cx, name);
	int i;

	/* a count may lag its packet a little (a cache, a deferred count) */
	for (i = 0; i < 8 && d >= 0 && d < want; i++)
		d = cx_delta(cx, name);
	if (d < 0) {
		cx_note(cx, "counter %s not reported by the target: not checked",
			name);
		return;
	}
	if (d != want)
		cx_fail(cx, line, "counter %s grew by %lld, want %lld", name, d,
			want);
}

/* ---- packets ---- */

/* what a sealed packet looked like on the wire (rp_rx_raw()) */
static void raw_fields(struct cx *cx, struct pkt *p, const u8 *payload)
{
	const u8 *raw;
	size_t len, body;
	unsigned int i;

	raw = rp_rx_raw(cx->ep, &len);
	p->sealed = raw && len >= (size_t)p->h.hdr_len + p->h.payload_len +
				  METAROCE_SEAL_LEN;
	if (!p->sealed)
		return;
	body = len - METAROCE_SEAL_LEN;
	for (i = 0, p->seal_ctr = 0; i < 8; i++)
		p->seal_ctr = p->seal_ctr << 8 | raw[body + 16 + i];
	p->clear_payload = payload && p->h.payload_len &&
			   !memcmp(raw + p->h.hdr_len, payload, p->h.payload_len);
}

static bool rx_hook(void *arg, const struct mro_hdr *h, const u8 *payload,
		    u16 sport, const char *why)
{
	struct cx *cx = arg;
	const u8 *raw;
	struct pkt *p;
	size_t len;

	/* a sealed datagram: keep it as it came, and whether it opened */
	raw = rp_rx_raw(cx->ep, &len);
	if (raw && cx->cfg.ud && len <= sizeof(cx->raw)) {
		memcpy(cx->raw, raw, len);
		cx->raw_len = len;
		snprintf(cx->raw_why, sizeof(cx->raw_why), "%s",
			 h ? "" : why ? why : "?");
	}
	if (!h) {
		cx->refused++;
		if (cx->g->verbose)
			cx_note(cx, "tester refused a datagram from port %u: %s",
				sport, why);
		return false;
	}
	if (cx->nq < CX_MAX_PKTS) {
		p = &cx->q[cx->nq++];
		p->h = *h;
		p->sport = sport;
		p->tos = rp_rx_tos(cx->ep);
		p->t_us = cx_now_us();
		p->used = false;
		if (payload && h->payload_len)
			memcpy(p->payload, payload, h->payload_len < CX_PAYLOAD ?
			       h->payload_len : CX_PAYLOAD);
		raw_fields(cx, p, payload);
	}
	if (cx->g->verbose && h->opcode == METAROCE_OP_ACK)
		cx_note(cx, "< ACK flags 0x%x path %u syndrome %u code %u cum_psn %u nak_psn %u sack %#llx echo path %u seq %u",
			h->flags, h->path, h->ack.syndrome, h->ack.nak_code,
			h->ack.cum_psn, h->ack.nak_psn,
			(unsigned long long)h->ack.sack[0], h->ack.echo_path,
			h->ack.echo_seq);
	else if (cx->g->verbose)
		cx_note(cx, "< op 0x%02x psn %u flags 0x%x path %u len %u",
			h->opcode, h->psn, h->flags, h->path, h->payload_len);
	return h->opcode == METAROCE_OP_HELLO || cx->pass;
}

static bool tx_hook(void *arg, const struct mro_hdr *h, unsigned int slot)
{
	struct cx *cx = arg;

	if (h->opcode == METAROCE_OP_HELLO) {
		cx->my_hello = *h;
		cx->hellos_out += !cx->block_hello;
		return !cx->block_hello;
	}
	return true;
}

void cx_pump(struct cx *cx, int ms)
{
	u64 end = cx_now_us() + ms * 1000ULL, now;

	while ((now = cx_now_us()) < end)
		rp_poll(cx->ep, (end - now) / 1000 + 1 > 5 ? 5 :
			(int)((end - now) / 1000 + 1));
}

static struct pkt *find(struct cx *cx, u8 opcode, unsigned int from)
{
	unsigned int i;

	for (i = from; i < cx->nq; i++) {
		struct pkt *p = &cx->q[i];

		if (p->used)
			continue;
		/*
		 * any: what answers a packet; HELLOs and CREDITs (which a
		 * responder sends when its sender falls silent) do not
		 */
		if (opcode ? p->h.opcode == opcode :
		    p->h.opcode != METAROCE_OP_HELLO &&
		    p->h.opcode != METAROCE_OP_CREDIT)
			return p;
	}
	return NULL;
}

struct pkt *cx_wait(struct cx *cx, u8 opcode, int ms)
{
	u64 end = cx_now_us() + ms * 1000ULL;
	struct pkt *p;

	for (;;) {
		p = find(cx, opcode, 0);
		if (p) {
			p->used = true;
			return p;
		}
		if (cx_now_us() >= end)
			return NULL;
		rp_poll(cx->ep, 1);
	}
}

unsigned int cx_quiet(struct cx *cx, u8 opcode, int ms)
{
	unsigned int from = cx->nq, n = 0;
	struct pkt *p;

	cx_pump(cx, ms);
	while ((p = find(cx, opcode, from))) {
		p->used = true;
		cx_note(cx, "answered by opcode %#x psn %u%s", p->h.opcode,
			p->h.psn, p->h.opcode == METAROCE_OP_ACK ?
			" (an ACK)" : "");
		n++;
	}
	return n;
}

void cx_req(struct cx *cx, struct mro_hdr *h, u8 opcode, u32 psn)
{
	memset(h, 0, sizeof(*h));
	h->opcode = opcode;
	h->psn = psn;
	h->flags = METAROCE_F_FIRST | METAROCE_F_LAST;
	switch (opcode) {
	case METAROCE_OP_CMP_SWAP:
	case METAROCE_OP_FETCH_ADD:
	case METAROCE_OP_ATOMIC_WRITE:
		h->atomic.msn = cx->msn;
		h->flags |= METAROCE_F_ACK_REQ;
		break;
	case METAROCE_OP_FLUSH:
		h->flush.msn = cx->msn;
		h->flags |= METAROCE_F_ACK_REQ;
		break;
	case METAROCE_OP_PROBE:
		h->flags = METAROCE_F_ACK_REQ;
		break;
	default:
		h->msg.msn = cx->msn;
		h->msg.first_psn = psn;
		break;
	}
}

int cx_send(struct cx *cx, struct mro_hdr *h, const void *payload, u32 len)
{
	if (h->opcode == METAROCE_OP_PROBE)
		h->ctrl.token = 0;
	return rp_send_hdr(cx->ep, h, payload, len, cx->slot, false);
}

size_t cx_build(struct cx *cx, struct mro_hdr *h, const void *payload,
		u32 len, u8 *buf)
{
	size_t n;

	if (!h->dqpn)
		h->dqpn = cx->tqpn;
	if (!h->sqpn)
		h->sqpn = cx->cfg.qpn;
	h->path = cx->slot;
	h->path_seq = cx->seq++;
	h->tsval = (u32)cx_now_us();
	n = mro_wire_encode(h, buf, 4096);
	if (!n)
		return 0;
	if (len)
		memcpy(buf + n, payload, len);
	mro_wire_seal(buf, n + len);
	return n + len + METAROCE_CRC_LEN;
}

void cx_raw(struct cx *cx, const u8 *buf, size_t len)
{
	rp_send_datagram(cx->ep, buf, len, cx->slot);
}

u64 cx_rand_nonce(void)
{
	u64 n = 0;

	while (!n)
		n = ((u64)rand32() << 32 | rand32()) & ((1ULL << 56) - 1);
	return n;
}

size_t cx_dgram(struct cx *cx, struct mro_hdr *h, const void *payload,
		u32 len, u8 prot, const u8 *dev_key, u8 key_len, u8 key_id,
		u64 nonce, u64 ctr, u8 *buf)
{
	u8 key[RP_MAX_KEY];
	unsigned int i;
	size_t n;
	int r;

	if (!h->dqpn)
		h->dqpn = cx->tqpn;
	if (!h->sqpn)
		h->sqpn = cx->cfg.qpn;
	h->flags |= METAROCE_F_SEALED;
	/* the encoder refuses 0s there (EXT-13): written over below */
	h->deth.key_id = key_id ? key_id : 1;
	h->deth.sender_nonce = nonce ? nonce : 1;
	h->path = cx->slot;
	h->path_seq = cx->seq++;
	h->tsval = (u32)cx_now_us();
	n = mro_wire_encode(h, buf, 4096);
	if (!n || n + len + METAROCE_SEAL_LEN > 4096 ||
	    rp_kdf_dgram_key(dev_key, key_len, key_id, h->sqpn, nonce, key))
		return 0;
	h->deth.key_id = key_id;
	h->deth.sender_nonce = nonce;
	buf[METAROCE_BTH_LEN + METAROCE_DETH_LEN] = key_id;
	for (i = 0; i < 7; i++)
		buf[METAROCE_BTH_LEN + METAROCE_DETH_LEN + 1 + i] =
			nonce >> (48 - 8 * i);
	if (len)
		memcpy(buf + n, payload, len);
	r = rp_dgram_seal(key, key_len, prot, key_id, ctr, buf, n, n + len);
	return r < 0 ? 0 : r;
}

void cx_recrc(u8 *buf, size_t len)
{
	mro_wire_seal(buf, len - METAROCE_CRC_LEN);
}

struct pkt *cx_probe(struct cx *cx)
{
	struct mro_hdr h;
	struct pkt *p;
	u64 end = cx_now_us() + 1000000;

	cx_req(cx, &h, METAROCE_OP_PROBE, cx->psn);
	cx_send(cx, &h, NULL, 0);
	while (cx_now_us() < end) {
		p = cx_wait(cx, METAROCE_OP_ACK, 10);
		if (p && p->h.ack.echo_seq == h.path_seq &&
		    p->h.ack.echo_path == h.path)
			return p;
	}
	return NULL;
}

struct pkt *cx_send_one(struct cx *cx, u32 psn, u32 len, bool ack_req)
{
	static u8 data[4096];
	struct mro_hdr h;
	struct pkt *p;
	u64 end;

	cx_req(cx, &h, METAROCE_OP_SEND, psn);
	h.msg.length = len;
	if (ack_req)
		h.flags |= METAROCE_F_ACK_REQ;
	memset(data, 0x5a, len < sizeof(data) ? len : sizeof(data));
	cx_send(cx, &h, data, len);
	if (!ack_req)
		return NULL;
	end = cx_now_us() + 1000000;
	while (cx_now_us() < end) {
		p = cx_wait(cx, METAROCE_OP_ACK, 10);
		if (p && p->h.ack.echo_seq == h.path_seq)
			return p;
	}
	return NULL;
}

static void ack_hdr(struct mro_hdr *h, const struct pkt *p, u32 cum,
		    u32 credit)
{
	memset(h, 0, sizeof(*h));
	h->opcode = METAROCE_OP_ACK;
	h->ack.cum_psn = cum;
	h->ack.credit_psn = credit;
	h->ack.sack_bits = METAROCE_SACK_BITS;
	h->ack.ts_echo = p->h.tsval;
	h->ack.echo_path = p->h.path;
	h->ack.echo_seq = p->h.path_seq;
}

void cx_ack(struct cx *cx, const struct pkt *p, u8 syndrome, u32 cum,
	    u32 nak_psn, u8 nak_code)
{
	struct mro_hdr h;

	ack_hdr(&h, p, cum, cum + cx->cfg.window);
	h.ack.syndrome = syndrome;
	h.ack.nak_code = nak_code;
	h.ack.nak_psn = nak_psn;
	rp_send_hdr(cx->ep, &h, NULL, 0, cx->slot, false);
}

void cx_ack_sack(struct cx *cx, const struct pkt *p, u32 cum, u32 credit,
		 const u64 *sack)
{
	struct mro_hdr h;

	ack_hdr(&h, p, cum, credit);
	h.ack.sack[0] = sack[0];
	h.ack.sack[1] = sack[1];
	rp_send_hdr(cx->ep, &h, NULL, 0, cx->slot, false);
}

bool cx_is_refpeer(const struct cx *cx)
{
	return !strcmp(cx->g->impl, "refpeer");
}

/* ---- connection setup ---- */

int cx_setup(struct cx *cx, const struct cx_opts *o)
{
	static const struct cx_opts def;
	char ip[64];
	u64 v;
	u64 end;

	if (!o)
		o = &def;
	cx->tqkey = 0x1c0ffee1;
	if (cx_agent(cx, "CREATE%s%s%s", o->ud ? " type=ud qkey=0x1c0ffee1" : "",
		     o->create ? " " : "", o->create ? o->create : "")) {
		cx_fail(cx, __LINE__, "agent CREATE: %s", cx->reply);
		return -1;
	}
	if (!agent_u64(cx->reply, "qpn", &v)) {
		cx_fail(cx, __LINE__, "CREATE answer without qpn");
		return -1;
	}
	cx->tqpn = v & 0xffffff;
	agent_u64(cx->reply, "psn", &v);
	cx->tpsn = v & 0xffffff;
	if (!agent_word(cx->reply, "ip", ip, sizeof(ip)) ||
	    !inet_aton(ip, &cx->tip)) {
		cx_fail(cx, __LINE__, "CREATE answer without ip");
		return -1;
	}
	rp_cfg_default(&cx->cfg);
	cx->cfg.local_ip = cx->g->local_ip;
	cx->cfg.peer_ip = cx->tip;
	cx->cfg.port = cx->cfg.peer_port = cx->g->port;
	cx->cfg.qpn = (rand32() & 0xffffff) | 1;
	cx->cfg.peer_qpn = cx->tqpn;
	cx->cfg.sq_psn = o->psn ? o->psn & 0xffffff : rand32() & 0xffffff;
	cx->cfg.rq_psn = cx->tpsn;
	cx->cfg.paths = o->paths ? o->paths : 4;
	cx->cfg.window = o->window ? o->window : 512;
	cx->cfg.ack_every = o->ack_every;
	cx->cfg.credit_idle_us = 0;	/* the tester's CREDITs are by hand */
	if (o->ud) {
		cx->cfg.ud = true;
		cx->cfg.paths = 1;
		cx->cfg.hello = false;
		cx->cfg.qkey = 0x7e57e57e;
	}
	/* UD too: a protected device's datagrams are sealed (PROT-18) */
	cx->cfg.prot = cx->g->prot;
	memcpy(cx->cfg.key, cx->g->key, sizeof(cx->cfg.key));
	cx->cfg.key_len = cx->g->key_len;
	cx->cfg.key_id = cx->g->key_id;
	cx->ep = rp_ep_create(&cx->cfg);
	if (!cx->ep) {
		cx_fail(cx, __LINE__, "tester endpoint: %s", strerror(errno));
		return -1;
	}
	rp_set_rx_hook(cx->ep, rx_hook, cx);
	rp_set_tx_hook(cx->ep, tx_hook, cx);
	cx->psn = cx->cfg.sq_psn;
	cx->msn = 0;
	cx->seq = rand32();
	if (cx_agent(cx, "CONNECT qpn=%u psn=%u ip=%s qkey=%u", cx->cfg.qpn,
		     cx->cfg.sq_psn, inet_ntoa(cx->g->local_ip), cx->cfg.qkey)) {
		cx_fail(cx, __LINE__, "agent CONNECT: %s", cx->reply);
		return -1;
	}
	agent_u64(cx->reply, "va", &cx->va);
	agent_u64(cx->reply, "rkey", &v);
	cx->rkey = v;
	agent_u64(cx->reply, "len", &v);
	cx->rlen = v;
	cx->flush = agent_u64(cx->reply, "flush", &v) && v;
	cx->grh = agent_u64(cx->reply, "grh", &v) ? v : 0;
	cx->tmtu = agent_u64(cx->reply, "mtu", &v) ? v : 0;
	rp_ep_connect(cx->ep);
	if (o->no_wait)
		return 0;
	end = cx_now_us() + 2000000;
	while (!rp_negotiated(cx->ep) && cx_now_us() < end)
		rp_poll(cx->ep, 5);
	if (!rp_negotiated(cx->ep)) {
		cx_fail(cx, __LINE__, "no HELLO from the target in 2 s");
		return -1;
	}
	/* let the target take our HELLO too */
	cx_pump(cx, 20);
	return 0;
}

void cx_teardown(struct cx *cx)
{
	cx_agent(cx, "DESTROY");
	rp_ep_destroy(cx->ep);
	cx->ep = NULL;
}

/* ---- rules and coverage ---- */

struct rule {
	char id[16];
	int cases, passed;
	const char *why;	/* not checkable from the wire: why */
};

/*
 * Rules no packet exchange can show: what the driver does inside, or
 * what only a fabric with several routes, a clock or a host's users
 * reveal.  They are listed, with the reason, as not covered.
 */
static const struct { const char *id, *why; } unobservable[] = {
	{ "HDR-3", "internal: which code touches byte order" },
	{ "RX-1", "internal: skb handling in the receive softirq" },
	{ "RX-44", "internal: consume_skb()/kfree_skb_reason() verdicts" },
	{ "UDP-1", "module parameter: the ports udp_port refuses" },
	{ "UDP-4", "routing: the flow key of route lookups" },
	{ "UDP-6", "UDP checksum: the tester's socket never shows it" },
	{ "PSN-3", "verbs: ib_query_qp reports" },
	{ "ACK-19", "internal: when the congestion control reads an ACK" },
	{ "ACK-26", "internal: which responses give the congestion control a sample" },
	{ "LOSS-5", "timing: the resend guard, one srtt, needs RTT control" },
	{ "LOSS-6", "internal: which PSNs the per-path rule scans" },
	{ "LOSS-9", "internal: the adaptive reordering steps" },
	{ "PATH-1", "internal: the health record" },
	{ "PATH-3", "internal: the path score" },
	{ "PATH-6", "internal: calm, needs many paths' loss statistics" },
	{ "ORD-9", "verbs: local operations in the send queue" },
	{ "ORD-10", "verbs: the local invalidate fence" },
	{ "PROT-1", "device attribute: when a connection takes mode and keys" },
	{ "PROT-4", "a QP connected to itself: no tester in that connection" },
	{ "PROT-11", "2^64 transmissions" },
	{ NULL, NULL },
};

static struct rule rules[MAX_RULES];
static unsigned int nrules;

static int load_rules(const char *path)
{
	FILE *f = fopen(path, "r");
	char line[1024];
	unsigned int i;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f) && nrules < MAX_RULES) {
		char *tab = strchr(line, '\t');

		if (!tab || tab - line >= (int)sizeof(rules[0].id))
			continue;
		*tab = 0;
		memcpy(rules[nrules].id, line, tab - line + 1);
		for (i = 0; unobservable[i].id; i++)
			if (!strcmp(unobservable[i].id, line))
				rules[nrules].why = unobservable[i].why;
		nrules++;
	}
	fclose(f);
	return nrules ? 0 : -1;
}

static void credit_rules(const char *ids, bool ok)
{
	char buf[256], *tok, *save;
	unsigned int i;

	snprintf(buf, sizeof(buf), "%s", ids);
	for (tok = strtok_r(buf, " ", &save); tok;
	     tok = strtok_r(NULL, " ", &save)) {
		for (i = 0; i < nrules; i++)
			if (!strcmp(rules[i].id, tok))
				break;
		if (i == nrules) {
			printf("# case names rule %s, which protocol.rst does not have\n",
			       tok);
			continue;
		}
		rules[i].cases++;
		rules[i].passed += ok;
	}
}

static void coverage(FILE *out)
{
	unsigned int i, with = 0, passing = 0, unobs = 0;

	for (i = 0; i < nrules; i++) {
		with += rules[i].cases > 0;
		passing += rules[i].cases > 0 &&
			   rules[i].passed == rules[i].cases;
		unobs += !rules[i].cases && rules[i].why;
	}
	fprintf(out, "# coverage: %u of %u rules have a case (%.1f %%), %u with every case passing\n",
		with, nrules, 100.0 * with / nrules, passing);
	fprintf(out, "# rule\tcases\tpassed\tnote\n");
	for (i = 0; i < nrules; i++) {
		if (rules[i].cases)
			fprintf(out, "# %s\t%d\t%d\t%s\n", rules[i].id,
				rules[i].cases, rules[i].passed,
				rules[i].passed == rules[i].cases ? "" : "FAIL");
		else
			fprintf(out, "# %s\t0\t0\t%s%s\n", rules[i].id,
				rules[i].why ? "not checkable from the wire: " :
					       "no case yet",
				rules[i].why ? rules[i].why : "");
	}
	fprintf(out, "# uncovered: %u rules (%u of them not checkable from the wire)\n",
		nrules - with, unobs);
}

/* ---- main ---- */

static void usage(void)
{
	fprintf(stderr,
"usage: conform -l LOCAL_IP --agent IP:PORT --rules FILE [options]\n"
"  -l IP              the tester's address (the target sends to it)\n"
"      --agent IP:PORT  the target's agent (kside --agent, conform-agent)\n"
"      --rules FILE   the rule list, as tools/spec-rules.py prints it\n"
"      --port N       metaroce UDP port of both ends (4796)\n"
"      --prot MODE    run the protected cases: auth or encrypt, with\n"
"                     --key HEX and --key-id N (1), the target's key\n"
"      --only PAT     run the cases whose rules or name contain PAT\n"
"      --list         list the cases and exit\n"
"      --coverage FILE  write the coverage table there too\n"
"  -v                 show the packets (-vv: and the agent dialogue)\n");
	exit(2);
}

static int agent_connect(struct conf *g, const char *where)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	char host[64], *colon;
	int i;

	snprintf(host, sizeof(host), "%s", where);
	colon = strchr(host, ':');
	if (!colon)
		return -1;
	*colon = 0;
	if (!inet_aton(host, &sa.sin_addr))
		return -1;
	sa.sin_port = htons(atoi(colon + 1));
	for (i = 0; i < 100; i++) {
		g->ag.fd = socket(AF_INET, SOCK_STREAM, 0);
		if (g->ag.fd < 0)
			return -1;
		if (!connect(g->ag.fd, (struct sockaddr *)&sa, sizeof(sa)))
			return 0;
		close(g->ag.fd);
		usleep(100000);
	}
	return -1;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "agent", 1, NULL, 'a' }, { "rules", 1, NULL, 'r' },
		{ "port", 1, NULL, 'P' }, { "prot", 1, NULL, 'p' },
		{ "key", 1, NULL, 'k' }, { "key-id", 1, NULL, 'K' },
		{ "only", 1, NULL, 'o' }, { "list", 0, NULL, 'L' },
		{ "coverage", 1, NULL, 'c' }, { "help", 0, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static const struct ccase *sets[] = {
		cases_rx, cases_resp, cases_req, cases_neg, cases_ud, cases_timer,
		cases_loss, cases_path, cases_uc,
	};
	const struct ccase *run[MAX_CASES];
	const char *agent = NULL, *rules_file = NULL, *only = NULL;
	const char *cov_file = NULL;
	struct conf g = { .port = METAROCE_DEFAULT_UDP_PORT, .key_id = 1 };
	struct cx cx;
	unsigned int nrun = 0, i, j, failed = 0, skipped = 0;
	bool list = false;
	int ch, n;

	while ((ch = getopt_long(argc, argv, "l:vh", lo, NULL)) != -1) {
		switch (ch) {
		case 'l':
			if (!inet_aton(optarg, &g.local_ip))
				usage();
			break;
		case 'a': agent = optarg; break;
		case 'r': rules_file = optarg; break;
		case 'P': g.port = atoi(optarg); break;
		case 'p':
			if (!strcmp(optarg, "auth"))
				g.prot = METAROCE_PROT_AUTH;
			else if (!strcmp(optarg, "encrypt"))
				g.prot = METAROCE_PROT_ENCRYPT;
			else if (strcmp(optarg, "none"))
				usage();
			break;
		case 'k':
			n = agent_unhex(optarg, g.key, RP_MAX_KEY);
			if (n != 16 && n != 32)
				usage();
			g.key_len = n;
			break;
		case 'K': g.key_id = atoi(optarg); break;
		case 'o': only = optarg; break;
		case 'L': list = true; break;
		case 'c': cov_file = optarg; break;
		case 'v': g.verbose++; break;
		default: usage();
		}
	}
	for (i = 0; i < sizeof(sets) / sizeof(sets[0]); i++)
		for (j = 0; sets[i][j].fn && nrun < MAX_CASES; j++) {
			const struct ccase *c = &sets[i][j];

			if (only && !strstr(c->rules, only) &&
			    !strstr(c->name, only))
				continue;
			/* a protected run runs the protection cases only */
			if (!(c->flags & CF_PROT) != !g.prot)
				continue;
			run[nrun++] = c;
		}
	if (list) {
		for (i = 0; i < nrun; i++)
			printf("[%s] %s\n", run[i]->rules, run[i]->name);
		return 0;
	}
	if (!agent || !rules_file || !g.local_ip.s_addr ||
	    (g.prot && !g.key_len))
		usage();
	if (load_rules(rules_file)) {
		fprintf(stderr, "conform: no rules in %s\n", rules_file);
		return 2;
	}
	if (agent_connect(&g, agent)) {
		fprintf(stderr, "conform: no agent at %s\n", agent);
		return 2;
	}
	memset(&cx, 0, sizeof(cx));
	cx.g = &g;
	cx.q = calloc(CX_MAX_PKTS, sizeof(*cx.q));
	if (!cx.q)
		return 2;
	if (!cx_agent(&cx, "INFO")) {
		printf("# target: %s\n", cx.reply + 3);
		agent_word(cx.reply, "impl", g.impl, sizeof(g.impl));
	}
	printf("TAP version 13\n1..%u\n", nrun);
	for (i = 0; i < nrun; i++) {
		const struct ccase *c = run[i];
		u64 t0 = cx_now_us();

		cx.fails = 0;
		cx.skip = NULL;
		cx.nq = 0;
		cx.refused = 0;
		cx.pass = false;
		cx.block_hello = false;
		cx.hellos_out = 0;
		cx.slot = 0;
		cx.nctr0 = 0;
		cx.raw_len = 0;
		cx.raw_why[0] = 0;
		fflush(stdout);
		if (!(c->flags & CF_MANUAL) && cx_setup(&cx, NULL)) {
			if (!cx.fails)
				cx.fails++;
		} else {
			c->fn(&cx);
		}
		if (cx.ep)
			cx_teardown(&cx);
		if (cx.skip && !cx.fails) {
			/* a skipped case checks nothing: no rule credited */
			printf("ok %u - [%s] %s # SKIP %s\n", i + 1, c->rules,
			       c->name, cx.skip);
			skipped++;
			continue;
		}
		printf("%s %u - [%s] %s # %.0f ms\n", cx.fails ? "not ok" : "ok",
		       i + 1, c->rules, c->name, (cx_now_us() - t0) / 1000.0);
		failed += cx.fails > 0;
		credit_rules(c->rules, !cx.fails);
	}
	printf("# %u cases, %u passed, %u failed, %u skipped\n", nrun,
	       nrun - failed - skipped, failed, skipped);
	coverage(stdout);
	if (cov_file) {
		FILE *f = fopen(cov_file, "w");

		if (f) {
			coverage(f);
			fclose(f);
		}
	}
	free(cx.q);
	return failed ? 1 : 0;
}
