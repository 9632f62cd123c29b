// Setting up a rig camera: the frame with the corners found or clicked and the sample points
// they give, all as the server holds them. A click on the frame sends its pixel position.

const SVG = "http://www.w3.org/2000/svg";

function mark(tag, attributes) {
  const element = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attributes)) element.setAttribute(key, String(value));
  return element;
}

/**
 * Draw the camera's frame (`camera`: the state's part) into `view` (its img and svg): the
 * corners in, each face's outline once its four are in, and its stickers' sample points.
 */
export function drawCamera({ view, image, marks }, camera) {
  view.hidden = !camera.image;
  if (!camera.image) return;
  if (image.src !== camera.image) image.src = camera.image;
  marks.setAttribute("viewBox", `0 0 ${camera.width} ${camera.height}`);
  const r = Math.max(camera.width, camera.height) / 160;
  const shapes = [];
  const faces = camera.faces.split("");
  for (let f = 0; 4 * f + 4 <= camera.clicks.length; f++) {
    const corners = camera.clicks.slice(4 * f, 4 * f + 4);
    shapes.push(mark("polygon", { class: "face", "stroke-width": r / 2,
      points: corners.map((p) => p.join(",")).join(" ") }));
  }
  for (const [face, points] of Object.entries(camera.points)) {
    for (const [x, y] of points) {
      const dot = mark("circle", { class: "sample", cx: x, cy: y, r: r * 0.8, "stroke-width": r / 4 });
      dot.dataset.test = "sample-point";
      dot.dataset.face = face;
      shapes.push(dot);
    }
  }
  camera.clicks.forEach(([x, y], i) => {
    const corner = mark("circle", { class: "corner", cx: x, cy: y, r, "stroke-width": r / 3 });
    corner.dataset.test = "corner";
    const label = mark("text", { x: x + r * 1.3, y: y - r * 1.3, "font-size": r * 3, fill: "#ff0" });
    label.textContent = `${faces[Math.floor(i / 4)]}${(i % 4) + 1}`;
    shapes.push(corner, label);
  });
  marks.replaceChildren(...shapes);
}

/** Return the frame's pixel position of a click on `marks` (the svg over the frame). */
export function framePoint(marks, camera, event) {
  const box = marks.getBoundingClientRect();
  return {
    x: ((event.clientX - box.left) * camera.width) / box.width,
    y: ((event.clientY - box.top) * camera.height) / box.height,
  };
}
