// The termgames page: an xterm.js terminal on the websocket of one browser session (textual-serve's protocol
// plus a few messages of termgames': see termgames/web/pages.py).
//
// The page keeps its session's id (sessionStorage: one per tab, kept across a reload) and gives it back when it
// connects again, so a reload or a dropped connection returns to the same app.  It sizes the terminal to the
// window, but never below the minimum the screen needs (a narrow window gets a smaller font first, then
// scrolls), and shows buttons for the keys a phone has not.

import { Terminal } from "./xterm.mjs";
import { FitAddon } from "./addon-fit.mjs";
import { Unicode11Addon } from "./addon-unicode11.mjs";

const SESSION = "termgames.session";
// A message stays well under the server's limit (16 kB): a long paste goes in pieces.
const STDIN_PIECE = 4000;

// The token has signed this browser in (a cookie now): it leaves the address bar and the history.
const query = new URLSearchParams(location.search);
function dropFromAddress(name) {
  if (query.has(name)) {
    query.delete(name);
    const rest = query.toString();
    history.replaceState(null, "", location.pathname + (rest ? "?" + rest : ""));
  }
}
dropFromAddress("token");
// A server's link to a table (?table=N): the new session opens it (a reload comes back to the session instead).
let opening = query.get("table") || "";

const narrow = window.matchMedia("(max-width: 600px)").matches;
const fontSize = narrow ? 12 : 15;
// A window narrower than the screen's least columns at fontSize gets a smaller font, down to this (px), before
// the terminal scrolls sideways.
const LEAST_FONT_SIZE = 7;
const fontFamily = '"termgames mono", "termgames braille", monospace';
// Measured before the terminal opens: a fallback font's cell size would stay.
await Promise.all([
  document.fonts.load(`${fontSize}px "termgames mono"`),
  document.fonts.load(`bold ${fontSize}px "termgames mono"`),
]);

const terminal = new Terminal({
  allowProposedApi: true,
  fontFamily,
  fontSize,
  scrollback: 0,
  cursorBlink: false,
  macOptionIsMeta: true,
  theme: { background: "#121212" },
});
const fit = new FitAddon();
terminal.loadAddon(fit);
terminal.loadAddon(new Unicode11Addon());
terminal.unicode.activeVersion = "11";
terminal.open(document.getElementById("terminal"));

let socket = null;
let minimum = [60, 20];
let retries = 0;

function send(message) {
  if (socket !== null && socket.readyState === WebSocket.OPEN) {
    socket.send(JSON.stringify(message));
  }
}

function wantedSize() {
  const fitted = fit.proposeDimensions() || { cols: 80, rows: 24 };
  return { cols: Math.max(fitted.cols, minimum[0]), rows: Math.max(fitted.rows, minimum[1]) };
}

// The font the terminal has for this window width and the screen's least columns: its own size, or a smaller
// one that fits the columns (a phone's 360 px hold 60 of them at about 10 px).
let fontFor = "";
function fitFont() {
  const width = document.getElementById("terminal").clientWidth;
  const key = `${width}x${minimum[0]}`;
  if (key === fontFor || width === 0) {
    return;
  }
  fontFor = key;
  let size = fontSize;
  terminal.options.fontSize = size;
  for (;;) {
    const fitted = fit.proposeDimensions();
    if (!fitted || fitted.cols >= minimum[0] || size <= LEAST_FONT_SIZE) {
      return;
    }
    size = Math.max(LEAST_FONT_SIZE, size - 0.5);
    terminal.options.fontSize = size;
  }
}

function layout() {
  fitFont();
  const { cols, rows } = wantedSize();
  if (cols !== terminal.cols || rows !== terminal.rows) {
    terminal.resize(cols, rows);
  }
}

terminal.onResize(({ cols, rows }) => send(["resize", { width: cols, height: rows }]));
terminal.onData((data) => {
  for (let start = 0; start < data.length; start += STDIN_PIECE) {
    send(["stdin", data.slice(start, start + STDIN_PIECE)]);
  }
});
window.addEventListener("resize", layout);
// The key rows below the terminal fill in (and change with the screen) after the terminal was sized: whatever
// changes the room left for it sizes it again, or its last rows (the footer) would hide under the keys.
new ResizeObserver(() => layout()).observe(document.getElementById("terminal"));

// -- what the screen shows: the title, the keys, the least size ------------------------------------------------

function keyButton(label, data, enabled = true) {
  const button = document.createElement("button");
  button.type = "button";
  button.textContent = label;
  button.disabled = !enabled;
  // Pressed without taking the focus from the terminal (a phone's keyboard stays up).
  button.addEventListener("pointerdown", (event) => event.preventDefault());
  button.addEventListener("click", () => send(["stdin", data]));
  return button;
}

function showScreen(info) {
  document.title = info.title;
  minimum = info.minimum;
  layout();
  const pad = document.getElementById("pad");
  if (!pad.hasChildNodes()) {
    for (const [label, data] of info.pad) {
      pad.append(keyButton(label, data));
    }
    const keyboard = document.createElement("button");
    keyboard.type = "button";
    keyboard.textContent = "⌨";
    keyboard.title = "keyboard";
    keyboard.addEventListener("click", () => terminal.focus());
    pad.append(keyboard);
  }
  document.getElementById("screen-keys").replaceChildren(
    ...info.keys.map(([label, data, enabled]) => keyButton(label, data, enabled)),
  );
}

// -- one session, one tab ---------------------------------------------------------------------------------------
// A duplicated tab starts with a copy of its original's sessionStorage, and so with its session's id: asked
// whether another tab of this browser has that session, the original answers, and the copy starts its own.

const tabs = new BroadcastChannel("termgames.sessions");
tabs.addEventListener("message", (event) => {
  const asked = event.data && event.data.ask;
  if (asked && asked === sessionStorage.getItem(SESSION)) {
    tabs.postMessage({ using: asked });
  }
});

function heldByAnotherTab(id) {
  return new Promise((resolve) => {
    const answer = (event) => {
      if (event.data && event.data.using === id) {
        resolve(true);
      }
    };
    tabs.addEventListener("message", answer);
    tabs.postMessage({ ask: id });
    setTimeout(() => {
      tabs.removeEventListener("message", answer);
      resolve(false);
    }, 150);
  });
}

// -- the connection -------------------------------------------------------------------------------------------

function banner(text) {
  const element = document.getElementById("banner");
  element.textContent = text || "";
  element.hidden = !text;
}

function notice(text, lines, buttonText, action) {
  document.getElementById("notice-text").textContent = text;
  document.getElementById("notice-lines").textContent = (lines || []).join("\n");
  const button = document.getElementById("notice-button");
  button.textContent = buttonText;
  button.hidden = !buttonText;
  button.onclick = () => {
    document.getElementById("notice").hidden = true;
    action();
  };
  document.getElementById("notice").hidden = false;
  banner("");
}

function connect() {
  const { cols, rows } = wantedSize();
  const url = new URL("ws", location.href);
  url.protocol = location.protocol === "https:" ? "wss:" : "ws:";
  url.search = new URLSearchParams({
    session: sessionStorage.getItem(SESSION) || "",
    width: cols,
    height: rows,
    table: opening,
  }).toString();
  let reason = null;
  const ws = new WebSocket(url);
  ws.binaryType = "arraybuffer";
  socket = ws;
  ws.addEventListener("open", () => {
    retries = 0;
    banner("");
    layout();
    terminal.focus();
  });
  ws.addEventListener("message", (event) => {
    if (typeof event.data !== "string") {
      terminal.write(new Uint8Array(event.data));
      return;
    }
    const [kind, argument] = JSON.parse(event.data);
    if (kind === "session") {
      sessionStorage.setItem(SESSION, argument);
      opening = "";
      dropFromAddress("table");
    } else if (kind === "screen") {
      showScreen(argument);
    } else if (["ended", "replaced", "refused", "closed"].includes(kind)) {
      reason = [kind, argument];
    }
  });
  ws.addEventListener("close", () => {
    if (socket === ws) {
      socket = null;
    }
    if (reason === null) {
      reconnectSoon();
      return;
    }
    const [kind, argument] = reason;
    if (kind === "ended" && argument.retry) {
      // The server restarts: its new process knows no session of ours; a new one goes back to her table.
      sessionStorage.removeItem(SESSION);
      comeBackAfterRestart(argument);
    } else if (kind === "ended") {
      sessionStorage.removeItem(SESSION);
      document.title = "termgames";
      notice(argument.why || "The session has ended.", argument.lines, "Start again", () => {
        terminal.reset();
        connect();
      });
    } else if (kind === "replaced") {
      notice("This session is open in another tab or window now.", [], "Use it here", connect);
    } else {
      notice(`termgames: ${argument}`, [], "Try again", connect);
    }
  });
}

// After a restart: the first try this soon, then twice as long each time, up to the last wait (milliseconds).
const RESTART_FIRST_WAIT = 1000;
const RESTART_LAST_WAIT = 30000;

// Whether the server answers: "up", "signed out" (with its line) or "down".
async function serverState() {
  try {
    const answer = await fetch("alive", { cache: "no-store" });
    const line = await answer.text();
    if (answer.status === 403) {
      return ["signed out", line];
    }
    return [answer.ok ? "up" : "down", line];
  } catch {
    return ["down", ""]; // The server cannot be reached yet.
  }
}

// The server said it restarts: the page says so, what it does meanwhile, and comes back by itself once the
// server answers again (less and less often while it does not; "Try now" does not wait).
async function comeBackAfterRestart(argument) {
  document.title = "termgames";
  let wait = RESTART_FIRST_WAIT;
  let attempt = 0;
  let wake = null;
  for (;;) {
    attempt += 1;
    const seconds = Math.round(wait / 1000);
    notice(argument.why, [...(argument.lines || []), `Next try in ${seconds} s (try ${attempt}).`], "Try now",
      () => wake && wake());
    await new Promise((resolve) => {
      wake = resolve;
      setTimeout(resolve, wait);
    });
    wake = null;
    const [state, line] = await serverState();
    if (state === "up") {
      document.getElementById("notice").hidden = true;
      terminal.reset();
      connect();
      return;
    }
    if (state === "signed out") {
      notice(`This browser is no longer signed in: ${line}`, [], "", () => {});
      return;
    }
    wait = Math.min(RESTART_LAST_WAIT, wait * 2);
  }
}

async function reconnectSoon() {
  banner("The connection was lost: reconnecting...");
  const wait = Math.min(10000, 500 * 2 ** retries);
  retries += 1;
  await new Promise((resolve) => setTimeout(resolve, wait));
  const [state, line] = await serverState();
  if (state === "signed out") {
    notice(`This browser is no longer signed in: ${line}`, [], "", () => {});
  } else if (state === "up") {
    connect();
  } else {
    reconnectSoon();
  }
}

// For the browser tests (and the curious): the terminal's text as it stands.
window.termgames = {
  terminal,
  screenText() {
    const buffer = terminal.buffer.active;
    const lines = [];
    for (let row = 0; row < terminal.rows; row += 1) {
      lines.push(buffer.getLine(row)?.translateToString(true) ?? "");
    }
    return lines.join("\n");
  },
  connected: () => socket !== null && socket.readyState === WebSocket.OPEN,
};

const kept = sessionStorage.getItem(SESSION);
if (kept && (await heldByAnotherTab(kept))) {
  sessionStorage.removeItem(SESSION);
}
layout();
connect();
