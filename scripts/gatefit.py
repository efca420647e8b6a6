#!/usr/bin/env python3
"""scripts/gatefit.py: refit the prompt gate on a TestGateDump file (tuning part only).

    REFLECT_GATE_DUMP=/tmp/gate.tsv REFLECT_GATE_SET=userset REFLECT_GATE_SIZES=10,100,1000,10000 \\
      go test -tags sqlite_fts5 -count=1 -run TestGateDump ./recall/
    scripts/gatefit.py /tmp/gate.tsv

Fits a logistic regression on the best lexical hit under the floor of every
tuning prompt (each size and class weighed alike; features: the gate's, NQC over
the top five BM25F normalised by the best, words matched), takes the lowest
threshold that rescues no silent tuning prompt at any size, and prints what the
gate would then inject on both parts. The denominators are the userset's.
"""
import csv, sys, math, collections, statistics
def load(path):
    rows=list(csv.DictReader(open(path), delimiter='\t'))
    groups=[]; prev=None
    for r in rows:
        for k in ('bm25','floor_ratio','coverage','matched','lead','wig','fields','identifiers','query_bm25'):
            r[k]=float(r[k])
        for k in ('size','rank','label','docs','terms','matched_terms'):
            r[k]=int(r[k])
        r['passing']= r['passing']=='true'
        key=(r['size'],r['id'])
        if prev is None or key!=(prev['size'],prev['id']) or r['rank']<=prev['rank']:
            groups.append([])
        groups[-1].append(r); prev=r
    return groups
DEN={True:{'error':37,'identifier':40,'natural':55,'paraphrase':29,'silent':54},
     False:{'error':79,'identifier':91,'natural':87,'paraphrase':55,'silent':98}}
KBS={10:18,100:2,1000:1,10000:1,100000:1}
def evaluate(groups, passes, held):
    # passes(hit, group) -> bool
    res=collections.defaultdict(lambda: collections.Counter())
    for g in groups:
        h=g[0]['held_out']=='true'
        if h!=held: continue
        size=g[0]['size']; kind=g[0]['kind']
        ok=[x for x in g if passes(x,g)]
        if ok:
            best=max(x['bm25'] for x in ok)
            ok=[x for x in ok if x['bm25']>=0.5*best]
        if kind=='silent':
            if ok: res[size]['silent']+=1
        else:
            if any(x['label']==1 for x in ok): res[size][kind]+=1
    out={}
    for size in sorted(res):
        d={}
        for k,n in DEN[held].items():
            den=n*(KBS[size] if k=='silent' else 1)
            d[k]=res[size][k]/den
        out[size]=d
    return out
def show(out,label=''):
    print(label)
    for s,d in out.items():
        print(f"  {s:>6} " + ' '.join(f"{k[:4]} {v:.3f}" for k,v in d.items()))
g=load(sys.argv[1])
def feats(x,gr):
    bm=sorted([y['bm25'] for y in gr],reverse=True)
    top=bm[0]; k=bm[:5]
    nqc=statistics.pstdev(k)/top if len(k)>1 else 1.0
    size=min(1,math.log10(max(10,x['docs']))/3)
    second=bm[1] if len(bm)>1 else 0
    return [x['floor_ratio'],x['coverage'],x['matched'],x['lead'],x['wig'],x['fields'],x['identifiers'],
            nqc, x['lead']*size, x['wig']*size, size, math.log(1+x['matched_terms'])]
cands=[]  # (held,size,kind,label,feat,group)
for gr in g:
    top=max(gr,key=lambda x:x['bm25'])
    if top['passing']: continue
    cands.append((gr[0]['held_out']=='true',gr[0]['size'],gr[0]['kind'],top['label'],feats(top,gr),gr,top))
tr=[c for c in cands if not c[0]]
n=len(tr[0][4])
mu=[sum(c[4][j] for c in tr)/len(tr) for j in range(n)]
sd=[max(1e-6,math.sqrt(sum((c[4][j]-mu[j])**2 for c in tr)/len(tr))) for j in range(n)]
def z(f): return [(f[j]-mu[j])/sd[j] for j in range(n)]
# weights: each (size,class) weighed alike
cnt={}
for c in tr: cnt[(c[1],c[3])]=cnt.get((c[1],c[3]),0)+1
X=[z(c[4]) for c in tr]; Y=[c[3] for c in tr]; W=[1.0/cnt[(c[1],c[3])] for c in tr]
sw=sum(W); W=[w/sw*len(W) for w in W]
w=[0.0]*(n+1); lr=0.1; l2=0.01
for it in range(3000):
    gw=[0.0]*(n+1)
    for x,y,wt in zip(X,Y,W):
        s=w[0]+sum(a*b for a,b in zip(w[1:],x)); p=1/(1+math.exp(-max(-30,min(30,s))))
        e=(p-y)*wt
        gw[0]+=e
        for j in range(n): gw[j+1]+=e*x[j]
    for j in range(n+1): w[j]-=lr*(gw[j]/len(X)+(l2*w[j] if j else 0))
def prob(f):
    x=z(f); s=w[0]+sum(a*b for a,b in zip(w[1:],x)); return 1/(1+math.exp(-s))
print('weights',[round(v,3) for v in w])
sil=[prob(c[4]) for c in tr if c[2]=='silent']
thr=max(sil)+1e-9
print('threshold (no tuning silent rescued)',thr)
for t in (thr,):
    resc=set(id(c[6]) for c in cands if prob(c[4])>=t)
    for held in (False,True):
        show(evaluate(g, lambda x,gr: x['passing'] or id(x) in resc, held),('held' if held else 'tuning')+f' t={t:.3f}')
# also: thresholds allowing FP up to .03 per size on tuning
