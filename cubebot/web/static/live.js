// The live view: the next face as a camera sees it, with the grid found and each sticker's
// colour drawn by the server. The camera is the server's, or this device's own (a phone's back
// camera; the browser allows it on localhost or https only). One frame at a time: the next is
// asked for when one is shown.
import { request } from "./api.js";

const FRAME_GAP_MS = 250;

export class LiveView {
  /**
   * `elements`: the view's container, video, overlay picture, caption, snap button and the
   * toggle button; `onError(message)` tells the person when a frame fails.
   */
  constructor(elements, onError) {
    this.el = elements;
    this.onError = onError;
    this.source = null;  // "server", "browser" or null (stopped)
  }

  get running() { return this.source !== null; }

  /** Show the server camera's frames. */
  startServer() {
    this.show("server");
  }

  /** Show this device's camera's frames (sent to the server one by one). */
  async startBrowser() {
    if (!navigator.mediaDevices || !navigator.mediaDevices.getUserMedia) {
      throw new Error("this page cannot use the camera here (it needs https or localhost): use 'Upload a photo'");
    }
    const stream = await navigator.mediaDevices.getUserMedia({ video: { facingMode: "environment" }, audio: false });
    this.el.video.srcObject = stream;
    await this.el.video.play();
    this.el.snap.hidden = false;
    this.show("browser");
  }

  show(source) {
    this.source = source;
    this.el.box.hidden = false;
    this.el.toggle.textContent = "Stop live view";
    this.el.toggle.disabled = false;
    this.next();
  }

  stop() {
    this.source = null;
    this.el.toggle.textContent = "Live view";
    const stream = this.el.video.srcObject;
    if (stream) for (const track of stream.getTracks()) track.stop();
    this.el.video.srcObject = null;
    this.el.snap.hidden = true;
  }

  /** A JPEG of the video's current frame, at most `width` pixels wide. */
  still(width) {
    const video = this.el.video;
    const scale = Math.min(1, width / video.videoWidth);
    const canvas = document.createElement("canvas");
    canvas.width = Math.round(video.videoWidth * scale);
    canvas.height = Math.round(video.videoHeight * scale);
    canvas.getContext("2d").drawImage(video, 0, 0, canvas.width, canvas.height);
    return new Promise((resolve) => canvas.toBlob(resolve, "image/jpeg", 0.9));
  }

  async next() {
    if (!this.running) return;
    try {
      const options = this.source === "browser"
        ? { body: await this.still(640), contentType: "image/jpeg" } : { body: "", contentType: null };
      const answer = await request("/api/scan/preview", options);
      this.el.overlay.src = answer.image;
      this.el.overlay.dataset.face = answer.face;
      this.el.why.textContent = answer.grid ? `face ${answer.face}: grid found` : answer.why;
    } catch (err) {
      this.onError(`live view: ${err.message}`);
      this.stop();
      return;
    }
    setTimeout(() => this.next(), FRAME_GAP_MS);
  }
}
