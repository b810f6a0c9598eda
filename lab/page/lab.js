// tapegrad lab: the page's script (inlined into tapegrad-lab.html after the library's module).
//
// The library runs in the page: createTapegradModule() (lab/lab_api.cpp compiled by Emscripten)
// gives tapegrad_lab_run, which runs a lesson with the student's edits and returns the explorer's
// recording (explore/recording.h). The page draws that recording; every edit runs the lesson again.
//
// window.tapegrad, the same for the page's tests and anyone's:
//   ready                  a Promise, resolved once the library is loaded and the first lesson ran
//   lessons()              the lessons' names, in teaching order
//   lesson(name)           switch to a lesson (its edits cleared) and run it; returns its inputs' names
//   set(tensor, i, value)  change element i (row-major) of one of the lesson's inputs (run() applies it);
//                          of its tokens, the id (an input with a "vocabulary": tokens(name) gives the texts)
//   choose(setting, value) change one of the lesson's settings (d_k, scale, masks, fill: settings())
//   settings()             [{name, meaning, value, allowed}], values as text ("-inf")
//   run()                  forward and backward again with every change; {loss, ms}; throws the
//                          library's error (also shown in the page)
//   stepTo(k)              show backward after k of its steps (0: the forward pass only); returns
//                          {position, op, gradsIn: [flat or null], gradsOut: [flat or null]} of step k
//   get(tensor)            the tensor's values, a flat array of numbers ("loss": the final scalar),
//                          to the 5 significant digits the recording keeps (explore/tensor_summary.h)
//   grad(tensor)           its gradient dL/dtensor, likewise, or null when none reaches it
//   tokens(name)           the texts of the lesson's tokens named `name`, in order
// and train.js adds training in the page: train(options), kept(), lookAt(step), openTape(step), ...
'use strict';

const page = {
  module: null,        // the Emscripten module
  lessons: [],         // [{name, title, summary}]
  lesson: null,        // the current lesson's name
  edits: new Map(),    // "tensor[index]" -> {name, index, value}; "setting" -> {name, value}
  rec: null,           // the last recording
  ms: 0,               // how long the last run took
  step: 0,             // backward steps shown (0: none); kept across runs, so an edit shows at the same step
};

const $ = id => document.getElementById(id);
function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === 'class') node.className = value;
    else node.setAttribute(key, value);
  }
  for (const child of children) node.append(child);
  return node;
}

// The library's JSON reply, or the Error it names.
function call(name, ...args) {
  const types = args.map(() => 'string');
  const reply = JSON.parse(page.module.ccall(name, 'string', types, args));
  if (reply !== null && typeof reply === 'object' && !Array.isArray(reply) && 'error' in reply)
    throw new Error(reply.error);
  return reply;
}

const number = v => (typeof v === 'string' ? Number(v) : v);  // "-Infinity" and the like
function show(v) {
  if (!Number.isFinite(v)) return Number.isNaN(v) ? 'NaN' : v > 0 ? '\u221e' : '\u2212\u221e';
  if (v === 0) return '0';
  return Math.abs(v) >= 1e4 || Math.abs(v) < 1e-3 ? v.toExponential(2) : String(Number(v.toPrecision(4)));
}
const shapeText = shape => '(' + shape.join(',') + (shape.length === 1 ? ',' : '') + ')';

// A tensor's values from its summary (explore/tensor_summary.h); lessons' tensors are kept exactly.
function flat(summary) {
  if (!summary.exact) throw new Error('the recording keeps only block means of this tensor');
  return summary.values.map(number);
}

// The recorded tensor named `name` (a parameter, constant or computed one); undefined when the
// recorded loss never reads it.
function recorded(name) {
  const kinds = ['parameter', 'constant', 'computed'];
  return Object.values(page.rec.tensors).find(t => t.name === name && kinds.includes(t.kind));
}
function tensorOf(name) {
  const found = recorded(name);
  if (found === undefined) throw new Error(`the lesson ${page.lesson} records no tensor named '${name}'`);
  return found;
}

function get(name) {
  if (name === 'loss') return [number(page.rec.loss)];
  const input = page.rec.inputs.find(i => i.name === name);
  return flat(input ? input.value : tensorOf(name).value);
}

function grad(name) {
  const rec = page.rec;
  if (name === 'loss') return [1];
  const tensor = recorded(name);
  if (tensor === undefined) {
    if (rec.inputs.some(i => i.name === name)) return null;  // an input the recorded loss never reads
    throw new Error(`the lesson ${page.lesson} records no tensor named '${name}'`);
  }
  const id = String(tensor.id);
  if (rec.leaf_grads[id] !== undefined) return flat(rec.tensors[rec.leaf_grads[id]].value);
  for (const step of rec.backward) {
    const entry = rec.entries.find(e => e.position === step.position);
    const k = entry.outputs.map(String).indexOf(id);
    if (k >= 0 && step.grads_in[k] !== null) return flat(rec.tensors[step.grads_in[k]].value);
  }
  return null;
}

// Dragging an input's cell sideways changes its value live, forward and backward running again at
// each frame: a hundredth of its size (at least 0.01) per pixel, or one per 10 pixels for integer
// ids. A click without a drag edits the cell as text.
function dragToChange(input, name, index, start, integer) {
  if (!Number.isFinite(start)) return;
  input.title = 'drag sideways to change the value, or click and type';
  input.addEventListener('pointerdown', down => {
    let dragging = false, frame = null, value = start;
    const move = event => {
      const dx = event.clientX - down.clientX;
      if (!dragging && Math.abs(dx) < 4) return;
      dragging = true;
      event.preventDefault();
      const step = Math.max(Math.abs(start), 1) / 100;
      value = integer ? Math.round(start + dx / 10) : Number((start + dx * step).toPrecision(4));
      frame ??= requestAnimationFrame(() => {
        frame = null;
        edit(name, index, String(value));  // redraws the table: this input leaves the page
      });
    };
    const up = () => {
      window.removeEventListener('pointermove', move);
      window.removeEventListener('pointerup', up);
    };
    window.addEventListener('pointermove', move);
    window.addEventListener('pointerup', up);
  });
}

// A table of the tensor's values, rows x cols as the explorer lays them out; editable cells for an
// input; rows and columns that stand for tokens labelled with them.
function valuesTable(name, summary, editable, labels) {
  const values = flat(summary), table = el('table', { class: 'values' });
  if (labels.cols) table.append(el('tr', {}, labels.rows ? el('th') : '', ...labels.cols.map(t => el('th', {}, tokenLabel(t)))));
  for (let r = 0; r < summary.rows; ++r) {
    const row = el('tr');
    if (labels.rows) row.append(el('th', { class: 'row' }, tokenLabel(labels.rows[r])));
    for (let c = 0; c < summary.cols; ++c) {
      const index = r * summary.cols + c, v = values[index], key = `${name}[${index}]`;
      const cell = el('td', { class: Number.isFinite(v) ? '' : 'nonfinite', title: key });
      if (page.edits.has(key)) cell.classList.add('edited');
      if (editable) {
        const input = el('input', { value: show(v).replace('\u2212', '-').replace('\u221e', 'inf'),
                                    'aria-label': key, spellcheck: 'false' });
        input.addEventListener('change', () => edit(name, index, input.value));
        dragToChange(input, name, index, v, summary.dtype !== 'float32' && summary.dtype !== 'float64');
        cell.append(input);
      } else {
        cell.append(show(v));
      }
      row.append(cell);
    }
    table.append(row);
  }
  return table;
}

// rows x cols values as coloured cells with grid lines, on a scale symmetric at the largest |value|
// (its bar beneath), each value on hover: for a tensor too large to print.
function colourGrid(values, rows, cols, label) {
  const finite = values.filter(Number.isFinite), max = Math.max(0, ...finite.map(Math.abs));
  const cell = Math.max(3, Math.min(14, Math.floor(420 / Math.max(rows, cols))));
  const canvas = el('canvas', { width: cols * cell, height: rows * cell, 'aria-label': label });
  const ctx = canvas.getContext('2d');
  for (let r = 0; r < rows; ++r)
    for (let c = 0; c < cols; ++c) {
      ctx.fillStyle = colour(values[r * cols + c], max);
      ctx.fillRect(c * cell, r * cell, cell, cell);
    }
  if (cell >= 6) {  // grid lines, so that a zero cell keeps its place
    ctx.strokeStyle = '#e4e7eb';
    for (let r = 0; r <= rows; ++r) ctx.strokeRect(0, r * cell, cols * cell, 0);
    for (let c = 0; c <= cols; ++c) ctx.strokeRect(c * cell, 0, 0, rows * cell);
  }
  const tooltip = $('tooltip');
  canvas.addEventListener('mousemove', event => {
    const box = canvas.getBoundingClientRect();
    const c = Math.floor(((event.clientX - box.left) / box.width) * cols);
    const r = Math.floor(((event.clientY - box.top) / box.height) * rows);
    if (r < 0 || c < 0 || r >= rows || c >= cols) return;
    tooltip.textContent = `[${r}, ${c}] ${show(values[r * cols + c])}`;
    tooltip.style.left = `${event.clientX + 14}px`;
    tooltip.style.top = `${event.clientY + 14}px`;
    tooltip.hidden = false;
  });
  canvas.addEventListener('mouseleave', () => { tooltip.hidden = true; });
  const bar = el('canvas', { width: 160, height: 10 }), barCtx = bar.getContext('2d');
  for (let x = 0; x < 160; ++x) {
    barCtx.fillStyle = colour((x / 159) * 2 - 1, 1);
    barCtx.fillRect(x, 0, 1, 10);
  }
  const scale = el('div', { class: 'scale' }, show(-max) + ' ', bar, ' ' + show(max));
  return el('div', { class: 'colour-grid' }, canvas, scale);
}

// The lesson's tokens as their texts, one cell per position; editable, a choice of the vocabulary's
// tokens in each cell (the library takes the id, as `--set tokens[2]=5` does).
function tokensRow(name, summary, vocabulary, editable) {
  const row = el('tr');
  flat(summary).forEach((id, index) => {
    const key = `${name}[${index}]`, cell = el('td', { class: 'token', title: `${key} = ${id}` });
    if (page.edits.has(key)) cell.classList.add('edited');
    if (editable) {
      const choice = el('select', { 'aria-label': key },
                        ...vocabulary.map((text, v) => el('option', { value: String(v) }, text)));
      choice.value = String(id);
      choice.addEventListener('change', () => edit(name, index, choice.value));
      cell.append(choice);
    } else {
      cell.append(vocabulary[id] ?? String(id));
    }
    row.append(cell);
  });
  return el('table', { class: 'values tokens' }, row);
}

// A tensor: its values printed in a table up to 8x8 (and always an input's, to edit), larger ones
// as a colour grid (block means where the recording keeps only those); a lesson's tokens as text.
// `tensor` names the tensor whose labels it takes (the gradient of x: x's); `name` is the caption.
function figure(name, summary, editable, tensor = name) {
  const vocabulary = (page.rec.inputs ?? []).find(i => i.name === name)?.vocabulary;
  const printed = editable || (summary.exact && summary.rows * summary.cols <= 64);
  const body = vocabulary ? tokensRow(name, summary, vocabulary, editable)
    : printed ? valuesTable(name, summary, editable, axisLabels(page.rec, tensor, summary))
    : colourGrid(summary.values.map(number), summary.grid_rows, summary.grid_cols,
                 `${name}: ${summary.exact ? 'its values' : 'block means of its values'}`);
  return el('figure', {}, el('figcaption', {}, name + ' ', el('span', { class: 'shape' },
    shapeText(summary.shape) + ' ' + summary.dtype + (summary.exact || printed ? '' : ', block means'))), body);
}

function drawLesson() {
  const pane = $('lesson');
  pane.replaceChildren();
  for (const step of page.rec.lesson) {
    if ('say' in step) pane.append(el('p', { class: 'say' }, step.say));
    else if ('show' in step) pane.append(figure(step.show, step.value, false));
    else if ('fact' in step) {
      const why = step.holds ? '' : ' \u2014 does not hold with these numbers';
      pane.append(el('p', { class: 'fact ' + (step.holds ? 'holds' : 'fails') }, step.fact + why));
    }
    else if ('backward' in step) pane.append(el('p', { class: 'backward' }, `backward from ${step.backward}`));
  }
}

function drawSettings() {
  $('settings').replaceChildren(...page.rec.settings.map(setting => {
    const choice = el('select', { 'aria-label': setting.name },
                      ...setting.allowed.map(v => el('option', { value: v }, v)));
    choice.value = setting.value;
    choice.addEventListener('change', () => edit(setting.name, null, choice.value));
    return el('label', { class: 'setting' + (page.edits.has(setting.name) ? ' edited' : '') },
              el('b', {}, setting.name), ' ', choice, el('span', { class: 'hint' }, ' ' + setting.meaning));
  }));
  $('settings-pane').hidden = page.rec.settings.length === 0;
}

function drawInputs() {
  const rec = page.rec;
  $('inputs').replaceChildren(...rec.inputs.map(input => figure(input.name, input.value, true)));
  const grads = rec.inputs.map(input => [input.name, rec.leaf_grads[String(recorded(input.name)?.id)]])
    .filter(([, id]) => id !== undefined);
  $('gradients').replaceChildren(
    ...grads.map(([name, id]) => figure(gradientLabel(name), rec.tensors[id].value, false, name)));
}

// A tensor's own name; else that of the entry that made it ("#5 matmul"), as the explorer names it.
function tensorLabel(id) {
  if (id === null) return '\u2014';
  if (page.rec.tensors[id]?.name) return page.rec.tensors[id].name;
  const made = page.rec.entries.find(e => e.outputs.includes(id));
  return made ? `#${made.position} ${made.op}` : `tensor ${id}`;
}
// The gradient of the loss with respect to a tensor, as the terminal and the explorer write it.
const gradientLabel = name => (name.includes(' ') ? `dL/d(${name})` : `dL/d${name}`);

// The tape in execution order, each entry in the groups of the modules that made it (a model's:
// layer, attention, projection; common.js), each group collapsible; a lesson's entries are
// made outside every module, in one flat list.
function drawTape() {
  const rec = page.rec;
  $('tape').replaceChildren();
  // Each group's button draws the graph of its entries alone.
  const graphButton = (summary, positions) => {
    const button = el('button', { class: 'group-graph', title: 'the graph of these entries alone' }, 'graph');
    button.addEventListener('click', event => {
      event.preventDefault();  // the group stays open
      drawGraph(summary.firstChild.textContent, new Set(positions));
      drawStep();
    });
    summary.append(button);
  };
  fillGroupedTape($('tape'), rec.entries, rec.groups, e => el('li', { 'data-position': e.position },
    el('span', { class: 'pos' }, `#${e.position}`),
    `${e.op}(${e.inputs.map(i => tensorLabel(i.tensor)).join(', ')}) \u2192 `,
    e.outputs.map(tensorLabel).join(', ')), graphButton);
}

// Backward, one entry at a time: the entries done so far and the current one marked in the list
// and the graph, and the current entry's gradients, flowing in (of its outputs) and out (to its inputs).
function drawStep() {
  const rec = page.rec, steps = rec.backward;
  page.step = Math.min(page.step, steps.length);
  const done = new Set(steps.slice(0, page.step).map(s => s.position));
  const current = page.step > 0 ? steps[page.step - 1] : null;
  const mark = (node, position) => {
    node.classList.toggle('done', done.has(position));
    node.classList.toggle('current', current !== null && current.position === position);
  };
  for (const li of $('tape').querySelectorAll('li[data-position]')) mark(li, Number(li.dataset.position));
  for (const g of $('graph').querySelectorAll('.node.entry')) mark(g, Number(g.dataset.node.slice(1)));
  $('bw-back').disabled = page.step === 0;
  $('bw-step').disabled = $('bw-end').disabled = page.step === steps.length;
  const pane = $('step-detail');
  if (current === null) {
    $('bw-status').textContent = `forward pass; ${steps.length} entries to step backward`;
    pane.replaceChildren();
    return;
  }
  const entry = rec.entries.find(e => e.position === current.position);
  $('bw-status').textContent = `backward step ${page.step} of ${steps.length}: #${entry.position} ${entry.op}`;
  const figures = (ids, names) => ids.flatMap((id, k) => (id === null ? [] :
    [figure(gradientLabel(names[k]), rec.tensors[id].value, false, names[k])]));
  pane.replaceChildren(
    el('h3', {}, `#${entry.position} ${entry.op}: the gradient flows in`),
    ...figures(current.grads_in, entry.outputs.map(tensorLabel)),
    el('h3', {}, 'and out, to its inputs'),
    ...figures(current.grads_out, entry.inputs.map(i => tensorLabel(i.tensor))));
  // The list opens the current entry's groups and scrolls itself to it; the window stays where it is.
  const list = $('tape'), li = list.querySelector('li.current');
  openGroupsOf(li);
  if (li.offsetTop < list.scrollTop || li.offsetTop + li.offsetHeight > list.scrollTop + list.clientHeight)
    list.scrollTop = li.offsetTop - list.clientHeight / 2;
}

function stepTo(k) {
  page.step = Math.max(0, Math.min(k, page.rec.backward.length));
  drawStep();
  if (page.step === 0) return null;
  const current = page.rec.backward[page.step - 1];
  const grads = ids => ids.map(id => (id === null ? null : flat(page.rec.tensors[id].value)));
  return { position: current.position, op: page.rec.entries.find(e => e.position === current.position).op,
           gradsIn: grads(current.grads_in), gradsOut: grads(current.grads_out) };
}

// The tape as a graph, laid out in the page by dagre (Debian's node-dagre-layout) each time it
// runs, so a change that changes the tape's shape redraws it: an entry is a rounded box (#position
// op), a tensor that no entry made (an input, a parameter, a constant) a plain one, and an edge
// carries the tensor that flows along it.
const kSvg = 'http://www.w3.org/2000/svg';
function svg(tag, attrs = {}, text = null) {
  const node = document.createElementNS(kSvg, tag);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, value);
  if (text !== null) node.textContent = text;
  return node;
}

// `group` names the module whose entries (`positions`) it draws alone; null: the whole tape. A
// tensor made outside those entries comes in as a plain box named as the tape list names it.
function drawGraph(group = null, positions = null) {
  const rec = page.rec, g = new dagre.graphlib.Graph({ multigraph: true });
  const drawn = positions === null ? rec.entries : rec.entries.filter(e => positions.has(e.position));
  g.setGraph({ rankdir: 'TB', nodesep: 18, ranksep: 30, marginx: 8, marginy: 8 });
  g.setDefaultEdgeLabel(() => ({}));
  const producer = new Map();
  for (const e of drawn) for (const id of e.outputs) producer.set(id, e.position);
  const node = (text, kind) => ({ text, kind, width: 12 + 7 * text.length, height: 26 });
  for (const e of drawn) g.setNode(`e${e.position}`, node(`#${e.position} ${e.op}`, 'entry'));
  for (const e of drawn)
    for (const input of e.inputs) {
      if (input.tensor === null) continue;
      const from = producer.has(input.tensor) ? `e${producer.get(input.tensor)}` : `t${input.tensor}`;
      if (!producer.has(input.tensor)) g.setNode(from, node(tensorLabel(input.tensor), 'tensor'));
      g.setEdge(from, `e${e.position}`, {}, `${input.tensor}-${e.position}`);
    }
  dagre.layout(g);
  const { width, height } = g.graph();
  const root = svg('svg', { width, height, viewBox: `0 0 ${width} ${height}`, role: 'img',
                            'aria-label': `the tape's graph: ${drawn.length} entries` });
  const defs = svg('defs');
  const marker = svg('marker', { id: 'arrow', viewBox: '0 0 8 8', refX: 8, refY: 4, markerWidth: 7, markerHeight: 7,
                                 orient: 'auto-start-reverse' });
  marker.append(svg('path', { d: 'M0,0 L8,4 L0,8 z', fill: '#9aa5b1' }));
  defs.append(marker);
  root.append(defs);
  for (const edge of g.edges()) {
    const points = g.edge(edge).points.map(p => `${p.x},${p.y}`).join(' ');
    root.append(svg('polyline', { points, class: 'edge', 'marker-end': 'url(#arrow)' }));
  }
  for (const name of g.nodes()) {
    const n = g.node(name), group = svg('g', { class: `node ${n.kind}`, 'data-node': name });
    group.append(svg('rect', { x: n.x - n.width / 2, y: n.y - n.height / 2, width: n.width, height: n.height,
                               rx: n.kind === 'entry' ? 12 : 2 }));
    group.append(svg('text', { x: n.x, y: n.y + 4, 'text-anchor': 'middle' }, n.text));
    root.append(group);
  }
  $('graph').replaceChildren(root);
  $('graph-of').textContent = group === null ? 'the whole tape' : `${group} alone (${drawn.length} entries)`;
  $('graph-whole').hidden = group === null;
}

function showError(message) {
  $('error').hidden = message === null;
  $('error').textContent = message === null ? '' : message;
}

function run() {
  const started = performance.now();
  try {
    const request = { lesson: page.lesson, edits: [...page.edits.values()] };
    page.rec = call('tapegrad_lab_run', JSON.stringify(request));
  } catch (error) {
    showError(error.message);
    throw error;
  }
  page.ms = performance.now() - started;
  showError(null);
  drawLesson();
  drawSettings();
  drawInputs();
  drawTape();
  drawGraph();
  drawStep();
  $('status').textContent = `forward + backward in ${page.ms.toFixed(1)} ms, loss ${show(number(page.rec.loss))}`;
  return { loss: number(page.rec.loss), ms: page.ms };
}

// JSON has no -inf, inf or nan: those go to the library as text, which reads them.
function valueOf(value) {
  if (typeof value !== 'number' || Number.isFinite(value)) return value;
  return Number.isNaN(value) ? 'nan' : value > 0 ? 'inf' : '-inf';
}
function set(tensor, index, value) {
  page.edits.set(`${tensor}[${index}]`, { name: tensor, index, value: valueOf(value) });
}
function choose(setting, value) {
  page.edits.set(setting, { name: setting, value: valueOf(value) });
}

// A cell typed into or a setting chosen (index null): the text goes to the library, which checks
// it; a change it refuses is shown and undone.
function edit(name, index, text) {
  const key = index === null ? name : `${name}[${index}]`, earlier = page.edits.get(key);
  const value = text.trim().replace('\u2212', '-').replace('\u221e', 'inf').toLowerCase();
  page.edits.set(key, index === null ? { name, value } : { name, index, value });
  try {
    run();
  } catch (error) {
    if (earlier) page.edits.set(key, earlier);
    else page.edits.delete(key);
  }
}

// The texts of the lesson's tokens named `name` (an input with a vocabulary), in order.
function tokens(name) {
  const input = (page.rec.inputs ?? []).find(i => i.name === name && i.vocabulary);
  if (input === undefined) throw new Error(`the lesson ${page.lesson} has no tokens named '${name}'`);
  return flat(input.value).map(id => input.vocabulary[id]);
}

function lesson(name) {
  if (!page.lessons.some(l => l.name === name))
    throw new Error(`there is no lesson named '${name}': the lessons are ${page.lessons.map(l => l.name).join(', ')}`);
  page.lesson = name;
  page.edits.clear();
  page.step = 0;
  $('lesson-choice').value = name;
  run();
  return page.rec.inputs.map(i => i.name);
}

const ready = (async () => {
  const started = performance.now();
  page.module = await createTapegradModule();
  page.lessons = call('tapegrad_lab_lessons');
  $('lesson-choice').replaceChildren(...page.lessons.map(l => el('option', { value: l.name }, l.title)));
  $('lesson-choice').addEventListener('change', event => lesson(event.target.value));
  $('reset-edits').addEventListener('click', () => lesson(page.lesson));
  $('bw-back').addEventListener('click', () => stepTo(page.step - 1));
  $('bw-step').addEventListener('click', () => stepTo(page.step + 1));
  $('bw-end').addEventListener('click', () => stepTo(page.rec.backward.length));
  $('graph-whole').addEventListener('click', () => { drawGraph(); drawStep(); });
  lesson(page.lessons[0].name);
  page.loadMs = performance.now() - started;
  $('status').textContent = `library loaded and first lesson run in ${page.loadMs.toFixed(0)} ms`;
})();

window.tapegrad = {
  ready,
  lessons: () => page.lessons.map(l => l.name),
  lesson,
  set,
  choose,
  stepTo,
  settings: () => page.rec.settings.map(s => ({ ...s })),
  run,
  get,
  grad,
  tokens,
  loadMs: () => page.loadMs,
};
