#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Guest instruction profiles from a VM-lab run made with LAB_INSNPROF=1.

usage: insnprof-report.py OUT [--top N] [--match TEXT] [--calls SUB,SUB...]

OUT is a tests/vm/run.sh result dir.  For every VM (OUT/<vm>/insnprof) and
every point NAME with snapshots NAME.s0.snap and NAME.s1.snap (lib/insnprof.c,
written by perf-diag.sh around its steady window) this prints the kernel
instructions executed between the two, per MiB of the VM's wire bytes in the
busier direction (eth0 tx or rx, perf-diag's NAME_steady_{tx,rx}bytes
metrics) and per transport packet, and the top symbols (from NAME.kallsyms,
the guest's text symbols at the end of the window), with calls per packet
(executions of the block at the symbol's start); --calls lists the calls of
every symbol whose name contains one of the given strings.  Then a table puts
points of the same name side by side across transports (the part of NAME
before the first '-' is the transport's label).
"""
import bisect
import collections
import json
import os
import sys


def load_snap(path):
    user = 0
    blocks = collections.Counter()
    execs = collections.Counter()
    host = {'time': 0.0, 'ticks': 100, 'tasks': {}}
    with open(path) as f:
        for line in f:
            p = line.split()
            if p[0] == 'user':
                user = int(p[1])
                continue
            if p[0] == 'kernel':
                continue
            if p[0] == 'time':
                host['time'] = float(p[1])
                continue
            if p[0] == 'ticks':
                host['ticks'] = int(p[1])
                continue
            if p[0] == 'task':
                host['tasks'][p[1]] = (p[2], int(p[3]) + int(p[4]))
                continue
            blocks[int(p[0], 16)] += int(p[1]) * int(p[2])
            execs[int(p[0], 16)] += int(p[2])
    return user, blocks, execs, host


def host_cpu(h0, h1):
    """host CPU seconds per QEMU thread name between two snapshots"""
    cpu = collections.Counter()
    for tid, (comm, t1) in h1['tasks'].items():
        t0 = h0['tasks'].get(tid, (comm, 0))[1]
        cpu[comm] += (t1 - t0) / h1['ticks']
    return h1['time'] - h0['time'], cpu


def load_syms(path):
    syms = []
    with open(path) as f:
        for line in f:
            p = line.split()
            if len(p) < 3:
                continue
            mod = p[3].strip('[]') if len(p) > 3 else 'vmlinux'
            syms.append((int(p[0], 16), p[2], mod))
    syms.sort()
    return [s[0] for s in syms], syms


def symbolize(addrs, syms, vaddr):
    i = bisect.bisect_right(addrs, vaddr) - 1
    if i < 0:
        return ('?', '?')
    return (syms[i][1], syms[i][2])


def metrics(vmdir):
    m = {}
    try:
        with open(os.path.join(vmdir, 'metrics.jsonl')) as f:
            for line in f:
                j = json.loads(line)
                m[j['name']] = j['value']
    except OSError:
        pass
    return m


def profile(vmdir, name):
    d = os.path.join(vmdir, 'insnprof')
    u0, b0, e0, h0 = load_snap(os.path.join(d, name + '.s0.snap'))
    u1, b1, e1, h1 = load_snap(os.path.join(d, name + '.s1.snap'))
    wall, cpu = host_cpu(h0, h1)
    addrs, syms = load_syms(os.path.join(d, name + '.kallsyms'))
    per_sym = collections.Counter()
    per_mod = collections.Counter()
    calls = collections.Counter()
    starts = set(addrs)
    for va, n in e1.items():
        if va in starts:
            calls[symbolize(addrs, syms, va)] += n - e0.get(va, 0)
    for va, n in b1.items():
        delta = n - b0.get(va, 0)
        if delta <= 0:
            continue
        sym, mod = symbolize(addrs, syms, va)
        per_sym[(sym, mod)] += delta
        per_mod[mod] += delta
    m = metrics(vmdir)
    key = name.replace('-', '_') + '_steady_'
    wire = max(m.get(key + 'txbytes', 0), m.get(key + 'rxbytes', 0))
    pkts = m.get(key + 'sent', 0) + m.get(key + 'rcvd', 0)
    return {
        'kernel': sum(per_sym.values()), 'user': u1 - u0,
        'wire_mib': wire / 2**20, 'pkts': pkts,
        'syms': per_sym, 'mods': per_mod, 'calls': calls,
        'wall': wall, 'host': cpu,
    }


def main():
    args = sys.argv[1:]
    if not args:
        print(__doc__)
        sys.exit(2)
    out, top, match = args[0], 25, ''
    if '--top' in args:
        top = int(args[args.index('--top') + 1])
    extra = []
    if '--calls' in args:
        extra = args[args.index('--calls') + 1].split(',')
    if '--match' in args:
        match = args[args.index('--match') + 1]
    table = collections.defaultdict(dict)
    for vm in sorted(os.listdir(out)):
        d = os.path.join(out, vm, 'insnprof')
        if not os.path.isdir(d):
            continue
        names = sorted(f[:-len('.s1.snap')] for f in os.listdir(d)
                       if f.endswith('.s1.snap'))
        for name in names:
            if match not in name:
                continue
            try:
                p = profile(os.path.join(out, vm), name)
            except OSError as e:
                print(f'{vm} {name}: {e}')
                continue
            mib = p['wire_mib'] or float('nan')
            pk = p['pkts'] or float('nan')
            label, _, point = name.partition('-')
            table[point][(label, vm)] = p
            print(f'== {vm} {name}: kernel {p["kernel"] / 1e6:.1f} M insns, '
                  f'user {p["user"] / 1e6:.1f} M, wire {p["wire_mib"]:.1f} '
                  f'MiB, {p["pkts"]} pkts: kernel {p["kernel"] / mib / 1e3:.0f} '
                  f'k insns/MiB, {p["kernel"] / pk:.0f} insns/pkt')
            if p['wall']:
                hc = ', '.join(f'{c} {v:.2f}' for c, v in
                               p['host'].most_common(4) if v)
                vcpu = sum(v for c, v in p['host'].items() if 'CPU' in c)
                rate = (p['kernel'] + p['user']) / vcpu / 1e6 if vcpu else 0
                print(f'   host: {p["wall"]:.1f} s wall, CPU s {hc}; '
                      f'{sum(p["host"].values()) / mib * 1024:.1f} s/GiB; '
                      f'vCPU {rate:.0f} M insns/s')
            mods = ', '.join(f'{m} {n / p["kernel"] * 100:.1f}%'
                             for m, n in p['mods'].most_common(6))
            print(f'   modules: {mods}')
            for (sym, mod), n in p['syms'].most_common(top):
                c = p['calls'].get((sym, mod), 0)
                print(f'   {n / pk:9.0f} insns/pkt {n / p["kernel"] * 100:5.1f}%  '
                      f'{c / pk:6.2f} calls/pkt  {sym} [{mod}]')
            for pat in extra:
                for (sym, mod), c in sorted(p['calls'].items()):
                    if pat in sym and c:
                        print(f'   calls {c / pk:8.3f}/pkt {c:9d}  {sym} [{mod}]')
    if not table:
        return
    print('\n== kernel instructions per MiB of wire bytes (k), per VM and '
          'both; label / first label')
    for point in sorted(table):
        row = table[point]
        labels = sorted({lab for lab, _ in row})
        vms = sorted({vm for _, vm in row})
        sums = {}
        for lab in labels:
            cells = []
            tot = 0.0
            for vm in vms:
                p = row.get((lab, vm))
                if not p or not p['wire_mib']:
                    cells.append(f'{vm} -')
                    continue
                v = p['kernel'] / p['wire_mib'] / 1e3
                tot += v
                cells.append(f'{vm} {v:.0f}')
            sums[lab] = tot
            base = sums[labels[0]] or float('nan')
            host = sum(sum(p['host'].values()) / p['wire_mib'] * 1024
                       for (lab2, _), p in row.items()
                       if lab2 == lab and p['wire_mib'])
            print(f'   {point:24s} {lab:12s} {"  ".join(cells)}  both {tot:.0f}'
                  f'  ({tot / base:.2f})  host CPU s/GiB, both QEMUs, '
                  f'{host:.0f}')


if __name__ == '__main__':
    main()
