// bgzero's page: the tabs, the agents' lists, and the start. Each tab lives in its own file (play.js, position.js,
// frames.js) over dom.js's API helpers and board.js's board.
"use strict";

async function start() {
  document.querySelectorAll(".tab").forEach((t) => t.onclick = () => {
    document.querySelectorAll(".tab, .panel").forEach((n) => n.classList.remove("active"));
    t.classList.add("active");
    $(t.dataset.tab).classList.add("active");
  });
  wirePlay(); wirePosition(); wireFrames();
  for (const id of ["play-roll", "play-double", "play-take", "play-pass", "play-confirm", "play-undo", "play-hint",
                    "play-next", "play-resign"]) $(id).disabled = true;
  drawBoard($("play-board"), START, {});
  const agents = await getJSON("/api/agents");
  document.querySelectorAll("select.agents").forEach((s) => {
    const list = s.classList.contains("networks") ? agents.networks : agents.agents;
    fill(s, list.map((a) => h("option", {selected: a === agents.default}, a)));
  });
  if (agents.agents.includes("pubeval")) $("watch-b").value = "pubeval";
  await resumePlay();
}

// For the browser tests: the game as the page holds it, and the move being composed.
window.bg = {game: () => game, hops: () => hopsNow(), consistentPlays: () => consistentPlays(), busy: () => busy,
             forced: () => forcedPlays, ready: false};
start().then(() => { window.bg.ready = true; }, showError);
