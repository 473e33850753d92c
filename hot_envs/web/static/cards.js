// Drawing the two games' tables from a snapshot (one seat's view + public facts), as HTML/SVG.
// Every function returns an HTML string; app.js puts it in the page and wires the clicks.
"use strict";

const esc = (text) => String(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const rule = (id, text) => `<a class="rule" href="/rules#${id}" target="_blank" title="docs/rules.md ${id}">${text || id}</a>`;

function seatName(snap, seat) {
  const spec = snap.seats[seat];
  if (snap.mode === "play" && seat === snap.human) return "You";
  return `player_${seat}<small> · ${esc(spec)}</small>`;
}

// A seat as the text beside the table names it: "You" for the player, player_K otherwise.
const who = (snap, seat) => (snap.mode === "play" && seat === snap.human ? "You" : `player_${seat}`);

// A trophy cup drawn in SVG (an emoji needs a font many systems lack); the suit colours it.
const TROPHY = `<svg class="trophy-icon" viewBox="0 0 16 16" aria-hidden="true">` +
  `<path d="M4 2h8v3a4 4 0 0 1-8 0zM7 8.5h2V12H7zM4.5 12h7v2h-7z" fill="currentColor"/>` +
  `<path d="M4 3H2v1.5A2.5 2.5 0 0 0 4.5 7M12 3h2v1.5A2.5 2.5 0 0 1 11.5 7" fill="none" stroke="currentColor" stroke-width="1.2"/></svg>`;

// ---- Heiße Luft (docs/rules.md HL-1 … HL-8) ----------------------------------------------------

const SUIT = {
  H: { symbol: "♥", name: "hearts" }, D: { symbol: "♦", name: "diamonds" },
  C: { symbol: "♣", name: "clubs" }, S: { symbol: "♠", name: "spades" },
};
const FACE = { 1: "A", 11: "J", 12: "Q", 13: "K" };
const TROPHY_PRICE = { H: 7, D: 6, C: 5, S: 4 }; // HL-1.4

function balloon(code, extra = "", attrs = "") {
  const suit = code[0], value = Number(code.slice(1));
  const face = FACE[value] || value;
  return `<div class="card balloon suit-${suit} ${extra}" data-card="${code}" ${attrs}>` +
    `<span class="corner">${face}<br>${SUIT[suit].symbol}</span>` +
    `<span class="pip">${SUIT[suit].symbol}</span><span class="value">${value}</span></div>`;
}

const prize = (suit, n) => `<span class="prize suit-${suit}" title="${SUIT[suit].name} prize">${SUIT[suit].symbol}${n === undefined ? "" : `<b>${n}</b>`}</span>`;

function terrainIcon(terrain) {
  return terrain === "mountain"
    ? `<svg viewBox="0 0 40 20" class="terrain-icon"><path d="M0 20 L12 4 L19 13 L26 2 L40 20 Z" fill="#8d6e63"/><path d="M26 2 L22 8 L26 7 L30 8 Z M12 4 L9 8 L12 7.5 L15 8 Z" fill="#fff"/></svg>`
    : `<svg viewBox="0 0 40 20" class="terrain-icon"><path d="M0 14 Q10 8 20 13 T40 12 L40 20 L0 20 Z" fill="#7cb342"/><circle cx="31" cy="6" r="4" fill="#ffd54f"/></svg>`;
}

// One side of a stage: a slot per prize, filled with the side's card of that suit (HL-3.1).
function stageSide(stage, number, seat, targets) {
  const cards = stage.sides[seat].slice();
  const slots = stage.prizes.map((suit) => {
    const at = cards.findIndex((c) => c[0] === suit);
    if (at < 0) return `<div class="slot suit-${suit}">${SUIT[suit].symbol}</div>`;
    return balloon(cards.splice(at, 1)[0], "small");
  }).join("");
  const sum = stage.sides[seat].reduce((total, c) => total + Number(c.slice(1)), 0);
  const target = targets.has(`${number}:${seat}`) ? " target" : "";
  return `<div class="side${target}" data-stage="${number}" data-side="${seat}">` +
    `<div class="slots">${slots}</div><span class="sum">${sum}</span></div>`;
}

function luftStage(stage, number, me, targets) {
  if (!stage.in_play) return `<div class="stage out"><h4>Stage ${number}</h4><p>out of the game ${rule("HL-5.4")}</p></div>`;
  const rule_ = stage.terrain === "mountain" ? "higher sum wins" : "lower sum wins";
  return `<div class="stage ${stage.terrain}">` +
    `<h4>Stage ${number}</h4>` +
    stageSide(stage, number, 1 - me, targets) +
    `<div class="stage-middle">${terrainIcon(stage.terrain)}` +
    `<div class="prizes">${stage.prizes.map((s) => prize(s)).join("")}</div>` +
    `<div class="terrain-name">${stage.terrain} · ${rule("HL-4.2", rule_)}</div>` +
    (stage.last_player === null ? "" : `<div class="last-card">last card: player_${stage.last_player} ${rule("HL-4.3", "(wins ties)")}</div>`) +
    `</div>` +
    stageSide(stage, number, me, targets) + `</div>`;
}

function luftPlayer(snap, seat, view) {
  const won = view.prizes_won[seat];
  const trophies = view.trophies[seat].map((s) => `<span class="trophy suit-${s}" title="${SUIT[s].name} trophy">${TROPHY}${SUIT[s].symbol}</span>`).join("") || "<span class='none'>no trophy</span>";
  const toMove = view.current_player === seat ? " to-move" : "";
  return `<div class="player${toMove}"><span class="who">${seatName(snap, seat)}</span>` +
    `<span class="prizes">${Object.keys(SUIT).map((s) => prize(s, won[s])).join("")}</span>` +
    `<span class="trophies">${trophies}</span></div>`;
}

function luftBoard(snap, selected) {
  const view = snap.view, me = snap.seat, other = 1 - me;
  const plays = snap.moves.filter((m) => m.kind === "play");
  const targets = new Set(plays.filter((m) => m.card === selected).map((m) => `${m.stage}:${m.side}`));
  const playable = new Set(snap.moves.filter((m) => m.kind === "play" || m.kind === "pick").map((m) => m.card));
  const picks = new Map(snap.moves.filter((m) => m.kind === "pick").map((m) => [m.card, m.action]));
  const known = new Set(view.known_opponent_cards);
  const hidden = view.opponent_hand_size - known.size;
  const opponentHand = view.known_opponent_cards.map((c) => balloon(c, "small known")).join("") +
    `<div class="card back small"></div>`.repeat(Math.max(hidden, 0));
  const hand = view.hand.map((c) => {
    const cls = [playable.has(c) ? "legal" : "", c === selected ? "selected" : "",
      view.exchange_selection.includes(c) ? "picked" : ""].join(" ");
    const attrs = picks.has(c) ? `data-action="${picks.get(c)}"` : "";
    return balloon(c, cls, attrs);
  }).join("");
  const buttons = snap.moves.filter((m) => !["play", "pick"].includes(m.kind)).map((m) =>
    `<button class="move" data-action="${m.action}">${esc(m.name)}</button>`).join("");
  const phase = {
    exchange: `Stuck ${rule("HL-3.4")}: pick 1–4 cards to exchange`,
    trophy: `Trophy phase ${rule("HL-6.4")}: claim a trophy or stop ${rule("HL-6.1", "prices")}: ♥7 ♦6 ♣5 ♠4`,
  }[view.phase] || "";
  return `<div class="luft">` +
    `<div class="area opponent">${luftPlayer(snap, other, view)}<div class="hand-row">${opponentHand}</div></div>` +
    `<div class="piles"><span>Draw pile <b>${view.draw_pile_size}</b></span>` +
    `<span>Discard <b>${view.discard_pile.length}</b>${view.discard_pile.length ? balloon(view.discard_pile[0], "tiny") : ""}</span>` +
    `<span>Prize deck <b>${view.prize_deck_size}</b></span>` +
    `<span>Turn <b>${view.turn}</b></span></div>` +
    `<div class="stages">${view.stages.map((s, i) => luftStage(s, i + 1, me, targets)).join("")}</div>` +
    `<div class="area mine">${luftPlayer(snap, me, view)}` +
    (phase ? `<div class="phase">${phase}</div>` : "") +
    `<div class="hand hand-row">${hand}</div><div class="buttons">${buttons}</div></div></div>`;
}

function luftLast(snap) {
  const f = snap.last.flight;
  if (!f) return "";
  const rows = [1 - snap.seat, snap.seat].map((p) =>
    `<div class="flight-side${p === f.winner ? " won" : ""}"><span>${who(snap, p)}</span>` +
    `${f.sides[p].map((c) => balloon(c, "tiny")).join("")}<b>${f.sums[p]}</b></div>`).join("");
  const tie = f.sums[0] === f.sums[1] ? ` — a tie: the last card's player wins ${rule("HL-4.3")}` : "";
  return `<h3>Last flight ${rule("HL-4")}</h3><div class="flight">` +
    `<p>Stage ${f.stage}, ${f.terrain} ${f.prizes.map((s) => prize(s)).join("")}</p>${rows}` +
    `<p><b>${who(snap, f.winner)}</b> take${who(snap, f.winner) === "You" ? "" : "s"} the prizes${tie}</p></div>`;
}

// ---- Heiße Karten (docs/rules.md HK-1 … HK-5) --------------------------------------------------

function hotCard(card, extra = "", attrs = "") {
  const black = card % 2 === 0; // HK-1.1
  const value = black ? `+${card}` : `−${card}`;
  return `<div class="card hot ${black ? "black" : "red"} ${extra}" data-card="${card}" ${attrs}>` +
    `<span class="corner">${card}</span><span class="big">${card}</span><span class="value">${value}</span></div>`;
}

function kartenBoard(snap) {
  const view = snap.view, n = view.num_players;
  const legal = new Map(snap.moves.map((m) => [m.card, m.action]));
  const seats = Array.from({ length: n }, (_, i) => (snap.seat + 1 + i) % n).filter((s) => s !== snap.seat);
  const box = (s) => `<div class="player${view.current_player === s ? " to-move" : ""}">` +
    `<span class="who">${seatName(snap, s)}${view.leader === s && !snap.over ? ` <span class="lead" title="leads this trick">lead</span>` : ""}</span>` +
    (s === snap.seat ? "" : `<span class="hand-row" title="${view.hand_sizes[s]} cards">${'<div class="card back mini"></div>'.repeat(view.hand_sizes[s])}</span>`) +
    `<span class="score">score <b>${view.scores[s]}</b></span></div>`;
  const trick = view.trick.map(([s, c]) => `<div class="played">${hotCard(c)}<span>${who(snap, s)}</span></div>`).join("");
  const hint = snap.over ? "The game is over"
    : `${view.leader === snap.seat && snap.mode === "play" ? "You lead" : `${who(snap, view.leader)} leads`} the trick ${rule("HK-3.1")}`;
  const hand = view.hand.map((c) => hotCard(c, legal.has(c) ? "legal" : "", legal.has(c) ? `data-action="${legal.get(c)}"` : "")).join("");
  const totals = view.options.rounds > 1 ? ` · round ${view.round + 1} of ${view.options.rounds}` : "";
  return `<div class="karten">` +
    `<div class="opponents">${seats.map(box).join("")}</div>` +
    `<div class="felt"><div class="trick">${trick || `<p class="hint">${hint}</p>`}</div>` +
    `<div class="piles"><span>Draw pile <b>${view.draw_pile_size}</b></span>` +
    (view.set_aside_count ? `<span>Set aside <b>${view.set_aside_count}</b> ${rule("HK-2.3")}</span>` : "") +
    `<span>Cards played <b>${view.played.length}</b>${totals}</span></div></div>` +
    `<div class="area mine">${box(snap.seat)}<div class="hand hand-row">${hand}</div></div></div>`;
}

function kartenLast(snap) {
  const t = snap.last.trick;
  if (!t) return "";
  return `<h3>Last trick ${rule("HK-3.2")}</h3><div class="last-trick">` +
    t.cards.map(([s, c]) => `<div class="played${s === t.winner ? " won" : ""}">${hotCard(c, "small")}<span>${who(snap, s)}</span></div>`).join("") +
    `</div><p><b>${who(snap, t.winner)}</b> take${who(snap, t.winner) === "You" ? "" : "s"} it: <b>${t.points > 0 ? "+" : ""}${t.points}</b> ${rule("HK-4.1", "points")}</p>`;
}

window.Boards = {
  "heisse-luft": { title: "Heiße Luft", rules: "heisse-luft", board: luftBoard, last: luftLast },
  "heisse-karten": { title: "Heiße Karten", rules: "heisse-karten", board: kartenBoard, last: kartenLast },
  esc,
  who,
};
