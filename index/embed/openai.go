package embed

import (
	"context"
	"fmt"
	"net/http"
	"sort"
	"strings"
)

// OpenAI embeds with OpenAI or any server that speaks its embeddings API
// (POST /v1/embeddings). The API key, which the caller read from an
// environment variable, is sent only as a bearer token to BaseURL, and never printed.
type OpenAI struct {
	r      *remote
	url    string
	header http.Header
}

// NewOpenAI returns an OpenAI-compatible embedder for cfg. The key is
// cfg.APIKey; a missing key is an error that names the variable it comes
// from, cfg.APIKeyEnv (default OPENAI_API_KEY). A BaseURL that already
// ends in /v1 is accepted as well.
func NewOpenAI(cfg Config) (*OpenAI, error) {
	r, err := newRemote(ProviderOpenAI, cfg, DefaultOpenAIURL, DefaultOpenAIModel)
	if err != nil {
		return nil, err
	}
	env := cfg.APIKeyEnv
	if env == "" {
		env = DefaultAPIKeyEnv
	}
	key := strings.TrimSpace(cfg.APIKey)
	if key == "" {
		return nil, fmt.Errorf("openai embedder: environment variable %s is not set (set it to your API key, or name another variable with api_key_env)", env)
	}
	r.secret = key
	url := strings.TrimSuffix(r.base, "/v1") + "/v1/embeddings"
	return &OpenAI{r: r, url: url, header: http.Header{"Authorization": {"Bearer " + key}}}, nil
}

// Name returns "openai".
func (o *OpenAI) Name() string { return ProviderOpenAI }

// Version returns the model name: another model is another vector space.
func (o *OpenAI) Version() string { return o.r.model }

// Dim returns the configured dimension, or the one learned from the first
// response (0 before it).
func (o *OpenAI) Dim() int { return int(o.r.dim.Load()) }

// String describes the embedder without its key, so printing it with %v
// cannot leak the key.
func (o *OpenAI) String() string { return fmt.Sprintf("openai %s at %s", o.r.model, o.r.base) }

// GoString keeps %#v from printing the key too.
func (o *OpenAI) GoString() string { return o.String() }

type openAIRequest struct {
	Model string   `json:"model"`
	Input []string `json:"input"`
}

type openAIResponse struct {
	Data []struct {
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	} `json:"data"`
}

// Embed returns one unit vector per text, sending BatchSize texts per
// request.
func (o *OpenAI) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	return o.r.embed(ctx, texts, func(ctx context.Context, batch []string) ([][]float32, error) {
		var resp openAIResponse
		if err := o.r.post(ctx, o.url, openAIRequest{Model: o.r.model, Input: batch}, o.header, &resp); err != nil {
			return nil, err
		}
		// The API documents that data may come in any order; index says
		// which input each embedding belongs to.
		sort.SliceStable(resp.Data, func(i, j int) bool { return resp.Data[i].Index < resp.Data[j].Index })
		out := make([][]float32, len(resp.Data))
		for i, d := range resp.Data {
			if d.Index != i {
				return nil, fmt.Errorf("%s: response indexes are not 0..%d (got %d at position %d)", o.r.where(), len(resp.Data)-1, d.Index, i)
			}
			out[i] = d.Embedding
		}
		return out, nil
	})
}
