// Command reflect-ui serves reflect's local web view (package webui).
// Users start it as `reflect ui`, which hands over to this binary: the web
// view's templates, markdown renderer and HTTP server are not linked into
// reflect, whose start-up every hook pays (ARCHITECTURE §2). Build it with
// the same tag as reflect: go build -tags sqlite_fts5 ./cmd/reflect-ui.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/reflectkb/reflect/internal/config"
	"github.com/reflectkb/reflect/internal/gitrepo"
	"github.com/reflectkb/reflect/webui"
)

// version is set at build time (-ldflags "-X main.version=…").
var version = "dev"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("reflect ui", flag.ContinueOnError)
	fs.SetOutput(stderr)
	port := fs.Int("port", 0, "port on 127.0.0.1 (default: a free port)")
	listen := fs.String("listen", "", "address to listen on instead, e.g. 0.0.0.0:8080 (other machines can then connect; the token still guards every request)")
	open := fs.Bool("open", false, "open the URL in a browser")
	showVersion := fs.Bool("version", false, "print the version")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *showVersion {
		fmt.Fprintln(stdout, "reflect-ui", version)
		return 0
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "reflect ui: takes no arguments (got %q)\n", fs.Arg(0))
		return 2
	}
	if *port < 0 || *port > 65535 {
		fmt.Fprintln(stderr, "reflect ui: --port must be between 0 and 65535")
		return 2
	}
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(*port))
	if *listen != "" {
		if *port != 0 {
			fmt.Fprintln(stderr, "reflect ui: give --port or --listen, not both")
			return 2
		}
		addr = *listen
	}
	if err := serve(ctx, addr, *listen != "", *open, stdout, stderr); err != nil {
		fmt.Fprintln(stderr, "reflect ui:", err)
		return 1
	}
	return 0
}

func serve(ctx context.Context, addr string, custom, open bool, stdout, stderr io.Writer) error {
	c, err := config.Load(os.LookupEnv)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("%w\npick another with --port N, or leave it out for a free one", err)
	}
	defer ln.Close()
	bound := ln.Addr().String()
	if host, _, _ := net.SplitHostPort(bound); custom && !net.ParseIP(host).IsLoopback() {
		fmt.Fprintf(stderr, "reflect ui: warning: listening on %s, beyond this machine; anyone who has the URL's token can read and change your learnings\n", bound)
	}
	token, err := webui.NewToken()
	if err != nil {
		return err
	}
	project, root := place(ctx)
	s, err := webui.New(ctx, webui.Options{Config: c, Addr: bound, Token: token, Project: project, Root: root})
	if err != nil {
		return err
	}
	defer s.Close()
	url := webui.URL(bound, token)
	fmt.Fprintln(stdout, url)
	fmt.Fprintln(stderr, "reflect ui: serving the knowledge base; press Ctrl-C to stop")
	if open {
		openOrSay(url, stderr)
	}
	srv := &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := srv.Shutdown(shut); err != nil && !errors.Is(err, context.DeadlineExceeded) {
			return err
		}
		return nil
	}
}

// place is where searches rank from, as 'reflect search' places them:
// the current directory's project first, and relative cites checked under
// its repository's top directory.
func place(ctx context.Context) (project, root string) {
	cwd, err := os.Getwd()
	if err != nil || gitrepo.SkipDir(cwd) != "" {
		return "", ""
	}
	cwd = filepath.Clean(cwd)
	if root = gitrepo.Root(cwd); root == "" {
		root = cwd
	}
	return gitrepo.Project(ctx, cwd), root
}

// openOrSay opens url in a browser or says on stderr that it could not,
// with the URL to open by hand: on a machine without a browser the opener
// starts and then fails, and --open used to end there without a word.
func openOrSay(url string, stderr io.Writer) {
	if err := openBrowser(url); err != nil {
		fmt.Fprintf(stderr, "reflect ui: could not open a browser (%v); open this URL yourself:\n%s\n", err, url)
	}
}

// opener is the desktop's command that opens a URL (a variable for tests).
var opener = func(url string) *exec.Cmd {
	switch runtime.GOOS {
	case "darwin":
		return exec.Command("open", url)
	case "windows":
		return exec.Command("rundll32", "url.dll,FileProtocolHandler", url)
	}
	return exec.Command("xdg-open", url)
}

// openerWait is how long openBrowser waits for the opener's verdict: an
// opener that finds no browser exits with an error at once, one that
// found one either exits 0 or keeps running with the browser.
var openerWait = 3 * time.Second

// openBrowser opens url with the desktop's opener, and fails when the
// opener cannot be started or exits with an error within openerWait.
func openBrowser(url string) error {
	cmd := opener(url)
	var out limitedBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			if msg := strings.TrimSpace(out.String()); msg != "" {
				return fmt.Errorf("%s: %w: %s", filepath.Base(cmd.Path), err, msg)
			}
			return fmt.Errorf("%s: %w", filepath.Base(cmd.Path), err)
		}
		return nil
	case <-time.After(openerWait):
		return nil // still running: the browser it started, most likely
	}
}

// limitedBuffer keeps the first 200 bytes written to it: enough of an
// opener's complaint for one line.
type limitedBuffer struct {
	mu  sync.Mutex
	buf []byte
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if room := 200 - len(b.buf); room > 0 {
		b.buf = append(b.buf, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

func (b *limitedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return strings.Join(strings.Fields(string(b.buf)), " ")
}
