package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxDepth bounds how deeply a message may nest arrays and objects. MCP
// messages nest a handful of levels (a tool call's arguments are an object
// of values); a message nested thousands deep is an attack on the decoder,
// refused before it is decoded.
const maxDepth = 64

// stallLimit bounds the wait at end of input: when no answer has been
// written for this long while requests are still unanswered (a request
// the SDK chose not to answer), the session closes anyway. It is not a
// deadline for slow answers: every answer written restarts it.
const stallLimit = 30 * time.Second

// Transport is the stdio transport over in and out: one JSON-RPC message
// per line. Every line is checked before the SDK sees it, because the
// SDK's own stdio transport ends the session at the first line it cannot
// decode: a line that is not JSON gets a -32700 parse error, one that is
// JSON but not a single JSON-RPC 2.0 message (an array or batch, null, a
// version other than "2.0", an id that is neither a string nor an
// integer, a method that is not a string) gets -32600 invalid request,
// with the message's id when it has a usable one and null otherwise, and
// the server reads on. A line over MaxFrame bytes is refused the same way
// and the rest of it discarded, unbuffered, so it costs no more memory
// than MaxFrame.
//
// End of input does not cut off the answers still being computed:
// `reflect mcp <requests.jsonl` or a client that closes its end after its
// last request gets them all. out must carry nothing but the protocol.
func (s *Server) Transport(in io.Reader, out io.Writer) mcp.Transport {
	return &lineTransport{s: s, in: in, out: out}
}

type lineTransport struct {
	s   *Server
	in  io.Reader
	out io.Writer
}

func (t *lineTransport) Connect(context.Context) (mcp.Connection, error) {
	return newLineConn(t.s, t.in, t.out), nil
}

// lineConn is the connection of lineTransport. A goroutine reads and
// checks the input and hands each valid message over incoming, so that
// Read can return when the connection is closed even while the input
// blocks (as the SDK's transport does).
type lineConn struct {
	s        *Server
	out      io.Writer
	writeMu  sync.Mutex
	incoming chan readResult
	closed   chan struct{}
	once     sync.Once

	// requests counts the requests handed to the SDK and answers the
	// answers written, so that end of input waits until every request
	// has its answer. Waiting for "no handler running" instead was not
	// enough: on a loaded machine a request read just before EOF had not
	// reached a handler yet, and the session closed without answering.
	requests atomic.Int64
	answers  atomic.Int64
}

type readResult struct {
	msg jsonrpc.Message
	err error
}

func newLineConn(s *Server, in io.Reader, out io.Writer) *lineConn {
	c := &lineConn{s: s, out: out, incoming: make(chan readResult), closed: make(chan struct{})}
	go c.readLoop(in)
	return c
}

func (c *lineConn) readLoop(in io.Reader) {
	r := bufio.NewReaderSize(in, 64<<10)
	for {
		line, tooLong, err := readLine(r, MaxFrame)
		switch {
		case tooLong:
			c.reject(nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("message is over %d bytes (the limit); it was discarded", MaxFrame))
		case len(bytes.TrimSpace(line)) > 0:
			msg, ferr := checkFrame(line)
			if ferr != nil {
				c.reject(ferr.id, ferr.code, ferr.msg)
				break
			}
			if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
				c.requests.Add(1)
			}
			if !c.deliver(readResult{msg: msg}) {
				return
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				c.waitForAnswers()
			}
			c.deliver(readResult{err: err})
			return
		}
	}
}

// deliver hands r to Read; false when the connection closed first.
func (c *lineConn) deliver(r readResult) bool {
	select {
	case c.incoming <- r:
		return true
	case <-c.closed:
		return false
	}
}

// waitForAnswers holds end of input back until every request read has
// been answered and no handler is running, or until answers stall.
func (c *lineConn) waitForAnswers() {
	last, lastAnswered := time.Now(), c.answers.Load()
	for c.answers.Load() < c.requests.Load() || c.s.inflight.Load() > 0 {
		if a := c.answers.Load(); a != lastAnswered {
			last, lastAnswered = time.Now(), a
		} else if time.Since(last) > stallLimit {
			return
		}
		select {
		case <-c.closed:
			return
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// readLine returns the next line of r without its newline. A line longer
// than max is read to its end and discarded (tooLong), never held whole.
// err is the error that ended the input, with the last line if any.
func readLine(r *bufio.Reader, max int) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := r.ReadSlice('\n')
		if !tooLong {
			if n := len(bytes.TrimRight(chunk, "\r\n")); len(line)+n > max {
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return bytes.TrimRight(line, "\r\n"), tooLong, err
	}
}

// frameError is why a line was refused, and the id to answer with.
type frameError struct {
	id   json.RawMessage // nil: answer with id null
	code int64
	msg  string
}

func parseError(msg string) *frameError {
	return &frameError{code: jsonrpc.CodeParseError, msg: "parse error: " + msg}
}

func invalid(id json.RawMessage, msg string) *frameError {
	return &frameError{id: id, code: jsonrpc.CodeInvalidRequest, msg: "invalid request: " + msg}
}

// checkFrame decodes one line as a single JSON-RPC 2.0 message, or says
// why it is not one.
func checkFrame(line []byte) (jsonrpc.Message, *frameError) {
	if !utf8.Valid(line) {
		return nil, parseError("the message is not valid UTF-8")
	}
	if depth(line) > maxDepth {
		return nil, parseError(fmt.Sprintf("the message nests arrays and objects more than %d levels deep", maxDepth))
	}
	if !json.Valid(line) {
		return nil, parseError("the line is not one JSON value; send one JSON-RPC message per line")
	}
	trimmed := bytes.TrimSpace(line)
	switch trimmed[0] {
	case '{':
	case '[':
		return nil, invalid(nil, "batches are not supported; send one JSON-RPC message per line")
	default:
		return nil, invalid(nil, "a JSON-RPC message is a JSON object")
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(trimmed, &fields); err != nil {
		return nil, parseError(err.Error())
	}
	id, idOK := fields["id"]
	if idOK && !validID(id) {
		return nil, invalid(nil, "id must be a string or an integer")
	}
	if !idOK || string(id) == "null" {
		id = nil
	}
	if v, ok := fields["jsonrpc"]; !ok || string(bytes.TrimSpace(v)) != `"2.0"` {
		return nil, invalid(id, `"jsonrpc" must be "2.0"`)
	}
	method, hasMethod := fields["method"]
	if hasMethod {
		var name string
		if err := json.Unmarshal(method, &name); err != nil {
			return nil, invalid(id, "method must be a string")
		}
		if idOK && id == nil {
			return nil, invalid(nil, "id must be a string or an integer")
		}
		if p, ok := fields["params"]; ok && !isStructured(p) {
			return nil, invalid(id, "params must be an object or an array")
		}
	} else {
		_, hasResult := fields["result"]
		_, hasError := fields["error"]
		if id == nil || hasResult == hasError {
			return nil, invalid(id, "a message without a method must be a response: an id and either result or error")
		}
	}
	msg, err := jsonrpc.DecodeMessage(trimmed)
	if err != nil {
		return nil, invalid(id, err.Error())
	}
	return msg, nil
}

// validID reports an id the server can answer with as it was sent: a
// string, an integer that survives a float64 (the SDK decodes ids as
// float64), or null.
func validID(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return false
	}
	switch raw[0] {
	case '"':
		var s string
		return json.Unmarshal(raw, &s) == nil
	case 'n':
		return string(raw) == "null"
	}
	n, err := strconv.ParseInt(string(raw), 10, 64)
	return err == nil && n > -(1<<53) && n < 1<<53
}

func isStructured(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && (raw[0] == '{' || raw[0] == '[')
}

// depth is how deeply line nests arrays and objects, counting brackets
// outside strings; it stops counting once past maxDepth.
func depth(line []byte) int {
	d, most := 0, 0
	inString, escaped := false, false
	for _, b := range line {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case b == '\\':
				escaped = true
			case b == '"':
				inString = false
			}
		case b == '"':
			inString = true
		case b == '[' || b == '{':
			d++
			if d > most {
				most = d
				if most > maxDepth {
					return most
				}
			}
		case b == ']' || b == '}':
			d--
		}
	}
	return most
}

// reject answers a refused line with a JSON-RPC error and logs why (not
// the line: it may hold what the user would not want in a log).
func (c *lineConn) reject(id json.RawMessage, code int64, msg string) {
	if id == nil {
		id = json.RawMessage("null")
	}
	data, err := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   jsonrpc.Error   `json:"error"`
	}{"2.0", id, jsonrpc.Error{Code: code, Message: msg}})
	if err != nil {
		return
	}
	c.s.log.Warn("refused a message", "code", code, "why", msg)
	c.writeLine(data)
}

func (c *lineConn) writeLine(data []byte) error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	_, err := c.out.Write(append(data, '\n'))
	return err
}

// Read returns the next valid message, or the error that ended the input
// once every request read has been answered.
func (c *lineConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case r := <-c.incoming:
		return r.msg, r.err
	case <-c.closed:
		return nil, io.EOF
	}
}

// Write writes one message on its own line.
func (c *lineConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return fmt.Errorf("encode message: %w", err)
	}
	if err := c.writeLine(data); err != nil {
		return err
	}
	if resp, ok := msg.(*jsonrpc.Response); ok && resp.ID.IsValid() {
		c.answers.Add(1)
	}
	return nil
}

// Close ends the session; the input is not closed (it is the process's
// stdin, or the caller's).
func (c *lineConn) Close() error {
	c.once.Do(func() { close(c.closed) })
	return nil
}

func (c *lineConn) SessionID() string { return "" }
