// A cube drawn with CSS 3D transforms: six faces of n x n stickers, turned by dragging.
// The faces follow the facelet string's convention (each face read row by row as seen from
// outside, U's top row against B, D's top row against F), in the order the server gives, so a
// state string draws as is.

// Where each face sits in 3D: rotate the front face into place, then push it out.
const PLACE = {
  U: "rotateX(90deg)", D: "rotateX(-90deg)", F: "", B: "rotateY(180deg)",
  R: "rotateY(90deg)", L: "rotateY(-90deg)",
};

export class Cube3D {
  /** Build a cube of `size` inside `scene` (an element), its faces in `order` (the state's). */
  constructor(scene, size, order) {
    this.size = size;
    this.view = { x: -28, y: -38 };
    this.cube = document.createElement("div");
    this.cube.className = "cube";
    this.stickers = [];
    const half = 60;
    for (const face of order) {
      const side = document.createElement("div");
      side.className = "side";
      side.dataset.face = face;
      side.style.gridTemplateColumns = `repeat(${size}, 1fr)`;
      side.style.transform = `${PLACE[face]} translateZ(${half}px)`;
      for (let i = 0; i < size * size; i++) {
        const s = document.createElement("div");
        side.appendChild(s);
        this.stickers.push(s);
      }
      this.cube.appendChild(side);
    }
    scene.replaceChildren(this.cube);
    this.turnView();
    this.dragging(scene);
  }

  /** Colour the stickers from a facelet string, with `colours` mapping letters to CSS colours. */
  show(facelets, colours) {
    if (!facelets || facelets.length !== this.stickers.length) return;
    for (let i = 0; i < facelets.length; i++) {
      this.stickers[i].style.backgroundColor = colours[facelets[i]] || "#888";
    }
  }

  /** Mark the face that the last move turned (its letter), or none. */
  markTurned(face) {
    for (const side of this.cube.children) side.classList.toggle("turned", side.dataset.face === face);
  }

  turnView() {
    this.cube.style.transform = `rotateX(${this.view.x}deg) rotateY(${this.view.y}deg)`;
  }

  dragging(scene) {
    let last = null;
    scene.addEventListener("pointerdown", (e) => { last = [e.clientX, e.clientY]; scene.setPointerCapture(e.pointerId); });
    scene.addEventListener("pointerup", () => { last = null; });
    scene.addEventListener("pointermove", (e) => {
      if (!last) return;
      this.view.y += (e.clientX - last[0]) * 0.6;
      this.view.x = Math.max(-89, Math.min(89, this.view.x - (e.clientY - last[1]) * 0.6));
      last = [e.clientX, e.clientY];
      this.turnView();
    });
  }
}

/** Plays a list of states (the cube before the first move, then after each): play, pause, step, scrub. */
export class Player {
  constructor(cube3d, controls, onChange) {
    this.cube3d = cube3d;
    this.c = controls;
    this.onChange = onChange;
    this.states = [];
    this.index = 0;
    this.timer = null;
    this.colours = {};
    controls.play.addEventListener("click", () => (this.timer ? this.pause() : this.play()));
    controls.step.addEventListener("click", () => { this.pause(); this.go(this.index + 1); });
    controls.back.addEventListener("click", () => { this.pause(); this.go(this.index - 1); });
    controls.scrub.addEventListener("input", () => { this.pause(); this.go(Number(controls.scrub.value)); });
  }

  load(states, colours) {
    this.pause();
    this.states = states;
    this.colours = colours;
    this.c.scrub.max = String(Math.max(0, states.length - 1));
    this.go(0);
  }

  recolour(colours) { this.colours = colours; this.go(this.index); }

  go(index) {
    if (!this.states.length) return;
    this.index = Math.max(0, Math.min(this.states.length - 1, index));
    this.cube3d.show(this.states[this.index], this.colours);
    this.c.scrub.value = String(this.index);
    this.c.label.textContent = `${this.index} / ${this.states.length - 1}`;
    this.onChange(this.index);
  }

  play() {
    if (this.states.length < 2) return;
    if (this.index >= this.states.length - 1) this.go(0);
    this.c.play.textContent = "Pause";
    this.timer = setInterval(() => {
      if (this.index >= this.states.length - 1) { this.pause(); return; }
      this.go(this.index + 1);
    }, 600);
  }

  pause() {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.c.play.textContent = "Play";
  }
}
