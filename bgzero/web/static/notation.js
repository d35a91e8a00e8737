// gnubg's move notation read back into hops, for drawing a play the server gave as text (the bot's move, a hint,
// an analysed error): "bar/22* 13/8(2)" is [[25, 22], [13, 8], [13, 8]], in the mover's own numbering (25 the bar, 0 off).
"use strict";

function parseMove(text) {
  const hops = [];
  for (const token of (text || "").trim().split(/\s+/).filter(Boolean)) {
    const m = token.replace(/\*/g, "").match(/^([^(]+)(?:\((\d)\))?$/);
    if (!m) continue;
    const points = m[1].split("/").map((s) => (s === "bar" ? 25 : s === "off" ? 0 : Number(s)));
    if (points.some((p) => !Number.isInteger(p) || p < 0 || p > 25)) continue;
    for (let n = 0; n < Number(m[2] || 1); n++) {
      for (let k = 1; k < points.length; k++) hops.push([points[k - 1], points[k]]);
    }
  }
  return hops;
}

// The board after `player` makes `hops` (its own numbering), hitting a lone checker it lands on.
function applyHops(board, player, hops) {
  const b = [board[0].slice(), board[1].slice()];
  for (const [f, t] of hops) {
    b[player][f === 25 ? 24 : f - 1] -= 1;
    if (t > 0) {
      b[player][t - 1] += 1;
      const other = 1 - player;
      if (b[other][24 - t] === 1) { b[other][24 - t] = 0; b[other][24] += 1; }
    }
  }
  return b;
}
