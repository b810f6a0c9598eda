// tapegrad explore: the page's script (inlined into every page written). It reads the recording
// (explore/recording.h) from the <script id="recording"> element and shows it: the tape as a
// list and as Graphviz's graph, one entry's tensors as heatmaps, backward step by step, and the
// attention weights.
'use strict';

const rec = JSON.parse(document.getElementById('recording').textContent);
const entries = new Map(rec.entries.map(e => [e.position, e]));
const producerOf = new Map();  // tensor id -> position of the entry that made it
const usesOf = new Map();      // tensor id -> positions of the entries that read it
for (const e of rec.entries) {
  e.outputs.forEach(id => producerOf.set(id, e.position));
  e.inputs.forEach(i => { if (i.tensor !== null) usesOf.set(i.tensor, [...(usesOf.get(i.tensor) || []), e.position]); });
}
const stepOf = new Map(rec.backward.map((s, k) => [s.position, k]));  // position -> backward step index

// steps: how many backward entries have run; sharedScale: the detail pane colours all its tensors
// on one scale, detailScale (else each on its own).
const state = { selected: null, steps: 0, sharedScale: false, detailScale: null };

// ---- values ------------------------------------------------------------------------------
const num = v => (typeof v === 'string' ? Number(v) : v);
function show(v) {
  if (v === null || v === undefined) return '–';
  const x = num(v);
  if (Number.isNaN(x)) return 'NaN';
  if (!Number.isFinite(x)) return x > 0 ? 'inf' : '-inf';
  return String(x);
}
// The gradient of the loss L with respect to tensor `name`, as the terminal writes it too
// (apps/backward_printout.h): "dL/dx", "dL/d(#10 mul)".
const gradientLabel = name => (name.includes(' ') ? `dL/d(${name})` : `dL/d${name}`);
const shapeText = shape => '(' + shape.join(',') + (shape.length === 1 ? ',' : '') + ')';
// A tensor's own name; else that of the entry that made it ("#5 matmul"); else its id.
function tensorName(id) {
  if (rec.tensors[id] && rec.tensors[id].name) return rec.tensors[id].name;
  return producerOf.has(id) ? `#${producerOf.get(id)} ${entries.get(producerOf.get(id)).op}` : 'tensor ' + id;
}

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'class') node.className = v; else if (k === 'text') node.textContent = v; else node.setAttribute(k, v);
  }
  children.forEach(c => node.append(c));
  return node;
}

// ---- heatmaps ------------------------------------------------------------------------------
const tooltip = document.getElementById('tooltip');

// "min -0.66 · max 1.3 · mean 0.21", and when some values are not finite, how many the statistics
// leave out: "min -0.66 · max 1.3 · mean 0.21 over 9 finite · 7 × -inf".
function statsText(summary) {
  const others = [[summary.neg_inf, '-inf'], [summary.pos_inf, 'inf'], [summary.nan, 'NaN']]
      .filter(([n]) => n > 0).map(([n, what]) => `${n} × ${what}`).join(' · ');
  const stats = `min ${show(summary.min)} · max ${show(summary.max)} · mean ${show(summary.mean)}`;
  return others ? `${stats} over ${summary.finite} finite · ${others}` : stats;
}

// A value printed in a cell: 3 significant digits, an exponent outside [0.001, 10000).
function short(v) {
  const x = num(v);
  if (!Number.isFinite(x) || x === 0) return show(v);
  const a = Math.abs(x);
  return a >= 1e-3 && a < 1e4 ? String(Number(x.toPrecision(3))) : x.toExponential(2).replace('e+', 'e');
}

// The largest finite magnitude of the summaries (1 when all are zero): the colour scale's end.
function magnitude(summaries) {
  const ends = summaries.flatMap(s => [s.min, s.max]).map(v => Math.abs(num(v) || 0));
  return Math.max(0, ...ends) || 1;
}

// "−2.5 [blue..white..red] 2.5": what colour() gives from -scale to scale.
function colourBar(scale) {
  const bar = el('canvas', { width: 100, height: 8 });
  const ctx = bar.getContext('2d');
  for (let x = 0; x < 100; x++) { ctx.fillStyle = colour((x / 99 * 2 - 1) * scale, scale); ctx.fillRect(x, 0, 1, 8); }
  const box = el('span', { class: 'colour-bar' }, el('span', { text: short(-scale) }), bar, el('span', { text: short(scale) }));
  box.dataset.min = -scale;
  box.dataset.max = scale;
  return box;
}

// A slice (the last two dimensions) of at most kPrinted x kPrinted values is small enough to
// print its values in the cells.
const kPrinted = 8;
function printable(summary) {
  const sliceRows = summary.shape.length >= 2 ? summary.shape[summary.shape.length - 2] : 1;
  return summary.exact && summary.cols <= kPrinted && sliceRows <= kPrinted ? sliceRows : 0;
}

// A figure with `summary`'s values as coloured cells, printed in them when printable(), with
// grid lines between the cells and heavier ones between 2-D slices; hovering a cell shows its
// value. options: {title, role, tensor, rowLabels, colLabels, extraClass, scale (the colour
// scale's end; default: the tensor's largest magnitude), width (the most the cells may take,
// 440 px by default), colourOf (value -> CSS colour; default: colour() with that scale, shown
// on a colour bar)}
function heatmap(summary, options) {
  const fig = el('figure', { class: 'heatmap ' + (options.extraClass || '') });
  fig.dataset.tensor = options.tensor === undefined ? '' : options.tensor;
  fig.dataset.role = options.role || '';
  const stats = statsText(summary) +
                (summary.exact ? '' : ` · shown as ${summary.grid_rows}x${summary.grid_cols} block means`);
  fig.append(el('figcaption', {}, el('span', { class: 'name', text: options.title }),
                document.createTextNode(' ' + shapeText(summary.shape) + ' ' + summary.dtype),
                el('span', { class: 'stats', text: stats })));
  const rows = summary.grid_rows, cols = summary.grid_cols;
  if (rows === 0 || cols === 0) return fig;
  const room = options.width || 440;
  const printedWidth = Math.min(50, Math.floor(room / cols));  // a printed value needs about 40 px
  const sliceRows = printedWidth >= 40 ? printable(summary) : 0;
  const square = Math.max(3, Math.min(26, Math.floor(room / cols), Math.floor(360 / rows) || 3));
  const [cellW, cellH] = sliceRows ? [printedWidth, 20] : [square, square];
  const ctx0 = document.createElement('canvas').getContext('2d');
  ctx0.font = '11px ui-monospace, monospace';
  const labelWidth = labels => (labels ? Math.ceil(Math.max(...labels.map(l => ctx0.measureText(l).width))) + 6 : 0);
  // Column labels rise at 45 degrees from above their column: they need width * sin 45 above the
  // cells and, past the last column, to its right.
  const rise = Math.ceil(labelWidth(options.colLabels) * Math.SQRT1_2);
  const left = labelWidth(options.rowLabels), top = rise ? rise + 8 : 0;
  const right = Math.max(0, Math.ceil(rise - cellW / 2));
  const canvas = el('canvas');
  const ratio = window.devicePixelRatio || 1;
  const width = left + cols * cellW + right, height = top + rows * cellH;
  canvas.width = width * ratio; canvas.height = height * ratio;
  canvas.style.width = width + 'px'; canvas.style.height = height + 'px';
  Object.assign(canvas.dataset, { left, top, cellWidth: cellW, cellHeight: cellH, rows, cols });  // where the cells are
  const ctx = canvas.getContext('2d');
  ctx.scale(ratio, ratio);
  const values = summary.values.map(num);
  const scale = options.scale || magnitude([summary]);
  const colourOf = options.colourOf || (v => colour(v, scale));
  values.forEach((v, i) => {
    ctx.fillStyle = colourOf(v);
    ctx.fillRect(left + (i % cols) * cellW, top + Math.floor(i / cols) * cellH, cellW, cellH);
  });
  drawGrid(ctx, left, top, cellW, cellH, rows, cols, sliceRows || rows);
  if (sliceRows) printValues(ctx, canvas, values, left, top, cellW, cellH, cols, colourOf);
  ctx.font = '11px ui-monospace, monospace'; ctx.fillStyle = '#3e4c59'; ctx.textBaseline = 'middle';
  (options.rowLabels || []).forEach((l, r) => { ctx.textAlign = 'right'; ctx.fillText(l, left - 4, top + (r + 0.5) * cellH); });
  (options.colLabels || []).forEach((l, c) => {
    ctx.save(); ctx.translate(left + (c + 0.5) * cellW, top - 4); ctx.rotate(-Math.PI / 4);
    ctx.textAlign = 'left'; ctx.fillText(l, 0, 0); ctx.restore();
  });
  canvas.addEventListener('mousemove', event => {
    const box = canvas.getBoundingClientRect();
    const c = Math.floor((event.clientX - box.left - left) / cellW), r = Math.floor((event.clientY - box.top - top) / cellH);
    if (r < 0 || c < 0 || r >= rows || c >= cols) { tooltip.hidden = true; return; }
    tooltip.textContent = cellText(summary, r, c, values[r * cols + c], options);
    tooltip.hidden = false;
    tooltip.style.left = event.clientX + 14 + 'px'; tooltip.style.top = event.clientY + 12 + 'px';
  });
  canvas.addEventListener('mouseleave', () => { tooltip.hidden = true; });
  fig.append(canvas);
  if (!options.colourOf) fig.append(colourBar(scale));  // after the cells: the figure's first canvas is theirs
  return fig;
}

// Light lines between cells large enough to take them (a zero cell is white: the lines keep it
// from vanishing into the page), dark ones between 2-D slices, and a frame.
function drawGrid(ctx, left, top, cellW, cellH, rows, cols, sliceRows) {
  const line = (x0, y0, x1, y1) => { ctx.beginPath(); ctx.moveTo(x0, y0); ctx.lineTo(x1, y1); ctx.stroke(); };
  const right = left + cols * cellW, bottom = top + rows * cellH;
  ctx.lineWidth = 1;
  if (cellW >= 6 && cellH >= 6) {
    ctx.strokeStyle = '#cbd2d9';
    for (let c = 1; c < cols; c++) line(left + c * cellW + 0.5, top, left + c * cellW + 0.5, bottom);
    for (let r = 1; r < rows; r++) line(left, top + r * cellH + 0.5, right, top + r * cellH + 0.5);
  }
  ctx.strokeStyle = '#52606d';
  for (let r = sliceRows; r < rows; r += sliceRows) line(left, top + r * cellH + 0.5, right, top + r * cellH + 0.5);
  ctx.strokeRect(left + 0.5, top + 0.5, cols * cellW - 1, rows * cellH - 1);
}

// Each value printed in its cell (white on a dark cell), and as the canvas' fallback content: a
// table that screen readers (and the tests) read.
function printValues(ctx, canvas, values, left, top, cellW, cellH, cols, colourOf) {
  ctx.font = '10px ui-monospace, monospace'; ctx.textAlign = 'center'; ctx.textBaseline = 'middle';
  const table = el('table');
  values.forEach((v, i) => {
    const r = Math.floor(i / cols), c = i % cols;
    const [red, green, blue] = colourOf(v).match(/\d+/g).map(Number);
    ctx.fillStyle = red * 0.3 + green * 0.59 + blue * 0.11 < 130 ? 'white' : '#1f2933';
    ctx.fillText(short(v), left + (c + 0.5) * cellW, top + (r + 0.5) * cellH + 0.5);
    if (c === 0) table.append(el('tr'));
    table.lastChild.append(el('td', { text: short(v) }));
  });
  canvas.append(table);
}

// "[2, 1] = 0.25" for a value shown exactly; "rows 0-3, cols 4-7: mean 0.25" for a block.
function cellText(summary, r, c, v, options) {
  const label = (labels, i) => (labels ? ` ${labels[i]}` : '');
  if (summary.exact) return `[${r}, ${c}]${label(options.rowLabels, r)}${label(options.colLabels, c)} = ${show(v)}`;
  const span = (i, n, g) => `${Math.floor(i * n / g)}-${Math.floor((i + 1) * n / g) - 1}`;
  return `rows ${span(r, summary.rows, summary.grid_rows)}, cols ${span(c, summary.cols, summary.grid_cols)}: mean ${show(v)}`;
}

// The labels of a lesson's tensor's rows and columns, as heatmap() takes them: its tokens by
// their texts (an input with a vocabulary, explore/lesson_log.h), else the labels the lesson gave
// it (common.js).
function givenLabels(name, value) {
  const vocabulary = rec.inputs?.find(i => i.name === name)?.vocabulary;
  if (vocabulary) return { colLabels: value.values.map(v => tokenLabel(vocabulary[Number(v)])) };
  const { rows, cols } = axisLabels(rec, name, value);
  return { rowLabels: rows?.map(tokenLabel), colLabels: cols?.map(tokenLabel) };
}

// In the detail pane, as wide as it leaves room for (a narrow window's too), coloured by the
// step's shared scale when the reader chose one.
// A model's example's ids are labelled with the tokens they stand for (explore/model_example.h),
// a lesson's tensors as givenLabels says; a gradient takes its tensor's (labelledAs: its name).
function tensorFigure(id, title, role, extraClass, labelledAs = rec.tensors[id].name) {
  const width = Math.min(440, document.getElementById('detail').clientWidth - 20), value = rec.tensors[id].value;
  const tokens = new Map([['tokens', p => p.token], ['targets', p => p.target ?? '\u2014']]).get(rec.tensors[id].name);
  const labels = givenLabels(labelledAs, value);
  if (rec.prediction && tokens) labels.colLabels = rec.prediction.map(tokens).map(tokenLabel);
  return heatmap(value, { title, role, tensor: id, extraClass, scale: state.detailScale, width, ...labels });
}

// ---- the list and the graph ----------------------------------------------------------------
const listRows = new Map();
const graphNodes = { entry: new Map(), tensor: new Map() };

function entryLine(e) {
  const ins = e.inputs.map(i => (i.tensor === null ? 'none' : tensorName(i.tensor)));
  const outs = e.outputs.map(id => shapeText(rec.tensors[id].value.shape));
  return `${e.op}(${ins.join(', ')}) → ${outs.join(', ')}`;
}

// The entries in execution order, grouped by the modules that made them (common.js); each
// group's button shows the group's own graph above the whole tape's, and outlines its entries there.
function buildList() {
  const graphButton = (summary, positions) => {
    const button = el('button', { class: 'group-graph', text: 'graph',
                                  title: "these entries' own graph, and outlined in the whole tape's" });
    button.addEventListener('click', event => {
      event.preventDefault();  // the group stays as it is
      showGroup(new Set(positions));
      showGroupGraph(summary.firstChild.textContent, positions);
    });
    summary.append(button);
  };
  fillGroupedTape(document.getElementById('entry-list'), rec.entries, rec.groups, e => {
    const row = el('li', { title: entryLine(e) }, el('span', { class: 'pos', text: '#' + e.position }),
                   document.createTextNode(entryLine(e)));
    row.dataset.position = e.position;
    row.addEventListener('click', () => select(e.position, true));
    listRows.set(e.position, row);
    return row;
  }, graphButton);
}

// A module group's own graph (laid out by dot when the page was written, explore/page.cpp), its
// entries selectable as in the whole graph.
const groupGraphs = JSON.parse(document.getElementById('group-graphs').textContent);
function showGroupGraph(name, positions) {
  const svg = groupGraphs[`${positions[0]}-${positions.at(-1)}`];
  if (!svg) return;
  const box = document.getElementById('group-graph');
  document.getElementById('group-graph-title').textContent = `${name} #${positions[0]}\u2013#${positions.at(-1)}`;
  const holder = document.getElementById('group-graph-svg');
  holder.innerHTML = svg;
  for (const g of holder.querySelectorAll('.node')) {
    const op = /^op(\d+)$/.exec(g.querySelector('title').textContent);
    if (!op) continue;
    g.classList.add('entry');
    g.dataset.position = op[1];
    g.addEventListener('click', () => select(Number(op[1]), false));
  }
  box.hidden = false;
  document.getElementById('graph-pane').scrollTo(0, 0);
}
document.getElementById('group-graph-close').addEventListener('click', () => {
  document.getElementById('group-graph').hidden = true;
  for (const node of graphNodes.entry.values()) node.classList.remove('in-group', 'out-of-group');
});

// A module's entries outlined in the graph (the others dimmed), the first of them in view.
function showGroup(positions) {
  for (const [position, node] of graphNodes.entry) {
    node.classList.toggle('in-group', positions.has(position));
    node.classList.toggle('out-of-group', !positions.has(position));
  }
  const first = graphNodes.entry.get(Math.min(...positions));
  if (first) reveal(document.getElementById('graph-pane'), first, true);
}

function buildGraph() {
  for (const g of document.querySelectorAll('#graph .node')) {
    const name = g.querySelector('title').textContent;
    const op = /^op(\d+)$/.exec(name), tensor = /^t(\d+)$/.exec(name);
    if (op && entries.has(Number(op[1]))) {
      const position = Number(op[1]);
      g.classList.add('entry');
      g.dataset.position = position;
      graphNodes.entry.set(position, g);
      g.addEventListener('click', () => select(position, false));
    } else if (tensor) {
      const id = Number(tensor[1]);
      g.classList.add('tensor');
      graphNodes.tensor.set(id, g);
      const position = producerOf.has(id) ? producerOf.get(id) : (usesOf.get(id) || [])[0];
      if (position !== undefined) g.addEventListener('click', () => select(position, false));
    }
  }
}

// ---- the entry's details -------------------------------------------------------------------
// The op docs' TeX writes the gradient of the loss with respect to x as \dLd{x} (ops/common/op_doc.h).
const kMacros = { '\\dLd': '\\frac{\\partial L}{\\partial #1}' };
function formula(label, latex, text) {
  const box = el('div', { class: 'formula' }, el('span', { class: 'label', text: label }));
  const math = el('span');
  try {
    katex.render(latex, math, { output: 'mathml', throwOnError: true, displayMode: false, macros: kMacros });
  } catch (error) {
    math.textContent = text || latex;
  }
  box.append(math);
  if (text) box.title = text;
  return box;
}

function docSection(e) {
  const section = el('div');
  if (!e.doc) return section;
  if (e.doc.summary) section.append(el('p', { class: 'summary', text: e.doc.summary }));
  if (e.doc.forward) section.append(formula('forward', e.doc.forward, e.doc.forward_text));
  for (const rule of e.doc.backward || []) section.append(formula('backward ' + rule.input, rule.latex, rule.text));
  return section;
}

function tensorsSection(title, figures) {
  const section = el('div', {}, el('h3', { text: title }));
  const box = el('div', { class: 'tensors' });
  figures.forEach(f => box.append(f));
  section.append(box);
  return section;
}

function inputTitle(e, k) {
  const input = e.inputs[k];
  if (input.tensor === null) return `input ${k}: none`;
  const kind = rec.tensors[input.tensor].kind;
  return `input ${k}: ${tensorName(input.tensor)}${kind === 'computed' ? '' : ' · ' + kind}`;
}

// What backward step k gave: the gradients flowing in (of the outputs) and out (of the inputs).
function gradientSections(e, k) {
  const step = rec.backward[k];
  const incoming = step.grads_in.map((g, i) => (g === null ? el('div', { class: 'no-grad', text: `output ${i}: no gradient` })
      : tensorFigure(g, gradientLabel(tensorName(e.outputs[i])), 'grad-in', 'grad-in', rec.tensors[e.outputs[i]].name)));
  const outgoing = step.grads_out.map((g, i) => {
    const input = e.inputs[i];
    if (g === null) return el('div', { class: 'no-grad', text: `${inputTitle(e, i)}: no gradient (it does not require one)` });
    const fig = tensorFigure(g, gradientLabel(tensorName(input.tensor)), 'grad-out', 'grad-out', rec.tensors[input.tensor].name);
    if (step.contributions[i] !== null) {  // counted by the recording: only the readers backward runs
      fig.querySelector('figcaption').append(withEntryLinks(el('span', { class: 'stats' }), step.contributions[i]));
    }
    return fig;
  });
  return [tensorsSection('Gradient flowing in (of the outputs)', incoming),
          tensorsSection('Gradients flowing out (to the inputs)', outgoing)];
}

function showDetail(position) {
  const e = entries.get(position);
  const detail = document.getElementById('detail');
  detail.replaceChildren();
  detail.dataset.position = position;
  const k = stepOf.get(position), stepped = k !== undefined && k < state.steps;
  const shown = [...e.inputs.map(i => i.tensor), ...e.outputs, ...e.saved.map(s => s.tensor),
                 ...(stepped ? [...rec.backward[k].grads_in, ...rec.backward[k].grads_out] : [])];
  state.detailScale = state.sharedScale
      ? magnitude(shown.filter(id => id !== null).map(id => rec.tensors[id].value)) : null;
  detail.append(el('h2', { class: 'entry-title', text: `#${e.position} ${e.op}` }));
  detail.append(docSection(e));
  if (e.attributes.length) {
    const table = el('table', { class: 'attributes' });
    e.attributes.forEach(([k, v]) => table.append(el('tr', {}, el('td', { text: k }), el('td', { text: v }))));
    detail.append(el('h3', { text: 'Attributes' }), table);
  }
  if (stepped) detail.append(...gradientSections(e, k));
  else if (k === undefined) detail.append(el('p', { class: 'note', text: 'Backward does not reach this entry.' }));
  detail.append(tensorsSection('Inputs', e.inputs.map((input, i) => (input.tensor === null
      ? el('div', { class: 'no-grad', text: inputTitle(e, i) }) : tensorFigure(input.tensor, inputTitle(e, i), 'input')))));
  detail.append(tensorsSection('Outputs', e.outputs.map((id, i) => tensorFigure(id, `output ${i}: ${tensorName(id)}`, 'output'))));
  if (e.saved.length) {
    detail.append(tensorsSection('Saved for backward', e.saved.map(s => (s.tensor === null
        ? el('div', { class: 'no-grad', text: `${s.name}: none` }) : tensorFigure(s.tensor, s.name, 'saved')))));
  }
}

function select(position, fromList) {
  if (state.selected !== null) {
    listRows.get(state.selected)?.classList.remove('selected');
    graphNodes.entry.get(state.selected)?.classList.remove('selected');
  }
  state.selected = position;
  const row = listRows.get(position), node = graphNodes.entry.get(position);
  row.classList.add('selected');
  node?.classList.add('selected');
  openGroupsOf(row);
  reveal(document.getElementById('list-pane'), row, false);
  if (fromList && node) reveal(document.getElementById('graph-pane'), node, true);
  showDetail(position);
}

// Scrolls `pane`, and only it (scrollIntoView would scroll the window too and take the controls
// off the screen), so that `target` is in view: centred, or moved only as far as it must. The
// pane's visible part is the part inside the window.
function reveal(pane, target, centre) {
  const box = pane.getBoundingClientRect(), t = target.getBoundingClientRect();
  const p = { left: Math.max(box.left, 0), right: Math.min(box.right, window.innerWidth),
              top: Math.max(box.top, 0), bottom: Math.min(box.bottom, window.innerHeight) };
  const offset = (start, end, paneStart, paneEnd) => {
    if (centre) return (start + end) / 2 - (paneStart + paneEnd) / 2;
    if (start < paneStart) return Math.floor(start - paneStart);  // whole pixels: a part of one is not scrolled
    return end > paneEnd ? Math.ceil(Math.min(end - paneEnd, start - paneStart)) : 0;
  };
  pane.scrollBy(offset(t.left, t.right, p.left, p.right), offset(t.top, t.bottom, p.top, p.bottom));
}

// ---- backward ------------------------------------------------------------------------------
function paintBackward() {
  for (const g of document.querySelectorAll('#graph .grad-in, #graph .grad-out')) g.classList.remove('grad-in', 'grad-out');
  rec.backward.forEach((s, k) => {
    const done = k < state.steps, current = k === state.steps - 1;
    listRows.get(s.position)?.classList.toggle('done', done && !current);
    listRows.get(s.position)?.classList.toggle('current', current);
    graphNodes.entry.get(s.position)?.classList.toggle('done', done);
  });
  const status = document.getElementById('bw-status');
  if (state.steps === 0) {
    status.textContent = `forward pass · loss ${show(rec.loss)} · ${rec.backward.length} entries to step backward`;
  } else {
    const s = rec.backward[state.steps - 1], e = entries.get(s.position);
    e.outputs.forEach((id, i) => { if (s.grads_in[i] !== null) graphNodes.tensor.get(id)?.classList.add('grad-in'); });
    e.inputs.forEach((input, i) => { if (s.grads_out[i] !== null) graphNodes.tensor.get(input.tensor)?.classList.add('grad-out'); });
    status.textContent = `step ${state.steps} of ${rec.backward.length}: #${e.position} ${e.op}` +
                         (state.steps === rec.backward.length ? ' · backward done' : '');
  }
  document.getElementById('bw-reset').disabled = document.getElementById('bw-back').disabled = state.steps === 0;
  document.getElementById('bw-step').disabled = document.getElementById('bw-end').disabled =
      state.steps === rec.backward.length;
}

function goTo(steps) {
  state.steps = Math.max(0, Math.min(rec.backward.length, steps));
  paintBackward();
  if (state.steps > 0) select(rec.backward[state.steps - 1].position, true);
  else if (state.selected !== null) showDetail(state.selected);
}

// ---- the prediction ------------------------------------------------------------------------
// A model's example (explore/model_example.h): each position's prediction next to its target.
function buildPrediction() {
  if (!rec.prediction) return;
  document.getElementById('prediction-pane').hidden = false;
  const cells = (tag, texts) => el('tr', {}, ...texts.map(t => el(tag, { text: t })));
  const table = document.getElementById('prediction');
  table.append(cells('th', ['position', 'input', 'target', 'predicted', 'p(predicted)', 'p(target)']));
  rec.prediction.forEach((p, i) => {
    const scored = p.target !== null;
    const row = cells('td', [String(i), tokenLabel(p.token), scored ? tokenLabel(p.target) : '\u2014',
                             tokenLabel(p.predicted), p.p_predicted.toFixed(3), scored ? p.p_target.toFixed(3) : '']);
    row.className = !scored ? 'unscored' : p.predicted === p.target ? 'right' : 'wrong';
    table.append(row);
  });
}

// ---- attention -----------------------------------------------------------------------------
function buildAttention() {
  if (!rec.attention || rec.attention.length === 0) return;
  document.getElementById('attention-pane').hidden = false;
  const box = document.getElementById('attention');
  // The report's colour map (report/page/heatmap.js), 0 white to 1 dark blue, and its numbering: head 0 first.
  const scale = el('div', { class: 'scale' }, 'weight 0');
  drawHeatmapScale(scale.appendChild(el('canvas', { width: 160, height: 12 })));
  scale.append('1');
  box.append(scale);
  const weightColour = v => (Number.isFinite(v) ? heatmapColour(v) : colour(v, 1));
  const layers = new Map();
  for (const a of rec.attention) {
    if (!layers.has(a.layer)) {
      const row = el('div', { class: 'tensors' });
      box.append(el('div', { class: 'attention-layer' }, el('h3', { text: a.layer }), row));
      layers.set(a.layer, row);
    }
    layers.get(a.layer).append(heatmap(a.weights, { title: `head ${a.head}`, role: 'attention', colourOf: weightColour,
                                                    rowLabels: a.queries, colLabels: a.keys }));
  }
}

// ---- the lesson's text -------------------------------------------------------------------
// `node` with `text` appended, each mention of a tape entry ("#4") a link that selects it.
function withEntryLinks(node, text) {
  let at = 0;
  for (const m of text.matchAll(/#(\d+)/g)) {
    const position = Number(m[1]);
    if (!entries.has(position)) continue;
    node.append(text.slice(at, m.index));
    const link = el('a', { href: '#', class: 'entry-link', text: m[0], title: `select ${m[0]} ${entries.get(position).op}` });
    link.dataset.position = position;
    link.addEventListener('click', event => { event.preventDefault(); select(position, true); });
    node.append(link);
    at = m.index + m[0].length;
  }
  node.append(text.slice(at));
  return node;
}

function buildLesson() {
  if (!rec.lesson) return;
  document.getElementById('lesson-pane').hidden = false;
  const box = document.getElementById('lesson');
  for (const step of rec.lesson) {
    if ('say' in step) box.append(withEntryLinks(el('p'), step.say));
    else if ('show' in step) box.append(heatmap(step.value, { title: step.show, role: 'lesson', ...givenLabels(step.show, step.value) }));
    else if ('fact' in step) box.append(withEntryLinks(el('p', { class: 'fact ' + (step.holds ? 'holds' : 'fails') }), step.fact));
    else if ('backward' in step) {
      box.append(el('p', { class: 'note', text: `Backward from ${step.backward}: step through it with the Backward buttons above.` }));
    }
  }
}

// ---- start -----------------------------------------------------------------------------------
document.getElementById('title').textContent = rec.title || 'tapegrad explore';
document.getElementById('description').textContent = rec.description || '';
buildList();
buildGraph();
buildPrediction();
buildAttention();
buildLesson();
document.getElementById('bw-reset').addEventListener('click', () => goTo(0));
document.getElementById('bw-back').addEventListener('click', () => goTo(state.steps - 1));
document.getElementById('bw-step').addEventListener('click', () => goTo(state.steps + 1));
document.getElementById('bw-end').addEventListener('click', () => goTo(rec.backward.length));
document.getElementById('shared-scale').addEventListener('change', event => {
  state.sharedScale = event.target.checked;
  if (state.selected !== null) showDetail(state.selected);
});
document.addEventListener('keydown', event => {  // the arrow keys step backward too
  if (event.key === 'ArrowRight') goTo(state.steps + 1);
  else if (event.key === 'ArrowLeft') goTo(state.steps - 1);
});
paintBackward();
if (rec.entries.length) select(rec.entries[0].position, true);
