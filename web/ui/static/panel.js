// Corrosion panel: behaviour shared by every page. No inline script anywhere
// (the CSP forbids it); pages opt in with data- attributes.
(function () {
  "use strict";

  // Theme: follows the system until the operator picks one.
  var root = document.documentElement;
  var saved = localStorage.getItem("corrosion-theme");
  if (saved === "dark" || saved === "light") root.setAttribute("data-theme", saved);
  document.addEventListener("click", function (e) {
    var t = e.target.closest("[data-theme-toggle]");
    if (!t) return;
    var dark = root.getAttribute("data-theme") === "dark" ||
      (!root.getAttribute("data-theme") && matchMedia("(prefers-color-scheme: dark)").matches);
    var next = dark ? "light" : "dark";
    root.setAttribute("data-theme", next);
    localStorage.setItem("corrosion-theme", next);
  });

  // "/" focuses the page's search box; Esc closes an open dialog.
  document.addEventListener("keydown", function (e) {
    if (e.key === "/" && !/^(INPUT|TEXTAREA|SELECT)$/.test(document.activeElement.tagName)) {
      var s = document.querySelector("[data-search]");
      if (s) { e.preventDefault(); s.focus(); }
    }
  });

  // data-confirm="Kill world10?" on a button or form: a native dialog that
  // names the target before anything dangerous happens (htmx requests too).
  document.addEventListener("htmx:confirm", function (e) {
    var el = e.detail.elt.closest("[data-confirm]");
    if (!el) return;
    e.preventDefault();
    if (confirm(el.getAttribute("data-confirm"))) e.detail.issueRequest(true);
  });
  document.addEventListener("submit", function (e) {
    var f = e.target.closest("form[data-confirm]");
    if (f && !f.hasAttribute("hx-post") && !confirm(f.getAttribute("data-confirm"))) e.preventDefault();
  });

  // A failed htmx request answers in words next to the control: the server
  // renders the reason; put it into the nearest [data-error] target.
  document.addEventListener("htmx:beforeSwap", function (e) {
    var x = e.detail.xhr;
    if (x.status >= 400) {
      var host = e.detail.requestConfig.elt.closest("[data-actions]") || document;
      var out = host.querySelector("[data-error]");
      if (out) {
        out.textContent = x.responseText.trim().slice(0, 300) || ("request failed (" + x.status + ")");
        e.detail.shouldSwap = false;
        // Answered in words next to the control: not a page error, so htmx
        // must not log it as one (it would console.error every refusal).
        e.detail.isError = false;
      }
    }
  });
  document.addEventListener("htmx:sendError", function (e) {
    var host = e.detail.requestConfig.elt.closest("[data-actions]") || document;
    var out = host.querySelector("[data-error]");
    if (out) out.textContent = "the panel could not be reached; try again";
  });
})();
