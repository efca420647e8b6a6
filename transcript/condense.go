package transcript

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	json "github.com/go-json-experiment/json/v1"
	"github.com/reflectkb/reflect/internal/text"
)

// WriterPromptMarker opens every prompt reflect's LLM writers send to a
// headless agent. The agent's own transcript of that run carries it in its
// first prompt, which is how Condense recognises (and skips) a reflection
// on a reflection, even if REFLECT_DISABLE=1 did not stop it being queued.
// The writers' working directory is a second sign (see isWriterDir).
const WriterPromptMarker = "<reflect-writer-prompt>"

// Reasons in Condensed.Skip.
const (
	SkipWriterRun     = "reflect writer run"
	SkipNoEvents      = "no events"
	SkipUnknownFormat = "unrecognised transcript format"
)

// Default limits of a condensation: 24,000 characters is about 6,000
// tokens, cheap for a one-turn writer run and enough for a long session's
// failures, corrections and answers.
const (
	DefaultMaxChars  = 24000
	DefaultMaxEvents = 200
)

// Per-event caps in bytes. An error's head and a command say what went
// wrong; the rest of a 10,000-line test log adds cost, not insight.
const (
	maxPromptBytes    = 2048
	MaxErrorBytes     = 300 // an error's head; the builtin writer bounds symptoms by it too
	maxCommandBytes   = 500
	maxAssistantBytes = 1536
	maxOutputBytes    = 200 // output summary of a command that fixed a failure
	maxMetaBytes      = 256 // session id, cwd, branch, one file path
)

// Bounds of the streaming state, so that a multi-GB transcript costs no
// more memory than a small one.
const (
	maxLineBytes   = 16 << 20 // longer lines are skipped
	maxFiles       = 200      // Condensed.Files
	maxTurnFiles   = 20       // Event.Files
	maxPending     = 4096     // tool calls awaiting their result
	maxFailedKeys  = 256      // failures awaiting a fix
	maxRecentEdits = 64
	detectLines    = 1000 // records read to detect the harness
)

// Limits bound a condensation. Zero fields take the defaults.
type Limits struct {
	// MaxChars bounds Condensed.Text, in bytes (so never more characters).
	MaxChars int
	// MaxEvents bounds Condensed.Events. The first prompt, failures, the
	// commands that fixed them and corrections are kept first; then the
	// most recent of the other events.
	MaxEvents int
}

func (l Limits) withDefaults() Limits {
	if l.MaxChars <= 0 {
		l.MaxChars = DefaultMaxChars
	}
	if l.MaxEvents <= 0 {
		l.MaxEvents = DefaultMaxEvents
	}
	return l
}

// Condense reads the transcript at path in the format harness names (one
// of Formats: a Claude Code session JSONL when harness is "claude", a
// Codex rollout JSONL when "codex", and so on; detected from the first
// records when empty) and reduces it to the events a writer needs,
// redacted and bounded by limits.
//
// The file is streamed line by line and only bounded state is kept, so a
// transcript of any size can be condensed. Lines that are not JSON, records
// of unknown types and fields of unexpected shapes are ignored: transcript
// formats drift, and a partial condensation beats none. An error means the
// file could not be read; a transcript with nothing to reflect on comes
// back with Skip set.
func Condense(path string, harness string, limits Limits) (*Condensed, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("condense %s: %w", path, err)
	}
	defer f.Close()
	c := &Condensed{Harness: harness}
	if st, err := f.Stat(); err == nil {
		c.RawBytes = st.Size()
	}
	if harness == "" {
		if harness, err = detectHarness(f); err != nil {
			return nil, fmt.Errorf("condense %s: %w", path, err)
		}
		if harness == "" {
			c.Skip = SkipUnknownFormat
			if c.RawBytes == 0 {
				c.Skip = SkipNoEvents
			}
			return c, nil
		}
		c.Harness = harness
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return nil, fmt.Errorf("condense %s: %w", path, err)
		}
	}
	f0, ok := formatOf(harness)
	if !ok {
		return nil, fmt.Errorf("condense %s: unknown harness %q (want %s)", path, harness, text.OrList(Formats()))
	}
	b := newBuilder(c, limits)
	parse, end := f0.parser(b)
	if end == nil {
		end = func() {}
	}
	lr := newLineReader(f)
	defer lr.release()
	for b.c.Skip == "" {
		line, err := lr.next()
		if len(line) > 0 {
			parse(line)
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("condense %s: %w", path, err)
		}
	}
	if b.c.Skip == "" {
		end()
	}
	b.finish()
	return c, nil
}

// lineReader yields the lines of a JSONL file. Lines longer than
// maxLineBytes are skipped whole: one giant tool output must neither
// exhaust memory nor end the condensation.
type lineReader struct {
	r   *bufio.Reader
	buf []byte
}

// lineReaders are reused: a plan condenses a thousand files, and the
// buffers would be most of what it allocates.
var lineReaders = sync.Pool{New: func() any { return &lineReader{r: bufio.NewReaderSize(nil, 64<<10)} }}

func newLineReader(r io.Reader) *lineReader {
	l := lineReaders.Get().(*lineReader)
	l.r.Reset(r)
	return l
}

// release hands l back for reuse; a buffer grown for a long line is
// dropped rather than kept.
func (l *lineReader) release() {
	l.r.Reset(nil)
	if cap(l.buf) > 1<<20 {
		l.buf = nil
	}
	l.buf = l.buf[:0]
	lineReaders.Put(l)
}

// next returns the next non-empty line without its line ending, and io.EOF
// with (maybe) a last, unterminated line at the end of the file. The line
// is valid until the next call.
func (l *lineReader) next() ([]byte, error) {
	l.buf = l.buf[:0]
	tooLong := false
	for {
		chunk, err := l.r.ReadSlice('\n')
		if !tooLong {
			if len(l.buf)+len(chunk) > maxLineBytes {
				tooLong = true
				l.buf = l.buf[:0]
			} else {
				l.buf = append(l.buf, chunk...)
			}
		}
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case err != nil:
			if tooLong {
				return nil, err
			}
			return bytes.TrimSpace(l.buf), err
		case tooLong:
			tooLong = false
			continue
		}
		if line := bytes.TrimSpace(l.buf); len(line) > 0 {
			return line, nil
		}
		l.buf = l.buf[:0]
	}
}

// detectHarness names the format of the first record that tells: Codex
// rollouts wrap everything in {"type", "payload"} with their own record
// types; Claude sessions have "sessionId", "message" or Claude's types.
// "" means no record told.
func detectHarness(r io.Reader) (string, error) {
	lr := newLineReader(r)
	defer lr.release()
	for i := 0; i < detectLines; i++ {
		line, err := lr.next()
		if h := harnessOf(line); h != "" {
			return h, nil
		}
		if errors.Is(err, io.EOF) {
			return "", nil
		}
		if err != nil {
			return "", err
		}
	}
	return "", nil
}

// probe holds the fields of a record that tell the formats apart; each
// format's detect reads the ones it needs.
type probe struct {
	Type        json.RawMessage `json:"type"`
	Payload     json.RawMessage `json:"payload"`
	SessionID   json.RawMessage `json:"sessionId"`
	Message     json.RawMessage `json:"message"`
	ProjectHash json.RawMessage `json:"projectHash"`
	Set         json.RawMessage `json:"$set"`
	Data        json.RawMessage `json:"data"`
	Info        json.RawMessage `json:"info"`
	Parts       json.RawMessage `json:"parts"`
}

// harnessOf names the format whose detect is surest of line, "" when none
// recognises it.
func harnessOf(line []byte) string {
	var p probe
	if len(line) == 0 || line[0] != '{' || decodeRaw(line, &p) != nil {
		return ""
	}
	best, rank := "", 0
	for _, f := range formats {
		if r := f.detect(&p); r > rank {
			best, rank = f.name, r
		}
	}
	return best
}

// toolCall is a tool invocation awaiting its result.
type toolCall struct {
	tool    string
	command string   // shell command, or the tool and its main argument
	shell   bool     // command is a shell command line
	files   []string // files the call edits, as given
}

// toolResult is what a tool call returned.
type toolResult struct {
	text   string
	exit   int // -1 when unknown
	failed bool
}

// item is an event under construction.
type item struct {
	ev Event
	// first marks the first prompt, pinned marks failures, fixes and
	// corrections: the events the bounds keep before any other.
	first, pinned bool
	// judge marks a prompt not yet judged a correction or not: it is
	// judged only when the bounds drop events, as most sessions fit.
	judge bool
	// dead marks an assistant message superseded by a later one of the
	// same turn.
	dead bool
}

// isPinned reports whether the bounds keep it before unpinned events.
func (it *item) isPinned() bool {
	if it.judge {
		it.pinned, it.judge = IsCorrection(it.ev.Text), false
	}
	return it.pinned
}

// builder accumulates the events of one transcript within bounds. The
// parsers feed it prompts, assistant messages and tool results in
// transcript order.
type builder struct {
	lim   Limits
	c     *Condensed
	items []*item
	// seq counts tool calls and assistant messages, so parsers can tell
	// whether anything happened between two copies of one prompt.
	seq int

	sawPrompt bool
	lastAsst  *item    // the current turn's last assistant message
	turnFiles []string // files edited in the current turn

	failed  map[string]int // command key of an unfixed failure → seq
	runs    map[string]int // command key → index in c.Runs
	edits   []edit         // recent edits, oldest first
	fileSet map[string]bool
}

type edit struct {
	seq  int
	file string
}

func newBuilder(c *Condensed, l Limits) *builder {
	return &builder{
		lim:     l.withDefaults(),
		c:       c,
		failed:  map[string]int{},
		runs:    map[string]int{},
		fileSet: map[string]bool{},
	}
}

// meta records the session id, cwd and branch the first time each is seen.
func (b *builder) meta(sessionID, cwd, branch string) {
	if b.c.SessionID == "" && sessionID != "" {
		b.c.SessionID = bound(sessionID, maxMetaBytes)
	}
	if b.c.Cwd == "" && cwd != "" {
		b.c.Cwd = bound(cwd, maxMetaBytes)
		if isWriterDir(cwd) {
			b.c.Skip = SkipWriterRun
		}
	}
	if b.c.Branch == "" && branch != "" {
		b.c.Branch = bound(branch, maxMetaBytes)
	}
}

// prompt records a prompt the user typed. Injected blocks are removed
// first; what is left of a prompt that was only injected context is
// nothing.
func (b *builder) prompt(raw string) {
	if !b.sawPrompt && isWriterPrompt(raw) {
		b.c.Skip = SkipWriterRun
		return
	}
	text := bound(raw, maxPromptBytes)
	if text == "" || isBareSlashCommand(text) {
		return
	}
	b.closeTurn()
	first := !b.sawPrompt
	b.sawPrompt = true
	b.add(&item{ev: Event{Kind: UserPrompt, Text: text}, first: first, judge: true})
}

// bareSlashCommands are the client commands that manage the session and
// say nothing about the work: a writer shown "/exit" or "/compact" as a
// prompt reads it as something the user asked for.
var bareSlashCommands = map[string]bool{
	"/exit": true, "/quit": true, "/compact": true, "/clear": true,
}

// isBareSlashCommand reports whether a prompt is only one of
// bareSlashCommands (any arguments of /compact only steer the summary).
func isBareSlashCommand(text string) bool {
	name, _, _ := strings.Cut(text, " ")
	return bareSlashCommands[strings.TrimSpace(name)] && !strings.Contains(text, "\n")
}

// isWriterPrompt reports whether a prompt is one of reflect's writer
// prompts: the marker opens it, maybe after a line of harness preamble.
func isWriterPrompt(s string) bool {
	i := strings.Index(s, WriterPromptMarker)
	return i >= 0 && i < 1024
}

// isWriterDir reports whether cwd is where reflect's writers run the
// headless agent: a "reflect-writer-*" temporary directory or the state
// directory's "writer" (ARCHITECTURE §3: ~/.reflect). This catches a writer run
// whose prompt lost its marker, e.g. to a harness that prepends context.
func isWriterDir(cwd string) bool {
	cwd = filepath.Clean(cwd)
	base := filepath.Base(cwd)
	return strings.HasPrefix(base, "reflect-writer-") ||
		base == "writer" && filepath.Base(filepath.Dir(cwd)) == ".reflect"
}

// assistant records an assistant message; only the last one of a turn
// survives, as the turn's answer.
func (b *builder) assistant(raw string) {
	b.seq++
	text := bound(raw, maxAssistantBytes)
	if text == "" {
		return
	}
	if b.lastAsst != nil {
		b.lastAsst.dead = true
	}
	b.lastAsst = b.add(&item{ev: Event{Kind: AssistantFinal, Text: text}})
}

// closeTurn gives the turn's answer the files edited during the turn.
func (b *builder) closeTurn() {
	if len(b.turnFiles) > 0 {
		if b.lastAsst == nil {
			b.lastAsst = b.add(&item{ev: Event{Kind: AssistantFinal}})
		}
		b.lastAsst.ev.Files = b.turnFiles
	}
	b.lastAsst, b.turnFiles = nil, nil
}

// tool records the outcome of a tool call: every failure; a success only
// when it is the first success of a shell program (and subcommand) that
// failed before, since that is the fix. Other successes would only repeat
// routine work.
func (b *builder) tool(call toolCall, res toolResult) {
	b.seq++
	var key string
	if call.shell {
		key = CommandKey(call.command)
	}
	b.run(key, res)
	if res.failed {
		ev := Event{
			Kind:     ToolFailed,
			Tool:     bound(call.tool, maxMetaBytes),
			Command:  bound(call.command, maxCommandBytes),
			Text:     errorHead(res.text),
			ExitCode: res.exit,
		}
		if key != "" {
			if len(b.failed) >= maxFailedKeys {
				clear(b.failed)
			}
			b.failed[key] = b.seq
		}
		// A failing Edit or Read is routine (the file changed, it was not
		// read yet); a failing command is what a learning is made of.
		b.add(&item{ev: ev, pinned: call.shell})
		return
	}
	for _, f := range call.files {
		b.touched(f)
	}
	since, ok := b.failed[key]
	if key == "" || !ok {
		return
	}
	delete(b.failed, key)
	b.add(&item{pinned: true, ev: Event{
		Kind:    ToolSucceeded,
		Tool:    bound(call.tool, maxMetaBytes),
		Command: bound(call.command, maxCommandBytes),
		Text:    outputHead(res.text),
		Files:   b.editedSince(since),
	}})
}

// Bounds of Condensed.Runs.
const (
	maxRuns      = 64 // command keys
	maxRunErrors = 3  // error heads per key
)

// run counts one shell command's outcome under its key.
func (b *builder) run(key string, res toolResult) {
	if key == "" {
		return
	}
	i, ok := b.runs[key]
	if !ok {
		if len(b.c.Runs) >= maxRuns {
			return
		}
		i = len(b.c.Runs)
		b.runs[key] = i
		b.c.Runs = append(b.c.Runs, Run{Key: key})
	}
	r := &b.c.Runs[i]
	if !res.failed {
		r.OK++
		return
	}
	r.Failed++
	if len(r.Errors) < maxRunErrors {
		if h := errorHead(res.text); h != "" {
			r.Errors = append(r.Errors, h)
		}
	}
}

// touched records an edited file.
func (b *builder) touched(file string) {
	file = b.relative(file)
	if file == "" {
		return
	}
	if !b.fileSet[file] && len(b.c.Files) < maxFiles {
		b.fileSet[file] = true
		b.c.Files = append(b.c.Files, file)
	}
	if len(b.turnFiles) < maxTurnFiles && !contains(b.turnFiles, file) {
		b.turnFiles = append(b.turnFiles, file)
	}
	if len(b.edits) == maxRecentEdits {
		b.edits = append(b.edits[:0], b.edits[1:]...)
	}
	b.edits = append(b.edits, edit{seq: b.seq, file: file})
}

func (b *builder) editedSince(seq int) []string {
	var files []string
	for _, e := range b.edits {
		if e.seq > seq && !contains(files, e.file) && len(files) < maxTurnFiles {
			files = append(files, e.file)
		}
	}
	return files
}

// relative makes an absolute path under the session's cwd relative to it,
// so learnings cite repository paths, not one machine's home directory.
func (b *builder) relative(p string) string {
	p = strings.TrimSpace(p)
	if p == "" {
		return ""
	}
	if filepath.IsAbs(p) && b.c.Cwd != "" {
		if r, err := filepath.Rel(b.c.Cwd, p); err == nil && r != ".." && !strings.HasPrefix(r, "../") {
			p = r
		}
	}
	return bound(filepath.ToSlash(filepath.Clean(p)), maxMetaBytes)
}

func (b *builder) add(it *item) *item {
	b.items = append(b.items, it)
	// Compacting at twice the bound keeps memory bounded at amortised
	// linear cost.
	if len(b.items) >= 2*b.lim.MaxEvents {
		b.compact()
	}
	return it
}

// compact drops dead items and, beyond MaxEvents, the items the bounds
// value least: first the oldest unpinned ones, then the oldest pinned ones;
// never the first prompt.
func (b *builder) compact() {
	live := b.items[:0]
	for _, it := range b.items {
		if !it.dead {
			live = append(live, it)
		}
	}
	clear(b.items[len(live):])
	b.items = live
	if len(live) <= b.lim.MaxEvents {
		return
	}
	keep := make([]bool, len(live))
	n := 0
	for i, it := range live {
		if it.first {
			keep[i] = true
			n++
		}
	}
	for _, pinned := range []bool{true, false} {
		for i := len(live) - 1; i >= 0 && n < b.lim.MaxEvents; i-- {
			if !keep[i] && (live[i].isPinned() || !pinned) {
				keep[i] = true
				n++
			}
		}
	}
	kept := make([]*item, 0, b.lim.MaxEvents)
	for i, it := range live {
		if keep[i] {
			kept = append(kept, it)
		}
	}
	b.c.Dropped += len(live) - len(kept)
	b.items = kept
}

// finish closes the last turn and fills in Events and Text.
func (b *builder) finish() {
	if b.c.Skip != "" {
		return
	}
	b.closeTurn()
	b.compact()
	if len(b.items) == 0 {
		b.c.Skip = SkipNoEvents
		return
	}
	b.c.Events = make([]Event, len(b.items))
	for i, it := range b.items {
		b.c.Events[i] = it.ev
	}
	b.c.Text = render(b.c, b.items, b.lim.MaxChars)
}

// render writes the plain-text transcript for LLM writers, within max
// bytes: when the events do not fit, the oldest unpinned ones go first,
// then the oldest pinned ones; the first prompt stays.
func render(c *Condensed, items []*item, max int) string {
	head := "SESSION: " + c.Harness
	if c.Cwd != "" {
		head += ", cwd " + c.Cwd
	}
	if c.Branch != "" {
		head += ", branch " + c.Branch
	}
	lines := make([]string, len(items))
	total := len(head) + 1
	for i, it := range items {
		lines[i] = renderEvent(it.ev)
		total += len(lines[i]) + 1
	}
	files := renderFiles(c.Files, min(2000, max/8))
	total += len(files) + 1
	omitted := c.Dropped
	// Room for the omission note, whose digits may grow as events go.
	const noteRoom = 48
	for _, pinned := range []bool{false, true} {
		for i := range items {
			if total+noteRoom <= max {
				break
			}
			if lines[i] != "" && !items[i].first && items[i].isPinned() == pinned {
				total -= len(lines[i]) + 1
				lines[i] = ""
				omitted++
			}
		}
	}
	var sb strings.Builder
	sb.Grow(min(total+noteRoom, max+4))
	sb.WriteString(head + "\n")
	if omitted > 0 {
		sb.WriteString("(" + strconv.Itoa(omitted) + " events omitted to fit the size limit)\n")
	}
	for _, l := range lines {
		if l != "" {
			sb.WriteString(l + "\n")
		}
	}
	if files != "" {
		sb.WriteString(files + "\n")
	}
	return text.ClipBytes(sb.String(), max)
}

func renderEvent(ev Event) string {
	var s string
	switch ev.Kind {
	case UserPrompt:
		s = "USER: " + ev.Text
	case AssistantFinal:
		switch {
		case ev.Text == "":
			return "EDITED: " + strings.Join(ev.Files, ", ")
		case len(ev.Files) > 0:
			s = "ASSISTANT: " + ev.Text + "\nEDITED: " + strings.Join(ev.Files, ", ")
		default:
			s = "ASSISTANT: " + ev.Text
		}
	case ToolFailed:
		s = "FAILED " + codeSpan(ev.Command)
		if ev.ExitCode > 0 {
			s += " (exit " + strconv.Itoa(ev.ExitCode) + ")"
		}
		if ev.Text != "" {
			s += ": " + ev.Text
		}
	case ToolSucceeded:
		s = "OK " + codeSpan(ev.Command)
		if len(ev.Files) > 0 {
			s += " (after editing " + strings.Join(ev.Files, ", ") + ")"
		}
		if ev.Text != "" {
			s += ": " + ev.Text
		}
	default:
		s = string(ev.Kind) + ": " + ev.Text
	}
	// Continuation lines are indented so that every event starts a line
	// with its label.
	return strings.ReplaceAll(s, "\n", "\n  ")
}

func codeSpan(cmd string) string {
	if cmd == "" {
		return "(no command)"
	}
	return "`" + strings.ReplaceAll(cmd, "`", "'") + "`"
}

func renderFiles(files []string, max int) string {
	if len(files) == 0 {
		return ""
	}
	var sb strings.Builder
	sb.WriteString("FILES: ")
	for i, f := range files {
		if i > 0 && sb.Len()+2+len(f) > max-16 {
			return sb.String() + ", … " + strconv.Itoa(len(files)-i) + " more"
		}
		if i > 0 {
			sb.WriteString(", ")
		}
		sb.WriteString(f)
	}
	return sb.String()
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
