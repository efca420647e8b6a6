package mcpserver

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/reflectkb/reflect/index"
	"github.com/reflectkb/reflect/store"
)

// resourcePrefix is the URI of a learning less its id.
const resourcePrefix = "reflect://learning/"

// resourcePage is how many learnings one resources/list answer holds; a
// client pages through the rest with the cursor.
const resourcePage = 500

func resourceURI(id string) string { return resourcePrefix + id }

// addResources serves every learning as reflect://learning/<id> (its
// markdown file as written). The list is read from the index at each
// resources/list, through a middleware, rather than registered one by
// one: learnings come and go with other processes (the drainer, the
// hooks, the user), and a start-up that registered 10,000 of them would
// delay the first answer.
func (s *Server) addResources() {
	s.sdk.AddResourceTemplate(&mcp.ResourceTemplate{
		Name:        "learning",
		Title:       "A learning",
		URITemplate: resourcePrefix + "{id}",
		Description: "One learning of the knowledge base as markdown with YAML frontmatter.",
		MIMEType:    "text/markdown",
	}, s.readResource)
	s.sdk.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			start := time.Now()
			s.inflight.Add(1)
			defer s.inflight.Add(-1)
			var res mcp.Result
			var err error
			if method == "resources/list" {
				res, err = s.listResources(ctx, req.(*mcp.ListResourcesRequest))
			} else {
				res, err = next(ctx, method, req)
			}
			s.logCall(method, req, res, err, time.Since(start))
			return res, err
		}
	})
}

// logCall writes one line per request to the log: which tool, how long,
// and the error a model was given, so that a misbehaving agent can be
// understood after the fact. Arguments are not logged: they may hold
// what the user would not want in a log.
func (s *Server) logCall(method string, req mcp.Request, res mcp.Result, err error, took time.Duration) {
	attrs := []any{"method", method, "ms", float64(took.Microseconds()) / 1000}
	if ct, ok := req.(*mcp.CallToolRequest); ok && ct.Params != nil {
		attrs = append(attrs, "tool", ct.Params.Name)
	}
	if r, ok := res.(*mcp.CallToolResult); ok && r != nil && r.IsError {
		if len(r.Content) > 0 {
			if t, ok := r.Content[0].(*mcp.TextContent); ok {
				attrs = append(attrs, "tool_error", t.Text)
			}
		}
	}
	if err != nil {
		s.log.Warn("request failed", append(attrs, "err", err)...)
		return
	}
	s.log.Info("request", attrs...)
}

func (s *Server) listResources(ctx context.Context, req *mcp.ListResourcesRequest) (*mcp.ListResourcesResult, error) {
	offset := 0
	if req != nil && req.Params != nil && req.Params.Cursor != "" {
		n, err := strconv.Atoi(req.Params.Cursor)
		if err != nil || n < 0 {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "invalid cursor " + strconv.Quote(req.Params.Cursor)}
		}
		offset = n
	}
	out := &mcp.ListResourcesResult{Resources: []*mcp.Resource{}}
	err := s.withIndex(ctx, func(ix *index.Index) error {
		// List orders by update time: a page boundary may shift when a
		// learning is updated between pages, as with any live listing.
		items, err := ix.List(ctx, index.ListOptions{Limit: offset + resourcePage + 1})
		if err != nil {
			return err
		}
		if offset < len(items) {
			items = items[offset:]
		} else {
			items = nil
		}
		if len(items) > resourcePage {
			items = items[:resourcePage]
			out.NextCursor = strconv.Itoa(offset + resourcePage)
		}
		for _, r := range items {
			desc := r.KeyInsight
			if desc == "" {
				desc = r.Snippet
			}
			out.Resources = append(out.Resources, &mcp.Resource{
				URI: resourceURI(r.ID), Name: r.ID, Title: line(r.Title),
				Description: line(desc), MIMEType: "text/markdown",
			})
		}
		return nil
	})
	return out, err
}

// readResource serves a learning's file as written, if the index holds
// the id (see servable), read by the store's bounded reader, redacted and
// neutralised for the model (see block).
func (s *Server) readResource(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	id, ok := strings.CutPrefix(uri, resourcePrefix)
	if !ok || !store.ValidID(id) {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	var data []byte
	err := s.withIndex(ctx, func(ix *index.Index) error {
		if err := servable(ctx, ix, id); err != nil {
			return err
		}
		var err error
		data, err = ix.Store().ReadRaw(id)
		return err
	})
	if err != nil {
		s.log.Warn("resource not served", "uri", uri, "err", err)
		return nil, mcp.ResourceNotFoundError(uri)
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{
		URI: uri, MIMEType: "text/markdown", Text: block(string(data)),
	}}}, nil
}
