// Article votes in place: the vote forms (data-enhance="vote") are sent by
// app.js with Accept: application/json; this updates the article's score,
// counts and buttons from the answer. Without JavaScript the same forms post
// and come back to the page.
(function () {
  "use strict";
  if (!window.Storefront) { return; }

  function setButton(btn, dir, mine, open, title) {
    var pressed = mine === dir;
    var label = (pressed ? "Take back your " + dir + " vote" : "Vote " + dir) + ": " + title;
    btn.value = pressed ? "none" : dir;
    btn.setAttribute("aria-pressed", pressed ? "true" : "false");
    btn.setAttribute("aria-label", label);
    btn.title = label;
    btn.disabled = !open;
  }

  function update(row, data) {
    row.setAttribute("data-score", String(data.score));
    row.setAttribute("data-up", String(data.up));
    row.setAttribute("data-down", String(data.down));
    row.setAttribute("data-my-vote", data.my_vote);
    var text = function (sel, v) {
      row.querySelectorAll(sel).forEach(function (el) { el.textContent = v; });
    };
    var net = data.up - data.down;
    text(".points", String(net));
    text(".points-word", Math.abs(net) === 1 ? " point" : " points");
    text(".up-count", String(data.up));
    text(".down-count", String(data.down));
    var heading = row.querySelector(".article-title");
    var title = heading ? heading.textContent.trim() : "";
    row.querySelectorAll(".vote-up").forEach(function (b) { setButton(b, "up", data.my_vote, data.open, title); });
    row.querySelectorAll(".vote-down").forEach(function (b) { setButton(b, "down", data.my_vote, data.open, title); });
    if (!data.open && !row.querySelector('[data-testid="vote-closed"]')) {
      var p = document.createElement("p");
      p.className = "vote-closed";
      p.setAttribute("data-testid", "vote-closed");
      p.textContent = "Voting on this article has closed.";
      (row.querySelector(".article-body") || row).appendChild(p);
    }
  }

  window.Storefront.on("vote", function (form, data, res) {
    var msg = form.querySelector(".vote-msg");
    if (msg) { msg.textContent = ""; }
    if (res.status === 401 && data && data.login) {
      window.location.assign(data.login);
      return;
    }
    if (!res.ok) {
      if (msg) { msg.textContent = (data && data.error) || "Your vote did not go through. Please try again."; }
      return;
    }
    // The same article may be listed more than once on a page.
    document.querySelectorAll('[data-testid="article"][data-article-id="' + data.id + '"]').forEach(function (row) {
      update(row, data);
    });
  });
})();
