// What the league's page (app.js) and the arena's pages (dealer/arena/static/arena.js) build their DOM
// with. Every text goes in as a text node (never as markup), so a name such as "<img onerror=...>"
// shows as itself; lookups by name go through a Map (byName), never `obj[name]`.
"use strict";

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "class") node.className = value;
    else if (key === "style") node.style.cssText = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value);
  }
  for (const child of children.flat()) node.append(child instanceof Node ? child : String(child));
  return node;
}

const byName = (obj) => new Map(Object.entries(obj ?? {}));  // a JSON object keyed by names, as a Map

const signed = (x, digits = 1) => (x === null || x === undefined ? "-" : (x >= 0 ? "+" : "") + x.toFixed(digits));
const interval = (ci, digits = 1, sign = true) =>
  !ci || ci[0] == null ? "" : `[${sign ? signed(ci[0], digits) : ci[0].toFixed(digits)}, ${sign ? signed(ci[1], digits) : ci[1].toFixed(digits)}]`;
