// Engagement: like and follow buttons update in place. The forms work
// without this file (post, then 303 back); see app.js for data-enhance.
(function () {
  "use strict";
  if (!window.Storefront) { return; }

  // fallback submits the form the ordinary way when the JSON answer is
  // not what we expect (signed out meanwhile, an error page).
  function fallback(form, res) {
    if (res && res.status === 401) {
      window.location.href = "/login?next=" + encodeURIComponent(window.location.pathname);
      return;
    }
    form.removeAttribute("data-enhance");
    form.submit();
  }

  function setDir(form, value) {
    var dir = form.querySelector("input[name=dir]");
    if (dir) { dir.value = value; }
  }

  Storefront.on("like", function (form, data, res) {
    if (!res.ok || typeof data.count !== "number") { return fallback(form, res); }
    var box = form.closest("[data-testid=like-box]");
    var button = form.querySelector("button");
    if (box) {
      box.setAttribute("data-liked", data.liked ? "true" : "false");
      box.querySelectorAll("[data-testid=like-count]").forEach(function (el) { el.textContent = String(data.count); });
      box.querySelectorAll(".like-word").forEach(function (el) { el.textContent = data.count === 1 ? "like" : "likes"; });
    }
    setDir(form, data.liked ? "unlike" : "like");
    if (button) {
      button.setAttribute("aria-pressed", data.liked ? "true" : "false");
      button.textContent = data.liked ? "\u2665 Liked" : "\u2661 Like";
    }
  });

  Storefront.on("follow", function (form, data, res) {
    if (!res.ok || typeof data.followers !== "number") { return fallback(form, res); }
    Storefront.setText("[data-testid=followers-count]", String(data.followers));
    setDir(form, data.following ? "unfollow" : "follow");
    var button = form.querySelector("button");
    if (button) {
      button.setAttribute("aria-pressed", data.following ? "true" : "false");
      button.textContent = data.following ? "Following \u2713" : "Follow";
      button.className = data.following ? "button secondary" : "button";
    }
  });
})();
