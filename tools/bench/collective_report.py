# SPDX-License-Identifier: GPL-2.0
"""collective_report.py: the report of tests/vm/bench-collective.sh.

  collective_report.py DIR [--title TEXT] [--plot PNG] > report.md

DIR holds the files metaroce-collective.sh wrote: coll-IMPAIR-PATTERN-TRANSPORT.txt
(tools/collective's summary and last line) and .raw (one line per collective:
"coll ITER US START", and per flow: "flow ITER SRC DST STEP US").  Prints a markdown
table per pattern: collective FCT p50/p99/max, flow FCT p50/p99/max, the
collective p99 over the same transport's clean p99, whether every iteration
completed; with --plot, the CDF of the collective FCT per transport and
impairment, one panel per pattern (python3-matplotlib).
"""
import argparse
import glob
import os
import re

IMPAIRS = ('clean', 'loss1', 'spinedown', 'blackhole', 'clean2', 'clean3')
PATTERNS = ('alltoall', 'incast', 'ring')
TRANSPORTS = ('rdma', 'tcp')
NAMES = {'rdma': 'metaroce', 'tcp': 'TCP'}

METHOD = '''Eight hosts (network namespaces h1-h8, two per leaf) of a leaf-spine
fabric with four spines and ECMP over them hashed on the L4 ports, MTU 9000,
all in one VM with one vCPU under TCG (`tests/vm/scenarios/metaroce-collective.sh`,
run by `tests/vm/bench-collective.sh`).  `tools/collective` drives every host
from one process (one clock): all-to-all (every host sends the size to every
other), incast (seven hosts send the size to h1), ring all-reduce (14 steps of
size/8 around the ring).  metaroce: RC QPs, RDMA WRITE with immediate, 8 paths
per QP; TCP: one connection per pair.  Every received byte is checked.
Impairments: loss1 = netem 1 % loss on every spine port (1 % each way between
leaves); spinedown = the l1-s1 link down a third of the way in, the other
leaves stop routing l1's hosts through s1 one second later; blackhole = spine
s2 drops everything from a third of the way in while every route still uses
it; clean2 = lossless again at the end of the boot.  Times in milliseconds:
the collective from the first post to the last arrival, a flow from its post
to its arrival.

Reading it: the VM's one CPU is the bottleneck of every transport here.  TCP
over veth moves 64 KB GSO segments from socket to socket, metaroce moves
4 KiB packets each through the stack, so compare each transport with its own
lossless row, not the two absolute columns.  The leaves hash a forwarded
packet by the skb's flow hash when it carries one (fib_multipath_hash policy
1); a TCP socket's hash crosses veth with the packet and TCP picks a new one
after an RTO, so in this lab a TCP flow stuck on the black-holed spine moves
to another after one or more RTOs; a hardware switch hashes headers, and an
IPv4 TCP flow would stay on the dead spine.  rdma_rxe is not beside them:
on these kernels it is not network-namespace aware.
'''

CLOCK_ICOUNT = '''The VM ran on an instruction-counted clock (QEMU `-icount %s`): its
time is its own instruction count, one nanosecond per instruction, so the
times do not depend on how busy the host was, and the guest's CPU runs at
about a native pace against its timers.  On TCG's real-time clock the one
vCPU runs 20-50 times slower than native; its stalls then delay every
host's packets at once, stretch round trips far past the RTO and fire
spurious RTOs, and those set the tails.
'''

CLOCK_REAL = '''The VM ran on TCG's real-time clock: its one vCPU runs 20-50 times
slower than native, and its stalls delay every host's packets at once, so
the tails are largely the emulator's (spurious RTOs); the instruction-counted
clock (`--icount`) measures the transports instead.
'''


def pct(v, p):
    if not v:
        return None
    v = sorted(v)
    i = max(0, min(len(v) - 1, int(p / 100.0 * len(v) + 0.999999) - 1))
    return v[i]


def load(d):
    runs = {}
    for txt in glob.glob(os.path.join(d, 'coll-*.txt')):
        m = re.match(r'coll-([a-z0-9]+)-([a-z0-9]+)-([a-z]+)\.txt$', os.path.basename(txt))
        if not m:
            continue
        r = {'coll': [], 'flow': [], 'last': '', 'ok': False}
        with open(txt) as f:
            for line in f:
                if line.startswith('collective:'):
                    r['last'] = line.strip()
                    r['ok'] = 'result=pass' in line
                    it = re.search(r'iterations=(\d+)/(\d+)', line)
                    r['iters'] = it.group(0).split('=')[1] if it else '?'
                    err = re.search(r' error=(.*)$', line)
                    r['error'] = err.group(1) if err else ''
        raw = txt[:-4] + '.raw'
        if os.path.exists(raw):
            with open(raw) as f:
                for line in f:
                    p = line.split()
                    if p and p[0] == 'coll':
                        r['coll'].append(float(p[2]))
                    elif p and p[0] == 'flow':
                        r['flow'].append(float(p[5]))
        runs[m.groups()] = r
    return runs


def ms(v):
    return '-' if v is None else '%.1f' % (v / 1000.0)


def table(runs, pat):
    out = ['| impairment | transport | iterations | collective p50 | p99 | max |'
           ' flow p50 | p99 | max | p99 / clean p99 |',
           '|---|---|---|---|---|---|---|---|---|---|']
    for imp in IMPAIRS:
        for tr in TRANSPORTS:
            r = runs.get((imp, pat, tr))
            if r is None:
                continue
            base = runs.get(('clean', pat, tr))
            ratio = '-'
            if r['ok'] and base and base['coll'] and r['coll']:
                ratio = '%.2f' % (pct(r['coll'], 99) / pct(base['coll'], 99))
            done = r.get('iters', '?')
            if not r['ok']:
                done += ' (did not complete)' if r['error'] else ' (failed)'
            out.append('| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |' % (
                imp, NAMES.get(tr, tr), done,
                ms(pct(r['coll'], 50)), ms(pct(r['coll'], 99)), ms(max(r['coll'], default=None)),
                ms(pct(r['flow'], 50)), ms(pct(r['flow'], 99)), ms(max(r['flow'], default=None)),
                ratio))
    return '\n'.join(out)


def plot(runs, png):
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    pats = [p for p in PATTERNS if any(k[1] == p for k in runs)]
    fig, axes = plt.subplots(1, len(pats), figsize=(5.4 * len(pats), 4.0), squeeze=False)
    styles = {'clean': '-', 'loss1': '--', 'spinedown': '-.', 'blackhole': ':',
              'clean2': (0, (1, 4)), 'clean3': (0, (1, 8))}
    colors = {'rdma': 'tab:blue', 'tcp': 'tab:green'}
    for ax, pat in zip(axes[0], pats):
        for tr in TRANSPORTS:
            for imp in IMPAIRS:
                r = runs.get((imp, pat, tr))
                if not r or not r['coll']:
                    continue
                v = sorted(x / 1000.0 for x in r['coll'])
                y = [(i + 1) / len(v) for i in range(len(v))]
                label = '%s %s%s' % (NAMES[tr], imp, '' if r['ok'] else ' (incomplete)')
                ax.step(v, y, where='post', linestyle=styles[imp], color=colors[tr],
                        label=label)
        ax.set_xscale('log')
        ax.set_title(pat)
        ax.set_xlabel('collective completion time (ms)')
        ax.set_ylabel('fraction of collectives')
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(png, dpi=110)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('dir')
    ap.add_argument('--title', default='Collective flow completion times')
    ap.add_argument('--plot')
    ap.add_argument('--icount', default='',
                    help="the VM's QEMU -icount option, empty for none")
    a = ap.parse_args()
    runs = load(a.dir)
    print('# %s\n' % a.title)
    print(METHOD)
    print(CLOCK_ICOUNT % a.icount if a.icount else CLOCK_REAL)
    for pat in PATTERNS:
        if not any(k[1] == pat for k in runs):
            continue
        print('## %s\n' % pat)
        print(table(runs, pat))
        print()
    bad = [(k, r) for k, r in sorted(runs.items()) if not r['ok']]
    if bad:
        print('Runs that did not complete every iteration:\n')
        for k, r in bad:
            print('- %s %s %s: %s' % (k[0], k[1], NAMES.get(k[2], k[2]),
                                       r['error'] or r['last'] or 'no summary'))
        print()
    if not runs:
        print('No collective run left results.\n')
    elif a.plot:
        plot(runs, a.plot)
        print('![collective completion time CDF](%s)\n' % os.path.basename(a.plot))


if __name__ == '__main__':
    main()
