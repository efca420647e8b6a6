#!/usr/bin/env python3
"""scripts/gaterefit.py: fit the prompt gate's two classifiers (recall/gate.go), the veto
over the floor and the rescue under it, on TestGateDump files: tuning part only,
without the prompts that ask for work.

    for q in 0 1; do for pad in synthetic everyday; do
      REFLECT_GATE_QUESTIONS=$q REFLECT_GATE_PADDING=$pad REFLECT_GATE_DUMP=/tmp/gate-$q-$pad.tsv \\
        REFLECT_GATE_SET=userset REFLECT_GATE_SIZES=10,100,1000,10000 \\
        go test -tags sqlite_fts5 -count=1 -timeout 20m -run TestGateDump ./recall/
    done; done
    scripts/gaterefit.py /tmp/gate-*.tsv

A request for work (recall/intent.go, the dump's `request` column) is held to
REQUEST_FLOOR times the floor and never reaches the classifiers, so its rows
are left out. Any other prompt's floor is QUESTION_FLOOR times the floor in a
KB of up to IDF_CAP_DOCS learnings (recall/floor.go). The gate judges the hit
with the best BM25F: over the floor, the veto keeps the prompt silent when its
probability is under its threshold, unless the prompt repeats maxPhraseRun (six) of
the hit's words in order; under the floor, the rescue injects the hit when its
probability reaches its threshold.

The fit: one logistic regression per side of the floor, on the gate's ten
features of the best hit of every tuning prompt on that side, each KB size and
class weighed alike, L2 0.01 on standardised features (Newton's method); the
weights are printed in the raw features' space, in recall/gate.go's order. The
thresholds are chosen together on the tuning part, in steps of 0.02: the pair
that recalls the most error, identifier and natural prompts over every size of
every dump given while false injection stays within TARGET_FI at each. What
the gate then injects is printed for both parts (the held-out part's numbers
are reported, never used).

With --curve it also prints what other false-injection budgets would buy on the
held-out part (thresholds chosen on the tuning part for each budget) and the
ceiling with no gate at all, where every prompt injects what clears the floor or
its best hit: the recall the ranking alone allows.
"""
import csv, sys, math, collections, json, os

TARGET_FI = 0.03  # the false-injection target
CURVE_BUDGETS = (0.03, 0.05, 0.08, 0.10, 0.15, 0.20)  # --curve's false-injection budgets
REQUEST_FLOOR = 2.0  # recall/intent.go's requestFloor
QUESTION_FLOOR, IDF_CAP_DOCS = 0.9, 1000  # recall/floor.go
MIN_EV, PER_ROOT = 1.9, 0.55  # recall/floor.go
MIN_COV, MIN_COV_TERMS, MIN_COV_EV = 0.75, 3, 1.0
KINDS = ('error', 'identifier', 'natural', 'paraphrase', 'silent')
KBS = {10: 18, 100: 2, 1000: 1, 10000: 1, 100000: 1}


def fnv1a(s):
    h = 2166136261
    for b in s.encode():
        h = ((h ^ b) * 16777619) & 0xffffffff
    return h


def denominators(set_name):
    """How many prompts of each kind each part of the set holds (bench/SET/prompts.jsonl;
    held out: FNV-1a of the id is 0 mod 3, as bench.LabelledPrompt.HeldOut)."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'bench', set_name, 'prompts.jsonl')
    den = {True: collections.Counter(), False: collections.Counter()}
    for line in open(path):
        p = json.loads(line)
        den[fnv1a(p['id']) % 3 == 0][p['kind']] += 1
    return {held: {k: c[k] for k in KINDS} for held, c in den.items()}


DEN = {}


def load(path):
    """Rows grouped per (size, prompt, KB): a KB's rows come in rank order."""
    groups, prev = [], None
    for r in csv.DictReader(open(path), delimiter='\t'):
        if not DEN:
            DEN.update(denominators(r['set']))
        for k in ('bm25', 'floor_ratio', 'coverage', 'matched', 'lead', 'wig', 'fields', 'identifiers', 'query_bm25', 'phrase', 'questions'):
            r[k] = float(r[k])
        for k in ('size', 'rank', 'label', 'docs', 'terms', 'matched_terms'):
            r[k] = int(r[k])
        r['held'] = r['held_out'] == 'true'
        r['request'] = r['request'] == 'true'
        floor = max(MIN_EV, PER_ROOT * math.sqrt(r['terms']))
        r['floor'] = floor
        r['evidence'] = math.exp(r['floor_ratio']) * floor
        if not r['request'] and r['docs'] <= IDF_CAP_DOCS:
            floor *= QUESTION_FLOOR
        r['clears'] = r['evidence'] >= floor or (r['evidence'] >= MIN_COV_EV and r['matched_terms'] >= MIN_COV_TERMS and r['coverage'] >= MIN_COV)
        key = (r['size'], r['id'])
        if prev is None or key != (prev['size'], prev['id']) or r['rank'] <= prev['rank']:
            groups.append([])
        groups[-1].append(r)
        prev = r
    return groups


def features(r):
    """The gate's features, in recall/gate.go's order (Features, gateProbability)."""
    size = min(1, math.log10(max(10, r['docs'])) / 3)
    return [r['floor_ratio'], r['coverage'], r['matched'], r['lead'] * size, r['wig'] * size,
            r['fields'], r['identifiers'], size, r['phrase'], r['questions']]


def top(g):
    return max(g, key=lambda x: x['bm25'])


def solve(a, b):
    """Solves a x = b by Gaussian elimination with partial pivoting."""
    n = len(b)
    m = [row[:] + [b[i]] for i, row in enumerate(a)]
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(m[r][c]))
        m[c], m[p] = m[p], m[c]
        for r in range(n):
            if r != c and m[c][c] != 0:
                f = m[r][c] / m[c][c]
                for k in range(c, n + 1):
                    m[r][k] -= f * m[c][k]
    return [m[i][n] / m[i][i] for i in range(n)]


def fit(rows):
    """Weighted, L2-regularised logistic regression by Newton's method; returns the
    intercept and weights in the raw features' space."""
    X = [features(r) for r in rows]
    Y = [1 if r['kind'] != 'silent' and r['label'] == 1 else 0 for r in rows]
    cnt = collections.Counter((r['size'], y) for r, y in zip(rows, Y))
    W = [1.0 / cnt[(r['size'], y)] for r, y in zip(rows, Y)]
    n, N = len(X[0]), len(X)
    mu = [sum(x[j] for x in X) / N for j in range(n)]
    sd = [max(1e-6, math.sqrt(sum((x[j] - mu[j]) ** 2 for x in X) / N)) for j in range(n)]
    Z = [[1.0] + [(x[j] - mu[j]) / sd[j] for j in range(n)] for x in X]
    sw = sum(W)
    w = [0.0] * (n + 1)
    for _ in range(50):
        g = [0.0] * (n + 1)
        h = [[0.0] * (n + 1) for _ in range(n + 1)]
        for z, y, wt in zip(Z, Y, W):
            p = 1 / (1 + math.exp(-max(-30, min(30, sum(a * b for a, b in zip(w, z))))))
            e, c = (p - y) * wt / sw, p * (1 - p) * wt / sw
            for j in range(n + 1):
                g[j] += e * z[j]
                for k in range(j, n + 1):
                    h[j][k] += c * z[j] * z[k]
        for j in range(n + 1):
            for k in range(j):
                h[j][k] = h[k][j]
        for j in range(1, n + 1):
            g[j] += 0.01 * w[j]
            h[j][j] += 0.01
        step = solve(h, g)
        w = [a - b for a, b in zip(w, step)]
        if max(abs(x) for x in step) < 1e-7:
            break
    return [w[0] - sum(w[j + 1] * mu[j] / sd[j] for j in range(n))] + [w[j + 1] / sd[j] for j in range(n)]


def probability(raw, r):
    z = raw[0] + sum(a * b for a, b in zip(raw[1:], features(r)))
    return 1 / (1 + math.exp(-max(-30, min(30, z))))


def outcomes(groups, veto, rescue):
    """Per prompt and KB: size, kind, part, how the gate decides (the request
    floor, or the side and the probability to hold to its threshold) and
    whether what it lets through is right (any injection, for a silent prompt)."""
    out = []
    for g in groups:
        best = top(g)
        if g[0]['request']:
            side, p = 'request', 1.0
            ok = [x for x in g if x['evidence'] >= REQUEST_FLOOR * x['floor']]
        else:
            side = 'veto' if best['clears'] else 'rescue'
            p = 2.0 if side == 'veto' and best['phrase'] >= 1 else probability(veto if side == 'veto' else rescue, best)
            ok = [x for x in g if x['clears'] or x is best]
        if ok:
            most = max(x['evidence'] for x in ok)
            ok = [x for x in ok if x['evidence'] >= 0.5 * most]
        kind = g[0]['kind']
        hit = bool(ok) if kind == 'silent' else any(x['label'] == 1 for x in ok)
        out.append((g[0]['size'], kind, g[0]['held'], side, p, hit))
    return out


def evaluate(outs, veto_thr, rescue_thr, held):
    got = collections.defaultdict(collections.Counter)
    for size, kind, h, side, p, hit in outs:
        if h != held:
            continue
        admitted = side == 'request' or p >= (veto_thr if side == 'veto' else rescue_thr)
        if admitted and hit:
            got[size][kind] += 1
    return {size: {k: got[size][k] / (n * (KBS[size] if k == 'silent' else 1)) for k, n in DEN[held].items()}
            for size in sorted(got)}


def show(out, label):
    print(label)
    for size, d in out.items():
        print(f"  {size:>6} " + ' '.join(f"{k[:5]} {v:.3f}" for k, v in d.items()))


def choose(outs, target):
    """The thresholds, in steps of 0.02, that recall the most error, identifier and
    natural prompts of the tuning part while false injection stays within target at
    each size of each dump."""
    best = None
    for v in range(2, 100, 2):
        for r in range(2, 100, 2):
            res = [evaluate(o, v / 100, r / 100, False) for o in outs]
            if any(d['silent'] > target + 1e-9 for x in res for d in x.values()):
                continue
            score = sum(d[k] for x in res for d in x.values() for k in ('error', 'identifier', 'natural'))
            if best is None or score > best[0] + 1e-12:
                best = (score, v / 100, r / 100)
    return best[1], best[2]


def curve(files, outs):
    """What each false-injection budget buys: thresholds chosen on the tuning part
    for the budget, the held-out part's recall and false injection at them, and last
    the gate's ceiling, every prompt injecting what clears the floor (or its best
    hit): what the ranking alone allows."""
    budgets = [(f'FI <= {t:.2f}', choose(outs, t)) for t in CURVE_BUDGETS]
    budgets.append(('no gate', (0.0, 0.0)))
    for label, (veto_thr, rescue_thr) in budgets:
        print(f'{label}: veto {veto_thr} rescue {rescue_thr}')
        for f, o in zip(files, outs):
            res = evaluate(o, veto_thr, rescue_thr, True)
            print(f'  {os.path.basename(f)} held out: ' + ' | '.join(
                f"{size} e {d['error']:.2f} i {d['identifier']:.2f} n {d['natural']:.2f} fi {d['silent']:.3f}"
                for size, d in res.items()))


def main():
    args = sys.argv[1:]
    with_curve = '--curve' in args
    files = [a for a in args if a != '--curve']
    sets = [load(f) for f in files]
    tops = [top(g) for gs in sets for g in gs if not g[0]['held'] and not g[0]['request']]
    veto = fit([r for r in tops if r['clears']])
    rescue = fit([r for r in tops if not r['clears']])
    print('vetoWeights', '{' + ', '.join(f'{v:.3f}' for v in veto) + '}')
    print('rescueWeights', '{' + ', '.join(f'{v:.3f}' for v in rescue) + '}')
    outs = [outcomes(gs, veto, rescue) for gs in sets]
    veto_thr, rescue_thr = choose(outs, TARGET_FI)
    print('vetoThreshold', veto_thr, 'rescueThreshold', rescue_thr)
    for f, o in zip(files, outs):
        show(evaluate(o, veto_thr, rescue_thr, False), f'{f}: tuning')
        show(evaluate(o, veto_thr, rescue_thr, True), f'{f}: held out')
    if with_curve:
        curve(files, outs)


if __name__ == '__main__':
    main()
