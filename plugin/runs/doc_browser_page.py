"""The doc browser's part of the report page: filters that combine (task, instrument, stereotype,
reading, reason, ... and a labelled search box), one card per doc (the prompt as sent, the raw
answer with the reader's deciding words marked, the reading), drawn a page at a time. The rows
come compressed in parts (plugin/runs/doc_browser.py) that the script decodes with the browser's own
DecompressionStream, one after another: the first part's cards are drawn at once, the filters and
the search take in each further part as it arrives.

The filter state lives in the URL, both ways: `#docs?task=...&reason=read&q=she&show=200` opens the
browser so filtered (the first 200 cards shown), and every change rewrites the address. The script
writes every string of the run with `textContent` (or as text nodes around <mark>), never as markup.
When the first cards are on screen it sets `data-first-rows` (milliseconds since the page started
loading) on the body; the benchmark reads it.
"""

from __future__ import annotations

import json

from symphony_bench.plugin.runs.doc_browser import encoded_parts

DOC_STYLE = """
#doc-filters { display: flex; flex-wrap: wrap; gap: 0.4em 1em; align-items: end; margin: 0.5em 0; }
#doc-filters label { display: flex; flex-direction: column; font-size: 12px; color: #444; }
#doc-filters select, #doc-filters input { font: inherit; max-width: 16em; }
.doc { border: 1px solid #ccc; border-radius: 4px; margin: 0.6em 0; padding: 0.4em 0.6em; }
.doc header { font-size: 13px; color: #333; margin-bottom: 0.3em; display: flex; flex-wrap: wrap;
  gap: 0 0.8em; }
.doc header .field { white-space: nowrap; }
.doc header .field.long { white-space: normal; overflow-wrap: anywhere; }
.doc-body { display: grid; grid-template-columns: minmax(0, 2fr) minmax(0, 2fr) minmax(0, 1fr);
  gap: 0.6em; }
.doc h3 { font-size: 12px; margin: 0 0 0.2em; color: #555; font-weight: 600; }
.doc pre { white-space: pre-wrap; overflow-wrap: anywhere; margin: 0; font-size: 12px;
  background: #f7f7f7; padding: 0.3em; max-height: 16em; overflow: auto; }
.doc mark { background: #ffe08a; font-weight: 600; }
.reason { color: #a40000; font-weight: 600; }
.read { color: #1a6b1a; }
@media (max-width: 800px) { .doc-body { grid-template-columns: minmax(0, 1fr); } }
"""

DOC_SCRIPT = """
(function () {
  var meta = document.getElementById("doc-meta");
  if (!meta) return;
  var PAGE = 50;
  var parts = Array.prototype.slice.call(document.querySelectorAll("script.doc-part"));
  start(JSON.parse(meta.textContent));

  function decode(text) {
    var binary = atob(text.trim()), bytes = new Uint8Array(binary.length);
    for (var i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    return new Response(stream).text().then(JSON.parse);
  }

  function start(data) {
    var rows = [], shown = PAGE, matching = [], loaded = 0;
    var controls = document.getElementById("doc-filters"), selects = {};
    Object.keys(data.filters).forEach(function (name) {
      var label = document.createElement("label");
      label.textContent = name;
      var select = document.createElement("select");
      select.name = name;
      var all = document.createElement("option");
      all.value = ""; all.textContent = "(all)";
      select.appendChild(all);
      data.filters[name].forEach(function (v) {
        var option = document.createElement("option");
        option.value = v; option.textContent = v === "" ? "(none)" : v;
        select.appendChild(option);
      });
      select.addEventListener("change", changed);
      selects[name] = select;
      label.appendChild(select);
      controls.appendChild(label);
    });
    var searchLabel = document.createElement("label");
    searchLabel.textContent = "search prompt, answer and reading";
    var search = document.createElement("input");
    search.type = "search"; search.id = "doc-search"; search.name = "q";
    search.addEventListener("input", changed);
    searchLabel.appendChild(search);
    controls.appendChild(searchLabel);
    document.getElementById("doc-more").addEventListener("click", function () {
      shown += PAGE; toAddress(); render();
    });
    window.addEventListener("hashchange", function () { if (fromAddress()) filter(); });
    var wanted = fromAddress();
    next();

    // the parts one after another: the first drawn at once, the others added as they decode
    function next() {
      if (loaded === parts.length) { render(); return; }
      decode(parts[loaded].textContent).then(function (part) {
        part.forEach(function (row) { rows.push(row); });
        loaded += 1;
        if (loaded === 1) {
          filter();
          if (wanted) document.getElementById("docs").scrollIntoView();
          document.body.setAttribute("data-first-rows", String(Math.round(performance.now())));
        } else if (active() || matching.length < shown) filter();
        else render();
        setTimeout(next, 0);
      }).catch(function (error) {
        document.getElementById("doc-count").textContent = "the docs could not be decoded: " + error;
      });
    }
    function active() {
      return search.value !== "" || Object.keys(selects).some(function (name) {
        return selects[name].value !== "";
      });
    }
    function value(row, name) {
      if (name === "task") return row.task;
      if (name === "reason") return row.reason || "read";
      if (name === "reading") return row.read;
      var v = row.fields[name];
      return v === undefined || v === null ? "" : String(v);
    }
    function fromAddress() {
      var found = /^#docs\\?(.*)$/.exec(window.location.hash);
      if (!found) return false;
      var params = new URLSearchParams(found[1]);
      Object.keys(selects).forEach(function (name) { selects[name].value = params.get(name) || ""; });
      search.value = params.get("q") || "";
      shown = Math.max(PAGE, parseInt(params.get("show"), 10) || PAGE);
      return true;
    }
    function toAddress() {
      var params = new URLSearchParams();
      Object.keys(selects).forEach(function (name) {
        if (selects[name].value !== "") params.set(name, selects[name].value);
      });
      if (search.value) params.set("q", search.value);
      if (shown > PAGE) params.set("show", String(shown));
      history.replaceState(null, "", "#docs?" + params.toString());
    }
    function changed() { shown = PAGE; toAddress(); filter(); }
    function filter() {
      var needle = search.value.toLowerCase(), chosen = [];
      Object.keys(selects).forEach(function (name) {
        if (selects[name].value !== "") chosen.push([name, selects[name].value]);
      });
      matching = rows.filter(function (row) {
        for (var i = 0; i < chosen.length; i++) {
          if (value(row, chosen[i][0]) !== chosen[i][1]) return false;
        }
        return !needle || text(row).indexOf(needle) >= 0;
      });
      render();
    }
    function text(row) {
      if (row.text === undefined) {
        row.text = (row.prompt + "\\n" + row.answer + "\\n" + readingText(row.reading)).toLowerCase();
      }
      return row.text;
    }
    // the reading's fields in words, one "name: value" line each, as doc_browser.reading_text writes them
    function readingText(reading) {
      return Object.keys(reading).map(function (name) {
        var v = reading[name];
        if (v === null || v === "" || (typeof v === "object" && Object.keys(v).length === 0)) return "";
        if (name === "scores" && Array.isArray(v) && v.length === 3) {
          var shown = v.map(function (x) { return Number.isInteger(x) ? String(x) : x.toFixed(3); });
          return "scores: male " + shown[0] + ", female " + shown[1] + ", non-binary " + shown[2];
        }
        if (Array.isArray(v)) return name + ": " + v.join(", ");
        if (typeof v === "object") {
          return name + ": " + Object.keys(v).map(function (k) { return k + " " + v[k]; }).join(", ");
        }
        return name + ": " + v;
      }).filter(Boolean).join("\\n");
    }
    function block(parent, title, className) {
      var part = document.createElement("section");
      var heading = document.createElement("h3");
      heading.textContent = title;
      var text = document.createElement("pre");
      text.className = className;
      part.appendChild(heading); part.appendChild(text);
      parent.appendChild(part);
      return text;
    }
    function marked(pre, text, spans) {
      var at = 0;
      spans.slice().sort(function (a, b) { return a[0] - b[0]; }).forEach(function (span) {
        if (span[0] < at) return;
        pre.appendChild(document.createTextNode(text.slice(at, span[0])));
        var mark = document.createElement("mark");
        mark.textContent = text.slice(span[0], span[1]);
        pre.appendChild(mark);
        at = span[1];
      });
      pre.appendChild(document.createTextNode(text.slice(at)));
    }
    function card(row) {
      var article = document.createElement("article");
      article.className = "doc";
      var header = document.createElement("header");
      [["task", row.task], ["doc", String(row.doc_id)]].concat(
        Object.keys(row.fields).map(function (name) { return [name, value(row, name)]; })
      ).forEach(function (pair) {
        var field = document.createElement("span");
        field.textContent = pair[0] + " " + (pair[1] === "" ? "(none)" : pair[1]);
        field.className = field.textContent.length > 40 ? "field long" : "field";  // a sentence wraps
        header.appendChild(field);
      });
      var status = document.createElement("span");
      status.className = row.reason ? "reason" : "read";
      status.textContent = row.reason ? "no reading: " + row.reason : "read";
      header.appendChild(status);
      article.appendChild(header);
      var body = document.createElement("div");
      body.className = "doc-body";
      block(body, "prompt as sent", "prompt").textContent = row.prompt || "(not logged)";
      marked(block(body, "answer (raw)", "answer"), row.answer, row.spans);
      block(body, "read as", "reading").textContent = readingText(row.reading) || "(nothing read)";
      article.appendChild(body);
      return article;
    }
    function render() {
      var list = document.getElementById("doc-list");
      list.textContent = "";
      var fragment = document.createDocumentFragment();
      matching.slice(0, shown).forEach(function (row) { fragment.appendChild(card(row)); });
      list.appendChild(fragment);
      document.getElementById("doc-count").textContent =
        matching.length + " of " + data.total + " docs" +
        (matching.length > shown ? " (first " + shown + " shown)" : "") +
        (loaded < parts.length ? "; still reading the docs: " + rows.length + " read" : "");
      document.getElementById("doc-more").hidden = matching.length <= shown;
    }
  }
})();
"""


def doc_browser_html(rows: list[dict]) -> list[str]:
    """The browser's frame (filters, count, list, more button) and its data: the filters' values
    as JSON ("<" written as \\u003c: no string of the run can close the script element), the rows
    in compressed parts (base64 holds no "<")."""
    meta, parts = encoded_parts(rows)
    return [
        '<section id="docs">',
        "<h2>Docs</h2>",
        "<p>Every doc behind the numbers: the prompt as the harness sent it, the model's raw "
        "answer (the open-ended reader's deciding words marked), what was read from it, and why "
        "nothing was, where nothing was. The filters combine and are kept in the address.</p>",
        '<form id="doc-filters" role="search" aria-label="filter the docs"></form>',
        '<p id="doc-count" aria-live="polite">reading the docs…</p>',
        '<div id="doc-list"></div>',
        '<button id="doc-more" type="button" hidden>show more</button>',
        '<script type="application/json" id="doc-meta">'
        + json.dumps(meta, ensure_ascii=False).replace("<", "\\u003c")
        + "</script>",
        *(
            f'<script type="application/octet-stream" class="doc-part">{part}</script>'
            for part in parts
        ),
        "</section>",
    ]
