package agents

import (
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/reflectkb/reflect/internal/fsutil"
	"github.com/reflectkb/reflect/internal/jsonobj"
	"github.com/reflectkb/reflect/internal/udiff"
)

// OpenCode has no command hooks: it loads every .js/.ts file in the
// plugins/ directory of its global config ($XDG_CONFIG_HOME/opencode,
// default ~/.config/opencode) at startup. `reflect install opencode`
// writes one such file, reflect.js, which runs `reflect hook EVENT --agent
// opencode` from OpenCode's plugin hooks (checked against opencode-ai
// 1.18.33):
//
//	chat.message (first of a session)  → session-start, then prompt; the answer
//	                                     is added to the prompt as a synthetic text part
//	tool.execute.before (bash)         → pre-tool; a warning is put before the
//	                                     command's output in tool.execute.after
//	tool.execute.after (bash)          → post-tool (metadata.exit is the exit status)
//	experimental.session.compacting    → pre-compact, with the session's messages
//	event session.idle                 → stop, with the session's messages
//
// OpenCode keeps sessions in its own database, so the plugin sends them
// and the hook keeps a redacted copy for the drainer (hooks/opencode.go).
// The file is wholly reflect's: install writes it, uninstall deletes it,
// and a file of that name that reflect did not write is refused.

//go:embed opencode_plugin.js
var openCodePlugin string

// openCodeMarker opens every plugin file reflect writes; a file without it
// is the user's and is never overwritten or removed.
const openCodeMarker = "// reflect for OpenCode"

// OpenCodePluginFile is the plugin's name inside the plugins directory.
const OpenCodePluginFile = "plugins/reflect.js"

var openCodeAgent = agentSpec{
	name:       "opencode",
	display:    "OpenCode",
	executable: "opencode",
	relocated:  under(func(d Dirs) string { return d.XDGConfig }, "opencode"),
	homeDir:    ".config/opencode",
	file:       OpenCodePluginFile,
	run:        runOpenCode,
	mcpFile:    "opencode.json",
	editMCP:    editOpenCodeMCP,
	mcpNote:    "Start a new OpenCode session for the reflect MCP tools to load (opencode mcp list shows them).",
	hooksRun: func(string) (bool, string) {
		return true, "OpenCode loads the plugin at startup (not under --pure)"
	},
}

// openCodeServer is an entry of OpenCode's mcp section: a local server is
// one command array, program first. OpenCode merges opencode.json and
// opencode.jsonc of its config directory; reflect edits opencode.json,
// which holds no comments to lose.
type openCodeServer struct {
	Type    string   `json:"type"`
	Command []string `json:"command"`
}

func editOpenCodeMCP(orig []byte, bin string, install bool, res *Result) ([]byte, error) {
	want := jsonobj.Marshal(openCodeServer{Type: "local", Command: append([]string{bin}, mcpArgs...)})
	return editServerSection(orig, "mcp", install, res, bin, want, func(raw json.RawMessage) (string, bool) {
		var cur openCodeServer
		if json.Unmarshal(raw, &cur) != nil || cur.Type != "local" || len(cur.Command) == 0 || !isOurServer(cur.Command[0], cur.Command[1:]) {
			return "", false
		}
		return cur.Command[0], true
	})
}

// openCodePluginFor is the plugin that runs bin.
func openCodePluginFor(bin string) []byte {
	q, _ := json.Marshal(bin)
	return []byte(strings.Replace(openCodePlugin, `"@REFLECT@"`, string(q), 1))
}

// openCodeEntry is the report line for the plugin.
func openCodeEntry(bin string) Entry {
	return Entry{Event: "plugin", Command: shellQuote(bin) + " hook EVENT --agent opencode"}
}

func runOpenCode(_ agentSpec, opts InstallOptions, path string, install bool) (Result, error) {
	res := Result{Agent: "opencode", Path: path, DryRun: opts.DryRun, Op: "uninstall"}
	if install {
		res.Op = "install"
	}
	orig, err := os.ReadFile(path)
	exists := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return res, fmt.Errorf("read %s: %w", path, err)
	}
	if exists && !strings.HasPrefix(string(orig), openCodeMarker) {
		if !install {
			return res, nil // the user's own file: not ours to remove
		}
		return res, fmt.Errorf("%s exists and was not written by reflect; move it away, then run reflect install opencode again", path)
	}
	var out []byte
	switch {
	case install:
		out = openCodePluginFor(opts.Binary)
		if exists && string(orig) == string(out) {
			return res, nil
		}
		if exists {
			res.Updated = append(res.Updated, openCodeEntry(opts.Binary))
		} else {
			res.Created = true
			res.Added = append(res.Added, openCodeEntry(opts.Binary))
		}
		res.Notes = append(res.Notes, "Start a new OpenCode session for the plugin to load (opencode --pure runs without it).")
	case exists:
		res.Removed = append(res.Removed, openCodeEntry(binaryOf(string(orig))))
	default:
		return res, nil
	}
	res.Changed = true
	if opts.DryRun {
		from, to := path, path
		if !exists {
			from = "/dev/null"
		}
		if !install {
			to = "/dev/null"
		}
		res.NewContent = string(out)
		res.Diff = udiff.Unified(from, to, orig, out)
		return res, nil
	}
	if !install {
		if err := os.Remove(path); err != nil {
			return res, fmt.Errorf("remove %s: %w", path, err)
		}
		res.Deleted = true
		return res, nil
	}
	if err := fsutil.EnsureDir(filepath.Dir(path)); err != nil {
		return res, err
	}
	// Not 0600: OpenCode only needs to read it, and it holds no secret.
	return res, fsutil.WriteAtomic(path, out, 0o644)
}

// binaryOf is the reflect binary a plugin file runs, for the report.
func binaryOf(plugin string) string {
	const decl = "const REFLECT = "
	i := strings.Index(plugin, decl)
	if i < 0 {
		return "reflect"
	}
	line, _, _ := strings.Cut(plugin[i+len(decl):], "\n")
	var bin string
	if json.Unmarshal([]byte(strings.TrimSuffix(strings.TrimSpace(line), ";")), &bin) != nil {
		return "reflect"
	}
	return bin
}
