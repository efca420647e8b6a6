package bench

import "math"

// Scores are the retrieval metrics, computed exactly as beir_eval.py does:
// exponential-gain nDCG@10, recall@5 and @10 over the relevant documents,
// MRR@10; queries without a relevant document are skipped.
type Scores struct {
	NDCG10   float64 `json:"ndcg@10"`
	Recall5  float64 `json:"recall@5"`
	Recall10 float64 `json:"recall@10"`
	MRR10    float64 `json:"mrr@10"`
	Queries  int     `json:"queries"`
}

// Score evaluates a run (query id → ranked doc ids) against qrels.
func Score(run map[string][]string, qrels map[string]map[string]int) Scores {
	var s Scores
	for qid, rel := range qrels {
		relevant := map[string]bool{}
		var grades []int
		for d, g := range rel {
			if g > 0 {
				relevant[d] = true
				grades = append(grades, g)
			}
		}
		if len(relevant) == 0 {
			continue
		}
		s.Queries++
		ranked := run[qid]
		if len(ranked) > 10 {
			ranked = ranked[:10]
		}
		var dcg, idcg float64
		for i, d := range ranked {
			dcg += (math.Pow(2, float64(rel[d])) - 1) / math.Log2(float64(i+2))
		}
		sortDesc(grades)
		for i, g := range grades {
			if i == 10 {
				break
			}
			idcg += (math.Pow(2, float64(g)) - 1) / math.Log2(float64(i+2))
		}
		if idcg > 0 {
			s.NDCG10 += dcg / idcg
		}
		var hit5, hit10 int
		for i, d := range ranked {
			if relevant[d] {
				if i < 5 {
					hit5++
				}
				hit10++
			}
		}
		s.Recall5 += float64(hit5) / float64(len(relevant))
		s.Recall10 += float64(hit10) / float64(len(relevant))
		for i, d := range ranked {
			if relevant[d] {
				s.MRR10 += 1 / float64(i+1)
				break
			}
		}
	}
	if s.Queries > 0 {
		n := float64(s.Queries)
		s.NDCG10 /= n
		s.Recall5 /= n
		s.Recall10 /= n
		s.MRR10 /= n
	}
	return s
}

func sortDesc(a []int) {
	for i := 1; i < len(a); i++ {
		for j := i; j > 0 && a[j] > a[j-1]; j-- {
			a[j], a[j-1] = a[j-1], a[j]
		}
	}
}
