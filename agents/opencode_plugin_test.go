package agents

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
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
	if err := os.WriteFile(stub, []byte(script), 0o755); err != nil {
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
