/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * metaroce requester ACK policy: when a packet asks for an ACK, and when
 * a window that stopped new data opens again (the transport's send
 * window, the congestion window, the receiver's grant).  The two are one
 * contract: a sender stops only where an ACK is sure to come, and
 * reopens only with enough room that it does not ask for an ACK per
 * packet.  The responder's side is the rhythm in mro_psn.h.  Pure C
 * (KUnit suite metaroce_ackpol); see Documentation/metaroce/design.rst.
 */
#ifndef MRO_ACKPOL_H
#define MRO_ACKPOL_H

#include <linux/types.h>

/*
 * The transport window: whether @n more PSNs must wait with @inflight of
 * @win out.  Once closed (*@closed) it opens again with an eighth free.
 */
bool mro_ackpol_txwin_wait(u32 inflight, u32 win, u32 n, bool *closed);

/*
 * Whether @n more packets must wait with @pipe of @cwnd in the network.
 * Silly-window avoidance: a window that closed (*@closed) reopens only
 * when a quarter of it, and at least the ACK rhythm's step when it is
 * large enough, is free.  Reopened a packet at a time, every packet would
 * end a burst and ask for an ACK: one ACK per packet, which costs more
 * CPU than the data.
 */
bool mro_ackpol_cwnd_wait(u32 pipe, u32 cwnd, u32 n, bool *closed);

/*
 * The same for the receiver's grant: whether @n more PSNs must wait with
 * @avail of it left and @span granted past the oldest PSN out.  A grant
 * that stopped new data (*@closed) reopens only when a quarter of @span,
 * at most the ACK rhythm's step, is free: resumed on the few PSNs each
 * ACK grants, a credit-limited sender would ask for an ACK every two or
 * three packets.  The caller lets a sender with nothing out go on
 * regardless: no ACK would come to open it.
 */
bool mro_ackpol_credit_wait(u32 avail, u32 span, u32 n, bool *closed);

/*
 * How many of @n packets to send as one burst the sender cannot pace
 * (the responses to one READ_REQ): no more than the window (@cwnd less
 * @pipe) and the grant (@credit) have room for, but not fewer than the
 * window's reopening share: a smaller burst fails mro_ackpol_cwnd_wait()
 * and waits for that share, so a closed window is not refilled a packet
 * at a time.  At least 1 when @n is.
 */
u32 mro_ackpol_burst_size(u32 n, u32 pipe, u32 cwnd, u32 credit);

/*
 * The requester's ACK rhythm for a window of @cwnd PSNs: the responder's
 * (MRO_ACK_EVERY) once the window holds two of it, else the largest power
 * of two at most half the window (at least 2): the PSNs that end such a
 * span ask.
 */
u32 mro_ackpol_span(u32 cwnd);

/*
 * Whether the packet with @psn must ask for an ACK (mro_psn.h rhythm):
 * with @pipe PSNs in the network once it left, of a window of @cwnd, the
 * oldest unacknowledged PSN @una and @credit more PSNs granted after it.
 * It asks when it ends a span of mro_ackpol_span() (below two rhythms),
 * or when the grant, or the window, stops the sender before the next PSN
 * acknowledged unasked or asking, unless the ACK of the last such PSN,
 * still to come, will reopen the window (mro_ackpol_cwnd_wait()).
 */
bool mro_ackpol_need_ack(u32 psn, u32 una, u32 cwnd, u32 pipe, u32 credit);

/*
 * Whether the packet with @psn must ask because it fills the transport
 * window of @win from @una: nothing more leaves until an ACK comes.
 */
static inline bool mro_ackpol_txwin_ask(u32 psn, u32 una, u32 win)
{
	return psn + 1 - una >= win;
}

#endif /* MRO_ACKPOL_H */
