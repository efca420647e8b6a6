package mcpserver

import (
	"context"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/reflectkb/reflect/internal/config"
	"github.com/reflectkb/reflect/internal/fsutil"
)

// maxLog is when mcp.log is rotated to mcp.log.1, as hooks.log is.
const maxLog = 1 << 20

// Serve runs the server for one client on in/out until it disconnects or
// the process is interrupted, logging to $REFLECT_STATE_DIR/logs/mcp.log.
// out carries the protocol and nothing else.
func Serve(ctx context.Context, c *config.Config, version string, in io.Reader, out io.Writer) error {
	logw := openLog(c.StateDir)
	defer logw.Close()
	log := slog.New(slog.NewTextHandler(logw, nil))
	cwd, _ := os.Getwd()
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	s, err := New(Options{Config: c, Version: version, Cwd: cwd, Logger: log})
	if err != nil {
		return err
	}
	defer s.Close()
	log.Info("serving", "pid", os.Getpid(), "cwd", cwd)
	err = s.Run(ctx, s.Transport(in, out))
	if err != nil && ctx.Err() == nil {
		log.Error("server stopped", "err", err)
		return err
	}
	log.Info("client disconnected")
	return nil
}

// openLog opens $STATE/logs/mcp.log for appending, rotating it past maxLog.
// A log that cannot be opened is discarded: the server serves regardless,
// since its stdout is the protocol and cannot carry the news.
func openLog(stateDir string) io.WriteCloser {
	dir := filepath.Join(stateDir, "logs")
	if fsutil.EnsureDir(dir) != nil {
		return discard{}
	}
	path := filepath.Join(dir, "mcp.log")
	if fi, err := os.Lstat(path); err == nil && fi.Mode().IsRegular() && fi.Size() > maxLog {
		_ = os.Rename(path, path+".1")
	}
	lf, err := fsutil.OpenNoFollow(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, fsutil.FilePerm)
	if err != nil {
		return discard{}
	}
	return lf
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
func (discard) Close() error                { return nil }
