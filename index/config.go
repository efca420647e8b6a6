package index

import (
	"fmt"
	"time"

	"github.com/reflectkb/reflect/index/embed"
	"github.com/reflectkb/reflect/internal/config"
)

// NoEmbedder is the index.embedder value that turns the vector signal off.
const NoEmbedder = "none"

// ConfigOptions turns the [index] settings into Open options: the
// embedder, the recency half-life and the ANN threshold. With offline set (hooks) a remote
// embedder is left out altogether: a hook never calls the network, neither
// to embed its query nor to embed learnings a refresh picks up; the next
// command that may call it embeds them.
func ConfigOptions(c config.Index, offline bool) ([]OpenOption, error) {
	var opts []OpenOption
	if c.HalfLifeDays > 0 {
		opts = append(opts, WithHalfLife(time.Duration(c.HalfLifeDays)*24*time.Hour))
	}
	if c.VectorWeight > 0 {
		opts = append(opts, WithVectorWeight(c.VectorWeight))
	}
	if c.ANNThreshold > 0 {
		opts = append(opts, WithANNThreshold(c.ANNThreshold))
	}
	if c.Embedder == NoEmbedder {
		return opts, nil
	}
	provider := c.Embedder
	if provider == "" {
		provider = embed.ProviderHash
	}
	if offline && provider != embed.ProviderHash {
		return opts, nil
	}
	e, err := embed.New(embed.Config{Provider: provider, Model: c.EmbedderModel, BaseURL: c.EmbedderURL,
		Dim: c.EmbedderDim, APIKeyEnv: c.EmbedderKeyEnv})
	if err != nil {
		return nil, fmt.Errorf("index.embedder %q: %w (set hash, ollama, openai or none in config.toml)", c.Embedder, err)
	}
	return append(opts, WithEmbedder(e)), nil
}
