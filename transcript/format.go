package transcript

// format is one agent's transcript format: its harness name, how surely
// a record is one of its records, and its parser. Each lives in the
// agent's file (claude.go, codex.go, …); formats lists them.
type format struct {
	name string
	// detect ranks how surely a record is this format's, 0 when it is
	// not: sureFormat for markers no other format has, a record type of
	// its own (byType), a shape (byShape), a field others share too
	// (byField). The highest rank wins.
	detect func(p *probe) int
	// parser returns the function that takes each record and, when the
	// format holds state until the end of the file, the one that flushes
	// it (nil when none).
	parser func(b *builder) (line func([]byte), end func())
}

// The ranks a format's detect returns.
const (
	byField = 1 + iota
	byShape
	byType
	sureFormat
)

// formats are the transcript formats Condense reads, in the order of
// agents.Registry (agents/registry_test.go holds them to it).
var formats = []format{claudeFormat, codexFormat, geminiFormat, openCodeFormat, copilotFormat}

// Formats are the harness names Condense reads.
func Formats() []string {
	names := make([]string, len(formats))
	for i, f := range formats {
		names[i] = f.name
	}
	return names
}

func formatOf(name string) (format, bool) {
	for _, f := range formats {
		if f.name == name {
			return f, true
		}
	}
	return format{}, false
}
