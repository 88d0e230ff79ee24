// Progressive enhancement only: every form works without this file.
// Forms marked data-enhance are sent with fetch and Accept: application/json;
// the JSON answer is handed to the handler named by data-enhance, which
// updates the page in place. On any failure the form is submitted normally.
(function () {
  "use strict";
  var handlers = {};

  // Storefront.on registers an updater for forms with data-enhance=name.
  window.Storefront = {
    on: function (name, fn) { handlers[name] = fn; },
    setText: function (selector, text) {
      document.querySelectorAll(selector).forEach(function (el) { el.textContent = text; });
    }
  };

  document.addEventListener("submit", function (ev) {
    var form = ev.target;
    var name = form.getAttribute("data-enhance");
    if (!name || !handlers[name] || !window.fetch) { return; }
    // A button that sends the form elsewhere (formmethod=get: "Show this
    // choice") leaves it to the browser.
    if (ev.submitter && ev.submitter.getAttribute("formmethod") === "get") { return; }
    ev.preventDefault();
    var body = new URLSearchParams(new FormData(form, ev.submitter));
    form.setAttribute("aria-busy", "true");
    fetch(form.action, {
      method: "POST",
      body: body,
      credentials: "same-origin",
      headers: { "Accept": "application/json" }
    }).then(function (res) {
      return res.json().then(function (data) { return { ok: res.ok, status: res.status, data: data }; });
    }).then(function (r) {
      form.removeAttribute("aria-busy");
      handlers[name](form, r.data, r);
    }).catch(function () {
      form.removeAttribute("aria-busy");
      form.removeAttribute("data-enhance");
      form.submit();
    });
  });
})();
