// The Analyse-a-position tab: evaluation, cube action and ranked plays of a Position ID, PositionID:MatchID or XGID,
// drawn with the cube and score it carries; and a rollout that streams its progress, can be cancelled, and ends in
// a table of plays, probabilities and equity ± standard error.
"use strict";

let rolling = null;  // the rollout under way: {controller, id}

function positionQuery(extra = {}) {
  const q = new URLSearchParams({position: $("pos-id").value.trim(), ...extra});
  if ($("pos-agent").value) q.set("agent", $("pos-agent").value);  // none listed (a server without networks): its default
  const match = $("pos-match").value.trim();
  if (match) q.set("match", match);
  return q;
}

// The cube, owner, score and length the position carries (the server's, when its answer has them), for drawBoard.
function positionExtras(answer) {
  const state = answer.match_state || matchStateOf($("pos-id").value, $("pos-match").value);
  if (!state) return {cube: {value: 1, owner: -1}};
  return {cube: {value: state.value, owner: state.owner}, score: state.score, length: state.length, crawford: state.crawford};
}

async function analysePosition(evt) {
  evt.preventDefault();
  for (const id of ["pos-eval", "pos-cube", "pos-moves"]) fill($(id));
  if (!rolling) fill($("pos-rollout-out"));  // an earlier position's rollout would read as this one's
  const ev = await getJSON("/api/evaluate?" + positionQuery());
  const dice = $("pos-dice").value.trim() || (ev.dice ? ev.dice.join("") : "");  // typed, or the position's roll
  let shown = null;
  if (dice) {
    const moves = await getJSON("/api/move?" + positionQuery({dice}));
    shown = moves.dice;
    fill($("pos-moves"), h("b", {}, `${moves.dice.join("-")} to play`), ` (${moves.agent}, ${moves.equity} for the mover)`,
         rankedTable(moves.moves, {onRow: (m, row) => showPlay(ev, shown, m, row)}));
  }
  drawBoard($("pos-board"), ev.board, {dice: shown, diceOwner: 0, names: ["on roll", "opponent"], ...positionExtras(ev)});
  fill($("pos-eval"), h("b", {}, "Evaluation"), ` (${ev.agent} at ${ev.ply}-ply, before the roll): cubeless equity `,
       h("b", {}, f3(ev.equity)), `; win ${pct(ev.probs[0])}%, gammon ${pct(ev.probs[1])}%, lose gammon ${pct(ev.probs[3])}%`);
  if (!dice) fill($("pos-cube"), cubeNode(await getJSON("/api/cube?" + positionQuery())));
}

// A clicked row's play drawn as arrows on the position.
function showPlay(ev, dice, m, row) {
  row.parentNode.querySelectorAll("tr.shown").forEach((r) => r.classList.remove("shown"));
  row.classList.add("shown");
  drawBoard($("pos-board"), ev.board, {dice, diceOwner: 0, names: ["on roll", "opponent"], ...positionExtras(ev),
    arrows: parseMove(m.move).map(([from, to]) => ({player: 0, from, to, colour: "#1f7a3a", kind: "shown"}))});
}

// progress.total may count every play's trials: shown in the trials the person asked for.
function askedTrials(progress, asked) {
  return progress.total ? Math.min(asked, Math.round((progress.trials / progress.total) * asked)) : progress.trials;
}

// A standard error; the server sends null where it is not finite (a rollout of one trial).
const seText = (se) => (typeof se === "number" && isFinite(se) ? se.toFixed(3) : "n/a");

function rolloutTable(result) {
  const heads = ["play", ...PROB_HEADS, "equity", "± SE"];
  const cubeful = result.cubeful_equity !== undefined;
  if (cubeful) heads.push("cubeful", "± SE");
  const row = (name, r) => h("tr", {}, h("td", {class: "move"}, name), r.probs.map((p) => h("td", {}, pct(p))),
    h("td", {}, f3(r.equity)), h("td", {}, seText(r.equity_se)),
    cubeful ? [h("td", {}, f3(r.cubeful_equity)), h("td", {}, seText(r.cubeful_se))] : null);
  const rows = [row("before the roll", result)];
  for (const m of result.moves || []) rows.push(row(m.move, m));
  return h("table", {class: "ranked rollout"}, h("tr", {}, heads.map((t) => h("th", {}, t))), rows);
}

async function rollout() {
  const out = $("pos-rollout-out"), asked = Number($("pos-trials").value);
  const body = {position: $("pos-id").value.trim(), trials: asked};
  if ($("pos-agent").value) body.agent = $("pos-agent").value;
  const dice = $("pos-dice").value.trim(), match = $("pos-match").value.trim();
  if (dice) body.dice = dice;
  if (match) body.match = match;
  const bar = h("progress", {id: "pos-progress", max: asked, value: 0}), partial = h("span", {id: "pos-partial"}, `0 / ${asked} trials`);
  fill(out, h("b", {}, "Rollout "), bar, " ", partial);
  rolling = {controller: new AbortController(), id: null};
  $("pos-rollout").disabled = true;
  $("pos-cancel").disabled = false;
  try {
    const r = await api("POST", "/api/rollout", body, {signal: rolling.controller.signal});
    rolling.id = r.headers.get("X-Rollout-Id");
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
        if (line.id) rolling.id = line.id;
        if (line.progress) {
          const n = askedTrials(line.progress, asked);
          bar.value = n;
          const se = line.progress.partial && line.progress.partial.se;
          partial.textContent = `${n} / ${asked} trials` + (seText(se) !== "n/a" ? `, worst SE ${seText(se)}` : "");
        } else if (line.result) {
          bar.value = asked;
          partial.textContent = `${line.result.trials} trials`;
          out.append(rolloutTable(line.result));
        } else if (line.error) {
          out.append(h("p", {class: "error"}, line.error));
        }
      }
    }
  } catch (e) {
    if (e.name === "AbortError") out.append(h("p", {class: "note"}, "Rollout cancelled."));
    else out.append(h("p", {class: "error"}, `Rollout: ${e.message}`));
  } finally {
    rolling = null;
    $("pos-rollout").disabled = false;
    $("pos-cancel").disabled = true;
  }
}

// Cancel: the server's cancel when it gave the rollout an id, and the stream closed either way (which stops it too).
async function cancelRollout() {
  if (!rolling) return;
  const {controller, id} = rolling;
  if (id) { try { await api("DELETE", `/api/rollout/${encodeURIComponent(id)}`); } catch (e) { /* closing the stream stops it */ } }
  controller.abort();
}

function wirePosition() {
  $("pos-form").onsubmit = guarded(analysePosition);
  $("pos-rollout").onclick = guarded(rollout);
  $("pos-cancel").onclick = guarded(cancelRollout);
}
