#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""mkcapture.py: a pcap of metaroce packets with known contents, and what a
dissector must make of them.

Usage: mkcapture.py CAPTURE.pcap EXPECTED.json [FUZZ.pcap]

The capture (raw IP link type, IPv4 and one IPv6 packet, UDP to port 4796
from the path ports 512..1023) holds:

  valid      one packet or more of every opcode without protection (CRC32C
             trailer), HELLOs of the three protection modes, and every
             opcode that may be sealed with the SEALED flag and the 24-byte
             trailer (16-byte tag, be64 counter), the datagrams with the
             datagram seal extension besides.  auth and encrypt look the
             same on the wire; the tags are random, as nothing here holds the
             keys to compute them
  warn       a valid packet from a source port outside 512..1023
  malformed  packets the driver's decode (mro_wire.c) drops, one reason each
  port       a valid packet to UDP port 5000: decoded only when the
             dissector's port preference says 5000

EXPECTED.json is a list with one object per frame, in capture order:
{"frame": N, "name": ..., "kind": valid|warn|malformed|port,
 "fields": {filter name: value or list of values}, "experts": [expert
 filter names]}.  Field names are protocol.rst's, as metaroce.<header>.<field>.
"""
import json
import random
import struct
import sys

UDP_PORT = 4796		# METAROCE_DEFAULT_UDP_PORT
ALT_PORT = 5000		# the port of the "port" packet
VERSION = 2
OP = {'SEND': 0x01, 'SEND_IMM': 0x02, 'SEND_INV': 0x03, 'WRITE': 0x04,
      'WRITE_IMM': 0x05, 'READ_REQ': 0x06, 'CMP_SWAP': 0x07, 'FETCH_ADD': 0x08,
      'FLUSH': 0x09, 'ATOMIC_WRITE': 0x0a, 'READ_RESP': 0x10,
      'ATOMIC_RESP': 0x11, 'ACK': 0x12, 'UD_SEND': 0x20, 'UD_SEND_IMM': 0x21,
      'PROBE': 0x30, 'CREDIT': 0x31, 'HELLO': 0x32}
FLAGS = {'first': 0x1, 'last': 0x2, 'ack_req': 0x4, 'solicited': 0x8,
         'retx': 0x10, 'ect': 0x20, 'new_port': 0x40, 'ack_piggy': 0x80,
         'sealed': 0x100}
F = {k.upper(): v for k, v in FLAGS.items()}

# protocol.rst's headers: (field, struct format) in wire order, big-endian
LAYOUT = {
    'bth': [('ver', 'B'), ('opcode', 'B'), ('flags', 'H'), ('dqpn', 'I'),
            ('sqpn', 'I'), ('psn', 'I'), ('path', 'H'), ('hdr_len', 'H'),
            ('path_seq', 'I'), ('tsval', 'I')],
    'msg': [('msn', 'I'), ('offset', 'I'), ('length', 'I'), ('imm', 'I'),
            ('va', 'Q'), ('rkey', 'I'), ('first_psn', 'I')],
    'read_resp': [('offset', 'I'), ('ts_echo', 'I')],
    'atomic': [('va', 'Q'), ('rkey', 'I'), ('msn', 'I'), ('swap_add', 'Q'),
               ('compare', 'Q')],
    'flush': [('va', 'Q'), ('rkey', 'I'), ('length', 'I'), ('msn', 'I'),
              ('type', 'B'), ('level', 'B'), ('rsvd', 'H')],
    'atomic_resp': [('orig', 'Q')],
    'ack': [('syndrome', 'B'), ('nak_code', 'B'), ('sack_bits', 'H'),
            ('cum_psn', 'I'), ('nak_psn', 'I'), ('credit_psn', 'I'),
            ('sack', '2Q'), ('ts_echo', 'I'), ('echo_path', 'H'),
            ('ecn_ce', 'H'), ('echo_seq', 'I'), ('rsvd', 'I')],
    'deth': [('qkey', 'I'), ('imm', 'I')],
    # sender_nonce: 56 bits, big-endian
    'dseal': [('key_id', 'B'), ('sender_nonce', '7s')],
    'ctrl': [('token', 'I'), ('credit_psn', 'I'), ('rsvd', 'I')],
    'hello': [('prot', 'B'), ('key_id', 'B'), ('ack_every', 'H'),
              ('msg_window', 'H'), ('sack_bits', 'H'), ('prev_key_id', 'B'),
              ('rsvd', '3s'), ('window', 'I'), ('nonce', 'Q'), ('echo', 'Q')],
}
EXT = {}
for _op in ('SEND', 'SEND_IMM', 'SEND_INV', 'WRITE', 'WRITE_IMM', 'READ_REQ'):
    EXT[OP[_op]] = 'msg'
for _op in ('CMP_SWAP', 'FETCH_ADD', 'ATOMIC_WRITE'):
    EXT[OP[_op]] = 'atomic'
EXT.update({OP['FLUSH']: 'flush', OP['READ_RESP']: 'read_resp',
            OP['ATOMIC_RESP']: 'atomic_resp', OP['ACK']: 'ack',
            OP['UD_SEND']: 'deth', OP['UD_SEND_IMM']: 'deth',
            OP['PROBE']: 'ctrl', OP['CREDIT']: 'ctrl', OP['HELLO']: 'hello'})
BTH_LEN = 28
DSEAL_LEN = 8		# METAROCE_DSEAL_LEN


def fmt(hdr):
    return '>' + ''.join(f for _, f in LAYOUT[hdr])


def ext_len(op):
    return struct.calcsize(fmt(EXT[op]))


assert struct.calcsize(fmt('dseal')) == DSEAL_LEN


def may_seal(op):
    """mro_wire_flags_valid(): SEALED is valid on every opcode but HELLO
    (protocol.rst, RX-6)"""
    return op != OP['HELLO']


def is_request(op):
    return OP['SEND'] <= op <= OP['ATOMIC_WRITE']


def crc32c_table():
    table = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ 0x82f63b78 if c & 1 else c >> 1
        table.append(c)
    return table


CRC_TABLE = crc32c_table()


def crc32c(data):
    c = 0xffffffff
    for b in data:
        c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >> 8)
    return c ^ 0xffffffff


# protocol.rst: the standard CRC-32C, check value 0xE3069283
assert crc32c(b'123456789') == 0xe3069283


def pack(hdr, values):
    out = []
    for name, f in LAYOUT[hdr]:
        v = values[name]
        if f == '2Q':
            out.extend(v)
        elif f.endswith('s'):
            out.append(v.to_bytes(int(f[:-1]), 'big'))
        else:
            out.append(v)
    return struct.pack(fmt(hdr), *out)


def expected_fields(hdr, values):
    return {'metaroce.%s.%s' % (hdr, k): v for k, v in values.items()}


def sack_ranges(cum_psn, words):
    """the PSN ranges of the set bits of the two SACK words: bit i (word
    i / 64, bit i % 64 from the least significant) is PSN cum_psn + 1 + i"""
    bits = [(words[i // 64] >> (i % 64)) & 1 for i in range(128)]
    ranges, start = [], None
    for i, b in enumerate(bits + [0]):
        if b and start is None:
            start = i
        elif not b and start is not None:
            ranges.append((start, i - 1))
            start = None
    out = []
    for a, b in ranges:
        first, last = (cum_psn + 1 + a) & 0xffffffff, (cum_psn + 1 + b) & 0xffffffff
        out.append((str(first) if first == last else '%d-%d' % (first, last),
                    first, last))
    return out


class Capture:
    def __init__(self, seed=4796):
        self.r = random.Random(seed)
        self.frames = []	# (ip packet, expected entry)
        self.path_seq = {}
        self.counter = 0

    def bth(self, op, flags, **kw):
        v = {'ver': VERSION << 4, 'opcode': op, 'flags': flags,
             'dqpn': 0x12, 'sqpn': 0x11, 'psn': self.r.getrandbits(24),
             'path': self.r.randrange(8), 'hdr_len': None,
             'path_seq': self.r.getrandbits(32), 'tsval': self.r.getrandbits(32)}
        v.update(kw)
        return v

    def packet(self, name, op, ext, flags=0, payload=b'', ack_psn=None,
               kind='valid', experts=(), bth=None, trailer=None, cut=None,
               sport=None, dport=UDP_PORT, ipv6=False, check_fields=True,
               dseal=None):
        """one metaroce packet: BTH (bth overrides its fields), the extension
        values ext, the datagram seal extension values dseal, ack_psn (with
        ACK_PIGGY), the payload and the trailer: the CRC unless flags has
        SEALED; trailer replaces the computed one, cut truncates the UDP
        payload.  hdr_len counts what is there; a sealed datagram without
        dseal has none"""
        sealed = flags & F['SEALED']
        hdr = EXT.get(op)
        hdr_len = BTH_LEN + (ext_len(op) if hdr else 0) + \
            (DSEAL_LEN if dseal is not None else 0) + \
            (4 if ack_psn is not None else 0)
        b = self.bth(op, flags, **dict({'hdr_len': hdr_len}, **(bth or {})))
        body = pack('bth', b)
        exp = expected_fields('bth', b)
        exp['metaroce.bth.ver.version'] = b['ver'] >> 4
        exp['metaroce.bth.ver.reserved'] = b['ver'] & 0xf
        for fname, bitv in FLAGS.items():
            exp['metaroce.bth.flags.' + fname] = bool(b['flags'] & bitv)
        if hdr:
            body += pack(hdr, ext)
            exp.update(expected_fields(hdr, ext))
        if dseal is not None:
            body += pack('dseal', dseal)
            exp.update(expected_fields('dseal', dseal))
        if ack_psn is not None:
            body += struct.pack('>I', ack_psn)
            exp['metaroce.ack_psn'] = ack_psn
        body += payload
        exp['metaroce.payload_len'] = len(payload)
        if payload:
            exp['metaroce.payload'] = payload.hex(':')
        if hdr == 'ack':
            rs = sack_ranges(ext['cum_psn'], ext['sack'])
            if rs:
                exp['metaroce.ack.sack_range'] = [t for t, _, _ in rs]
                exp['metaroce.ack.sack_range.first'] = [f for _, f, _ in rs]
                exp['metaroce.ack.sack_range.last'] = [la for _, _, la in rs]
        if hdr == 'flush':
            exp['metaroce.flush.type.global'] = bool(ext['type'] & 1)
            exp['metaroce.flush.type.persistent'] = bool(ext['type'] & 2)
        if sealed:
            tag = self.r.randbytes(16)
            self.counter += 1
            body += tag + struct.pack('>Q', self.counter)
            exp['metaroce.seal.tag'] = tag.hex(':')
            exp['metaroce.seal.counter'] = self.counter
        else:
            crc = crc32c(body)
            body += struct.pack('>I', crc if trailer is None else trailer)
            exp['metaroce.crc'] = crc if trailer is None else trailer
            exp['metaroce.crc.computed'] = crc
            exp['metaroce.crc.status'] = int(trailer is None or trailer == crc)
        if cut is not None:
            body = body[:cut]
        if sport is None:
            sport = 512 + (b['path'] * 37 % 512)
        ip = udp_ip(body, sport, dport, ipv6)
        self.frames.append((ip, {'name': name, 'kind': kind,
                                 'fields': exp if check_fields else {},
                                 'experts': sorted(experts)}))
        return body

    def write(self, pcap_path, json_path):
        write_pcap(pcap_path, [pkt for pkt, _ in self.frames])
        out = []
        for i, (_, e) in enumerate(self.frames):
            e = dict(e, frame=i + 1)
            out.append(e)
        with open(json_path, 'w') as f:
            json.dump(out, f, indent=1)
            f.write('\n')


def csum16(data):
    if len(data) % 2:
        data += b'\0'
    s = sum(struct.unpack('>%dH' % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff


def udp_ip(payload, sport, dport, ipv6):
    """an IPv4 (DF, UDP checksum 0, as the driver sends) or IPv6 (UDP
    checksum computed) datagram from 10.0.0.1 / fd00::1 to .2 / ::2"""
    ulen = 8 + len(payload)
    if not ipv6:
        src, dst = bytes([10, 0, 0, 1]), bytes([10, 0, 0, 2])
        udp = struct.pack('>HHHH', sport, dport, ulen, 0) + payload
        iph = struct.pack('>BBHHHBBH4s4s', 0x45, 0, 20 + ulen, 0, 0x4000, 64, 17,
                          0, src, dst)
        iph = iph[:10] + struct.pack('>H', csum16(iph)) + iph[12:]
        return iph + udp
    src = bytes.fromhex('fd00' + '00' * 13 + '01')
    dst = bytes.fromhex('fd00' + '00' * 13 + '02')
    udp = struct.pack('>HHHH', sport, dport, ulen, 0) + payload
    pseudo = src + dst + struct.pack('>IxxxB', ulen, 17)
    c = csum16(pseudo + udp) or 0xffff
    udp = udp[:6] + struct.pack('>H', c) + udp[8:]
    return struct.pack('>IHBB16s16s', 0x60000000, ulen, 17, 64, src, dst) + udp


def msg(msn=0, offset=0, length=0, imm=0, va=0, rkey=0, first_psn=0):
    return {'msn': msn, 'offset': offset, 'length': length, 'imm': imm, 'va': va,
            'rkey': rkey, 'first_psn': first_psn}


def atomic(va=0x7f0000001000, rkey=0x1234, msn=3, swap_add=1, compare=0):
    return {'va': va, 'rkey': rkey, 'msn': msn, 'swap_add': swap_add,
            'compare': compare}


def flush(type_=1, level=0, rsvd=0):
    return {'va': 0x7f0000002000, 'rkey': 0x4321, 'length': 4096, 'msn': 4,
            'type': type_, 'level': level, 'rsvd': rsvd}


def ack(syndrome=0, nak_code=0, sack_bits=128, cum_psn=1000, sack=(0, 0),
        rsvd=0, nak_psn=0):
    return {'syndrome': syndrome, 'nak_code': nak_code, 'sack_bits': sack_bits,
            'cum_psn': cum_psn, 'nak_psn': nak_psn,
            'credit_psn': (cum_psn + 512) & 0xffffffff,
            'sack': list(sack), 'ts_echo': 0x12345678, 'echo_path': 3,
            'ecn_ce': 7, 'echo_seq': 0xdeadbeef, 'rsvd': rsvd}


def ctrl(token=77, credit_psn=0, rsvd=0):
    return {'token': token, 'credit_psn': credit_psn, 'rsvd': rsvd}


def dseal(key_id=1, sender_nonce=0x00c0ffee123456):
    return {'key_id': key_id, 'sender_nonce': sender_nonce}


def hello(prot=0, key_id=0, prev_key_id=0, echo=0, nonce=0x0123456789abcdef,
          rsvd=0):
    return {'prot': prot, 'key_id': key_id, 'ack_every': 32, 'msg_window': 64,
            'sack_bits': 128, 'prev_key_id': prev_key_id, 'rsvd': rsvd,
            'window': 512, 'nonce': nonce, 'echo': echo}


def sack_words(*psn_bits):
    """the two SACK words with the given bit indexes set"""
    w = [0, 0]
    for i in psn_bits:
        w[i // 64] |= 1 << (i % 64)
    return w


def valid(c):
    r = c.r
    p64 = r.randbytes(64)
    big = r.randbytes(1384)
    va = 0x7f1234560000
    c.packet('SEND one-packet message, piggybacked ACK', OP['SEND'],
             msg(msn=5, length=64, first_psn=100),
             F['FIRST'] | F['LAST'] | F['ACK_REQ'] | F['SOLICITED'] | F['ECT'] |
             F['ACK_PIGGY'], p64, ack_psn=0xfffffff0, bth={'psn': 100})
    c.packet('SEND_IMM first packet of three', OP['SEND_IMM'],
             msg(msn=6, length=4000, imm=0xcafef00d, first_psn=101),
             F['FIRST'] | F['ECT'], big, bth={'psn': 101})
    c.packet('SEND_INV last packet', OP['SEND_INV'],
             msg(msn=7, offset=2768, length=2768 + 64, imm=0x5a5a, first_psn=200),
             F['LAST'] | F['ECT'], p64)
    c.packet('WRITE middle packet, retransmission', OP['WRITE'],
             msg(msn=8, offset=1384, length=4096, va=va, rkey=0xabcd,
                 first_psn=300), F['RETX'] | F['ECT'], big)
    c.packet('WRITE_IMM one packet', OP['WRITE_IMM'],
             msg(msn=8, length=64, imm=0x11223344, va=va, rkey=0xabcd, first_psn=400),
             F['FIRST'] | F['LAST'], p64)
    c.packet('READ_REQ', OP['READ_REQ'],
             msg(msn=9, offset=0, length=1 << 20, imm=1024, va=va, rkey=0xabce,
                 first_psn=500), F['FIRST'] | F['ACK_REQ'], bth={'psn': 500})
    c.packet('CMP_SWAP', OP['CMP_SWAP'],
             atomic(swap_add=0xffffffffffffffff, compare=0x8000000000000000),
             F['FIRST'] | F['LAST'] | F['ACK_REQ'])
    c.packet('FETCH_ADD', OP['FETCH_ADD'], atomic(swap_add=42),
             F['FIRST'] | F['LAST'] | F['ACK_REQ'])
    c.packet('FLUSH global, range', OP['FLUSH'], flush(1, 0), F['ACK_REQ'])
    c.packet('FLUSH both, whole region', OP['FLUSH'], flush(3, 1), F['ACK_REQ'])
    c.packet('ATOMIC_WRITE', OP['ATOMIC_WRITE'],
             atomic(swap_add=0x0102030405060708), F['FIRST'] | F['LAST'] | F['ACK_REQ'])
    c.packet('READ_RESP first segment', OP['READ_RESP'],
             {'offset': 0, 'ts_echo': 0x0badcafe}, F['FIRST'], big)
    c.packet('READ_RESP last segment', OP['READ_RESP'],
             {'offset': 1024 * 1023, 'ts_echo': 0}, F['LAST'], r.randbytes(1024))
    c.packet('ATOMIC_RESP', OP['ATOMIC_RESP'], {'orig': 0xfedcba9876543210},
             F['ECT'], bth={'path_seq': 0})
    c.packet('ACK with SACK ranges', OP['ACK'],
             ack(sack=sack_words(0, 1, 2, 5, 63, 64, 65, 127)), F['ECT'],
             bth={'psn': 0, 'path_seq': 0})
    c.packet('ACK, SACK of 70 bits', OP['ACK'],
             ack(sack_bits=70, sack=sack_words(3, 69)), bth={'psn': 0, 'path_seq': 0})
    c.packet('ACK, SACK across the PSN wrap', OP['ACK'],
             ack(cum_psn=0xfffffffd, sack=sack_words(0, 1, 2, 3, 10)),
             bth={'psn': 0, 'path_seq': 0})
    c.packet('RNR_NAK', OP['ACK'], ack(syndrome=1, nak_code=12, sack_bits=0,
                                       nak_psn=1000), bth={'psn': 0, 'path_seq': 0})
    for syn in range(2, 6):
        c.packet('NAK syndrome %d' % syn, OP['ACK'],
                 ack(syndrome=syn, sack_bits=0, nak_psn=1000),
                 bth={'psn': 0, 'path_seq': 0})
    c.packet('UD_SEND over IPv6', OP['UD_SEND'], {'qkey': 0x80010000, 'imm': 0},
             F['FIRST'] | F['LAST'], r.randbytes(256), ipv6=True)
    c.packet('UD_SEND_IMM', OP['UD_SEND_IMM'], {'qkey': 0x11111111, 'imm': 0x99},
             F['FIRST'] | F['LAST'] | F['SOLICITED'], p64)
    c.packet('PROBE', OP['PROBE'], ctrl(token=12345), F['ACK_REQ'] | F['ECT'],
             bth={'path_seq': 12345})
    c.packet('PROBE re-probe on a fresh port', OP['PROBE'], ctrl(token=9),
             F['ACK_REQ'] | F['NEW_PORT'], bth={'path_seq': 9})
    c.packet('CREDIT', OP['CREDIT'], ctrl(token=0, credit_psn=5000), F['ECT'],
             bth={'psn': 4488})
    c.packet('HELLO prot none', OP['HELLO'], hello(0), F['ACK_REQ'],
             bth={'path': 0, 'path_seq': 0})
    c.packet('HELLO prot auth', OP['HELLO'], hello(1, key_id=3, prev_key_id=2,
                                                   echo=0x1111222233334444),
             bth={'path': 0, 'path_seq': 0})
    c.packet('HELLO prot encrypt', OP['HELLO'], hello(2, key_id=255, nonce=1),
             F['ACK_REQ'], bth={'path': 0, 'path_seq': 0})


def valid_sealed(c):
    """every opcode that may carry SEALED (may_seal(): all but HELLO), the
    datagrams with the datagram seal extension"""
    r = c.r
    p = r.randbytes(100)
    s = F['SEALED']
    first = len(c.frames)
    c.packet('sealed SEND, piggybacked ACK', OP['SEND'], msg(msn=1, length=100),
             s | F['FIRST'] | F['LAST'] | F['ACK_PIGGY'], p, ack_psn=77)
    c.packet('sealed SEND_IMM', OP['SEND_IMM'], msg(msn=2, length=100, imm=1),
             s | F['FIRST'] | F['LAST'], p)
    c.packet('sealed SEND_INV', OP['SEND_INV'], msg(msn=3, offset=50, length=150, imm=2),
             s | F['LAST'], p)
    c.packet('sealed WRITE', OP['WRITE'], msg(msn=4, length=1000, va=8, rkey=9),
             s | F['FIRST'], p)
    c.packet('sealed WRITE_IMM', OP['WRITE_IMM'],
             msg(msn=4, length=100, va=8, rkey=9, imm=5), s | F['FIRST'] | F['LAST'], p)
    c.packet('sealed READ_REQ', OP['READ_REQ'],
             msg(msn=5, length=4096, imm=4096, va=16, rkey=9), s | F['ACK_REQ'])
    c.packet('sealed CMP_SWAP', OP['CMP_SWAP'], atomic(compare=5), s | F['ACK_REQ'])
    c.packet('sealed FETCH_ADD', OP['FETCH_ADD'], atomic(), s | F['ACK_REQ'])
    c.packet('sealed FLUSH', OP['FLUSH'], flush(2, 0), s | F['ACK_REQ'])
    c.packet('sealed ATOMIC_WRITE', OP['ATOMIC_WRITE'], atomic(), s | F['ACK_REQ'])
    c.packet('sealed READ_RESP', OP['READ_RESP'], {'offset': 4096, 'ts_echo': 3},
             s | F['LAST'], p)
    c.packet('sealed ATOMIC_RESP', OP['ATOMIC_RESP'], {'orig': 1}, s)
    c.packet('sealed ACK', OP['ACK'], ack(sack=sack_words(7, 8)), s | F['ECT'],
             bth={'psn': 0, 'path_seq': 0})
    c.packet('sealed PROBE', OP['PROBE'], ctrl(), s | F['ACK_REQ'] | F['NEW_PORT'])
    c.packet('sealed CREDIT', OP['CREDIT'], ctrl(token=0, credit_psn=9), s)
    c.packet('sealed UD_SEND', OP['UD_SEND'], {'qkey': 0x80010000, 'imm': 0},
             s | F['FIRST'] | F['LAST'], p,
             dseal=dseal(3, r.randrange(1, 1 << 56)))
    c.packet('sealed UD_SEND_IMM, key_id 255, sender_nonce 1', OP['UD_SEND_IMM'],
             {'qkey': 0x11111111, 'imm': 0x99},
             s | F['FIRST'] | F['LAST'] | F['SOLICITED'], p, dseal=dseal(255, 1))
    c.packet('sealed UD_SEND over IPv6, sender_nonce 2^55, no payload',
             OP['UD_SEND'], {'qkey': 0x80010000, 'imm': 0}, s | F['FIRST'] | F['LAST'],
             dseal=dseal(1, 1 << 55), ipv6=True)
    sealed = {e['fields']['metaroce.bth.opcode'] for _, e in c.frames[first:]}
    want = {op for op in OP.values() if may_seal(op)}
    assert sealed == want, 'sealed opcodes %s, want %s' % (sorted(sealed), sorted(want))


def malformed(c):
    """each drops in the driver's decode for one reason, flagged by the
    expert info named"""
    r = c.r
    p = r.randbytes(32)

    def bad(name, expert, op, ext, flags=0, payload=b'', **kw):
        c.packet(name, op, ext, flags, payload, kind='malformed',
                 experts=[expert], check_fields=False, **kw)

    send = msg(length=32)
    fl = F['FIRST'] | F['LAST']
    bad('shorter than BTH + CRC', 'metaroce.short', OP['SEND'], send, fl, p, cut=20)
    bad('one byte', 'metaroce.short', OP['SEND'], send, fl, p, cut=1)
    bad('cut in the extension', 'metaroce.short', OP['SEND'], send, fl, p, cut=40)
    bad('sealed, no room for the tag', 'metaroce.short', OP['ACK'], ack(),
        F['SEALED'], cut=BTH_LEN + 48 + 20)
    bad('version 1', 'metaroce.version', OP['SEND'], send, fl, p, bth={'ver': 0x10})
    bad('reserved nibble of ver', 'metaroce.version', OP['SEND'], send, fl, p,
        bth={'ver': 0x21})
    bad('unknown opcode 0x13', 'metaroce.opcode.unknown', 0x13, None)
    bad('unknown opcode 0x00', 'metaroce.opcode.unknown', 0x00, None, payload=p)
    bad('hdr_len of another opcode', 'metaroce.hdr_len.bad', OP['ACK'], ack(),
        bth={'hdr_len': 60})
    bad('hdr_len with ack_psn, no ACK_PIGGY', 'metaroce.hdr_len.bad', OP['SEND'],
        send, fl, p, bth={'hdr_len': 64})
    bad('ACK_PIGGY, hdr_len without ack_psn', 'metaroce.hdr_len.bad', OP['READ_REQ'],
        msg(length=64, imm=1024), F['ACK_PIGGY'] | F['ACK_REQ'],
        payload=b'\0\0\0\1')
    bad('CRC mismatch', 'metaroce.crc.bad', OP['SEND'], send, fl, p,
        trailer=0x12345678)
    bad('undefined flag 0x0200', 'metaroce.field.invalid', OP['SEND'], send,
        fl | 0x200, p)
    bad('NEW_PORT on SEND', 'metaroce.field.invalid', OP['SEND'], send,
        fl | F['NEW_PORT'], p)
    bad('ACK_PIGGY on ACK', 'metaroce.field.invalid', OP['ACK'], ack(),
        F['ACK_PIGGY'])
    bad('SEALED on HELLO', 'metaroce.field.invalid', OP['HELLO'], hello(),
        F['SEALED'])
    ud = {'qkey': 1, 'imm': 0}
    # the payload's first 8 bytes, decoded as a seal extension, are valid
    bad('sealed UD_SEND without the seal extension (hdr_len 36)',
        'metaroce.hdr_len.bad', OP['UD_SEND'], ud, F['SEALED'] | fl,
        bytes(range(1, 33)))
    bad('UD_SEND_IMM with the seal extension, SEALED clear (hdr_len 44)',
        'metaroce.hdr_len.bad', OP['UD_SEND_IMM'], ud, fl, p, dseal=dseal())
    bad('sealed UD_SEND, no room for the tag after the seal extension',
        'metaroce.short', OP['UD_SEND'], ud, F['SEALED'] | fl, p, dseal=dseal(),
        cut=BTH_LEN + 8 + DSEAL_LEN + 20)
    bad('sealed UD_SEND, key_id 0', 'metaroce.field.invalid', OP['UD_SEND'], ud,
        F['SEALED'] | fl, p, dseal=dseal(key_id=0))
    bad('sealed UD_SEND_IMM, sender_nonce 0', 'metaroce.field.invalid',
        OP['UD_SEND_IMM'], ud, F['SEALED'] | fl, p, dseal=dseal(sender_nonce=0))
    bad('dqpn above 24 bits', 'metaroce.field.invalid', OP['SEND'], send, fl, p,
        bth={'dqpn': 0x01000012})
    bad('sqpn above 24 bits', 'metaroce.field.invalid', OP['SEND'], send, fl, p,
        bth={'sqpn': 0x80000011})
    bad('payload on READ_REQ', 'metaroce.length.bad', OP['READ_REQ'],
        msg(length=64, imm=1024), F['ACK_REQ'], p)
    bad('payload on ACK', 'metaroce.length.bad', OP['ACK'], ack(), payload=p)
    bad('FIRST with an offset', 'metaroce.field.invalid', OP['WRITE'],
        msg(offset=32, length=1000), F['FIRST'], p)
    bad('LAST short of length', 'metaroce.length.bad', OP['SEND'], msg(length=100),
        fl, p)
    bad('offset + payload beyond length', 'metaroce.length.bad', OP['WRITE'],
        msg(offset=1000, length=1010), 0, p)
    bad('length above 2^31', 'metaroce.length.bad', OP['WRITE'],
        msg(offset=0, length=0x80000001), F['FIRST'], p)
    bad('READ_REQ offset + length above 2^31', 'metaroce.length.bad',
        OP['READ_REQ'], msg(offset=0x7fffffff, length=2, imm=1024))
    bad('READ_REQ segment size 255', 'metaroce.length.bad', OP['READ_REQ'],
        msg(length=4096, imm=255))
    bad('READ_REQ segment size 65537', 'metaroce.length.bad', OP['READ_REQ'],
        msg(length=4096, imm=65537))
    bad('READ_RESP offset + payload above 2^31', 'metaroce.length.bad',
        OP['READ_RESP'], {'offset': 0x7ffffff0, 'ts_echo': 0}, F['LAST'], p)
    bad('atomic va not aligned', 'metaroce.field.invalid', OP['FETCH_ADD'],
        atomic(va=0x1004))
    bad('ATOMIC_WRITE with compare', 'metaroce.field.invalid', OP['ATOMIC_WRITE'],
        atomic(compare=1))
    bad('FLUSH type 0', 'metaroce.field.invalid', OP['FLUSH'], flush(0, 0))
    bad('FLUSH type with bit 0x04', 'metaroce.field.invalid', OP['FLUSH'], flush(5, 0))
    bad('FLUSH level 2', 'metaroce.field.invalid', OP['FLUSH'], flush(1, 2))
    bad('FLUSH rsvd', 'metaroce.field.invalid', OP['FLUSH'], flush(1, 0, rsvd=1))
    bad('ACK syndrome 6', 'metaroce.field.invalid', OP['ACK'], ack(syndrome=6))
    bad('ACK sack_bits 129', 'metaroce.field.invalid', OP['ACK'], ack(sack_bits=129))
    bad('ACK SACK bit beyond sack_bits', 'metaroce.field.invalid', OP['ACK'],
        ack(sack_bits=64, sack=sack_words(64)))
    bad('ACK rsvd', 'metaroce.field.invalid', OP['ACK'], ack(rsvd=1 << 31))
    bad('PROBE rsvd', 'metaroce.field.invalid', OP['PROBE'], ctrl(rsvd=1),
        F['ACK_REQ'])
    bad('CREDIT rsvd', 'metaroce.field.invalid', OP['CREDIT'], ctrl(rsvd=0x100))
    bad('HELLO prot 3', 'metaroce.field.invalid', OP['HELLO'], hello(prot=3))
    bad('HELLO nonce 0', 'metaroce.field.invalid', OP['HELLO'], hello(nonce=0))
    bad('HELLO rsvd', 'metaroce.field.invalid', OP['HELLO'], hello(rsvd=0x10000))


def write_pcap(path, packets):
    with open(path, 'wb') as f:
        # pcap: magic, v2.4, UTC, accuracy, snaplen, LINKTYPE_RAW (101)
        f.write(struct.pack('<IHHiIII', 0xa1b2c3d4, 2, 4, 0, 0, 65535, 101))
        for i, pkt in enumerate(packets):
            f.write(struct.pack('<IIII', 1700000000 + i, 0, len(pkt), len(pkt)))
            f.write(pkt)


def fuzz(c, path):
    """FUZZ.pcap: first every single-bit flip, at 64 positions each, of the
    valid packets without SEALED (each one a CRC mismatch), then every
    truncation below 120 bytes of every packet, and random datagrams, most
    with a version 2 BTH; returns the number of flipped packets"""
    r = random.Random(4791)
    bodies = [(p[28:] if p[0] >> 4 == 4 else p[48:], e) for p, e in c.frames]
    flips, rest = [], []
    for body, e in bodies:
        if e['kind'] == 'valid' and not (body[2] << 8 | body[3]) & F['SEALED']:
            for i in r.sample(range(len(body) * 8), min(64, len(body) * 8)):
                b = bytearray(body)
                b[i // 8] ^= 1 << (i % 8)
                flips.append(bytes(b))
        rest.extend(body[:cut] for cut in range(1, min(len(body), 120)))
    for _ in range(2000):
        b = bytearray(r.randbytes(r.randrange(1, 200)))
        if len(b) > 2 and r.random() < 0.7:
            b[0], b[1] = VERSION << 4, r.choice(sorted(OP.values()))
        rest.append(bytes(b))
    write_pcap(path, [udp_ip(b, 600, UDP_PORT, False) for b in flips + rest])
    return len(flips)


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    c = Capture()
    valid(c)
    valid_sealed(c)
    c.packet('SEND from an unprivileged source port', OP['SEND'],
             msg(msn=1, length=16), F['FIRST'] | F['LAST'], b'x' * 16,
             kind='warn', experts=['metaroce.sport'], sport=40000)
    malformed(c)
    c.packet('SEND to UDP port 5000', OP['SEND'], msg(msn=1, length=8),
             F['FIRST'] | F['LAST'], b'portport', kind='port', dport=ALT_PORT)
    c.write(sys.argv[1], sys.argv[2])
    if len(sys.argv) == 4:
        print(fuzz(c, sys.argv[3]))


if __name__ == '__main__':
    main()
