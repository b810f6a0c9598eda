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

// The labels a lesson gave the rows and columns of the tensor named `name` (its tokens, say:
// explore/lesson_log.h, "axis_labels"), each kept where its length is the axis's: {rows, cols}.
function axisLabels(rec, name, summary) {
  const given = rec.axis_labels?.[name];
  const fits = (labels, n) => (summary.exact && labels?.length === n ? labels : undefined);
  return { rows: fits(given?.rows, summary.rows), cols: fits(given?.cols, summary.cols) };
}

// ---- the tape grouped by module ------------------------------------------------------------
// The recording lists the module groups (explore/recording.h: "groups", made by
// explore/module_groups.h, the one place the rule lives): each a range of tape positions, nested,
// outermost first within each run. Entries made outside every module (a lesson's, the loss) stay
// at the top level.

// Fills the list `root` with makeRow(entry) (an <li>) for each entry, in order, inside its
// groups: <li class="group"><details open><summary>name #first–#last</summary><ol>; then calls
// decorate(summary, positions: the group's entries') for each group, when given.
function fillGroupedTape(root, entries, groups, makeRow, decorate = null) {
  const open = [{ list: root, last: Infinity }];  // the groups that hold the last entry, outermost first
  let next = 0;
  for (const e of entries) {
    while (e.position > open.at(-1).last) open.pop();
    for (; next < groups.length && groups[next].first === e.position; ++next) {
      const g = groups[next], list = document.createElement('ol'), details = document.createElement('details');
      const summary = document.createElement('summary'), item = document.createElement('li');
      const range = document.createElement('span');
      range.className = 'range';
      range.textContent = ` #${g.first}\u2013#${g.last}`;
      summary.append(g.name, range);
      details.open = true;
      details.append(summary, list);
      item.className = 'group';
      item.append(details);
      open.at(-1).list.append(item);
      open.push({ list, last: g.last });
      if (decorate) decorate(summary, entries.map(x => x.position).filter(p => p >= g.first && p <= g.last));
    }
    open.at(-1).list.append(makeRow(e));
  }
}

// Opens every group that holds `row`, so that it can be seen.
function openGroupsOf(row) {
  for (let d = row.parentNode.closest('details'); d !== null; d = d.parentNode.closest('details')) d.open = true;
}
