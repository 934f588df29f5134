// Synthetic benchmark images, made in the process (no binaries in the repo): a screenshot-like
// picture (panels, lines of "text" glyphs, a photo area with gradients and grain) as raw RGB.
// Deterministic: the same pixels on every run.

/** Raw RGB pixels, `width × height × 3` bytes. */
export function screenshotPixels(width, height, seed = 1) {
  const px = Buffer.alloc(width * height * 3)
  let s = seed >>> 0
  const rand = () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0
    return s / 2 ** 32
  }
  const fill = (x0, y0, w, h, r, g, b) => {
    const x1 = Math.min(width, x0 + w)
    const y1 = Math.min(height, y0 + h)
    for (let y = Math.max(0, y0); y < y1; y++) {
      let o = (y * width + Math.max(0, x0)) * 3
      for (let x = Math.max(0, x0); x < x1; x++, o += 3) {
        px[o] = r
        px[o + 1] = g
        px[o + 2] = b
      }
    }
  }
  // Desktop background and a title bar.
  fill(0, 0, width, height, 236, 238, 242)
  fill(0, 0, width, Math.round(height * 0.03), 40, 44, 52)
  // Left: a text page. Lines of glyph-like strokes of random widths.
  const textRight = Math.round(width * 0.55)
  const lineH = Math.max(8, Math.round(height / 110))
  for (let y = Math.round(height * 0.05); y + lineH < height * 0.97; y += lineH * 1.6) {
    let x = Math.round(width * 0.03)
    const end = textRight - Math.round(rand() * width * 0.12)
    while (x < end) {
      const word = 2 + Math.floor(rand() * 9)
      for (let k = 0; k < word && x < end; k++) {
        const gw = Math.max(2, Math.round(lineH * (0.35 + rand() * 0.3)))
        const gh = Math.round(lineH * (0.55 + rand() * 0.45))
        const ink = 20 + Math.floor(rand() * 50)
        fill(x, Math.round(y) + lineH - gh, Math.max(1, gw - 2), gh, ink, ink, ink + 10)
        x += gw
      }
      x += Math.round(lineH * 0.6)
    }
  }
  // Right: a photo with smooth gradients, a few discs and sensor grain.
  const px0 = Math.round(width * 0.6)
  const py0 = Math.round(height * 0.08)
  const pw = Math.round(width * 0.3)
  const ph = Math.round(height * 0.45)
  for (let y = 0; y < ph; y++) {
    let o = ((py0 + y) * width + px0) * 3
    for (let x = 0; x < pw; x++, o += 3) {
      const g = (rand() - 0.5) * 5
      const sky = y < ph * 0.55
      const r = sky ? 90 + (x * 60) / pw : 70 + (y * 80) / ph
      const gg = sky ? 140 + (y * 60) / ph : 110 + (x * 40) / pw
      const b = sky ? 210 - (y * 40) / ph : 60 + ((x + y) % 97)
      px[o] = Math.max(0, Math.min(255, r + g))
      px[o + 1] = Math.max(0, Math.min(255, gg + g))
      px[o + 2] = Math.max(0, Math.min(255, b + g))
    }
  }
  for (let d = 0; d < 12; d++) {
    const cx = px0 + rand() * pw
    const cy = py0 + rand() * ph
    const rad = (0.02 + rand() * 0.06) * pw
    const [r, g, b] = [rand() * 255, rand() * 255, rand() * 255]
    for (let y = Math.max(py0, Math.floor(cy - rad)); y < Math.min(py0 + ph, cy + rad); y++) {
      for (let x = Math.max(px0, Math.floor(cx - rad)); x < Math.min(px0 + pw, cx + rad); x++) {
        if ((x - cx) ** 2 + (y - cy) ** 2 <= rad * rad) {
          const o = (y * width + x) * 3
          px[o] = r
          px[o + 1] = g
          px[o + 2] = b
        }
      }
    }
  }
  // Below the photo: a table of coloured cells.
  const ty0 = py0 + ph + Math.round(height * 0.03)
  for (let row = 0; ty0 + (row + 1) * lineH * 2 < height * 0.97; row++) {
    for (let col = 0; col < 6; col++) {
      const c = 150 + Math.floor(rand() * 100)
      fill(px0 + Math.round((col * pw) / 6), ty0 + row * lineH * 2, Math.round(pw / 6) - 3, lineH * 2 - 3, c, 255 - c / 2, 200)
    }
  }
  return px
}
