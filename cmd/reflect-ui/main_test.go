package main

import (
	"bytes"
	"context"
	"net/http"
	"net/http/cookiejar"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuffer is a bytes.Buffer the server goroutine and the test share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}
func (s *syncBuffer) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

func tempKB(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("HOME", filepath.Join(dir, "home"))
	t.Setenv("REFLECT_STATE_DIR", filepath.Join(dir, "state"))
	t.Setenv("REFLECT_LEARNINGS_DIR", filepath.Join(dir, "kb"))
}

// serveUntilURL runs reflect ui with args until it prints its URL, and
// returns the URL, stderr and a function that stops it and returns the
// exit code.
func serveUntilURL(t *testing.T, args ...string) (url string, stderr *syncBuffer, stop func() int) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var out syncBuffer
	stderr = &syncBuffer{}
	code := make(chan int, 1)
	go func() { code <- run(ctx, args, &out, stderr) }()
	stop = func() int { cancel(); return <-code }
	// A watchdog, not a speed budget: the index is created on first start.
	deadline := time.Now().Add(2 * time.Minute)
	for !strings.Contains(out.String(), "\n") {
		select {
		case c := <-code:
			t.Fatalf("reflect ui exited %d before printing its URL: %s", c, stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			cancel()
			t.Fatalf("no URL printed: %s", stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	return strings.SplitN(out.String(), "\n", 2)[0], stderr, stop
}

func TestServePrintsTokenURLFirst(t *testing.T) {
	tempKB(t)
	url, stderr, stop := serveUntilURL(t)
	if !strings.HasPrefix(url, "http://127.0.0.1:") || !strings.Contains(url, "/?token=") {
		t.Fatalf("first line %q, want http://127.0.0.1:PORT/?token=…", url)
	}
	if strings.Contains(stderr.String(), "warning") {
		t.Errorf("warned on the default address: %s", stderr.String())
	}
	jar, _ := cookiejar.New(nil)
	res, err := (&http.Client{Jar: jar}).Get(url)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Errorf("GET the printed URL: %d, want 200 (after the token redirect)", res.StatusCode)
	}
	noToken := url[:strings.Index(url, "?")]
	res, err = http.Get(noToken)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusUnauthorized {
		t.Errorf("GET without the token: %d, want 401", res.StatusCode)
	}
	if code := stop(); code != 0 {
		t.Errorf("exit %d after interrupt", code)
	}
}

func TestListenBeyondLoopbackWarns(t *testing.T) {
	tempKB(t)
	url, stderr, stop := serveUntilURL(t, "--listen", "0.0.0.0:0")
	defer stop()
	if !strings.HasPrefix(url, "http://127.0.0.1:") {
		t.Errorf("URL %q should name an address a local browser can open", url)
	}
	if !strings.Contains(stderr.String(), "warning: listening on ") {
		t.Errorf("no warning: %q", stderr.String())
	}
}

func TestBadFlags(t *testing.T) {
	for _, args := range [][]string{{"--port", "-1"}, {"--port", "1", "--listen", "127.0.0.1:2"}, {"extra"}, {"--bogus"}} {
		var out, errb bytes.Buffer
		if code := run(context.Background(), args, &out, &errb); code != 2 || out.Len() != 0 {
			t.Errorf("%v: exit %d, stdout %q", args, code, out.String())
		}
	}
}

// --open on a machine with no browser says so and prints the URL to open by
// hand, whether the opener is missing or starts and then fails (on the old
// code a failing xdg-open was started and never heard from); an opener
// that succeeds, or keeps running with the browser, is silent.
func TestOpenOrSay(t *testing.T) {
	prev, prevWait := opener, openerWait
	defer func() { opener, openerWait = prev, prevWait }()
	openerWait = 10 * time.Second
	const url = "http://127.0.0.1:1/?token=t"
	for _, tc := range []struct {
		name, script string
		missing      bool
		want         string
	}{
		{"no browser", "echo 'xdg-open: no method available for opening' >&2; exit 3", false, "exit status 3: xdg-open: no method available for opening"},
		{"opener missing", "", true, "executable file not found"},
		{"opened", "exit 0", false, ""},
	} {
		opener = func(u string) *exec.Cmd {
			if tc.missing {
				return exec.Command("reflect-test-no-such-opener", u)
			}
			return exec.Command("/bin/sh", "-c", tc.script, "xdg-open", u)
		}
		var stderr bytes.Buffer
		openOrSay(url, &stderr)
		got := stderr.String()
		if tc.want == "" {
			if got != "" {
				t.Errorf("%s: stderr %q, want nothing", tc.name, got)
			}
			continue
		}
		if !strings.Contains(got, "could not open a browser") || !strings.Contains(got, tc.want) || !strings.HasSuffix(got, "\n"+url+"\n") {
			t.Errorf("%s: stderr %q, want the reason (%q) and the URL on its own line", tc.name, got, tc.want)
		}
	}
	openerWait = 50 * time.Millisecond
	opener = func(u string) *exec.Cmd { return exec.Command("/bin/sh", "-c", "sleep 2", "xdg-open", u) }
	var stderr bytes.Buffer
	openOrSay(url, &stderr)
	if stderr.Len() != 0 {
		t.Errorf("an opener still running: stderr %q, want nothing", stderr.String())
	}
}
