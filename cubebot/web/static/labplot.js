// A scatter of the scanned stickers' colours on the CIE Lab a*/b* plane, drawn on a canvas.
// Each dot is the sticker's own measured colour, labelled with the face it was read as:
// red and orange are told apart when their two clouds stand clear of each other.

export function drawLabPlot(canvas, points) {
  const ctx = canvas.getContext("2d");
  const w = canvas.width, h = canvas.height, pad = 28;
  ctx.clearRect(0, 0, w, h);
  ctx.fillStyle = "#fff";
  ctx.fillRect(0, 0, w, h);
  const range = 100;  // a* and b* from -100 to 100 cover a cube's colours
  const x = (a) => pad + ((a + range) / (2 * range)) * (w - 2 * pad);
  const y = (b) => h - pad - ((b + range) / (2 * range)) * (h - 2 * pad);
  ctx.strokeStyle = "#ccc";
  ctx.beginPath();
  ctx.moveTo(x(-range), y(0)); ctx.lineTo(x(range), y(0));
  ctx.moveTo(x(0), y(-range)); ctx.lineTo(x(0), y(range));
  ctx.stroke();
  ctx.fillStyle = "#555";
  ctx.font = "12px sans-serif";
  ctx.fillText("a* (green \u2192 red)", w - pad - 110, y(0) - 6);
  ctx.fillText("b* (blue \u2192 yellow)", x(0) + 6, pad - 10);
  if (!points.length) {
    ctx.fillText("scan the cube to see its colours", pad + 40, h / 2 + 30);
    return;
  }
  for (const p of points) {
    ctx.beginPath();
    ctx.arc(x(p.a), y(p.b), 6, 0, 2 * Math.PI);
    ctx.fillStyle = `rgb(${p.rgb.join(",")})`;
    ctx.fill();
    ctx.lineWidth = 1;
    ctx.strokeStyle = "#000";
    ctx.stroke();
    ctx.fillStyle = "#000";
    ctx.fillText(p.letter, x(p.a) + 8, y(p.b) + 4);
  }
}
