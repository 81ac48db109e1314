/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the transport made of a received packet that passed the wire
 * decoder (mro_wire.c): every handler of the receive path returns one of
 * these.  MRO_RXV_OK means the transport took the packet: placed it,
 * executed it, answered it or applied its acknowledgment; a duplicate
 * (MRO_RXV_DUP: a request answered again, or a response to a PSN already
 * placed, as a resent request brings) is counted; both are consume_skb()d.
 * Every other verdict names the acceptance rule (protocol.rst, "Receive
 * validation" onwards) that refused the packet, before it changed any
 * sender, receiver or congestion state: the dispatcher (mro_rcv()) counts
 * it in the verdict's counter and frees it with kfree_skb_reason(), so
 * `perf trace -e skb:kfree_skb` and dropwatch see metaroce's drops with a
 * reason and the function that made them.
 */
#ifndef MRO_RXVERDICT_H
#define MRO_RXVERDICT_H

enum mro_rx_verdict {
	MRO_RXV_OK = 0,
	MRO_RXV_NO_QP,		/* no QP of the destination number */
	MRO_RXV_QP_MISMATCH,	/* not of the QP's type, peer address or QPN */
	MRO_RXV_QP_STATE,	/* the QP takes no such packet in its state */
	MRO_RXV_FIELD,		/* a field the QP cannot take */
	MRO_RXV_WINDOW,		/* PSN or message outside every window */
	MRO_RXV_DUP,		/* received before: answered again, or ignored */
	MRO_RXV_DUP_REQ,		/* duplicate READ/atomic with nothing to replay */
	MRO_RXV_ERR_AHEAD,	/* fails ahead of the next PSN: judged when resent */
	MRO_RXV_KEY_WAIT,	/* behind a key fence: resent later */
	MRO_RXV_BUSY,		/* no receive WQE or pending slot now: resent */
	MRO_RXV_FAILED,		/* failed at the next PSN: NAKed, the QP ends */
	MRO_RXV_QKEY,		/* UD: wrong Q_Key */
	MRO_RXV_NO_WQE,		/* UD: no receive WQE */
	MRO_RXV_ACK_RANGE,	/* ACK/NAK for PSNs never sent or long acked */
	MRO_RXV_ACK_ECHO,	/* ACK/NAK echoing no transmission of ours */
	MRO_RXV_STALE_RESP,	/* response to no outstanding READ/atomic */
	MRO_RXV_BAD_FEEDBACK,	/* CREDIT granting past any window */
	MRO_RXV_NEGOTIATION,	/* HELLO: the contracts differ, the QP ends */
	MRO_RXV_AUTH,		/* protection: tag fails, or sealed/unsealed wrong */
	MRO_RXV_REPLAY,		/* protection: counter value seen or too old */
	MRO_RXV_UNKEYED,	/* protection: sealed, and our keys not ready */
	MRO_RXV_NOMEM,		/* no memory to open the packet */
	/*
	 * a datagram kept until its sender's key is derived (mro_dgram.c),
	 * which then delivers or drops it: neither counted nor freed here
	 */
	MRO_RXV_HELD,
	MRO_RXV_NR_VERDICTS
};

#endif /* MRO_RXVERDICT_H */
