// evidencefleet console: the live progress of a task page (server-sent
// events from /ui/tasks/{id}/progress). Everything else works without
// script.
"use strict";
(function () {
  var panel = document.querySelector("[data-stream]");
  if (!panel || !window.EventSource) { return; }
  var note = document.getElementById("live-note");
  function field(name) { return panel.querySelector('[data-field="' + name + '"]'); }
  function set(name, text) { var el = field(name); if (el) { el.textContent = text; } }
  var source = new EventSource(panel.getAttribute("data-stream"));
  source.addEventListener("progress", function (ev) {
    var p;
    try { p = JSON.parse(ev.data); } catch (e) { return; }
    set("status", p.status);
    var status = field("status");
    if (status) { status.className = "status status-" + p.status; }
    set("claims", String(p.claims));
    set("pages", String(p.pages));
    set("jobs", p.jobs_finished + "/" + p.jobs);
    var bar = field("bar");
    if (bar) { bar.max = Math.max(p.jobs, 1); bar.value = p.jobs_finished; bar.textContent = p.jobs_finished + "/" + p.jobs; }
    var verdicts = field("verdicts");
    if (verdicts) {
      var list = document.createElement("ul");
      list.className = "counts";
      Object.keys(p.claims_by_verdict || {}).sort().forEach(function (v) {
        var li = document.createElement("li");
        var tag = document.createElement("span");
        tag.className = "verdict verdict-" + v;
        tag.textContent = v;
        li.appendChild(tag);
        li.appendChild(document.createTextNode(" " + p.claims_by_verdict[v]));
        list.appendChild(li);
      });
      verdicts.replaceChildren(list);
    }
    if (note) { note.textContent = "updated " + new Date().toLocaleTimeString(); }
    if (p.status === "completed" || p.status === "stopped") { source.close(); }
  });
  source.addEventListener("error", function () {
    if (note) { note.textContent = "live updates paused; reconnecting"; }
  });
})();
