package index

import (
	"fmt"
	"time"

	"github.com/reflectkb/reflect/index/embed"
)

// NoEmbedder is the index.embedder value that turns the vector signal off.
const NoEmbedder = "none"

// Settings are the [index] settings of config.toml as the index reads
// them. The command layer fills them from its configuration (ARCHITECTURE
// §2: configuration reaches packages as options, so the index does not
// import internal/config); zero fields take the index's own defaults.
// The fields mirror config.Index one for one, so a caller converts with
// index.Settings(c.Index) and the compiler keeps the two in step.
type Settings struct {
	// Embedder is the vector signal's provider: hash (also when empty),
	// ollama or openai; NoEmbedder turns the vector signal off.
	Embedder string
	// EmbedderModel, EmbedderURL and EmbedderDim configure a remote
	// embedder (and Dim the hash one); empty takes embed's defaults.
	EmbedderModel string
	EmbedderURL   string
	EmbedderDim   int
	// EmbedderKeyEnv names the variable the openai key is read from (for
	// the error when it is missing).
	EmbedderKeyEnv string
	// HalfLifeDays is the recency half-life of ranking (0: the default).
	HalfLifeDays int
	// VectorWeight is the vector signal's fusion weight (0: the
	// embedder's default).
	VectorWeight float64
	// EmbedderKey is the openai key the caller read from EmbedderKeyEnv,
	// held in memory only.
	EmbedderKey string
}

// SettingsOptions turns s into Open options: the embedder, the recency
// half-life and the vector weight. With offline set
// (hooks) a remote embedder is left out altogether: a hook never calls the
// network, neither to embed its query nor to embed learnings a refresh
// picks up; the next command that may call it embeds them.
func SettingsOptions(s Settings, offline bool) ([]OpenOption, error) {
	var opts []OpenOption
	if s.HalfLifeDays > 0 {
		opts = append(opts, WithHalfLife(time.Duration(s.HalfLifeDays)*24*time.Hour))
	}
	if s.VectorWeight > 0 {
		opts = append(opts, WithVectorWeight(s.VectorWeight))
	}
	if s.Embedder == NoEmbedder {
		return opts, nil
	}
	provider := s.Embedder
	if provider == "" {
		provider = embed.ProviderHash
	}
	if offline && provider != embed.ProviderHash {
		return opts, nil
	}
	e, err := embed.New(embed.Config{Provider: provider, Model: s.EmbedderModel, BaseURL: s.EmbedderURL,
		Dim: s.EmbedderDim, APIKeyEnv: s.EmbedderKeyEnv, APIKey: s.EmbedderKey})
	if err != nil {
		return nil, fmt.Errorf("index.embedder %q: %w (set hash, ollama, openai or none in config.toml)", s.Embedder, err)
	}
	return append(opts, WithEmbedder(e)), nil
}
