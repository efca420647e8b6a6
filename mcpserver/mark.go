package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/reflectkb/reflect/index"
	"github.com/reflectkb/reflect/knowledge"
	"github.com/reflectkb/reflect/store"
)

// MarkInput is the mark tool's arguments.
type MarkInput struct {
	ID   string `json:"id" jsonschema:"a learning id (lrn-…), a unique prefix of one, or its 6-hex suffix"`
	Mark string `json:"mark" jsonschema:"helpful (it helped: raised in recall), wrong or outdated (it misled: no longer injected by hooks), never (do not inject it again)"`
}

// MarkOutput says what mark recorded.
type MarkOutput struct {
	ID       string         `json:"id"`
	Feedback store.Feedback `json:"feedback" jsonschema:"the learning's mark counts"`
	Held     string         `json:"held,omitempty" jsonschema:"why hooks no longer inject it (search still finds it)"`
}

var markTool = &mcp.Tool{
	Name:  "mark",
	Title: "Mark a learning helpful or wrong",
	Description: "Tell reflect whether a learning helped, as `reflect mark` does: helpful raises it in search and recall; " +
		"wrong, outdated or never keep it out of what the hooks inject (search still finds it, marked). " +
		"Use wrong when a recalled learning misled you, outdated when the code moved on. The user can clear marks with `reflect mark ID clear`.",
	Annotations: &mcp.ToolAnnotations{DestructiveHint: boolPtr(false), OpenWorldHint: boolPtr(false)},
}

func (s *Server) mark(ctx context.Context, _ *mcp.CallToolRequest, in MarkInput) (*mcp.CallToolResult, MarkOutput, error) {
	if err := checkSize(map[string]string{"id": in.ID, "mark": in.Mark}); err != nil {
		return nil, MarkOutput{}, err
	}
	// clear stays the user's: a model should not undo the user's marks.
	if !(&store.Feedback{}).Add(strings.TrimSpace(in.Mark)) {
		return nil, MarkOutput{}, fmt.Errorf("mark %q: use helpful, wrong, outdated or never", in.Mark)
	}
	var out MarkOutput
	err := s.withIndex(ctx, func(ix *index.Index) error {
		l, err := readLearning(ctx, ix, in.ID)
		if err != nil {
			return err
		}
		m, err := knowledge.New(ix).Mark(ctx, l.ID, strings.TrimSpace(in.Mark))
		if m != nil {
			out = MarkOutput{ID: m.ID, Feedback: *m.Feedback, Held: m.Held()}
		}
		if errors.Is(err, index.ErrBusy) && m != nil {
			s.log.Warn("mark: saved, not indexed yet", "id", l.ID, "err", err)
			return nil
		}
		return err
	})
	return nil, out, err
}
