#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""simhole.py TRACE [SLOT]: the black hole of tests/vm/scenarios/metaroce-simhole.sh
in 1 ms steps, from the receiver's function trace.

TRACE is the guest's ftrace output: one mro_resp_rcv line per request
packet the responder received (after the black hole: dropped packets never
reach it), the scenario's trace_marker lines ("simhole on0" before the drop
filter is added, "simhole on1" after it, "simhole off0" / "off1" around its
removal) and the mro_path_retire / mro_path_revive events.

Prints "NAME VALUE" lines (metrics) and then a table of 10 ms bins.  The
reference rate R is the packets per 10 ms over the BASE seconds before
"on0".  A 10 ms window is "low" when it holds fewer than 7/8 R packets.
  rate_pkts_10ms   R
  recovery_ms      the first t (ms after on0, 1 ms steps) from which every
                   10 ms window that starts in the hole is not low (0: none
                   was low); -1 if the hole's last window is low
  hole_low_pct     low windows among those starting in the hole
  base_low_pct     low windows among those starting in the BASE seconds
                   before on0 (the same measure without a hole: the noise)
  hole_low_run_ms  the longest run of consecutive low windows (1 ms steps)
                   in the hole; base_low_run_ms the same before it
  first_N_ms       packets in the first N ms of the hole / (N / 10 * R)
  hole_ratio       packets in the whole hole / the same at rate R
  tc_on_ms         on1 - on0: how long adding the filter took
  recovery_after_tc_ms  recovery_ms - tc_on_ms: from when the tc command
                   returned (the filter was in place by then); negative when
                   recovered before it returned
  retire_ms        the first mro_path_retire of SLOT after on0, ms after on0
                   (of any path without SLOT)
  retired_other    mro_path_retire events of other slots in the whole trace
                   (the flow's start included)
  retx_first_ms    the first mro_retransmit of a packet sent on SLOT (the
                   holed path slot) after on0, ms after on0
  retx_slot_100ms  retransmits of packets sent on SLOT in the hole's first
                   100 ms; retx_other_100ms of packets sent on other slots
With the responder's "rcv" kprobe events in TRACE too (the path of each
request packet received):
  slot_last_ms     the last packet that came by SLOT before its retirement
                   (or off0), ms after on0: the filter took effect after it
                   (and before the slot's next packet, slot_gap_ms later
                   on average)
  slot_gap_ms      the mean time between SLOT's packets in the BASE
                   seconds before on0
  recovery_after_last_ms  recovery_ms - slot_last_ms: an upper bound of
                   the recovery counted from when the filter took effect
With the sender's "una" kprobe events in TRACE too (snd_una at each entry
of mro_advance_una: acknowledged progress, what completes messages), the
same for cumulatively acknowledged PSNs, 10 ms bins only (an ACK every few
packets makes 1 ms steps meaningless):
  una_rate_10ms    PSNs acknowledged per 10 ms over the BASE seconds
  una_first_N_ms   PSNs acknowledged in the first N ms / (N / 10 * rate)
  una_stall_ms     the longest time snd_una stood still in the hole's
                   first second; base_una_stall_ms the same in the BASE
                   seconds before it
"""
import bisect
import re
import sys

LINE = re.compile(r"\s(\d+\.\d+): (.*)$")
PATHNO = re.compile(r" path=(\d+) ")
RETX = re.compile(r"^mro_retransmit: .* path (\d+) -> (\d+)")
RCV = re.compile(r"^rcv: .* path=(\d+)")
UNA = re.compile(r"^una: .* qp=(0x[0-9a-f]+) una=(\d+)")
BASE = 3.0
WIN = 0.010
STEP = 0.001
LOW = 7 / 8


def parse(path):
    pkts, marks, retire, revive, una, retx, rcvd = [], {}, [], [], {}, [], []
    with open(path, errors="replace") as f:
        for line in f:
            m = LINE.search(line)
            if not m:
                continue
            t, rest = float(m.group(1)), m.group(2)
            if rest.startswith("mro_resp_rcv "):
                pkts.append(t)
            elif rest.startswith("tracing_mark_write: simhole "):
                marks[rest.split()[2]] = t
            elif rest.startswith("mro_path_retire:"):
                p = PATHNO.search(rest)
                retire.append((t, int(p.group(1)) if p else -1))
            elif rest.startswith("mro_path_revive:"):
                revive.append(t)
            elif rest.startswith("mro_retransmit: "):
                r = RETX.match(rest)
                if r:
                    retx.append((t, int(r.group(1))))
            elif rest.startswith("rcv: "):
                r = RCV.match(rest)
                if r:
                    rcvd.append((t, int(r.group(1))))
            elif rest.startswith("una: "):
                u = UNA.match(rest)
                if u:
                    una.setdefault(u.group(1), []).append((t, int(u.group(2))))
    pkts.sort()
    return pkts, marks, retire, revive, unwrap(una), retx, rcvd


def unwrap(una):
    """the busiest QP's (time, acknowledged PSNs so far), time-ordered"""
    if not una:
        return []
    samples = sorted(max(una.values(), key=len))
    mod = 1 << 24 if max(v for _, v in samples) < 1 << 24 else 1 << 32
    out, acc, prev = [], 0, samples[0][1]
    for t, v in samples:
        acc += (v - prev) % mod
        prev = v
        out.append((t, acc))
    return out


def una_at(una, times, t):
    """acknowledged PSNs at time t: the last sample at or before t"""
    i = bisect.bisect_right(times, t) - 1
    return una[max(i, 0)][1]


def una_stall(una, a, b):
    """the longest time in [a, b) between two advances of snd_una, ms"""
    last, prev, longest = a, None, 0.0
    for t, v in una:
        if t < a:
            prev = v
            continue
        if t >= b:
            break
        if prev is not None and v != prev:
            longest = max(longest, t - last)
            last = t
        prev = v
    return round(1000 * max(longest, b - last), 1)


def count(pkts, a, b):
    """packets with a <= t < b (pkts sorted)"""
    return bisect.bisect_left(pkts, b) - bisect.bisect_left(pkts, a)


def windows(pkts, start, end, rate):
    """(offset_ms, low) for each 10 ms window starting in [start, end - WIN]"""
    out = []
    n = int(round((end - WIN - start) / STEP))
    for k in range(max(n + 1, 0)):
        a = start + k * STEP
        out.append((k, count(pkts, a, a + WIN) < LOW * rate))
    return out


def low_run(wins):
    longest = run = 0
    for _, low in wins:
        run = run + 1 if low else 0
        longest = max(longest, run)
    return longest


def recovery(wins):
    if not wins:
        return 0
    if wins[-1][1]:
        return -1
    last_low = max((k for k, low in wins if low), default=-1)
    return last_low + 1


def main():
    pkts, marks, retire, revive, una, retx, rcvd = parse(sys.argv[1])
    slot = int(sys.argv[2]) if len(sys.argv) > 2 else None
    on, off = marks.get("on0"), marks.get("off0")
    if on is None or off is None or not pkts:
        print("error missing_markers_or_packets")
        return 1
    rate = count(pkts, on - BASE, on) / (BASE / WIN)
    hole = windows(pkts, on, off, rate)
    base = windows(pkts, on - BASE, on, rate)
    m = {
        "rate_pkts_10ms": round(rate, 2),
        "recovery_ms": recovery(hole),
        "hole_low_pct": round(100 * sum(w[1] for w in hole) / max(len(hole), 1), 2),
        "base_low_pct": round(100 * sum(w[1] for w in base) / max(len(base), 1), 2),
        "hole_low_run_ms": low_run(hole),
        "base_low_run_ms": low_run(base),
        "hole_ratio": round(count(pkts, on, off) / max((off - on) / WIN * rate, 1e-9), 3),
    }
    for n in (10, 20, 50, 100, 200):
        m["first_%d_ms" % n] = round(count(pkts, on, on + n / 1000) / max(n / 10 * rate, 1e-9), 3)
    if "on1" in marks:
        m["tc_on_ms"] = round(1000 * (marks["on1"] - on), 2)
        if m["recovery_ms"] >= 0:
            m["recovery_after_tc_ms"] = round(m["recovery_ms"] - m["tc_on_ms"], 2)
    later = [t for t, p in retire if t >= on and (slot is None or p == slot)]
    if later:
        m["retire_ms"] = round(1000 * (later[0] - on), 2)
    if slot is not None:
        m["retired_other"] = sum(1 for _, p in retire if p != slot)
    m["revived"] = sum(1 for t in revive if t >= on)
    if slot is not None:
        mine = [t for t, p in retx if p == slot and t >= on]
        if mine:
            m["retx_first_ms"] = round(1000 * (mine[0] - on), 2)
        m["retx_slot_100ms"] = sum(1 for t in mine if t < on + 0.1)
        m["retx_other_100ms"] = sum(1 for t, p in retx if p != slot and on <= t < on + 0.1)
    if slot is not None and rcvd:
        mine = [t for t, p in rcvd if p == slot]
        before = [t for t in mine if on - BASE <= t < on]
        # before the slot's retirement: a revived slot has a fresh port
        # the filter does not drop
        end = off
        if later:
            end = min(off, later[0])
        last = [t for t in mine if t < end]
        if last:
            m["slot_last_ms"] = round(1000 * (last[-1] - on), 2)
            if m["recovery_ms"] >= 0:
                m["recovery_after_last_ms"] = round(m["recovery_ms"] - m["slot_last_ms"], 2)
        if len(before) > 1:
            m["slot_gap_ms"] = round(1000 * (before[-1] - before[0]) / (len(before) - 1), 2)
    m["hole_s"] = round(off - on, 3)
    m["packets"] = len(pkts)
    ut = [t for t, _ in una]
    urate = 0
    if una:
        urate = (una_at(una, ut, on) - una_at(una, ut, on - BASE)) / (BASE / WIN)
        m["una_rate_10ms"] = round(urate, 2)
        for n in (10, 20, 50, 100, 200):
            got = una_at(una, ut, on + n / 1000) - una_at(una, ut, on)
            m["una_first_%d_ms" % n] = round(got / max(n / 10 * urate, 1e-9), 3)
        m["una_stall_ms"] = una_stall(una, on, min(on + 1, off))
        m["base_una_stall_ms"] = una_stall(una, on - BASE, on)
    for k, v in m.items():
        print(k, v)
    print("# 10 ms bins from 50 ms before on0 to 200 ms after: offset_ms "
          "packets / R [acknowledged PSNs / una_rate]")
    for k in range(-5, 20):
        a = on + k * WIN
        c = count(pkts, a, a + WIN)
        line = "# %5d %4d %.2f" % (k * 10, c, c / rate if rate else 0)
        if una:
            u = una_at(una, ut, a + WIN) - una_at(una, ut, a)
            line += " %4d %.2f" % (u, u / urate if urate else 0)
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
