// The dashboard page: shows the state the server owns (pushed as server-sent events) and sends
// the person's actions as POST requests. No polling: the server pushes every change. The page
// keeps no cube of its own: faces, colours, net layout, scan, solution and rig all come with
// the state.
import { request } from "./api.js";
import { drawCamera, framePoint } from "./camera.js";
import { Cube3D, Player } from "./cube3d.js";
import { drawLabPlot } from "./labplot.js";
import { LiveView } from "./live.js";
import { drawNet } from "./net.js";

const $ = (id) => document.getElementById(id);

/**
 * Enable the button `id` when `why` is empty or `allowed` is true; a disabled button always
 * says why in its title (and an enabled one what it does, when `why` tells).
 */
function setButton(id, allowed, why = "") {
  const button = $(id);
  button.disabled = !allowed;
  button.title = why;
  button.dataset.why = allowed ? "" : why;
}

/** Whether the rig is running (or ran) the solution shown: then the page follows its moves. */
function following(state) {
  const solution = state.scan.solution, rig = state.rig;
  return Boolean(solution && rig.cube && rig.moves.join(" ") === solution.moves.join(" "));
}

/** Each letter's colour: the measured centre of its face when scanned, else the scheme's. */
function letterColours(state) {
  const scan = state.scan;
  const out = { ...state.faces.colours, [state.faces.blank.letter]: state.faces.blank.colour };
  if (!scan.stickers.length) return out;
  const n = scan.per_face;
  state.faces.order.split("").forEach((face, f) => {
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

class Dashboard {
  constructor() {
    this.state = null;         // the server's, as last pushed or answered
    this.colours = {};         // letter -> CSS colour, from the state
    this.shownSolution = null; // what the move list and the 3D player were last loaded with
    this.player = null;        // made with the first state (it needs the cube's size)
    this.paint = null;         // the letter a tap paints (the palette's choice), or null: cycle
    this.live = new LiveView({
      box: $("live"), video: $("video"), overlay: $("live-overlay"), why: $("live-why"),
      snap: $("snap"), toggle: $("live-view"),
    }, (message) => this.notice(message, true));
  }

  /** Send an action; show its answer (a state), or its error in the notice line. */
  async act(path, options) {
    let answer;
    try {
      answer = await request(path, options);
    } catch (err) {
      this.notice(err.message, true);
      return null;
    }
    this.notice("");
    if (answer.scan) this.render(answer);
    return answer;
  }

  notice(text, bad = false) {
    $("notice").textContent = text;
    $("notice").classList.toggle("bad", bad);
  }

  newerRig(rig) {
    // events and action answers may arrive out of order: never show an older rig state
    return !this.state || !this.state.rig || rig.version >= this.state.rig.version;
  }

  render(next) {
    if (this.state && !this.newerRig(next.rig)) next.rig = this.state.rig;
    this.state = next;
    this.colours = letterColours(next);
    if (!this.player) this.player = this.makePlayer(next.scan.size, next.faces.order);
    this.renderScan();
    this.renderNet();
    this.renderSolution();
    this.renderRig();
    this.renderCamera();
    this.followRig();
    document.body.dataset.ready = "true";  // the server's state is shown
  }

  /** Take a pushed change of the rig alone (a run's progress): the rest stays as it is. */
  renderRigChange(rig) {
    if (!this.state || !this.newerRig(rig)) return;
    this.state.rig = rig;
    this.renderRig();
    if (following(this.state)) {
      this.renderNet();
      this.followRig();
    }
  }

  renderScan() {
    const scan = this.state.scan;
    $("next-face").textContent = scan.next_face || "all six scanned";
    $("snap-face").textContent = scan.next_face || "-";
    const noCamera = "this server has no camera: upload a photo, or use this device's camera";
    // with every face in (or a net entered by hand), scanning starts the next cube
    const fresh = Boolean(scan.next_face) && !(scan.facelets && !scan.scanned_faces.length);
    $("scan").textContent = fresh ? "Scan all faces" : "Scan the next cube";
    setButton("scan", scan.has_camera, noCamera);
    setButton("capture", scan.has_camera && Boolean(scan.next_face), !scan.has_camera ? noCamera
      : "all six faces are scanned: retake one, or scan the next cube");
    setButton("live-view", scan.has_camera || this.live.running, noCamera);
    $("scan-error").textContent = scan.scan_error;
    const figures = [];
    for (const face of this.state.faces.order) {
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
      retake.addEventListener("click", () => this.act("/api/scan/retake", { body: { face } }));
      cap.append(`face ${face}`, retake);
      fig.append(img, cap);
      figures.push(fig);
    }
    for (const photo of scan.corner_photos) {
      const fig = document.createElement("figure");
      const img = document.createElement("img");
      img.src = scan.overlays[photo.name];
      img.alt = `${photo.name}: faces ${photo.faces} found`;
      img.dataset.test = "corner-photo";
      const cap = document.createElement("figcaption");
      cap.append(`${photo.name}: ${photo.faces.split("").join(" ")}`);
      fig.append(img, cap);
      figures.push(fig);
    }
    $("overlays").replaceChildren(...figures);
  }

  renderNet() {
    const state = this.state, scan = state.scan;
    const rigCube = following(state);
    const stickers = rigCube
      ? state.rig.cube.split("").map((letter) => ({ letter, rgb: null, doubtful: false, confidence: null }))
      : scan.stickers;
    drawNet($("net"), {
      stickers, size: scan.size, faces: state.faces, colours: this.colours,
      editable: !rigCube,  // the rig's cube is what the rig holds, not an edit
      why: "the net shows the rig's cube while it runs the solution: it is not edited",
      onTap: (index) => this.editSticker(index),
    });
    this.renderPalette();
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
    } else if (scan.facelets.includes(state.faces.blank.letter)) {
      validity.textContent = scan.invalid;  // stickers still to paint
      validity.className = "bad";
    } else if (scan.invalid) {
      validity.textContent = `Not a real cube: ${scan.invalid}`;
      validity.className = "bad";
    } else {
      validity.textContent = "A real cube: ready to solve.";
      validity.className = "good";
    }
    setButton("solve", Boolean(scan.facelets) && !scan.invalid, !scan.facelets
      ? "scan the cube, or paint or enter the net, first" : `the net is not a real cube: ${scan.invalid}`);
  }

  /** The palette: a tap paints the colour picked, or (none picked) turns to the next one. */
  renderPalette() {
    const faces = this.state.faces;
    const choices = [null, ...faces.order.split(""), faces.blank.letter].map((letter) => {
      const button = document.createElement("button");
      button.setAttribute("role", "radio");
      button.setAttribute("aria-checked", String(letter === this.paint));
      button.dataset.paint = letter ?? "";
      if (letter === null) {
        button.textContent = "tap: next colour";
        button.title = "a tap turns a sticker to the next colour";
      } else {
        const blank = letter === faces.blank.letter;
        button.textContent = blank ? "erase" : letter;
        button.style.backgroundColor = this.colours[letter];
        button.title = blank ? "a tap makes a sticker blank"
          : `a tap paints a sticker ${faces.names[letter]} (face ${letter})`;
      }
      button.addEventListener("click", () => { this.paint = letter; this.renderPalette(); });
      return button;
    });
    $("palette").replaceChildren(...choices);
  }

  editSticker(index) {
    const order = this.state.faces.order;
    const facelets = this.state.scan.facelets.split("");
    facelets[index] = this.paint ?? order[(order.indexOf(facelets[index]) + 1) % order.length];
    this.act("/api/net", { body: { facelets: facelets.join("") } });
  }

  renderSolution() {
    const scan = this.state.scan, solution = scan.solution;
    const key = solution ? `solution ${solution.text}` : `cube ${scan.facelets}`;
    if (key === this.shownSolution) { this.player.recolour(this.colours); return; }
    this.shownSolution = key;
    const items = (solution ? solution.moves : []).map((move, i) => {
      const li = document.createElement("li");
      li.textContent = move;
      li.dataset.index = String(i);
      return li;
    });
    $("moves").replaceChildren(...items);
    $("solve-summary").textContent = solution
      ? `${solution.htm} moves (HTM), about ${solution.rig_seconds} s on the rig` : "";
    const solved = this.state.faces.order.split("").map((f) => f.repeat(scan.per_face)).join("");
    this.player.load(solution ? solution.states : [scan.facelets || solved], this.colours);
  }

  /** Show the rig's progress on the 3D cube: the state after the moves the rig has made. */
  followRig() {
    if (!following(this.state)) return;
    this.player.pause();
    this.player.go(this.state.rig.moves_done);
  }

  renderRig() {
    const rig = this.state.rig;
    const badge = $("rig-state");
    badge.textContent = rig.state;
    badge.className = `badge ${rig.state}`;
    badge.dataset.state = rig.state;
    if (!$("rig-url").value) $("rig-url").value = rig.url || this.state.rig_port || "";
    $("handshake").textContent = Object.keys(rig.handshake).length
      ? [`state: ${rig.state}, moves done: ${rig.moves_done} of ${rig.moves_total}`,
         ...Object.entries(rig.handshake).map(([k, v]) => `${k}: ${v}`)].join("\n")
      : "not connected";
    const progress = $("progress");
    progress.value = rig.percent;
    progress.setAttribute("aria-valuenow", String(rig.percent));
    // an action rig (a flipper, grippers) makes the moves by actions: both are counted
    const actions = rig.actions_total
      ? ` (${rig.actions_done} of ${rig.actions_total} actions)` : "";
    $("progress-label").textContent = rig.moves_total
      ? `${rig.moves_done} of ${rig.moves_total} moves done by the rig${actions}` : "";
    $("rig-message").textContent = rig.message;
    const connected = rig.state !== "disconnected";
    const moving = rig.state === "moving" || rig.state === "stopping";
    setButton("connect", !moving, "the rig is moving: stop it first");
    setButton("stop", moving, connected ? "the rig is not moving" : "connect a rig first");
    setButton("estop", connected, "connect a rig first");
    // what may be done next is the server's decision (the rig's next step): shown, not remade
    const next = rig.next;
    const none = rig.state === "fault"
      ? "the connection to the rig was lost: connect again" : "connect a rig first";
    for (const [id, action] of [["run", "start"], ["resume", "resume"], ["clear", "clear"]]) {
      setButton(id, Boolean(next && next[action].allowed), next ? next[action].why : none);
    }
    const solution = this.state.scan.solution;
    if (next && solution && !solution.moves.length && !next.start.allowed) {
      $("run").title = $("run").dataset.why = "the cube is solved: nothing to run";
    }
    $("clear").textContent = next && next.clear.allowed && next.made
      ? `Clear (${next.made} of ${next.total} ${next.unit} made)` : "Clear";
    $("rig-next").textContent = next
      ? [next.summary, ...["start", "resume", "clear"].filter((a) => !next[a].allowed)
          .map((a) => `${a}: ${next[a].why}`)].join(" \u00b7 ")
      : none;
  }

  renderCamera() {
    const camera = this.state.camera;
    drawCamera({ view: $("camera-view"), image: $("camera-image"), marks: $("camera-marks") }, camera);
    $("camera-message").textContent = camera.message;
    const none = "send a frame of the rig's camera first";
    setButton("camera-undo", camera.clicks.length > 0, camera.image ? "no corner to take back" : none);
    setButton("camera-save", camera.complete, camera.image
      ? `${camera.clicks.length} of the twelve corners are in: ${camera.next}` : none);
  }

  makePlayer(size, order) {
    const player = new Player(new Cube3D($("cube3d"), size, order), {
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
    return player;
  }

  async plotColours() {
    let answer;
    try {
      answer = await request("/api/calibrate/lab", { method: "GET" });
    } catch (err) {
      this.notice(`plot: ${err.message}`, true);
      return;
    }
    drawLabPlot($("lab-plot"), answer.points);
    $("lab-plot").dataset.points = String(answer.points.length);
  }

  /** Scan the next face from a picture (an uploaded photo or a still of the live video). */
  sendPicture(blob, type) {
    if (!this.state) return null;
    const face = this.state.scan.next_face || "U";
    return this.act(`/api/scan/face?face=${face}`, { body: blob, contentType: type });
  }

  wire() {
    const click = (id, handler) => $(id).addEventListener("click", handler);
    click("scan", () => this.act("/api/scan"));
    click("capture", () => this.act("/api/scan/face"));
    click("reset-scan", () => this.act("/api/scan/reset"));
    click("solve", () => { this.notice("solving\u2026"); this.act("/api/solve"); });
    click("connect", () => this.act("/api/rig/connect", { body: { url: $("rig-url").value } }));
    click("run", () => this.act("/api/rig/run"));
    click("stop", () => this.act("/api/rig/stop"));
    click("estop", () => this.act("/api/rig/estop"));
    click("resume", () => this.act("/api/rig/resume"));
    click("clear", () => this.act("/api/rig/clear"));
    click("blank-net", () => { this.paint = this.state.faces.order[0]; this.act("/api/net/blank"); });
    const enter = () => this.act("/api/net/enter", { body: { text: $("net-text").value } });
    click("enter-net", enter);
    $("net-text").addEventListener("keydown", (e) => { if (e.key === "Enter") enter(); });
    click("save-profile", async () => {
      const answer = await this.act("/api/calibrate/profile");
      if (answer) this.notice(`colour profile saved to ${answer.saved}`);
    });
    click("plot", () => this.plotColours());
    $("camera-frame").addEventListener("change", async (e) => {
      const file = e.target.files[0];
      e.target.value = "";
      if (!file) return;
      const faces = encodeURIComponent($("camera-faces").value);
      await this.act(`/api/camera/frame?faces=${faces}`, { body: file, contentType: file.type || "image/png" });
    });
    $("camera-marks").addEventListener("click", (e) => {
      if (!this.state || this.state.camera.complete) return;
      this.act("/api/camera/click", { body: framePoint($("camera-marks"), this.state.camera, e) });
    });
    click("camera-undo", () => this.act("/api/camera/undo"));
    click("camera-save", async () => {
      const answer = await this.act("/api/camera/save", { body: { name: $("camera-name").value } });
      if (answer) this.notice(`camera saved in ${answer.saved}`);
    });
    $("upload").addEventListener("change", async (e) => {
      const file = e.target.files[0];
      e.target.value = "";
      if (file) await this.sendPicture(file, file.type || "image/jpeg");
    });
    $("corner-upload").addEventListener("change", async (e) => {
      const files = Array.from(e.target.files);
      e.target.value = "";
      for (const file of files) {
        const answer = await this.act("/api/scan/corner", { body: file, contentType: file.type || "image/jpeg" });
        if (answer) this.notice(`corner photo: faces ${answer.corner_faces.split("").join(" ")} found`);
      }
    });
    click("phone-camera", async () => {
      try {
        await this.live.startBrowser();
      } catch (err) {
        this.notice(`camera: ${err.message}`, true);
      }
    });
    click("snap", async () => this.sendPicture(await this.live.still(1920), "image/jpeg"));
    click("live-view", () => (this.live.running ? this.live.stop() : this.live.startServer()));

    const events = new EventSource("/api/events");
    events.addEventListener("state", (e) => {
      const data = JSON.parse(e.data);
      if (data.scan) this.render(data);
      else this.renderRigChange(data.rig);
    });
    events.addEventListener("error", () => this.notice("connection to the server lost; reconnecting\u2026", true));
    events.addEventListener("open", () => this.notice(""));
    this.plotColours();
  }
}

new Dashboard().wire();
