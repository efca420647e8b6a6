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
		if err := openBrowser(url); err != nil {
			fmt.Fprintf(stderr, "reflect ui: cannot open a browser (%v); open the URL above\n", err)
		}
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

// openBrowser opens url with the desktop's opener.
func openBrowser(url string) error {
	name := "xdg-open"
	switch runtime.GOOS {
	case "darwin":
		name = "open"
	case "windows":
		return exec.Command("rundll32", "url.dll,FileProtocolHandler", url).Start()
	}
	cmd := exec.Command(name, url)
	if err := cmd.Start(); err != nil {
		return err
	}
	go func() { _ = cmd.Wait() }()
	return nil
}
