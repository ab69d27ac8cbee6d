#!/usr/bin/env python3
"""Replays steady-state tests (emulator --until-steady, sim.SteadyState) on recorded series
(docs/benchmarks.md, "A steady test that sees slow drifts").

Usage: bench/steady-replay.py [--window US] [--measure US] [--ref A:B] SERIES.json..
  SERIES.json  `emulator sim ... --series BIN --json` reports (bins of delivery time from an empty
               network); the test's windows are --window wide (a multiple of the bin; default the bin).
  --measure    the span measured after the steady point (default 100 us, the Figure 5 runs').
  --cap US     the warm-up's cap: not steady by it, measured after it (default: the series' end less --measure).
  --ref A:B    the reference the measured value is compared with: the series' bins in [A, B) us
               (default the last --measure us of the series).

Each test is run at every window end as the simulator runs it, and the first window end at which it
says steady is the warm-up's end; the --measure us after it are then averaged from the bins
(throughput: the bins' mean; latency: weighted by the packets delivered) and compared with the
reference. The tests:
  band     the band alone (`--steady-drift 0`), the simulator's test before issue 16's fix: each of
           the last ten windows' mean latency and throughput within 5% of the ten's mean.
  band+trend(T)  the simulator's test now (`--until-steady`, `--steady-drift T`, default 2%): the band,
           and over the last half of the windows closed so far (judged from twenty windows on) the
           least-squares drift (slope x the half's length, over its mean) of the windows' mean
           latency and of their throughput within T.
  bound(T, z se)  band+trend with the drift plus z standard errors of it (from the windows' scatter
           about the line) within T: the drift shown small. Replayed, not built: it holds noisy light
           points two to five times as long.
  mser     MSER (White 1997) on the windows so far: steady once the truncation point that
           minimises the marginal standard error of the latency's mean is in the first half (and
           the band holds). Replayed, not built: it does not see PAR's slow rise.

Recorded series: docs/data/qadaptive/fig7-*.json (Q-adaptive, 10 us, 1 ms), adv4-remainder/*-2ms-*.json
(10 us, 2 ms), fast-sample/series-*.json (4 and 5 us), steady-test/series-*.json (2 us).
"""
import json, sys

WINDOWS = 10
BAND = 0.05


def windows_of(series, width_ns):
    """Per window [k w, (k + 1) w): packets, latency sum (ns), throughput (mean of its bins)."""
    bin_ns = series[1]["startNs"] - series[0]["startNs"]
    per = width_ns // bin_ns
    if per < 1 or width_ns % bin_ns:
        sys.exit("steady-replay: a window of %d ns is not a multiple of the series' %d ns bins" % (width_ns, bin_ns))
    out = []
    for i in range(0, len(series) - per + 1, per):
        bs = series[i:i + per]
        n = sum(b["packetsDelivered"] for b in bs)
        lat = sum((b["latencyMeanNs"] or 0) * b["packetsDelivered"] for b in bs)
        out.append((n, lat, sum(b["throughput"] for b in bs) / per))
    return out


def band(ws):
    last = ws[-WINDOWS:]
    if len(last) < WINDOWS or any(n == 0 for n, _, _ in last):
        return False
    lats = [l / n for n, l, _ in last]
    ths = [t for _, _, t in last]
    ml, mt = sum(lats) / len(lats), sum(ths) / len(ths)
    return all(abs(x - ml) <= BAND * ml for x in lats) and all(abs(x - mt) <= BAND * mt for x in ths)


def drift(ys):
    """The least-squares line's drift (slope x the span's length, over the mean) and its standard error (from the residuals)."""
    n = len(ys)
    xm, ym = (n - 1) / 2, sum(ys) / n
    sxx = sum((x - xm) ** 2 for x in range(n))
    sxy = sum((x - xm) * (y - ym) for x, y in zip(range(n), ys))
    syy = sum((y - ym) ** 2 for y in ys)
    slope = sxy / sxx
    rss = max(0.0, syy - slope * sxy)
    return slope * n / ym, (rss / (n - 2) / sxx) ** 0.5 * n / ym


def band_trend(tol, z=0):
    """band, and over the last half (judged from twenty windows on) each line's |drift| + z standard errors within tol."""
    def test(ws):
        if not band(ws):
            return False
        span = ws[len(ws) - len(ws) // 2:]
        if len(span) < WINDOWS or any(n == 0 for n, _, _ in span):
            return False
        for ys in ([l / n for n, l, _ in span], [t for _, _, t in span]):
            d, se = drift(ys)
            if abs(d) + z * se > tol:
                return False
        return True
    test.__name__ = "band+trend(%g%%)" % (100 * tol) if z == 0 else "bound(%g%%, %g se)" % (100 * tol, z)
    return test


def mser(ws):
    if len(ws) < WINDOWS or any(n == 0 for n, _, _ in ws):
        return False
    ys = [l / n for n, l, _ in ws]
    best, at = None, 0
    for d in range(len(ys) // 2 + 2):
        tail = ys[d:]
        if len(tail) < WINDOWS // 2:
            break
        m = sum(tail) / len(tail)
        v = sum((y - m) ** 2 for y in tail) / len(tail) ** 2
        if best is None or v < best:
            best, at = v, d
    return at <= len(ys) // 2 and band(ws)


TESTS = [band, band_trend(0.02), band_trend(0.01), band_trend(0.02, 1), mser]


def measured(series, a_ns, b_ns):
    bs = [b for b in series if a_ns <= b["startNs"] < b_ns]
    if not bs:
        return None, None
    n = sum(b["packetsDelivered"] for b in bs)
    return (sum(b["throughput"] for b in bs) / len(bs),
            sum((b["latencyMeanNs"] or 0) * b["packetsDelivered"] for b in bs) / n / 1000 if n else None)


def main(argv):
    width = measure = cap = None
    ref = None
    paths = []
    it = iter(argv)
    for a in it:
        if a == "--window":
            width = int(float(next(it)) * 1000)
        elif a == "--measure":
            measure = int(float(next(it)) * 1000)
        elif a == "--cap":
            cap = int(float(next(it)) * 1000)
        elif a == "--ref":
            x, y = next(it).split(":")
            ref = (int(float(x) * 1000), int(float(y) * 1000))
        else:
            paths.append(a)
    if not paths:
        sys.exit(__doc__)
    measure = measure or 100_000
    print("| series | window | reference thr / lat (us) | " + " | ".join(t.__name__ + ": steady at, thr / lat diff" for t in TESTS) + " |")
    print("|---|---|---|" + "---|" * len(TESTS))
    for path in paths:
        d = json.load(open(path))
        s = d["series"]
        bin_ns = d["seriesBinNs"]
        w = width or bin_ns
        ws = windows_of(s, w)
        end = s[-1]["startNs"] + bin_ns
        a, b = ref or (end - measure, end)
        rt, rl = measured(s, a, b)
        last = cap or end - measure
        cells = []
        for test in TESTS:
            at = next(((k + 1) * w for k in range(len(ws)) if (k + 1) * w <= last and test(ws[:k + 1])), None)
            t, l = measured(s, at or last, (at or last) + measure)
            cells.append("%s, %+.1f%% / %+.1f%%" % ("%d us" % (at // 1000) if at else "not by %d us" % (last // 1000),
                                                    100 * (t / rt - 1), 100 * (l / rl - 1)))
        label = "%s %s %.2f" % (d["routing"], d["pattern"].replace("group-shift", "adv+1"), d["offeredLoad"])
        print("| %s | %d us | %.4f / %.3f | %s |" % (label, w // 1000, rt, rl, " | ".join(cells)))


if __name__ == "__main__":
    main(sys.argv[1:])
