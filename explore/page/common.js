// common.js: what the explorer's page (explore/page/) and the lab's (lab/page/) share: the
// diverging colour scale of their tensors, and a model's tape as nested, collapsible groups, one
// per module that made its entries (layer -> attention -> projection -> op).
'use strict';

// Diverging colours around 0, scaled by the largest magnitude: blue < 0 < red; -inf (a masked
// score) dark grey, NaN magenta.
function colour(x, scale) {
  if (Number.isNaN(x)) return 'rgb(216,27,96)';
  if (!Number.isFinite(x)) return x < 0 ? 'rgb(82,96,109)' : 'rgb(123,31,162)';
  const t = scale > 0 ? Math.max(-1, Math.min(1, x / scale)) : 0;
  const [r, g, b] = t >= 0 ? [178, 24, 43] : [33, 102, 172];
  const mix = c => Math.round(255 + (c - 255) * Math.abs(t));
  return `rgb(${mix(r)},${mix(g)},${mix(b)})`;
}

// ---- the tape grouped by module ------------------------------------------------------------
// Each entry knows its module's dotted path (explore/recording.h: "module"); entries made outside
// every module (a lesson's, the loss) stay at the top level.

// A module path's levels, one group each: "encoder.layers.0.self_attn.q_proj" ->
// ["encoder", "layers.0", "self_attn", "q_proj"] (a list's index stays with the list's name).
function moduleLevels(path) {
  const levels = [];
  for (const part of path ? path.split('.') : []) {
    if (/^\d+$/.test(part) && levels.length > 0) levels[levels.length - 1] += '.' + part;
    else levels.push(part);
  }
  return levels;
}

// Fills the list `root` with makeRow(entry) (an <li>) for each entry, in order, inside the groups
// of its module: <li class="group"><details open><summary>name #first–#last</summary><ol>; then
// calls decorate(summary, positions) for each group, when given.
function fillGroupedTape(root, entries, makeRow, decorate = null) {
  const open = [{ list: root, name: null, rows: [] }];  // the groups the last entry was in, outermost first
  const groups = [];
  for (const e of entries) {
    const levels = moduleLevels(e.module);
    let same = 0;
    while (same < levels.length && same + 1 < open.length && open[same + 1].name === levels[same]) ++same;
    open.length = same + 1;
    for (const name of levels.slice(same)) {
      const list = document.createElement('ol'), details = document.createElement('details');
      const summary = document.createElement('summary'), item = document.createElement('li');
      summary.textContent = name;
      details.open = true;
      details.append(summary, list);
      item.className = 'group';
      item.append(details);
      open.at(-1).list.append(item);
      const group = { list, name, summary, positions: [] };
      open.push(group);
      groups.push(group);
    }
    open.at(-1).list.append(makeRow(e));
    for (const group of open.slice(1)) group.positions.push(e.position);
  }
  for (const g of groups) {
    const span = document.createElement('span');
    span.className = 'range';
    span.textContent = ` #${g.positions[0]}\u2013#${g.positions.at(-1)}`;
    g.summary.append(span);
    if (decorate) decorate(g.summary, g.positions);
  }
}

// Opens every group that holds `row`, so that it can be seen.
function openGroupsOf(row) {
  for (let d = row.parentNode.closest('details'); d !== null; d = d.parentNode.closest('details')) d.open = true;
}
