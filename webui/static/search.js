// Search as you type: each change asks /api/search (debounced, the
// previous request aborted) and renders the results with DOM text nodes,
// never innerHTML, so learning text is shown as text.
(function () {
  "use strict";
  const form = document.getElementById("search");
  const q = document.getElementById("q");
  const status = document.getElementById("status");
  const list = document.getElementById("results");
  const explain = document.getElementById("f-explain");
  let timer = 0, inflight = null, seq = 0, notice = "";

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function params() {
    const p = new URLSearchParams();
    p.set("q", q.value.trim());
    for (const name of ["project", "type", "confidence", "tag"]) {
      const v = form.elements[name].value.trim();
      if (v) p.set(name, v);
    }
    if (form.elements.stale.checked) p.set("stale", "1");
    return p;
  }

  function render(data, my) {
    if (my !== seq) return;
    list.replaceChildren();
    const n = data.results.length;
    status.textContent = notice + (data.recent
      ? (n ? "Most recently updated learnings" : "The knowledge base is empty.")
      : (n ? n + (n === 1 ? " result" : " results") : "No learnings match. Try fewer or other words."));
    notice = "";
    for (const r of data.results) {
      const li = el("li", "result");
      li.dataset.id = r.id;
      const a = el("a", "title", r.title);
      a.href = "/learning/" + encodeURIComponent(r.id);
      li.append(a, " ", el("span", "badge " + r.confidence, r.confidence), " ", el("code", "", r.short_id));
      if (r.project) li.append(" ", el("span", "muted", r.project));
      if (r.weak) li.append(" ", el("span", "weak", "(weak match)"));
      if (r.snippet) li.append(el("div", "snippet", r.snippet));
      if (r.stale) li.append(el("div", "stale", "⚠ may be stale: " + (r.stale_files || []).join(", ") + " changed since this was learned"));
      if (explain.checked && r.explain) li.append(el("div", "why", "why: " + r.explain));
      list.append(li);
    }
    document.body.dataset.searched = String(my);
    // Marks for the benchmarks (docs/benchmarks.md): when results showed.
    performance.mark("reflect-results");
  }

  function run() {
    const my = ++seq;
    if (inflight) inflight.abort();
    inflight = new AbortController();
    const p = params();
    history.replaceState(null, "", "/?" + p.toString());
    fetch("/api/search?" + p.toString(), { signal: inflight.signal, credentials: "same-origin" })
      .then((r) => r.json().then((d) => { if (!r.ok) throw new Error(d.error || r.statusText); return d; }))
      .then((d) => render(d, my))
      .catch((e) => { if (e.name !== "AbortError") status.textContent = "Search failed: " + e.message; });
  }

  function later() { clearTimeout(timer); timer = setTimeout(run, 120); }

  form.addEventListener("submit", (e) => { e.preventDefault(); run(); });
  form.addEventListener("input", later);
  form.addEventListener("change", later);

  const start = new URLSearchParams(location.search);
  for (const name of ["q", "project", "type", "confidence", "tag"]) {
    if (start.get(name)) form.elements[name].value = start.get(name);
  }
  if (start.get("stale") === "1") form.elements.stale.checked = true;
  if (start.get("forgot")) notice = "Forgot " + start.get("forgot") + ". ";
  run();
})();
