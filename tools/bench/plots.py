# SPDX-License-Identifier: GPL-2.0
"""plots.py: the PNG plots of the benchmark report (python3-matplotlib)."""
import os
import statistics

import matplotlib
matplotlib.use('Agg')
import matplotlib.pyplot as plt  # noqa: E402

COLORS = {'metaroce': 'tab:blue', 'metaroce-auth': 'tab:purple',
          'metaroce-encrypt': 'tab:red', 'rxe': 'tab:orange', 'tcp': 'tab:green'}
NAMES = {'metaroce': 'metaroce', 'metaroce-auth': 'metaroce auth',
         'metaroce-encrypt': 'metaroce encrypt', 'rxe': 'rxe', 'tcp': 'TCP'}
LOSSES = (0, 0.1, 1, 5, 10)


def _sel(samples, **kw):
    return [s for s in samples if all(s.get(k) == v for k, v in kw.items())]


def goodput_vs_loss(out, samples, trs):
    qs = [q for q in (1, 4) if _sel(samples, cat='loss', qps=q)]
    if not qs:
        return None
    fig, axes = plt.subplots(1, len(qs), figsize=(5.2 * len(qs), 3.6), squeeze=False)
    for ax, q in zip(axes[0], qs):
        for t in trs:
            xs, med, lo, hi = [], [], [], []
            for i, l in enumerate(LOSSES):
                v = [s['goodput_MiBps'] if s.get('goodput_MiBps') is not None else 0.0
                     for s in _sel(samples, transport=t, cat='loss', qps=q, loss=l)]
                if v:
                    m = statistics.median(v)
                    xs.append(i)
                    med.append(m)
                    lo.append(m - min(v))
                    hi.append(max(v) - m)
            if xs:
                ax.errorbar(xs, med, yerr=[lo, hi], marker='o', capsize=3,
                            color=COLORS[t], label=NAMES[t])
        ax.set_xticks(range(len(LOSSES)))
        ax.set_xticklabels(['%g%%' % l for l in LOSSES])
        ax.set_xlabel('random loss, each direction')
        ax.set_ylabel('goodput (MiB/s)')
        ax.set_ylim(bottom=0)
        ax.set_title('WRITE 64 KiB, %d QP%s (TCP: %d stream%s)' % (q, 's' if q > 1 else '',
                                                                   q, 's' if q > 1 else ''))
        ax.grid(alpha=0.3)
        ax.legend()
    fig.tight_layout()
    fig.savefig(os.path.join(out, 'goodput-vs-loss.png'), dpi=90)
    plt.close(fig)
    return 'goodput-vs-loss.png'


def blackhole_timeline(out, samples, trs, summary):
    pts = {t: [s for s in _sel(samples, transport=t, cat='blackhole', qps=1)
               if s.get('timeline') and s.get('hole_on') is not None and summary(s)]
           for t in trs}
    if not any(pts.values()):
        return None
    fig, ax = plt.subplots(figsize=(7.5, 3.6))
    hole = None
    for t in trs:
        if not pts[t]:
            continue
        s = pts[t][0]
        tl, on = s['timeline'], s['hole_on']
        hole = (0, s['hole_off'] - on)
        xs = [(a[0] + b[0]) / 2 - on for a, b in zip(tl, tl[1:])]
        ys = [(sum(b[1:]) - sum(a[1:])) / (b[0] - a[0]) / 1048576 if b[0] > a[0] else 0
              for a, b in zip(tl, tl[1:])]
        ax.plot(xs, ys, color=COLORS[t], label='%s (bucket %s)' % (NAMES[t], s.get('bucket')))
    if hole:
        ax.axvspan(hole[0], hole[1], color='grey', alpha=0.2, label='bucket black-holed')
    ax.set_xlabel('seconds from the black hole')
    ax.set_ylabel('received (MiB/s)')
    ax.set_ylim(bottom=0)
    ax.set_title('WRITE 64 KiB, 1 QP: one source-port bucket of 8 dropped (first valid repetition)',
                 fontsize='medium')
    ax.grid(alpha=0.3)
    ax.legend(fontsize='small')
    fig.tight_layout()
    fig.savefig(os.path.join(out, 'blackhole-timeline.png'), dpi=90)
    plt.close(fig)
    return 'blackhole-timeline.png'


def latency_cdf(out, samples, trs):
    fig, ax = plt.subplots(figsize=(7.5, 3.6))
    drawn = False
    for t in trs:
        for load, style in ((0, '-'), (1, '--')):
            v = []
            for s in _sel(samples, transport=t, cat='lat', test='send_lat', load=load):
                v += s.get('samples_us') or []
            if not v:
                continue
            v.sort()
            ax.plot(v, [(i + 1) / len(v) for i in range(len(v))], style, color=COLORS[t],
                    label='%s %s' % (NAMES[t], 'under a bulk flow' if load else 'unloaded'))
            drawn = True
    if not drawn:
        plt.close(fig)
        return None
    ax.set_xscale('log')
    ax.set_xlabel('ib_send_lat, 64 bytes: latency (us, log)')
    ax.set_ylabel('CDF')
    ax.grid(alpha=0.3, which='both')
    ax.legend(fontsize='small')
    fig.tight_layout()
    fig.savefig(os.path.join(out, 'latency-cdf.png'), dpi=90)
    plt.close(fig)
    return 'latency-cdf.png'


def make_all(out, samples, trs, summary):
    made = [goodput_vs_loss(out, samples, trs), blackhole_timeline(out, samples, trs, summary),
            latency_cdf(out, samples, trs)]
    return [p for p in made if p]
