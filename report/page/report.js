// report.js: draws report.html from the JSON in #report-data (report/report_page.h describes it):
// the training curves (Chart.js), a summary and the config of each run, and the attention
// heatmaps (heatmap.js). What it drew is left in window.tapegradReport for tests to read.
'use strict';

const report = JSON.parse(document.getElementById('report-data').textContent);
const palette = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2', '#17becf'];
const colourOf = (runIndex) => palette[runIndex % palette.length];
window.tapegradReport = { charts: {}, heatmaps: [] };

Chart.defaults.animation = false;
Chart.defaults.font.size = 13;
Chart.defaults.color = '#1f2328';

// {x: step, y: value} for every step; null values leave a gap.
function points(steps, values) {
  return steps.map((step, i) => ({ x: step, y: values[i] }));
}

function tokensPerSecond(train) {
  return train.tokens.map((tokens, i) => (tokens === null || !train.ms[i] ? null : tokens / (train.ms[i] / 1000)));
}

// One line per run and part (train: thin and solid; validation: dashed, with its points).
function series(run, runIndex, part, steps, values) {
  const validation = part === 'validation';
  return {
    label: report.runs.length > 1 ? `${run.name} \u00b7 ${part}` : part,
    data: points(steps, values),
    borderColor: colourOf(runIndex),
    backgroundColor: colourOf(runIndex),
    borderWidth: validation ? 2 : 1.25,
    borderDash: validation ? [6, 4] : [],
    pointRadius: validation ? 3 : 0,
    pointHoverRadius: 4,
    spanGaps: false,
  };
}

function lineChart(id, title, yTitle, datasets, yType = 'linear', yRange = {}) {
  const chart = new Chart(document.getElementById(id), {
    type: 'line',
    data: { datasets },
    options: {
      parsing: false,
      normalized: true,
      maintainAspectRatio: false,
      interaction: { mode: 'nearest', axis: 'x', intersect: false },
      scales: {
        x: { type: 'linear', min: 0, title: { display: true, text: 'step' } },
        y: { type: yType, title: { display: true, text: yTitle }, ...yRange },
      },
      plugins: {
        title: { display: true, text: title, font: { size: 15, weight: '600' } },
        legend: { labels: { boxWidth: 24, boxHeight: 2 } },
        decimation: { enabled: true, algorithm: 'lttb', samples: 1000 },  // long runs
      },
    },
  });
  window.tapegradReport.charts[id] = chart;
  return chart;
}

function drawCharts() {
  const both = (key) => report.runs.flatMap((run, r) => [
    series(run, r, 'train', run.train.step, run.train[key]),
    series(run, r, 'validation', run.eval.step, run.eval[key]),
  ]);
  const trainOnly = (values) => report.runs.map((run, r) => series(run, r, 'train', run.train.step, values(run)));
  lineChart('chart-loss', 'Loss (cross entropy per token)', 'loss (log scale)', both('loss'), 'logarithmic');
  lineChart('chart-token-acc', 'Token accuracy', 'accuracy', both('token_acc'), 'linear', { max: 1 });
  lineChart('chart-exact-match', 'Exact match (whole sequence right)', 'exact match',
            report.runs.map((run, r) => series(run, r, 'validation', run.eval.step, run.eval.exact_match)),
            'linear', { min: 0, max: 1 });
  // Language models: bits per byte compare runs whose tokens differ (characters, BPE).
  if (report.runs.some((run) => run.eval.bits_per_byte.some((x) => x !== null))) {
    document.getElementById('chart-bits-per-byte').parentElement.hidden = false;
    lineChart('chart-bits-per-byte', 'Bits per byte of text (validation)', 'bits per byte',
              report.runs.map((run, r) => series(run, r, 'validation', run.eval.step, run.eval.bits_per_byte)),
              'linear', { min: 0 });
  }
  lineChart('chart-lr', 'Learning rate', 'learning rate', trainOnly((run) => run.train.lr));
  lineChart('chart-grad-norm', 'Gradient norm (before clipping)', 'norm (log scale)',
            trainOnly((run) => run.train.grad_norm), 'logarithmic');
  lineChart('chart-tokens-per-s', 'Training speed', 'tokens / s', trainOnly((run) => tokensPerSecond(run.train)), 'linear', { min: 0 });
}

function cell(row, text, className) {
  const td = row.insertCell();
  td.textContent = text;
  if (className) td.className = className;
  return td;
}

function headerRow(table, names) {
  const row = table.createTHead().insertRow();
  for (const name of names) row.appendChild(document.createElement('th')).textContent = name;
}

function runNameCell(row, run, r) {
  const td = cell(row, '');
  const swatch = td.appendChild(document.createElement('span'));
  swatch.className = 'swatch';
  swatch.style.background = colourOf(r);
  td.appendChild(document.createTextNode(run.name));
}

const last = (values) => (values.length ? values[values.length - 1] : null);
const fixed = (x, digits) => (x === null || x === undefined ? '-' : x.toFixed(digits));

function drawSummary() {
  const table = document.getElementById('summary');
  headerRow(table, ['run', 'steps', 'last evaluation', 'validation loss', 'token accuracy', 'exact match',
                    'tokens/s (mean)', 'training time']);
  const body = table.createTBody();
  report.runs.forEach((run, r) => {
    const row = body.insertRow();
    runNameCell(row, run, r);
    const ms = run.train.ms.reduce((a, b) => a + (b || 0), 0);
    const tokens = run.train.tokens.reduce((a, b) => a + (b || 0), 0);
    cell(row, String(last(run.train.step) ?? 0), 'number');
    cell(row, last(run.eval.step) === null ? '-' : `step ${last(run.eval.step)}`, 'number');
    cell(row, fixed(last(run.eval.loss), 4), 'number');
    cell(row, fixed(last(run.eval.token_acc), 4), 'number');
    cell(row, fixed(last(run.eval.exact_match), 4), 'number');
    cell(row, ms > 0 ? Math.round(tokens / (ms / 1000)).toLocaleString('en') : '-', 'number');
    cell(row, `${(ms / 1000).toFixed(1)} s`, 'number');
  });
  const steps = report.runs.map((run) => last(run.train.step) ?? 0);
  document.getElementById('subtitle').textContent = report.runs.length > 1
    ? `${report.runs.length} runs compared: ${report.runs.map((run) => run.name).join(', ')}`
    : `${steps[0]} steps; written at every evaluation`;
}

function drawConfig() {
  const table = document.getElementById('config');
  const runs = report.runs.filter((run) => run.config);
  if (!runs.length) {
    table.replaceWith(Object.assign(document.createElement('p'), { textContent: 'No config (no checkpoint).' }));
    return;
  }
  headerRow(table, ['field', ...runs.map((run) => run.name)]);
  const fields = [...new Set(runs.flatMap((run) => Object.keys(run.config)))];
  const body = table.createTBody();
  for (const field of fields) {
    const values = runs.map((run) => (field in run.config ? JSON.stringify(run.config[field]) : '-'));
    const row = body.insertRow();
    if (new Set(values).size > 1) row.className = 'differs';
    cell(row, field);
    for (const value of values) cell(row, value);
  }
}

function drawAttention() {
  const section = document.getElementById('attention');
  const tooltip = document.getElementById('tooltip');
  report.runs.forEach((run, r) => {
    const heading = section.appendChild(document.createElement('h3'));
    heading.textContent = run.attention
      ? `${run.name}: validation example ${run.attention.example} at step ${run.attention.step}`
      : `${run.name}: no attention maps (${run.no_attention})`;
    if (!run.attention) return;
    const { tokens, heads, layers } = run.attention;
    const T = tokens.length;
    const scale = section.appendChild(document.createElement('div'));
    scale.className = 'scale';
    scale.append('weight 0');
    drawHeatmapScale(scale.appendChild(Object.assign(document.createElement('canvas'), { width: 160, height: 12 })));
    scale.append(`1 \u00b7 tokens: ${tokens.map(tokenLabel).join(' ')}`);
    layers.forEach((weights, layer) => {
      const row = section.appendChild(document.createElement('div'));
      row.className = 'heatmaps layer-row';
      for (let head = 0; head < heads; head++) {
        const figure = row.appendChild(document.createElement('figure'));
        const canvas = figure.appendChild(document.createElement('canvas'));
        canvas.className = 'heatmap';
        canvas.setAttribute('role', 'img');
        canvas.setAttribute('aria-label', `${run.name}, layer ${layer}, head ${head}`);  // numbered from 0, as the explorer
        const map = weights.slice(head * T * T, (head + 1) * T * T);
        drawHeatmap(canvas, tokens, map, tooltip);
        figure.appendChild(document.createElement('figcaption')).textContent = `layer ${layer}, head ${head}`;
        window.tapegradReport.heatmaps.push({ run: r, layer, head, tokens, canvas });
      }
    });
  });
}

drawCharts();
drawSummary();
drawConfig();
drawAttention();
window.tapegradReport.complete = true;
