// The entity graph with Cytoscape.js (vendored, see vendor/cytoscape):
// a bounded view from /api/graph, laid out by the server (webui/layout.go:
// no label covers another), coloured by community, or by type for
// entities not grouped yet, sized by degree.
// Click an entity to list its learnings; double-click to show its
// neighbourhood. Text reaches the page through textContent only.
(function () {
  "use strict";
  const typeColors = { tool: "#0b62d6", file: "#2da44e", error: "#b3261e", function: "#8250df", config: "#9a6700",
    concept: "#1b7c83", technology: "#d6620b", service: "#bf3989", library: "#57606a" };
  const palette = ["#0b62d6", "#d6620b", "#2da44e", "#b3261e", "#8250df", "#9a6700", "#1b7c83", "#bf3989", "#57606a", "#6e7781"];
  const status = document.getElementById("g-status");
  const panel = document.getElementById("g-panel");
  const typeSel = document.getElementById("g-type");
  let focus = 0;

  const cy = cytoscape({
    container: document.getElementById("cy"),
    wheelSensitivity: 0.3,
    // While panning and zooming, draw a cached texture without edges: it
    // keeps frames short on machines that render the canvas in software.
    textureOnViewport: true,
    hideEdgesOnViewport: true,
    pixelRatio: 1,
    minZoom: 0.05,
    maxZoom: 4,
    style: [
      { selector: "node", style: {
        "background-color": "data(color)", "label": "data(label)", "font-size": 9, "color": "#1d2125",
        "width": "data(size)", "height": "data(size)", "text-valign": "bottom", "text-margin-y": 2,
        "min-zoomed-font-size": 7 } },
      { selector: "node.focus", style: { "border-width": 3, "border-color": "#1d2125" } },
      { selector: "edge", style: { "width": "data(w)", "line-color": "#c5ccd3", "curve-style": "haystack", "opacity": 0.7 } },
    ],
  });
  window.reflectGraph = cy; // for the browser tests and benchmarks

  function el(tag, text) { const e = document.createElement(tag); if (text !== undefined) e.textContent = text; return e; }

  function load() {
    const p = new URLSearchParams();
    if (typeSel.value) p.set("type", typeSel.value);
    if (focus) p.set("focus", String(focus));
    status.textContent = "Loading…";
    document.body.dataset.graphReady = "";
    fetch("/api/graph?" + p.toString(), { credentials: "same-origin" })
      .then((r) => r.json().then((d) => { if (!r.ok) throw new Error(d.error || r.statusText); return d; }))
      .then(draw)
      .catch((e) => { status.textContent = "Could not load the graph: " + e.message; });
  }

  function draw(v) {
    const els = [];
    for (const n of v.nodes) {
      els.push({ group: "nodes", data: {
        id: "n" + n.id, eid: n.id, label: n.label, name: n.name, type: n.type, docs: n.documents,
        color: n.community > 0 ? palette[(n.community - 1) % palette.length] : (typeColors[n.type] || "#6e7781"),
        size: n.size }, position: { x: n.x, y: n.y }, classes: n.id === focus ? "focus" : "" });
    }
    for (const e of v.edges) {
      els.push({ group: "edges", data: { id: "e" + e.source + "_" + e.target, source: "n" + e.source, target: "n" + e.target,
        w: Math.min(6, 0.5 + Math.log1p(e.strength)) } });
    }
    cy.elements().remove();
    cy.add(els);
    const layout = cy.layout({ name: "preset", fit: false });
    layout.one("layoutstop", () => {
      cy.fit(undefined, 20);
      document.body.dataset.graphReady = String(v.nodes.length);
      performance.mark("reflect-graph-ready"); // for the benchmarks (docs/benchmarks.md)
    });
    layout.run();
    // A view leaves entities out (at most v.cap, of the largest
    // communities): say so, and how to see more.
    const what = focus ? "Neighbourhood: " + v.nodes.length + " entities, "
      : v.total > v.nodes.length ? "The " + v.nodes.length + " most mentioned of " + v.total + " entities (the largest communities, at most " + v.cap + "; double-click one for its neighbourhood), "
      : v.nodes.length + " entities, ";
    status.textContent = v.nodes.length
      ? what + v.edges.length + (v.edges_cut ? " strongest relations" : " relations")
      : "No entities to draw" + (v.total ? " with this filter" : " yet: add learnings, then run 'reflect reindex'") + ".";
  }

  cy.on("tap", "node", (evt) => {
    const d = evt.target.data();
    panel.replaceChildren(el("h2", d.name), el("p", d.type + " · " + d.docs + (d.docs === 1 ? " learning" : " learnings")));
    fetch("/api/entity/" + d.eid, { credentials: "same-origin" })
      .then((r) => r.json())
      .then((res) => {
        const ul = el("ul");
        ul.id = "g-learnings";
        for (const l of res.learnings || []) {
          const li = el("li");
          const a = el("a", l.title);
          a.href = "/learning/" + encodeURIComponent(l.id);
          li.append(a);
          ul.append(li);
        }
        panel.append(ul);
      });
  });
  cy.on("dbltap", "node", (evt) => { focus = evt.target.data("eid"); load(); });
  typeSel.addEventListener("change", load);
  document.getElementById("g-overview").addEventListener("click", () => { focus = 0; load(); });
  load();
})();
