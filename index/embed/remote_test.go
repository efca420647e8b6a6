package embed

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeVec is what the fake servers return for a text: unnormalised on
// purpose, and derived from the text so order mistakes show.
func fakeVec(text string, dim int) []float32 {
	v := make([]float32, dim)
	v[0] = float32(len(text))
	if dim > 1 {
		v[1] = 1
	}
	return v
}

type fakeServer struct {
	*httptest.Server
	mu      sync.Mutex
	batches [][]string
	headers []http.Header
}

// newFake starts a server that records each request's inputs and answers
// with respond(inputs).
func newFake(t *testing.T, path string, respond func(w http.ResponseWriter, inputs []string)) *fakeServer {
	t.Helper()
	fs := &fakeServer{}
	fs.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != path {
			http.Error(w, "unexpected "+r.Method+" "+r.URL.Path, http.StatusNotFound)
			return
		}
		if ct := r.Header.Get("Content-Type"); ct != "application/json" {
			http.Error(w, "content type "+ct, http.StatusBadRequest)
			return
		}
		var req struct {
			Model string   `json:"model"`
			Input []string `json:"input"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Model == "" {
			http.Error(w, fmt.Sprintf("bad request: %v %q", err, req.Model), http.StatusBadRequest)
			return
		}
		fs.mu.Lock()
		fs.batches = append(fs.batches, req.Input)
		fs.headers = append(fs.headers, r.Header.Clone())
		fs.mu.Unlock()
		respond(w, req.Input)
	}))
	t.Cleanup(fs.Close)
	return fs
}

func ollamaOK(dim int) func(http.ResponseWriter, []string) {
	return func(w http.ResponseWriter, inputs []string) {
		var resp ollamaResponse
		for _, in := range inputs {
			resp.Embeddings = append(resp.Embeddings, fakeVec(in, dim))
		}
		json.NewEncoder(w).Encode(resp)
	}
}

func checkVecs(t *testing.T, texts []string, got [][]float32, dim int) {
	t.Helper()
	if len(got) != len(texts) {
		t.Fatalf("%d vectors for %d texts", len(got), len(texts))
	}
	for i, text := range texts {
		want := fakeVec(text, dim)
		normalize(want)
		if strings.TrimSpace(text) == "" {
			want = make([]float32, dim)
		}
		if len(got[i]) != dim {
			t.Fatalf("text %d: dim %d, want %d", i, len(got[i]), dim)
		}
		for j := range want {
			if math.Abs(float64(got[i][j]-want[j])) > 1e-6 {
				t.Fatalf("text %d (%q): got %v, want %v", i, text, got[i], want)
			}
		}
	}
}

func wantErr(t *testing.T, err error, parts ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want one mentioning %q", parts)
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Fatalf("error %q does not mention %q", err, p)
		}
	}
}

func TestOllamaEmbed(t *testing.T) {
	t.Parallel()
	srv := newFake(t, "/api/embed", ollamaOK(3))
	e, err := New(Config{Provider: "ollama", BaseURL: srv.URL + "/", Model: "nomic-embed-text"})
	if err != nil {
		t.Fatal(err)
	}
	if e.Name() != "ollama" || e.Version() != "nomic-embed-text" || e.Dim() != 0 {
		t.Fatalf("identity %s %s %d", e.Name(), e.Version(), e.Dim())
	}
	texts := []string{"a", "bb", "", "ccc"}
	got, err := e.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	checkVecs(t, texts, got, 3)
	if e.Dim() != 3 {
		t.Fatalf("Dim %d after the first response, want 3", e.Dim())
	}
	if len(srv.batches) != 1 || len(srv.batches[0]) != 3 {
		t.Fatalf("requests %v: the blank text must not be sent", srv.batches)
	}
	if got, err := e.Embed(context.Background(), nil); err != nil || len(got) != 0 || len(srv.batches) != 1 {
		t.Fatalf("no texts: %v %v, %d requests", got, err, len(srv.batches))
	}
}

func TestRemoteBatching(t *testing.T) {
	t.Parallel()
	texts := make([]string, 10)
	for i := range texts {
		texts[i] = strings.Repeat("x", i+1)
	}
	for _, c := range []struct {
		provider, path string
		respond        func(http.ResponseWriter, []string)
	}{
		{"ollama", "/api/embed", ollamaOK(4)},
		{"openai", "/v1/embeddings", openAIOK(4, false)},
	} {
		t.Run(c.provider, func(t *testing.T) {
			srv := newFake(t, c.path, c.respond)
			e, err := New(Config{Provider: c.provider, BaseURL: srv.URL, BatchSize: 4, APIKey: "sk-test"})
			if err != nil {
				t.Fatal(err)
			}
			got, err := e.Embed(context.Background(), texts)
			if err != nil {
				t.Fatal(err)
			}
			checkVecs(t, texts, got, 4)
			var sizes []int
			for _, b := range srv.batches {
				sizes = append(sizes, len(b))
			}
			if fmt.Sprint(sizes) != "[4 4 2]" {
				t.Fatalf("batch sizes %v, want [4 4 2]", sizes)
			}
		})
	}
}

func TestOllamaErrors(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		cfg     Config
		texts   []string
		respond func(http.ResponseWriter, []string)
		want    []string
	}{
		{"server error", Config{}, []string{"a"}, func(w http.ResponseWriter, _ []string) {
			http.Error(w, `{"error":"runner crashed"}`, http.StatusInternalServerError)
		}, []string{"ollama at http://", "HTTP 500", "runner crashed"}},
		{"model missing", Config{Model: "nope"}, []string{"a"}, func(w http.ResponseWriter, _ []string) {
			http.Error(w, `{"error":"model \"nope\" not found, try pulling it first"}`, http.StatusNotFound)
		}, []string{"HTTP 404", "not found", "ollama pull nope"}},
		{"old ollama", Config{}, []string{"a"}, func(w http.ResponseWriter, _ []string) {
			http.Error(w, "404 page not found", http.StatusNotFound)
		}, []string{"HTTP 404", "no /api/embed"}},
		{"long body", Config{}, []string{"a"}, func(w http.ResponseWriter, _ []string) {
			http.Error(w, strings.Repeat("é", 5000), http.StatusBadGateway)
		}, []string{"HTTP 502", "…"}},
		{"malformed json", Config{}, []string{"a"}, func(w http.ResponseWriter, _ []string) {
			fmt.Fprint(w, `{"embeddings": [[1, 2], `)
		}, []string{"malformed response"}},
		{"wrong count", Config{}, []string{"a", "b", "c"}, func(w http.ResponseWriter, in []string) {
			ollamaOK(2)(w, in[:2])
		}, []string{"asked for 3 embeddings, got 2"}},
		{"configured dim", Config{Dim: 3}, []string{"a"}, ollamaOK(2), []string{"2-dimensional", "expected 3"}},
		{"inconsistent dim", Config{}, []string{"a", "b"}, func(w http.ResponseWriter, in []string) {
			json.NewEncoder(w).Encode(ollamaResponse{Embeddings: [][]float32{{1, 2}, {1, 2, 3}}})
		}, []string{"3-dimensional", "expected 2", "embedding 1"}},
		{"empty embedding", Config{}, []string{"a"}, func(w http.ResponseWriter, in []string) {
			fmt.Fprint(w, `{"embeddings": [[]]}`)
		}, []string{"embedding 0 is empty"}},
		{"only blanks, dim unknown", Config{}, []string{" ", ""}, ollamaOK(2), []string{"dimension is not known"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := newFake(t, "/api/embed", c.respond)
			c.cfg.Provider, c.cfg.BaseURL = "ollama", srv.URL
			e, err := New(c.cfg)
			if err != nil {
				t.Fatal(err)
			}
			_, err = e.Embed(context.Background(), c.texts)
			wantErr(t, err, c.want...)
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("multi-line error: %q", err)
			}
		})
	}
}

func TestOllamaDimLearnedOnce(t *testing.T) {
	t.Parallel()
	dim := 2
	srv := newFake(t, "/api/embed", func(w http.ResponseWriter, in []string) { ollamaOK(dim)(w, in) })
	e, _ := New(Config{Provider: "ollama", BaseURL: srv.URL})
	if _, err := e.Embed(context.Background(), []string{"a"}); err != nil {
		t.Fatal(err)
	}
	// The model behind the name changed: mixing its vectors in would
	// corrupt the index, so it is an error.
	dim = 5
	_, err := e.Embed(context.Background(), []string{"a"})
	wantErr(t, err, "5-dimensional", "expected 2")
	// Blank texts get zero vectors of the learned dimension.
	dim = 2
	got, err := e.Embed(context.Background(), []string{"", "x"})
	if err != nil {
		t.Fatal(err)
	}
	checkVecs(t, []string{"", "x"}, got, 2)
}

// Not parallel: another test's server could take the freed port.
func TestOllamaConnectionRefused(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close() // nothing listens there any more
	e, _ := New(Config{Provider: "ollama", BaseURL: url})
	_, err := e.Embed(context.Background(), []string{"a"})
	wantErr(t, err, "ollama at "+url+": connection refused — is `ollama serve` running?")
}

// Not parallel: it bounds how long a timeout takes.
func TestRemoteTimeout(t *testing.T) {
	release := make(chan struct{})
	srv := newFake(t, "/api/embed", func(w http.ResponseWriter, in []string) {
		<-release
	})
	defer close(release) // let the handler finish before the server closes
	e, _ := New(Config{Provider: "ollama", BaseURL: srv.URL, Timeout: 50 * time.Millisecond})
	start := time.Now()
	_, err := e.Embed(context.Background(), []string{"a"})
	wantErr(t, err, "no answer within 50ms")
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("timeout took %v", d)
	}

	// A context deadline is reported as such, and is errors.Is-able.
	e, _ = New(Config{Provider: "ollama", BaseURL: srv.URL})
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err = e.Embed(ctx, []string{"a"})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err %v, want DeadlineExceeded", err)
	}
}

func openAIOK(dim int, reverse bool) func(http.ResponseWriter, []string) {
	return func(w http.ResponseWriter, inputs []string) {
		var resp openAIResponse
		for i, in := range inputs {
			resp.Data = append(resp.Data, struct {
				Index     int       `json:"index"`
				Embedding []float32 `json:"embedding"`
			}{i, fakeVec(in, dim)})
		}
		if reverse {
			for i, j := 0, len(resp.Data)-1; i < j; i, j = i+1, j-1 {
				resp.Data[i], resp.Data[j] = resp.Data[j], resp.Data[i]
			}
		}
		json.NewEncoder(w).Encode(resp)
	}
}

func TestOpenAIEmbed(t *testing.T) {
	t.Parallel()
	srv := newFake(t, "/v1/embeddings", openAIOK(3, true))
	for _, base := range []string{srv.URL, srv.URL + "/v1", srv.URL + "/v1/"} {
		e, err := New(Config{Provider: "OpenAI", BaseURL: base, Dim: 3, APIKey: "sk-secret-123"})
		if err != nil {
			t.Fatal(err)
		}
		if e.Name() != "openai" || e.Version() != DefaultOpenAIModel || e.Dim() != 3 {
			t.Fatalf("identity %s %s %d", e.Name(), e.Version(), e.Dim())
		}
		texts := []string{"one", "three", "fives"}
		got, err := e.Embed(context.Background(), texts)
		if err != nil {
			t.Fatalf("base %s: %v", base, err)
		}
		checkVecs(t, texts, got, 3)
	}
	if auth := srv.headers[0].Get("Authorization"); auth != "Bearer sk-secret-123" {
		t.Fatalf("Authorization %q", auth)
	}
}

func TestOpenAIKey(t *testing.T) {
	t.Parallel()
	_, err := New(Config{Provider: "openai", APIKeyEnv: "MY_EMBED_KEY"})
	wantErr(t, err, "MY_EMBED_KEY is not set")
	_, err = New(Config{Provider: "openai", APIKey: "  \t"})
	wantErr(t, err, "OPENAI_API_KEY is not set")

	// The key never shows up in errors or when the embedder is printed, even
	// when the server echoes it back.
	const key = "sk-very-secret-key-0123456789"
	srv := newFake(t, "/v1/embeddings", func(w http.ResponseWriter, _ []string) {
		http.Error(w, `{"error":{"message":"Incorrect API key provided: `+key+`"}}`, http.StatusUnauthorized)
	})
	e, err := New(Config{Provider: "openai", BaseURL: srv.URL, APIKey: key})
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.Embed(context.Background(), []string{"a"})
	wantErr(t, err, "openai at "+srv.URL, "HTTP 401", "[redacted]", "check the API key")
	for _, s := range []string{err.Error(), fmt.Sprint(e), fmt.Sprintf("%+v", e), fmt.Sprintf("%#v", e)} {
		if strings.Contains(s, key) {
			t.Fatalf("key leaked: %s", s)
		}
	}
}

func TestOpenAIErrors(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		respond func(http.ResponseWriter, []string)
		want    []string
	}{
		{"server error", func(w http.ResponseWriter, _ []string) {
			http.Error(w, "upstream overloaded", http.StatusServiceUnavailable)
		}, []string{"openai at", "HTTP 503", "upstream overloaded"}},
		{"malformed", func(w http.ResponseWriter, _ []string) { fmt.Fprint(w, "<html>proxy error</html>") }, []string{"malformed response", "<html>"}},
		{"wrong count", func(w http.ResponseWriter, in []string) { openAIOK(2, false)(w, in[:1]) }, []string{"asked for 2 embeddings, got 1"}},
		{"bad index", func(w http.ResponseWriter, in []string) {
			fmt.Fprint(w, `{"data":[{"index":0,"embedding":[1]},{"index":5,"embedding":[1]}]}`)
		}, []string{"indexes"}},
		{"rate limit", func(w http.ResponseWriter, _ []string) {
			http.Error(w, "slow down", http.StatusTooManyRequests)
		}, []string{"HTTP 429", "rate limited"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := newFake(t, "/v1/embeddings", c.respond)
			e, err := New(Config{Provider: "openai", BaseURL: srv.URL, APIKey: "k"})
			if err != nil {
				t.Fatal(err)
			}
			_, err = e.Embed(context.Background(), []string{"a", "b"})
			wantErr(t, err, c.want...)
		})
	}
}

func TestNew(t *testing.T) {
	t.Parallel()
	e, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	if e.Name() != "hash" || e.Dim() != DefaultHashDim || e.Version() != hashVersion {
		t.Fatalf("default embedder %s %s %d", e.Name(), e.Version(), e.Dim())
	}
	if e, _ := New(Config{Provider: " Hash ", Dim: 64}); e.Dim() != 64 {
		t.Fatalf("hash dim %d", e.Dim())
	}
	if e, _ := New(Config{Provider: "ollama"}); e.(*Ollama).r.base != DefaultOllamaURL || e.Version() != DefaultOllamaModel {
		t.Fatalf("ollama defaults: %v", e)
	}
	bad := []struct {
		cfg  Config
		want string
	}{
		{Config{Provider: "bert"}, `unknown embedder "bert" (valid: hash, ollama, openai)`},
		{Config{Dim: -1}, "dimension must be positive"},
		{Config{BatchSize: -2}, "batch size"},
		{Config{Timeout: -time.Second}, "timeout"},
		{Config{Provider: "ollama", BaseURL: "localhost:11434"}, "want http:// or https://"},
		{Config{Provider: "ollama", BaseURL: "ftp://x"}, "want http:// or https://"},
	}
	for _, c := range bad {
		_, err := New(c.cfg)
		wantErr(t, err, c.want)
	}
}
