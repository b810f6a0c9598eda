// heatmap.js: one attention map drawn on a <canvas>. A square per (query, key) pair coloured by
// its weight (0 white .. 1 dark blue), the query tokens down the left, the key tokens along the
// top; hovering shows the pair and its weight in `tooltip`.
'use strict';

const heatmapStops = [[0, [255, 255, 255]], [0.25, [198, 219, 239]], [0.5, [107, 174, 214]],
                      [0.75, [33, 113, 181]], [1, [8, 48, 107]]];

function heatmapColour(weight) {
  const w = Math.min(1, Math.max(0, weight));
  let i = 1;
  while (i < heatmapStops.length - 1 && heatmapStops[i][0] < w) i++;
  const [w0, c0] = heatmapStops[i - 1], [w1, c1] = heatmapStops[i];
  const t = (w - w0) / (w1 - w0);
  return `rgb(${c0.map((c, k) => Math.round(c + t * (c1[k] - c)))})`;
}

// A token as a label: spaces and line breaks made visible.
function tokenLabel(token) {
  return token.replace(/ /g, '\u2423').replace(/\n/g, '\u21b5').replace(/\t/g, '\u21e5');
}

// weights: T*T numbers, row-major (query, key).
function drawHeatmap(canvas, tokens, weights, tooltip) {
  const T = tokens.length;
  const cell = Math.max(5, Math.min(24, Math.floor(240 / T)));
  const fontSize = Math.max(8, Math.min(12, cell - 2));
  const every = Math.ceil((fontSize + 2) / cell);  // label every n-th token when the squares are small
  const labels = tokens.map(tokenLabel);
  const ctx = canvas.getContext('2d');
  ctx.font = `${fontSize}px system-ui, sans-serif`;
  const margin = 6 + Math.ceil(Math.max(...labels.map((l) => ctx.measureText(l).width)));
  const size = margin + T * cell;
  const ratio = window.devicePixelRatio || 1;
  canvas.width = size * ratio, canvas.height = size * ratio;
  canvas.style.width = `${size}px`, canvas.style.height = `${size}px`;
  ctx.scale(ratio, ratio);
  ctx.font = `${fontSize}px system-ui, sans-serif`;
  for (let q = 0; q < T; q++)
    for (let k = 0; k < T; k++) {
      ctx.fillStyle = heatmapColour(weights[q * T + k]);
      ctx.fillRect(margin + k * cell, margin + q * cell, cell, cell);
    }
  ctx.strokeStyle = '#d1d9e0';
  ctx.strokeRect(margin + 0.5, margin + 0.5, T * cell - 1, T * cell - 1);
  ctx.fillStyle = '#1f2328';
  ctx.textBaseline = 'middle';
  ctx.textAlign = 'right';
  for (let q = 0; q < T; q += every) ctx.fillText(labels[q], margin - 4, margin + (q + 0.5) * cell);
  ctx.save();
  ctx.rotate(-Math.PI / 2);  // key labels read bottom to top above their columns
  ctx.textAlign = 'left';
  for (let k = 0; k < T; k += every) ctx.fillText(labels[k], -(margin - 4), margin + (k + 0.5) * cell);
  ctx.restore();

  canvas.addEventListener('mousemove', (event) => {
    const box = canvas.getBoundingClientRect();
    const k = Math.floor((event.clientX - box.left - margin) / cell);
    const q = Math.floor((event.clientY - box.top - margin) / cell);
    if (q < 0 || k < 0 || q >= T || k >= T) {
      tooltip.hidden = true;
      return;
    }
    tooltip.textContent = `query ${q} ${labels[q]}  \u2192  key ${k} ${labels[k]}\nweight ${weights[q * T + k].toFixed(4)}`;
    tooltip.style.left = `${event.clientX + 14}px`;
    tooltip.style.top = `${event.clientY + 14}px`;
    tooltip.hidden = false;
  });
  canvas.addEventListener('mouseleave', () => { tooltip.hidden = true; });
}

// The colour scale, 0 to 1, as a strip.
function drawHeatmapScale(canvas) {
  const ctx = canvas.getContext('2d');
  for (let x = 0; x < canvas.width; x++) {
    ctx.fillStyle = heatmapColour(x / (canvas.width - 1));
    ctx.fillRect(x, 0, 1, canvas.height);
  }
}
