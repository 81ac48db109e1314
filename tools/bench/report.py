#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""report.py: turn the samples of tests/vm/bench.sh into report.md,
samples.json and PNG plots.

    report.py --out DIR [--profile P --reps N --rate R --queue B --dist D --wall S]

Reads DIR/run-<transport>/b/samples.jsonl (one JSON object per sample, from
the conducting VM; run-interleaved/ holds every transport of a
bench.sh --interleave boot, each sample naming its own) and
DIR/run-*/*/result.json (kernel and package versions), boots in the order
they ran (run-T, run-T.2, ...).  Every figure is the median of the
repetitions with [min-max]; ratios compare medians.
"""
import argparse
import glob
import json
import os
import statistics
import sys
import time

import plots

# metaroce-auth, metaroce-encrypt: metaroce with that packet protection
# (metaroce: protection none)
TRANSPORTS = ['metaroce', 'metaroce-auth', 'metaroce-encrypt', 'rxe', 'tcp']
NAMES = {'metaroce': 'metaroce', 'metaroce-auth': 'metaroce auth',
         'metaroce-encrypt': 'metaroce encrypt', 'rxe': 'rxe', 'tcp': 'TCP'}
PROTECTION = {'metaroce': 'none', 'metaroce-auth': 'auth', 'metaroce-encrypt': 'encrypt'}


def load(out):
    samples, meta = [], {}
    def run_order(rdir):	# run-T before run-T.2 ('.' sorts before '/')
        name, _, n = os.path.basename(os.path.dirname(rdir)).partition('.')
        return name, int(n) if n.isdigit() else 1

    runs = sorted(glob.glob(os.path.join(out, 'run-*', 'b')), key=run_order)
    for rdir in runs:
        t = os.path.basename(os.path.dirname(rdir))[4:].split('.')[0]
        if t not in TRANSPORTS + ['interleaved']:
            continue
        f = os.path.join(rdir, 'samples.jsonl')
        trs = {t}
        if os.path.exists(f):
            with open(f) as fh:
                for line in fh:
                    line = line.strip()
                    if line:
                        try:
                            samples.append(json.loads(line))
                            samples[-1]['boot'] = os.path.basename(os.path.dirname(rdir))
                            trs.add(samples[-1].get('transport'))
                        except ValueError:
                            print('report: bad sample line in %s' % f, file=sys.stderr)
        r = os.path.join(rdir, 'result.json')
        if not os.path.exists(r):
            continue
        with open(r) as fh:
            res = json.load(fh)
        for t in trs & (set(TRANSPORTS) - set(meta)):
            meta[t] = {'kernel': res.get('kernel'), 'status': res.get('status'),
                       **{k: v for k, v in res.get('metrics', {}).items()
                          if k in ('rdma_core', 'perftest', 'iperf3', 'points',
                                   'failed_points')}}
    return samples, meta


def select(samples, **kw):
    return [s for s in samples if all(s.get(k) == v for k, v in kw.items())]


def values(samples, key):
    return [s[key] for s in samples if s.get(key) is not None]


def stat(vals):
    """(median, min, max, n) or None"""
    if not vals:
        return None
    return statistics.median(vals), min(vals), max(vals), len(vals)


def fmt(st, unit='', nd=2):
    if st is None:
        return 'n/a'
    med, lo, hi, n = st
    if n == 1:
        return '%.*f%s' % (nd, med, unit)
    return '%.*f%s [%.*f-%.*f]' % (nd, med, unit, nd, lo, nd, hi)


def ratio(a, b):
    if a is None or b is None or not b[0]:
        return 'n/a'
    return '%.2f' % (a[0] / b[0])


def fails(pts):
    n = sum(1 for s in pts if s.get('error'))
    return ' (%d failed)' % n if n else ''


def bw_cell(samples, t, **kw):
    """a failed sample (client error) counts as 0 MiB/s"""
    pts = select(samples, transport=t, **kw)
    return stat([s.get('goodput_MiBps') or 0.0 for s in pts]), fails(pts)


def table(head, rows):
    out = ['| ' + ' | '.join(head) + ' |', '|' + '---|' * len(head)]
    out += ['| ' + ' | '.join(r) + ' |' for r in rows]
    return '\n'.join(out) + '\n'


def bw_table(samples, trs, points, base_kw):
    """rows: (label, kw); columns: per transport goodput, ratio to lossless, ratio to rxe"""
    head = ['point'] + ['%s MiB/s' % NAMES[t] for t in trs]
    head += ['%s / lossless' % NAMES[t] for t in trs]
    head += ['%s / rxe' % NAMES[t] for t in trs if t != 'rxe' and 'rxe' in trs]
    rows = []
    for label, kw in points:
        cells = {t: bw_cell(samples, t, **kw) for t in trs}
        base = {t: bw_cell(samples, t, **base_kw(kw))[0] for t in trs}
        r = [label] + [fmt(cells[t][0]) + cells[t][1] for t in trs]
        r += [ratio(cells[t][0], base[t]) for t in trs]
        r += [ratio(cells[t][0], cells['rxe'][0]) for t in trs if t != 'rxe' and 'rxe' in trs]
        rows.append(r)
    return table(head, rows)


def lossless(kw):
    b = dict(kw)
    b['loss'] = 0
    b['cat'] = 'loss' if b.get('size') == 65536 else b['cat']
    return b


def timeline_summary(s):
    """goodput (MiB/s) before, during and after the hole, from the sampler"""
    tl, on, off = s.get('timeline') or [], s.get('hole_on'), s.get('hole_off')
    if len(tl) < 3 or on is None or off is None:
        return None
    acc = {'before': [0, 0], 'during': [0, 0], 'after': [0, 0]}
    for a, b in zip(tl, tl[1:]):
        mid = (a[0] + b[0]) / 2
        phase = 'before' if mid < on else 'during' if mid < off else 'after'
        if phase == 'after' and mid > off + (off - on) + 2:
            continue
        acc[phase][0] += sum(b[1:]) - sum(a[1:])
        acc[phase][1] += b[0] - a[0]
    if acc['during'][0] + acc['after'][0] <= 0 and not s.get('error'):
        return None     # the transfer was over before the hole (slow control steps)
    # the transfer ends (and the counters stop) before the sampler does
    return {k: (v[0] / v[1] / 1048576 if v[1] else None) for k, v in acc.items()}


def section_blackhole(samples, trs):
    rows = []
    for t in trs:
        pts = [s for s in select(samples, transport=t, cat='blackhole') if s.get('timeline')]
        sums = [timeline_summary(s) for s in pts]
        sums = [x for x in sums if x]
        cols = [NAMES[t]]
        for k in ('before', 'during', 'after'):
            cols.append(fmt(stat([x[k] for x in sums if x[k] is not None])))
        rel = [x['during'] / x['before'] for x in sums if x['before'] and x['during'] is not None]
        cols.append(fmt(stat(rel)))
        cols.append(fmt(stat(values(pts, 'goodput_MiBps'))) + fails(select(samples, transport=t, cat='blackhole')))
        cols.append(str(len(pts) - len(sums)))
        rows.append(cols)
    return table(['transport', 'before MiB/s', 'during hole MiB/s', 'after MiB/s',
                  'during / before', 'client average MiB/s',
                  'excluded (transfer over before the hole)'], rows)


def fast_rates(ftl):
    """packets per 10 ms bin from the fast sampler's (uptime, packets)
    pairs; a gap between samples (the sampler descheduled) spreads its
    packets evenly over the bins it spans"""
    bins = {}
    for (u0, v0), (u1, v1) in zip(ftl, ftl[1:]):
        b0, b1 = round(u0 * 100), round(u1 * 100)
        if b1 <= b0 or v1 < v0:
            continue
        for b in range(b0 + 1, b1 + 1):
            bins[b] = (v1 - v0) / (b1 - b0)
    return bins


def longest_below(bins, lo, hi, level):
    """the longest run of consecutive 10 ms bins in [lo, hi), each below
    level, in bins"""
    best = run = 0
    for b in range(lo, hi):
        run = run + 1 if bins.get(b, 0) < level else 0
        best = max(best, run)
    return best


def fast_summary(s):
    """the black hole in 10 ms bins: the rate before it, and the longest
    run of bins below 7/8 of that rate, before the hole (the emulator's own
    stalls) and from its start to its end"""
    ftl, on, off = s.get('fast_timeline') or [], s.get('hole_on'), s.get('hole_off')
    if len(ftl) < 20 or on is None or off is None:
        return None
    bins = fast_rates(ftl)
    b_on, b_off = round(on * 100), round(off * 100)
    pre = [bins[b] for b in range(b_on - 300, b_on) if b in bins]
    hole = [bins[b] for b in range(b_on, b_off) if b in bins]
    if len(pre) < 100 or not hole:
        return None
    ref = sum(pre) / len(pre)
    if ref <= 0:
        return None
    level = ref * 7 / 8
    first = {w: sum(bins.get(b, 0) for b in range(b_on, b_on + w)) / (w * ref)
             for w in (5, 10, 20)}
    return {'ref': ref, 'during': sum(hole) / len(hole) / ref, 'first': first,
            'pre_ms': 10 * longest_below(bins, b_on - 300, b_on, level),
            'hole_ms': 10 * longest_below(bins, b_on, b_off, level)}


def section_blackhole_fast(samples, trs):
    rows = []
    for t in trs:
        pts = [s for s in select(samples, transport=t, cat='blackhole') if s.get('fast_timeline')]
        sums = [x for x in (fast_summary(s) for s in pts) if x]
        if not sums:
            continue
        rows.append([NAMES[t], str(len(sums)),
                     fmt(stat([x['ref'] for x in sums]), nd=1),
                     fmt(stat([x['during'] for x in sums])),
                     fmt(stat([x['first'][5] for x in sums])),
                     fmt(stat([x['first'][10] for x in sums])),
                     fmt(stat([x['first'][20] for x in sums])),
                     fmt(stat([x['pre_ms'] for x in sums]), nd=0),
                     fmt(stat([x['hole_ms'] for x in sums]), nd=0),
                     ', '.join('%d / %d' % (x['pre_ms'], x['hole_ms']) for x in sums)])
    if not rows:
        return None
    return table(['transport', 'samples', 'packets per 10 ms before', 'during / before',
                  'first 50 ms / before', 'first 100 ms / before', 'first 200 ms / before',
                  'longest run below 7/8, 3 s before the hole (ms)',
                  'longest run below 7/8, in the hole (ms)', 'each sample, before / in'], rows)


def section_latency(samples, trs):
    rows = []
    for test in ('send_lat', 'write_lat'):
        for load in (0, 1):
            cells = {}
            for t in trs:
                pts = select(samples, transport=t, cat='lat', test=test, load=load)
                cells[t] = (stat(values([p for p in pts if not p.get('error')], 'median_us')),
                            stat(values([p for p in pts if not p.get('error')], 'p99_us')), fails(pts))
            if not any(c[0] for c in cells.values()):
                continue
            r = ['%s %s' % (test, 'loaded' if load else 'unloaded')]
            for t in trs:
                r += [fmt(cells[t][0], nd=1) + cells[t][2], fmt(cells[t][1], nd=1)]
            if 'rxe' in trs and 'metaroce' in trs:
                r += [ratio(cells['metaroce'][0], cells['rxe'][0]),
                      ratio(cells['metaroce'][1], cells['rxe'][1])]
            rows.append(r)
    head = ['test']
    for t in trs:
        head += ['%s median us' % NAMES[t], '%s p99 us' % NAMES[t]]
    if 'rxe' in trs and 'metaroce' in trs:
        head += ['median metaroce / rxe', 'p99 metaroce / rxe']
    return table(head, rows)


def section_cpu(samples, trs):
    rows = []
    for t in trs:
        pts = [s for s in select(samples, transport=t, cat='loss', loss=0)
               if s.get('rx_wire_bytes') and not s.get('error')]
        gib = [(s, s['rx_wire_bytes'] / 2 ** 30) for s in pts]
        k = stat([s['cpu_kernel_s'] / g for s, g in gib if g > 0])
        b = stat([s['cpu_busy_s'] / g for s, g in gib if g > 0])
        rows.append([NAMES[t], fmt(k, nd=0), fmt(b, nd=0), str(len(pts))])
    return table(['transport', 'kernel CPU s / GiB', 'all CPU s / GiB', 'samples'], rows)


def gib_stat(pts, value):
    """stat of VALUE(sample) per GiB of wire data, over the samples where it is not None"""
    v = []
    for s in pts:
        x = value(s)
        if x is not None and s.get('rx_wire_bytes') and not s.get('error'):
            v.append(x / (s['rx_wire_bytes'] / 2 ** 30))
    return stat(v)


def per_gib(pts, key, scale=1):
    """stat of sample field KEY / SCALE per GiB of wire data, over the samples that have it"""
    return gib_stat(pts, lambda s: None if s.get(key) is None else s[key] / scale)


def kernel_per_gib(pts):
    return per_gib(pts, 'cpu_kernel_s')


def insns_per_gib(pts):
    """guest kernel instructions (both VMs, bench.sh --insnprof) per GiB, in millions"""
    return per_gib(pts, 'kernel_insns', 1e6)


def section_cpu_ceiling(samples, trs):
    """kernel CPU per GiB at each emulator-ceiling point (issue 5: <= rxe at all four)"""
    rows = []
    with_insns = False
    both = 'rxe' in trs and 'metaroce' in trs
    for t in ('write_bw', 'send_bw'):
        for sz in (65536, 4096):
            pts = {tr: select(samples, transport=tr, cat='ceiling', test=t, size=sz)
                   for tr in trs}
            cells = {tr: kernel_per_gib(pts[tr]) for tr in trs}
            if not any(cells.values()):
                continue
            r = ['%s %d KiB' % (t.split('_')[0].upper(), sz // 1024)]
            r += [fmt(cells[tr], nd=0) for tr in trs]
            if both:
                r.append(ratio(cells['metaroce'], cells['rxe']))
            ins = {tr: insns_per_gib(pts[tr]) for tr in trs}
            if any(ins.values()):
                with_insns = True
                r += [fmt(ins[tr], nd=0) for tr in trs]
                if both:
                    r.append(ratio(ins['metaroce'], ins['rxe']))
            rows.append(r)
    head = ['ceiling point'] + ['%s kernel CPU s / GiB' % NAMES[tr] for tr in trs]
    if both:
        head.append('metaroce / rxe')
    if with_insns:
        head += ['%s kernel M insns / GiB' % NAMES[tr] for tr in trs]
        if both:
            head.append('insns metaroce / rxe')
        rows = [r + [''] * (len(head) - len(r)) for r in rows]
    return table(head, rows)


def host_kernel_s(s, vm=None):
    """a sample's guest kernel time in host CPU seconds: each VM's vCPU
    thread time (what the host ran it) times the kernel share of the guest's
    busy time; None without bench.sh --insnprof's thread times"""
    per = s.get('per_vm') or {}
    tot = 0.0
    for v in ([vm] if vm else ['a', 'b']):
        d = per.get(v) or {}
        if not d.get('host_vcpu_s') or not d.get('cpu_busy_s'):
            return None
        tot += d['host_vcpu_s'] * d['cpu_kernel_s'] / d['cpu_busy_s']
    return tot


def vm_per_gib(pts, key, vm, scale=1):
    """stat of VM VM's per_vm field KEY / SCALE per GiB of wire data"""
    def value(s):
        x = ((s.get('per_vm') or {}).get(vm) or {}).get(key)
        if not x and key in ('host_vcpu_s', 'host_main_s', 'kernel_insns'):
            return None	# 0: recorded without bench.sh --insnprof
        return None if x is None else x / scale
    return gib_stat(pts, value)


def host_kernel_per_gib(pts, vm=None):
    return gib_stat(pts, lambda s: host_kernel_s(s, vm))


def section_cpu_vms(samples, trs):
    """the ceiling's CPU per GiB split by VM (a receives the data, b sends),
    guest-sampled and in host time (bench.sh --insnprof)"""
    rows = []
    for t in ('write_bw', 'send_bw'):
        for sz in (65536, 4096):
            for tr in trs:
                pts = [p for p in select(samples, transport=tr, cat='ceiling', test=t, size=sz)
                       if p.get('per_vm')]
                if not pts:
                    continue
                r = ['%s %d KiB' % (t.split('_')[0].upper(), sz // 1024), NAMES[tr]]
                for vm in ('a', 'b'):
                    r += [fmt(vm_per_gib(pts, 'cpu_kernel_s', vm), nd=1),
                          fmt(vm_per_gib(pts, 'cpu_busy_s', vm), nd=1),
                          fmt(vm_per_gib(pts, 'host_vcpu_s', vm), nd=1),
                          fmt(host_kernel_per_gib(pts, vm), nd=1),
                          fmt(vm_per_gib(pts, 'host_main_s', vm), nd=1),
                          fmt(vm_per_gib(pts, 'kernel_insns', vm, 1e6), nd=0)]
                r.append(fmt(host_kernel_per_gib(pts), nd=1))
                rows.append(r)
    if not rows:
        return None
    head = ['point', 'transport']
    for vm in ('a (receiver)', 'b (sender)'):
        head += ['%s kernel s' % vm, '%s busy s' % vm, '%s host vCPU s' % vm,
                 '%s kernel in host s' % vm, '%s host main loop s' % vm,
                 '%s kernel M insns' % vm]
    head.append('kernel in host s, both VMs')
    return table(head, rows)


PAIR_KEYS = ('boot', 'cat', 'test', 'size', 'qps', 'loss', 'delay', 'reorder', 'skew', 'rep')


def section_pairs(samples, trs):
    """bench.sh --interleave: metaroce against rxe, repetition by repetition in one boot"""
    if 'metaroce' not in trs or 'rxe' not in trs:
        return None	# no rxe: nothing to pair (section_protection pairs the modes)
    groups = {}
    for s in samples:
        if (s.get('interleaved') and not s.get('error') and
                s.get('cat') in ('ceiling', 'loss', 'size', 'ops', 'reorder', 'skew')):
            groups.setdefault(tuple(s.get(k) for k in PAIR_KEYS), {})[s['transport']] = s
    points = {}
    for key, by in groups.items():	# samples, so boots and repetitions, in run order
        m, r = by.get('metaroce'), by.get('rxe')
        if not m or not r or not m.get('goodput_MiBps') or not r.get('goodput_MiBps'):
            continue
        label = point_label({k: v for k, v in zip(PAIR_KEYS, key)
                             if k not in ('boot', 'rep') and v is not None})
        g = m['goodput_MiBps'] / r['goodput_MiBps']
        c = i = None
        km, kr = kernel_per_gib([m]), kernel_per_gib([r])
        if km and kr and kr[0]:
            c = km[0] / kr[0]
        im, ir = insns_per_gib([m]), insns_per_gib([r])
        if im and ir and ir[0]:
            i = im[0] / ir[0]
        h = None
        hm, hr = host_kernel_per_gib([m]), host_kernel_per_gib([r])
        if hm and hr and hr[0]:
            h = hm[0] / hr[0]
        points.setdefault(label, []).append((key[0], g, c, i, h))

    def each(prs, i):	# the pairs in run order, boots apart
        boots = {}
        for p in prs:
            if p[i] is not None:
                boots.setdefault(p[0], []).append('%.2f' % p[i])
        return ' / '.join(', '.join(v) for v in boots.values())

    if not points:
        return None	# no point that both transports ran
    rows = []
    insns = any(p[3] is not None for prs in points.values() for p in prs)
    host = any(p[4] is not None for prs in points.values() for p in prs)
    for label, prs in sorted(points.items()):
        gs = [p[1] for p in prs]
        cs = [p[2] for p in prs if p[2] is not None]
        r = [label, str(len(prs)), fmt(stat(gs)), each(prs, 1), fmt(stat(cs)), each(prs, 2)]
        if insns:
            r += [fmt(stat([p[3] for p in prs if p[3] is not None])), each(prs, 3)]
        if host:
            hs = [p[4] for p in prs if p[4] is not None]
            r += [fmt(stat(hs)) if hs else '', each(prs, 4)]
        rows.append(r)
    head = ['point', 'pairs', 'goodput metaroce / rxe', 'each pair (boots split by /)',
            'kernel CPU per GiB metaroce / rxe', 'each pair']
    if insns:
        head += ['kernel instructions per GiB metaroce / rxe', 'each pair']
    if host:
        if not insns:
            rows = [r[:6] + ['', ''] + r[6:] for r in rows]
        head += ['kernel CPU in host time per GiB metaroce / rxe', 'each pair']
    return table(head, rows)


BW_CATS = ('ceiling', 'loss', 'size', 'ops', 'reorder', 'skew')


def section_protection(samples, trs):
    """metaroce's packet protection (metaroce-auth, metaroce-encrypt) against
    none (metaroce) at every bandwidth point all ran"""
    modes = [t for t in ('metaroce-auth', 'metaroce-encrypt') if t in trs]
    if 'metaroce' not in trs or not modes:
        return None
    by = {}	# point label -> transport -> samples
    for s in samples:
        if (s.get('transport') in PROTECTION and s.get('cat') in BW_CATS
                and s.get('test') and s.get('size')):
            by.setdefault(point_label(s), {}).setdefault(s['transport'], []).append(s)
    abs_rows, rat_rows = [], []
    for label, pts in sorted(by.items()):
        if 'metaroce' not in pts or not any(m in pts for m in modes):
            continue
        cell = {}
        for t in ['metaroce'] + modes:
            p = pts.get(t, [])
            ok = [x for x in p if not x.get('error')]
            cell[t] = (stat([x.get('goodput_MiBps') or 0.0 for x in p]), kernel_per_gib(ok),
                       insns_per_gib(ok))
            abs_rows.append([label, PROTECTION[t], '%d%s' % (len(p), fails(p)),
                             fmt(cell[t][0]), fmt(cell[t][1], nd=0), fmt(cell[t][2], nd=0)])
        # interleaved pairs: the same repetition of the point in the same boot
        base = {(x['boot'], x.get('rep')): x for x in pts['metaroce']
                if x.get('interleaved') and not x.get('error')}
        for t in modes:
            g, i = [], []
            for x in pts.get(t, []):
                b = base.get((x['boot'], x.get('rep')))
                if not b or x.get('error') or not x.get('interleaved'):
                    continue
                if x.get('goodput_MiBps') and b.get('goodput_MiBps'):
                    g.append(x['goodput_MiBps'] / b['goodput_MiBps'])
                ix, ib = insns_per_gib([x]), insns_per_gib([b])
                if ix and ib and ib[0]:
                    i.append(ix[0] / ib[0])
            rat_rows.append([label, PROTECTION[t], ratio(cell[t][0], cell['metaroce'][0]),
                             ratio(cell[t][1], cell['metaroce'][1]),
                             ratio(cell[t][2], cell['metaroce'][2]),
                             '%s (%d)' % (fmt(stat(g)), len(g)) if g else 'n/a',
                             '%s (%d)' % (fmt(stat(i)), len(i)) if i else 'n/a'])
    if not abs_rows:
        return None
    return (table(['point', 'protection', 'samples', 'goodput MiB/s', 'kernel CPU s / GiB',
                   'kernel M insns / GiB'], abs_rows) + '\n' +
            table(['point', 'protection', 'goodput / none', 'kernel CPU / none',
                   'kernel insns / none', 'interleaved pairs: goodput / none (pairs)',
                   'interleaved pairs: kernel insns / none (pairs)'], rat_rows))


def section_mem(samples, trs):
    rows = []
    for t in trs:
        pts = [s for s in select(samples, transport=t, cat='mem') if not s.get('error')]
        if not pts:
            continue
        sl, vm = stat(values(pts, 'slab_per_qp')), stat(values(pts, 'vmalloc_per_qp'))
        tot = stat([s['slab_per_qp'] + s['vmalloc_per_qp'] for s in pts])
        caches = {}
        for s in pts:
            for c, v in (s.get('caches') or {}).items():
                caches.setdefault(c, []).append(v)
        top = sorted(caches.items(), key=lambda kv: -statistics.median(kv[1]))[:4]
        big = stat([s['slab_per_qp'] - s['slab_caches_per_qp'] for s in pts
                    if s.get('slab_caches_per_qp') is not None])
        rows.append([NAMES[t], str(pts[0].get('qps_created')), fmt(sl, nd=0), fmt(big, nd=0),
                     fmt(vm, nd=0), fmt(tot, nd=0), ', '.join('%s %d' % (c, statistics.median(v)) for c, v in top),
                     str(max(s.get('slab_not_freed_kb', 0) + s.get('vmalloc_not_freed_kb', 0)
                             for s in pts))])
    return table(['transport', 'QPs', 'Slab B/QP', 'of which outside slab caches (large kmalloc)',
                  'vmalloc B/QP', 'total B/QP',
                  'largest slab caches (B/QP)', 'not freed after destroy (KiB, max)'], rows)


def point_label(s):
    """a point's name in the tables: category, test, size, QPs, loss, wire"""
    label = '%s %s %dK %dQP loss %g%%' % (s['cat'], s['test'], s['size'] // 1024,
                                          s['qps'], s['loss'])
    if s.get('reorder'):
        label += ' netem reorder %s%% delay %sms' % (s['reorder'], s['delay'])
    if s.get('skew'):
        label += ' path k delayed k*%sms' % s['skew']
    return label


def section_resends(samples, trs):
    """metaroce's resends against what the wire dropped in the data direction"""
    rows, groups = [], {}
    for s in select(samples, transport='metaroce'):
        if (s.get('wire_drops_data') is not None and not s.get('error')
                and s.get('test') != 'read_bw'  # resent requests, dropped responses
                and (s.get('loss') or s.get('reorder') or s.get('skew'))):
            groups.setdefault(point_label(s), []).append(s)
    for label, grp in groups.items():
        rtx = [s.get('counters', {}).get('retransmits', 0) for s in grp]
        drops = [s['wire_drops_data'] for s in grp]
        sent = [s.get('counters', {}).get('sent_pkts', 0) for s in grp]
        rat = stat([r / d for r, d in zip(rtx, drops) if d])
        beyond = stat([100.0 * max(r - d, 0) / n for r, d, n in zip(rtx, drops, sent) if n])
        rows.append([label, fmt(stat(rtx), nd=0), fmt(stat(drops), nd=0), fmt(rat),
                     fmt(beyond), str(len(grp))])
    if not rows:
        return 'No sample of this run counted the wire\'s drops.\n'
    return table(['point', 'resent packets', 'wire drops (data direction)',
                  'resent / dropped', 'resent beyond drops, % of sent', 'samples'], rows)


SECTIONS = [
    ({'cat': 'blackhole'},
     '\n## Black-holed path: one source-port bucket of 8 dropped\n\n'
     'The bucket (UDP/TCP source port & 7) that carried most of the flow is dropped '
     'on the receiver\'s ingress (a hole in the network, invisible to the sender\'s '
     'stack) for the hole\'s duration, then restored; goodput from the receiver\'s '
     'per-bucket byte counters, sampled every 200 ms or as fast as the guest manages.\n\n',
     section_blackhole),
    ({'cat': 'blackhole'},
     '\n### The black hole in 10 ms bins\n\n'
     'The receiving transport\'s packet counter, read at each 10 ms tick of the '
     'receiver\'s uptime (``bench_fast_sampler``).  Issue 5 asks for goodput back to '
     '>= 7/8 of lossless within 10 ms of the hole.  The longest run of consecutive bins, '
     'each below 7/8 of the mean rate of the 3 s before the hole, is measured in the hole '
     'and, for comparison, in those 3 s, where only the emulator stalls the flow; the '
     'first 50, 100 and 200 ms of the hole are its packets over those of as long at '
     'the rate before.\n\n',
     section_blackhole_fast),
    ({'cat': 'lat'},
     '\n## Latency (64 bytes; loaded = a WRITE 64 KiB bulk flow on another QP)\n\n',
     section_latency),
    ({'cat': 'loss', 'loss': 0},
     '\n## CPU cost: guest CPU seconds (both VMs) per GiB of wire data\n\n'
     'From /proc/stat around each lossless WRITE 64 KiB / iperf3 point. perftest '
     'busy-polls its CQ, so "all CPU" is dominated by polling for RDMA; the '
     'kernel figure (system + irq + softirq) is the transport cost.\n\n', section_cpu),
    ({'cat': 'ceiling'},
     '\n## CPU cost at the emulator ceiling: kernel CPU seconds (both VMs) per GiB\n\n'
     'The same figure around each unshaped, lossless point (issue 5 asks '
     'metaroce <= rxe at all four).  With `bench.sh --insnprof`, also the '
     'kernel instructions both guests executed per GiB (a QEMU plugin '
     'counts them: they count work, not time, so unlike the CPU time '
     '/proc/stat samples under TCG they do not depend on how much of the '
     'host each vCPU got, but per-second costs such as timer ticks weigh '
     'more per GiB in a slow sample; see tests/vm/README.md).\n\n',
     section_cpu_ceiling),
    ({'cat': 'ceiling'},
     '\n### The same per VM, per GiB, in guest and in host time\n\n'
     'VM a receives the data, b sends it (WRITE and SEND).  Guest-sampled: '
     'kernel and busy (kernel + user) seconds from /proc/stat.  Host: the CPU '
     'time of the VM\'s QEMU vCPU thread, which counts only while the host ran '
     'it (the guest\'s clock also counts the time the host took it away); '
     '"kernel in host s" is that times the guest\'s kernel share of its busy '
     'time; the main loop emulates the VM\'s devices and timers.  Needs '
     '`bench.sh --insnprof` (QEMU thread times from its plugin).\n\n',
     section_cpu_vms),
    ({'interleaved': 1},
     '\n## Interleaved pairs: metaroce / rxe in one boot\n\n'
     '`bench.sh --interleave` ran both transports in one boot, alternating by '
     'repetition (A B, B A, ...).  Each pair is one repetition of a point for '
     'both, minutes apart on the same host load: the ratio of a pair is '
     'fairer than the ratio of medians from separate boots.  Cells: median '
     '[min-max] of the pairs\' ratios (issue 5 asks goodput >= 1 and CPU '
     '<= 1 at the ceiling points).\n\n', section_pairs),
    ({'transport': 'metaroce'},
     '\n## Packet protection: metaroce auth and encrypt against none\n\n'
     'The transports metaroce-auth and metaroce-encrypt are metaroce with that '
     'packet protection (AES-GCM, Documentation/metaroce/protocol.rst) set on '
     'both devices, with one device key, before any connection; metaroce is '
     'protection none.  Per point and mode: goodput, and kernel CPU seconds and '
     'kernel instructions (both VMs, `bench.sh --insnprof`) per GiB of wire data; '
     'then each mode over none as the ratio of the medians and, from a '
     '`bench.sh --interleave` boot, as the median [min-max] of the ratios of '
     'the same repetition (the modes ran minutes apart on the same host load).\n\n',
     section_protection),
    ({'transport': 'metaroce'},
     '\n## Resends against wire drops (metaroce)\n\n'
     'Points with loss, reordering or skew.  Wire drops: what the data '
     'direction\'s netem (random loss) and tbf (the bottleneck\'s overflow) '
     'dropped.  Resends beyond the drops were not needed, whatever the cause '
     '(spurious loss detection, RTOs, a lost resend resent again counts as '
     'needed).  Issue 5: resent / dropped <= 1.3; spurious < 1 % under '
     'reordering and skew.\n\n', section_resends),
    ({'cat': 'mem'},
     '\n## Kernel memory per RC QP (tools/bench/qpmem, /proc/meminfo deltas)\n\n',
     section_mem),
]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--out', required=True)
    ap.add_argument('--profile', default='?')
    ap.add_argument('--reps', default='?')
    ap.add_argument('--rate', default='?')
    ap.add_argument('--queue', default='?')
    ap.add_argument('--dist', default='?')
    ap.add_argument('--wall', type=int, default=0)
    ap.add_argument('--mro-params', default='defaults')
    a = ap.parse_args()
    samples, meta = load(a.out)
    trs = [t for t in TRANSPORTS if select(samples, transport=t)]
    durations = []
    dfile = os.path.join(a.out, 'durations.txt')
    if os.path.exists(dfile):
        with open(dfile) as fh:
            durations = [(k, int(v)) for k, v in (line.split() for line in fh if line.strip())]
    info = {'date': time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime()), 'profile': a.profile,
            'repetitions': a.reps, 'bottleneck_rate': a.rate, 'queue_bytes': a.queue,
            'dist': a.dist, 'wall_s': a.wall, 'mro_params': a.mro_params, 'durations_s': durations, 'runs': meta,
            'host_loadavg': open('/proc/loadavg').read().split()[:3]}
    with open(os.path.join(a.out, 'samples.json'), 'w') as fh:
        json.dump({'info': info, 'samples': samples}, fh, indent=1)
    pngs = plots.make_all(a.out, samples, trs, timeline_summary)

    any_meta = next((m for m in meta.values() if m.get('kernel')), {})
    md = ['# metaroce benchmarks\n']
    md.append('Generated by `tests/vm/bench.sh --profile %s --reps %s --rate %s` '
              '(`make bench`) on %s.\n' % (a.profile, a.reps, a.rate, info['date']))
    md.append(table(['what', 'value'], [
        ['guest kernel', str(any_meta.get('kernel'))],
        ['rdma-core / perftest / iperf3', '%s / %s / %s' % (any_meta.get('rdma_core'),
                                                          any_meta.get('perftest'),
                                                          any_meta.get('iperf3'))],
        ['bottleneck', '%s tbf per direction, queue %s bytes, behind netem' % (a.rate, a.queue)],
        ['metaroce module parameters', a.mro_params],
    ] + [
        ['%s: gcm(aes), synchronous and vector, on the sender after each sample (driver:priority)'
         % NAMES[t], ', '.join(sorted({s['gcm_aes'] for s in select(samples, transport=t)
                                       if s.get('gcm_aes')})) or 'not recorded']
        for t in ('metaroce-auth', 'metaroce-encrypt') if t in trs
    ] + [
        ['repetitions', '%s per point; cells are median [min-max]' % a.reps],
        ['VMs', 'two QEMU TCG VMs (1 vCPU, 2 GiB), virtio-net over an AF_UNIX datagram link'],
        ['host load average at the end', ' '.join(info['host_loadavg'])],
        ['lab time', '%d s over %d boot(s): %s' % (sum(v for _, v in durations) or a.wall,
                                                   len(durations),
                                                   ', '.join('%s %d s' % kv for kv in durations))],
    ]))
    md.append('\nThe lab runs under TCG on a shared 2-core host: absolute figures are '
              'slow and noisy; compare transports within one run.  Method: '
              '`Documentation/metaroce/bench.rst`.\n')
    md.append('\n## Emulator ceiling (no bottleneck, no loss)\n\n')
    ceil = [('%s %d KiB, 1 QP' % (t.split('_')[0].upper(), sz // 1024),
             {'cat': 'ceiling', 'test': t, 'size': sz})
            for t in ('write_bw', 'send_bw') for sz in (65536, 4096)]
    ceil = [p for p in ceil if select(samples, **p[1])]
    md.append(bw_table(samples, trs, ceil, lambda kw: kw))
    for q in (1, 4):
        pts = [(('%g %%' % l), {'cat': 'loss', 'test': 'write_bw', 'size': 65536, 'qps': q,
                                'loss': l}) for l in (0, 0.1, 1, 5, 10)]
        pts = [p for p in pts if select(samples, **p[1])]
        if pts:
            md.append('\n## Goodput vs random loss (both directions): WRITE 64 KiB, %d QP%s\n\n'
                      % (q, 's' if q > 1 else ''))
            md.append(bw_table(samples, trs, pts, lossless))
    other = []
    for s in samples:
        if s.get('cat') in ('size', 'ops', 'reorder', 'skew'):
            kw = {k: s.get(k) for k in ('cat', 'test', 'size', 'qps', 'loss', 'delay',
                                         'reorder', 'skew')}
            kw = {k: v for k, v in kw.items() if v is not None}
            label = point_label(kw)
            if (label, kw) not in other:
                other.append((label, kw))
    if other:
        md.append('\n## Other operations, 4 KiB messages, reordering and path skew\n\n'
                  'Ratios to the same transport\'s lossless WRITE figure of the same size '
                  'and QP count.\n\n')
        md.append(bw_table(samples, trs, other, lambda kw: {
            'test': 'write_bw', 'size': kw['size'], 'qps': kw['qps'], 'loss': 0,
            'cat': 'loss' if kw['size'] == 65536 else 'size'}))
    for kw, text, section in SECTIONS:
        if select(samples, **kw):
            body = section(samples, trs)
            if body is not None:	# None: nothing of this kind was recorded
                md.extend((text, body))
    errs = [s for s in samples if s.get('error')]
    md.append('\n## Failed samples: %d of %d\n\n' % (len(errs), len(samples)))
    for s in errs[:40]:
        md.append('- %s %s %s loss %s rep %s: %s\n' % (s.get('transport'), s.get('cat'),
                  s.get('test', ''), s.get('loss', ''), s.get('rep'), str(s['error'])[:200]))
    est = [s for s in samples if s.get('goodput_from') == 'iterations']
    if est:
        md.append('\n## Goodput from the iteration count: %d samples\n\n'
                  'perftest printed 0.00 MiB/s with iterations counted; these figures are the '
                  'iterations times the message size over the nominal measurement window '
                  '(duration minus the two margins).\n\n' % len(est))
        for s in est[:40]:
            md.append('- %s %s %s %s B loss %s rep %s: %.2f MiB/s\n' % (
                s.get('transport'), s.get('cat'), s.get('test', ''), s.get('size', ''),
                s.get('loss', ''), s.get('rep'), s.get('goodput_MiBps') or 0.0))
    if pngs:
        md.append('\n## Plots\n\n' + ''.join('![%s](%s)\n' % (p, p) for p in pngs))
    with open(os.path.join(a.out, 'report.md'), 'w') as fh:
        fh.write(''.join(md))
    print('report: %d samples, %d failed; %s' % (len(samples), len(errs),
                                                  os.path.join(a.out, 'report.md')))


if __name__ == '__main__':
    main()
