// reflect for OpenCode — written by `reflect install opencode`; `reflect
// uninstall opencode` removes it. Edits are overwritten on the next install.
//
// OpenCode has no shell hooks: this plugin runs `reflect hook EVENT --agent
// opencode` with a JSON payload on stdin, as Claude Code and Codex do, and
// adds what reflect recalls to the prompt as a synthetic text part. Every
// failure is swallowed: memory must never break a session.
import { spawn } from "node:child_process";

const REFLECT = "@REFLECT@";
const TIMEOUTS = { "session-start": 10000, prompt: 5000, "pre-tool": 5000, "post-tool": 5000, "pre-compact": 10000, stop: 10000 };
// A pre-tool warning waits for its call's result, which is the only text of
// a tool call the model reads; warnings of calls that never finish are
// dropped past this many.
const MAX_WARNINGS = 64;
// Tool output sent with a session is cut to this many characters, and
// any other text of a part to MAX_TEXT: the drainer condenses it further,
// and the payload stays small.
const MAX_OUTPUT = 4000;
const MAX_TEXT = 100000;
// MAX_PAYLOAD bounds the bytes of one hook call's messages, under the 8 MiB
// reflect reads: a larger session goes in several parts, and a single
// message larger than this (after clipping) is left out and counted.
const MAX_PAYLOAD = 6 * 1024 * 1024;

function hook(event, payload) {
  return call(event, payload).then((r) => r.text);
}

// call runs the hook and resolves to {text, ok}: ok when reflect ran to the
// end (it exits 0 whatever it was fed), so the caller knows the payload
// was handed over.
function call(event, payload) {
  return new Promise((resolve) => {
    let out = "";
    let child;
    try {
      child = spawn(REFLECT, ["hook", event, "--agent", "opencode"], {
        stdio: ["pipe", "pipe", "ignore"],
        env: { ...process.env, GOMAXPROCS: "1" },
      });
    } catch {
      resolve({ text: "", ok: false });
      return;
    }
    const timer = setTimeout(() => {
      try { child.kill("SIGKILL"); } catch {}
      resolve({ text: "", ok: false });
    }, TIMEOUTS[event] ?? 5000);
    child.stdout.on("data", (d) => { out += d; });
    child.on("error", () => { clearTimeout(timer); resolve({ text: "", ok: false }); });
    child.on("close", (code) => {
      clearTimeout(timer);
      let text = "";
      try { text = JSON.parse(out)?.hookSpecificOutput?.additionalContext ?? ""; } catch {}
      resolve({ text, ok: code === 0 });
    });
    child.stdin.on("error", () => {});
    child.stdin.end(JSON.stringify(payload));
  });
}

// partID makes an id in OpenCode's format (prt_ + 12 hex of time + 14
// random), later than the prompt's own parts so it sorts after them.
function partID() {
  const t = (BigInt(Date.now()) * 4096n + 4095n).toString(16).padStart(12, "0").slice(-12);
  const abc = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
  let r = "";
  for (let i = 0; i < 14; i++) r += abc[Math.floor(Math.random() * abc.length)];
  return "prt_" + t + r;
}

function clip(messages) {
  for (const m of messages ?? []) {
    for (const p of m.parts ?? []) {
      const st = p.state;
      if (st && typeof st.output === "string" && st.output.length > MAX_OUTPUT) st.output = st.output.slice(0, MAX_OUTPUT);
      if (st?.metadata && typeof st.metadata.output === "string") delete st.metadata.output;
      if (typeof p.text === "string" && p.text.length > MAX_TEXT) p.text = p.text.slice(0, MAX_TEXT);
    }
  }
  return messages ?? [];
}

// parts splits messages[from:] into runs of at most MAX_PAYLOAD bytes of
// JSON. A message larger than that alone is replaced by a stub saying so
// (and counted), which keeps one line per message in reflect's copy.
function parts(messages, from) {
  const out = [];
  let cur = { first: from, messages: [], bytes: 0 };
  let skipped = 0;
  for (let i = from; i < messages.length; i++) {
    let m = messages[i];
    let n = Buffer.byteLength(JSON.stringify(m));
    if (n > MAX_PAYLOAD) {
      skipped++;
      m = { info: m.info, parts: [{ type: "text", text: `[a message of ${n} bytes, over reflect's cap, was left out]` }] };
      n = Buffer.byteLength(JSON.stringify(m));
    }
    if (cur.messages.length && cur.bytes + n > MAX_PAYLOAD) {
      out.push(cur);
      cur = { first: i, messages: [], bytes: 0 };
    }
    cur.messages.push(m);
    cur.bytes += n;
  }
  if (cur.messages.length) out.push(cur);
  return { out, skipped };
}

// DISPOSE_WAIT caps how long OpenCode's exit waits for stop hooks still
// running (each is already bounded by its own timeout).
const DISPOSE_WAIT = 15000;

export const ReflectPlugin = async ({ client, directory }) => {
  const started = new Set();
  const source = new Map();
  const warnings = new Map();
  // OpenCode calls the event hook without awaiting it, and `opencode run`
  // exits as soon as the session's status turns idle: the session.idle stop
  // hook races the exit and, on a busy machine, lost (nothing queued). Exit
  // does await dispose, so the stop hooks in flight are kept here for it.
  const inFlight = new Set();
  const track = (p) => {
    inFlight.add(p);
    const done = () => inFlight.delete(p);
    p.then(done, done);
    return p;
  };
  // sent holds, per session, how many messages reflect has saved and the
  // id of the last: each idle sends only the messages after them, and the
  // last one again (it may have grown since), instead of the whole session
  // every time. A session that no longer has that message there (reverted,
  // shortened) is sent whole.
  const sent = new Map();
  const session = async (event, sessionID, extra) => {
    let messages = [];
    try { messages = clip((await client.session.messages({ path: { id: sessionID } })).data); } catch {}
    if (!messages.length) return;
    const prev = sent.get(sessionID) ?? { n: 0, id: undefined };
    let from = Math.max(0, prev.n - 1);
    if (from >= messages.length || prev.n > 0 && messages[from]?.info?.id !== prev.id) from = 0;
    const { out, skipped } = parts(messages, from);
    for (let i = 0; i < out.length; i++) {
      const more = i < out.length - 1;
      const r = await call(event, {
        session_id: sessionID, cwd: directory, hook_event_name: event, messages: out[i].messages,
        first_message: out[i].first, more, skipped: more ? 0 : skipped, ...extra,
      });
      if (!r.ok) return; // sent stays: the next idle sends this part again
      const n = out[i].first + out[i].messages.length;
      sent.set(sessionID, { n, id: messages[n - 1]?.info?.id });
    }
  };
  return {
    dispose: async () => {
      let timer;
      const cap = new Promise((resolve) => { timer = setTimeout(resolve, DISPOSE_WAIT); });
      try { await Promise.race([Promise.allSettled([...inFlight]), cap]); } catch {}
      clearTimeout(timer);
    },
    "chat.message": async (input, output) => {
      try {
        const sid = input.sessionID;
        const prompt = (output.parts ?? []).filter((p) => p.type === "text" && !p.synthetic).map((p) => p.text).join("\n");
        const add = [];
        if (!started.has(sid)) {
          started.add(sid);
          add.push(await hook("session-start", { session_id: sid, cwd: directory, hook_event_name: "SessionStart", source: source.get(sid) ?? "startup" }));
        }
        add.push(await hook("prompt", { session_id: sid, cwd: directory, hook_event_name: "UserPromptSubmit", prompt }));
        for (const text of add) {
          if (text) output.parts.push({ id: partID(), sessionID: sid, messageID: output.message.id, type: "text", text, synthetic: true });
        }
      } catch {}
    },
    // OpenCode gives tool.execute.before no way to talk to the model: the
    // warning is kept and put before the command's output, which it reads.
    "tool.execute.before": async (input, output) => {
      try {
        if (input.tool !== "bash") return;
        const text = await hook("pre-tool", {
          session_id: input.sessionID, cwd: directory, hook_event_name: "PreToolUse", tool_name: "bash", tool_input: output?.args ?? {},
        });
        if (!text) return;
        if (warnings.size >= MAX_WARNINGS) warnings.delete(warnings.keys().next().value);
        warnings.set(input.callID, text);
      } catch {}
    },
    "tool.execute.after": async (input, output) => {
      try {
        if (input.tool !== "bash") return;
        const result = output?.output ?? "";
        const warning = warnings.get(input.callID);
        warnings.delete(input.callID);
        if (warning && typeof output?.output === "string") output.output = warning + "\n\n" + output.output;
        await hook("post-tool", {
          session_id: input.sessionID, cwd: directory, hook_event_name: "PostToolUse", tool_name: "bash",
          tool_input: input.args ?? {}, tool_response: { exit_code: output?.metadata?.exit, output: result },
        });
      } catch {}
    },
    "experimental.session.compacting": async (input) => {
      try { await session("pre-compact", input.sessionID, { trigger: "auto" }); } catch {}
    },
    event: async ({ event }) => {
      try {
        if (event.type === "session.idle") await track(session("stop", event.properties.sessionID, {}));
        if (event.type === "session.compacted") {
          // The model lost what was injected: recall again on the next prompt.
          started.delete(event.properties.sessionID);
          source.set(event.properties.sessionID, "compact");
        }
      } catch {}
    },
  };
};
