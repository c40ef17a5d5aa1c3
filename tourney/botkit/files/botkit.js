// botkit.js: a small helper for writing a tourney bot in JavaScript (Node.js, no packages).
//
//   const { run, game } = require("./botkit");
//   run((view, options) => options[0], "my_bot");   // any offered option id is a legal answer
//
// run() speaks the tourney bot protocol 1.0 (docs/protocol.md) on stdin and stdout: it answers
// the referee's hello, keeps what game_start says, calls choose(view, options) for every request
// (view: what your seat may know; options: the offered option ids, strings such as "play:17")
// and writes the answer, then leaves on goodbye or at the end of stdin. What else a bot knows is
// in `game`: cards (card id -> {name, rank, suits, type}), seat, players, teams, ruleSet,
// options, series, kind, prompt, source, labels (option id -> label), random() (seeded from the
// referee's hello) and result. Log with console.error (stderr), never console.log (stdout).
"use strict";
const readline = require("readline");

const game = {
  cards: {}, seat: 0, players: 0, teams: null, ruleSet: "", options: {}, series: {},
  kind: "", prompt: "", source: null, labels: {}, result: null,
  seed: 0,
  // a small seeded generator (mulberry32): the same seed, the same games
  random() {
    this.seed = (this.seed + 0x6d2b79f5) | 0;
    let t = Math.imul(this.seed ^ (this.seed >>> 15), 1 | this.seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  },
  card(id) { return this.cards[id] || {}; },
};

function run(choose, name = "js_bot") {
  const send = (message) => process.stdout.write(JSON.stringify(message) + "\n");
  const input = readline.createInterface({ input: process.stdin, terminal: false });
  input.on("line", (line) => {
    if (line.trim() === "") return;
    const message = JSON.parse(line);
    switch (message.type) {
      case "hello":
        game.seed = message.seed | 0;
        // protocol 1.2: one process may play games of many series (reuse)
        send({ type: "hello", protocol: "tourney-bot", version: "1.2", name,
               features: ["reuse"].filter((f) => (message.features || []).includes(f)) });
        break;
      case "game_start":
        game.cards = message.cards || {};
        game.seat = message.seat; game.players = message.players; game.teams = message.teams;
        game.ruleSet = message.rule_set; game.options = message.options || {};
        game.series = message.series || {}; game.result = null;
        // the game's own seed (reuse): a warm process plays as a fresh one would
        if (message.seed !== undefined) game.seed = Number(BigInt.asIntN(32, BigInt(message.seed)));
        break;
      case "request": {
        const offered = message.options.map((o) => o.id);
        game.kind = message.kind; game.prompt = message.prompt; game.source = message.source || null;
        game.labels = Object.fromEntries(message.options.map((o) => [o.id, o.label]));
        let option;
        try {
          option = choose(message.view || {}, offered.slice());
          if (!offered.includes(option)) throw new Error(`choose returned ${JSON.stringify(option)}, not offered`);
        } catch (err) { // one bad move, not a lost game: answer a legal option
          console.error(`${name}: ${err.message}; answering ${offered[0]}`);
          option = offered[0];
        }
        send({ type: "answer", id: message.id, option });
        break;
      }
      case "game_end":
        game.result = message.result;
        break;
      case "goodbye":
        input.close();
        break;
      default:
        break; // a later minor version's message: ignored
    }
  });
  // stdout on a pipe is written asynchronously but in order: the callback of a last (empty)
  // write runs once everything before it is out, then the bot leaves
  input.on("close", () => process.stdout.write("", () => process.exit(0)));
}

module.exports = { run, game };
