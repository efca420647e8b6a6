package embed

import (
	"context"
	"fmt"
	"math"
	"sync"
	"unicode"
	"unicode/utf8"
)

// The hash embedder's feature scheme. Text is lowercased and split into
// words (runs of letters, digits and combining marks, as the lexical index
// splits them). Three families of features are hashed into the vector:
//
//   - word unigrams, weight 1.0: the words themselves;
//   - word bigrams, weight 0.7: adjacent word pairs, which keep a little
//     word order ("out of memory", "go test");
//   - character n-grams of 3 to 5 runes of each word padded with '<' and
//     '>', weight 1.0: they match inflections, compounds, typos and parts
//     of identifiers that whole words miss (fastText's subword idea).
//
// The weights were chosen on locomo-dev (vector ranking alone, dim 256):
// raising the n-gram weight from 0.4 to 1.0 lifted nDCG@10 from 0.30 to
// 0.34; beyond that, and for bigram weights 0.4–1.0 and stopword weights
// 0–0.5, results stayed within ±0.01, so the round values stand.
//
// Stopwords keep their bigrams (which carry phrases) but their unigram
// weight is cut to stopWeight and they get no character n-grams, because
// with no corpus statistics to supply an IDF, "the" would otherwise count
// as much as "sqlite". Words longer than maxGramWord runes (hashes, base64,
// minified code) get no character n-grams: theirs are noise.
//
// Each feature's weight is family weight × (1 + ln tf) (sublinear term
// frequency, so a repeated word does not drown the rest), added to one of
// Dim components with a sign taken from the feature's hash (signed feature
// hashing: collisions cancel out on average instead of piling up). The
// vector is then L2-normalised.
//
// hashVersion must change whenever anything in this scheme changes
// (tokenising, hashing, weights, the stopword list): it is stored with the
// vectors, and a new value makes the next reindex embed everything again.
const (
	hashVersion = "fh1"

	weightUnigram = 1.0
	weightBigram  = 0.7
	weightGram    = 1.0
	stopWeight    = 0.2

	minGram     = 3
	maxGram     = 5
	maxGramWord = 32
)

// Feature families, hashed in as a first byte so that the word "go" and the
// n-gram "go" land in different places.
const (
	famUnigram = iota + 1
	famBigram
	famGram
)

var familyWeight = [...]float32{famUnigram: weightUnigram, famBigram: weightBigram, famGram: weightGram}

// stopwords are the lexical index's query stopwords, repeated here because
// index imports this package and not the other way round.
var stopwords, maxStopLen = func() (map[string]bool, int) {
	m, longest := map[string]bool{}, 0
	for _, w := range []string{"a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in", "into", "is", "it", "no", "not", "of", "on", "or", "such", "that", "the", "their", "then", "there", "these", "they", "this", "to", "was", "will", "with", "i", "you", "he", "she", "we", "me", "my", "your", "our", "its", "his", "her", "them", "what", "when", "where", "who", "how", "which", "do", "does", "did", "have", "has", "had", "from", "about"} {
		m[w] = true
		longest = max(longest, len(w))
	}
	return m, longest
}()

// Hash is the default embedder: signed feature hashing of words, word pairs
// and character n-grams (see the scheme above). It is deterministic, needs
// no model and never touches the network. It is safe for concurrent use.
type Hash struct {
	dim  int
	pool sync.Pool // *hashScratch, so steady-state embedding does not allocate per feature
}

// NewHash returns a hash embedder producing dim-dimensional vectors.
func NewHash(dim int) (*Hash, error) {
	if dim <= 0 {
		return nil, fmt.Errorf("hash embedder dimension must be positive, got %d", dim)
	}
	return &Hash{dim: dim}, nil
}

// Name returns "hash".
func (h *Hash) Name() string { return ProviderHash }

// Version identifies the feature scheme; it changes whenever the scheme does.
func (h *Hash) Version() string { return hashVersion }

// Dim returns the vector length.
func (h *Hash) Dim() int { return h.dim }

// Embed returns one unit vector per text (all zeros for a text without
// words). It fails only when ctx is done.
func (h *Hash) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	backing := make([]float32, len(texts)*h.dim)
	s, _ := h.pool.Get().(*hashScratch)
	if s == nil {
		s = &hashScratch{}
	}
	defer h.pool.Put(s)
	for i, t := range texts {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		v := backing[i*h.dim : (i+1)*h.dim : (i+1)*h.dim]
		s.embed(t, v)
		out[i] = v
	}
	return out, nil
}

// FNV-1a, 64 bits: simple, byte-at-a-time (so features are hashed in place
// without building strings), and fixed forever, which a stored vector space
// needs. Its low bits mix poorly, so mix64 finishes every feature hash.
const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

func fnvByte(h uint64, b byte) uint64 { return (h ^ uint64(b)) * fnvPrime }

func fnvBytes(h uint64, p []byte) uint64 {
	for _, b := range p {
		h = (h ^ uint64(b)) * fnvPrime
	}
	return h
}

// mix64 is the MurmurHash3 finaliser: it spreads every input bit over the
// output, so both the component (high bits) and the sign (low bit) are
// well distributed.
func mix64(h uint64) uint64 {
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	h *= 0xc4ceb9fe1a85ec53
	h ^= h >> 33
	return h
}

// tfWeight[c] = 1 + ln c for the counts nearly every feature has, so the
// common case costs a lookup instead of math.Log.
var tfWeight = func() (t [64]float32) {
	for c := 1; c < len(t); c++ {
		t[c] = float32(1 + math.Log(float64(c)))
	}
	return t
}()

type span struct{ start, end int32 }

// hashScratch holds the buffers of one embedding; reused through Hash.pool.
type hashScratch struct {
	lower []byte  // the lowercased text
	words []span  // word positions in lower
	stop  []bool  // whether words[i] is a stopword
	pad   []byte  // '<' word '>'
	runes []int32 // rune start offsets in pad
	feats featTable
}

func (s *hashScratch) embed(text string, v []float32) {
	s.tokenize(text)
	s.feats.reset(len(s.words) * 4)
	prev := -1
	for i, w := range s.words {
		word := s.lower[w.start:w.end]
		s.feats.add(fnvBytes(fnvByte(fnvOffset, famUnigram), word), famUnigram, i)
		if prev >= 0 {
			p := s.words[prev]
			h := fnvBytes(fnvByte(fnvOffset, famBigram), s.lower[p.start:p.end])
			h = fnvBytes(fnvByte(h, ' '), word)
			s.feats.add(h, famBigram, -1)
		}
		prev = i
	}
	// Character n-grams are generated once per distinct word, with that
	// word's count, which gives the same term frequencies as generating them
	// per occurrence at a fraction of the cost.
	nu := len(s.feats.used)
	for j := 0; j < nu; j++ {
		e := s.feats.slots[s.feats.used[j]]
		if e.fam() != famUnigram || s.stop[e.word] {
			continue
		}
		w := s.words[e.word]
		s.grams(s.lower[w.start:w.end], e.count)
	}

	clear(v)
	dim := uint64(len(v))
	for _, j := range s.feats.used {
		e := &s.feats.slots[j]
		w := familyWeight[e.fam()]
		if e.count < uint32(len(tfWeight)) {
			w *= tfWeight[e.count]
		} else {
			w *= float32(1 + math.Log(float64(e.count)))
		}
		if e.fam() == famUnigram && s.stop[e.word] {
			w *= stopWeight
		}
		m := mix64(e.key)
		// Multiply-shift maps the high 32 bits onto [0, dim) without a
		// division and without needing dim to be a power of two.
		idx := (m >> 32) * dim >> 32
		// The low bit is the sign, flipped into w's sign bit without a
		// branch: a coin-flip branch would mispredict half the time.
		v[idx] += math.Float32frombits(math.Float32bits(w) ^ uint32(m&1)<<31)
	}
	normalize(v)
}

// grams adds the 3- to 5-rune n-grams of '<' word '>' with count n each.
func (s *hashScratch) grams(word []byte, n uint32) {
	s.pad = append(append(append(s.pad[:0], '<'), word...), '>')
	seed := fnvByte(fnvOffset, famGram)
	if ascii(word) {
		// Runes are bytes: no rune table needed.
		r := len(s.pad)
		if r-2 > maxGramWord {
			return
		}
		for i := 0; i+minGram <= r; i++ {
			h := fnvBytes(seed, s.pad[i:i+minGram-1])
			for l := minGram; l <= maxGram && i+l <= r; l++ {
				h = fnvByte(h, s.pad[i+l-1])
				s.feats.addN(h, famGram, n)
			}
		}
		return
	}
	s.runes = s.runes[:0]
	for i := 0; i < len(s.pad); {
		s.runes = append(s.runes, int32(i))
		if s.pad[i] < utf8.RuneSelf {
			i++
		} else {
			_, size := utf8.DecodeRune(s.pad[i:])
			i += size
		}
	}
	r := len(s.runes)
	if r-2 > maxGramWord {
		return
	}
	s.runes = append(s.runes, int32(len(s.pad)))
	for i := 0; i+minGram <= r; i++ {
		// Extend one hash rune by rune so each start position hashes its
		// bytes once for all three lengths.
		h := fnvBytes(seed, s.pad[s.runes[i]:s.runes[i+minGram-1]])
		for l := minGram; l <= maxGram && i+l <= r; l++ {
			h = fnvBytes(h, s.pad[s.runes[i+l-1]:s.runes[i+l]])
			s.feats.addN(h, famGram, n)
		}
	}
}

func ascii(p []byte) bool {
	for _, b := range p {
		if b >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// tokenize lowercases text into s.lower and records its words; a word is a
// run of letters, digits and non-spacing marks, as in the lexical index.
func (s *hashScratch) tokenize(text string) {
	s.lower, s.words, s.stop = s.lower[:0], s.words[:0], s.stop[:0]
	start := -1
	end := func() {
		if start >= 0 {
			s.words = append(s.words, span{int32(start), int32(len(s.lower))})
			w := s.lower[start:]
			s.stop = append(s.stop, len(w) <= maxStopLen && stopwords[string(w)])
			start = -1
		}
	}
	for i := 0; i < len(text); {
		c := text[i]
		if c < utf8.RuneSelf {
			i++
			switch {
			case 'a' <= c && c <= 'z', '0' <= c && c <= '9':
			case 'A' <= c && c <= 'Z':
				c += 'a' - 'A'
			default:
				end()
				continue
			}
			if start < 0 {
				start = len(s.lower)
			}
			s.lower = append(s.lower, c)
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		i += size
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && !unicode.Is(unicode.Mn, r) {
			end()
			continue
		}
		if start < 0 {
			start = len(s.lower)
		}
		s.lower = utf8.AppendRune(s.lower, unicode.ToLower(r))
	}
	end()
}

// featTable counts features by hash: an open-addressing table whose slots
// and key list are reused across texts, so counting allocates nothing once
// warm. 64-bit keys make collisions between distinct features negligible.
type featTable struct {
	slots []feat
	used  []int32 // occupied slot indexes, in insertion order (deterministic output)
	shift uint
}

// feat is one counted feature, 16 bytes so that more of the table stays
// in cache. The family lives in the key's low two bits: the key is already a
// hash seeded by family, so giving up two of its 64 bits costs nothing.
type feat struct {
	key   uint64
	count uint32
	word  int32 // for unigrams: index of the first occurrence in words
}

const famMask = 3

func (e *feat) fam() uint8 { return uint8(e.key & famMask) }

// reset empties the table and sizes it for about n features.
func (t *featTable) reset(n int) {
	for _, j := range t.used {
		t.slots[j] = feat{}
	}
	t.used = t.used[:0]
	size := 64
	for size < 2*n {
		size *= 2
	}
	if size > len(t.slots) {
		t.resize(size)
	}
}

func (t *featTable) resize(size int) {
	old, oldUsed := t.slots, t.used
	t.slots = make([]feat, size)
	t.used = make([]int32, 0, size/2)
	t.shift = uint(64 - bitsLen(size))
	for _, j := range oldUsed {
		e := old[j]
		i := t.find(e.key)
		t.slots[i] = e
		t.used = append(t.used, int32(i))
	}
}

func bitsLen(size int) int {
	n := 0
	for size > 1 {
		size >>= 1
		n++
	}
	return n
}

// find returns the slot holding key, or the empty slot where it belongs.
func (t *featTable) find(key uint64) int {
	mask := len(t.slots) - 1
	i := int((key * 0x9e3779b97f4a7c15) >> t.shift)
	for {
		e := &t.slots[i]
		if e.count == 0 || e.key == key {
			return i
		}
		i = (i + 1) & mask
	}
}

func (t *featTable) add(key uint64, fam uint8, word int) {
	key = key&^famMask | uint64(fam)
	i := t.find(key)
	e := &t.slots[i]
	if e.count == 0 {
		*e = feat{key: key, word: int32(word)}
		t.used = append(t.used, int32(i))
	}
	e.count++
	t.grow()
}

func (t *featTable) addN(key uint64, fam uint8, n uint32) {
	key = key&^famMask | uint64(fam)
	i := t.find(key)
	e := &t.slots[i]
	if e.count == 0 {
		*e = feat{key: key, word: -1}
		t.used = append(t.used, int32(i))
	}
	e.count += n
	t.grow()
}

// grow keeps the load factor at most 1/2 so probes stay short.
func (t *featTable) grow() {
	if 2*len(t.used) > len(t.slots) {
		t.resize(2 * len(t.slots))
	}
}
