package index

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/reflectkb/reflect/index/embed"
)

// conceptEmbedder is a fake model embedder: it maps every word of one
// concept (pets) to one axis, so "pets" and "a cat named Bailey" are
// similar in meaning while sharing no word, as a model would have them.
// name says which provider it poses as.
type conceptEmbedder struct{ name string }

func (e conceptEmbedder) Name() string    { return e.name }
func (e conceptEmbedder) Version() string { return "concept-test" }
func (e conceptEmbedder) Dim() int        { return 4 }

func (e conceptEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v := []float32{0, 0, 0, 0.01}
		for _, w := range strings.Fields(strings.ToLower(t)) {
			switch strings.Trim(w, ".,!?#") {
			case "pets", "pet", "cat", "dog", "kitten":
				v[0]++
			}
		}
		// Unit length, as the providers return them.
		n := float32(math.Sqrt(float64(v[0]*v[0] + v[3]*v[3])))
		out[i] = []float32{v[0] / n, 0, 0, v[3] / n}
	}
	return out, nil
}

// TestSemanticTierWeight checks the vector signal's weight by embedder: a
// model embedder's similarity of meaning votes (ModelVectorWeight), so a
// learning that shares no word with the query but means it ranks above a
// weak word match; the hash embedder's only breaks ties, so the same
// learning is listed after every word match.
func TestSemanticTierWeight(t *testing.T) {
	docs := []doc{
		{ID: "lrn-home-dir", Title: "Home directory permissions", Body: "chmod 700 the home directory.\n"},
		{ID: "lrn-bailey", Title: "Bailey the cat", Body: "A cat named Bailey sleeps on the keyboard.\n"},
		{ID: "lrn-long-note", Title: "Release checklist",
			Body: "Tag, build, sign, upload, announce, update the changelog, bump the version, " +
				"check the mirrors, rotate the keys, close the milestone, archive the logs, " +
				"thank the reviewers, file the follow-ups, and go home.\n"},
	}
	for _, tc := range []struct {
		provider string
		weight   float64
		want     []string
	}{
		{embed.ProviderOllama, ModelVectorWeight, []string{"lrn-home-dir", "lrn-bailey", "lrn-long-note"}},
		{embed.ProviderHash, HashVectorWeight, []string{"lrn-home-dir", "lrn-long-note", "lrn-bailey"}},
	} {
		t.Run(tc.provider, func(t *testing.T) {
			k := newKB(t)
			for _, d := range docs {
				k.write(t, d)
			}
			ix := openWith(t, k, WithEmbedder(conceptEmbedder{name: tc.provider}))
			res := search(t, ix, Query{Text: "pets in the home directory"})
			if got := ids(res); !slices.Equal(got, tc.want) {
				t.Fatalf("results %v, want %v", got, tc.want)
			}
			b, _ := resultByID(res, "lrn-bailey")
			if b.Why.LexicalRank != 0 || b.Why.VectorRank != 1 || b.Why.Weights.Vector != tc.weight {
				t.Errorf("bailey: %+v; want a vector-only hit fused at weight %v", b.Why, tc.weight)
			}
			if b.Why.Contributions.Vector != tc.weight {
				t.Errorf("bailey: vector contribution %v, want the whole weight %v (the best cosine)", b.Why.Contributions.Vector, tc.weight)
			}
		})
	}
}
