// A replayed hand (dealer/web/view.py's replay: its players, cards and steps) on the felt at one
// step, with the controls that step through it: the league page's table view (app.js) and the
// arena's match page (dealer/arena/static/arena.js). Names and actions go in as text (dom.js's el).
"use strict";

function cardNode(card) {
  return el("span", { class: "card" + ("hd".includes(card[1]) ? " red" : "") }, card[0] + { s: "♠", h: "♥", d: "♦", c: "♣" }[card[1]]);
}

// The controls (``before`` first: a hand picker, say) and the felt of ``hand`` at step ``k``;
// ``go(j)`` is called with the step a control asks for.
function handAt(hand, k, go, ...before) {
  const steps = hand.steps, step = steps[k];
  const controls = el("div", { class: "controls" }, ...before,
    el("button", { onclick: () => go(0) }, "first"), el("button", { "data-testid": "step-prev", "aria-label": "previous step", onclick: () => go(k - 1) }, "◀"),
    el("button", { "data-testid": "step-next", "aria-label": "next step", onclick: () => go(k + 1) }, "▶"), el("button", { onclick: () => go(steps.length - 1) }, "last"),
    el("span", { "data-testid": "step-label", "aria-live": "polite" }, `step ${k + 1}/${steps.length}: ${step.action}`));
  const seats = el("div", { class: "seats" }, hand.players.map((name, p) => el("div", { class: "seat" + (step.folded[p] ? " folded" : ""), "data-testid": "seat" },
    el("div", {}, el("b", {}, name)),
    el("div", {}, hand.cards[p] ? [cardNode(hand.cards[p].slice(0, 2)), cardNode(hand.cards[p].slice(2, 4))] : "??"),
    el("div", { class: "muted" }, `stack ${step.stacks[p]}`), el("div", {}, step.bets[p] ? `bet ${step.bets[p]}` : ""))));
  const felt = el("div", { class: "felt" }, seats,
    el("div", { class: "board", "data-testid": "board" }, step.board.map(cardNode)),
    el("div", { class: "pot", "data-testid": "pot" }, `pot ${step.pot}`));
  return [controls, felt];
}
