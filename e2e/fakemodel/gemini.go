package fakemodel

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// ---------------------------------------------------------------- Gemini API

// geminiRequest is the part of a generateContent request the fake reads.
// Gemini CLI sends tool results back as user-role contents whose parts are
// functionResponse objects.
type geminiRequest struct {
	Contents []geminiContent `json:"contents"`
	Tools    []struct {
		FunctionDeclarations []struct {
			Name string `json:"name"`
		} `json:"functionDeclarations"`
	} `json:"tools"`
	GenerationConfig struct {
		ResponseMimeType string `json:"responseMimeType"`
	} `json:"generationConfig"`
}

type geminiContent struct {
	Role  string       `json:"role"`
	Parts []geminiPart `json:"parts"`
}

type geminiPart struct {
	Text             string          `json:"text,omitempty"`
	FunctionCall     json.RawMessage `json:"functionCall,omitempty"`
	FunctionResponse json.RawMessage `json:"functionResponse,omitempty"`
}

// geminiShellTool is Gemini CLI's shell tool.
const geminiShellTool = "run_shell_command"

// geminiMethod returns the method of a Gemini API model call
// (generateContent, streamGenerateContent, countTokens, …) for a path such
// as /v1beta/models/gemini-2.5-pro:streamGenerateContent, and "" for any
// other path.
func geminiMethod(path string) string {
	i := strings.Index(path, "/models/")
	if i < 0 {
		return ""
	}
	_, method, _ := strings.Cut(path[i+len("/models/"):], ":")
	return method
}

func (c geminiContent) text() string {
	var parts []string
	for _, p := range c.Parts {
		if p.Text != "" {
			parts = append(parts, p.Text)
		}
	}
	return strings.Join(parts, "\n")
}

func (c geminiContent) results() int {
	n := 0
	for _, p := range c.Parts {
		if len(p.FunctionResponse) > 0 {
			n++
		}
	}
	return n
}

// decideGemini reads the state from the last user content that carries
// text rather than function responses: the prompt, with the hooks' context
// around it, and the tool results that followed it.
func decideGemini(req geminiRequest) decision {
	last := -1
	for i, c := range req.Contents {
		if c.Role == "user" && c.results() == 0 && c.text() != "" {
			last = i
		}
	}
	if last < 0 {
		return decision{kind: "text", text: "OK (fake model): no prompt."}
	}
	prompt := req.Contents[last].text()
	if isWriterPrompt(prompt) {
		return decision{kind: "writer", text: writerAnswer(prompt)}
	}
	results := 0
	for _, c := range req.Contents[last+1:] {
		results += c.results()
	}
	offered := map[string]bool{}
	for _, t := range req.Tools {
		for _, f := range t.FunctionDeclarations {
			offered[f.Name] = true
		}
	}
	if d, ok := nextToolCall(prompt, results, offered); ok {
		return d
	}
	if cmds := script(prompt); offered[geminiShellTool] && results < len(cmds) {
		return decision{kind: "tool", tool: geminiShellTool, args: map[string]any{"command": cmds[results], "description": "Run the requested command"}}
	}
	if results > 0 {
		return decision{kind: "text", text: fmt.Sprintf("Ran %d command(s). Ending the turn.", results)}
	}
	return decision{kind: "text", text: "OK (fake model): I read your prompt and have nothing to run."}
}

// geminiResponse is one GenerateContentResponse: the whole answer, or one
// chunk of a stream (the fake sends the answer as a single chunk).
func geminiResponse(d decision) map[string]any {
	part := map[string]any{"text": d.text}
	if d.kind == "tool" {
		part = map[string]any{"functionCall": map[string]any{"name": d.tool, "args": d.args}}
	}
	return map[string]any{
		"candidates": []any{map[string]any{
			"content":      map[string]any{"role": "model", "parts": []any{part}},
			"finishReason": "STOP",
			"index":        0,
		}},
		"usageMetadata": map[string]any{"promptTokenCount": 100, "candidatesTokenCount": 20, "totalTokenCount": 120},
		"modelVersion":  "gemini-fake",
	}
}

// serveGemini answers a Gemini API model call. A request for JSON output
// (Gemini CLI's model router and next-speaker check) gets "{}", which the
// client treats as no advice and falls back to its defaults.
func (s *Server) serveGemini(w http.ResponseWriter, method string, body []byte, rec Request) {
	var req geminiRequest
	_ = json.Unmarshal(body, &req)
	switch {
	case method == "countTokens":
		rec.Reply = "count_tokens"
		s.record(rec)
		writeJSON(w, map[string]any{"totalTokens": 100})
		return
	case method == "embedContent" || method == "batchEmbedContents":
		rec.Reply = "{}"
		s.record(rec)
		writeJSON(w, map[string]any{})
		return
	}
	d := decideGemini(req)
	if req.GenerationConfig.ResponseMimeType == "application/json" && d.kind != "writer" {
		d = decision{kind: "json", text: "{}"}
	}
	rec.Reply = d.kind
	s.record(rec)
	if method == "streamGenerateContent" {
		sseHeaders(w)
		b, _ := json.Marshal(geminiResponse(d))
		fmt.Fprintf(w, "data: %s\n\n", b)
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
		return
	}
	writeJSON(w, geminiResponse(d))
}
