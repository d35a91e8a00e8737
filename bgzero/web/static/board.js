// The SVG backgammon board. drawBoard(svg, board, opts) draws a (2, 25) board: row 0 the bottom
// player (home board bottom right, points numbered from its side), row 1 the top player in its
// own numbering; column 24 is each one's bar. Points carry data-point (1-24 from the bottom
// player's side, 25 its bar, 0 the bear-off tray) so clicks, drags and tests can find them.
"use strict";

const SVG_NS = "http://www.w3.org/2000/svg";
const PW = 50, LEFT = 20, BAR_X = 320, RIGHT = 370, TRAY_X = 680, TOP = 20, BOTTOM = 420, DEPTH = 170, R = 19;

function el(tag, attrs, parent) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
  if (parent) parent.appendChild(node);
  return node;
}

// Left edge of point p (1-24, the bottom player's numbering) and whether it hangs from the top.
function pointX(p) {
  if (p <= 6) return RIGHT + (6 - p) * PW;
  if (p <= 12) return LEFT + (12 - p) * PW;
  if (p <= 18) return LEFT + (p - 13) * PW;
  return RIGHT + (p - 19) * PW;
}
const isTop = (p) => p >= 13;

function drawBoard(svg, board, opts = {}) {
  svg.innerHTML = "";
  const colours = ["#f5f0e1", "#2b2b2b"], rims = ["#8a7d5c", "#000"];
  el("rect", {x: LEFT, y: TOP, width: 300, height: 400, fill: "#d9c49a"}, svg);
  el("rect", {x: RIGHT, y: TOP, width: 300, height: 400, fill: "#d9c49a"}, svg);
  el("rect", {x: BAR_X, y: TOP, width: 50, height: 400, fill: "#5a4028", "data-point": 25, class: "bar"}, svg);
  el("rect", {x: TRAY_X, y: TOP, width: 60, height: 400, fill: "#4d3823", "data-point": 0, class: "tray"}, svg);
  for (let p = 1; p <= 24; p++) {
    const x = pointX(p), top = isTop(p);
    const tip = top ? TOP + DEPTH : BOTTOM - DEPTH, base = top ? TOP : BOTTOM;
    el("polygon", {points: `${x},${base} ${x + PW},${base} ${x + PW / 2},${tip}`,
                   fill: p % 2 ? "#a4432e" : "#2f5d50"}, svg);
    const label = el("text", {x: x + PW / 2, y: top ? TOP - 5 : BOTTOM + 15, "text-anchor": "middle",
                              "font-size": 11, fill: "#fff"}, svg);
    label.textContent = p;
    el("rect", {x, y: top ? TOP : BOTTOM - 200, width: PW, height: 200, class: "point-hit", "data-point": p}, svg);
  }
  // checkers: [player, bottom-numbered point or 25 bar, count]
  for (const player of [0, 1]) {
    const row = board[player];
    for (let i = 0; i < 25; i++) {
      const n = row[i];
      if (!n) continue;
      const p = i === 24 ? 25 : (player === 0 ? i + 1 : 24 - i);
      drawStack(svg, player, p, n, colours[player], rims[player], opts);
    }
    const off = 15 - row.reduce((a, b) => a + b, 0);
    for (let k = 0; k < off; k++) {
      const y = player === 0 ? BOTTOM - 12 - k * 12 : TOP + 2 + k * 12;
      el("rect", {x: TRAY_X + 8, y, width: 44, height: 10, fill: colours[player], stroke: rims[player],
                  "data-point": 0, class: "off"}, svg);
    }
  }
  if (opts.cube) drawCube(svg, opts.cube);
  if (opts.dice) drawDice(svg, opts.dice, opts.diceOwner === 1 ? LEFT + 150 : RIGHT + 150, opts);
  if (opts.names) {
    for (const [k, y] of [[0, BOTTOM + 15], [1, TOP - 5]]) {
      const t = el("text", {x: TRAY_X + 30, y, "text-anchor": "middle", "font-size": 11, fill: "#fff"}, svg);
      t.textContent = opts.names[k];
    }
  }
  if (opts.interactive) attachPointer(svg, opts);
}

function drawStack(svg, player, p, n, fill, rim, opts) {
  const shown = Math.min(n, 5);
  for (let k = 0; k < shown; k++) {
    let cx, cy;
    if (p === 25) {
      cx = BAR_X + 25;
      cy = player === 0 ? BOTTOM - 120 - k * 2 * R : TOP + 120 + k * 2 * R;
    } else {
      cx = pointX(p) + PW / 2;
      cy = isTop(p) ? TOP + R + k * 2 * R : BOTTOM - R - k * 2 * R;
    }
    const c = el("circle", {cx, cy, r: R - 1, fill, stroke: rim, "stroke-width": 2,
                            class: `checker player${player}`, "data-point": player === 0 ? p : -1}, svg);
    if (k === shown - 1 && n > 5) {
      const t = el("text", {x: cx, y: cy + 5, "text-anchor": "middle", "font-size": 15,
                            fill: player === 0 ? "#000" : "#fff", "pointer-events": "none"}, svg);
      t.textContent = n;
    }
    if (opts.selectable && player === 0) c.setAttribute("stroke", "#e0b000");
  }
}

function drawCube(svg, cube) {
  const y = cube.owner === 0 ? BOTTOM - 60 : cube.owner === 1 ? TOP + 20 : 200;
  el("rect", {x: BAR_X + 5, y, width: 40, height: 40, rx: 5, fill: "#fff", stroke: "#000", class: "cube"}, svg);
  const t = el("text", {x: BAR_X + 25, y: y + 27, "text-anchor": "middle", "font-size": 18, "font-weight": "bold"}, svg);
  t.textContent = cube.value === 1 ? 64 : cube.value;
}

function drawDice(svg, dice, x0, opts) {
  const pips = {1: [[2, 2]], 2: [[1, 1], [3, 3]], 3: [[1, 1], [2, 2], [3, 3]], 4: [[1, 1], [1, 3], [3, 1], [3, 3]],
                5: [[1, 1], [1, 3], [2, 2], [3, 1], [3, 3]], 6: [[1, 1], [1, 2], [1, 3], [3, 1], [3, 2], [3, 3]]};
  dice.forEach((d, k) => {
    const x = x0 - 45 + k * 50, y = 200, used = opts.usedDice && opts.usedDice[k];
    const g = el("g", {class: "die", "data-die": k, opacity: used ? 0.35 : 1}, svg);
    el("rect", {x, y, width: 40, height: 40, rx: 6, fill: "#fffbe8", stroke: "#333"}, g);
    for (const [i, j] of pips[d]) el("circle", {cx: x + i * 10, cy: y + j * 10, r: 4, fill: "#222"}, g);
    if (opts.onDie) g.addEventListener("click", () => opts.onDie(k));
  });
}

// Clicks and drags on the bottom player's checkers: opts.onPoint(p) for a click, opts.onDrag(from, to) for a drag.
function attachPointer(svg, opts) {
  let start = null;
  const pointAt = (evt) => {
    const hit = document.elementsFromPoint(evt.clientX, evt.clientY).find((n) => n.dataset && n.dataset.point !== undefined
      && !n.classList.contains("dragging"));
    return hit ? Number(hit.dataset.point) : null;
  };
  svg.onpointerdown = (evt) => {
    const p = Number(evt.target.dataset.point);
    if (evt.target.classList.contains("player0")) {
      start = {p, x: evt.clientX, y: evt.clientY, node: evt.target};
      evt.target.classList.add("dragging");
      svg.setPointerCapture(evt.pointerId);
    }
  };
  svg.onpointermove = (evt) => {
    if (!start) return;
    const m = svg.getScreenCTM().inverse(), pt = svg.createSVGPoint();
    pt.x = evt.clientX; pt.y = evt.clientY;
    const q = pt.matrixTransform(m);
    start.node.setAttribute("cx", q.x); start.node.setAttribute("cy", q.y);
  };
  svg.onpointerup = (evt) => {
    if (!start) return;
    const from = start.p, moved = Math.hypot(evt.clientX - start.x, evt.clientY - start.y) > 8;
    start.node.classList.remove("dragging");
    start = null;
    if (moved) opts.onDrag(from, pointAt(evt));  // null: dropped off the board
    else opts.onPoint(from);
  };
}
