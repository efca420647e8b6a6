package embed

import (
	"context"
	"fmt"
)

// Ollama embeds with a local Ollama server (POST /api/embed). It only uses
// models the user has pulled; it never pulls one itself.
type Ollama struct {
	r *remote
}

// NewOllama returns an Ollama embedder for cfg (Model, BaseURL, Dim,
// BatchSize, Timeout; defaults for zero fields). It does not contact the
// server.
func NewOllama(cfg Config) (*Ollama, error) {
	r, err := newRemote(ProviderOllama, cfg, DefaultOllamaURL, DefaultOllamaModel)
	if err != nil {
		return nil, err
	}
	return &Ollama{r: r}, nil
}

// Name returns "ollama".
func (o *Ollama) Name() string { return ProviderOllama }

// Version returns the model name: another model is another vector space.
func (o *Ollama) Version() string { return o.r.model }

// Dim returns the configured dimension, or the one learned from the first
// response (0 before it).
func (o *Ollama) Dim() int { return int(o.r.dim.Load()) }

// String describes the embedder for logs and doctor output.
func (o *Ollama) String() string { return fmt.Sprintf("ollama %s at %s", o.r.model, o.r.base) }

type ollamaRequest struct {
	Model string   `json:"model"`
	Input []string `json:"input"`
}

type ollamaResponse struct {
	Embeddings [][]float32 `json:"embeddings"`
}

// Embed returns one unit vector per text, sending BatchSize texts per
// request.
func (o *Ollama) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	return o.r.embed(ctx, texts, func(ctx context.Context, batch []string) ([][]float32, error) {
		var resp ollamaResponse
		err := o.r.post(ctx, o.r.base+"/api/embed", ollamaRequest{Model: o.r.model, Input: batch}, nil, &resp)
		return resp.Embeddings, err
	})
}
