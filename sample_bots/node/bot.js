#!/usr/bin/env node
// A sample Node.js poker bot: a gRPC client of the dealer (see ../../proto/poker/v1/dealer.proto).
//
// It connects to POKER_DEALER with the seat token POKER_TOKEN (or --dealer ADDR --token TOKEN),
// says Hello, answers every ActionRequest (all answers to one incoming message go back together
// in one BotMessage) and exits 0 on Goodbye or when the dealer ends the stream. If it cannot
// connect it prints one line on stderr and exits 1. POKER_TLS_CA names a CA file to use TLS.
//
// Strategy: pre-flop it raises pairs of sevens or better and two high cards, calls medium hands
// (any pair, an ace, two nines or better, suited connectors) when cheap and folds the rest.
// After the flop it raises with a pair or better that uses a hole card, and otherwise checks
// and calls small bets (up to a quarter of the pot).
'use strict';

const fs = require('fs');
const path = require('path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');

const VERSION = '1.0';
const RANKS = '23456789TJQKA';
const PROTO = path.resolve(__dirname, '..', '..', 'proto', 'poker', 'v1', 'dealer.proto');

function options(argv) {
  const opts = { dealer: process.env.POKER_DEALER || '', token: process.env.POKER_TOKEN || '' };
  for (let i = 0; i < argv.length; i++) {
    const m = /^--(dealer|token)(?:=(.*))?$/.exec(argv[i]);
    if (m) opts[m[1]] = m[2] !== undefined ? m[2] : (argv[++i] || '');
  }
  return opts;
}

function fail(message) {
  process.stderr.write(message.replace(/\s+/g, ' ').trim() + '\n');
  process.exit(1);
}

const rank = (card) => RANKS.indexOf(card[0]);

// The decision for one ActionRequest: [type, amount].
function decide(req) {
  const call = Number(req.call_amount);
  const pot = Number(req.pot);
  const bb = Math.max(Number(req.big_blind), 1);
  const topBet = Math.max(0, ...req.bets.map(Number));
  const passive = () => (call === 0 ? ['ACTION_TYPE_CHECK_CALL', 0] : ['ACTION_TYPE_FOLD', 0]);
  const raise = (to) => ['ACTION_TYPE_BET_RAISE', Math.round(to)];

  const [r1, r2] = req.hole_cards.map(rank).sort((a, b) => b - a);
  if (req.board.length === 0) {
    const suited = req.hole_cards[0][1] === req.hole_cards[1][1];
    const pair = r1 === r2;
    if ((pair && r1 >= rank('7')) || r2 >= rank('T')) return raise(3 * Math.max(topBet, bb));
    const medium = pair || r1 === rank('A') || r2 >= rank('9') || (suited && r1 - r2 <= 2);
    if (medium && call <= 2 * bb) return ['ACTION_TYPE_CHECK_CALL', 0];
    return passive();
  }

  const counts = {};
  for (const c of req.hole_cards.concat(req.board)) counts[c[0]] = (counts[c[0]] || 0) + 1;
  const holeRanks = new Set(req.hole_cards.map((c) => c[0]));
  const made = [...holeRanks].map((r) => counts[r]);
  const strong = made.some((n) => n >= 3) || (made.length === 2 && made.every((n) => n >= 2));
  if (strong) return raise(topBet + (pot + call));
  if (made.some((n) => n >= 2)) {
    if (call <= pot / 2) return raise(topBet + (pot + call) / 2);
    return ['ACTION_TYPE_CHECK_CALL', 0];
  }
  if (call <= pot / 4) return ['ACTION_TYPE_CHECK_CALL', 0];
  return passive();
}

// Keep the answer legal: clamp raises into range, no raise when none is allowed, no needless fold.
function reply(table, req) {
  let [type, amount] = decide(req);
  const min = Number(req.min_raise_to);
  const max = Number(req.max_raise_to);
  if (type === 'ACTION_TYPE_BET_RAISE') {
    if (min <= 0) [type, amount] = ['ACTION_TYPE_CHECK_CALL', 0];
    else amount = Math.min(Math.max(amount, min), max);
  }
  if (type === 'ACTION_TYPE_FOLD' && !req.can_fold) type = 'ACTION_TYPE_CHECK_CALL';
  return { table, request_id: req.request_id, type, amount: type === 'ACTION_TYPE_BET_RAISE' ? amount : 0 };
}

function main() {
  const opts = options(process.argv.slice(2));
  if (!opts.dealer) fail('node bot: no dealer address: set POKER_DEALER or pass --dealer ADDR');
  const definition = protoLoader.loadSync(PROTO, {
    keepCase: true, longs: String, enums: String, defaults: true, oneofs: true,
  });
  const poker = grpc.loadPackageDefinition(definition).poker.v1;
  let credentials = grpc.credentials.createInsecure();
  if (process.env.POKER_TLS_CA) {
    credentials = grpc.credentials.createSsl(fs.readFileSync(process.env.POKER_TLS_CA));
  }
  const client = new poker.Dealer(opts.dealer, credentials);
  const call = client.Play();
  let welcomed = false;
  let finished = false;
  // After Goodbye: half-close, let queued replies drain, exit when the dealer ends the stream.
  const finish = () => {
    if (finished) return;
    finished = true;
    call.end();
    setTimeout(() => process.exit(0), 1000).unref();
  };

  call.on('data', (message) => {
    const actions = [];
    let goodbye = false;
    for (const item of message.items) {
      if (item.kind === 'request') actions.push(reply(item.table, item.request));
      else if (item.kind === 'welcome') welcomed = true;
      else if (item.kind === 'goodbye') goodbye = true;
    }
    if (actions.length > 0) call.write({ actions });
    if (goodbye) finish();
  });
  call.on('end', () => process.exit(0));
  call.on('error', (err) => {
    if (finished || (welcomed && err.code === grpc.status.CANCELLED)) process.exit(0);
    if (!welcomed) fail(`node bot: cannot connect to dealer at ${opts.dealer}: ${err.message}`);
    fail(`node bot: stream to ${opts.dealer} failed: ${err.message}`);
  });
  call.write({ hello: { token: opts.token, name: 'node', version: VERSION } });
}

main();
