// The net: the six faces as a cross of buttons, one per sticker, as the server lays it out.

/**
 * Draw `stickers` (one {letter, rgb, doubtful, confidence} per facelet) into `element`.
 * `faces` is the state's drawing: the faces' order and where each sits in the net; `colours`
 * maps each letter to a CSS colour. `onTap(index)` is called when a sticker is tapped, unless
 * `editable` is false (then `why` is each sticker's title).
 */
export function drawNet(element, { stickers, size, faces, colours, editable, why, onTap }) {
  const perFace = size * size;
  const blocks = [];
  if (stickers.length) {
    faces.order.split("").forEach((face, f) => {
      const block = document.createElement("div");
      block.className = "face";
      block.style.gridTemplateColumns = `repeat(${size}, auto)`;
      const [row, column] = faces.net[face];
      block.style.gridRow = String(row + 1);
      block.style.gridColumn = String(column + 1);
      for (let k = 0; k < perFace; k++) {
        const index = f * perFace + k;
        block.appendChild(stickerButton(stickers[index], index, `${face}${k + 1}`, colours,
                                        editable, why, faces.blank.letter, onTap));
      }
      blocks.push(block);
    });
  }
  element.replaceChildren(...blocks);
}

function stickerButton(sticker, index, name, colours, editable, why, blank, onTap) {
  const button = document.createElement("button");
  button.className = "sticker" + (sticker.doubtful ? " doubtful" : "");
  button.dataset.sticker = String(index);
  button.dataset.letter = sticker.letter;
  button.textContent = sticker.letter;
  // the sticker's own measured colour, with a bar in the colour of the face it is read as
  button.style.backgroundColor = sticker.rgb ? `rgb(${sticker.rgb.join(",")})` : colours[sticker.letter];
  button.style.boxShadow = `inset 0 -6px 0 ${colours[sticker.letter]}`;
  button.title = !editable ? `${name}: ${why}`
    : sticker.letter === blank ? `${name}: not painted yet`
    : `${name}: read as ${sticker.letter}`
      + (sticker.confidence != null ? ` (confidence ${sticker.confidence})` : "");
  button.disabled = !editable;
  button.addEventListener("click", () => onTap(index));
  return button;
}
