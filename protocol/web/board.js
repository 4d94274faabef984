// samuel's board page: one cb session per tab over a WebSocket (docs/protocols/cb.md).
// The page keeps the game (start FEN + plies); the server supplies legal moves and searches.

export const START = "B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12";
const PIECE = {5: ["W", false], 6: ["B", false], 9: ["W", true], 10: ["B", true]}; // cb_interface.h codes
const NAME = {B: "Black", W: "White"};
export const other = (c) => (c === "B" ? "W" : "B");

// ---- pure game functions (no DOM; node can import them) ----

export function parseFen(text) {
  const s = text.replace(/\s+/g, "").replace(/^"|\.?"?$/g, "");
  const parts = s.split(":");
  const turn = parts[0].toUpperCase();
  if (parts.length !== 3 || !/^[BW]$/.test(turn)) throw new Error(`FEN "${text}": expected B or W, then :W<squares>:B<squares>`);
  const sq = Array(33).fill(null);
  for (const part of parts.slice(1)) {
    const c = part[0]?.toUpperCase();
    if (c !== "B" && c !== "W") throw new Error(`FEN "${text}": "${part}" does not start with W or B`);
    for (const item of part.slice(1).split(",").filter(Boolean)) {
      const m = /^(K?)(\d+)(?:-(\d+))?$/i.exec(item);
      if (!m) throw new Error(`FEN "${text}": cannot read "${item}"`);
      for (let n = +m[2]; n <= +(m[3] ?? m[2]); n++) {
        if (n < 1 || n > 32 || sq[n]) throw new Error(`FEN "${text}": square ${n} is off the board or taken twice`);
        sq[n] = {c, k: !!m[1]};
      }
    }
  }
  return {turn, sq};
}

export function fenOf(p) {
  const list = (c) => p.sq.flatMap((x, n) => (x?.c === c ? [(x.k ? "K" : "") + n] : [])).join(",");
  return `${p.turn}:W${list("W")}:B${list("B")}`;
}

// `movelist n,<move>;...` with <move> = njumps,old,new,from,to[,landed,captured,cappiece]...
export function parseMovelist(text) {
  const m = /^movelist (\d+)(?:,(.*))?$/.exec(text.trim());
  if (!m) throw new Error(`unexpected movelist reply "${text}"`);
  return (m[2] || "").split(";").filter(Boolean).map((s) => {
    const v = s.split(",").map(Number);
    const [nj, old, neu, from, to] = v;
    const path = [from], caps = [];
    for (let i = 5; i + 2 < v.length; i += 3) path.push(v[i]), caps.push(v[i + 1]);
    if (!nj) path.push(to);
    return {nj, old, neu, from, to, path, caps, pdn: path.join(nj ? "x" : "-")};
  });
}

export function applyMove(p, m) {
  const sq = p.sq.slice();
  sq[m.from] = null;
  for (const c of m.caps) sq[c] = null;
  const [c, k] = PIECE[m.neu];
  sq[m.to] = {c, k};
  return {turn: other(p.turn), sq};
}

// A PDN token names a move by its squares: from-to, fromxto, or every landing (15x24x31).
export function matchMove(legal, tok) {
  const s = tok.split(/[-x:]/i).map(Number);
  return legal.filter((m) => m.from === s[0] && m.to === s.at(-1) && (s.length === 2 || s.join() === m.path.join()));
}

export const irreversible = (m) => m.nj > 0 || m.old === 5 || m.old === 6;

export function parseStatus(t) {
  const get = (re) => re.exec(t)?.[1];
  const o = {text: t, depth: get(/depth (\S+)/), time: get(/ time ([\d.]+)/), nodes: get(/nodes (\d+)/),
    nps: get(/nps (\d+)/), t704: get(/704-time ([\d.]+)/), pv: get(/ pv (.*)$/),
    forced: get(/forced move (\S+)/), book: get(/book move ([\dx-]+)/)};
  const m = /score (?:(win|loss) in (\d+)|([+-]?[\d.]+))/.exec(t);
  if (m) o.score = m[3] !== undefined ? {v: +m[3]} : {mate: m[1] === "win" ? +m[2] : -m[2]};
  return o;
}

// Scores come for the side to move; the bar shows them from Black's side.
export const forBlack = (sc, side) => (side === "B" ? sc : sc.mate ? {mate: -sc.mate} : {v: -sc.v});

export function scoreText(sc) {
  if (sc.mate) return `${sc.mate > 0 ? "Black" : "White"} wins in ${Math.abs(sc.mate)}`;
  return (sc.v > 0 ? "+" : "") + sc.v.toFixed(2);
}

export function parsePdn(text) {
  const tags = {};
  let body = text.replace(/\[(\w+)\s+"([^"]*)"\s*\]/g, (_, k, v) => ((tags[k] = v), " "));
  body = body.replace(/\{[^}]*\}/g, " ");
  for (let prev; prev !== body;) prev = body, body = body.replace(/\([^()]*\)/g, " "); // variations nest
  const moves = [];
  let result = "*";
  for (const tok of body.replace(/\d+\.+/g, " ").split(/\s+/).filter(Boolean)) {
    if (/^(1-0|0-1|1\/2-1\/2|2-0|0-2|1-1|\*)$/.test(tok)) result = tok;
    else if (/^\$\d+$/.test(tok)) continue;
    else if (/^\d+([-x]\d+)+[!?]*$/.test(tok)) moves.push(tok.replace(/[!?]+$/, ""));
    else throw new Error(`PDN: cannot read "${tok}" (neither a move like 11-15 or 15x24x31 nor a result)`);
  }
  return {tags, moves, result};
}

// Move numbers go before Black's moves; a game that starts with White to move opens "1...".
export function moveTokens(turn, pdns) {
  const out = [];
  let n = 1;
  pdns.forEach((p, i) => {
    if (turn === "B") out.push(`${n}.`);
    else if (i === 0) out.push(`${n}...`);
    out.push(p);
    if (turn === "W") n++;
    turn = other(turn);
  });
  return out;
}

export function pdnText(start, pdns, tags, result) {
  const head = Object.entries(tags);
  if (start !== START) head.push(["SetUp", "1"], ["FEN", start]);
  const lines = [""];
  for (const t of [...moveTokens(start[0], pdns), result]) {
    if ((lines.at(-1) + " " + t).length > 79) lines.push("");
    lines[lines.length - 1] += (lines.at(-1) ? " " : "") + t;
  }
  return head.map(([k, v]) => `[${k} "${v}"]`).join("\n") + "\n\n" + lines.join("\n") + "\n";
}

// ---- the connection: one cb line per message, answers in order ----

class ServerError extends Error {}
const unescape = (s) => s.replace(/\\(.)/g, (_, c) => ({n: "\n", r: "\r"})[c] ?? c);

class Link {
  constructor(on) {
    this.on = on; this.q = []; this.ws = null; this.tries = 0;
  }
  open() {
    const ws = (this.ws = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/cb"));
    this.on.conn("connecting", "connecting…");
    ws.onopen = () => { this.tries = 0; this.on.conn("open", "connected"); this.pump(); this.on.open(); };
    ws.onmessage = (e) => this.line(String(e.data));
    ws.onclose = (e) => {
      if (ws !== this.ws) return;
      const reason = e.reason || {1001: "server going away", 1006: "connection lost"}[e.code];
      const why = `closed (${e.code}${reason ? ": " + reason : ""})`;
      for (const r of this.q.splice(0)) r.rej(Object.assign(new Error(why), {closed: true}));
      if (++this.tries > 8) return this.on.conn("closed", `${why}; press New game to connect again`);
      const wait = Math.min(30, 2 ** (this.tries - 1));
      this.on.conn("reconnecting", `${why}; reconnecting in ${wait} s`);
      this.timer = setTimeout(() => this.open(), wait * 1000);
    };
  }
  reopen() {
    if (this.ws?.readyState > 1) clearTimeout(this.timer), (this.tries = 0), this.open();
  }
  // Requests go one at a time, so every reply/error/status line belongs to the oldest one.
  // `live` is asked just before sending: a search the page no longer wants is never started.
  req(line, onStatus, live) {
    return new Promise((res, rej) => { this.q.push({line, onStatus, live, res, rej}); this.pump(); });
  }
  raw(line) {
    if (this.ws?.readyState === 1) this.ws.send(line);
  }
  pump() {
    let h;
    while ((h = this.q[0]) && !h.sent && h.live && !h.live()) this.q.shift().rej(new Error("cancelled"));
    if (h && !h.sent && this.ws?.readyState === 1) (h.sent = true), this.ws.send(h.line);
  }
  line(s) {
    const [, word, rest = ""] = /^(\S+) ?(.*)$/s.exec(s) || [];
    const h = this.q[0]?.sent ? this.q[0] : null;
    if (word === "status") return h?.onStatus?.(unescape(rest));
    if (word === "error") {
      const msg = unescape(/^message="(.*)"$/s.exec(rest)?.[1] ?? rest);
      if (!h) return this.on.error(msg);
      this.q.shift(), h.rej(new ServerError(msg));
    } else if (word === "reply" || word === "move") {
      if (!h) return;
      this.q.shift(), h.res(word === "reply" ? {ok: rest[0] === "1", text: unescape(rest.slice(2))} : {ok: true, text: unescape(rest)});
    } else return;
    this.pump();
  }
}

// ---- the page ----

const NS = "http://www.w3.org/2000/svg";
const CROWN = "M3 6.5 2.5 3.6 3.9 4.9 5 3 6.1 4.9 7.5 3.6 7 6.5Z";
const $ = (id) => document.getElementById(id);

function svg(tag, attrs, parent) {
  const e = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  return parent ? parent.appendChild(e) : e;
}

function main() {
  let G, human = "B", flip = false, sel = null, epoch = 0, state = "busy", engScore = null, link;
  const squares = [], board = $("board");

  const fenAt = (i) => (i ? G.plies[i - 1].fen : G.start);
  const curFen = () => fenAt(G.plies.length);
  const curPos = () => parseFen(curFen());
  const lastIrrev = () => { let k = G.plies.length; while (k && !G.plies[k - 1].irrev) k--; return k; };

  // ---- drawing ----
  svg("rect", {width: 80, height: 80, class: "light"}, board);
  for (let n = 1; n <= 32; n++) {
    const g = (squares[n] = svg("g", {"data-square": n, class: "sq"}, board));
    svg("rect", {width: 10, height: 10}, g);
    svg("text", {x: 0.5, y: 2.1, class: "num"}, g).textContent = n;
  }
  const overlay = svg("g", {class: "ov"}, board);
  const xy = (n) => {
    const r = (n - 1) >> 2, c = 2 * ((n - 1) & 3) + (r % 2 ? 0 : 1);
    return flip ? [7 - c, 7 - r] : [c, r];
  };
  const centre = (n) => xy(n).map((v) => v * 10 + 5).join(",");

  function layout() {
    for (let n = 1; n <= 32; n++) squares[n].setAttribute("transform", `translate(${xy(n).map((v) => v * 10).join(" ")})`);
    board.dataset.flipped = flip;
    $("evalbar").classList.toggle("flipped", flip);
  }

  function viable() {
    return sel.cands.filter((m) => sel.via.every((v, i) => m.path[i + 1] === v));
  }

  function render() {
    const p = curPos(), last = G.plies.at(-1), cands = sel ? viable() : [];
    const ends = new Set(cands.map((m) => m.to));
    const steps = new Set(cands.map((m) => m.path[sel.via.length + 1]));
    const must = new Set(state === "ready" && G.legal[0]?.nj ? G.legal.map((m) => m.from) : []);
    const lastSq = new Set(last ? last.path : []);
    for (let n = 1; n <= 32; n++) {
      const g = squares[n], cl = g.classList, x = p.sq[n];
      cl.toggle("sel", sel?.from === n);
      cl.toggle("tgt", ends.has(n));
      cl.toggle("step", steps.has(n) && !ends.has(n));
      cl.toggle("via", !!sel?.via.includes(n));
      cl.toggle("must", must.has(n));
      cl.toggle("last", lastSq.has(n));
      g.querySelector(".pc")?.remove();
      if (!x) continue;
      const pc = svg("g", {class: `pc ${x.c}`, "data-piece": `${x.k ? "king" : "man"}-${x.c === "B" ? "black" : "white"}`});
      svg("circle", {cx: 5, cy: 5, r: 3.8}, pc);
      svg("circle", {cx: 5, cy: 5, r: 2.8, class: "rim"}, pc);
      if (x.k) svg("path", {d: CROWN, class: "crown"}, pc);
      g.insertBefore(pc, g.lastChild); // under the square number
    }
    overlay.replaceChildren();
    if (last) {
      svg("polyline", {points: last.path.map(centre).join(" "), class: "arrow"}, overlay);
      const [x, y] = centre(last.path.at(-1)).split(",");
      svg("circle", {cx: x, cy: y, r: 1.2, class: "arrow"}, overlay);
    }
    const toks = moveTokens(G.start[0], G.plies.map((q) => q.pdn));
    const list = $("moves");
    list.replaceChildren();
    toks.forEach((t, i) => {
      const e = list.appendChild(document.createElement("span"));
      e.className = /\.$/.test(t) ? "no" : i === toks.length - 1 ? "mv cur" : "mv";
      e.textContent = t;
      list.append(" ");
    });
    if (G.result) list.appendChild(document.createElement("b")).textContent = G.result;
    list.scrollTop = list.scrollHeight;
  }

  // ---- page state ----
  function setState(s) {
    state = document.body.dataset.state = s;
    $("movenow").disabled = s !== "thinking";
    $("resign").disabled = $("draw").disabled = s === "over";
  }
  const say = (t) => ($("status").textContent = t);
  function msg(t, err) {
    const m = $("msg");
    m.textContent = t;
    m.classList.toggle("err", !!err);
  }
  function problem(e) {
    if (e.closed) say("Waiting for the connection…");
    else msg(e.message, true);
  }

  function showSearch(st, side) {
    const put = (id, v) => ($(id).textContent = v ?? "–");
    put("depth", st.book ? `book (${st.book})` : st.forced ? "forced move" : st.depth);
    put("nodes", st.nodes && (+st.nodes).toLocaleString("en"));
    put("nps", st.nps && (+st.nps).toLocaleString("en"));
    put("time", st.time && `${st.time} s` + (st.t704 ? ` (704 time ${st.t704} s)` : ""));
    put("pv", st.pv ?? st.forced);
    if (st.score) setBar(forBlack(st.score, side));
  }
  function setBar(sc) {
    const bar = $("evalbar");
    const f = sc ? (sc.mate ? (sc.mate > 0 ? 1 : 0) : 0.5 + 0.5 * Math.tanh(sc.v / 2.5)) : 0.5;
    bar.firstElementChild.style.width = `${(f * 100).toFixed(1)}%`;
    bar.lastElementChild.textContent = sc ? scoreText(sc) : "0.00";
    bar.dataset.score = sc ? (sc.mate ? (sc.mate > 0 ? "win" : "loss") + Math.abs(sc.mate) : sc.v) : "";
  }

  const cmd = (line, onStatus, live) => link.req(line, onStatus, live);

  function finish(result, why) {
    G.result = result;
    G.why = why;
    sel = null;
    setState("over");
    render();
    say(`Game over, ${result}: ${why}`);
  }

  function drawReason() {
    const n = G.plies.length, k = lastIrrev();
    if (n - k >= 80) return "80 plies without a man move or a capture (the 40-move rule)";
    let reps = 0;
    for (let i = k; i <= n; i++) reps += fenAt(i) === fenAt(n);
    if (reps >= 3) return "the same position a third time (threefold repetition)";
  }

  // After every change of the game: fetch the legal moves, then end the game, wait for the human, or search.
  async function advance() {
    const id = ++epoch, fen = curFen();
    sel = null;
    if (G.result) return setState("over"), render();
    setState("busy");
    render();
    let legal;
    try {
      legal = parseMovelist((await cmd(`get movelist ${fen}`)).text);
    } catch (e) {
      return id === epoch && problem(e);
    }
    if (id !== epoch) return;
    G.legal = legal;
    if (!legal.length) return finish(fen[0] === "B" ? "0-1" : "1-0", `${NAME[fen[0]]} has no legal move`);
    const d = drawReason();
    if (d) return finish("1/2-1/2", d);
    if (fen[0] !== human) return think(id, fen);
    setState("ready");
    render();
    say(`Your move (${NAME[human]})` + (legal[0].nj ? ": a capture is forced" : ""));
  }

  async function think(id, fen) {
    const eng = fen[0], lv = $("level").value, info = G.fresh ? 1 : 0;
    G.fresh = false;
    setState("thinking");
    say(`samuel (${NAME[eng]}) is thinking…`);
    // CheckerBoard's way: the history since the last irreversible move, so the search sees repetitions.
    const k = lastIrrev(), hist = `set gamehist ${fenAt(k)} ${G.plies.slice(k).map((q) => q.pdn).join(" ")}`;
    const go = lv[0] === "d" ? `getmove fen=${fen} depth=${lv.slice(1)} info=${info}` : `getmove ${fen} ${lv} ${info}`;
    let r;
    try {
      await cmd(hist.trim());
      r = await cmd(go, (s) => {
        if (id !== epoch) return;
        const st = parseStatus(s);
        showSearch(st, eng);
        say(`samuel (${NAME[eng]}) is thinking… ` + (st.depth && !st.book ? `depth ${st.depth}` : s));
      }, () => id === epoch);
    } catch (e) {
      return id === epoch && problem(e);
    }
    if (id !== epoch) return;
    const [pdn, word, after, ...rest] = r.text.split(" "), st = parseStatus(rest.join(" "));
    showSearch(st, eng);
    engScore = st.score ?? engScore;
    const m = matchMove(G.legal, pdn)[0];
    G.plies.push({pdn: m?.pdn ?? pdn, path: m?.path ?? pdn.split(/[-x]/).map(Number), fen: fenOf(parseFen(after)), side: eng,
      irrev: m ? irreversible(m) : pdn.includes("x") || !curPos().sq[+pdn.split(/[-x]/)[0]]?.k});
    if (word === "DRAW") return finish("1/2-1/2", "samuel's move repeats the position a third time or completes the 40-move rule");
    advance();
  }

  // Whatever the page does next, a running search is stopped and its move discarded (epoch moves on).
  const stopSearch = () => state === "thinking" && link.raw("playnow");

  function newGame(start = START, plies = []) {
    stopSearch();
    G = {start, plies, legal: [], result: null, why: "", fresh: true};
    engScore = null;
    setBar(null);
    for (const id of ["depth", "nodes", "nps", "time", "pv"]) $(id).textContent = "–";
    advance();
  }

  function play(m) {
    const p = curPos();
    G.plies.push({pdn: m.pdn, path: m.path, fen: fenOf(applyMove(p, m)), side: p.turn, irrev: irreversible(m)});
    msg("");
    advance();
  }

  function clickSquare(n) {
    if (state !== "ready") return state === "thinking" && msg("samuel is thinking: Move now makes it play");
    const x = curPos().sq[n];
    if (sel) {
      const c = viable(), ends = c.filter((m) => m.to === n), next = c.filter((m) => m.path[sel.via.length + 1] === n);
      if (ends.length === 1) return play(ends[0]);
      if (next.length) return sel.via.push(n), render(); // the final landing plays the move
      if (ends.length > 1) {
        msg(`${ends.length} captures go from ${sel.from} to ${n}: click the squares it lands on, in order`);
        return render();
      }
      if (n === sel.from) return (sel = null), render();
    }
    sel = null;
    if (x?.c === human) {
      const cands = G.legal.filter((m) => m.from === n);
      if (cands.length) sel = {from: n, cands, via: []};
      else if (G.legal[0].nj) msg(`A capture is forced: with ${[...new Set(G.legal.map((m) => m.from))].join(", ")}`);
      else msg(`The piece on ${n} cannot move`);
    }
    render();
  }

  function undo() {
    let k = G.plies.length, took = false;
    while (k > 0) {
      took ||= G.plies[--k].side === human;
      if (took && fenAt(k)[0] === human) break;
    }
    if (!took || fenAt(k)[0] !== human) return msg("Nothing of yours to take back");
    stopSearch();
    G.plies.length = k;
    G.result = engScore = null;
    msg("");
    advance();
  }

  async function offerDraw() {
    if (state !== "ready") return msg("Offer a draw when it is your move");
    const id = epoch, eng = other(human);
    let sc = engScore, how = "its last search";
    if (!sc) {
      try {
        const r = await cmd(`staticevaluation ${curFen()}`), m = /([+-]?[\d.]+) for (Black|White)/.exec(r.text);
        if (!m) throw new Error(`cannot read "${r.text}"`);
        sc = {v: m[2][0] === eng ? +m[1] : -m[1]};
        how = "its static evaluation";
      } catch (e) {
        return problem(e);
      }
    }
    if (id !== epoch) return;
    const s = `${scoreText(sc)} for samuel by ${how}`;
    if (sc.mate || Math.abs(sc.v) > 0.2) return msg(`samuel declines the draw (${s})`);
    msg(`samuel accepts the draw (${s})`);
    finish("1/2-1/2", "draw agreed");
  }

  function resign() {
    if (state === "over") return;
    stopSearch();
    epoch++;
    finish(human === "B" ? "0-1" : "1-0", `${NAME[human]} resigns`);
  }

  async function copy(text, what) {
    const box = $("pastebox");
    box.value = text;
    box.select();
    try {
      await navigator.clipboard.writeText(text);
      msg(`${what} copied to the clipboard`);
    } catch {
      msg(document.execCommand("copy") ? `${what} copied` : `${what} is in the box: copy it from there`);
    }
  }

  function gamePdn() {
    const d = new Date(), p2 = (v) => String(v).padStart(2, "0");
    const names = {B: human === "B" ? "You" : "samuel", W: human === "W" ? "You" : "samuel"};
    const tags = {Event: "samuel web game", Date: `${d.getFullYear()}.${p2(d.getMonth() + 1)}.${p2(d.getDate())}`,
      Black: names.B, White: names.W, Result: G.result ?? "*"};
    return pdnText(G.start, G.plies.map((q) => q.pdn), tags, G.result ?? "*");
  }

  // A FEN, or a PDN game: the server checks the FEN; each move must match one move of its list.
  async function load() {
    const text = $("pastebox").value.trim();
    if (!text) return msg("Paste a FEN or a PDN game into the box first", true);
    stopSearch();
    const id = ++epoch;
    setState("busy");
    try {
      let start = START, toks = [];
      if (/^"?[BW]:/i.test(text)) start = text;
      else {
        const g = parsePdn(text);
        start = g.tags.FEN ?? START;
        toks = g.moves;
        if (!toks.length && !g.tags.FEN) throw new Error("PDN: no moves and no FEN tag");
      }
      let r;
      try {
        r = await cmd(`set gamehist ${start.replace(/\s+/g, "")}`);
      } catch (e) {
        throw e.closed ? e : new Error(`Bad FEN "${start}": ${e.message}`);
      }
      let pos = parseFen(r.text.replace(/^gamehist \d+ moves to /, ""));
      start = fenOf(pos);
      const plies = [];
      for (const [i, tok] of toks.entries()) {
        const legal = parseMovelist((await cmd(`get movelist ${fenOf(pos)}`)).text), hits = matchMove(legal, tok);
        if (hits.length !== 1) {
          const why = hits.length ? `ambiguous (${hits.map((m) => m.pdn).join(" or ")})` : `not legal (legal: ${legal.map((m) => m.pdn).join(" ") || "none"})`;
          throw new Error(`PDN move ${i + 1}, ${tok}, is ${why} in ${fenOf(pos)}`);
        }
        const after = applyMove(pos, hits[0]);
        plies.push({pdn: hits[0].pdn, path: hits[0].path, fen: fenOf(after), side: pos.turn, irrev: irreversible(hits[0])});
        pos = after;
      }
      if (id !== epoch) return;
      newGame(start, plies);
      msg(toks.length ? `Loaded ${toks.length} plies` : `Loaded the position ${start}`);
    } catch (e) {
      if (id !== epoch) return;
      problem(e);
      advance();
    }
  }

  async function setBackend() {
    const b = $("backend"), v = b.value;
    try {
      const r = await cmd(`set backend ${v}`);
      if (!r.ok) (b.value = v === "704" ? "modern" : "704"), msg(r.text, true);
      else msg(v === "704" ? "Backend 704: Samuel's own program on the emulated IBM 704" : "Backend modern");
    } catch (e) {
      problem(e);
    }
  }

  link = new Link({
    conn(kind, text) {
      const c = $("conn");
      c.textContent = text;
      c.dataset.conn = kind;
    },
    error: (t) => msg(t, true),
    async open() {
      G.fresh = true; // a new session has empty tables and default options
      try {
        $("engine").textContent = (await cmd("name")).text;
        if ($("backend").value !== "modern") await setBackend();
      } catch (e) {
        return problem(e);
      }
      advance();
    },
  });

  const on = (id, ev, f) => $(id).addEventListener(ev, f);
  board.addEventListener("click", (e) => {
    const g = e.target.closest("[data-square]");
    if (g) clickSquare(+g.dataset.square);
  });
  on("new", "click", () => (link.reopen(), msg(""), newGame()));
  on("undo", "click", undo);
  on("flip", "click", () => ((flip = !flip), layout(), render()));
  on("resign", "click", resign);
  on("draw", "click", offerDraw);
  on("movenow", "click", () => link.raw("playnow"));
  on("copyfen", "click", () => copy(curFen(), "FEN"));
  on("copypdn", "click", () => copy(gamePdn(), "PDN"));
  on("paste", "click", load);
  on("backend", "change", setBackend);
  on("side", "change", () => {
    human = $("side").value;
    if (G.result) return;
    stopSearch();
    advance();
  });

  human = $("side").value;
  G = {start: START, plies: [], legal: [], result: null, why: "", fresh: true};
  layout();
  setBar(null);
  setState("busy");
  render();
  link.open();
}

if (typeof document !== "undefined") main();
