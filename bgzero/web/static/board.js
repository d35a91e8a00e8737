// The SVG backgammon board. drawBoard(svg, board, opts) draws a (2, 25) board: row 0 the bottom
// player (home board bottom right, points numbered from its side), row 1 the top player in its
// own numbering; column 24 is each one's bar. Points carry data-point (1-24 from the bottom
// player's side, 25 its bar, 0 the bear-off tray) so clicks, drags and tests can find them.
// A column on the right holds each side's name, score and pip count and the match length.
"use strict";

const SVG_NS = "http://www.w3.org/2000/svg";
const PW = 50, LEFT = 20, BAR_X = 320, RIGHT = 370, TRAY_X = 680, TOP = 20, BOTTOM = 420, DEPTH = 170, R = 19;
const INFO_X = 750, WIDTH = 860, HEIGHT = 440, MID = 220;
const COLOURS = ["#f5f0e1", "#2b2b2b"], RIMS = ["#8a7d5c", "#000"];

function el(tag, attrs, parent) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
  if (parent) parent.appendChild(node);
  return node;
}
function label(parent, x, y, text, attrs = {}) {
  const t = el("text", {x, y, "font-size": 11, fill: "#fff", ...attrs}, parent);
  t.textContent = text;
  return t;
}

// Left edge of point p (1-24, the bottom player's numbering) and whether it hangs from the top.
function pointX(p) {
  if (p <= 6) return RIGHT + (6 - p) * PW;
  if (p <= 12) return LEFT + (12 - p) * PW;
  if (p <= 18) return LEFT + (p - 13) * PW;
  return RIGHT + (p - 19) * PW;
}
const isTop = (p) => p >= 13;

// Where the k-th checker (from the edge) of `player`'s stack of n on p (bottom numbering, 25 the bar) sits.
// Bar stacks grow from the middle towards their own edge, clear of the centred cube and of a cube either side owns.
function checkerXY(player, p, k, n) {
  if (p === 25) {
    const shown = Math.min(n, 4), step = shown > 1 ? Math.min(2 * R, 95 / (shown - 1)) : 0;
    const first = MID + 20 + R + 3;
    return {x: BAR_X + 25, y: player === 0 ? first + k * step : HEIGHT - first - k * step};
  }
  const step = n > 5 ? (8 * R) / (Math.min(n, 8) - 1) : 2 * R;
  return {x: pointX(p) + PW / 2, y: isTop(p) ? TOP + R + k * step : BOTTOM - R - k * step};
}
const shownOf = (p, n) => Math.min(n, p === 25 ? 4 : 8);

// Where a hop's end is drawn for arrows: the point's middle, the bar's half, the tray.
function spotXY(player, p) {
  if (p === 0) return {x: TRAY_X + 30, y: player === 0 ? BOTTOM - 40 : TOP + 40};
  if (p === 25) return {x: BAR_X + 25, y: player === 0 ? MID + 60 : MID - 60};
  return {x: pointX(p) + PW / 2, y: isTop(p) ? TOP + 70 : BOTTOM - 70};
}

// The pip count of one row (its own numbering, column 24 the bar).
const pipCount = (row) => row.reduce((sum, n, i) => sum + n * (i + 1), 0);

function drawBoard(svg, board, opts = {}) {
  svg.setAttribute("viewBox", `0 0 ${WIDTH} ${HEIGHT}`);
  svg.replaceChildren();
  el("rect", {x: LEFT, y: TOP, width: 300, height: 400, fill: "#d9c49a"}, svg);
  el("rect", {x: RIGHT, y: TOP, width: 300, height: 400, fill: "#d9c49a"}, svg);
  el("rect", {x: BAR_X, y: TOP, width: 50, height: 400, fill: "#5a4028", "data-point": 25, class: "bar"}, svg);
  el("rect", {x: TRAY_X, y: TOP, width: 60, height: 400, fill: "#4d3823", "data-point": 0, class: "tray"}, svg);
  for (let p = 1; p <= 24; p++) {
    const x = pointX(p), top = isTop(p);
    const tip = top ? TOP + DEPTH : BOTTOM - DEPTH, base = top ? TOP : BOTTOM;
    el("polygon", {points: `${x},${base} ${x + PW},${base} ${x + PW / 2},${tip}`, fill: p % 2 ? "#a4432e" : "#2f5d50"}, svg);
    label(svg, x + PW / 2, top ? TOP - 5 : BOTTOM + 15, p, {"text-anchor": "middle"});
    el("rect", {x, y: top ? TOP : BOTTOM - 200, width: PW, height: 200, class: "point-hit", "data-point": p}, svg);
  }
  const movable = opts.movable || new Set();
  for (const player of [0, 1]) {
    const row = board[player];
    for (let i = 0; i < 25; i++) {
      if (!row[i]) continue;
      const p = i === 24 ? 25 : (player === 0 ? i + 1 : 24 - i);
      drawStack(svg, player, p, row[i], player === 0 && movable.has(p));
    }
    const off = 15 - row.reduce((a, b) => a + b, 0);
    for (let k = 0; k < off; k++) {
      const y = player === 0 ? BOTTOM - 12 - k * 12 : TOP + 2 + k * 12;
      el("rect", {x: TRAY_X + 8, y, width: 44, height: 10, fill: COLOURS[player], stroke: RIMS[player],
                  "data-point": 0, class: `off player${player}`}, svg);
    }
  }
  if (opts.cube) drawCube(svg, opts.cube);
  if (opts.dice) drawDice(svg, opts.dice, opts.diceOwner === 1 ? LEFT + 150 : RIGHT + 150, opts);
  for (const a of opts.arrows || []) drawArrow(svg, a);
  if (opts.names) drawInfo(svg, board, opts);
  if (opts.interactive) attachPointer(svg, opts);
}

function drawStack(svg, player, p, n, movable) {
  const shown = shownOf(p, n);
  for (let k = 0; k < shown; k++) {
    const {x, y} = checkerXY(player, p, k, n);
    const outer = k === shown - 1;
    const c = el("circle", {cx: x, cy: y, r: R - 1, fill: COLOURS[player], stroke: RIMS[player], "stroke-width": 2,
                            class: `checker player${player}` + (movable && outer ? " movable" : "")}, svg);
    if (player === 0) c.setAttribute("data-point", p);  // the opponent's checkers are no drop target of their own
    if (movable && outer) { c.setAttribute("stroke", "#f0c000"); c.setAttribute("stroke-width", 4); }
    if (outer && n > shown) {
      label(svg, x, y + 5, n, {"text-anchor": "middle", "font-size": 15, fill: player === 0 ? "#000" : "#fff",
                               "pointer-events": "none", class: "count"});
    }
  }
}

// cube: {value, owner: 0 bottom, 1 top, else centred, offered: true for a double on the table (drawn at its new value)}.
function drawCube(svg, cube) {
  const x = cube.offered ? RIGHT + 130 : BAR_X + 5;
  const y = cube.offered ? MID - 20 : cube.owner === 0 ? BOTTOM - 42 : cube.owner === 1 ? TOP + 2 : MID - 20;
  const g = el("g", {class: "cube" + (cube.offered ? " offered" : ""), "data-owner": cube.owner}, svg);
  el("rect", {x, y, width: 40, height: 40, rx: 5, fill: cube.offered ? "#fff6c0" : "#fff", stroke: "#000",
              "stroke-width": cube.offered ? 3 : 1}, g);
  const t = el("text", {x: x + 20, y: y + 27, "text-anchor": "middle", "font-size": 18, "font-weight": "bold"}, g);
  t.textContent = cube.value === 1 ? 64 : cube.value;
}

function drawDice(svg, dice, x0, opts) {
  const pips = {1: [[2, 2]], 2: [[1, 1], [3, 3]], 3: [[1, 1], [2, 2], [3, 3]], 4: [[1, 1], [1, 3], [3, 1], [3, 3]],
                5: [[1, 1], [1, 3], [2, 2], [3, 1], [3, 3]], 6: [[1, 1], [1, 2], [1, 3], [3, 1], [3, 2], [3, 3]]};
  const w = dice.length > 2 ? 36 : 50;
  dice.forEach((d, k) => {
    const x = x0 - (dice.length * w) / 2 + k * w + 5, y = MID - 20, used = opts.usedDice && opts.usedDice[k];
    const g = el("g", {class: "die", "data-die": k, "data-value": d, opacity: used ? 0.35 : 1}, svg);
    el("rect", {x, y, width: 30 + (w === 50) * 10, height: 30 + (w === 50) * 10, rx: 6, fill: "#fffbe8", stroke: "#333"}, g);
    const s = w === 50 ? 10 : 7.5;
    for (const [i, j] of pips[d]) el("circle", {cx: x + i * s, cy: y + j * s, r: w === 50 ? 4 : 3, fill: "#222"}, g);
    if (opts.onDie) g.addEventListener("click", () => opts.onDie(k));
  });
}

// arrow: {player, from, to (that player's own numbering), colour, kind}.
function drawArrow(svg, a) {
  const flip = (p) => (a.player === 0 || p === 0 || p === 25 ? p : 25 - p);
  const s = spotXY(a.player, flip(a.from)), t = spotXY(a.player, flip(a.to));
  el("line", {x1: s.x, y1: s.y, x2: t.x, y2: t.y, stroke: a.colour, "stroke-width": 5, "stroke-linecap": "round",
              opacity: 0.8, class: `arrow ${a.kind || ""}`, "pointer-events": "none"}, svg);
  el("circle", {cx: t.x, cy: t.y, r: 7, fill: a.colour, class: "arrow-head", "pointer-events": "none"}, svg);
}

// opts.names, and optionally opts.score [bottom, top], opts.length (0 money), opts.crawford.
function drawInfo(svg, board, opts) {
  const x = INFO_X + 4;
  for (const [player, y] of [[1, 40], [0, 376]]) {
    label(svg, x, y, opts.names[player], {fill: "#222", "font-size": 13, "font-weight": "bold", class: `name player${player}`});
    if (opts.score) label(svg, x, y + 17, `score ${opts.score[player]}`, {fill: "#222", "font-size": 12, class: `score player${player}`});
    label(svg, x, y + 34, `pips ${pipCount(board[player])}`, {fill: "#222", "font-size": 12, class: `pips player${player}`,
                                                               "data-pips": pipCount(board[player])});
  }
  if (opts.length !== undefined) {
    label(svg, x, MID - 4, opts.length ? `${opts.length}-point match` : "money", {fill: "#222", "font-size": 12, class: "length"});
    if (opts.crawford) label(svg, x, MID + 14, "Crawford", {fill: "#b00020", "font-size": 12, class: "crawford"});
  }
}

// A checker of `player` sliding from one point to another (that player's own numbering), drawn over the board.
function animateHop(svg, board, player, from, to, ms) {
  const shown = (p) => (p === 0 || p === 25 || player === 0 ? p : 25 - p);
  const count = (p) => (p === 0 ? 15 - board[player].reduce((a, b) => a + b, 0) : board[player][p === 25 ? 24 : p - 1]);
  const n = count(from);
  const s = from === 0 ? spotXY(player, 0) : checkerXY(player, shown(from), Math.max(shownOf(shown(from), n) - 1, 0), n);
  const m = count(to) + 1;
  const t = to === 0 ? spotXY(player, 0) : checkerXY(player, shown(to), Math.min(m, shownOf(shown(to), m)) - 1, m);
  const c = el("circle", {cx: s.x, cy: s.y, r: R - 1, fill: COLOURS[player], stroke: "#f0c000", "stroke-width": 3,
                          class: "moving", "pointer-events": "none"}, svg);
  return new Promise((resolve) => {
    const t0 = performance.now();
    const frame = (now) => {
      const f = Math.min((now - t0) / ms, 1);
      c.setAttribute("cx", s.x + (t.x - s.x) * f);
      c.setAttribute("cy", s.y + (t.y - s.y) * f);
      if (f < 1) requestAnimationFrame(frame); else resolve();
    };
    requestAnimationFrame(frame);
  });
}

// Clicks and drags on the bottom player's checkers: opts.onPoint(p) for a click, opts.onDrag(from, to) for a drag
// (to null when dropped off the board); opts.targets(p) lists where the checker picked up on p may go, lit while it is held.
function attachPointer(svg, opts) {
  let start = null;
  const pointAt = (evt) => {  // what lies under the pointer, the held checker and the lit targets aside
    const hit = document.elementsFromPoint(evt.clientX, evt.clientY).find((n) => n !== start.node && n.dataset
      && n.dataset.point !== undefined && svg.contains(n));
    return hit ? Number(hit.dataset.point) : null;
  };
  svg.onpointerdown = (evt) => {
    if (!evt.target.classList.contains("player0")) return;
    start = {p: Number(evt.target.dataset.point), x: evt.clientX, y: evt.clientY, node: evt.target};
    evt.target.classList.add("dragging");
    svg.appendChild(evt.target);  // held above the other checkers
    svg.setPointerCapture(evt.pointerId);
    for (const p of opts.targets ? opts.targets(start.p) : []) {
      const x = p === 0 ? TRAY_X : pointX(p), top = p !== 0 && isTop(p);
      el("rect", {x, y: p === 0 ? TOP : top ? TOP : BOTTOM - DEPTH, width: p === 0 ? 60 : PW, height: p === 0 ? 400 : DEPTH,
                  fill: "#f0c000", opacity: 0.35, class: "target", "data-target": p, "pointer-events": "none"}, svg);
    }
  };
  svg.onpointermove = (evt) => {
    if (!start) return;
    const q = new DOMPoint(evt.clientX, evt.clientY).matrixTransform(svg.getScreenCTM().inverse());
    start.node.setAttribute("cx", q.x); start.node.setAttribute("cy", q.y);
  };
  svg.onpointerup = (evt) => {
    if (!start) return;
    const from = start.p, moved = Math.hypot(evt.clientX - start.x, evt.clientY - start.y) > 8;
    const to = moved ? pointAt(evt) : null;  // looked up while the held checker is still known, and left out
    start.node.classList.remove("dragging");
    start = null;
    if (moved) opts.onDrag(from, to);
    else opts.onPoint(from);
  };
}
