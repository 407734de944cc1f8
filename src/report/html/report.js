// report.html's only script: sorts tables by a header click, filters the full table by status,
// color and a search. Without it the page shows every row, unsorted and unfiltered.
(function () {
  'use strict';
  var each = function (list, f) { Array.prototype.forEach.call(list, f); };
  var collator = new Intl.Collator(undefined, { numeric: true, sensitivity: 'base' });
  var key = function (td) {
    return td ? (td.getAttribute('data-sort') || td.textContent.trim()) : '';
  };

  function sort(table, column, th) {
    var ascending = th.getAttribute('aria-sort') !== 'ascending';
    each(table.tHead.rows[0].cells, function (c) { c.setAttribute('aria-sort', 'none'); });
    th.setAttribute('aria-sort', ascending ? 'ascending' : 'descending');
    var body = table.tBodies[0];
    var rows = Array.prototype.map.call(body.rows, function (r, n) {
      return [key(r.cells[column]), n, r];
    });
    rows.sort(function (a, b) {
      return (ascending ? 1 : -1) * collator.compare(a[0], b[0]) || a[1] - b[1];
    });
    var sorted = document.createDocumentFragment();
    rows.forEach(function (r) { sorted.appendChild(r[2]); });
    body.appendChild(sorted);
  }

  each(document.querySelectorAll('table.sortable'), function (table) {
    each(table.tHead.rows[0].cells, function (th, column) {
      var button = document.createElement('button');
      button.type = 'button';
      button.textContent = th.textContent;
      button.title = 'Sort by ' + th.textContent;
      th.textContent = '';
      th.appendChild(button);
      th.setAttribute('aria-sort', 'none');
      button.addEventListener('click', function () { sort(table, column, th); });
    });
  });

  var table = document.getElementById('rows-table');
  var controls = document.getElementById('controls');
  if (!table || !controls) return;
  var search = document.getElementById('q');
  var status = document.getElementById('f-status');
  var color = document.getElementById('f-color');
  var shown = document.getElementById('shown');
  var rows = Array.prototype.slice.call(table.tBodies[0].rows);
  var texts = rows.map(function (r) { return r.textContent.toLowerCase(); });

  function apply() {
    var needle = search.value.trim().toLowerCase();
    var s = status.value, c = color.value, n = 0;
    rows.forEach(function (r, i) {
      var keep = (!s || r.getAttribute('data-status') === s) &&
        (!c || r.getAttribute('data-color') === c) &&
        (!needle || texts[i].indexOf(needle) !== -1);
      r.hidden = !keep;
      if (keep) n++;
    });
    shown.textContent = n + ' of ' + rows.length + ' rows shown';
  }

  [search, status, color].forEach(function (e) { e.addEventListener('input', apply); });
  controls.hidden = false;
  apply();
})();
