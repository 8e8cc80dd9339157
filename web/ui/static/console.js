// Corrosion panel: the live console and the one-line command inputs
// (console send, RCON). Loaded by the console and RCON tabs.
//
// The console reads the panel's SSE stream: "backlog" replaces what is
// shown, "lines" appends (after a gap marker when the panel dropped lines
// for this browser), "notice" is the panel's own remark. Lines are queued
// and rendered once per animation frame, the scrollback keeps the newest
// MAX_LINES (older ones leave, and the console says how many), and
// autoscroll pauses while the operator reads higher up.
(function () {
  "use strict";

  var MAX_LINES = 5000;
  var STREAM_CLASS = { o: "ln", e: "ln err", w: "ln warn", a: "ln agent" };

  function clock() {
    return new Date().toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit" });
  }

  function Console(root) {
    this.out = root.querySelector("[data-console-out]");
    this.state = root.querySelector("[data-console-state]");
    this.count = root.querySelector("[data-console-count]");
    this.jump = root.querySelector("[data-console-jump]");
    this.url = root.getAttribute("data-console");
    this.pending = [];
    this.scheduled = false;
    this.follow = true;
    this.unseen = 0;
    this.trimmed = 0;
    this.trimNote = null;
    this.opened = false;
    var self = this;
    this.out.addEventListener("scroll", function () { self.onScroll(); });
    this.jump.addEventListener("click", function () { self.toBottom(); self.out.focus(); });
    this.connect();
  }

  Console.prototype.setState = function (text, cls) {
    this.state.textContent = text;
    this.state.className = "console-state" + (cls ? " " + cls : "");
  };

  Console.prototype.connect = function () {
    var self = this;
    var es = new EventSource(this.url);
    es.addEventListener("open", function () {
      self.setState(self.opened ? "Live (reconnected at " + clock() + ")" : "Live", "live");
      self.opened = true;
    });
    es.addEventListener("error", function () {
      if (es.readyState === EventSource.CLOSED) {
        self.setState("Disconnected: the panel refused the stream (your session may have ended). Reload the page to try again.", "bad");
      } else {
        self.setState("Reconnecting… the connection to the panel was lost at " + clock(), "warn");
      }
    });
    es.addEventListener("backlog", function (e) {
      var d = JSON.parse(e.data);
      self.clear();
      if (d.lines.length === 0) self.queue("ln notice", "(no recent output)");
      self.addLines(d.lines);
    });
    es.addEventListener("lines", function (e) {
      var d = JSON.parse(e.data);
      if (d.dropped) self.queue("ln gap", d.dropped + " lines dropped here: this browser fell behind the stream");
      self.addLines(d.lines);
    });
    es.addEventListener("notice", function (e) {
      self.queue("ln notice", JSON.parse(e.data).text);
    });
  };

  Console.prototype.clear = function () {
    this.pending = [];
    this.out.textContent = "";
    this.trimmed = 0;
    this.trimNote = null;
    this.unseen = 0;
  };

  Console.prototype.addLines = function (lines) {
    for (var i = 0; i < lines.length; i++) {
      this.pending.push([STREAM_CLASS[lines[i][0]] || "ln", lines[i][1]]);
    }
    this.schedule();
  };

  Console.prototype.queue = function (cls, text) {
    this.pending.push([cls, text]);
    this.schedule();
  };

  Console.prototype.schedule = function () {
    if (this.scheduled) return;
    this.scheduled = true;
    var self = this;
    requestAnimationFrame(function () { self.flush(); });
  };

  Console.prototype.flush = function () {
    this.scheduled = false;
    var batch = this.pending;
    if (batch.length === 0) return;
    this.pending = [];
    if (batch.length > MAX_LINES) {
      this.trimmed += batch.length - MAX_LINES;
      batch = batch.slice(batch.length - MAX_LINES);
    }
    var frag = document.createDocumentFragment();
    for (var i = 0; i < batch.length; i++) {
      var d = document.createElement("div");
      d.className = batch[i][0];
      d.textContent = batch[i][1];
      frag.appendChild(d);
    }
    this.out.appendChild(frag);
    this.trim();
    if (this.follow) {
      this.out.scrollTop = this.out.scrollHeight;
    } else {
      this.unseen += batch.length;
      this.jump.textContent = "Jump to live ↓ (" + this.unseen + " new)";
      this.jump.classList.remove("hidden");
    }
    this.count.textContent = this.lines() + " lines shown";
  };

  Console.prototype.lines = function () {
    return this.out.childElementCount - (this.trimNote ? 1 : 0);
  };

  // trim drops the oldest lines beyond MAX_LINES in one range, keeping the
  // reader's place when autoscroll is paused, and says how many left.
  Console.prototype.trim = function () {
    var excess = this.lines() - MAX_LINES;
    if (excess > 0) {
      var first = this.trimNote ? this.trimNote.nextSibling : this.out.firstChild;
      var last = first;
      for (var i = 1; i < excess; i++) last = last.nextSibling;
      var before = this.out.scrollHeight;
      var r = document.createRange();
      r.setStartBefore(first);
      r.setEndAfter(last);
      r.deleteContents();
      this.trimmed += excess;
      if (!this.follow) this.out.scrollTop -= before - this.out.scrollHeight;
    }
    if (this.trimmed > 0) {
      if (!this.trimNote) {
        this.trimNote = document.createElement("div");
        this.trimNote.className = "ln trimmed";
        this.out.insertBefore(this.trimNote, this.out.firstChild);
      }
      this.trimNote.textContent = this.trimmed + " older lines left the scrollback (it keeps the newest " + MAX_LINES + ")";
    }
  };

  Console.prototype.atBottom = function () {
    var o = this.out;
    return o.scrollHeight - o.scrollTop - o.clientHeight < 8;
  };

  Console.prototype.onScroll = function () {
    var bottom = this.atBottom();
    if (bottom === this.follow) return;
    this.follow = bottom;
    if (bottom) {
      this.unseen = 0;
      this.jump.classList.add("hidden");
    } else {
      this.jump.textContent = "Jump to live ↓";
      this.jump.classList.remove("hidden");
    }
  };

  Console.prototype.toBottom = function () {
    this.follow = true;
    this.unseen = 0;
    this.out.scrollTop = this.out.scrollHeight;
    this.jump.classList.add("hidden");
  };

  // ---- one-line inputs: history on up/down, reset after success --------
  var HISTORY_MAX = 100;

  function historyOf(input) {
    try {
      return JSON.parse(sessionStorage.getItem("corrosion-history:" + input.getAttribute("data-history"))) || [];
    } catch (err) {
      return [];
    }
  }

  function remember(input) {
    var v = input.value;
    if (!v) return;
    var h = historyOf(input);
    if (h[h.length - 1] !== v) h.push(v);
    if (h.length > HISTORY_MAX) h = h.slice(h.length - HISTORY_MAX);
    try {
      sessionStorage.setItem("corrosion-history:" + input.getAttribute("data-history"), JSON.stringify(h));
    } catch (err) { /* storage full or off: history is a convenience */ }
    input.historyPos = h.length;
    input.draft = "";
  }

  document.addEventListener("keydown", function (e) {
    var input = e.target;
    if (!input.hasAttribute || !input.hasAttribute("data-history")) return;
    if (e.key !== "ArrowUp" && e.key !== "ArrowDown") return;
    var h = historyOf(input);
    if (h.length === 0) return;
    e.preventDefault();
    var pos = input.historyPos === undefined ? h.length : input.historyPos;
    if (pos === h.length) input.draft = input.value;
    pos = e.key === "ArrowUp" ? Math.max(0, pos - 1) : Math.min(h.length, pos + 1);
    input.historyPos = pos;
    input.value = pos === h.length ? (input.draft || "") : h[pos];
    input.setSelectionRange(input.value.length, input.value.length);
  });

  function lineForm(e) {
    var elt = e.detail && e.detail.elt;
    return elt && elt.closest ? elt.closest("form[data-reset-on-success]") : null;
  }

  document.addEventListener("htmx:beforeRequest", function (e) {
    var f = lineForm(e);
    if (!f) return;
    var input = f.querySelector("input[data-history]");
    if (input) remember(input);
    var err = f.querySelector("[data-error]");
    if (err) err.textContent = "";
  });

  document.addEventListener("htmx:afterRequest", function (e) {
    var f = lineForm(e);
    if (!f || !e.detail.successful) return;
    var input = f.querySelector("input[data-history]");
    if (input) { input.value = ""; input.focus(); }
    var empty = document.querySelector("[data-rcon-empty]");
    if (empty) empty.remove();
    var hist = document.getElementById("rcon-history");
    if (hist) hist.scrollTop = hist.scrollHeight;
  });

  function start() {
    var roots = document.querySelectorAll("[data-console]");
    for (var i = 0; i < roots.length; i++) new Console(roots[i]);
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
