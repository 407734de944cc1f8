// report.html's only script. It sorts the alert and review tables by a header click, and
// builds the table of every row from the rows' data (#rows-data: tab-separated lines,
// gzip, base64; see rows_data.rs): a search and filters over every row, showing the first
// matches a page at a time. Values are only ever set as text, never as markup. Without the
// script the alerts and the rows to review are plain tables, and every row is in report.csv.
// It speaks English; a page in another language gives it its words (#words, JSON in
// `data-words`), while the rows' data keeps the values programs read (`red`, `unresolved`),
// which it filters and sorts on.
(function () {
  'use strict';
  var PAGE = 200;
  var each = function (list, f) { Array.prototype.forEach.call(list, f); };
  var collator = new Intl.Collator(undefined, { numeric: true, sensitivity: 'base' });
  var lang = document.documentElement.lang || 'en';
  var wordsBlock = document.getElementById('words');
  var W = wordsBlock ? JSON.parse(wordsBlock.getAttribute('data-words')) : null;
  var plurals = W && window.Intl && Intl.PluralRules ? new Intl.PluralRules(lang) : null;
  // The page's word for `key`, else the script's own English.
  var say = function (key, english) { return W && W[key] !== undefined ? W[key] : english; };
  // A value of the data (`red`) in the page's words.
  var named = function (group, value) { return (W && W[group][value]) || value; };
  // A text of the words with its numbers put in: `{n} lignes`.
  var filled = function (text, values) {
    return text.replace(/\{(\w)\}/g, function (all, k) { return values[k]; });
  };
  // The form of a count's text for `count`: `1 ligne`, `3 lignes`.
  var counted = function (forms, count, values) {
    return filled(forms[plurals ? plurals.select(count) : 'other'] || forms.other, values);
  };
  var number = function (n) { return n.toLocaleString(lang); };
  var key = function (td) {
    return td ? (td.getAttribute('data-sort') || td.textContent.trim()) : '';
  };

  // A header turned into a button that calls `click` with the header cell.
  function sortButton(th, click) {
    var button = document.createElement('button');
    button.type = 'button';
    button.textContent = th.textContent;
    button.title = say('sortBy', 'Sort by') + ' ' + th.textContent;
    th.textContent = '';
    th.appendChild(button);
    th.setAttribute('aria-sort', 'none');
    button.addEventListener('click', function () { click(th); });
  }

  // The next order of a column: ascending first, then descending, each header alone.
  function toggle(table, th) {
    var ascending = th.getAttribute('aria-sort') !== 'ascending';
    each(table.tHead.rows[0].cells, function (c) { c.setAttribute('aria-sort', 'none'); });
    th.setAttribute('aria-sort', ascending ? 'ascending' : 'descending');
    return ascending;
  }

  function sortRows(table, column, th) {
    var ascending = toggle(table, th);
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
      sortButton(th, function () { sortRows(table, column, th); });
    });
  });

  var block = document.getElementById('rows-data');
  var table = document.getElementById('rows-table');
  var controls = document.getElementById('controls');
  var shown = document.getElementById('shown');
  var more = document.getElementById('more');
  if (!block || !table || !controls) return;
  if (!window.DecompressionStream || !window.Response || !window.Blob) {
    shown.textContent = say('noBrowser', 'This browser cannot show the table of every row: every row is in report.csv.');
    return;
  }
  shown.textContent = say('reading', 'Reading the rows…');

  function bytes(text) {
    if (Uint8Array.fromBase64) return Uint8Array.fromBase64(text);
    var binary = atob(text);
    var out = new Uint8Array(binary.length);
    for (var i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
    return out;
  }

  var data = bytes(block.textContent.trim());
  var stream = new Blob([data]).stream().pipeThrough(new DecompressionStream('gzip'));
  new Response(stream).text().then(start, function () {
    shown.textContent = say('unreadable', 'The table of every row could not be read here: every row is in report.csv.');
  });

  var COLORS = { green: 'c-green', yellow: 'c-yellow', red: 'c-red', black: 'c-black', white: 'c-white' };
  var STATUSES = ['rated', 'unresolved', 'ambiguous', 'invalid', 'failed', 'ignored'];
  var RISK = { green: 0, yellow: 1, red: 2, black: 3, white: 4 };

  function start(text) {
    var end = text.indexOf('\n');
    var names = text.slice(0, end).split('\t');
    var at = {};
    names.forEach(function (n, i) { at[n] = i; });
    var body = text.slice(end + 1);
    var lines = body.split('\n');
    lines.pop();
    var n = lines.length;
    // Where each line starts in `body`, so a match found in the whole text names its row.
    var starts = new Float64Array(n + 1);
    for (var i = 0; i < n; i++) starts[i + 1] = starts[i] + lines[i].length + 1;
    var lower = body.toLowerCase();
    if (lower.length !== body.length) lower = null;
    // The fields the filters read, once per row.
    var statusOf = new Array(n), colorOf = new Array(n), alertOf = new Array(n);
    for (i = 0; i < n; i++) {
      var f = lines[i].split('\t');
      statusOf[i] = f[at.status];
      colorOf[i] = f[at.color];
      alertOf[i] = f[at.alert];
    }
    var search = document.getElementById('q');
    var status = document.getElementById('f-status');
    var color = document.getElementById('f-color');
    var alert = document.getElementById('f-alert');
    var tbody = table.tBodies[0];
    var matches = [], done = 0, order = null;

    // The row holding offset `at` of `body`.
    function rowAt(offset) {
      var lo = 0, hi = n - 1;
      while (lo < hi) {
        var mid = (lo + hi + 1) >> 1;
        if (starts[mid] <= offset) lo = mid; else hi = mid - 1;
      }
      return lo;
    }

    // The rows whose text holds `needle` (lowercase), in order.
    function found(needle) {
      var rows = [], i;
      if (lower !== null) {
        var from = 0, hit;
        while ((hit = lower.indexOf(needle, from)) !== -1) {
          var row = rowAt(hit);
          rows.push(row);
          from = starts[row + 1];
        }
      } else {
        for (i = 0; i < n; i++) if (lines[i].toLowerCase().indexOf(needle) !== -1) rows.push(i);
      }
      return rows;
    }

    function keep(i) {
      var s = status.value, c = color.value, a = alert.value;
      return (!s || statusOf[i] === s) && (!c || colorOf[i] === c) &&
        (!a || (a === '*' ? alertOf[i] !== '' : alertOf[i] === a));
    }

    function sortKey(field, i) {
      var v = lines[i].split('\t')[at[field]];
      if (field === 'line') return Number(v);
      if (field === 'color') return v in RISK ? RISK[v] : (v ? 5 : 6);
      return v.toLowerCase();
    }

    function apply() {
      var needle = search.value.trim().toLowerCase();
      var rows = needle ? found(needle) : null;
      matches = [];
      var count = rows ? rows.length : n;
      for (var k = 0; k < count; k++) {
        var i = rows ? rows[k] : k;
        if (keep(i)) matches.push(i);
      }
      if (order) {
        var keys = new Array(n);
        matches.forEach(function (i) { keys[i] = sortKey(order.field, i); });
        var small = matches.length <= 100000;
        matches.sort(function (a, b) {
          var x = keys[a], y = keys[b];
          var c = typeof x === 'number' ? x - y : (small ? collator.compare(x, y) : (x < y ? -1 : x > y ? 1 : 0));
          return (order.ascending ? c : -c) || a - b;
        });
      }
      tbody.textContent = '';
      done = 0;
      page();
    }

    function page() {
      var rows = document.createDocumentFragment();
      var last = Math.min(done + PAGE, matches.length);
      for (; done < last; done++) rows.appendChild(render(matches[done]));
      tbody.appendChild(rows);
      var all = matches.length === n;
      var next = Math.min(PAGE, matches.length - done);
      if (W) {
        var values = { m: number(matches.length), n: number(n) };
        shown.textContent = (all ? counted(W.rows, n, { n: number(n) }) : counted(W.match, n, values)) +
          (done < matches.length ? ' ' + filled(W.firstShown, { n: number(done) }) : '');
        more.textContent = filled(W.showMore, { n: number(next) });
      } else {
        shown.textContent = matches.length.toLocaleString('en') + (all ? ' rows' : ' of ' + n.toLocaleString('en') + ' rows match') +
          (done < matches.length ? ' · the first ' + done.toLocaleString('en') + ' shown' : '');
        more.textContent = 'Show ' + next + ' more';
      }
      more.hidden = done >= matches.length;
    }

    function cell(tr, value, label, className) {
      var td = document.createElement('td');
      if (label) td.setAttribute('data-label', label);
      if (className) td.className = className;
      if (value !== undefined) td.textContent = value;
      tr.appendChild(td);
      return td;
    }

    function badge(td, name) {
      var span = document.createElement('span');
      span.className = 'badge ' + (COLORS[name] || 'c-other');
      span.textContent = named('colors', name);
      td.appendChild(span);
    }

    function render(i) {
      var f = lines[i].split('\t');
      var get = function (name) { return f[at[name]] || ''; };
      var label = function (key, english) { return W ? W.labels[key] : english; };
      var tr = document.createElement('tr');
      tr.className = (get('alert') ? 'alert' : '') + (get('stale') ? ' stale' : '');
      cell(tr, get('line'));
      cell(tr, get('ref'), label('ref', 'Ref'), 'ref');
      cell(tr, get('country'), label('country', 'Country'));
      cell(tr, [get('searched'), get('name')].filter(Boolean).join(' · '), label('searched', 'Searched'));
      var st = cell(tr, undefined, label('status', 'Status'));
      var s = document.createElement('span');
      s.className = 'status' + (STATUSES.indexOf(get('status')) !== -1 ? ' s-' + get('status') : '');
      s.textContent = named('statuses', get('status'));
      st.appendChild(s);
      cell(tr, get('company'), label('company', 'Company'), 'company');
      var c = cell(tr, undefined, label('color', 'Color'), 'color');
      if (get('before')) {
        badge(c, get('before'));
        var arrow = document.createElement('span');
        arrow.className = 'arrow';
        arrow.setAttribute('aria-label', say('became', 'became'));
        arrow.textContent = '→';
        c.appendChild(document.createTextNode(' '));
        c.appendChild(arrow);
        c.appendChild(document.createTextNode(' '));
      }
      if (get('color')) badge(c, get('color'));
      cell(tr, named('changes', get('change')) + (get('alert') === 'acknowledged' ? ' · ' + say('acknowledged', 'acknowledged') : ''), label('change', 'Change'));
      var since = get('since');
      if (W && since) {
        var ymd = since.split('-');
        since = filled(W.day, { y: ymd[0], m: ymd[1], d: ymd[2] });
      }
      var d = cell(tr, since, label('since', 'Color since'), 'date');
      if (get('stale')) {
        var tag = document.createElement('span');
        tag.className = 'stale-tag';
        tag.textContent = say('stale', 'stale');
        d.appendChild(document.createTextNode(' '));
        d.appendChild(tag);
      }
      cell(tr, get('error'), label('details', 'Details'), 'details');
      return tr;
    }

    each(table.tHead.rows[0].cells, function (th) {
      sortButton(th, function () {
        var ascending = toggle(table, th);
        order = { field: th.getAttribute('data-key'), ascending: ascending };
        apply();
      });
    });
    var pending = 0;
    search.addEventListener('input', function () {
      if (n <= 200000) return apply();
      // A million rows: wait for a pause in the typing.
      clearTimeout(pending);
      pending = setTimeout(apply, 250);
    });
    [status, color, alert].forEach(function (e) { e.addEventListener('input', apply); });
    more.addEventListener('click', page);
    controls.hidden = false;
    document.getElementById('rows-scroll').hidden = false;
    apply();
    table.setAttribute('data-ready', n);
    document.dispatchEvent(new Event('rows-ready'));
  }
})();
