// The page: the lobby (new games, replays) and the table (play, watch, replay) over the JSON API.
// The table id lives in the address (/table/ID), so a reload resumes the game.
"use strict";

const $ = (selector) => document.querySelector(selector);
const page = { snap: null, id: null, seat: null, selected: null, timer: null, autoplay: false, busy: false };

async function api(method, path, body) {
  const response = await fetch(path, {
    method, headers: { "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const data = await response.json();
  if (!response.ok) throw Object.assign(new Error(data.error || response.statusText), { status: response.status });
  return data;
}

function toast(message) {
  const box = $("#toast");
  box.textContent = message;
  box.hidden = false;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => { box.hidden = true; }, 5000);
}

// ---- lobby ------------------------------------------------------------------------------------

function openTable(data, query = "") {
  history.pushState(null, "", `/table/${data.id}${query}`);
  showTable(data.id, data);
}

function seatSpecs(form) {
  const game = form.game.value, n = game === "heisse-luft" ? 2 : Number(form.players.value);
  const box = form.querySelector(".seat-specs");
  const old = [...box.querySelectorAll("input")].map((input) => input.value);
  box.innerHTML = Array.from({ length: n }, (_, s) =>
    `<label>player_${s} <input name="seat${s}" list="agent-specs" value="${esc(old[s] || (s ? "random" : "heuristic"))}"></label>`).join("");
}

function karten(form) {
  form.querySelectorAll(".karten-only").forEach((el) => { el.hidden = form.game.value !== "heisse-karten"; });
}

async function lobby() {
  $("#lobby").hidden = false;
  $("#table").hidden = true;
  $("#title").textContent = "";
  const agents = (await api("GET", "/api/agents")).agents;
  $("#agent-specs").innerHTML = agents.map((a) => `<option value="${esc(a)}">`).join("");
  const play = $("#play-form"), watch = $("#watch-form"), replay = $("#replay-form");
  for (const form of [play, watch]) {
    form.game.onchange = form.players.oninput = () => { karten(form); if (form === watch) seatSpecs(form); };
    karten(form);
  }
  seatSpecs(watch);
  const seed = (form) => (form.seed.value === "" ? {} : { seed: Number(form.seed.value) });
  play.onsubmit = async (event) => {
    event.preventDefault();
    const n = play.game.value === "heisse-luft" ? 2 : Number(play.players.value);
    const seats = Array.from({ length: n }, () => play.opponent.value.trim());
    const seat = Number(play.seat.value);
    if (!(seat >= 0 && seat < n)) return toast(`your seat must be 0–${n - 1}`);
    seats[seat] = "human";
    try { openTable(await api("POST", "/api/games", { game: play.game.value, seats, ...seed(play) })); }
    catch (error) { toast(error.message); }
  };
  watch.onsubmit = async (event) => {
    event.preventDefault();
    const seats = [...watch.querySelectorAll(".seat-specs input")].map((input) => input.value.trim());
    try { openTable(await api("POST", "/api/games", { game: watch.game.value, seats, ...seed(watch) }), "?autoplay=0.7"); }
    catch (error) { toast(error.message); }
  };
  let records = [];
  replay.file.onchange = async () => {
    const text = await replay.file.files[0].text();
    records = text.split("\n").filter((line) => line.trim()).map((line) => { try { return JSON.parse(line); } catch { return null; } });
    replay.index.innerHTML = records.map((r, i) => r
      ? `<option value="${i}">#${i} ${esc(r.game)}: ${esc((r.seats || []).join(" vs "))} → ${esc((r.returns || []).map((x) => x.toFixed(2)).join(", "))}</option>`
      : `<option disabled>#${i}: not a JSON line</option>`).join("");
    replay.querySelector("button").disabled = !records.some(Boolean);
  };
  replay.onsubmit = async (event) => {
    event.preventDefault();
    try { openTable(await api("POST", "/api/replays", { record: records[Number(replay.index.value)] })); }
    catch (error) { toast(error.message); }
  };
}

// ---- table ------------------------------------------------------------------------------------

const pace = () => Number($("#pace").value) * 1000;
const seatQuery = () => (page.seat === null ? "" : `?seat=${page.seat}`);

async function showTable(id, data) {
  $("#lobby").hidden = true;
  $("#table").hidden = false;
  page.id = id;
  const params = new URLSearchParams(location.search);
  page.seat = params.has("seat") ? Number(params.get("seat")) : null;
  if (params.has("autoplay")) {
    page.autoplay = true;
    $("#pace").value = Number(params.get("autoplay")) || 0.7;
  }
  try { if (data) render(data); else await refresh(); schedule(); }
  catch (error) { $("#board").innerHTML = `<p class="error">${esc(error.message)}</p><p><a href="/">Start a new game</a></p>`; }
}

const refresh = async () => render(await api("GET", `/api/games/${page.id}${seatQuery()}`));

async function act(method, path, body) {
  if (page.busy) return;
  page.busy = document.body.dataset.busy = true; // the attribute tells tests a request is out
  try { render(await api(method, `/api/games/${page.id}/${path}${seatQuery()}`, body)); }
  catch (error) {
    if (error.status === 409) await refresh(); // another tab moved first
    else { toast(error.message); page.autoplay = false; render(page.snap); }
  } finally { page.busy = false; delete document.body.dataset.busy; schedule(); }
}

function schedule() {
  clearTimeout(page.timer);
  const snap = page.snap;
  if (!snap || snap.over) return;
  const agentMoves = snap.mode === "play" ? snap.agent_to_move
    : snap.mode === "watch" ? page.autoplay && snap.agent_to_move
      : page.autoplay && snap.step < snap.steps;
  if (agentMoves) page.timer = setTimeout(() => act("POST", "step"), pace());
}

function statusText(snap) {
  const view = snap.view;
  if (snap.over) return "Game over";
  const mover = snap.to_move;
  if (snap.mode === "play" && mover === snap.human) return "Your move";
  const who = `player_${mover} (${esc(snap.seats[mover])})`;
  return snap.mode === "replay" ? `${who} to move · move ${snap.step} of ${snap.steps}` : `${who} to move${view.phase ? ` · ${view.phase}` : ""}`;
}

function resultText(snap) {
  if (!snap.over) return "";
  const r = snap.returns, best = Math.max(...r);
  const winners = r.map((x, s) => (x === best ? s : null)).filter((s) => s !== null);
  let verdict;
  if (r.every((x) => x === 0)) verdict = snap.game === "heisse-luft" && snap.view.winner === null ? "No winner (turn limit)" : "A draw";
  else if (snap.mode === "play") verdict = !winners.includes(snap.human) ? "You lose" : winners.length > 1 ? "A shared win" : "You win!";
  else verdict = `${winners.map((s) => `player_${s}`).join(" and ")} win${winners.length > 1 ? "" : "s"}`;
  const name = (s) => window.Boards.who(snap, s);
  const scores = snap.view.totals ? `<p>Scores: ${snap.view.totals.map((t, s) => `${name(s)} <b>${t}</b>`).join(", ")}</p>` : "";
  return `<h2>${verdict}</h2>${scores}<p>Rewards: ${r.map((x, s) => `${name(s)} ${x > 0 ? "+" : ""}${x.toFixed(2)}`).join(", ")}</p>`;
}

function render(snap) {
  page.snap = snap;
  const board = window.Boards[snap.game];
  $("#title").textContent = `${board.title} · ${snap.mode}`;
  $("#rules-link").href = `/rules#${board.rules}`;
  if (!snap.moves.some((m) => m.card === page.selected && m.kind === "play")) page.selected = null;
  $("#board").innerHTML = board.board(snap, page.selected);
  $("#last").innerHTML = board.last(snap);
  $("#log").innerHTML = snap.log.map((m) => `<li><b>${window.Boards.who(snap, m.seat)}</b> ${esc(m.name)}` +
    (m.timed_out ? ` <small class="late" title="the agent ran out of time for this decision">(out of time: the heuristic's move)</small>` : "") + `</li>`).join("");
  $("#log").start = snap.step - snap.log.length + 1;
  $("#status").innerHTML = statusText(snap);
  $("#result").hidden = !snap.over;
  $("#result").innerHTML = resultText(snap);
  const spectator = snap.mode !== "play";
  $("#seat-choice").hidden = !spectator;
  $("#seat-select").innerHTML = snap.seats.map((_, s) => `<option value="${s}"${s === snap.seat ? " selected" : ""}>player_${s}</option>`).join("");
  $("#step").hidden = snap.mode !== "watch";
  $("#step").disabled = snap.over;
  $("#autoplay").hidden = !spectator;
  $("#autoplay").textContent = page.autoplay ? "Pause" : "Play";
  $("#replay-controls").hidden = snap.mode !== "replay";
  if (snap.mode === "replay") Object.assign($("#replay-slider"), { max: snap.steps, value: snap.step });
  wire(snap);
}

function wire(snap) {
  for (const card of document.querySelectorAll("#board .hand .card.legal")) {
    card.onclick = () => {
      if (card.dataset.action !== undefined) return act("POST", "move", { action: Number(card.dataset.action) });
      page.selected = page.selected === card.dataset.card ? null : card.dataset.card; // HL: then a stage side
      render(snap);
    };
  }
  for (const side of document.querySelectorAll("#board .side.target")) {
    side.onclick = () => {
      const move = snap.moves.find((m) => m.kind === "play" && m.card === page.selected &&
        m.stage === Number(side.dataset.stage) && m.side === Number(side.dataset.side));
      page.selected = null;
      act("POST", "move", { action: move.action });
    };
  }
  for (const button of document.querySelectorAll("#board button.move")) {
    button.onclick = () => act("POST", "move", { action: Number(button.dataset.action) });
  }
}

function controls() {
  $("#step").onclick = () => act("POST", "step");
  $("#autoplay").onclick = () => { page.autoplay = !page.autoplay; render(page.snap); schedule(); };
  $("#seat-select").onchange = () => {
    page.seat = Number($("#seat-select").value);
    history.replaceState(null, "", `/table/${page.id}${seatQuery()}`);
    refresh().catch((error) => toast(error.message));
  };
  const seek = (step) => act("POST", "seek", { step: Math.max(0, Math.min(step, page.snap.steps)) });
  const targets = { first: () => 0, back: () => page.snap.step - 1, next: () => page.snap.step + 1, last: () => page.snap.steps };
  for (const button of document.querySelectorAll("[data-seek]")) button.onclick = () => seek(targets[button.dataset.seek]());
  $("#replay-slider").onchange = () => seek(Number($("#replay-slider").value));
}

controls();
window.onpopstate = () => location.reload();
const match = location.pathname.match(/^\/table\/([\w-]+)$/);
if (match) showTable(match[1]); else lobby();
