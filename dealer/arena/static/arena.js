// The arena's pages (dealer/arena/pages.py): each page's shell names what it shows (body's
// data-page) and where its data is (data-source); this script fills #content from that JSON.
// Every text from a team (names, manifest fields, logs) goes in through dom.js's el(), as text
// nodes: never innerHTML. A logged-in team's own data comes from the API (/api/v1), which knows
// the browser by its session cookie; every request that changes something sends the session's
// CSRF token (the page's <meta name="csrf">).
"use strict";

const csrf = () => document.querySelector('meta[name="csrf"]').content;
const content = () => document.getElementById("content");
const when = (iso) => (iso ? new Date(iso).toLocaleString() : "—");
const plural = (n, one, many) => `${n} ${n === 1 ? one : many}`;  // "1 match", "2 matches"
// A team's page link: shown by its display name (any text of the team's: a text node), found by its name.
const teamLink = (name, display) => el("a", { href: `/teams/${encodeURIComponent(name)}` }, display || name);

async function getJSON(url) {
  const response = await fetch(url, { credentials: "same-origin", headers: { Accept: "application/json" } });
  const body = await response.json().catch(() => ({ error: `${response.status} ${response.statusText}` }));
  if (!response.ok) throw new Error(body.error || `${response.status}`);
  return body;
}

async function send(method, url, body) {
  const headers = { "X-CSRF-Token": csrf(), Accept: "application/json" };
  if (!(body instanceof FormData)) headers["Content-Type"] = "application/json";
  const response = await fetch(url, { method, credentials: "same-origin", headers,
    body: body instanceof FormData ? body : JSON.stringify(body) });
  const answer = await response.json().catch(() => ({ error: `${response.status} ${response.statusText}` }));
  if (!response.ok) throw new Error(answer.error || `${response.status}`);
  return answer;
}

function say(box, text, kind = "muted") {
  box.replaceChildren(el("p", { class: kind, role: kind === "error" ? "alert" : "status" }, text));
}

// Repeats `work` every `ms` while the page is open (and at once); a failed round shows its error.
function every(ms, work, onError) {
  let timer = null;
  const round = async () => {
    try { await work(); } catch (error) { onError(error); }
    timer = setTimeout(round, ms);
  };
  round();
  return () => clearTimeout(timer);
}

// ------------------------------------------------------------------ the leaderboard (public)

const BOARD = [  // column: its heading, how a row shows it, how it sorts (numbers high first)
  { key: "rank", head: "#", show: (r) => r.rank ?? "—", sort: (r) => -(r.rank ?? Infinity) },
  { key: "team", head: "team", show: (r) => [teamLink(r.team, r.display), r.paused ? el("span", { class: "error" }, " paused") : ""], sort: (r) => (r.display || r.team).toLowerCase() },
  { key: "rating", head: "rating (interval)", show: (r) => r.rating == null ? "—" : [r.rating.mu.toFixed(1), " ",
      el("span", { class: "ci" }, `[${r.rating.score.toFixed(1)}, ${(2 * r.rating.mu - r.rating.score).toFixed(1)}]`)], sort: (r) => r.rating?.score ?? -Infinity },
  { key: "bb100", head: "bb/100", show: (r) => r.bb100 == null ? "—" : [signed(r.bb100.mean), " ",
      el("span", { class: "ci" }, interval([r.bb100.low, r.bb100.high]))], sort: (r) => r.bb100?.mean ?? -Infinity },
  { key: "matches", head: "matches", show: (r) => r.matches ?? "—", sort: (r) => r.matches ?? -1 },
  { key: "faulty", head: "faulty", show: (r) => r.rank == null ? "—" : r.faulty, sort: (r) => r.faulty ?? -1 },
  { key: "version", head: "active version", show: (r) => r.active_version ?? "none ready", sort: (r) => r.active_version ?? "" },
  { key: "played", head: "last played", show: (r) => when(r.last_played), sort: (r) => r.last_played ?? "" },
];

function leaderboard() {
  const box = content();
  const state = { rows: [], by: "rank", up: false, query: "" };
  const search = el("input", { type: "search", id: "search", placeholder: "team", "aria-label": "search teams",
    oninput: (e) => { state.query = e.target.value.toLowerCase(); draw(); } });
  const table = el("div", { class: "scroll", "data-testid": "leaderboard" });
  const note = el("p", { class: "muted", role: "status" });
  box.replaceChildren(el("div", { class: "controls" }, el("label", { for: "search" }, "Search "), search), table, note);
  function draw() {
    const column = BOARD.find((c) => c.key === state.by);
    const rows = state.rows.filter((r) => `${r.team} ${r.display}`.toLowerCase().includes(state.query));
    rows.sort((a, b) => { const x = column.sort(a), y = column.sort(b); return (x < y ? 1 : x > y ? -1 : 0) * (state.up ? -1 : 1); });
    const heads = BOARD.map((c) => el("th", { scope: "col", "aria-sort": c.key === state.by ? (state.up ? "ascending" : "descending") : "none" },
      el("button", { class: "sort", onclick: () => { state.up = state.by === c.key ? !state.up : false; state.by = c.key; draw(); } }, c.head)));
    table.replaceChildren(el("table", { class: "board" }, el("thead", {}, el("tr", {}, heads)),
      el("tbody", {}, rows.map((r) => el("tr", { "data-team": r.team }, BOARD.map((c) => el("td", {}, c.show(r))))))));
    if (!rows.length) table.append(el("p", { class: "muted" }, state.rows.length ? "No team matches the search." : "No team yet."));
  }
  every(5000, async () => {
    const data = await getJSON(document.body.dataset.source);
    state.rows = data.teams;
    note.textContent = data.rated ? data.ranking : "No ladder match rated yet: teams are listed by name.";
    draw();
  }, (error) => { note.textContent = `Could not refresh: ${error.message}`; });
}

// ------------------------------------------------------------------ a team's public page

const KIND = { ranked: "ranked", scrimmage: "scrimmage" };

// A list of matches: each links to its page; a seat's chips won once it is over.
function matchTable(list, empty) {
  if (!list.length) return el("p", { class: "muted" }, empty);
  const seat = (s) => [teamLink(s.team, s.display), ` ${s.version}`, s.net == null ? "" : el("span", { class: "ci" }, ` ${s.net >= 0 ? "+" : ""}${s.net}`)];
  return el("div", { class: "scroll" }, el("table", { class: "matches" },
    el("thead", {}, el("tr", {}, ["match", "kind", "seats (chips won)", "state", "when"].map((h) => el("th", { scope: "col" }, h)))),
    el("tbody", {}, list.map((m) => el("tr", { "data-match": String(m.id) },
      el("td", {}, el("a", { href: `/matches/${m.id}` }, `#${m.id}`)), el("td", {}, KIND[m.kind] ?? m.kind),
      el("td", { "data-testid": "seats" }, m.seats.flatMap((s, i) => [i ? " vs " : "", ...seat(s)])), el("td", {}, m.state_text),
      el("td", {}, when(m.finished_at ?? m.created_at)))))));
}

// The rating (mu) of each version after each of its ranked matches, on the ladder's match order.
function ratingChart(history) {
  const xs = [...new Set(history.flatMap((h) => h.points.map((p) => p[0])))].sort((a, b) => a - b);
  const series = history.map((h) => { const at = new Map(h.points.map((p) => [p[0], p[1]])); return xs.map((x) => at.get(x) ?? null); });
  const box = el("div", { class: "chart", "data-testid": "rating-chart" });
  const colours = ["#4fc3f7", "#ffb74d", "#8fe39c", "#f48fb1", "#ce93d8", "#fff59d"];
  const opts = {
    width: Math.min(900, Math.max(280, content().clientWidth - 8)), height: 240,
    series: [{ label: "ladder match" }, ...history.map((h, i) => ({ label: h.version, stroke: colours[i % colours.length], width: 2, spanGaps: true }))],
    axes: [{ stroke: "#c8d0da", grid: { stroke: "#232c38" }, incrs: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000] },
      { stroke: "#c8d0da", grid: { stroke: "#232c38" } }],
    scales: { x: { time: false } },
  };
  requestAnimationFrame(() => new uPlot(opts, [xs, ...series], box));
  return box;
}

function publicTeam() {
  const box = content();
  getJSON(document.body.dataset.source).then((data) => {
    document.getElementById("title").textContent = data.display;
    document.title = `${data.display} · arena`;
    const versions = el("table", {}, el("thead", {}, el("tr", {}, el("th", { scope: "col" }, "version"), el("th", { scope: "col" }, "submitted"), el("th", { scope: "col" }, ""))),
      el("tbody", {}, data.versions.map((v) => el("tr", {}, el("td", {}, v.version), el("td", {}, when(v.created_at)), el("td", {}, v.active ? "active" : "")))));
    box.replaceChildren(el("p", { class: "muted" }, `Registered ${when(data.created_at)}.`),
      el("section", {}, el("h2", {}, "Rating"), data.history.length ? ratingChart(data.history) : el("p", { class: "muted" }, "No rated match yet.")),
      el("section", {}, el("h2", {}, "Recent matches"), matchTable(data.matches, "No match yet.")),
      el("section", {}, el("h2", {}, "Versions"), data.versions.length ? versions : el("p", { class: "muted" }, "No version yet.")));
  }).catch((error) => say(box, error.message, "error"));
}

// ------------------------------------------------------------------ matches: the queue and one match

function matchesPage() {
  const box = content();
  every(5000, async () => {
    const data = await getJSON(document.body.dataset.source);
    box.replaceChildren(el("section", {}, el("h2", {}, "Queue"), el("p", { class: "rule" }, "Matches scheduled or being played, oldest first (scrimmages go first)."),
      matchTable(data.queue, "Nothing queued.")),
      el("section", {}, el("h2", {}, "Recently finished"), matchTable(data.recent, "No match has finished yet.")));
  }, (error) => say(box, error.message, "error"));
}

function matchPage() {
  const box = content();
  getJSON(document.body.dataset.source).then((m) => {
    const head = el("p", {}, `${KIND[m.kind] ?? m.kind} match · ${m.state_text} · ${plural(m.hands ?? 0, "hand", "hands")} · `, when(m.finished_at ?? m.created_at));
    const seats = el("div", { class: "scroll" }, el("table", {}, el("thead", {}, el("tr", {}, ["seat", "team", "version", "chips won"].map((h) => el("th", { scope: "col" }, h)))),
      el("tbody", {}, m.seats.map((s, i) => el("tr", {}, el("td", {}, i + 1), el("td", {}, teamLink(s.team, s.display)), el("td", {}, s.version), el("td", {}, s.net == null ? "—" : signed(s.net, 0)))))));
    const parts = [head, el("section", {}, el("h2", {}, "Result"), seats)];
    if (!m.hands_shown) {
      parts.push(el("p", { class: "muted", "data-testid": "hands-hidden" }, !m.over
        ? "Its hands are shown once every rotation of its deals has been played."
        : "Its hands are shown to the teams that played it and to the organiser only: the ladder deals the same deal sets to other pairs later."));
    } else {
      parts.push(replayer(m.replays), groupTable(m),
        el("section", {}, el("h2", {}, "Hand histories (PHH)"), el("ul", {}, m.files.map((f) => el("li", {}, el("a", { href: `/matches/${m.id}/hands/${encodeURIComponent(f)}`, download: "" }, f))))));
    }
    box.replaceChildren(...parts);
  }).catch((error) => say(box, error.message, "error"));
}

// Each duplicate group: the chips each bot won over the same deal at every rotation of the seats.
function groupTable(m) {
  const names = [...new Set(m.groups.flatMap((g) => Object.keys(g.won)))].sort();
  return el("section", {}, el("h2", {}, "Result per duplicate group"),
    el("p", { class: "rule" }, "Each deal is played once in each seat rotation; a group is the sum over its rotations."),
    el("div", { class: "scroll groups" }, el("table", {}, el("thead", {}, el("tr", {}, el("th", { scope: "col" }, "deal"), names.map((n) => el("th", { scope: "col" }, n)))),
      el("tbody", {}, m.groups.map((g) => { const won = byName(g.won); return el("tr", {}, el("td", {}, g.hand + 1), names.map((n) => el("td", {}, signed(won.get(n) ?? 0, 0)))); })))));
}

// The hand replayer: pick a hand, step through it (table.js's handAt draws it).
function replayer(hands) {
  const section = el("section", { "data-testid": "replayer" }, el("h2", {}, "Hands"));
  const stage = el("div", { class: "tableview" });
  const state = { index: 0, step: 0 };
  const select = el("select", { "data-testid": "hand-select", "aria-label": "hand", onchange: (e) => { state.index = Number(e.target.value); state.step = 0; draw(); } },
    hands.map((h, i) => el("option", { value: String(i) }, `${h.file.replace(/\.phhs$/, "")} · hand ${h.hand + 1}${h.showdown ? " · showdown" : ""}`)));
  function draw() {
    const hand = hands[state.index];
    const go = (to) => { state.step = Math.max(0, Math.min(hand.steps.length - 1, to)); draw(); };
    stage.replaceChildren(...handAt(hand, state.step, go, select));
  }
  if (!hands.length) return el("p", { class: "muted" }, "No hand was played.");
  draw();
  section.append(stage);
  return section;
}

// ------------------------------------------------------------------ a team's own page (private)

const STATE_TEXT = { queued: "queued", building: "building…", ready: "ready", failed: "failed" };

function smokeText(v) {
  const s = v.smoke;
  if (!s) return v.state === "failed" ? "no smoke test" : "—";
  const faults = Object.entries(s.faults || {}).map(([k, n]) => `${k} ×${n}`).join(", ") || "no fault";
  return `${s.ok ? "passed" : "failed"}: ${plural(s.hands, "hand", "hands")}, ${faults}, ${s.chips >= 0 ? "+" : ""}${s.chips} chips`;
}

function teamPage() {
  const box = content();
  const state = { team: null, versions: [], log: null };  // log: { number, kind: "build" | "bot" }
  const message = el("div", { class: "message" });
  const input = el("input", { type: "file", id: "archive", accept: ".tar.gz,.tgz,.zip,application/gzip,application/zip",
    onchange: () => { if (input.files.length) upload(input.files[0]); } });
  const drop = el("div", { class: "drop", "data-testid": "drop", tabindex: "0" },
    el("p", {}, "Drop a bot's archive here (.tar.gz or .zip with its bot.yaml at the top)"),
    el("label", { for: "archive" }, "or choose a file: "), input);
  drop.addEventListener("dragover", (e) => { e.preventDefault(); drop.classList.add("over"); });
  drop.addEventListener("dragleave", () => drop.classList.remove("over"));
  drop.addEventListener("drop", (e) => {
    e.preventDefault(); drop.classList.remove("over");
    if (e.dataTransfer.files.length) upload(e.dataTransfer.files[0]);
  });
  const heading = el("p", { class: "muted", "data-testid": "team-name" });
  const list = el("div", { class: "scroll", "data-testid": "versions" });
  const logBox = el("section", { "data-testid": "log", "aria-live": "polite" });
  const ladder = el("section", { "data-testid": "ladder" });
  box.replaceChildren(heading, el("section", {}, el("h2", {}, "Upload a version"), drop, message),
    el("section", {}, el("h2", {}, "Versions"), list), logBox, ladder);

  async function upload(file) {
    const form = new FormData();
    form.append("archive", file, file.name);
    say(message, `Uploading ${file.name}…`);
    try {
      const v = await send("POST", "/api/v1/submissions", form);
      say(message, v.new ? `${v.label} stored, queued for its build.` : `Those files are already ${v.label}.`, "ok");
      state.log = { number: v.version, kind: "build" };
      await refresh();
    } catch (error) { say(message, `Refused: ${error.message}`, "error"); }
    input.value = "";
  }

  async function activate(number) {
    try {
      await send("PUT", "/api/v1/active", { version: number });
      say(message, `v${number} is now the version the arena plays.`, "ok");
      await refresh();
    } catch (error) { say(message, error.message, "error"); }
  }

  function drawVersions() {
    const active = state.team.active_version;
    heading.replaceChildren("Logged in as ", el("b", {}, state.team.name), active ? ` · active: v${active}` : " · no active version yet");
    if (!state.versions.length) { list.replaceChildren(el("p", { class: "muted" }, "No version yet: upload one above.")); return; }
    const rows = [...state.versions].reverse().map((v) => el("tr", { "data-version": v.label },
      el("td", {}, el("b", {}, v.label), v.version === active ? el("span", { class: "badge" }, " active") : ""),
      el("td", {}, when(v.created_at)),
      el("td", {}, el("span", { class: `state ${v.state}`, "data-testid": "state" }, STATE_TEXT[v.state] ?? v.state)),
      el("td", { "data-testid": "smoke" }, smokeText(v)),
      el("td", {}, `${v.protocol} · `, el("code", {}, v.run.join(" ")), v.build ? [" · build ", el("code", {}, v.build)] : ""),
      el("td", { class: "actions" },
        el("button", { onclick: () => { state.log = { number: v.version, kind: "build" }; drawLog(); } }, "build log"),
        el("button", { onclick: () => { state.log = { number: v.version, kind: "bot" }; drawLog(); } }, "bot log"),
        v.state === "ready" && v.version !== active ? el("button", { onclick: () => activate(v.version) }, "make active") : "")));
    list.replaceChildren(el("table", { class: "versions" }, el("thead", {}, el("tr", {},
      ["version", "submitted", "build", "smoke test", "bot.yaml", ""].map((h) => el("th", { scope: "col" }, h)))), el("tbody", {}, rows)));
  }

  async function drawLog() {
    if (!state.log) { logBox.replaceChildren(); return; }
    const { number, kind } = state.log;
    const url = kind === "match" ? `/data/team/matches/${number}/log` : `/api/v1/versions/${number}/${kind === "build" ? "build" : "bot-log"}`;
    const data = await getJSON(url);
    const title = kind === "match" ? `Match #${number}: your bot's log` : kind === "build" ? `v${number}: build and smoke-test log` : `v${number}: the bot's log in its smoke match`;
    const text = data.log || (kind === "build" ? "(nothing yet: the build has not started)" : "(empty)");
    logBox.replaceChildren(el("h2", {}, title), el("pre", { class: "log", "data-testid": "log-text" }, text),
      data.truncated ? el("p", { class: "muted" }, "Only the first megabyte is shown.") : "");
  }

  // The team's versions in the ladder (a pause with its reason) and its recent matches, each with its bot's log.
  async function drawLadder() {
    const [own, pub] = await Promise.all([getJSON("/data/team"), getJSON(`/data/teams/${encodeURIComponent(state.team.name)}`)]);
    const rows = own.versions.map((v) => el("tr", { "data-version": v.version }, el("td", {}, v.version),
      el("td", {}, v.rating ? [v.rating.mu.toFixed(1), " ", el("span", { class: "ci" }, `(ranked by ${v.rating.score.toFixed(1)})`)] : "not rated yet"),
      el("td", {}, v.games), el("td", {}, v.faulty), el("td", {}, v.paused ? el("pre", { class: "log error", "data-testid": "paused" }, v.paused) : "playing")));
    const matches = pub.matches.filter((m) => m.over).map((m) => el("tr", { "data-match": String(m.id) },
      el("td", {}, el("a", { href: `/matches/${m.id}` }, `#${m.id}`)), el("td", {}, m.seats.map((s) => `${s.display} ${s.version}`).join(" vs ")),
      el("td", {}, when(m.finished_at)), el("td", {}, el("button", { onclick: () => { state.log = { number: m.id, kind: "match" }; drawLog(); } }, "bot log"))));
    ladder.replaceChildren(el("h2", {}, "In the ladder"),
      rows.length ? el("div", { class: "scroll" }, el("table", {}, el("thead", {}, el("tr", {}, ["version", "rating", "matches", "faulty", ""].map((h) => el("th", { scope: "col" }, h)))), el("tbody", {}, rows)))
        : el("p", { class: "muted" }, "No version of yours has played in the ladder yet."),
      el("h3", {}, "Your recent matches"),
      matches.length ? el("div", { class: "scroll" }, el("table", {}, el("tbody", {}, matches))) : el("p", { class: "muted" }, "None finished yet."));
  }

  async function refresh() {
    [state.team, state.versions] = await Promise.all([getJSON("/api/v1/team"), getJSON("/api/v1/versions")]);
    drawVersions();
    await Promise.all([drawLog(), drawLadder()]);
  }

  // While a version builds, its state and its log are fetched again each second.
  const busy = () => state.versions.some((v) => v.state === "queued" || v.state === "building");
  let quiet = 0;
  every(1000, async () => {
    if (state.team === null || busy() || ++quiet % 10 === 0) await refresh();
  }, (error) => say(message, `Could not refresh: ${error.message}`, "error"));
}

// ------------------------------------------------------------------ the organiser's page

function organiserPage() {
  const box = content();
  const tokenForm = (name) => el("form", { method: "post", action: `/organiser/teams/${encodeURIComponent(name)}/token`, class: "inline" },
    el("input", { type: "hidden", name: "csrf", value: csrf() }), el("button", { type: "submit" }, "new token"));
  const displayForm = (t) => el("form", { method: "post", action: `/organiser/teams/${encodeURIComponent(t.name)}/display`, class: "inline" },
    el("input", { type: "hidden", name: "csrf", value: csrf() }),
    el("input", { name: "display", "aria-label": `display name of ${t.name}`, maxlength: "60", placeholder: "display name" }),
    el("button", { type: "submit" }, "rename"));
  getJSON("/data/organiser").then((data) => {
    const table = el("table", {}, el("thead", {}, el("tr", {}, ["team", "registered", "active version", ""].map((h) => el("th", { scope: "col" }, h)))),
      el("tbody", {}, data.teams.map((t) => el("tr", { "data-team": t.name }, el("td", {}, teamLink(t.name, t.display)), el("td", {}, when(t.created_at)),
        el("td", {}, t.active_version ? `v${t.active_version}` : "—"), el("td", {}, t.house ? el("span", { class: "muted" }, "the arena's house bot") : [tokenForm(t.name), " ", displayForm(t)])))));
    const paused = data.paused.length ? data.paused.map((p) => el("div", { "data-paused": p.team },
      el("h3", {}, `${p.team} ${p.version}: ${p.faulty} faulty of ${plural(p.games, "match", "matches")}`), el("pre", { class: "log" }, p.reason)))
      : [el("p", { class: "muted" }, "No version is paused.")];
    box.replaceChildren(el("section", {}, el("h2", {}, "Teams"), el("div", { class: "scroll" }, table)),
      el("section", { "data-testid": "paused" }, el("h2", {}, "Paused versions"), ...paused));
  }).catch((error) => say(box, error.message, "error"));
}

// ------------------------------------------------------------------ the finals (public)

function finalsPage() {
  const box = content();
  every(10000, async () => {
    const records = await getJSON(document.body.dataset.source);
    if (!records.length) { say(box, "No finals yet: the organiser freezes the arena, then plays them."); return; }
    box.replaceChildren(...records.map((f) => {
      const entrants = [...byName(f.entrants)].map(([team, version]) => el("li", {}, teamLink(team), ` ${version}`));
      const rankings = [...byName(f.ranking)].map(([stage, names]) => el("div", {}, el("h3", {}, `Stage ${stage}`),
        el("ol", {}, names.map((n) => el("li", {}, n)))));
      const seed = f.seed == null
        ? el("p", {}, "The seed stays secret until the last stage has ended.")
        : el("p", { "data-testid": "seed" }, "Seed: ", el("code", {}, f.seed), f.seed_matches ? el("span", { class: "ok" }, " ✓ its SHA-256 is the commitment")
          : el("span", { class: "error" }, " ✗ its SHA-256 is not the commitment"));
      const files = (f.files ?? []).map((path) => el("li", {}, el("a", { href: `/finals/${encodeURIComponent(f.name)}/files/${path.split("/").map(encodeURIComponent).join("/")}`, download: "" }, path)));
      return el("section", { "data-finals": f.name }, el("h2", {}, `${f.name} · ${f.state}`),
        f.frozen_at ? el("p", { class: "muted" }, `Arena frozen ${when(f.frozen_at)}.`) : "",
        el("p", {}, "Commitment (SHA-256 of the seed, published before the first hand): ", el("code", { "data-testid": "commitment" }, f.seed_sha256 ?? "—")),
        seed, el("h3", {}, "Entrants"), el("ul", {}, entrants), ...rankings,
        rankings.length ? el("p", { class: "muted", "data-testid": "finals-rule" }, "Each stage ranks by its standings: heads-up, "
          + "by the matches a bot stopped playing in (crashed, lost its connection), fewer first, then bb/100; three or more seats, "
          + "by OpenSkill rating, a bot that stopped ranking last in that match. The best of a stage play the next.") : "",
        files.length ? [el("h3", {}, "Published files"), el("ul", {}, files),
          el("p", { class: "muted" }, "Anyone can re-deal every hand: dealer verify on the downloaded stage folders.")] : "");
    }));
  }, (error) => say(box, error.message, "error"));
}

const PAGES = new Map([["leaderboard", leaderboard], ["public-team", publicTeam], ["team", teamPage], ["organiser", organiserPage],
  ["matches", matchesPage], ["match", matchPage], ["finals", finalsPage]]);
document.addEventListener("DOMContentLoaded", () => PAGES.get(document.body.dataset.page)?.());
