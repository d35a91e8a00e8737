// The match state an XGID or a gnubg Match ID carries (cube, owner, score, length, Crawford), read in the page so
// the position view can draw it; seen from the side on roll, which the board puts at the bottom.
"use strict";

// {value, owner: 0 on roll / 1 opponent / -1 centred, score: [on roll, opponent], length, crawford} or null.
function matchStateOf(positionText, matchText) {
  const text = (positionText || "").trim();
  if (matchText && matchText.trim()) return fromMatchId(matchText.trim());
  if (/^XGID=/i.test(text) || text.split(":").length === 10) return fromXgid(text.replace(/^XGID=/i, ""));
  const parts = text.split(":");
  return parts.length === 2 ? fromMatchId(parts[1]) : null;
}

function relative(value, owner, onRoll, score, length, crawford) {
  return {value, owner: owner < 0 ? -1 : owner === onRoll ? 0 : 1, score: [score[onRoll], score[1 - onRoll]], length, crawford};
}

function fromXgid(body) {
  const f = body.split(":");
  if (f.length !== 10) return null;
  const [cube, owner, turn, s0, s1, flag, length] = [1, 2, 3, 5, 6, 7, 8].map((k) => Number(f[k]));
  if ([cube, owner, turn, s0, s1, flag, length].some(Number.isNaN)) return null;
  const onRoll = turn === 1 ? 0 : 1;
  return relative(2 ** cube, owner === 0 ? -1 : owner === 1 ? 0 : 1, onRoll, [s0, s1], length, Boolean(length && flag & 1));
}

// gnubg's Match ID: 12 base64 characters, 66 bits little-endian (cube log2, owner, dice owner, Crawford, ...).
function fromMatchId(id) {
  let bytes;
  try { bytes = Uint8Array.from(atob(id.replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0)); } catch (e) { return null; }
  if (bytes.length < 9) return null;
  const bits = (start, n) => {
    let v = 0;
    for (let k = 0; k < n; k++) v |= ((bytes[(start + k) >> 3] >> ((start + k) & 7)) & 1) << k;
    return v;
  };
  const owner = bits(4, 2), onRoll = bits(6, 1);
  return relative(2 ** bits(0, 4), owner === 3 ? -1 : owner, onRoll, [bits(36, 15), bits(51, 15)], bits(21, 15), Boolean(bits(7, 1)));
}
