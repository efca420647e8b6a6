package agents

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reflectkb/reflect/internal/testfs"
)

// The plugin reflect installs into OpenCode, run under node with a stub
// OpenCode (its hook inputs as opencode-ai 1.18.33 passes them) and a stub
// reflect that records what it is sent: the first prompt of a session
// runs session-start then prompt, later prompts only prompt, answers
// become synthetic text parts with OpenCode part ids, a failed bash call
// sends its exit code, session.idle sends the session's messages, and a
// reflect that fails or prints garbage changes nothing.
func TestOpenCodePluginUnderNode(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "calls.log")
	script := "#!/bin/sh\n{ printf '%s ' \"$2\"; cat; echo; } >> '" + log + "'\n" +
		"[ -e '" + filepath.Join(dir, "broken") + "' ] && { echo 'not json'; exit 1; }\n" +
		"case $2 in prompt|session-start) printf '{\"hookSpecificOutput\":{\"hookEventName\":\"X\",\"additionalContext\":\"CTX-%s\"}}\\n' \"$2\";; esac\n"
	got := runPluginDriver(t, dir, script, `import { ReflectPlugin } from "./reflect.mjs";
import { writeFileSync } from "node:fs";
const client = { session: { messages: async () => ({ data: [{ info: { role: "user" }, parts: [{ type: "text", text: "fix it" }] }] }) } };
const hooks = await ReflectPlugin({ client, directory: "/repo" });
const first = { message: { id: "msg_1" }, parts: [{ type: "text", text: "fix it" }] };
await hooks["chat.message"]({ sessionID: "ses_1" }, first);
const second = { message: { id: "msg_2" }, parts: [{ type: "text", text: "again" }, { type: "text", text: "old", synthetic: true }] };
await hooks["chat.message"]({ sessionID: "ses_1" }, second);
await hooks["tool.execute.after"]({ tool: "bash", sessionID: "ses_1", args: { command: "ls /x" } }, { output: "ls: no", metadata: { exit: 2 } });
await hooks["tool.execute.after"]({ tool: "read", sessionID: "ses_1", args: {} }, { output: "x" });
await hooks.event({ event: { type: "session.idle", properties: { sessionID: "ses_1" } } });
writeFileSync("`+filepath.Join(dir, "broken")+`", "");
const third = { message: { id: "msg_3" }, parts: [{ type: "text", text: "more" }] };
await hooks["chat.message"]({ sessionID: "ses_1" }, third);
console.log(JSON.stringify({ first: first.parts, second: second.parts, third: third.parts }));
`)
	for _, want := range []string{
		`"text":"CTX-session-start","synthetic":true`, `"text":"CTX-prompt","synthetic":true`,
		`"messageID":"msg_1"`, `"id":"prt_`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("parts lack %s:\n%s", want, got)
		}
	}
	if strings.Count(got, "CTX-session-start") != 1 || strings.Count(got, "CTX-prompt") != 2 || !strings.Contains(got, `"third":[{"type":"text","text":"more"}]`) {
		t.Errorf("want session-start once, prompt on the first two prompts, nothing from a broken reflect:\n%s", got)
	}
	calls, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	var events []string
	for _, l := range strings.Split(strings.TrimSpace(string(calls)), "\n") {
		ev, payload, _ := strings.Cut(l, " ")
		events = append(events, ev)
		switch ev {
		case "prompt":
			if strings.Contains(payload, "old") || !strings.Contains(payload, `"session_id":"ses_1"`) || !strings.Contains(payload, `"cwd":"/repo"`) {
				t.Errorf("prompt payload %s", payload)
			}
		case "post-tool":
			if !strings.Contains(payload, `"tool_input":{"command":"ls /x"}`) || !strings.Contains(payload, `"exit_code":2`) {
				t.Errorf("post-tool payload %s", payload)
			}
		case "stop":
			if !strings.Contains(payload, `"messages":[{"info":{"role":"user"}`) {
				t.Errorf("stop payload %s", payload)
			}
		}
	}
	if strings.Join(events, ",") != "session-start,prompt,prompt,post-tool,stop,prompt" {
		t.Errorf("reflect ran %q", events)
	}
}

// OpenCode fires session.idle without awaiting the plugin and `opencode
// run` exits right after, awaiting only the plugin's dispose: dispose must
// return only once the stop hook in flight has handed reflect its payload.
// The stub reflect takes a while to answer, as it does on a busy machine.
func TestOpenCodePluginDisposeWaitsForStop(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "calls.log")
	out := runPluginDriver(t, dir, "#!/bin/sh\nsleep 1\n{ printf '%s ' \"$2\"; cat; echo; } >> '"+log+"'\n", `import { ReflectPlugin } from "./reflect.mjs";
import { existsSync, readFileSync } from "node:fs";
const client = { session: { messages: async () => ({ data: [{ info: { role: "user" }, parts: [{ type: "text", text: "fix it" }] }] }) } };
const hooks = await ReflectPlugin({ client, directory: "/repo" });
hooks.event({ event: { type: "session.idle", properties: { sessionID: "ses_1" } } });
await hooks.dispose();
const log = `+"`"+log+"`"+`;
console.log(existsSync(log) ? readFileSync(log, "utf8") : "NOTHING LOGGED");
`)
	if !strings.HasPrefix(out, `stop {"session_id":"ses_1"`) {
		t.Errorf("when dispose returned, reflect had logged:\n%s", out)
	}
}

// runPluginDriver writes the plugin, running the stub reflect script, into
// dir as reflect.mjs, and runs driver (an ES module importing it) under
// node; it returns what node printed. Without node the test is skipped.
func runPluginDriver(t *testing.T, dir, script, driver string) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed")
	}
	stub := filepath.Join(dir, "reflect")
	if err := testfs.WriteExecutable(stub, []byte(script)); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "reflect.mjs"), openCodePluginFor(stub), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "driver.mjs"), []byte(driver), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, "driver.mjs")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, out)
	}
	return string(out)
}

// A session over reflect's 8 MiB payload cap goes in parts under it, the
// last one unflagged; the next idle sends only the last message again and
// the new ones; a message too large alone becomes a counted stub (issue
// 27: such sessions were never captured, and every idle resent everything).
func TestOpenCodePluginLargeSessionInParts(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "calls.log")
	script := "#!/bin/sh\n{ printf '%s ' \"$2\"; cat; echo; } >> '" + log + "'\n"
	runPluginDriver(t, dir, script, `import { ReflectPlugin } from "./reflect.mjs";
const big = "x".repeat(90000);
const msgs = [];
for (let i = 0; i < 100; i++) msgs.push({ info: { id: "m" + i, role: "user" }, parts: [{ type: "text", text: big }] });
// One message of 70 parts of 100,000 characters: 7 MB alone.
msgs.push({ info: { id: "huge", role: "assistant" }, parts: Array.from({ length: 70 }, () => ({ type: "text", text: "y".repeat(200000) })) });
const client = { session: { messages: async () => ({ data: structuredClone(msgs) }) } };
const hooks = await ReflectPlugin({ client, directory: "/repo" });
await hooks.event({ event: { type: "session.idle", properties: { sessionID: "ses_1" } } });
msgs.push({ info: { id: "m101", role: "user" }, parts: [{ type: "text", text: "new" }] });
await hooks.event({ event: { type: "session.idle", properties: { sessionID: "ses_1" } } });
// A revert drops the last messages and the session goes on: sent whole.
const small = { data: [{ info: { id: "r0", role: "user" }, parts: [{ type: "text", text: "a" }] }, { info: { id: "r1", role: "user" }, parts: [{ type: "text", text: "b" }] }] };
client.session.messages = async () => structuredClone(small);
const other = await ReflectPlugin({ client, directory: "/repo" });
await other.event({ event: { type: "session.idle", properties: { sessionID: "ses_2" } } });
small.data[1] = { info: { id: "r1-reverted", role: "user" }, parts: [{ type: "text", text: "c" }] };
small.data.push({ info: { id: "r2", role: "user" }, parts: [{ type: "text", text: "d" }] });
await other.event({ event: { type: "session.idle", properties: { sessionID: "ses_2" } } });
`)
	data, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	type call struct {
		First    int  `json:"first_message"`
		More     bool `json:"more"`
		Skipped  int  `json:"skipped"`
		Messages []struct {
			Info struct{ ID string } `json:"info"`
		} `json:"messages"`
	}
	var calls, ses2 []call
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		ev, payload, _ := strings.Cut(l, " ")
		if ev != "stop" {
			t.Fatalf("reflect ran %q", ev)
		}
		if len(payload) > 8<<20 {
			t.Errorf("a payload of %d bytes, over reflect's 8 MiB", len(payload))
		}
		var c call
		if err := json.Unmarshal([]byte(payload), &c); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(payload, `"session_id":"ses_2"`) {
			ses2 = append(ses2, c)
		} else {
			calls = append(calls, c)
		}
	}
	if len(ses2) != 2 || ses2[1].First != 0 || len(ses2[1].Messages) != 3 {
		t.Errorf("after a revert the session was not sent whole: %+v", ses2)
	}
	if len(calls) < 3 {
		t.Fatalf("%d calls, want the session in at least two parts and then an increment", len(calls))
	}
	next := 0
	first := calls[:len(calls)-1]
	for i, c := range first {
		if c.First != next || c.More != (i < len(first)-1) {
			t.Errorf("part %d: first_message %d (want %d), more %v", i, c.First, next, c.More)
		}
		next += len(c.Messages)
	}
	if next != 101 || first[len(first)-1].Skipped != 1 {
		t.Errorf("parts carried %d messages (want 101), last skipped=%d (want 1)", next, first[len(first)-1].Skipped)
	}
	last := calls[len(calls)-1]
	if last.First != 100 || len(last.Messages) != 2 || last.Messages[0].Info.ID != "huge" || last.Messages[1].Info.ID != "m101" || last.More {
		t.Errorf("increment: %+v, want messages 100 and 101 only", last)
	}
}

// tool.execute.before sends a bash call to pre-tool; a warning it answers
// is put before that call's output (the text of a tool call the model
// reads), once, and the post-tool hook still gets the output as it was.
// Other tools, and calls with no warning, are left alone.
func TestOpenCodePluginPreTool(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "calls.log")
	script := "#!/bin/sh\n{ printf '%s ' \"$2\"; cat; echo; } >> '" + log + "'\n" +
		"[ \"$2\" = pre-tool ] && grep -q curl '" + log + "' && [ ! -e '" + filepath.Join(dir, "quiet") + "' ] && " +
		"printf '{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\"additionalContext\":\"WARN\"}}\\n'\nexit 0\n"
	got := runPluginDriver(t, dir, script, `import { ReflectPlugin } from "./reflect.mjs";
import { writeFileSync } from "node:fs";
const hooks = await ReflectPlugin({ client: { session: { messages: async () => ({ data: [] }) } }, directory: "/repo" });
const warned = { output: "curl: (60) SSL", metadata: { exit: 60 } };
await hooks["tool.execute.before"]({ tool: "bash", sessionID: "ses_1", callID: "call_1" }, { args: { command: "curl https://x" } });
await hooks["tool.execute.after"]({ tool: "bash", sessionID: "ses_1", callID: "call_1", args: { command: "curl https://x" } }, warned);
writeFileSync("`+filepath.Join(dir, "quiet")+`", "");
const plain = { output: "ok", metadata: { exit: 0 } };
await hooks["tool.execute.before"]({ tool: "bash", sessionID: "ses_1", callID: "call_2" }, { args: { command: "ls" } });
await hooks["tool.execute.after"]({ tool: "bash", sessionID: "ses_1", callID: "call_2", args: { command: "ls" } }, plain);
await hooks["tool.execute.before"]({ tool: "read", sessionID: "ses_1", callID: "call_3" }, { args: { filePath: "/x" } });
console.log(JSON.stringify({ warned: warned.output, plain: plain.output }));
`)
	if !strings.Contains(got, `"warned":"WARN\n\ncurl: (60) SSL"`) || !strings.Contains(got, `"plain":"ok"`) {
		t.Errorf("outputs after the hooks: %s", got)
	}
	calls, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	var events []string
	for _, l := range strings.Split(strings.TrimSpace(string(calls)), "\n") {
		ev, payload, _ := strings.Cut(l, " ")
		events = append(events, ev)
		if ev == "pre-tool" && (!strings.Contains(payload, `"tool_name":"bash"`) || !strings.Contains(payload, `"tool_input":{"command":`)) {
			t.Errorf("pre-tool payload %s", payload)
		}
		if ev == "post-tool" && strings.Contains(payload, "WARN") {
			t.Errorf("post-tool got the warning in the output: %s", payload)
		}
	}
	if strings.Join(events, ",") != "pre-tool,post-tool,pre-tool,post-tool" {
		t.Errorf("reflect ran %q", events)
	}
}
