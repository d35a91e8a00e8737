// What every tab shares: the JSON API, errors shown in one place, and building DOM nodes from data. Data from the
// server or an upload (player names, moves, messages) only ever goes into text nodes, never into HTML.
"use strict";

const $ = (id) => document.getElementById(id);

// h("td", {class: "move"}, "8/5 6/5", node...): an element; strings become text nodes, null children are skipped.
function h(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) if (c !== null && c !== undefined) node.append(c instanceof Node ? c : String(c));
  return node;
}
const fill = (parent, ...children) => { parent.replaceChildren(...children.flat().filter((c) => c !== null)); return parent; };

async function api(method, url, body, options = {}) {
  const init = {method, headers: {}, signal: options.signal};
  if (body !== undefined) {
    init.body = options.text ? body : JSON.stringify(body);
    init.headers["Content-Type"] = options.text ? "text/plain" : "application/json";
  }
  const r = await fetch(url, init);
  if (!r.ok) {
    let message = r.statusText;
    try { message = (await r.json()).error || message; } catch (e) { /* not JSON */ }
    const error = new Error(message);
    error.status = r.status;
    throw error;
  }
  return r;
}
const getJSON = async (url) => (await api("GET", url)).json();
const postJSON = async (url, body) => (await api("POST", url, body)).json();

function showError(e) { $("error").textContent = e ? String(e.message || e) : ""; }
function guarded(fn) {
  return async (...args) => {
    showError(null);
    try { await fn(...args); } catch (e) { showError(e); }
  };
}

const f3 = (x) => (x >= 0 ? "+" : "") + x.toFixed(3);
const pct = (x) => (100 * x).toFixed(1);
const PROB_HEADS = ["win", "w g", "w bg", "l g", "l bg"];

// The ranked plays of a roll as a table; onRow(move, row) makes each row clickable, play(move) adds a Play button.
// Past `limit` rows the rest wait behind a "N more plays" row that shows them when clicked.
function rankedTable(moves, {onRow = null, play = null, limit = 10} = {}) {
  if (!moves.length) return null;
  const best = moves[0].equity;
  const mwc = moves[0].mwc !== null && moves[0].mwc !== undefined;  // a match: gnubg shows MWC beside EMG
  const rest = limit && moves.length > limit ? moves.length - limit : 0;
  const rows = moves.map((m, k) => {
    const row = h("tr", {class: k ? null : "best", "data-move": m.move, hidden: rest && k >= limit ? "" : null},
      h("td", {}, k + 1), h("td", {class: "move"}, m.move || "(no move)"), h("td", {}, m.ply), h("td", {}, f3(m.equity)),
      h("td", {}, k ? f3(m.equity - best) : ""), mwc ? h("td", {class: "mwc"}, pct(m.mwc)) : null,
      m.probs.map((p) => h("td", {}, pct(p))),
      play ? h("td", {}, h("button", {type: "button", class: "play-row", onclick: (e) => { e.stopPropagation(); play(m); }}, "Play"))
        : null);
    if (onRow) { row.classList.add("clickable"); row.addEventListener("click", () => onRow(m, row)); }
    return row;
  });
  return h("table", {class: "ranked"}, h("tr", {}, ["#", "move", "ply", "equity", "diff", ...(mwc ? ["MWC"] : []), ...PROB_HEADS].map((t) => h("th", {}, t)),
    play ? h("th", {}) : null), rows,
    rest ? h("tr", {class: "clickable", onclick: (e) => {
      rows.forEach((r) => { r.hidden = false; });
      e.currentTarget.remove();
    }}, h("td", {colspan: 10, class: "more"}, `${rest} more plays`)) : null);
}

function cubeNode(c) {
  const head = h("b", {}, "Cube");
  const about = ` (${c.agent}, ${c.position_class}, cube life x = ${c.x.toFixed(2)}): `;
  if (!c.decision) return h("div", {}, head, about, `no cube action: ${c.reason}.`);
  const rows = (pairs) => h("table", {class: "ranked cube"},
    pairs.map(([label, x]) => h("tr", {}, h("td", {class: "move"}, label), h("td", {}, f3(x)))));
  if (c.answer) {  // the bot has doubled: the person's own side of take and pass
    return h("div", {}, head, about, "for you, as the side doubled:",
      rows([["Take", c.answer.take], ["Pass", c.answer.pass]]),
      "Proper answer: ", h("b", {class: "cube-answer"}, c.answer.proper), ".");
  }
  const e = c.decision.equities;
  return h("div", {}, head, about,
    rows([["No double", e.no_double], ["Double, take", e.double_take], ["Double, pass", e.double_pass]]),
    "Proper cube action: ", h("b", {class: "cube-action"}, c.proper_action), ".");
}
