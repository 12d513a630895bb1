"""The sortable tables of our pages (the leaderboard's page and the report and compare pages), one
script for all: every `table.sortable` gets a button in each header, so a click, Enter or Space
sorts by that column (numbers by value, empty cells last), a second one reverses;
`#sort=<table id>:<column index>[:desc]` opens the page sorted. A cell's `data-sort` attribute, when
it has one, is what it sorts by (an interval's value, not its text); otherwise its text, read as a
number where it starts with one.
"""

SORTABLE_STYLE = """
table.sortable th { background: #eef2f7; }
table.sortable th button { all: inherit; cursor: pointer; padding: 0; border: 0; }
table.sortable th button:focus-visible { outline: 2px solid #2166ac; outline-offset: 2px; }
th[aria-sort="ascending"] button::after { content: " \\25B2"; }
th[aria-sort="descending"] button::after { content: " \\25BC"; }
"""

SORTABLE_SCRIPT = """
(function () {
  function sortKey(cell) {
    if (!cell) return null;
    var raw = cell.getAttribute("data-sort");
    if (raw === null) raw = cell.textContent.trim();
    if (raw === "" || raw === "n/a") return null;
    var number = parseFloat(raw.replace(/^[^-+0-9.]*/, ""));
    return isNaN(number) ? raw.toLowerCase() : number;
  }
  function sortTable(table, column, descending) {
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = sortKey(a.cells[column]), y = sortKey(b.cells[column]);
      if (x === null || y === null) return (x === null) - (y === null);
      if (typeof x !== typeof y) return typeof x === "number" ? -1 : 1;
      var order = x < y ? -1 : x > y ? 1 : 0;
      return descending ? -order : order;
    });
    rows.forEach(function (row) { body.appendChild(row); });
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (header, index) {
      if (index === column) header.setAttribute("aria-sort", descending ? "descending" : "ascending");
      else header.removeAttribute("aria-sort");
    });
  }
  document.querySelectorAll("table.sortable").forEach(function (table) {
    if (!table.tHead || !table.tBodies.length) return;
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (header, column) {
      var button = document.createElement("button");
      button.type = "button";
      button.title = "sort by this column";
      while (header.firstChild) button.appendChild(header.firstChild);
      header.appendChild(button);
      button.addEventListener("click", function () {
        sortTable(table, column, header.getAttribute("aria-sort") === "ascending");
      });
    });
  });
  var wanted = /^#sort=([\\w-]+):(\\d+)(:desc)?$/.exec(window.location.hash);
  var target = wanted && document.getElementById(wanted[1]);
  if (target) sortTable(target, Number(wanted[2]), Boolean(wanted[3]));
})();
"""
