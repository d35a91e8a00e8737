// bgzero's page: play, analyse a position, analyse a match, watch. Plain JS over the JSON API; the
// game itself lives on the server (its dice, the bot, the record), the page composes a move hop by
// hop against the legal plays the server lists and sends the finished play.
"use strict";

const $ = (id) => document.getElementById(id);

async function api(method, url, body, text = false) {
  const init = {method, headers: {}};
  if (body !== undefined) {
    init.body = text ? body : JSON.stringify(body);
    init.headers["Content-Type"] = text ? "text/plain" : "application/json";
  }
  const r = await fetch(url, init);
  if (!r.ok) {
    let message = r.statusText;
    try { message = (await r.json()).error || message; } catch (e) { /* not JSON */ }
    throw new Error(message);
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

function rankedTable(moves) {
  if (!moves.length) return "";
  const best = moves[0].equity;
  const rows = moves.map((m, k) => `<tr class="${k ? "" : "best"}"><td>${k + 1}</td><td class="move">${m.move || "(no move)"}</td>
    <td>${m.ply}</td><td>${f3(m.equity)}</td><td>${k ? f3(m.equity - best) : ""}</td>
    ${m.probs.map((p) => `<td>${pct(p)}</td>`).join("")}</tr>`).join("");
  return `<table class="ranked"><tr><th>#</th><th>move</th><th>ply</th><th>equity</th><th>diff</th>
    <th>win</th><th>w g</th><th>w bg</th><th>l g</th><th>l bg</th></tr>${rows}</table>`;
}

function cubeText(c) {
  const head = `<b>Cube</b> (${c.agent}, ${c.kind}, cube life x = ${c.x.toFixed(2)}): `;
  if (!c.decision) return head + `no cube action: ${c.reason}.`;
  const e = c.decision.equities;
  return head + `<table class="ranked cube"><tr><td class="move">No double</td><td>${f3(e.no_double)}</td></tr>
    <tr><td class="move">Double, take</td><td>${f3(e.double_take)}</td></tr>
    <tr><td class="move">Double, pass</td><td>${f3(e.double_pass)}</td></tr></table>
    Proper cube action: <b class="cube-action">${c.decision.action}</b>; answer: <b>${c.decision.response}</b>.`;
}

// ------------------------------------------------------------------ play

let game = null;      // the server's view of the game
let hops = [];        // the hops of the move being composed, [from, to] in the person's numbering
let used = [];        // which of the dice those hops used
let swapped = false;  // play the smaller die first on a click

const key = (h) => `${h[0]}/${h[1]}`;
function contains(big, small) {
  const pool = big.map(key);
  return small.every((h) => { const i = pool.indexOf(key(h)); if (i < 0) return false; pool.splice(i, 1); return true; });
}
function consistentPlays(extra = []) {
  const wanted = hops.concat(extra);
  return game.legal.filter((p) => p.hops.length >= wanted.length && contains(p.hops, wanted));
}
function complete() {
  return consistentPlays().find((p) => p.hops.length === hops.length) || null;
}
function gameDice() { return game.dice ? (game.dice[0] === game.dice[1] ? [0, 0, 0, 0].map(() => game.dice[0]) : game.dice.slice()) : []; }

function composedBoard() {
  const b = [game.board[0].slice(), game.board[1].slice()];
  for (const [f, t] of hops) {
    b[0][f === 25 ? 24 : f - 1] -= 1;
    if (t > 0) {
      b[0][t - 1] += 1;
      if (b[1][24 - t] === 1) { b[1][24 - t] = 0; b[1][24] += 1; }
    }
  }
  return b;
}

// The hop from point p by the first die that leaves a legal play possible (larger die first unless swapped).
function hopFrom(p, dice, usedNow) {
  const order = dice.map((d, k) => k).filter((k) => !usedNow[k]);
  order.sort((a, b) => (swapped ? dice[a] - dice[b] : dice[b] - dice[a]));
  for (const k of order) {
    const hop = [p, Math.max(p - dice[k], 0)];
    if (consistentPlays([hop]).length) return {hop, k};
  }
  return null;
}

function clickPoint(p) {
  if (game.awaiting !== "move") return;
  const found = hopFrom(p, gameDice(), used);
  if (!found) { $("play-partial").textContent = `No legal move from ${p === 25 ? "the bar" : "point " + p}.`; return; }
  hops.push(found.hop); used[found.k] = true;
  renderPlay();
}

// A drag from `from` to `to`: the shortest run of dice that gets there, every prefix legal.
function dragTo(from, to) {
  if (game.awaiting !== "move" || to === null || to === 25) { renderPlay(); return; }
  const dice = gameDice();
  const search = (at, path, usedNow) => {
    if (path.length && at === to) return path;
    if (at === 0 || at < to) return null;
    for (let k = 0; k < dice.length; k++) {
      if (usedNow[k]) continue;
      const hop = [at, Math.max(at - dice[k], 0)];
      if (!consistentPlays(path.map((x) => x.hop).concat([hop])).length) continue;
      const next = usedNow.slice(); next[k] = true;
      const found = search(hop[1], path.concat([{hop, k}]), next);
      if (found) return found;
    }
    return null;
  };
  const found = search(from, [], used.slice());
  if (!found) { $("play-partial").textContent = `No legal way from ${from === 25 ? "the bar" : from} to ${to === 0 ? "off" : to}.`; renderPlay(false); return; }
  for (const x of found) { hops.push(x.hop); used[x.k] = true; }
  renderPlay();
}

function resetMove() { hops = []; used = []; }

function setGame(view) {
  game = view;
  resetMove();
  renderPlay();
}

function renderPlay(clearNote = true) {
  if (!game) return;
  const moving = game.awaiting === "move";
  const done = moving ? complete() : null;
  drawBoard($("play-board"), moving ? composedBoard() : game.board, {
    dice: game.dice, usedDice: used, cube: game.cube, names: game.names, diceOwner: game.on_roll,
    interactive: moving, onPoint: clickPoint, onDrag: dragTo,
    onDie: () => { swapped = !swapped; },
  });
  $("play-status").textContent = game.status;
  if (clearNote) $("play-partial").textContent = moving ? (done ? `Your move: ${done.move}. Confirm it, or undo.`
      : hops.length ? `So far: ${hops.map(key).join(" ")}` : "") : "";
  const a = game.awaiting;
  $("play-roll").disabled = a !== "roll";
  $("play-double").disabled = !game.may_double;
  $("play-take").disabled = $("play-pass").disabled = a !== "answer";
  $("play-confirm").disabled = !done;
  $("play-undo").disabled = !hops.length;
  $("play-hint").disabled = !["move", "roll", "answer"].includes(a);
  $("play-next").disabled = a !== "next";
  $("play-resign").disabled = ["next", "over"].includes(a);
  const save = $("play-save");
  save.href = `/api/game/${game.id}/mat`;
  save.classList.toggle("disabled", !game.games_finished);
  const sgf = $("play-sgf");
  sgf.href = `/api/game/${game.id}/sgf`;
  sgf.classList.toggle("disabled", !game.games_finished);
  $("play-log").innerHTML = game.log.slice().reverse().map((line) => `<li>${line}</li>`).join("");
}

async function act(action, extra = {}) {
  $("play-hints").innerHTML = "";
  setGame(await postJSON(`/api/game/${game.id}`, {action, ...extra}));
}

function wirePlay() {
  $("play-new").onclick = guarded(async () => {
    const seed = $("play-seed").value;
    const body = {agent: $("play-agent").value, length: Number($("play-length").value)};
    if (seed !== "") body.seed = Number(seed);
    $("play-hints").innerHTML = "";
    setGame(await postJSON("/api/game", body));
  });
  for (const a of ["roll", "double", "take", "pass", "next"]) $(`play-${a}`).onclick = guarded(() => act(a));
  $("play-resign").onclick = guarded(() => act("resign", {level: Number($("play-resign-level").value)}));
  $("play-confirm").onclick = guarded(() => act("move", {move: complete().move}));
  $("play-undo").onclick = () => { const k = used.lastIndexOf(true); hops.pop(); if (k >= 0) used[k] = false; renderPlay(); };
  $("play-typed").onsubmit = guarded(async (evt) => {
    evt.preventDefault();
    await act("move", {move: $("play-move").value});
    $("play-move").value = "";
  });
  $("play-hint").onclick = guarded(async () => {
    const h = await getJSON(`/api/game/${game.id}/hint`);
    $("play-hints").innerHTML = h.kind === "moves" ? `<b>Hint</b> (${h.agent}, ${h.equity} for you)` + rankedTable(h.moves)
      : cubeText(h);
  });
}

// ------------------------------------------------------------------ analyse a position

function positionQuery(extra = {}) {
  const q = new URLSearchParams({position: $("pos-id").value.trim(), agent: $("pos-agent").value, ...extra});
  const match = $("pos-match").value.trim();
  if (match) q.set("match", match);
  return q;
}

function wirePosition() {
  $("pos-form").onsubmit = guarded(async (evt) => {
    evt.preventDefault();
    for (const id of ["pos-eval", "pos-cube", "pos-moves", "pos-rollout-out"]) $(id).innerHTML = "";
    const ev = await getJSON("/api/evaluate?" + positionQuery());
    const dice = $("pos-dice").value.trim() || (ev.dice ? ev.dice.join("") : "");  // typed, or the position's roll
    let shown = null;
    if (dice) {
      const moves = await getJSON("/api/move?" + positionQuery({dice}));
      shown = moves.dice;
      $("pos-moves").innerHTML = `<b>${moves.dice.join("-")} to play</b> (${moves.agent}, ${moves.equity} for the mover)` +
        rankedTable(moves.moves);
    }
    drawBoard($("pos-board"), ev.board, {dice: shown, diceOwner: 0, names: ["on roll", "opponent"]});
    $("pos-eval").innerHTML = `<b>Evaluation</b> (${ev.agent} at ${ev.ply}-ply, before the roll): cubeless equity
      <b>${f3(ev.equity)}</b>; win ${pct(ev.probs[0])}%, gammon ${pct(ev.probs[1])}%, lose gammon ${pct(ev.probs[3])}%`;
    if (!dice) $("pos-cube").innerHTML = cubeText(await getJSON("/api/cube?" + positionQuery()));
  });
  $("pos-rollout").onclick = guarded(async () => {
    const out = $("pos-rollout-out");
    const body = {position: $("pos-id").value.trim(), agent: $("pos-agent").value, trials: Number($("pos-trials").value)};
    const dice = $("pos-dice").value.trim(), match = $("pos-match").value.trim();
    if (dice) body.dice = dice;
    if (match) body.match = match;
    out.innerHTML = "<b>Rollout</b> <progress id=\"pos-progress\" max=\"1\" value=\"0\"></progress> <span id=\"pos-partial\"></span>";
    let r;
    try { r = await api("POST", "/api/rollout", body); } catch (e) { out.innerHTML = `<b>Rollout</b>: ${e.message}`; return; }
    const reader = r.body.getReader(), decoder = new TextDecoder();
    let buffer = "";
    for (;;) {
      const {value, done} = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, {stream: true});
      let nl;
      while ((nl = buffer.indexOf("\n")) >= 0) {
        const line = JSON.parse(buffer.slice(0, nl));
        buffer = buffer.slice(nl + 1);
        if (line.progress) {
          $("pos-progress").max = line.progress.total; $("pos-progress").value = line.progress.trials;
          $("pos-partial").textContent = `${line.progress.trials} / ${line.progress.total} trials ` + JSON.stringify(line.progress.partial);
        } else if (line.result) {
          out.innerHTML += `<pre>${JSON.stringify(line.result, null, 1)}</pre>`;
        } else if (line.error) {
          out.innerHTML += `<p class="error">${line.error}</p>`;
        }
      }
    }
  });
}

// ------------------------------------------------------------------ a match's frames: watch and uploads

function viewer(container, data, autoplay) {
  container.innerHTML = `<p><b>${data.names[0]}</b> against <b>${data.names[1]}</b>,
    ${data.length ? data.length + "-point match" : "money"}: final score ${data.score.join("-")} over ${data.games} game(s).</p>
    <div class="viewer-controls"><button data-step="first">|&lt;</button><button data-step="-1">&lt;</button>
    <button data-step="play">play / pause</button><button data-step="1">&gt;</button><button data-step="last">&gt;|</button>
    <span class="frame-count"></span></div><p class="frame-text"></p>
    <svg class="board" viewBox="0 0 760 440"></svg>`;
  const svg = container.querySelector("svg");
  let k = 0, timer = null;
  const show = () => {
    const f = data.frames[k];
    drawBoard(svg, f.board, {dice: f.dice, cube: f.cube, names: data.names, diceOwner: f.dice ? 1 - f.on_roll : 0});
    container.querySelector(".frame-text").textContent = f.text;
    container.querySelector(".frame-count").textContent = `${k + 1} / ${data.frames.length}`;
  };
  const stop = () => { clearInterval(timer); timer = null; };
  container.querySelectorAll("[data-step]").forEach((b) => b.onclick = () => {
    const s = b.dataset.step;
    if (s === "play") {
      if (timer) stop();
      else timer = setInterval(() => { if (k >= data.frames.length - 1) stop(); else { k++; show(); } }, 400);
      return;
    }
    stop();
    k = s === "first" ? 0 : s === "last" ? data.frames.length - 1 : Math.min(Math.max(k + Number(s), 0), data.frames.length - 1);
    show();
  });
  show();
  if (autoplay) container.querySelector("[data-step=play]").click();
}

function wireFrames() {
  $("watch-form").onsubmit = guarded(async (evt) => {
    evt.preventDefault();
    const data = await postJSON("/api/watch", {a: $("watch-a").value, b: $("watch-b").value,
                                                length: Number($("watch-length").value), seed: Number($("watch-seed").value)});
    viewer($("watch-viewer"), data, true);
  });
  $("match-file").onchange = guarded(async () => {
    const file = $("match-file").files[0];
    if (!file) return;
    for (const id of ["match-stats", "match-viewer", "match-errors"]) $(id).innerHTML = "";
    $("match-report").hidden = true;
    $("match-note").textContent = `Analysing ${file.name}...`;
    const q = new URLSearchParams({agent: $("match-agent").value, report: "true"});
    let data;
    try { data = await (await api("POST", "/api/match?" + q, await file.text(), true)).json(); }
    finally { $("match-note").textContent = ""; }
    showAnalysis(data);
    viewer($("match-viewer"), data, false);
  });
}

// The analysis of an uploaded match: each player's rates, the errors worst first, and the full report.
function showAnalysis(data) {
  const a = data.analysis, players = a.players;
  const rows = [["Error rate (mEMG per decision)", (p) => p.error_rate.toFixed(1)], ["PR", (p) => p.pr.toFixed(1)],
    ["Rating", (p) => p.rating], ["Checker play (mEMG per move)", (p) => p.checker_error_rate.toFixed(1)],
    ["Cube (mEMG per decision)", (p) => p.cube_error_rate.toFixed(1)], ["Luck (EMG)", (p) => f3(p.luck_emg)],
    ["Luck (points)", (p) => f3(p.luck)],
    ["Points won", (p) => p.points], ["Luck-adjusted result (points)", (p) => f3(p.luck_adjusted_points)]];
  $("match-stats").innerHTML = `<b>Match analysis</b> (${a.agent} at ${a.ply}-ply)<table class="ranked stats">
    <tr><th></th>${players.map((p) => `<th>${p.name}</th>`).join("")}</tr>
    ${rows.map(([label, fn]) => `<tr><td>${label}</td>${players.map((p) => `<td>${fn(p)}</td>`).join("")}</tr>`).join("")}</table>`;
  const errors = a.errors.slice(0, 20);
  $("match-errors").innerHTML = `<b>Errors</b> (${a.errors.length}, worst first)` + (errors.length ? `<table class="ranked errors">
    <tr><th>game.action</th><th>player</th><th>dice</th><th>played</th><th>best</th><th>lost</th><th>mark</th></tr>
    ${errors.map((d) => `<tr><td>${d.game}.${d.turn}</td><td>${players[d.player].name}</td>
      <td>${d.dice ? d.dice.join("") : ""}</td><td class="move">${d.played || "(no move)"}</td><td class="move">${d.best}</td>
      <td>${d.equity_lost.toFixed(3)}</td><td>${d.mark}${d.error ? ", " + d.error : ""}</td></tr>`).join("")}</table>` : "");
  const report = $("match-report");
  report.srcdoc = data.report;
  report.hidden = false;
}

// ------------------------------------------------------------------ start

async function start() {
  document.querySelectorAll(".tab").forEach((t) => t.onclick = () => {
    document.querySelectorAll(".tab, .panel").forEach((n) => n.classList.remove("active"));
    t.classList.add("active");
    $(t.dataset.tab).classList.add("active");
  });
  const agents = await getJSON("/api/agents");
  document.querySelectorAll("select.agents").forEach((s) => {
    const list = s.classList.contains("networks") ? agents.networks : agents.agents;
    s.innerHTML = list.map((a) => `<option${a === agents.default ? " selected" : ""}>${a}</option>`).join("");
  });
  if (agents.agents.includes("pubeval")) $("watch-b").value = "pubeval";
  wirePlay(); wirePosition(); wireFrames();
  drawBoard($("play-board"), [[0, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0],
                              [0, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0]], {});
  for (const id of ["play-roll", "play-double", "play-take", "play-pass", "play-confirm", "play-undo", "play-hint",
                    "play-next", "play-resign"]) $(id).disabled = true;
}

window.bg = {game: () => game, hops: () => hops, consistentPlays: () => consistentPlays()};
start().catch(showError);
