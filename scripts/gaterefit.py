#!/usr/bin/env python3
"""scripts/gaterefit.py: fit the prompt gate's veto (recall/gate.go) on TestGateDump files,
tuning part only, without the prompts that ask for work.

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
probability is under the threshold, unless the prompt repeats MAX_PHRASE_RUN of
the hit's words in order; under the floor, the rescue (RESCUE_WEIGHTS, fitted
before and kept) injects it at RESCUE_THRESHOLD. The fit: logistic regression
on the gate's ten features of the best hit of every tuning prompt, each KB size
and class weighed alike, L2 0.01 on standardised features; the weights are
printed in the raw features' space, in vetoWeights' order. The threshold is
chosen on the tuning part as the lowest (in steps of 0.01) at which false
injection stays within TARGET_FI at every size of every dump given; what the
gate then injects is printed for both parts (the held-out part's numbers are
reported, never used).
"""
import csv, sys, math, collections, json, os

TARGET_FI = 0.03  # the false-injection target
REQUEST_FLOOR = 2.0  # recall/intent.go's requestFloor
QUESTION_FLOOR, IDF_CAP_DOCS = 0.9, 1000  # recall/floor.go
MIN_EV, PER_ROOT = 1.9, 0.55  # recall/floor.go
MIN_COV, MIN_COV_TERMS, MIN_COV_EV = 0.75, 3, 1.0
KINDS = ('error', 'identifier', 'natural', 'paraphrase', 'silent')
RESCUE_WEIGHTS = [0.712, 3.946, -0.881, 1.050, 5.353, -0.397, 1.051, 3.491, -0.954]  # recall/gate.go
RESCUE_THRESHOLD = 0.92  # recall/gate.go
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
        for k in ('bm25', 'floor_ratio', 'coverage', 'matched', 'lead', 'wig', 'fields', 'identifiers', 'query_bm25', 'phrase'):
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
    size = min(1, math.log10(max(10, r['docs'])) / 3)
    return [r['floor_ratio'], r['coverage'], r['matched'], r['lead'] * size, r['wig'] * size,
            r['fields'], r['identifiers'], size, 1.0 if r['clears'] else 0.0, r['phrase']]


def top(g):
    return max(g, key=lambda x: x['bm25'])


def fit(groups):
    rows = [top(g) for g in groups if not g[0]['held'] and not g[0]['request']]
    X = [features(r) for r in rows]
    Y = [1 if r['kind'] != 'silent' and r['label'] == 1 else 0 for r in rows]
    cnt = collections.Counter((r['size'], y) for r, y in zip(rows, Y))
    W = [1.0 / cnt[(r['size'], y)] for r, y in zip(rows, Y)]
    n = len(X[0])
    mu = [sum(x[j] for x in X) / len(X) for j in range(n)]
    sd = [max(1e-6, math.sqrt(sum((x[j] - mu[j]) ** 2 for x in X) / len(X))) for j in range(n)]
    Z = [[(x[j] - mu[j]) / sd[j] for j in range(n)] for x in X]
    w = [0.0] * (n + 1)
    sw = sum(W)
    for _ in range(3000):
        g = [0.0] * (n + 1)
        for z, y, wt in zip(Z, Y, W):
            s = w[0] + sum(a * b for a, b in zip(w[1:], z))
            e = (1 / (1 + math.exp(-max(-30, min(30, s)))) - y) * wt
            g[0] += e
            for j in range(n):
                g[j + 1] += e * z[j]
        for j in range(n + 1):
            w[j] -= 0.5 * (g[j] / sw + (0.01 * w[j] if j else 0))
    raw = [w[0] - sum(w[j + 1] * mu[j] / sd[j] for j in range(n))] + [w[j + 1] / sd[j] for j in range(n)]
    return raw


def rescue_probability(r):
    z = RESCUE_WEIGHTS[0] + sum(a * b for a, b in zip(RESCUE_WEIGHTS[1:], features(r)[:8]))
    return 1 / (1 + math.exp(-max(-30, min(30, z))))


def admits(raw, r, thr):
    if r['clears']:
        return r['phrase'] >= 1 or probability(raw, r) >= thr
    return rescue_probability(r) >= RESCUE_THRESHOLD


def probability(raw, r):
    z = raw[0] + sum(a * b for a, b in zip(raw[1:], features(r)))
    return 1 / (1 + math.exp(-max(-30, min(30, z))))


def evaluate(groups, raw, thr, held):
    got = collections.defaultdict(collections.Counter)
    for g in groups:
        if g[0]['held'] != held:
            continue
        best = top(g)
        if g[0]['request']:
            ok = [x for x in g if x['evidence'] >= REQUEST_FLOOR * x['floor']]
        elif admits(raw, best, thr):
            ok = [x for x in g if x['clears'] or x is best]
        else:
            ok = []
        if ok:
            most = max(x['evidence'] for x in ok)
            ok = [x for x in ok if x['evidence'] >= 0.5 * most]
        size, kind = g[0]['size'], g[0]['kind']
        if kind == 'silent':
            got[size]['silent'] += bool(ok)
        elif any(x['label'] == 1 for x in ok):
            got[size][kind] += 1
    return {size: {k: got[size][k] / (n * (KBS[size] if k == 'silent' else 1)) for k, n in DEN[held].items()}
            for size in sorted(got)}


def show(out, label):
    print(label)
    for size, d in out.items():
        print(f"  {size:>6} " + ' '.join(f"{k[:5]} {v:.3f}" for k, v in d.items()))


def main():
    files = sys.argv[1:]
    sets = [load(f) for f in files]
    raw = fit([g for gs in sets for g in gs])
    print('vetoWeights', '{' + ', '.join(f'{v:.3f}' for v in raw) + '}')
    chosen = None
    for step in range(30, 100):
        thr = step / 100
        if all(all(v['silent'] <= TARGET_FI + 1e-9 for v in evaluate(gs, raw, thr, False).values()) for gs in sets):
            chosen = thr
            break
    print('vetoThreshold', chosen)
    for f, gs in zip(files, sets):
        show(evaluate(gs, raw, chosen, False), f'{f}: tuning, at {chosen}')
        show(evaluate(gs, raw, chosen, True), f'{f}: held out, at {chosen}')


if __name__ == '__main__':
    main()
