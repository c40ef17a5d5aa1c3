#!/usr/bin/env node
// A random bot for Node.js: the tourney bot protocol is plain JSON lines, in any language.
//
// Messages arrive one per line on stdin; answers go one per line to stdout. Logs go to
// stderr (console.error), never to stdout. See docs/protocol.md.
//
// Try it: tourney check -- node examples/bots/random_bot.js

"use strict";
const readline = require("readline");

const NAME = "random_bot_js";

// A small seeded generator (mulberry32), so that a seed from the referee makes games reproducible.
let state = 0;
function random() {
  state = (state + 0x6d2b79f5) | 0;
  let t = Math.imul(state ^ (state >>> 15), 1 | state);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}

function send(message) {
  // process.stdout.write on a pipe is asynchronous but ordered; Node flushes before exit.
  process.stdout.write(JSON.stringify(message) + "\n");
}

const input = readline.createInterface({ input: process.stdin, terminal: false });

input.on("line", (line) => {
  if (line.trim() === "") return;
  const message = JSON.parse(line);
  switch (message.type) {
    case "hello":
      state = message.seed | 0;
      // protocol 1.2: ask for option ids without labels and no view (a random bot reads neither),
      // and say one process may play games of many series (reuse)
      send({ type: "hello", protocol: "tourney-bot", version: "1.2", name: NAME,
             features: ["option_ids", "view_delta", "reuse"].filter((f) => (message.features || []).includes(f)) });
      break;
    case "game_start":
      // with reuse, each game carries its own seed: a warm process plays as a fresh one would
      if (message.seed !== undefined) state = Number(BigInt.asIntN(32, BigInt(message.seed)));
      break;
    case "request": {
      const options = message.options;
      const pick = options[Math.floor(random() * options.length)];
      send({ type: "answer", id: message.id, option: typeof pick === "string" ? pick : pick.id });
      break;
    }
    case "goodbye":
      input.close();
      break;
    default:
      break; // game_end: nothing to answer
  }
});

// End of stdin (or goodbye): leave.
input.on("close", () => process.exit(0));
