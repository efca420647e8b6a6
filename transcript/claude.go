package transcript

import (
	"strings"

	json "github.com/go-json-experiment/json/v1"
)

// claudeFormat is Claude Code's session JSONL, told by its record types,
// or by a sessionId or message field no earlier record named otherwise.
var claudeFormat = format{
	name: "claude",
	detect: func(p *probe) int {
		switch str(p.Type) {
		case "user", "assistant", "system", "summary", "file-history-snapshot":
			return byType
		}
		if p.SessionID != nil || p.Message != nil {
			return byField
		}
		return 0
	},
	parser: func(b *builder) (func([]byte), func()) { return newClaudeParser(b).line, nil },
}

// claudeParser reads Claude Code session JSONL: one record per line, with
// "type" user (prompts and tool results), assistant (text and tool_use
// parts), and types that carry nothing for a writer (system, summary,
// file-history-snapshot, …). Subagent records (isSidechain) are skipped:
// their prompts are the agent's, not the user's.
type claudeParser struct {
	b       *builder
	pending map[string]toolCall // tool_use id → call
	rec     claudeRecord        // the record being read, reused
}

func newClaudeParser(b *builder) *claudeParser {
	return &claudeParser{b: b, pending: map[string]toolCall{}}
}

// claudeRecord holds the fields read from a record. Raw fields make a
// field of an unexpected shape read as absent instead of failing the
// record.
type claudeRecord struct {
	Type             json.RawMessage `json:"type"`
	SessionID        json.RawMessage `json:"sessionId"`
	Cwd              json.RawMessage `json:"cwd"`
	GitBranch        json.RawMessage `json:"gitBranch"`
	IsMeta           json.RawMessage `json:"isMeta"`
	IsSidechain      json.RawMessage `json:"isSidechain"`
	IsCompactSummary json.RawMessage `json:"isCompactSummary"`
	Message          struct {
		Content json.RawMessage `json:"content"`
	} `json:"message"`
}

// claudeMetaFields is the metadata of a record whose message is of another shape.
type claudeMetaFields struct {
	SessionID json.RawMessage `json:"sessionId"`
	Cwd       json.RawMessage `json:"cwd"`
	GitBranch json.RawMessage `json:"gitBranch"`
}

type claudePart struct {
	Type      json.RawMessage `json:"type"`
	Text      json.RawMessage `json:"text"`
	ID        json.RawMessage `json:"id"`
	Name      json.RawMessage `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID json.RawMessage `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   json.RawMessage `json:"is_error"`
}

func (p *claudeParser) line(data []byte) {
	r := &p.rec
	*r = claudeRecord{}
	if data[0] != '{' || decodeRaw(data, r) != nil {
		// message of another shape: retry without it, for the metadata.
		var meta claudeMetaFields
		if data[0] == '{' && decodeRaw(data, &meta) == nil {
			p.b.meta(str(meta.SessionID), str(meta.Cwd), str(meta.GitBranch))
		}
		return
	}
	p.b.meta(str(r.SessionID), str(r.Cwd), str(r.GitBranch))
	if boolean(r.IsSidechain) {
		return
	}
	switch str(r.Type) {
	case "user":
		p.user(*r)
	case "assistant":
		p.assistant(r.Message.Content)
	}
}

// user handles a user record: a prompt (string content or text parts)
// and tool results. Meta records (caveats, hook output) and compaction
// summaries are the harness talking, not the user.
func (p *claudeParser) user(r claudeRecord) {
	typed := !boolean(r.IsMeta) && !boolean(r.IsCompactSummary)
	if s := str(r.Message.Content); s != "" {
		if typed {
			p.prompt(s)
		}
		return
	}
	var texts []string
	for _, raw := range array(r.Message.Content) {
		var part claudePart
		if decodeRaw(raw, &part) != nil {
			continue
		}
		switch str(part.Type) {
		case "text":
			if t := str(part.Text); t != "" {
				texts = append(texts, t)
			}
		case "tool_result":
			p.result(part)
		}
	}
	if typed && len(texts) > 0 {
		p.prompt(strings.Join(texts, "\n"))
	}
}

// prompt filters what Claude Code records as user text but the user did
// not type as a prompt: interruption notices, local command output, and
// slash commands, which are kept as "/name args".
func (p *claudeParser) prompt(s string) {
	t := strings.TrimSpace(s)
	switch {
	case strings.HasPrefix(t, "[Request interrupted by user"):
		return
	case strings.Contains(t, "<local-command-stdout>"), strings.Contains(t, "<local-command-stderr>"),
		strings.Contains(t, "<bash-stdout>"), strings.Contains(t, "<bash-stderr>"):
		return
	case strings.Contains(t, "<command-name>"):
		t = strings.TrimSpace(tagText(t, "command-name") + " " + tagText(t, "command-args"))
	}
	p.b.prompt(t)
}

// tagText returns the text inside the first <tag>…</tag> of s.
func tagText(s, tag string) string {
	_, after, ok := strings.Cut(s, "<"+tag+">")
	if !ok {
		return ""
	}
	inner, _, _ := strings.Cut(after, "</"+tag+">")
	return strings.TrimSpace(inner)
}

// assistant handles an assistant record: its text is the turn's answer so
// far, its tool_use parts wait for their results.
func (p *claudeParser) assistant(content json.RawMessage) {
	if s := str(content); s != "" {
		p.b.assistant(s)
		return
	}
	var texts []string
	for _, raw := range array(content) {
		var part claudePart
		if decodeRaw(raw, &part) != nil {
			continue
		}
		switch str(part.Type) {
		case "text":
			if t := str(part.Text); t != "" {
				texts = append(texts, t)
			}
		case "tool_use":
			id := str(part.ID)
			if id == "" {
				continue
			}
			if len(p.pending) >= maxPending {
				// Results that never came; forget them rather than grow.
				clear(p.pending)
			}
			p.pending[id] = claudeCall(str(part.Name), object(part.Input))
		}
	}
	if len(texts) > 0 {
		p.b.assistant(strings.Join(texts, "\n"))
	}
}

// claudeCall describes a tool_use by its tool and main argument.
func claudeCall(name string, in map[string]json.RawMessage) toolCall {
	c := toolCall{tool: name}
	switch name {
	case "Bash":
		c.command, c.shell = str(in["command"]), true
		return c
	case "Edit", "Write", "MultiEdit", "NotebookEdit":
		f := str(in["file_path"])
		if f == "" {
			f = str(in["notebook_path"])
		}
		if f != "" {
			c.files = []string{f}
		}
		c.command = strings.TrimSpace(name + " " + f)
		return c
	}
	for _, k := range []string{"command", "file_path", "path", "pattern", "url", "query", "description"} {
		if v := str(in[k]); v != "" {
			c.command = name + " " + v
			return c
		}
	}
	c.command = name
	return c
}

// result pairs a tool_result with its call. A result is a failure when
// Claude flagged it (is_error) or its output starts "Exit code N" with N≠0.
func (p *claudeParser) result(part claudePart) {
	id := str(part.ToolUseID)
	call, ok := p.pending[id]
	if !ok {
		call = toolCall{tool: "unknown"}
	}
	delete(p.pending, id)
	out := partsText(part.Content, "text")
	res := toolResult{text: out, exit: -1, failed: boolean(part.IsError)}
	if n, ok := exitHeader(out); ok {
		res.exit = n
		res.failed = res.failed || n != 0
	}
	p.b.tool(call, res)
}
