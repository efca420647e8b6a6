// Package mcpserver is reflect's Model Context Protocol server: the
// knowledge base as tools (search, recall, get, remember, forget, list),
// resources (reflect://learning/<id>) and a prompt (reflect-reflect) for
// any agent that speaks MCP. It calls the same domain functions as the
// commands and the hooks (index.Search, recall.Recall, knowledge's Put
// and Forget, index.List), so an agent gets the answers a user gets.
//
// The server never prints: the transport owns stdout, and diagnostics go
// to the logger the caller passes ($REFLECT_STATE_DIR/logs/mcp.log).
package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/reflectkb/reflect/index"
	"github.com/reflectkb/reflect/internal/config"
)

// Name is the server's name in the MCP handshake and in agents' configs.
const Name = "reflect"

// MaxInput is the largest text argument a tool accepts (1 MiB): a learning
// is a few paragraphs, and a query or task far larger is a mistake the
// model should hear about rather than a load the server should carry.
const MaxInput = 1 << 20

// MaxFrame bounds one JSON-RPC message read from the client. It sits well
// above MaxInput so that an oversized argument reaches the tool and gets a
// tool error the model can act on, while a runaway frame cannot make the
// server buffer without bound.
const MaxFrame = 8 * MaxInput

// Options configure a server.
type Options struct {
	// Config locates the knowledge base, the state directory and the
	// recall budgets.
	Config *config.Config
	// Version is reported in the handshake.
	Version string
	// Cwd places searches and recalls: its project ranks first and its
	// files are checked for staleness, as for a command run there. Empty
	// means none.
	Cwd string
	// Logger receives one line per call and any trouble; nil discards.
	Logger *slog.Logger
	// Now is the clock (tests); nil means time.Now.
	Now func() time.Time
}

// Server is the knowledge base behind the MCP tools. It keeps one index
// open for its lifetime and reopens it when another process changed the
// documents or the vectors, so a resident server answers from the same
// data a fresh `reflect search` would.
type Server struct {
	opts Options
	log  *slog.Logger
	sdk  *mcp.Server

	// inflight counts requests being handled, so that end of input can
	// wait for their answers (see Transport).
	inflight atomic.Int64

	mu    sync.Mutex // serialises index use: tool calls may run concurrently
	ix    *index.Index
	stamp string
}

// New builds the server and registers its tools, resources and prompt.
// The index is opened at the first call that needs it, so the server
// answers the handshake and tools/list at once.
func New(opts Options) (*Server, error) {
	if opts.Config == nil {
		return nil, errors.New("mcpserver: no configuration")
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Server{opts: opts, log: log}
	s.sdk = mcp.NewServer(&mcp.Implementation{Name: Name, Title: "reflect knowledge base", Version: opts.Version},
		&mcp.ServerOptions{
			Instructions: instructions,
			Logger:       log,
			// No "logging" capability: diagnostics go to mcp.log.
			Capabilities: &mcp.ServerCapabilities{},
		})
	s.addTools()
	s.addPrompt()
	s.addResources()
	return s, nil
}

// Run serves one client on t until it disconnects or ctx ends.
func (s *Server) Run(ctx context.Context, t mcp.Transport) error {
	return s.sdk.Run(ctx, t)
}

// Close releases the index.
func (s *Server) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ix == nil {
		return nil
	}
	err := s.ix.Close()
	s.ix = nil
	return err
}

const instructions = `reflect is the user's long-term memory of coding learnings: what failed, what fixed it, what the user corrected. ` +
	`Call search (or recall with the task at hand) before debugging something that may have happened before; ` +
	`call remember when you learn something worth knowing next time (a fix, a gotcha, a user preference). ` +
	`Ids look like lrn-<slug>-<6 hex>; get accepts a unique prefix or the 6-hex suffix.`

// withIndex runs fn with the open index, (re)opening it when needed and
// picking up documents changed on disk since the last call.
func (s *Server) withIndex(ctx context.Context, fn func(*index.Index) error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.opts.Config
	stamp := s.diskStamp()
	if s.ix != nil && stamp != s.stamp {
		// Another process changed the KB: drop cached vectors and
		// statements by reopening, then refresh below.
		s.ix.Close()
		s.ix = nil
	}
	if s.ix == nil {
		cfgOpts, err := index.SettingsOptions(index.Settings(c.Index), false)
		if err != nil {
			return err
		}
		ix, err := index.Open(ctx, c.DocumentsDir(), c.IndexDir(), cfgOpts...)
		if err != nil {
			return fmt.Errorf("%w (run 'reflect doctor' to see what is wrong)", err)
		}
		if ix.Rebuilt != "" {
			s.log.Info("index rebuilt", "why", ix.Rebuilt)
		}
		s.ix = ix
	}
	st, ran, err := s.ix.Refresh(ctx)
	switch {
	case errors.Is(err, index.ErrBusy):
		// Another process is updating: its commit is all or nothing,
		// so the index as it stands is consistent, only not current.
		s.log.Warn("index busy; searching it as it stands", "err", err)
	case err != nil:
		return err
	case ran && len(st.Problems) > 0:
		s.log.Warn("skipped malformed documents; run 'reflect doctor'", "count", len(st.Problems))
	}
	err = fn(s.ix)
	s.stamp = s.diskStamp()
	return err
}

// diskStamp identifies the state of the documents directory and the
// vectors files cheaply (three stats): it moves when any process adds,
// replaces or removes a document or rewrites the vectors or their codes.
func (s *Server) diskStamp() string {
	c := s.opts.Config
	stamp := ""
	for _, p := range []string{c.DocumentsDir(), filepath.Join(c.IndexDir(), "vectors.f32"), filepath.Join(c.IndexDir(), "vectors.i8")} {
		if fi, err := os.Stat(p); err == nil {
			stamp += fmt.Sprintf("%d/%d;", fi.ModTime().UnixNano(), fi.Size())
		} else {
			stamp += "-;"
		}
	}
	return stamp
}
