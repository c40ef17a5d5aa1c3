// The game page's replay: draws the table of one step from the JSON the page carries (the
// engine's state at that step, see tourney/web/replay.py) and steps through the game.
// Everything from the data is put in with textContent, never as markup.
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("replay-data").textContent);
  var replay = data.replay, steps = replay.steps, cards = replay.cards;
  var names = {};
  data.seats.forEach(function (s) { names[s.seat] = s.name; });
  var PIPS = {moon: "☾", ankh: "☥", sun: "☀", eye: "◉", clubs: "♣", diamonds: "♦", hearts: "♥", spades: "♠"};
  var step = 0, view = "all";

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = text;
    return e;
  }

  function who(seat) { return "seat " + seat + " (" + (names[seat] || "?") + ")"; }

  function cardEl(id) {
    var c = cards[String(id)];
    var suit = c.suits[0] || "none";
    var e = el("div", "card suit-" + suit + " type-" + c.type);
    e.setAttribute("data-card", String(id));
    e.title = c.name + " (" + c.rank + " " + c.suits.join("/") + (c.type !== "card" ? ", " + c.type : "") + ")";
    var corner = el("div", "corner");
    corner.appendChild(el("span", "rank", c.rank));
    corner.appendChild(el("span", "pip", c.suits.map(function (s) { return PIPS[s] || s; }).join("")));
    e.appendChild(corner);
    if (c.type !== "card") e.appendChild(el("div", "name", c.name));
    else e.appendChild(el("div", "big", PIPS[suit] || ""));
    return e;
  }

  function backEl() { return el("div", "card back"); }

  function cardRow(ids, hidden, attr, key) {
    var row = el("div", "cards");
    row.setAttribute(attr, String(key));
    if (!ids.length) row.appendChild(el("span", "empty", "none"));
    ids.forEach(function (id) { row.appendChild(hidden ? backEl() : cardEl(id)); });
    return row;
  }

  function drawTable(s, decision) {
    var table = document.getElementById("table");
    table.textContent = "";
    var st = s.state;
    var centre = el("div", "centre");
    var draw = el("div", "pile");
    draw.appendChild(backEl());
    var count = el("div", "count", st.draw_pile + " in stock");
    count.setAttribute("data-draw-pile", String(st.draw_pile));
    draw.appendChild(count);
    centre.appendChild(draw);
    var discard = el("div", "pile discard");
    discard.appendChild(cardRow(st.discard, false, "data-discard", "top"));
    discard.appendChild(el("div", "count", st.discard_count + " discarded, top on the right" + (st.named ? " · named: " + st.named : "")));
    centre.appendChild(discard);
    table.appendChild(centre);
    st.hands.forEach(function (hand, h) {
      var owner = replay.owners[h];
      var seat = el("div", "seat-box");
      if (decision && decision.player === owner) seat.className += " to-act";
      if (!st.alive[owner]) seat.className += " out";
      var head = el("div", "seat-head");
      head.appendChild(el("strong", null, who(owner)));
      head.appendChild(el("span", "dim", " · " + hand.length + " in hand" + (st.alive[owner] ? "" : " · out")));
      seat.appendChild(head);
      var hidden = view !== "all" && String(owner) !== view;
      seat.appendChild(cardRow(hand, hidden, "data-hand", h));
      if (st.in_play.length) {
        seat.appendChild(el("div", "label", "in play"));
        seat.appendChild(cardRow(st.in_play[owner] || [], false, "data-in-play", owner));
      }
      table.appendChild(seat);
    });
  }

  function drawDecision(d) {
    var box = document.getElementById("decision");
    box.textContent = "";
    if (!d) {
      box.appendChild(el("h3", null, "Game over"));
      data.summary.forEach(function (line) { box.appendChild(el("p", null, line)); });
      return;
    }
    if (d.forfeit) {
      box.appendChild(el("h3", null, "Referee"));
      box.appendChild(el("p", "fault", who(d.forfeit.player) + " forfeits: " + d.forfeit.reason));
      return;
    }
    box.appendChild(el("h3", null, who(d.player) + " decides"));
    var own = view === "all" || String(d.player) === view;
    box.appendChild(el("p", "prompt", d.prompt + (d.source ? " (" + d.source + ")" : "")));
    if (!own) { box.appendChild(el("p", "dim", "(options hidden in this seat's view)")); return; }
    var list = el("ul", "options");
    d.options.forEach(function (o) {
      var li = el("li", o.chosen ? "chosen" : null, (o.chosen ? "✔ " : "") + o.label);
      li.setAttribute("data-option", o.id);
      list.appendChild(li);
    });
    box.appendChild(list);
  }

  function drawNarration(s) {
    var list = document.getElementById("narration");
    list.textContent = "";
    var lines = s.narration.filter(function (n) {
      return view === "all" || n.only === null || n.only === undefined || String(n.only) === view;
    });
    if (!lines.length) list.appendChild(el("li", "dim", "nothing new"));
    lines.forEach(function (n) {
      // the engine says "player 2"; the page names the entrant in that seat
      var text = n.text.replace(/^-- /, "").replace(/\bplayer (\d+)\b/g, function (all, seat) {
        return names[seat] !== undefined ? names[seat] : all;
      });
      list.appendChild(el("li", n.text.indexOf("-- ") === 0 ? "turn" : null, text));
    });
  }

  function show(n) {
    step = Math.max(0, Math.min(steps.length - 1, n));
    var s = steps[step];
    var label = document.getElementById("step");
    label.setAttribute("data-step", String(step));
    label.textContent = "step " + step + " of " + (steps.length - 1);
    document.getElementById("scrub").value = String(step);
    drawTable(s, s.decision);
    drawDecision(s.decision);
    drawNarration(s);
  }

  document.getElementById("first").onclick = function () { show(0); };
  document.getElementById("prev").onclick = function () { show(step - 1); };
  document.getElementById("next").onclick = function () { show(step + 1); };
  document.getElementById("last").onclick = function () { show(steps.length - 1); };
  document.getElementById("scrub").oninput = function (e) { show(parseInt(e.target.value, 10)); };
  document.getElementById("view").onchange = function (e) { view = e.target.value; show(step); };
  document.addEventListener("keydown", function (e) {
    if (e.target.tagName === "SELECT" || e.target.tagName === "INPUT") return;
    if (e.key === "ArrowRight") show(step + 1);
    else if (e.key === "ArrowLeft") show(step - 1);
    else if (e.key === "Home") show(0);
    else if (e.key === "End") show(steps.length - 1);
  });
  show(0);
})();
