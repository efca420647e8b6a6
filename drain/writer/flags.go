package writer

import (
	"context"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Writers keep their reflection runs out of the user's session list when
// the installed CLI can: Claude Code 2.1.x has -p --no-session-persistence,
// Codex 0.169 has exec --ephemeral. Older versions reject flags they do not
// know, so support is read from the CLI's own --help, once per executable
// and version of it (path, size and modification time) per process.
const (
	claudeNoPersistFlag = "--no-session-persistence"
	codexEphemeralFlag  = "--ephemeral"
)

// helpTimeout bounds a --help run: a CLI that hangs on it is treated as
// not supporting the flag rather than holding up the drain.
const helpTimeout = 20 * time.Second

var flagSupport sync.Map // key string → bool

// supportsFlag reports whether `path helpArgs...`, run with environ (as
// writerProc.environ), lists flag. A failed or hung --help counts as no
// support: the writer then runs without the flag, as before.
func supportsFlag(ctx context.Context, path string, environ, helpArgs []string, flag string) bool {
	key := path + "\x00" + strings.Join(helpArgs, " ") + "\x00" + flag
	if fi, err := os.Stat(path); err == nil {
		key += "\x00" + strconv.FormatInt(fi.Size(), 10) + "\x00" + fi.ModTime().UTC().Format(time.RFC3339Nano)
	}
	if v, ok := flagSupport.Load(key); ok {
		return v.(bool)
	}
	hctx, cancel := context.WithTimeout(ctx, helpTimeout)
	defer cancel()
	dir, cleanup, err := writerDir("")
	if err != nil {
		return false
	}
	defer cleanup()
	out, err := writerProc{path: path, args: helpArgs, dir: dir, environ: environ}.run(hctx)
	ok := err == nil && hasFlag(string(out), flag)
	if err == nil || ctx.Err() == nil {
		// Cache a real answer, and a failure that was not the caller's
		// cancellation.
		flagSupport.Store(key, ok)
	}
	return ok
}

// hasFlag reports whether help text lists flag as a whole word (so
// --ephemeral does not match --ephemeral-foo).
func hasFlag(help, flag string) bool {
	for i := 0; ; {
		j := strings.Index(help[i:], flag)
		if j < 0 {
			return false
		}
		end := i + j + len(flag)
		if end == len(help) || !isFlagChar(help[end]) {
			return true
		}
		i = end
	}
}

func isFlagChar(c byte) bool {
	return c == '-' || c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
