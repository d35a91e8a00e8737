// A finished match stepped through frame by frame (Watch, and an uploaded match), and an upload's analysis: each
// player's rates, the errors worst first; a click on an error (or stepping through the marked ones) puts its
// position on the board with the played and the best play, their equities and the position's IDs.
"use strict";

const SPEEDS = [["slow", 1200], ["normal", 500], ["fast", 200], ["fastest", 60]];

// The viewer in `container`; with hideFinal the final score stays hidden until playback reaches the last frame.
function viewer(container, data, {autoplay = false, hideFinal = false} = {}) {
  const heading = h("p", {class: "match-heading"});
  const button = (step, text, title) => h("button", {type: "button", "data-step": step, title}, text);
  const speed = h("select", {class: "speed", title: "playback speed"},
    SPEEDS.map(([name, ms]) => h("option", {value: ms, selected: name === "normal"}, name)));
  const count = h("span", {class: "frame-count"}), text = h("p", {class: "frame-text"});
  const svg = document.createElementNS(SVG_NS, "svg");
  svg.setAttribute("class", "board");
  fill(container, heading, h("div", {class: "viewer-controls"}, button("first", "|<", "first"), button("-1", "<", "back"),
    button("play", "play / pause"), button("1", ">", "forward"), button("last", ">|", "last"), speed, count), text, svg);
  let k = 0, timer = null, seenEnd = !hideFinal;
  const last = data.frames.length - 1;
  const head = () => {
    const what = data.length ? `${data.length}-point match` : "money";
    fill(heading, h("b", {}, data.names[0]), " against ", h("b", {}, data.names[1]), `, ${what}`,
         seenEnd ? `: final score ${data.score.join("-")} over ${data.games} game(s).` : ".");
  };
  const show = (extra = {}) => {
    const f = data.frames[k];
    if (k === last && !seenEnd) { seenEnd = true; head(); }
    drawBoard(svg, f.board, {dice: f.dice, cube: f.cube, names: data.names, score: f.score, length: data.length,
                             diceOwner: f.dice ? 1 - f.on_roll : 0, ...extra});
    text.textContent = extra.text || f.text;
    count.textContent = `${k + 1} / ${data.frames.length}`;
  };
  const stop = () => { clearTimeout(timer); timer = null; };
  const tick = () => {
    if (k >= last) { stop(); return; }
    k++; show();
    timer = setTimeout(tick, Number(speed.value));
  };
  container.querySelectorAll("[data-step]").forEach((b) => b.onclick = () => {
    const s = b.dataset.step;
    if (s === "play") {
      if (timer) stop(); else timer = setTimeout(tick, Number(speed.value));
      return;
    }
    stop();
    k = s === "first" ? 0 : s === "last" ? last : Math.min(Math.max(k + Number(s), 0), last);
    show();
  });
  head();
  show();
  if (autoplay) timer = setTimeout(tick, Number(speed.value));
  return {
    // Jump to frame `index` and draw it with `extra` (arrows, dice, text), playback stopped.
    jump(index, extra) { stop(); k = Math.min(Math.max(index, 0), last); show(extra); },
    frameBefore(game, turn) { return data.frames.findIndex((f) => f.game === game) + turn - 1; },
  };
}

function wireFrames() {
  $("watch-form").onsubmit = guarded(async (evt) => {
    evt.preventDefault();
    const data = await postJSON("/api/watch", {a: $("watch-a").value, b: $("watch-b").value,
                                                length: Number($("watch-length").value), seed: Number($("watch-seed").value)});
    viewer($("watch-viewer"), data, {autoplay: true, hideFinal: true});
  });
  $("match-file").onchange = guarded(async () => {
    const file = $("match-file").files[0];
    if (!file) return;
    for (const id of ["match-stats", "match-viewer", "match-errors", "match-error-view"]) fill($(id));
    $("match-report").hidden = true;
    $("match-note").textContent = `Analysing ${file.name}...`;
    const q = new URLSearchParams({report: "true"});
    if ($("match-agent").value) q.set("agent", $("match-agent").value);  // none listed: the server's default
    let data;
    try { data = await (await api("POST", "/api/match?" + q, await file.text(), {text: true})).json(); }
    finally { $("match-note").textContent = ""; }
    showAnalysis(data, viewer($("match-viewer"), data));
  });
}

// The analysis of an uploaded match: each player's rates, the errors worst first, and the full report.
function showAnalysis(data, view) {
  const a = data.analysis, players = a.players;
  const rows = [["Error rate (mEMG per decision)", (p) => p.error_rate.toFixed(1)], ["PR", (p) => p.pr.toFixed(1)],
    ["Rating", (p) => p.rating], ["Checker play (mEMG per move)", (p) => p.checker_error_rate.toFixed(1)],
    ["Cube (mEMG per decision)", (p) => p.cube_error_rate.toFixed(1)], ["Luck (EMG)", (p) => f3(p.luck_emg)],
    ["Luck (points)", (p) => f3(p.luck)],
    ["Points won", (p) => p.points], ["Luck-adjusted result (points)", (p) => f3(p.luck_adjusted_points)]];
  fill($("match-stats"), h("b", {}, "Match analysis"), ` (${a.agent} at ${a.ply}-ply)`,
    h("table", {class: "ranked stats"}, h("tr", {}, h("th", {}), players.map((p) => h("th", {}, p.name))),
      rows.map(([label, fn]) => h("tr", {}, h("td", {}, label), players.map((p) => h("td", {}, fn(p)))))));
  const errors = a.errors.slice(0, 20);
  const marked = a.errors.filter((d) => d.mark).sort((x, y) => x.game - y.game || x.turn - y.turn);
  let at = -1;  // which of `marked` is shown
  const select = (d) => {
    at = marked.indexOf(d);
    $("match-errors").querySelectorAll("tr.shown").forEach((r) => r.classList.remove("shown"));
    const row = $("match-errors").querySelector(`tr[data-error="${a.errors.indexOf(d)}"]`);
    if (row) row.classList.add("shown");
    return showDecision(d, players, a.agent, view);
  };
  const stepper = marked.length ? h("div", {class: "viewer-controls"},
    h("button", {type: "button", id: "error-prev", onclick: guarded(() => select(marked[Math.max(at - 1, 0)]))}, "< previous error"),
    h("button", {type: "button", id: "error-next", onclick: guarded(() => select(marked[Math.min(at + 1, marked.length - 1)]))}, "next error >"),
    h("span", {class: "note"}, `${marked.length} marked, in the order played`)) : null;
  fill($("match-errors"), h("b", {}, "Errors"), ` (${a.errors.length}, worst first; click one to see it on the board)`, stepper,
    errors.length ? h("table", {class: "ranked errors"},
      h("tr", {}, ["game.action", "player", "dice", "played", "best", "lost", "mark"].map((t) => h("th", {}, t))),
      errors.map((d) => h("tr", {class: "clickable", "data-error": a.errors.indexOf(d), onclick: guarded(() => select(d))},
        h("td", {}, `${d.game}.${d.turn}`), h("td", {}, players[d.player].name), h("td", {}, d.dice ? d.dice.join("") : ""),
        h("td", {class: "move"}, d.played || "(no move)"), h("td", {class: "move"}, d.best), h("td", {}, d.equity_lost.toFixed(3)),
        h("td", {}, d.mark + (d.error ? ", " + d.error : ""))))) : null);
  const report = $("match-report");
  report.srcdoc = data.report;
  report.hidden = false;
}

// One judged decision on the viewer's board: the played play in red, the best in green, and their equities.
async function showDecision(d, players, agent, view) {
  const who = players[d.player].name;
  const q = new URLSearchParams({position: d.position, match: d.match_id, agent});
  const out = $("match-error-view");
  const ids = h("p", {class: "ids"}, "Position ID ", h("code", {class: "position-id"}, d.position), "  Match ID ", h("code", {}, d.match_id));
  const arrows = (text, colour, kind) => parseMove(text).map(([from, to]) => ({player: d.player, from, to, colour, kind}));
  out.dataset.seq = Number(out.dataset.seq || 0) + 1;  // for tests: which request this view answers
  const seq = out.dataset.seq;
  const head = `Game ${d.game}, action ${d.turn}: ${who}` + (d.dice ? ` to play ${d.dice.join("-")}` : ` (${d.kind})`);
  if (d.dice) {
    q.set("dice", d.dice.join(""));
    const ranked = await getJSON("/api/move?" + q);
    if (out.dataset.seq !== seq) return;  // a later click won
    const eq = (text) => { const m = ranked.moves.find((x) => x.move === text); return m ? f3(m.equity) : "?"; };
    view.jump(view.frameBefore(d.game, d.turn), {
      dice: d.dice, diceOwner: d.player, text: head,
      arrows: [...arrows(d.played, "#c0392b", "played"), ...arrows(d.best, "#1f7a3a", "best")]});
    fill(out, h("p", {}, h("b", {}, head)),
      h("table", {class: "ranked error-moves"},
        h("tr", {}, h("th", {}), h("th", {}, "play"), h("th", {}, `equity (${ranked.equity})`)),
        h("tr", {class: "played"}, h("td", {}, "played (red)"), h("td", {class: "move"}, d.played || "(no move)"), h("td", {}, eq(d.played))),
        h("tr", {class: "best"}, h("td", {}, "best (green)"), h("td", {class: "move"}, d.best), h("td", {}, eq(d.best)))),
      h("p", {}, `Lost ${d.equity_lost.toFixed(3)}` + (d.mark ? ` (${d.mark})` : "")), ids);
  } else {
    const cube = await getJSON("/api/cube?" + q);
    if (out.dataset.seq !== seq) return;
    view.jump(view.frameBefore(d.game, d.turn), {text: head});
    fill(out, h("p", {}, h("b", {}, head)), h("p", {}, `Played: ${d.played}; best: ${d.best}; lost ${d.equity_lost.toFixed(3)}`
      + (d.error ? ` (${d.error})` : "")), cubeNode(cube), ids);
  }
  out.dataset.done = seq;
}
