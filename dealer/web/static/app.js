// The league page: renders a snapshot (dealer/web/view.py) and, live, every snapshot the dealer
// pushes over Server-Sent Events; in report.html the snapshot is embedded. Charts are uPlot's.
// The DOM and number helpers (el, byName, signed, interval) are dom.js's, a hand on the felt with its
// step controls (cardNode, handAt) table.js's: both shared with the arena's pages.
"use strict";

// Names (of bots, events, matches) come from the league file: keys such as "constructor",
// "__proto__" or "toString" are data, so every lookup by name goes through a Map, never `obj[name]`
// or `name in obj` (which would find Object.prototype's members).
const charts = new Map();  // bot -> uPlot instance
const view = { hand: null, step: 0, held: null };  // the table view's selection, kept across updates
let current = null;

// A JSON Merge Patch (RFC 7386, dealer/web/delta.py) merged into `target` in place: a key set to null
// is removed (so a missing key reads as null: compare with `== null`). Keys are names too: each is
// set as an own property, never through `target[key] = ...` (which "__proto__" would turn into a prototype).
function mergePatch(target, patch) {
  if (patch === null || typeof patch !== "object" || Array.isArray(patch)) return patch;
  const out = target !== null && typeof target === "object" && !Array.isArray(target) ? target : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete out[key];
    else Object.defineProperty(out, key, { value: mergePatch(Object.hasOwn(out, key) ? out[key] : undefined, value),
      writable: true, enumerable: true, configurable: true });
  }
  return out;
}

const handList = (data) => Object.values(data.hands ?? {}).sort((a, b) => b.seq - a.seq);  // newest first
const bb = (x) => (x >= 0 ? "+" : "") + x.toFixed(1);
const matchesOf = (total) => (total === 1 ? "match" : "matches");  // "1 of 1 match", "2 of 5 matches"

function standingsTable(lines, withPoints) {
  const rated = lines.some((s) => s.rating);
  const head = ["#", "bot", ...(withPoints ? ["points"] : []), "hands", "bb/100 (95% CI)", ...(rated ? ["rating (95% CI)"] : []), "failures"];
  const rows = lines.map((s, k) => el("tr", { "data-bot": s.name },
    el("td", {}, k + 1), el("td", {}, s.name), ...(withPoints ? [el("td", {}, s.points)] : []),
    el("td", {}, s.hands),
    el("td", {}, signed(s.bb_per_100), " ", el("span", { class: "ci" }, interval(s.ci95))),
    ...(rated ? [el("td", {}, s.rating ? s.rating.mu.toFixed(1) : "-", " ",
      el("span", { class: "ci" }, s.rating ? interval(s.rating.ci95, 1, false) : ""))] : []),
    el("td", {}, (s.stopped ? `stopped in ${s.stopped} match${s.stopped === 1 ? "" : "es"}: ` : "") +
      ([...byName(s.faults)].map(([r, n]) => `${r} ${n}`).join(", ") || "-"))));
  return el("table", {}, el("tr", {}, head.map((h) => el("th", {}, h))), rows);
}

function headToHead(data) {
  const table = new Map([...byName(data.head_to_head)].map(([a, row]) => [a, byName(row)]));
  const cis = new Map([...byName(data.head_to_head_ci95)].map(([a, row]) => [a, byName(row)]));
  const names = [...table.keys()].sort();
  if (!names.length) return el("p", { class: "muted" }, "No heads-up matches yet.");
  const top = Math.max(1, ...names.flatMap((a) => [...table.get(a).values()].map(Math.abs)));
  const rows = names.map((a) => el("tr", {}, el("th", {}, a), names.map((b) => {
    if (!table.get(a).has(b)) return el("td", { class: "insig" }, a === b ? "" : "-");
    const mean = table.get(a).get(b), ci = cis.get(a)?.get(b);
    const significant = ci && (ci[0] > 0 || ci[1] < 0);
    const cls = significant ? (mean > 0 ? "sig-pos" : "sig-neg") : "insig";
    return el("td", { class: cls, style: `--a:${(0.25 + 0.65 * Math.abs(mean) / top).toFixed(2)}`, "data-significant": significant ? "1" : "0" },
      signed(mean), el("br"), el("span", { class: "ci" }, interval(ci)));
  })));
  return el("table", { class: "matrix" }, el("tr", {}, el("th", {}, ""), names.map((n) => el("th", {}, n))), rows);
}

function drawCharts(data) {
  const box = document.getElementById("charts");
  const w = data.winnings, bots = byName(w.bots);
  const names = [...bots.keys()];
  if (!box.firstChild || box.dataset.bots !== names.join(",")) {
    box.replaceChildren(el("div", { class: "charts" }));
    charts.forEach((c) => c.destroy());
    charts.clear();
    box.dataset.bots = names.join(",");
  }
  const grid = box.firstChild;
  for (const name of names) {
    const s = bots.get(name);
    const series = [w.x, s.raw, s.adjusted, s.low, s.high];
    if (charts.has(name)) { charts.get(name).setData(series); continue; }
    const holder = el("div", { class: "chart", "data-bot": name }, el("h3", {}, name, " (bb) ",
      el("span", { class: "key raw" }, "— raw"), " ", el("span", { class: "key adj" }, "- - all-in adjusted"), " ",
      el("span", { class: "key band" }, "▮ 95% band")));
    grid.append(holder);
    const opts = {
      width: Math.max(260, Math.floor(grid.clientWidth / Math.min(names.length, 2)) - 12), height: tv ? 260 : 190,
      series: [
        { label: "hands" },
        { label: "raw", stroke: "#4fc3f7", width: 2 },
        { label: "all-in adjusted", stroke: "#ffb74d", width: 2, dash: [6, 4] },
        { label: "95% low", stroke: "rgba(79,195,247,0.3)" },
        { label: "95% high", stroke: "rgba(79,195,247,0.3)" },
      ],
      bands: [{ series: [4, 3], fill: "rgba(79,195,247,0.15)" }],
      // No axis label: uPlot draws it inside the axis' width, over wide tick numbers; the unit is in the title.
      axes: [{ stroke: "#9aa5b4", grid: { stroke: "#232c38" }, font: axisFont() },
        { stroke: "#9aa5b4", grid: { stroke: "#232c38" }, font: axisFont(), size: (u, values) => axisSize(values) }],
      scales: { x: { time: false } },
      legend: { show: false },
    };
    charts.set(name, new uPlot(opts, series, holder));
  }
}

const tv = location.pathname.endsWith("/tv") || document.body.classList.contains("tv");
const axisFont = () => (tv ? "20px system-ui" : "12px system-ui");
// Wide enough for the widest tick number at the axis' font, so no number runs into the plot or another.
const axisSize = (values) => 16 + (tv ? 12 : 7) * Math.max(3, ...(values ?? []).map((v) => String(v).length));

const handKey = (h) => `${h.match}|${h.table}|${h.hand}`;

function tableView(data) {
  const box = document.getElementById("tableview");
  const hands = handList(data);
  if (!hands.length) { box.replaceChildren(el("p", { class: "muted" }, "No finished hand yet.")); return; }
  // The hand chosen stays on screen while newer hands push it out of the snapshot's recent ones.
  let hand = hands.find((h) => handKey(h) === view.hand) ?? (view.held && handKey(view.held) === view.hand ? view.held : null);
  if (!hand) { hand = hands[0]; view.hand = handKey(hand); view.step = 0; }
  view.held = hand;
  if (!hands.includes(hand)) hands.unshift(hand);
  const steps = hand.steps, k = Math.min(view.step, steps.length - 1), step = steps[k];
  const go = (to) => { view.step = Math.max(0, Math.min(steps.length - 1, to)); tableView(current); };
  const select = el("select", { "data-testid": "hand-select", onchange: (e) => { view.hand = e.target.value; view.step = 0; tableView(current); } },
    hands.map((h) => { const o = el("option", { value: handKey(h) }, `${h.match} · table ${h.table} · hand ${h.hand + 1}`); if (handKey(h) === view.hand) o.selected = true; return o; }));
  box.replaceChildren(...handAt(hand, k, go, select));
}

const LIVE_NONE = { roster: [], now: [], next: [], standings: { provisional: false, lines: [] } };

function live(data) {
  const l = data.live ?? LIVE_NONE;
  document.getElementById("roster").replaceChildren(el("div", { class: "roster" },
    l.roster.map((b) => el("span", { class: "chip", "data-bot": b.name, title: b.events.join(", ") }, b.name))));
  document.getElementById("now").replaceChildren(l.now.length ? el("div", { class: "now" }, l.now.map((m) =>
    el("div", { class: "match", "data-match": m.match }, el("h3", {}, m.match),
      el("table", {}, m.tables.map((t) => el("tr", { "data-table": t.table },
        el("td", { class: "muted" }, `table ${t.table}`),
        el("td", { class: "hands", "data-testid": "table-hands" }, `${t.hands}${m.hands ? "/" + m.hands : ""} hands`),
        t.seats.map((name, k) => el("td", { class: t.bb[k] >= 0 ? "up" : "down" }, `${name} ${bb(t.bb[k])}`)))))))) :
    el("p", { class: "muted" }, data.finished ? "Every match has been played." : "Starting ..."));
  document.getElementById("next").replaceChildren(l.next.length ? el("ol", { class: "next" }, l.next.map((m) =>
    el("li", {}, `${m.match}: ${m.bots.join(" · ")}`))) : el("p", { class: "muted" }, "Nothing left to start."));
  const s = l.standings;
  const badge = document.getElementById("provisional");
  badge.textContent = s.provisional ? "provisional" : data.finished ? "final" : "";
  badge.classList.toggle("on", s.provisional);
  document.getElementById("live-standings").replaceChildren(el("table", {},
    el("tr", {}, ["#", "bot", "hands", "bb won", "bb/100"].map((h) => el("th", {}, h))),
    s.lines.map((line, k) => el("tr", { "data-bot": line.name }, el("td", {}, k + 1), el("td", {}, line.name),
      el("td", {}, line.hands.toLocaleString()), el("td", {}, bb(line.bb)), el("td", {}, bb(line.bb_per_100))))));
}

// TV mode: one table replays finished hands by itself (every hand the snapshot holds is one whose
// duplicate twins have all finished), big pots and showdowns first, newer before older; each hand
// is played once while unplayed ones remain. ?speed=N plays N times faster (tests).
const speed = Math.max(0.1, Number(new URLSearchParams(location.search).get("speed")) || 1);
const STEP_MS = 1100, DEAL_MS = 1600, WINNER_MS = 3500;
const tvPlay = { hand: null, step: 0, played: new Set(), shown: 0 };

function pickHand(data) {
  let hands = handList(data).slice(0, 16);  // the newest few: the room follows the league as it goes
  if (!hands.length) return null;
  if (hands.every((h) => tvPlay.played.has(handKey(h)))) tvPlay.played.clear();
  hands = hands.filter((h) => !tvPlay.played.has(handKey(h)));
  const worth = (h, k) => (h.pot || 0) * (h.showdown ? 2 : 1) * (1 - k / 32);
  return hands.map((h, k) => [worth(h, k), h]).sort((a, b) => b[0] - a[0])[0][1];
}

function tvTick() {
  let wait = 700;
  if (current) {
    if (tvPlay.hand && tvPlay.step < tvPlay.hand.steps.length - 1) {
      tvPlay.step += 1;
      wait = tvPlay.step === tvPlay.hand.steps.length - 1 ? WINNER_MS : STEP_MS;
    } else {
      if (tvPlay.hand) tvPlay.played.add(handKey(tvPlay.hand));
      tvPlay.hand = pickHand(current);
      tvPlay.step = 0;
      if (tvPlay.hand) { tvPlay.shown += 1; wait = DEAL_MS; }
    }
    tvTable();
  }
  setTimeout(tvTick, wait / speed);
}

function tvTable() {
  const box = document.getElementById("tv-table"), hand = tvPlay.hand;
  if (!hand) { box.replaceChildren(el("div", { class: "tvcaption muted" }, "The first hands are being played ...")); return; }
  const step = hand.steps[tvPlay.step], last = tvPlay.step === hand.steps.length - 1;
  const winners = new Set(last ? step.winners ?? hand.winners : []);
  const actor = step.action.split(" ")[0];
  box.dataset.hand = handKey(hand);
  box.dataset.shown = String(tvPlay.shown);
  const seats = el("div", { class: "seats" }, hand.players.map((name, p) => el("div", {
    class: "seat" + (step.folded[p] ? " folded" : "") + (winners.has(name) ? " winner" : "") + (!last && name === actor ? " acting" : ""),
  }, el("div", {}, el("b", {}, name)),
    el("div", {}, hand.cards[p] ? [cardNode(hand.cards[p].slice(0, 2)), cardNode(hand.cards[p].slice(2, 4))] :
      [el("span", { class: "card back" }, "??"), el("span", { class: "card back" }, "??")]),
    el("div", {}, `stack ${step.stacks[p].toLocaleString()}`),
    el("div", { class: "bet" }, last ? (hand.won[p] > 0 ? `+${hand.won[p].toLocaleString()}` : "") : step.bets[p] ? `bet ${step.bets[p].toLocaleString()}` : ""))));
  const felt = el("div", { class: "felt tvfelt" }, seats,
    el("div", { class: "board" }, step.board.map(cardNode)),
    el("div", { class: "pot" }, `pot ${step.pot.toLocaleString()}`));
  box.replaceChildren(
    el("div", { class: "tvtitle" }, `${hand.match} · table ${hand.table} · hand ${hand.hand + 1}${hand.showdown ? " · showdown" : ""}`),
    felt,
    el("div", { class: "tvcaption", "data-testid": "tv-action" }, last ? "" : step.action),
    el("div", { class: "tvwinner", "data-testid": "tv-winner" }, last ? step.action : ""));
}

function faults(data) {
  const box = document.getElementById("faults");
  const entries = [...byName(data.failures)];
  if (!entries.length) { box.replaceChildren(el("p", { class: "muted" }, "No faults.")); return; }
  const reasons = [...new Set(entries.flatMap(([, c]) => Object.keys(c)))].sort();  // the dealer's fault names
  const table = el("table", {}, el("tr", {}, el("th", {}, ""), el("th", {}, "bot"), reasons.map((r) => el("th", {}, r))),
    entries.map(([name, counts], k) => el("tr", {}, el("td", {}, k + 1), el("td", {}, name), reasons.map((r) => el("td", {}, byName(counts).get(r) || "")))));
  const tails = [...byName(data.log_tails)].flatMap(([match, bots]) => [...byName(bots)].map(([bot, tail]) =>
    el("div", {}, el("h3", {}, `${bot} in ${match}`), el("pre", {}, tail.split("\n").slice(-15).join("\n")))));
  box.replaceChildren(table, ...tails);
}

function render(data) {
  current = data;
  const p = data.progress;
  document.getElementById("league").textContent = data.league;
  document.title = `${data.league}: league night`;
  const report = document.getElementById("report-data") !== null;
  document.body.classList.toggle("report", report);
  document.getElementById("status").textContent = report ? "report" : data.finished ? "final" : "live";
  document.getElementById("bar-fill").style.width = `${(100 * p.done / Math.max(p.total, 1)).toFixed(1)}%`;
  document.getElementById("progress").textContent = `${p.done}/${p.total} ${matchesOf(p.total)} · ${p.hands.toLocaleString()} ${p.hands === 1 ? "hand" : "hands"}` +
    (p.hands_per_s ? ` · ${Math.round(p.hands_per_s).toLocaleString()} hands/s` : "") +
    (!data.finished && p.eta_s != null && p.done ? ` · about ${p.eta_s} s left` : "");
  document.getElementById("overall-rule").textContent = data.ranking;
  document.getElementById("overall").replaceChildren(standingsTable(data.standings, false));
  document.getElementById("overall-done").textContent = data.finished ? "final" : `after ${p.done} of ${p.total} ${matchesOf(p.total)}`;
  live(data);
  const rules = byName(data.event_rankings);
  document.getElementById("events").replaceChildren(...[...byName(data.events)].map(([name, lines]) =>
    el("div", { "data-event": name }, el("h3", {}, name), el("p", { class: "rule" }, rules.get(name)),
      standingsTable(lines, rules.get(name).includes("points")))));
  document.getElementById("h2h").replaceChildren(headToHead(data));
  drawCharts(data);
  tableView(data);
  faults(data);
  document.body.dataset.version = String((Number(document.body.dataset.version) || 0) + 1);
}

if (tv) setTimeout(tvTick, 0);
const embedded = document.getElementById("report-data");
const stream = { state: 0, patch: 0, stateBytes: 0, patchBytes: [] };  // what the event stream sent (tests read it)
window.dealerStream = stream;
if (embedded) {
  render(JSON.parse(embedded.textContent));
} else {
  const open = () => {
    const source = new EventSource("events");
    source.addEventListener("state", (event) => {
      stream.state += 1;
      stream.stateBytes = event.data.length;
      render(JSON.parse(event.data));
      if (current.finished) source.close();  // a finished league's page: nothing more will change
    });
    source.addEventListener("patch", (event) => {
      stream.patch += 1;
      stream.patchBytes.push(event.data.length);
      render(mergePatch(current, JSON.parse(event.data)));
      if (current.finished) source.close();  // the dealer stops after the last patch
    });
    source.onerror = () => { document.getElementById("status").textContent = current && current.finished ? "final (dealer stopped)" : "reconnecting"; };
    return source;
  };
  let source = open();
  window.dealerReconnect = () => { source.close(); source = open(); };  // as a dropped connection would
}
