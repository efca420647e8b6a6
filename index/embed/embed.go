package embed

import (
	"context"
	"fmt"
	"math"
	"net/url"
	"strings"
	"time"
)

// Embedder turns texts into vectors. Every vector has Dim() components and
// is either L2-normalised or all zeros (a text with nothing to embed), so
// the dot product of two vectors is their cosine similarity.
//
// Name, Version and Dim together identify the vector space: they are stored
// with the vectors, and a change in any of them means every document must
// be embedded again.
type Embedder interface {
	// Name is the provider: "hash", "ollama" or "openai".
	Name() string
	// Version identifies the feature scheme or model within the provider.
	Version() string
	// Dim is the vector length; 0 while a remote embedder has not yet
	// learned it from its first response.
	Dim() int
	// Embed returns one vector per text, in order.
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// Providers, as named in config.toml.
const (
	ProviderHash   = "hash"
	ProviderOllama = "ollama"
	ProviderOpenAI = "openai"
)

// Defaults applied by New to zero Config fields.
const (
	DefaultHashDim     = 256
	DefaultBatchSize   = 64
	DefaultTimeout     = 60 * time.Second
	DefaultOllamaURL   = "http://localhost:11434"
	DefaultOllamaModel = "nomic-embed-text"
	DefaultOpenAIURL   = "https://api.openai.com"
	DefaultOpenAIModel = "text-embedding-3-small"
	DefaultAPIKeyEnv   = "OPENAI_API_KEY"
)

// Config selects and configures an embedder. Zero fields take the defaults
// above; fields that do not apply to the provider are ignored.
type Config struct {
	// Provider is "hash" (also when empty), "ollama" or "openai".
	Provider string
	// Dim is the vector length. For hash it sets the length (default 256);
	// for ollama and openai it is the length the model must return (0:
	// learn it from the first response).
	Dim int
	// Model is the remote model name.
	Model string
	// BaseURL is the server, without the /api/embed or /v1/embeddings path.
	BaseURL string
	// APIKey is the openai key. The caller reads it (internal/config
	// resolves it from the environment): this package reads no
	// environment.
	APIKey string
	// APIKeyEnv names the environment variable APIKey came from, so the
	// error for a missing key says what to set.
	APIKeyEnv string
	// BatchSize is how many texts go into one request.
	BatchSize int
	// Timeout bounds each request.
	Timeout time.Duration
}

// New returns the embedder cfg describes. Remote embedders are not
// contacted here: a server that is down is reported by the first Embed.
func New(cfg Config) (Embedder, error) {
	if cfg.Dim < 0 {
		return nil, fmt.Errorf("embedder dimension must be positive, got %d", cfg.Dim)
	}
	if cfg.BatchSize < 0 {
		return nil, fmt.Errorf("embedder batch size must be positive, got %d", cfg.BatchSize)
	}
	if cfg.Timeout < 0 {
		return nil, fmt.Errorf("embedder timeout must be positive, got %s", cfg.Timeout)
	}
	switch p := strings.ToLower(strings.TrimSpace(cfg.Provider)); p {
	case "", ProviderHash:
		dim := cfg.Dim
		if dim == 0 {
			dim = DefaultHashDim
		}
		return NewHash(dim)
	case ProviderOllama:
		return NewOllama(cfg)
	case ProviderOpenAI:
		return NewOpenAI(cfg)
	default:
		return nil, fmt.Errorf("unknown embedder %q (valid: %s, %s, %s)", cfg.Provider, ProviderHash, ProviderOllama, ProviderOpenAI)
	}
}

// normalize scales v to unit length in place; a zero vector stays zero.
// Remote models usually return unit vectors already, but compatible servers
// need not, and the vector index relies on dot product = cosine.
func normalize(v []float32) {
	var ss float64
	for _, x := range v {
		ss += float64(x) * float64(x)
	}
	if ss == 0 {
		return
	}
	inv := 1 / math.Sqrt(ss)
	for i := range v {
		v[i] = float32(float64(v[i]) * inv)
	}
}

// cleanBaseURL checks that base is an http(s) URL and drops a trailing
// slash, so paths can be appended.
func cleanBaseURL(provider, base, def string) (string, error) {
	if base == "" {
		base = def
	}
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("%s base URL %q: want http:// or https:// and a host", provider, base)
	}
	return strings.TrimRight(base, "/"), nil
}
