package embed

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/reflectkb/reflect/internal/text"
)

// Bounds on what a server may send back: a response is read whole (the
// embeddings of one batch), so it is capped rather than trusted; an error
// body is only quoted, so a short excerpt is enough.
const (
	maxResponseBytes = 256 << 20
	maxExcerpt       = 300
)

// remote is what the Ollama and OpenAI embedders share: batching, the HTTP
// round trip, and errors that say which server failed and what to do.
type remote struct {
	provider string // "ollama" or "openai", for messages
	base     string
	model    string
	batch    int
	timeout  time.Duration
	client   *http.Client
	dim      atomic.Int64 // configured, or learned from the first response
	secret   string       // removed from anything quoted back from the server
}

func newRemote(provider string, cfg Config, defURL, defModel string) (*remote, error) {
	base, err := cleanBaseURL(provider, cfg.BaseURL, defURL)
	if err != nil {
		return nil, err
	}
	r := &remote{
		provider: provider,
		base:     base,
		model:    cfg.Model,
		batch:    cfg.BatchSize,
		timeout:  cfg.Timeout,
	}
	if r.model == "" {
		r.model = defModel
	}
	if r.batch == 0 {
		r.batch = DefaultBatchSize
	}
	if r.timeout == 0 {
		r.timeout = DefaultTimeout
	}
	r.client = &http.Client{Timeout: r.timeout}
	r.dim.Store(int64(cfg.Dim))
	return r, nil
}

// embed splits texts into batches, asks call for each and checks what comes
// back. Blank texts are not sent (some servers reject empty input) and get a
// zero vector, like a text the hash embedder finds no words in.
func (r *remote) embed(ctx context.Context, texts []string, call func(ctx context.Context, batch []string) ([][]float32, error)) ([][]float32, error) {
	out := make([][]float32, len(texts))
	var idx []int
	for i, t := range texts {
		if strings.TrimSpace(t) != "" {
			idx = append(idx, i)
		}
	}
	batch := make([]string, 0, min(r.batch, len(idx)))
	for start := 0; start < len(idx); start += r.batch {
		part := idx[start:min(start+r.batch, len(idx))]
		batch = batch[:0]
		for _, i := range part {
			batch = append(batch, texts[i])
		}
		vecs, err := call(ctx, batch)
		if err != nil {
			return nil, err
		}
		if len(vecs) != len(batch) {
			return nil, fmt.Errorf("%s: asked for %d embeddings, got %d", r.where(), len(batch), len(vecs))
		}
		for j, v := range vecs {
			if err := r.check(v, part[j]); err != nil {
				return nil, err
			}
			normalize(v)
			out[part[j]] = v
		}
	}
	if len(idx) < len(texts) {
		dim := int(r.dim.Load())
		if dim == 0 {
			return nil, fmt.Errorf("%s: only blank texts to embed and the model's dimension is not known yet (set dim in config.toml)", r.where())
		}
		for i := range out {
			if out[i] == nil {
				out[i] = make([]float32, dim)
			}
		}
	}
	return out, nil
}

// check validates the embedding of texts[n]: finite numbers, and the dimension
// configured or seen first (a model swapped behind the same name would
// otherwise mix incompatible vectors in one index).
func (r *remote) check(v []float32, n int) error {
	if len(v) == 0 {
		return fmt.Errorf("%s: embedding %d is empty", r.where(), n)
	}
	for _, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return fmt.Errorf("%s: embedding %d contains %v", r.where(), n, x)
		}
	}
	if r.dim.CompareAndSwap(0, int64(len(v))) {
		return nil
	}
	if want := r.dim.Load(); int64(len(v)) != want {
		return fmt.Errorf("%s: model %q returned a %d-dimensional embedding, expected %d (embedding %d); if the model changed, set dim to match and reindex", r.where(), r.model, len(v), want, n)
	}
	return nil
}

// post sends body as JSON to url and decodes a 200 response into out.
func (r *remote) post(ctx context.Context, url string, body any, header http.Header, out any) error {
	payload, err := json.Marshal(body)
	if err != nil {
		return fmt.Errorf("%s: encode request: %w", r.where(), err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(payload))
	if err != nil {
		return fmt.Errorf("%s: %w", r.where(), err)
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := r.client.Do(req)
	if err != nil {
		return r.transportError(ctx, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes+1))
	if err != nil {
		return r.transportError(ctx, err)
	}
	if resp.StatusCode != http.StatusOK {
		msg := fmt.Sprintf("%s: HTTP %s", r.where(), resp.Status)
		if ex := r.excerpt(data); ex != "" {
			msg += ": " + ex
		}
		if hint := r.hint(resp.StatusCode, data); hint != "" {
			msg += " — " + hint
		}
		return errors.New(msg)
	}
	if len(data) > maxResponseBytes {
		return fmt.Errorf("%s: response larger than %d MiB; lower batch_size", r.where(), maxResponseBytes>>20)
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("%s: malformed response (%w): %s", r.where(), err, r.excerpt(data))
	}
	return nil
}

// transportError turns a failed round trip into a message that names the
// server and, for the usual causes, what to check.
func (r *remote) transportError(ctx context.Context, err error) error {
	if cerr := ctx.Err(); cerr != nil {
		return fmt.Errorf("%s: %w", r.where(), cerr)
	}
	if errors.Is(err, syscall.ECONNREFUSED) {
		if r.provider == ProviderOllama {
			return fmt.Errorf("%s: connection refused — is `ollama serve` running?", r.where())
		}
		return fmt.Errorf("%s: connection refused — is the server running, and is base_url right?", r.where())
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return fmt.Errorf("%s: no answer within %s (raise timeout or lower batch_size)", r.where(), r.timeout)
	}
	// The url.Error wrapper repeats method and URL; the root cause is enough.
	for {
		u := errors.Unwrap(err)
		if u == nil {
			break
		}
		err = u
	}
	return fmt.Errorf("%s: %w", r.where(), err)
}

// hint suggests what to do about a failed request, from its status and
// body.
func (r *remote) hint(status int, body []byte) string {
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return "check the API key"
	case status == http.StatusNotFound && r.provider == ProviderOllama && bytes.Contains(body, []byte("model")):
		return fmt.Sprintf("is model %q pulled (`ollama pull %s`)?", r.model, r.model)
	case status == http.StatusNotFound && r.provider == ProviderOllama:
		return "this Ollama has no /api/embed; upgrade it"
	case status == http.StatusNotFound:
		return "check base_url and model"
	case status == http.StatusTooManyRequests:
		return "rate limited; retry later or lower batch_size"
	}
	return ""
}

// excerpt quotes the start of a server's answer on one line, with the API
// key removed in case the server echoes it.
func (r *remote) excerpt(data []byte) string {
	s := string(data)
	if r.secret != "" {
		s = strings.ReplaceAll(s, r.secret, "[redacted]")
	}
	if len(s) > maxExcerpt {
		cut := maxExcerpt
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return text.OneLine(strings.ToValidUTF8(s, "?"))
}

func (r *remote) where() string { return r.provider + " at " + r.base }
