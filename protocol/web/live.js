// The live page: a running match's games and standings, from the /live WebSocket
// (protocol/spectator_feed.py describes the messages).
"use strict";
(() => {
  const $ = (id) => document.getElementById(id);
  const NS = "http://www.w3.org/2000/svg";
  const games = new Map(); // id -> {g: the game as sent, el, t: when its clocks were read}
  let finished = [];
  let delay = 500;
  let state = "";
  let frame = 0;
  const dirty = new Set();

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text != null) e.textContent = text;
    return e;
  }

  function svg(tag, attrs) {
    const e = document.createElementNS(NS, tag);
    for (const k in attrs) e.setAttribute(k, attrs[k]);
    return e;
  }

  // Square 1..32 to [column, row]: Black's men (1-12) at the top, 1 on the second column.
  function xy(n) {
    const r = (n - 1) >> 2;
    return [((n - 1) & 3) * 2 + (r & 1 ? 0 : 1), r];
  }

  // "B:W21,22,K30:B1,2" -> {turn: 0 Black / 1 White, at: {square: "b" | "w" | "b k" | "w k"}}
  function parseFen(fen) {
    const parts = String(fen || "").split(":");
    const at = {};
    for (const p of parts.slice(1)) {
      const side = p[0] === "B" ? "b" : "w";
      for (const t of p.slice(1).split(",")) {
        const king = t[0] === "K";
        const n = parseInt(king ? t.slice(1) : t, 10);
        if (n >= 1 && n <= 32) at[n] = side + (king ? " k" : "");
      }
    }
    return { turn: parts[0] === "W" ? 1 : 0, at };
  }

  function board(fen, last) {
    const s = svg("svg", { viewBox: "0 0 8 8", class: "board", role: "img" });
    const at = parseFen(fen).at;
    last = last || [];
    s.append(svg("rect", { width: 8, height: 8, class: "light" }));
    for (let n = 1; n <= 32; n++) {
      const [x, y] = xy(n);
      const i = last.indexOf(n);
      s.append(svg("rect", { x, y, width: 1, height: 1, class: i < 0 ? "sq" : i ? "sq to" : "sq from" }));
      const p = at[n];
      if (p) {
        s.append(svg("circle", { cx: x + 0.5, cy: y + 0.5, r: 0.38, class: "pc " + p }));
        if (p.endsWith("k")) s.append(svg("circle", { cx: x + 0.5, cy: y + 0.5, r: 0.17, class: "crown" }));
      }
      const t = svg("text", { x: x + 0.05, y: y + 0.22, class: "num" });
      t.textContent = n;
      s.append(t);
    }
    return s;
  }

  function clock(seconds) {
    if (seconds == null) return "";
    const s = Math.max(0, Math.round(seconds));
    return Math.floor(s / 60) + ":" + String(s % 60).padStart(2, "0");
  }

  function card(g) {
    const e = el("article", "game");
    e.dataset.game = g.id;
    e.append(el("div", "side"), el("div", "side"), el("div", "opening", g.opening), el("div", "bd"),
      el("div", "moves"));
    return e;
  }

  // Move numbers from the side to move in the start position; the opening's moves dimmed.
  function moveList(e, g) {
    const parts = [];
    const all = (g.book || []).concat(g.moves || []);
    const first = parseFen(g.start).turn;
    all.forEach((m, i) => {
      const ply = i + first;
      let text = m;
      if (ply % 2 === 0) text = ply / 2 + 1 + ". " + m;
      else if (i === 0) text = (ply - 1) / 2 + 1 + "... " + m;
      const s = el("span", i < (g.book || []).length ? "book" : "", text);
      parts.push(s, " ");
    });
    e.replaceChildren(...parts);
    e.scrollTop = e.scrollHeight;
  }

  function clocks(G) {
    const g = G.g;
    const turn = parseFen(g.fen).turn;
    const sides = G.el.querySelectorAll(".side");
    [g.black, g.white].forEach((name, c) => {
      let left = g.clocks ? g.clocks[c] : null;
      if (left != null && c === turn) left -= (performance.now() - G.t) / 1000;
      const s = sides[c];
      s.classList.toggle("on", c === turn);
      s.replaceChildren(el("span", "", (c ? "○ " : "● ") + name), el("span", "clock", clock(left)));
    });
  }

  function draw(id) {
    const G = games.get(id);
    if (!G) return;
    clocks(G);
    G.el.querySelector(".bd").replaceChildren(board(G.g.fen, G.g.last));
    moveList(G.el.querySelector(".moves"), G.g);
  }

  function touch(id) {
    dirty.add(id);
    if (!frame) {
      frame = requestAnimationFrame(() => {
        frame = 0;
        for (const d of dirty) draw(d);
        dirty.clear();
      });
    }
  }

  function counted() {
    document.body.dataset.games = String(games.size);
  }

  function start(g) {
    const old = games.get(g.id);
    if (old) old.el.remove();
    const G = { g, el: card(g), t: performance.now() };
    games.set(g.id, G);
    $("games").append(G.el);
    draw(g.id);
    counted();
  }

  function move(m) {
    const G = games.get(m.id);
    if (!G || m.ply !== G.g.moves.length + 1) return; // over already, or seen
    const g = G.g;
    g.moves.push(m.move);
    g.fen = m.fen;
    g.last = m.path;
    g.clocks = m.clocks;
    G.t = performance.now();
    touch(m.id);
  }

  function end(f) {
    const G = games.get(f.id);
    if (G) G.el.remove();
    games.delete(f.id);
    dirty.delete(f.id);
    counted();
    finished = [f].concat(finished).slice(0, 12);
    showFinished();
  }

  function showFinished() {
    $("done").hidden = finished.length === 0;
    $("finished").tBodies[0].replaceChildren(...finished.map((f) => {
      const tr = el("tr");
      tr.dataset.finished = f.id;
      for (const text of [f.black + " – " + f.white, f.result, f.reason, f.plies + " plies", f.opening]) {
        tr.append(el("td", "", text));
      }
      return tr;
    }));
  }

  function standings(s) {
    const t = $("standings");
    if (!s) {
      t.tHead.replaceChildren();
      t.tBodies[0].replaceChildren();
      $("lines").replaceChildren();
      return;
    }
    const head = el("tr");
    for (const c of s.columns) head.append(el("th", "", c));
    t.tHead.replaceChildren(head);
    t.tBodies[0].replaceChildren(...s.rows.map((row) => {
      const tr = el("tr");
      for (const c of row) tr.append(el("td", "", c));
      return tr;
    }));
    $("lines").replaceChildren(...s.lines.map((l) => el("p", "", l)));
  }

  function status(text) {
    state = text === "running" ? "live" : "finished: " + text;
    $("status").textContent = state;
  }

  function snapshot(m) {
    $("title").textContent = m.title || "samuel live";
    document.title = (m.title || "samuel") + " — live";
    const note = $("note");
    note.hidden = m.live;
    note.textContent = m.live ? "" :
      "The games are played elsewhere (Ray): no moves are reported, so only the standings and " +
      "finished games are shown.";
    for (const G of games.values()) G.el.remove();
    games.clear();
    dirty.clear();
    for (const g of m.games) start(g);
    counted();
    finished = m.finished.slice().reverse();
    showFinished();
    standings(m.standings);
    status(m.status);
  }

  const handlers = {
    snapshot,
    start: (m) => start(m.game),
    move,
    end: (m) => end(m.game),
    standings: (m) => standings(m.standings),
    status: (m) => status(m.status),
  };

  function connect() {
    const ws = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/live");
    ws.onopen = () => { delay = 500; };
    ws.onmessage = (ev) => {
      let m;
      try { m = JSON.parse(ev.data); } catch { return; }
      const h = handlers[m.type];
      if (h) h(m);
    };
    ws.onclose = () => {
      $("status").textContent = (state.startsWith("finished") ? state + "; " : "") + "disconnected, reconnecting…";
      setTimeout(connect, delay);
      delay = Math.min(delay * 2, 10000);
    };
  }

  setInterval(() => { for (const G of games.values()) if (G.g.clocks) clocks(G); }, 1000);
  connect();
})();
