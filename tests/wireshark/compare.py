#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""compare.py: check what tshark made of tools/wireshark/mkcapture.py's
capture against what the capture holds.  Called by tests/wireshark/run.sh.

Usage: compare.py --expected E.json --decoded D.json --decoded-alt A.json
                  --fields FIELDS.txt --rst protocol.rst --header wire.h
                  --fuzz FUZZ.txt --fuzz-flips K
                  [--first N --passed P --failed F]

  E.json      mkcapture.py's list of frames and their contents
  D.json      tshark -T json --no-duplicate-keys of the capture, default
              preferences (UDP port 4796)
  A.json      the same with the port preference set to 5000
  FIELDS.txt  tshark -G fields with the dissector loaded
  protocol.rst, metaroce_wire.h: the spec and the header whose field names
              the dissector must use
  FUZZ.txt    tshark -T fields of mkcapture.py's damaged packets, the first
              K of them single-bit flips of valid packets (see check_fuzz())

Prints one TAP-like line per check ("ok N - name" / "not ok N - name",
with "#" lines saying why), then "N passed, N failed" counting P and F of
the checks run before; exits 1 if any failed.
"""
import argparse
import json
import re
import sys

HEADERS = ('bth', 'msg', 'read_resp', 'atomic', 'flush', 'atomic_resp', 'ack',
           'deth', 'dseal', 'ctrl', 'hello')
# protocol.rst's section title of each header
TITLES = {'Base transport header': 'bth', 'Message extension': 'msg',
          'READ_RESP extension': 'read_resp', 'Atomic extension': 'atomic',
          'FLUSH extension': 'flush', 'ATOMIC_RESP extension': 'atomic_resp',
          'ACK extension': 'ack', 'Datagram extension': 'deth',
          'Datagram seal extension': 'dseal', 'Control extension': 'ctrl',
          'HELLO extension': 'hello'}
FT_SIZE = {'FT_UINT8': 1, 'FT_UINT16': 2, 'FT_UINT24': 3, 'FT_UINT32': 4,
           'FT_UINT64': 8}


def fits(size, s):
    """whether a dissector integer of s bytes shows a protocol.rst field of
    size bytes: of the same size, one per element of an array (ack.sack), or
    a uint64 for 5 to 7 bytes (dseal.sender_nonce), which Wireshark 4.0's Lua
    has no integer field for"""
    return size % s == 0 or (s == 8 and 4 < size < 8)


class Tap:
    def __init__(self, first, passed, failed):
        self.n, self.passed, self.failed = first - 1, passed, failed

    def check(self, name, problems):
        self.n += 1
        if problems:
            self.failed += 1
            print('not ok %d - %s' % (self.n, name))
            for p in problems[:20]:
                print('#   %s' % p)
            if len(problems) > 20:
                print('#   ... %d more' % (len(problems) - 20))
        else:
            self.passed += 1
            print('ok %d - %s' % (self.n, name))


def flatten(node, fields, experts, state):
    """collect metaroce.* field values (lists of strings), the names of the
    expert infos, and whether a malformed-packet item is present"""
    if isinstance(node, list):
        for x in node:
            flatten(x, fields, experts, state)
        return
    if not isinstance(node, dict):
        return
    for k, v in node.items():
        if k == '_ws.expert':
            for e in v if isinstance(v, list) else [v]:
                experts.extend(x for x in e if not x.startswith('_ws.expert'))
                state['groups'].extend(
                    str(g) for g in (e.get('_ws.expert.group') or []
                                     if isinstance(e.get('_ws.expert.group'), list)
                                     else [e.get('_ws.expert.group')]))
        elif k == '_ws.malformed':
            state['malformed'] = True
        elif k.startswith('metaroce.') and not k.endswith('_tree'):
            fields.setdefault(k, []).extend(v if isinstance(v, list) else [v])
        else:
            flatten(v, fields, experts, state)


def decoded_frames(path):
    with open(path) as f:
        packets = json.load(f)
    out = {}
    for p in packets:
        layers = p['_source']['layers']
        num = int(layers['frame']['frame.number'])
        fields, experts, state = {}, [], {'malformed': False, 'groups': []}
        flatten(layers, fields, experts, state)
        out[num] = (fields, sorted(set(experts)), state)
    return out


def same(want, got):
    """whether tshark's strings got are the value want"""
    if isinstance(want, list):
        return len(want) == len(got) and all(same(w, [g]) for w, g in zip(want, got))
    if len(got) != 1:
        return False
    g = got[0]
    if isinstance(want, bool):
        return g == ('1' if want else '0')
    if isinstance(want, int):
        try:
            return int(g, 0) == want
        except ValueError:
            return False
    return g == want


def check_fields(want, got):
    problems = []
    for k in sorted(want):
        if k not in got:
            problems.append('%s missing (want %r)' % (k, want[k]))
        elif not same(want[k], got[k]):
            problems.append('%s: got %r, want %r' % (k, got[k], want[k]))
    for k in sorted(set(got) - set(want)):
        problems.append('unexpected field %s = %r' % (k, got[k]))
    return problems


def check_frames(tap, expected, decoded, decoded_alt):
    for e in expected:
        n, kind, name = e['frame'], e['kind'], e['name']
        label = 'frame %d, %s: %s' % (n, kind, name)
        if n not in decoded:
            tap.check(label, ['frame not in tshark\'s output'])
            continue
        fields, experts, state = decoded[n]
        problems = []
        if kind in ('valid', 'warn'):
            problems += check_fields(e['fields'], fields)
            if experts != e['experts']:
                problems.append('expert infos %s, want %s' % (experts, e['experts']))
            if state['malformed']:
                problems.append('flagged as a malformed packet')
        elif kind == 'malformed':
            if not fields:
                problems.append('not decoded as metaroce')
            if experts != e['experts']:
                problems.append('expert infos %s, want %s' % (experts, e['experts']))
            if not state['malformed']:
                problems.append('not flagged as a malformed packet')
        elif kind == 'port':
            if fields:
                problems.append('decoded as metaroce on port 5000 with the default port')
        else:
            problems.append('unknown kind %r' % kind)
        tap.check(label, problems)

    # the port preference: with 5000, the port packet decodes, 4796 does not
    port = [e for e in expected if e['kind'] == 'port']
    other = [e for e in expected if e['kind'] == 'valid'][:1]
    problems = []
    for e in port:
        if e['frame'] not in decoded_alt:
            problems.append('frame %d missing' % e['frame'])
            continue
        fields, experts, state = decoded_alt[e['frame']]
        problems += check_fields(e['fields'], fields)
        if experts or state['malformed']:
            problems.append('expert infos %s' % experts)
    tap.check('port preference 5000: the packet to port 5000 decodes',
              problems or ([] if port else ['no port packet in the capture']))
    problems = []
    for e in other:
        if decoded_alt.get(e['frame'], ({},))[0]:
            problems.append('frame %d to port 4796 still decoded' % e['frame'])
    tap.check('port preference 5000: the port 4796 packets do not decode',
              problems or ([] if other else ['no valid packet in the capture']))


def rst_fields(path):
    """{header: [(field, size)]} from protocol.rst's field tables"""
    with open(path) as f:
        lines = f.read().splitlines()
    out, hdr, row = {}, None, None
    for i, line in enumerate(lines):
        nxt = lines[i + 1] if i + 1 < len(lines) else ''
        if nxt and len(nxt) >= len(line) > 0 and re.fullmatch(r'([=~^-])\1*', nxt):
            hdr = None
            for t, h in TITLES.items():
                if line.startswith(t):
                    hdr = h
                    out[h] = []
            continue
        if hdr is None:
            continue
        m = re.search(r'One field, ``(\w+)`` \(offset 0, (\d+) bytes\)', line)
        if m:
            out[hdr].append((m.group(1), int(m.group(2))))
            continue
        if not line.startswith('|'):
            row = None
            continue
        cells = [c.strip() for c in line.split('|')[1:-1]]
        if len(cells) < 3:
            continue
        if re.fullmatch(r'\d+( \(\d+\))?', cells[0]) and cells[1].isdigit():
            row = [cells[2], int(cells[1])]
            out[hdr].append(row)
        elif row is not None and not cells[0] and cells[2]:
            row[0] += cells[2]
    res = {}
    for h, rows in out.items():
        res[h] = []
        for name, size in rows:
            name = name.replace('\\_', '_')
            name = re.sub(r'\[\d+\]$', '', name)
            res[h].append((name, size))
    return res


def header_fields(path):
    """{header: [(field, size)]} from the structs of metaroce_wire.h"""
    with open(path) as f:
        text = f.read()
    defines = {}
    for m in re.finditer(r'^#define\s+(METAROCE_\w+)\s+(.+?)\s*(/\*.*)?$', text, re.M):
        defines[m.group(1)] = m.group(2)

    def value(expr):
        for _ in range(10):
            expr = re.sub(r'METAROCE_\w+', lambda m: '(%s)' % defines[m.group(0)], expr)
        return int(eval(expr.replace('/', '//'), {'__builtins__': {}}))

    base = {'__u8': 1, '__be16': 2, '__be32': 4, '__be64': 8}
    out = {}
    for m in re.finditer(r'struct metaroce_(\w+) \{(.*?)\};', text, re.S):
        rows = []
        for f in re.finditer(r'(__u8|__be16|__be32|__be64)\s+(\w+)(?:\[(\w+)\])?;',
                             m.group(2)):
            count = value(f.group(3)) if f.group(3) else 1
            rows.append((f.group(2), base[f.group(1)] * count))
        out[m.group(1)] = rows
    return out


def dissector_fields(path):
    """{header: [(field, size, label)]} of the fields tshark -G fields lists"""
    out = {}
    with open(path) as f:
        for line in f:
            cols = line.rstrip('\n').split('\t')
            if len(cols) < 4 or cols[0] != 'F':
                continue
            m = re.fullmatch(r'metaroce\.(\w+)\.(\w+)', cols[2])
            if m and m.group(1) in HEADERS and cols[3] in FT_SIZE:
                out.setdefault(m.group(1), []).append(
                    (m.group(2), FT_SIZE[cols[3]], cols[1]))
    return out


def check_names(tap, rst_path, header_path, fields_path):
    rst = rst_fields(rst_path)
    hdr = header_fields(header_path)
    dis = dissector_fields(fields_path)
    for h in HEADERS:
        problems = []
        spec = rst.get(h)
        if not spec:
            problems.append('protocol.rst: no field table for %s' % h)
            spec = []
        if hdr.get(h) != spec:
            problems.append('metaroce_wire.h struct metaroce_%s %s, protocol.rst %s'
                            % (h, hdr.get(h), spec))
        have = {n: (s, lab) for n, s, lab in dis.get(h, [])}
        for name, size in spec:
            if name not in have:
                problems.append('dissector has no metaroce.%s.%s' % (h, name))
                continue
            s, lab = have[name]
            if lab != name:
                problems.append('metaroce.%s.%s is labelled %r' % (h, name, lab))
            if not fits(size, s):
                problems.append('metaroce.%s.%s is %d bytes, protocol.rst %d'
                                % (h, name, s, size))
        for name in sorted(set(have) - {n for n, _ in spec}):
            problems.append('dissector field metaroce.%s.%s is not in protocol.rst'
                            % (h, name))
        tap.check('protocol.rst, metaroce_wire.h and the dissector name the %s '
                  'fields alike' % h, problems)


MALFORMED = '117440512'	# PI_MALFORMED, 0x07000000
UNDECODED = '83886080'		# PI_UNDECODED, 0x05000000: a Lua error


def check_fuzz(tap, path, flips):
    """FUZZ.txt: tshark -T fields of frame.number, the protocol column and
    the expert groups and messages (';' between occurrences) of mkcapture.py's
    damaged packets, the first flips of them single-bit flips"""
    rows = []
    with open(path) as f:
        for line in f:
            cols = line.rstrip('\n').split('\t') + ['', '', '']
            rows.append((int(cols[0]), cols[1], cols[2].split(';'), cols[3]))
    problems = []
    for n, prot, groups, msgs in rows:
        if prot != 'metaroce' or UNDECODED in groups or 'Lua Error' in msgs:
            problems.append('frame %d: protocol %s, %s' % (n, prot, msgs))
    tap.check('fuzz: %d damaged packets decode without a Lua error' % len(rows),
              problems or ([] if rows else ['no packets']))
    problems = ['frame %d not flagged malformed: %s' % (n, msgs)
                for n, _, groups, msgs in rows[:flips] if MALFORMED not in groups]
    if len(rows) < flips:
        problems.append('%d packets, want at least %d' % (len(rows), flips))
    tap.check('fuzz: each of %d single-bit flips of a valid unsealed packet is '
              'flagged malformed' % flips, problems)


def main():
    ap = argparse.ArgumentParser()
    for a in ('expected', 'decoded', 'decoded-alt', 'fields', 'rst', 'header'):
        ap.add_argument('--' + a, required=True)
    ap.add_argument('--fuzz', required=True)
    ap.add_argument('--fuzz-flips', type=int, required=True)
    ap.add_argument('--first', type=int, default=1)
    ap.add_argument('--passed', type=int, default=0)
    ap.add_argument('--failed', type=int, default=0)
    a = ap.parse_args()
    tap = Tap(a.first, a.passed, a.failed)
    with open(a.expected) as f:
        expected = json.load(f)
    check_frames(tap, expected, decoded_frames(a.decoded),
                 decoded_frames(a.decoded_alt))
    check_names(tap, a.rst, a.header, a.fields)
    check_fuzz(tap, a.fuzz, a.fuzz_flips)
    print('%d passed, %d failed' % (tap.passed, tap.failed))
    return 1 if tap.failed else 0


if __name__ == '__main__':
    sys.exit(main())
