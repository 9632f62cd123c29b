// The dashboard page: shows the state the server owns (pushed as server-sent events) and sends
// the person's actions as POST requests. No polling: the server pushes every change.
import { Cube3D, Player } from "./cube3d.js";
import { drawLabPlot } from "./labplot.js";

const FACES = "URFDLB";
const DEFAULT_COLOURS = { U: "#f5f5f5", R: "#c62828", F: "#2e7d32", D: "#fdd835", L: "#ef6c00", B: "#1565c0" };
const $ = (id) => document.getElementById(id);
const token = new URLSearchParams(location.search).get("token");

let state = null;
let solutionText = null;
let colours = { ...DEFAULT_COLOURS };

async function post(path, body, contentType = "application/json") {
  const headers = { "Content-Type": contentType, "X-Cubebot-Page": "1" };
  if (token) headers["X-Cubebot-Token"] = token;
  const data = body === undefined ? "{}" : contentType === "application/json" ? JSON.stringify(body) : body;
  let answer;
  try {
    const response = await fetch(path, { method: "POST", headers, body: data });
    answer = await response.json();
    if (!response.ok) throw new Error(answer.error || `${response.status} ${response.statusText}`);
  } catch (err) {
    notice(err.message, true);
    return null;
  }
  notice("");
  if (answer.scan) render(answer);
  return answer;
}

function notice(text, bad = false) {
  $("notice").textContent = text;
  $("notice").style.color = bad ? "#ffb4b4" : "#fff";
}

/** Each letter's colour: the measured centre of its face when scanned, else the usual scheme. */
function letterColours(scan) {
  const out = { ...DEFAULT_COLOURS };
  if (!scan.stickers.length) return out;
  const n = scan.per_face;
  FACES.split("").forEach((face, f) => {
    // the centre of an odd cube, else the sticker of the face read as its own letter
    let i = f * n + Math.floor(n / 2);
    if (scan.size % 2 === 0) {
      const own = scan.stickers.findIndex((s, k) => Math.floor(k / n) === f && s.letter === face);
      if (own >= 0) i = own;
    }
    const rgb = scan.stickers[i].rgb;
    if (rgb && scan.stickers[i].letter === face) out[face] = `rgb(${rgb.join(",")})`;
  });
  return out;
}

// -- rendering --------------------------------------------------------------------------------

function newerRig(rig) {
  // events and action answers may arrive out of order: never show an older rig state
  return !state || !state.rig || rig.version >= state.rig.version;
}

function render(next) {
  if (state && !newerRig(next.rig)) next.rig = state.rig;
  state = next;
  const scan = state.scan;
  colours = letterColours(scan);
  renderScan(scan);
  renderNet(scan);
  renderSolution(scan);
  renderRig(state.rig);
  followRig();
  document.body.dataset.ready = "true";  // the server's state is shown
}

function renderScan(scan) {
  $("next-face").textContent = scan.next_face || "all six scanned";
  $("snap-face").textContent = scan.next_face || "-";
  $("scan").disabled = !scan.has_camera || !scan.next_face;
  $("capture").disabled = !scan.has_camera || !scan.next_face;
  $("live-view").disabled = !scan.has_camera && !live;
  $("scan-error").textContent = scan.scan_error;
  const figures = [];
  for (const face of FACES) {
    const src = scan.overlays[face];
    if (!src) continue;
    const fig = document.createElement("figure");
    const img = document.createElement("img");
    img.src = src;
    img.alt = `face ${face} as scanned`;
    const cap = document.createElement("figcaption");
    const retake = document.createElement("button");
    retake.textContent = "retake";
    retake.dataset.test = "retake";
    retake.addEventListener("click", () => post("/api/scan/retake", { face }));
    cap.append(`face ${face}`, retake);
    fig.append(img, cap);
    figures.push(fig);
  }
  $("overlays").replaceChildren(...figures);
}

// the net as a cross: U above F, L F R B in a row, D below F
const NET_CELL = { U: [1, 2], L: [2, 1], F: [2, 2], R: [2, 3], B: [2, 4], D: [3, 2] };

/** Whether the rig is running (or ran) the solution shown: then the page follows its moves. */
function following(st) {
  const solution = st.scan.solution, rig = st.rig;
  return Boolean(solution && rig.cube && rig.moves.join(" ") === solution.moves.join(" "));
}

/** The stickers the net shows: the rig's cube while it follows a run, else the scan's. */
function netStickers(st) {
  if (!following(st)) return st.scan.stickers;
  return st.rig.cube.split("").map((letter) => ({ letter, rgb: null, doubtful: false, confidence: null }));
}

function renderNet(scan) {
  const net = $("net");
  const faces = [];
  const size = scan.size;
  const rigCube = following(state);
  const stickers = netStickers(state);
  if (stickers.length) {
    FACES.split("").forEach((face, f) => {
      const div = document.createElement("div");
      div.className = "face";
      div.style.gridTemplateColumns = `repeat(${size}, auto)`;
      div.style.gridRow = String(NET_CELL[face][0]);
      div.style.gridColumn = String(NET_CELL[face][1]);
      for (let k = 0; k < scan.per_face; k++) {
        const index = f * scan.per_face + k;
        const s = stickers[index];
        const b = document.createElement("button");
        b.className = "sticker" + (s.doubtful ? " doubtful" : "");
        b.dataset.sticker = String(index);
        b.dataset.letter = s.letter;
        b.textContent = s.letter;
        // the sticker's own measured colour, with a bar in the colour of the face it is read as
        b.style.backgroundColor = s.rgb ? `rgb(${s.rgb.join(",")})` : colours[s.letter];
        b.style.boxShadow = `inset 0 -6px 0 ${colours[s.letter]}`;
        b.title = `${face}${k + 1}: read as ${s.letter}` + (s.confidence != null ? ` (confidence ${s.confidence})` : "");
        b.disabled = rigCube;  // the rig's cube is what the rig holds, not an edit
        b.addEventListener("click", () => editSticker(index));
        div.appendChild(b);
      }
      faces.push(div);
    });
  }
  net.replaceChildren(...faces);
  const validity = $("validity");
  if (rigCube) {
    const rig = state.rig;
    validity.textContent = rig.moves_done === rig.moves_total && rig.rig_facelets
      ? "The rig's cube, as the rig reports it after the run."
      : `The rig's cube after ${rig.moves_done} of ${rig.moves_total} moves.`;
    validity.className = "good";
  } else if (!scan.facelets) {
    validity.textContent = scan.scan_error ? "" : "Scan the cube to fill the net.";
    validity.className = "";
  } else if (scan.invalid) {
    validity.textContent = `Not a real cube: ${scan.invalid}`;
    validity.className = "bad";
  } else {
    validity.textContent = "A real cube: ready to solve.";
    validity.className = "good";
  }
  $("solve").disabled = !scan.facelets || Boolean(scan.invalid);
}

function editSticker(index) {
  const facelets = state.scan.facelets.split("");
  facelets[index] = FACES[(FACES.indexOf(facelets[index]) + 1) % 6];
  post("/api/net", { facelets: facelets.join("") });
}

function renderSolution(scan) {
  if (!player) player = makePlayer(scan.size);
  const solution = scan.solution;
  const key = solution ? `solution ${solution.text}` : `cube ${scan.facelets}`;
  if (key === solutionText) { player.recolour(colours); return; }
  solutionText = key;
  const items = (solution ? solution.moves : []).map((move, i) => {
    const li = document.createElement("li");
    li.textContent = move;
    li.dataset.index = String(i);
    return li;
  });
  $("moves").replaceChildren(...items);
  $("solve-summary").textContent = solution
    ? `${solution.htm} moves (HTM), about ${solution.rig_seconds} s on the rig`
    : "";
  const solved = scan.size === 2 ? "U".repeat(4) + "R".repeat(4) + "F".repeat(4) + "D".repeat(4) + "L".repeat(4) + "B".repeat(4)
    : FACES.split("").map((f) => f.repeat(9)).join("");
  player.load(solution ? solution.states : [scan.facelets || solved], colours);
}

/** Show the rig's progress on the 3D cube: the state after the moves the rig has made. */
function followRig() {
  if (!player || !following(state)) return;
  player.pause();
  player.go(state.rig.moves_done);
}

function renderRig(rig) {
  const badge = $("rig-state");
  badge.textContent = rig.state;
  badge.className = `badge ${rig.state}`;
  badge.dataset.state = rig.state;
  if (!$("rig-url").value) $("rig-url").value = rig.url || state.rig_port || "";
  $("handshake").textContent = Object.keys(rig.handshake).length
    ? [`state: ${rig.state}, moves done: ${rig.moves_done} of ${rig.moves_total}`,
       ...Object.entries(rig.handshake).map(([k, v]) => `${k}: ${v}`)].join("\n")
    : "not connected";
  const progress = $("progress");
  progress.value = rig.percent;
  progress.setAttribute("aria-valuenow", String(rig.percent));
  $("progress-label").textContent = rig.moves_total ? `${rig.moves_done} of ${rig.moves_total} moves done by the rig` : "";
  $("rig-message").textContent = rig.message;
  const connected = rig.state !== "disconnected";
  const moving = rig.state === "moving" || rig.state === "stopping";
  $("connect").disabled = moving;
  // a solution already made on the rig is not sent again (it would scramble the cube)
  $("run").disabled = !connected || moving || !state.scan.solution
    || rig.state === "estopped" || rig.state === "solved";
  $("stop").disabled = !moving;
  $("estop").disabled = !connected;
  $("resume").disabled = !(rig.state === "stopped" || rig.state === "estopped");
}

// -- wiring -----------------------------------------------------------------------------------

let player = null;

function makePlayer(size) {
  return new Player(new Cube3D($("cube3d"), size), {
    play: $("play"), step: $("step"), back: $("back"), scrub: $("scrub"), label: $("step-label"),
  }, (index) => {
    let turned = null;
    for (const li of $("moves").children) {
      const current = Number(li.dataset.index) === index - 1;
      li.classList.toggle("current", current);
      if (current) turned = li.textContent[0];
    }
    player.cube3d.markTurned(turned);
  });
}

$("scan").addEventListener("click", () => post("/api/scan"));
$("capture").addEventListener("click", () => post("/api/scan/face"));
$("reset-scan").addEventListener("click", () => post("/api/scan/reset"));
$("solve").addEventListener("click", async () => { notice("solving\u2026"); await post("/api/solve"); });
$("connect").addEventListener("click", () => post("/api/rig/connect", { url: $("rig-url").value }));
$("run").addEventListener("click", () => post("/api/rig/run"));
$("stop").addEventListener("click", () => post("/api/rig/stop"));
$("estop").addEventListener("click", () => post("/api/rig/estop"));
$("resume").addEventListener("click", () => post("/api/rig/resume"));
$("save-profile").addEventListener("click", async () => {
  const answer = await post("/api/calibrate/profile");
  if (answer) notice(`colour profile saved to ${answer.saved}`);
});
$("plot").addEventListener("click", plotColours);

async function plotColours() {
  const response = await fetch("/api/calibrate/lab");
  const answer = await response.json();
  drawLabPlot($("lab-plot"), answer.points || []);
  $("lab-plot").dataset.points = String((answer.points || []).length);
}

$("upload").addEventListener("change", async (e) => {
  const file = e.target.files[0];
  e.target.value = "";
  if (!file || !state) return;
  await post(`/api/scan/face?face=${state.scan.next_face || "U"}`, file, file.type || "image/jpeg");
});

// The browser's own camera (a phone's back camera): needs a secure page (localhost or https);
// elsewhere the photo upload above opens the phone's camera app instead.
$("phone-camera").addEventListener("click", async () => {
  if (!navigator.mediaDevices || !navigator.mediaDevices.getUserMedia) {
    notice("this page cannot use the camera here (it needs https or localhost): use 'Upload a photo'", true);
    return;
  }
  try {
    const stream = await navigator.mediaDevices.getUserMedia({ video: { facingMode: "environment" }, audio: false });
    $("video").srcObject = stream;
    await $("video").play();
    $("live").hidden = false;
    $("snap").hidden = false;
    $("live-view").textContent = "Stop live view";
    $("live-view").disabled = false;
    live = "browser";
    liveFrame();
  } catch (err) {
    notice(`camera: ${err.message}`, true);
  }
});
/** A JPEG of the video's current frame, at most `width` pixels wide. */
function videoFrame(width) {
  const video = $("video");
  const scale = Math.min(1, width / video.videoWidth);
  const canvas = document.createElement("canvas");
  canvas.width = Math.round(video.videoWidth * scale);
  canvas.height = Math.round(video.videoHeight * scale);
  canvas.getContext("2d").drawImage(video, 0, 0, canvas.width, canvas.height);
  return new Promise((resolve) => canvas.toBlob(resolve, "image/jpeg", 0.9));
}

$("snap").addEventListener("click", async () => {
  if (!state) return;
  const blob = await videoFrame(1920);
  await post(`/api/scan/face?face=${state.scan.next_face || "U"}`, blob, "image/jpeg");
});

// The live view: the next face as the camera sees it, with the grid found and each sticker's
// colour drawn by the server. One frame at a time: the next is asked for when one is shown.
let live = null;  // "server", "browser" or null

async function liveFrame() {
  if (!live) return;
  const headers = { "X-Cubebot-Page": "1" };
  if (token) headers["X-Cubebot-Token"] = token;
  let body = "";
  if (live === "browser") {
    body = await videoFrame(640);
    headers["Content-Type"] = "image/jpeg";
  }
  try {
    const response = await fetch("/api/scan/preview", { method: "POST", headers, body });
    const answer = await response.json();
    if (!response.ok) throw new Error(answer.error);
    $("live-overlay").src = answer.image;
    $("live-overlay").dataset.face = answer.face;
    $("live-why").textContent = answer.grid ? `face ${answer.face}: grid found` : answer.why;
  } catch (err) {
    notice(`live view: ${err.message}`, true);
    stopLive();
    return;
  }
  setTimeout(liveFrame, 250);
}

function stopLive() {
  live = null;
  $("live-view").textContent = "Live view";
  const stream = $("video").srcObject;
  if (stream) for (const track of stream.getTracks()) track.stop();
  $("video").srcObject = null;
  $("snap").hidden = true;
}

$("live-view").addEventListener("click", () => {
  if (live) { stopLive(); return; }
  live = "server";
  $("live").hidden = false;
  $("live-view").textContent = "Stop live view";
  liveFrame();
});

const events = new EventSource("/api/events");
events.addEventListener("state", (e) => {
  const data = JSON.parse(e.data);
  if (data.scan) { render(data); return; }
  // the rig alone changed (a run's progress): the rest stays as it is
  if (!state || !newerRig(data.rig)) return;
  state.rig = data.rig;
  renderRig(state.rig);
  if (following(state)) {
    renderNet(state.scan);
    followRig();
  }
});
events.addEventListener("error", () => notice("connection to the server lost; reconnecting\u2026", true));
events.addEventListener("open", () => notice(""));
plotColours();
