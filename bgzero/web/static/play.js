// The Play tab: a person's match against a bot. The game lives on the server (its dice, the bot, the record); the
// page composes a move hop by hop against the legal plays the server lists, and sends the finished play. Between
// two views the page replays the bot's turns from the log (its dice, its checkers sliding), plays forced moves for
// the person, and keeps the game's id so a reload picks the game up again.
"use strict";

const STORED = "bgzero-game";  // localStorage key: the id of this browser's game
let game = null;      // the server's view of the game
let steps = [];       // the move being composed: [{hop: [from, to], k: the die it used}], in the person's numbering
let order = [];       // the dice as shown, the one a click plays first leftmost
let used = [];        // which of `order` the steps used
let busy = false;     // a request or the bot's replay is under way: the board takes no input
let lastBot = null;   // the bot's last roll and play, {dice, move}, shown until the person rolls
let forcedPlays = 0;  // forced moves the page played for the person

const hopsNow = () => steps.map((s) => s.hop);
const key = (h) => `${h[0]}/${h[1]}`;
function contains(big, small) {
  const pool = big.map(key);
  return small.every((hop) => { const i = pool.indexOf(key(hop)); if (i < 0) return false; pool.splice(i, 1); return true; });
}
function consistentPlays(extra = []) {
  const wanted = hopsNow().concat(extra);
  return game.legal.filter((p) => p.hops.length >= wanted.length && contains(p.hops, wanted));
}
const complete = () => consistentPlays().find((p) => p.hops.length === steps.length) || null;
const composedBoard = () => applyHops(game.board, 0, hopsNow());
const START = [[0, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0],
               [0, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0]];
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function startTurn() {
  steps = [];
  const d = game.dice;
  order = !d ? [] : d[0] === d[1] ? [d[0], d[0], d[0], d[0]] : [Math.max(...d), Math.min(...d)];
  used = order.map(() => false);
}

// The hop from p by die k, if some legal play still goes that way.
function hopBy(p, k) {
  if (used[k]) return null;
  const hop = [p, Math.max(p - order[k], 0)];
  return consistentPlays([hop]).length ? hop : null;
}

// Points (25 the bar) whose checker can move now, for the highlight.
function movablePoints() {
  const out = new Set();
  if (!game || game.awaiting !== "move" || busy) return out;
  const board = composedBoard()[0];
  for (let p = 1; p <= 25; p++) {
    if (board[p === 25 ? 24 : p - 1] && order.some((d, k) => hopBy(p, k))) out.add(p);
  }
  return out;
}

// The runs of dice from `from`, every prefix legal: [{to, path: [{hop, k}]}], the shortest first.
function runsFrom(from) {
  const runs = [], seen = new Set();
  const walk = (at, path, usedNow) => {
    for (let k = 0; k < order.length; k++) {
      if (usedNow[k] || at === 0) continue;
      const hop = [at, Math.max(at - order[k], 0)];
      if (!consistentPlays(path.map((x) => x.hop).concat([hop])).length) continue;
      const next = path.concat([{hop, k}]), nextUsed = usedNow.slice();
      nextUsed[k] = true;
      runs.push({to: hop[1], path: next});
      walk(hop[1], next, nextUsed);
    }
  };
  walk(from, [], used.slice());
  runs.sort((a, b) => a.path.length - b.path.length);
  return runs.filter((r) => !seen.has(r.to) && seen.add(r.to));
}

function note(text) { $("play-partial").textContent = text; }
const pointName = (p) => (p === 25 ? "the bar" : p === 0 ? "off" : String(p));

function clickPoint(p) {
  if (game.awaiting !== "move" || busy) return;
  const k = order.findIndex((d, i) => hopBy(p, i));
  if (k < 0) { renderPlay(); note(`No legal move from ${p === 25 ? "the bar" : "point " + p}.`); return; }
  steps.push({hop: hopBy(p, k), k});
  used[k] = true;
  renderPlay();
}

// A drag from `from` to `to`: the shortest run of dice that gets there.
function dragTo(from, to) {
  if (game.awaiting !== "move" || busy || to === from) { renderPlay(); return; }
  if (to === null) { renderPlay(); note("Dropped off the board: drop the checker on a point, or on the tray to bear off."); return; }
  if (to === 25) { renderPlay(); note("A checker cannot move to the bar."); return; }
  const run = runsFrom(from).find((r) => r.to === to);
  if (!run) { renderPlay(); note(`No legal way from ${pointName(from)} to ${pointName(to)}.`); return; }
  for (const x of run.path) { steps.push(x); used[x.k] = true; }
  renderPlay();
}

function undo() {
  const last = steps.pop();
  if (last) used[last.k] = false;
  renderPlay();
}

// Show a listed play (a hint row, a forced move) as the move being composed, ready to confirm.
function compose(play) {
  startTurn();
  for (const hop of play.hops) {
    const run = order.findIndex((d, k) => !used[k] && hop[0] - hop[1] === d);
    const k = run >= 0 ? run : order.findIndex((d, i) => !used[i] && hop[1] === 0 && d > hop[0] - hop[1]);
    steps.push({hop, k});
    if (k >= 0) used[k] = true;
  }
  renderPlay();
}

function scoreText(g) {
  const [you, bot] = g.names, [a, b] = g.score;
  if (!g.length) return `Money session: ${you} ${a}, ${bot} ${b}`;
  return `${g.length}-point match: ${you} ${a}, ${bot} ${b}` + (g.crawford ? " (Crawford game)" : "");
}

function renderPlay(clearNote = true) {
  if (!game) return;
  const moving = game.awaiting === "move" && !busy;
  const board = game.awaiting === "move" ? composedBoard() : game.board;
  const done = moving ? complete() : null;
  const botDice = !game.dice && lastBot && ["roll", "answer"].includes(game.awaiting) ? lastBot.dice : null;
  drawBoard($("play-board"), board, {
    dice: game.dice ? order : botDice, usedDice: game.dice ? used : null, diceOwner: game.dice ? 0 : 1,
    cube: game.awaiting === "answer" ? {value: 2 * game.cube.value, owner: -1, offered: true} : game.cube,
    names: game.names, score: game.score, length: game.length, crawford: game.crawford,
    interactive: moving, onPoint: clickPoint, onDrag: dragTo, movable: movablePoints(),
    targets: (p) => runsFrom(p).map((r) => r.to),
    onDie: () => { if (moving && !steps.length && order.length === 2) { order.reverse(); renderPlay(); } },
  });
  $("play-status").textContent = game.status;
  $("play-score").textContent = scoreText(game);
  $("play-pips").textContent = `Pips: ${game.names[0]} ${pipCount(board[0])}, ${game.names[1]} ${pipCount(board[1])}`;
  $("play-last").textContent = lastBot ? `${game.names[1]} rolled ${lastBot.dice.join("-")}: ${lastBot.move}.` : "";
  if (clearNote) note(moving ? (done ? `Your move: ${done.move}. Confirm it, or undo.`
      : steps.length ? `So far: ${hopsNow().map(key).join(" ")}` : "") : "");
  const a = busy ? "busy" : game.awaiting;
  $("play-roll").disabled = a !== "roll";
  $("play-double").disabled = busy || !game.may_double;
  $("play-take").disabled = $("play-pass").disabled = a !== "answer";
  $("play-confirm").disabled = !done;
  $("play-undo").disabled = !moving || !steps.length;
  $("play-hint").disabled = !["move", "roll", "answer"].includes(a);
  $("play-next").disabled = a !== "next";
  $("play-resign").disabled = busy || ["next", "over"].includes(a);
  for (const [id, kind] of [["play-save", "mat"], ["play-sgf", "sgf"]]) {
    $(id).href = `/api/game/${game.id}/${kind}`;
    $(id).classList.toggle("disabled", !game.games_finished);
  }
  fill($("play-log"), game.log.slice().reverse().map((line) => h("li", {}, line)));
}

// The lines `after` adds to `before` (the server keeps the last 50).
function newLines(before, after) {
  for (let d = 0; d <= before.length; d++) {
    const rest = before.slice(d);
    if (rest.every((line, i) => after[i] === line)) return after.slice(rest.length);
  }
  return after;
}

// Replay the bot's turns the server played since `from` (the board after the person's own action).
async function replayBot(from, lines) {
  let board = from;
  const svg = $("play-board"), animate = $("play-animate").checked;
  for (const line of lines) {
    if (/^Game \d+\./.test(line)) { board = START; lastBot = null; continue; }
    if (/ wins /.test(line)) break;  // the game is over: the view shows how it ended
    if (!line.startsWith(`${game.names[1]} rolls `)) continue;
    const m = line.slice(game.names[1].length).match(/^ rolls (\d)-(\d): (.*)\.$/);
    if (!m) continue;
    lastBot = {dice: [Number(m[1]), Number(m[2])], move: m[3]};
    if (!animate) continue;
    const hops = m[3] === "cannot move" ? [] : parseMove(m[3]);
    drawBoard(svg, board, {dice: lastBot.dice, diceOwner: 1, cube: game.cube, names: game.names, score: game.score,
                           length: game.length, crawford: game.crawford});
    for (const hop of hops) {
      await animateHop(svg, board, 1, hop[0], hop[1], 250);
      board = applyHops(board, 1, [hop]);
      drawBoard(svg, board, {dice: lastBot.dice, diceOwner: 1, cube: game.cube, names: game.names, score: game.score,
                             length: game.length, crawford: game.crawford});
    }
    await sleep(hops.length ? 250 : 500);
  }
}

// Draw a new view of the game; `from` (the board after the person's own action, or null) replays the bot's turns since.
async function setGame(view, from = null) {
  const before = game;
  game = view;
  localStorage.setItem(STORED, view.id);
  startTurn();
  if (!before || before.id !== view.id) lastBot = null;
  if (from) {
    busy = true;
    try { await replayBot(from, before && before.id === view.id ? newLines(before.log, view.log) : view.log); }
    finally { busy = false; }
  }
  renderPlay();
  if (game.awaiting === "move" && game.legal.length === 1 && $("play-forced").checked) {
    const play = game.legal[0];
    compose(play);
    busy = true;
    renderPlay(false);
    note(`Forced move: ${play.move}, played for you.`);
    await sleep(600);
    busy = false;
    forcedPlays += 1;
    await act("move", {move: play.move});
  }
}

async function act(action, extra = {}) {
  if (!game) throw new Error("Start a game first: choose an opponent and press New game.");
  const from = action === "move" ? applyHops(game.board, 0, parseMoveFor(extra.move)) : game.board;
  fill($("play-hints"));
  busy = true;
  renderPlay();
  let view;
  try { view = await postJSON(`/api/game/${game.id}`, {action, ...extra}); } finally { busy = false; }
  await setGame(view, from);
}

// The hops of the person's play as the server lists it (or as typed, best effort), for the replay's starting board.
function parseMoveFor(text) {
  const listed = game.legal.find((p) => p.move === text);
  return listed ? listed.hops : game.legal.some((p) => p.hops.length) ? parseMove(text) : [];
}

async function showHint() {
  const hint = await getJSON(`/api/game/${game.id}/hint`);
  if (hint.kind !== "moves") { fill($("play-hints"), cubeNode(hint)); return; }
  const table = rankedTable(hint.moves, {
    onRow: (m, row) => {
      const play = game.legal.find((p) => p.move === m.move);
      if (!play) { note(`${m.move} is not among the plays listed for this roll.`); return; }
      table.querySelectorAll("tr.shown").forEach((r) => r.classList.remove("shown"));
      row.classList.add("shown");
      compose(play);
      note(`Hint: ${m.move} (equity ${f3(m.equity)}) shown on the board. Confirm it, or undo.`);
    },
    play: guarded((m) => act("move", {move: m.move})),
  });
  fill($("play-hints"), h("p", {}, h("b", {}, "Hint"), ` (${hint.agent}, ${hint.equity} for you): click a row to see it on the board`),
       table);
}

function wirePlay() {
  $("play-new").onclick = guarded(async () => {
    const seed = $("play-seed").value;
    const body = {agent: $("play-agent").value, length: Number($("play-length").value)};
    if (seed !== "") body.seed = Number(seed);
    fill($("play-hints"));
    game = null;
    await setGame(await postJSON("/api/game", body), START);
  });
  for (const a of ["roll", "double", "take", "pass", "next"]) $(`play-${a}`).onclick = guarded(() => act(a));
  $("play-resign").onclick = guarded(() => act("resign", {level: Number($("play-resign-level").value)}));
  $("play-confirm").onclick = guarded(() => act("move", {move: complete().move}));
  $("play-undo").onclick = undo;
  $("play-typed").onsubmit = guarded(async (evt) => {
    evt.preventDefault();
    await act("move", {move: $("play-move").value});
    $("play-move").value = "";
  });
  $("play-hint").onclick = guarded(showHint);
}

// The game this browser was playing before a reload, if the server still holds it.
async function resumePlay() {
  const id = localStorage.getItem(STORED);
  if (!id) return false;
  try {
    await setGame({id, ...await getJSON(`/api/game/${encodeURIComponent(id)}`)});
  } catch (e) {
    localStorage.removeItem(STORED);
    return false;
  }
  note("Your game, resumed.");
  return true;
}
