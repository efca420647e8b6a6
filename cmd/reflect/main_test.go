package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/reflectkb/reflect/internal/config"
	"github.com/reflectkb/reflect/internal/testfs"
	"github.com/reflectkb/reflect/mcpserver"
)

// TestMain lets the test binary act as the reflect command: testscript puts
// a copy of it named "reflect" on $PATH, and running that copy runs Main.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"reflect": func() { os.Exit(Main(os.Args[1:], SystemStreams(), os.LookupEnv)) },
		// reflect mcp hands over to reflect-mcp (cmd/reflect-mcp), found
		// on PATH here; this stand-in serves as that binary does.
		"reflect-mcp": func() {
			c, err := config.Load(os.LookupEnv)
			if err == nil {
				err = mcpserver.Serve(context.Background(), c, "test", os.Stdin, os.Stdout)
			}
			if err != nil {
				fmt.Fprintln(os.Stderr, "reflect-mcp:", err)
				os.Exit(1)
			}
			os.Exit(0)
		},
	})
}

// TestScripts runs the command-line scripts in testdata/script. Every script
// gets its own $HOME, state and learnings directories under $WORK, so no
// script can read or write the real ~/.reflect, ~/.learnings, ~/.claude or
// ~/.codex.
func TestScripts(t *testing.T) {
	t.Parallel()
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		Setup: func(env *testscript.Env) error {
			home := filepath.Join(env.WorkDir, "home")
			env.Setenv("HOME", home)
			env.Setenv("REFLECT_STATE_DIR", filepath.Join(env.WorkDir, "state"))
			env.Setenv("REFLECT_LEARNINGS_DIR", filepath.Join(env.WorkDir, "kb"))
			return os.MkdirAll(home, 0o700)
		},
		Condition: func(cond string) (bool, error) {
			if cond == "tmpfs" {
				return canMountTmpfs(), nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"exitcode":   cmdExitcode,
			"jsonpath":   cmdJSONPath,
			"truncate":   cmdTruncate,
			"writebytes": cmdWritebytes,
			"genquery":   cmdGenquery,
			"holdlock":   cmdHoldlock,
			"diskfull":   cmdDiskfull,
			"fill":       cmdFill,
			"mkfifo":     cmdMkfifo,
			"waitfile":   cmdWaitfile,
		},
	})
}

// exitcode N PROG [ARGS...] runs PROG like exec and checks that it exits
// with status N; stdout and stderr can be checked afterwards as usual.
// (exec and ! exec only tell zero from non-zero; usage errors must be 2.)
func cmdExitcode(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("unsupported: ! exitcode")
	}
	if len(args) < 2 {
		ts.Fatalf("usage: exitcode N prog [args...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exitcode: %q is not a number", args[0])
	}
	got := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("exitcode: %v", err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("%s exited with status %d, want %d", args[1], got, want)
	}
}

// jsonpath FILE PATH OP [VALUE...] checks one value of the JSON document in
// FILE ("stdout" and "stderr" are the last command's output).
//
// PATH is dot-separated object keys and array indexes, e.g. results.0.id;
// a key holding dots or other punctuation can be double-quoted:
// reports.0.scores."ndcg@10". "." is the whole document.
//
// OP is one of:
//
//	== VALUE      a string equals VALUE; any other value's compact JSON equals VALUE
//	~ REGEXP      the same text matches REGEXP
//	> >= < <= N   a number compares with N
//	len N         an array, object or string has N elements (runes for strings)
//	type T        the value is a string, number, bool, null, array or object
//	exists        PATH names a value
//	has KEY...    an object has every KEY
//
// With !, ==, ~, exists and has are negated (has: none of the keys).
func cmdJSONPath(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 3 {
		ts.Fatalf("usage: jsonpath FILE PATH OP [VALUE...]")
	}
	file, path, op, vals := args[0], args[1], args[2], args[3:]
	var doc any
	dec := json.NewDecoder(strings.NewReader(ts.ReadFile(file)))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		ts.Fatalf("jsonpath: %s is not JSON: %v", file, err)
	}
	if dec.More() {
		ts.Fatalf("jsonpath: %s holds more than one JSON value", file)
	}
	v, err := lookup(doc, path)
	if op == "exists" {
		if (err == nil) == neg {
			if neg {
				ts.Fatalf("%s: %s exists (%s)", file, path, compact(v))
			}
			ts.Fatalf("%s: %v", file, err)
		}
		return
	}
	if err != nil {
		ts.Fatalf("%s: %v", file, err)
	}
	needOne := func() string {
		if len(vals) != 1 {
			ts.Fatalf("usage: jsonpath FILE PATH %s VALUE", op)
		}
		return vals[0]
	}
	switch op {
	case "==":
		want := needOne()
		got := text(v)
		if (got == want) == neg {
			if neg {
				ts.Fatalf("%s: %s is %q, want anything else", file, path, got)
			}
			ts.Fatalf("%s: %s is %q, want %q", file, path, got, want)
		}
	case "~":
		re, err := regexp.Compile(needOne())
		if err != nil {
			ts.Fatalf("jsonpath: %v", err)
		}
		got := text(v)
		if re.MatchString(got) == neg {
			if neg {
				ts.Fatalf("%s: %s is %q, which matches %s", file, path, got, re)
			}
			ts.Fatalf("%s: %s is %q, which does not match %s", file, path, got, re)
		}
	case ">", ">=", "<", "<=":
		if neg {
			ts.Fatalf("unsupported: ! jsonpath ... %s", op)
		}
		n, ok := v.(json.Number)
		if !ok {
			ts.Fatalf("%s: %s is %s, not a number", file, path, compact(v))
		}
		got, err := n.Float64()
		ts.Check(err)
		want, err := strconv.ParseFloat(needOne(), 64)
		if err != nil {
			ts.Fatalf("jsonpath: %q is not a number", vals[0])
		}
		ok = map[string]bool{">": got > want, ">=": got >= want, "<": got < want, "<=": got <= want}[op]
		if !ok {
			ts.Fatalf("%s: %s is %v, want %s %v", file, path, got, op, want)
		}
	case "len":
		if neg {
			ts.Fatalf("unsupported: ! jsonpath ... len")
		}
		want, err := strconv.Atoi(needOne())
		if err != nil {
			ts.Fatalf("jsonpath: %q is not a number", vals[0])
		}
		var got int
		switch x := v.(type) {
		case []any:
			got = len(x)
		case map[string]any:
			got = len(x)
		case string:
			got = utf8.RuneCountInString(x)
		default:
			ts.Fatalf("%s: %s is %s, which has no length", file, path, compact(v))
		}
		if got != want {
			ts.Fatalf("%s: %s has length %d, want %d", file, path, got, want)
		}
	case "type":
		if neg {
			ts.Fatalf("unsupported: ! jsonpath ... type")
		}
		if got, want := typeName(v), needOne(); got != want {
			ts.Fatalf("%s: %s is a %s (%s), want a %s", file, path, got, compact(v), want)
		}
	case "has":
		obj, ok := v.(map[string]any)
		if !ok {
			ts.Fatalf("%s: %s is %s, not an object", file, path, compact(v))
		}
		if len(vals) == 0 {
			ts.Fatalf("usage: jsonpath FILE PATH has KEY...")
		}
		for _, k := range vals {
			if _, ok := obj[k]; ok == neg {
				if neg {
					ts.Fatalf("%s: %s has the key %q", file, path, k)
				}
				ts.Fatalf("%s: %s has no key %q (keys: %s)", file, path, k, keys(obj))
			}
		}
	default:
		ts.Fatalf("jsonpath: unknown operator %q", op)
	}
}

// lookup follows a jsonpath PATH through doc.
func lookup(doc any, path string) (any, error) {
	segs, err := splitPath(path)
	if err != nil {
		return nil, err
	}
	v := doc
	for i, s := range segs {
		at := strings.Join(segs[:i], ".")
		switch x := v.(type) {
		case map[string]any:
			next, ok := x[s]
			if !ok {
				return nil, fmt.Errorf("no key %q at %q (keys: %s)", s, at, keys(x))
			}
			v = next
		case []any:
			n, err := strconv.Atoi(s)
			if err != nil || n < 0 || n >= len(x) {
				return nil, fmt.Errorf("no element %q at %q (an array of %d)", s, at, len(x))
			}
			v = x[n]
		default:
			return nil, fmt.Errorf("cannot look up %q in %s at %q", s, compact(v), at)
		}
	}
	return v, nil
}

func splitPath(path string) ([]string, error) {
	if path == "." || path == "" {
		return nil, nil
	}
	var segs []string
	var cur strings.Builder
	quoted := false
	for _, r := range path {
		switch {
		case r == '"':
			quoted = !quoted
		case r == '.' && !quoted:
			segs = append(segs, cur.String())
			cur.Reset()
		default:
			cur.WriteRune(r)
		}
	}
	if quoted {
		return nil, fmt.Errorf("unbalanced quote in path %q", path)
	}
	return append(segs, cur.String()), nil
}

// text is what == and ~ compare: a string's value, else its compact JSON.
func text(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return compact(v)
}

func compact(v any) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	return strings.TrimSuffix(buf.String(), "\n")
}

func typeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "string"
	case json.Number:
		return "number"
	case bool:
		return "bool"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

func keys(m map[string]any) string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return strings.Join(ks, ", ")
}

// truncate SIZE FILE sets FILE's size, creating it when missing: a sparse
// file of any size without putting its bytes in a script. SIZE may end in
// K or M (binary units).
// heldLocks maps a file holdlock locked to its open descriptor.
var heldLocks sync.Map

// holdlock FILE [DURATION] takes an exclusive flock on FILE, as another
// reflect process would, until the script ends or DURATION has passed;
// ! holdlock FILE releases it.
func cmdHoldlock(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 1 || len(args) > 2 || (neg && len(args) != 1) {
		ts.Fatalf("usage: holdlock FILE [DURATION] | ! holdlock FILE")
	}
	path := ts.MkAbs(args[0])
	if neg {
		if f, ok := heldLocks.LoadAndDelete(path); ok {
			ts.Check(f.(*os.File).Close()) // the only descriptor: closing it releases the flock
		}
		return
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	ts.Check(err)
	ts.Check(tryLockExclusive(f))
	heldLocks.Store(path, f)
	ts.Defer(func() { _ = f.Close() })
	if len(args) == 2 {
		d, err := time.ParseDuration(args[1])
		ts.Check(err)
		time.AfterFunc(d, func() { _ = f.Close() })
	}
}

// waitfile FILE [LIMIT] waits for a detached background process (one this
// script cannot wait on) to write FILE; LIMIT (default 2m) only keeps a
// broken run from hanging the suite, it is no speed budget.
func cmdWaitfile(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 || len(args) > 2 {
		ts.Fatalf("usage: waitfile FILE [LIMIT]")
	}
	limit := 2 * time.Minute
	if len(args) == 2 {
		d, err := time.ParseDuration(args[1])
		ts.Check(err)
		limit = d
	}
	path := ts.MkAbs(args[0])
	for deadline := time.Now().Add(limit); ; time.Sleep(50 * time.Millisecond) {
		if _, err := os.Stat(path); err == nil {
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("waitfile: %s did not appear within %s", args[0], limit)
		}
	}
}

func cmdTruncate(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: truncate SIZE FILE")
	}
	size, err := parseSize(args[0])
	if err != nil {
		ts.Fatalf("truncate: %v", err)
	}
	f, err := os.OpenFile(ts.MkAbs(args[1]), os.O_WRONLY|os.O_CREATE, 0o644)
	ts.Check(err)
	ts.Check(f.Truncate(size))
	ts.Check(f.Close())
}

func parseSize(s string) (int64, error) {
	mult := int64(1)
	switch {
	case strings.HasSuffix(s, "K"):
		mult, s = 1<<10, strings.TrimSuffix(s, "K")
	case strings.HasSuffix(s, "M"):
		mult, s = 1<<20, strings.TrimSuffix(s, "M")
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%q is not a size such as 512, 4K or 50M", s)
	}
	return n * mult, nil
}

// writebytes FILE QUOTED writes the Go-quoted string QUOTED, e.g.
// "PK\x03\x04\x00\xff", to FILE: bytes a txtar archive cannot hold.
func cmdWritebytes(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: writebytes FILE QUOTED")
	}
	data, err := strconv.Unquote(args[1])
	if err != nil {
		ts.Fatalf("writebytes: %s is not a Go quoted string: %v", args[1], err)
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), []byte(data), 0o644))
}

// hostile is repeated to build long queries: FTS5 operators, column
// filters, prefixes, unbalanced quotes and parentheses, flags, SQL, emoji.
const hostile = `c++ -fPIC "foo AND OR NOT * NEAR(a b) title:x ^body ( ) {col}: ' ''; DROP TABLE docs; -- 🦀🔥 ERR_SSL_PROTOCOL_ERROR callback/cookie.go `

// genquery VAR BYTES sets $VAR to BYTES bytes (at most, ending on a whole
// character) of hostile query text, for queries too long to write inline.
func cmdGenquery(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: genquery VAR BYTES")
	}
	n, err := parseSize(args[1])
	if err != nil {
		ts.Fatalf("genquery: %v", err)
	}
	var b strings.Builder
	for i := 0; int64(b.Len()) < n; i++ {
		// numbered words keep the terms distinct, so the query is long in
		// terms too, not one word repeated
		fmt.Fprintf(&b, "%sword%d ", hostile, i)
	}
	q := b.String()[:n]
	for !utf8.ValidString(q) {
		q = q[:len(q)-1]
	}
	ts.Setenv(args[0], q)
}

// fill DIR writes a file under DIR until its file system is full (ENOSPC).
func cmdFill(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: fill DIR")
	}
	f, err := os.Create(filepath.Join(ts.MkAbs(args[0]), ".filler"))
	ts.Check(err)
	defer f.Close()
	buf := make([]byte, 4096)
	for {
		if _, err := f.Write(buf); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				ts.Fatalf("fill: %v", err)
			}
			return
		}
	}
}

// mkfifo FILE makes a named pipe at FILE (Unix only: guard the line with
// [!unix] skip).
func cmdMkfifo(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: mkfifo FILE")
	}
	ts.Check(testfs.Mkfifo(ts.MkAbs(args[0])))
}
