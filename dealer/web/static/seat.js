// A person's seat (dealer/web/seat.py): the state the dealer sent this seat, pushed over
// Server-Sent Events; an action is a POST to seat/act, answered by the dealer as any bot's reply
// (same rules, same clock: the time left counts from when this page got the request).
"use strict";

let state = null;
let asked = null;  // { id, at }: the open request and when this page got it

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "class") node.className = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value);
  }
  for (const child of children.flat()) node.append(child instanceof Node ? child : String(child));
  return node;
}

function cardNode(card) {
  return el("span", { class: "card" + ("hd".includes(card[1]) ? " red" : "") }, card[0] + { s: "♠", h: "♥", d: "♦", c: "♣" }[card[1]]);
}

const signed = (x) => (x > 0 ? "+" : "") + x.toLocaleString();

async function act(action, amount = 0) {
  document.getElementById("actions").replaceChildren(el("p", { class: "muted" }, "sent ..."));
  const response = await fetch("seat/act", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ action, amount }) });
  if (!response.ok) document.getElementById("notices").prepend(el("div", {}, (await response.json()).error));
}

function table(hand, match) {
  if (!hand) return el("p", { class: "muted" }, "Waiting for the first hand ...");
  const players = match ? match.players : hand.stacks.map((_, k) => `seat ${k}`);
  const shown = new Map(Object.entries(hand.result ? hand.result.shown : {}));
  const seats = el("div", { class: "seats" }, players.map((name, p) => {
    const mine = p === hand.seat, cards = mine ? hand.hole_cards.join("") : shown.get(name) || "";
    return el("div", { class: "seat" + (hand.folded[p] ? " folded" : "") + (mine ? " mine" : ""), "data-testid": mine ? "my-seat" : "seat" },
      el("div", {}, el("b", {}, mine && name !== "you" ? `${name} (you)` : name), p === hand.button ? " ·D" : ""),
      el("div", {}, cards ? [cardNode(cards.slice(0, 2)), cardNode(cards.slice(2, 4))] : [el("span", { class: "card back" }, "??"), el("span", { class: "card back" }, "??")]),
      el("div", {}, `stack ${hand.stacks[p].toLocaleString()}`),
      el("div", { class: "bet" }, hand.bets[p] ? `bet ${hand.bets[p].toLocaleString()}` : ""));
  }));
  const result = hand.result ? el("div", { class: "tvwinner", "data-testid": "hand-result" },
    `${hand.result.winners.join(", ") || "no one"} won · you ${signed(hand.result.net)}`) : "";
  return el("div", { class: "felt tvfelt" }, el("div", { class: "tvtitle" }, `hand ${hand.hand + 1}${match ? " of " + match.hands : ""}`),
    seats, el("div", { class: "board", "data-testid": "seat-board" }, hand.board.map(cardNode)),
    el("div", { class: "pot" }, `pot ${(hand.pot + hand.bets.reduce((a, b) => a + b, 0)).toLocaleString()}`), result);
}

function actions(request, hand) {
  const box = document.getElementById("actions");
  if (!request) { box.replaceChildren(); return; }
  const buttons = [];
  if (request.can_fold) buttons.push(el("button", { "data-testid": "act-fold", onclick: () => act("fold") }, "Fold"));
  buttons.push(el("button", { "data-testid": "act-call", onclick: () => act("check_call") },
    request.call_amount ? `Call ${request.call_amount.toLocaleString()}` : "Check"));
  if (request.max_raise_to > 0 && request.min_raise_to > 0) {
    const word = hand && hand.bets.some((b) => b > 0) ? "Raise to" : "Bet";
    const slider = el("input", { type: "range", min: request.min_raise_to, max: request.max_raise_to, step: 1, value: request.min_raise_to, "data-testid": "raise-slider" });
    const number = el("input", { type: "number", min: request.min_raise_to, max: request.max_raise_to, value: request.min_raise_to, "data-testid": "raise-amount" });
    const raise = el("button", { "data-testid": "act-raise", onclick: () => act("bet_raise", Number(number.value)) }, `${word} ${request.min_raise_to.toLocaleString()}`);
    const sync = (value) => { slider.value = number.value = value; raise.textContent = `${word} ${Number(value).toLocaleString()}`; };
    slider.addEventListener("input", () => sync(slider.value));
    number.addEventListener("input", () => sync(number.value));
    buttons.push(el("span", { class: "raise" }, slider, number, raise));
  }
  box.replaceChildren(...buttons);
}

function tick() {
  const clock = document.getElementById("clock");
  const request = state && state.request;
  if (!request || !asked) { clock.textContent = ""; return; }
  const left = request.time_ms - (Date.now() - asked.at);
  const bank = request.bank_ms + Math.min(0, left);
  clock.textContent = left > 0 ? `your turn: ${(left / 1000).toFixed(1)} s` : `your turn: time bank ${(Math.max(0, bank) / 1000).toFixed(1)} s`;
  clock.classList.toggle("late", left < 5000);
}

function render() {
  const { match, hand, request } = state;
  if (request && (!asked || asked.id !== request.request_id)) asked = { id: request.request_id, at: Date.now() };
  if (!request) asked = null;
  document.body.dataset.request = request ? String(request.request_id) : "";  // what is asked now (tests wait on it)
  const others = match ? match.players.filter((_, k) => k !== match.seat) : [];
  document.getElementById("title").textContent = others.length ? `${state.name} against ${others.join(", ")}` : state.name;
  document.getElementById("status").textContent = state.over ? "match over" : request ? "your turn" : "waiting for the others";
  document.getElementById("score").textContent = `${state.played} hands played · ${signed(state.total)} chips`;
  document.getElementById("score").dataset.played = String(state.played);
  document.getElementById("table").replaceChildren(table(hand, match));
  actions(request, hand);
  document.getElementById("log").replaceChildren(...(hand ? hand.log : []).map((line) => el("li", {}, line)));
  document.getElementById("notices").replaceChildren(...state.notices.map((n) => el("div", {}, n)));
  document.getElementById("results").replaceChildren(state.results.length ? el("table", {},
    el("tr", {}, ["hand", "board", "won by", "you"].map((h) => el("th", {}, h))),
    state.results.map((r) => el("tr", {}, el("td", {}, r.hand + 1), el("td", {}, r.board.map(cardNode)),
      el("td", {}, r.winners.join(", ")), el("td", { class: r.net >= 0 ? "up" : "down" }, signed(r.net))))) :
    el("p", { class: "muted" }, "No hand finished yet."));
  tick();
}

const source = new EventSource("seat/events");
source.onmessage = (event) => { state = JSON.parse(event.data); render(); if (state.over) source.close(); };
source.onerror = () => { if (!state || !state.over) document.getElementById("status").textContent = "reconnecting ..."; };
setInterval(tick, 100);
