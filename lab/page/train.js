// tapegrad lab: the Train view (inlined after lab.js, whose page, el, call, show and tape drawing it
// uses). A tiny model trains in the page: the library's Trainer (lab/lab_training.h) runs one
// update at a time between frames, so the loss curve grows as it learns. The page keeps the
// weights of about 100 steps; the slider looks back at any of them: validation example 0's
// prediction, its attention maps and a chosen parameter's gradient, and its forward and backward
// pass on the tape, stepped through entry by entry in the side pane.
//
// What it adds to window.tapegrad (lab.js):
//   train(options)   options named as `tapegrad train`'s flags ({task: 'reverse', steps: 30,
//                    'd-model': 16, seed: 5}): a new model trained all its steps in the Train view;
//                    resolves to the per-step training losses
//   trainView()      shows the Train view (a model from the form's flags if none is there yet)
//   kept()           the steps whose weights the page kept, in order
//   lookAt(step)     the slider on a kept step; returns its snapshot (lab/lab_training.h)
//   openTape(step)   that step's tape in the side pane (stepTo, get and grad then read it); its entries' count
//   trainMs()        the mean wall time of the updates made, in ms
//   evaluation()     the run's evaluation at its last step (metrics.jsonl's record), or null before
'use strict';

const training = {
  info: null,          // describe(): {config, step, parameters: [{name, shape}], classes}
  records: [],         // every update's metrics, as metrics.jsonl has them
  evals: [],           // the evaluations made
  snapshots: new Map(),  // kept step -> its snapshot (without a gradient)
  keepEvery: 1,        // steps between kept weights
  running: null,       // the Promise of the loop while it trains
  tapeOpen: false,     // a step's tape is open in the side pane
  pause: false,        // asks the loop to stop after the update running now
  chart: null, targetChart: null,
};

// The flags the form offers, with the page's defaults: a model that learns to reverse sequences of
// 1-5 digits (100% exact match on the validation set) in 600 steps of about 9 ms each.
const kFormFlags = [
  ['task', 'reverse', ['reverse', 'copy', 'sort', 'mod_add', 'lm']],
  ['steps', 600], ['batch-size', 32], ['d-model', 24], ['heads', 2], ['layers', 2], ['ff', 48], ['lr', 0.01],
  ['max-len', 5], ['seed', 0],
];
const kKeptSteps = 100;  // about how many steps the page keeps the weights of
const kFrameMs = 150;    // updates run in slices of about this long, then the page draws
const kIdleMs = 50;      // and then waits this long: clicks, and a test's driver, get their turn

const train = payload => call('tapegrad_lab_train', JSON.stringify(payload));
const currentStep = () => training.records.length;

function formFlags() {
  const flags = {};
  for (const [name, , choices] of kFormFlags) {
    const input = $('train-flags').elements[name];
    flags[name] = choices ? input.value : Number(input.value);
  }
  return flags;
}

function drawForm() {
  $('train-flags').replaceChildren(...kFormFlags.map(([name, value, choices]) => {
    const input = choices ? el('select', { name }, ...choices.map(c => el('option', { value: c }, c)))
                          : el('input', { name, type: 'number', value: String(value), step: 'any' });
    input.value = String(value);
    return el('label', {}, el('span', {}, '--' + name), input);
  }));
}

// ---- the run -------------------------------------------------------------------------------

function start(flags) {
  training.pause = true;
  training.info = train({ action: 'start', flags });
  training.records = [];
  training.evals = [];
  training.snapshots = new Map();
  training.keepEvery = Math.max(1, Math.ceil(training.info.config.steps / kKeptSteps));
  training.snapshots.set(0, train({ action: 'snapshot', step: 0 }));
  $('gradient-choice').replaceChildren(...training.info.parameters.map(p =>
    el('option', { value: p.name }, `${p.name} ${shapeText(p.shape)}`)));
  const attention = training.info.parameters.find(p => p.name.endsWith('q_proj.weight'));
  if (attention) $('gradient-choice').value = attention.name;
  drawCharts();
  showKept(0);
  drawTrainStatus();
  showTapePane(false);  // it held the last model's tape
  const parameters = training.info.parameters.reduce((n, p) => n + p.shape.reduce((a, b) => a * b, 1), 0);
  $('status').textContent = `a new model from the flags: ${parameters} parameters, step 0`;
}

// The side pane in the Train view: the tape of a step, once one is opened, else a hint.
function showTapePane(opened) {
  training.tapeOpen = opened;
  $('tape-hint').hidden = opened;
  $('tape-pane').hidden = !opened;
}

// Updates until `until` (the run's end by default) or a pause, in slices of kFrameMs between frames.
async function trainTo(until) {
  if (training.running) return training.running;
  training.pause = false;
  training.running = (async () => {
    try {
      const end = Math.min(until ?? training.info.config.steps, training.info.config.steps);
      while (currentStep() < end && !training.pause) {
        const sliceStart = performance.now(), shownStep = lastKept();
        do {
          const [record] = train({ action: 'updates', count: 1 });
          training.records.push(record);
          const s = currentStep();
          if (s % training.keepEvery === 0 || s === training.info.config.steps) {
            train({ action: 'keep' });
            training.snapshots.set(s, train({ action: 'snapshot', step: s }));
          }
        } while (currentStep() < end && performance.now() - sliceStart < kFrameMs);
        if (currentStep() === training.info.config.steps)
          training.evals.push(train({ action: 'evaluate' }));
        const following = keptStep() === shownStep;  // the slider stays where the student put it
        drawCharts();
        drawTrainStatus();
        if (following) showKept(lastKept());
        await new Promise(resolve => setTimeout(resolve, kIdleMs));
      }
    } catch (error) {
      showError(error.message);
      throw error;
    } finally {
      training.running = null;
      drawTrainStatus();
    }
  })();
  return training.running;
}

const lastKept = () => Math.max(...training.snapshots.keys());

function drawTrainStatus() {
  const c = training.info.config, last = training.records.at(-1), ev = training.evals.at(-1);
  const ms = training.records.slice(-20).map(r => r.ms);
  const parts = [`step ${currentStep()} of ${c.steps}`];
  if (last) parts.push(`loss ${show(last.loss)}`, `${(ms.reduce((a, b) => a + b, 0) / ms.length).toFixed(1)} ms/step`);
  if (ev) parts.push(`validation: loss ${show(ev.loss)}, exact match ${(100 * ev.exact_match).toFixed(1)}%`);
  $('train-status').textContent = parts.join(' \u00b7 ');
  const busy = training.running !== null;
  $('train-run').disabled = busy || currentStep() === c.steps;
  $('train-step').disabled = busy || currentStep() === c.steps;
  $('train-pause').disabled = !busy;
}

// ---- what the page draws -------------------------------------------------------------------

function lineChart(canvas, yTitle) {
  return new Chart(canvas, {
    type: 'line',
    data: { datasets: [] },
    options: {
      animation: false, responsive: true, maintainAspectRatio: false, parsing: false, normalized: true,
      scales: { x: { type: 'linear', title: { display: true, text: 'step' } },
                y: { title: { display: true, text: yTitle } } },
      plugins: { legend: { labels: { boxWidth: 12 } } },
      elements: { point: { radius: 0 } },
    },
  });
}

function drawCharts() {
  training.chart ??= lineChart($('loss-chart'), 'cross entropy');
  training.chart.data.datasets = [
    { label: 'training loss', data: training.records.map(r => ({ x: r.step, y: r.loss })), borderColor: '#3f51b5',
      borderWidth: 1.5 },
    { label: 'validation loss', data: training.evals.map(e => ({ x: e.step, y: e.loss })), borderColor: '#c62828',
      showLine: false, pointRadius: 5, pointStyle: 'rectRot' },
  ];
  training.chart.update();
  // Example 0 over training: the probability the model gives each scored position's target.
  training.targetChart ??= lineChart($('target-chart'), 'p(target), example 0');
  const steps = [...training.snapshots.keys()].sort((a, b) => a - b);
  const first = training.snapshots.get(0).prediction;
  const scored = first.flatMap((p, i) => (p.target === null ? [] : [i]));
  const colours = ['#3f51b5', '#c62828', '#2e7d32', '#ef6c00', '#6a1b9a', '#00838f', '#5d4037', '#ad1457'];
  training.targetChart.data.datasets = scored.slice(0, 8).map((i, k) => ({
    label: `position ${i}: ${tokenLabel(first[i].target)}`, borderColor: colours[k % colours.length],
    borderWidth: 1.5,
    data: steps.map(s => ({ x: s, y: training.snapshots.get(s).prediction[i].p_target })),
  }));
  training.targetChart.options.scales.y.min = 0;
  training.targetChart.options.scales.y.max = 1;
  training.targetChart.update();
  const slider = $('kept-step');
  slider.max = String(steps.length - 1);
}

// The kept step the slider stands on.
function keptStep() {
  const steps = [...training.snapshots.keys()].sort((a, b) => a - b);
  return steps[Math.min(Number($('kept-step').value), steps.length - 1)];
}

function showKept(step) {
  const steps = [...training.snapshots.keys()].sort((a, b) => a - b);
  $('kept-step').max = String(steps.length - 1);
  $('kept-step').value = String(steps.indexOf(step));
  $('kept-step-shown').textContent = String(step);
  const snap = training.snapshots.get(step);
  drawPrediction(snap);
  drawAttention(snap);
  drawGradient(step);
}

// Example 0: each position's token, its target, the model's most likely class and the target's probability.
function drawPrediction(snap) {
  const rows = snap.prediction.map((p, i) => {
    const scored = p.target !== null, right = scored && p.predicted === p.target;
    return el('tr', { class: !scored ? 'unscored' : right ? 'right' : 'wrong' },
      el('td', {}, String(i)), el('td', {}, tokenLabel(p.token)),
      el('td', {}, scored ? tokenLabel(p.target) : '\u2014'),
      el('td', {}, tokenLabel(p.predicted)),
      el('td', {}, scored ? el('span', { class: 'bar', style: `width:${Math.round(60 * p.p_target)}px` }) : '',
         scored ? ' ' + p.p_target.toFixed(3) : ''));
  });
  const header = el('tr', {}, ...['pos', 'input', 'target', 'predicted', 'p(target)'].map(h => el('th', {}, h)));
  $('prediction').replaceChildren(
    el('p', { class: 'example-loss' }, `example 0 at step ${snap.step}: loss ${show(snap.loss)}`),
    el('table', { class: 'prediction' }, header, ...rows));
}

function drawAttention(snap) {
  const T = snap.tokens.length, NH = snap.attention.heads, tooltip = $('tooltip');
  $('train-attention').replaceChildren(...snap.attention.layers.map((weights, layer) => el('div', { class: 'layer' },
    el('div', { class: 'layer-name' }, `layer ${layer}`),
    ...Array.from({ length: NH }, (_, h) => {
      const canvas = el('canvas', { 'aria-label': `layer ${layer}, head ${h}` });
      drawHeatmap(canvas, snap.tokens, weights.slice(h * T * T, (h + 1) * T * T), tooltip);
      return el('figure', { class: 'head' }, el('figcaption', {}, `head ${h}`), canvas);
    }))));
}

function drawGradient(step) {
  const name = $('gradient-choice').value;
  if (!name) return;
  const { gradient } = train({ action: 'snapshot', step, gradient: name });
  const rows = gradient.shape.length > 1 ? gradient.shape.slice(0, -1).reduce((a, b) => a * b, 1) : 1;
  $('train-gradient').replaceChildren(
    el('p', { class: 'shape' }, `${gradientLabel(name)} ${shapeText(gradient.shape)} at step ${step}`),
    colourGrid(gradient.values, rows, gradient.shape.at(-1), `the gradient of ${name} at step ${step}`));
}

// Example 0's forward and backward at the slider's step, in the side pane's tape, graph and stepper.
function openTape() {
  const step = keptStep();
  page.rec = train({ action: 'record', step });
  page.step = 0;
  showTapePane(true);
  drawTape();
  drawGraph();
  drawStep();
  $('status').textContent = `example 0's tape at step ${step}: ${page.rec.entries.length} entries, loss ` +
                            show(number(page.rec.loss));
}

// ---- the two views -------------------------------------------------------------------------

function showMode(mode) {
  const lessons = mode === 'lessons';
  $('mode-lessons').setAttribute('aria-pressed', String(lessons));
  $('mode-train').setAttribute('aria-pressed', String(!lessons));
  $('lesson-controls').hidden = !lessons;
  $('lesson-pane').hidden = !lessons;
  $('train-pane').hidden = lessons;
  $('inputs-pane').hidden = !lessons;
  if (lessons) {
    run();  // the lesson, with the student's changes, back in the side pane
    $('tape-hint').hidden = true;
    $('tape-pane').hidden = false;
  } else {
    $('settings-pane').hidden = true;
    if (training.info === null) start(formFlags());
    if (training.tapeOpen) openTape();  // the lessons' view used the side pane
    else showTapePane(false);
  }
}

async function trainWith(options) {
  showMode('train');
  training.pause = true;
  await training.running;
  start(options);
  await trainTo();
  return training.records.map(r => r.loss);
}

ready.then(() => {
  drawForm();
  $('mode-lessons').addEventListener('click', () => showMode('lessons'));
  $('mode-train').addEventListener('click', () => showMode('train'));
  $('train-run').addEventListener('click', () => trainTo());
  $('train-step').addEventListener('click', () => trainTo(currentStep() + 1));
  $('train-pause').addEventListener('click', () => { training.pause = true; });
  $('train-reset').addEventListener('click', async () => {
    training.pause = true;
    await training.running;
    try {
      start(formFlags());
      showError(null);
    } catch (error) {
      showError(error.message);
    }
  });
  $('kept-step').addEventListener('input', () => showKept(keptStep()));
  $('gradient-choice').addEventListener('change', () => drawGradient(keptStep()));
  $('open-tape').addEventListener('click', openTape);
});

Object.assign(window.tapegrad, {
  train: trainWith,
  trainView: () => showMode('train'),
  kept: () => [...training.snapshots.keys()].sort((a, b) => a - b),
  lookAt: step => { showKept(step); return training.snapshots.get(step); },
  openTape: step => { showKept(step); openTape(); return page.rec.entries.length; },
  evaluation: () => training.evals.at(-1) ?? null,
  trainMs: () => training.records.reduce((sum, r) => sum + r.ms, 0) / training.records.length,
});
