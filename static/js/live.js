// Live price and stock on item pages (progressive enhancement only).
// Item pages may come from the page cache, up to PAGE_CACHE_TTL old; this
// asks /api/items/:id (the row cache when the row is scheduled there) for
// the current price and stock on load, when the tab comes back, and every
// 30 seconds while it is visible. Without JavaScript the page shows the
// values it was rendered with; edits and checkouts purge it anyway.
(function () {
  "use strict";
  var item = document.querySelector("[data-live-item]");
  if (!item || !window.fetch) { return; }
  var id = item.getAttribute("data-live-item");

  function money(cents) {
    var sign = cents < 0 ? "-" : "";
    cents = Math.abs(cents);
    var c = String(cents % 100);
    return sign + "$" + Math.floor(cents / 100) + "." + (c.length < 2 ? "0" + c : c);
  }

  // stockText matches views.StockText.
  function stockText(n) {
    if (n <= 0) { return "Out of stock"; }
    if (n < 10) { return "Only " + n + " left"; }
    return n + " in stock";
  }

  function show(row) {
    if (!row || String(row.id) !== id) { return; }
    var price = item.querySelector("[data-testid=item-price]");
    var stock = item.querySelector("[data-testid=item-stock]");
    if (price && typeof row.price_cents === "number") { price.textContent = money(row.price_cents); }
    if (stock && typeof row.stock === "number") {
      stock.textContent = stockText(row.stock);
      stock.classList.toggle("out", row.stock <= 0);
      stock.setAttribute("data-live", "1");
    }
    var qty = item.querySelector("input[name=qty]");
    if (qty && typeof row.stock === "number" && row.stock > 0) {
      qty.max = String(Math.min(row.stock, Number(qty.max) || row.stock));
    }
  }

  function refresh() {
    fetch("/api/items/" + encodeURIComponent(id), {
      credentials: "same-origin",
      cache: "no-store",
      headers: { "Accept": "application/json" }
    }).then(function (res) {
      return res.ok ? res.json() : null;
    }).then(show).catch(function () {});
  }

  refresh();
  document.addEventListener("visibilitychange", function () {
    if (!document.hidden) { refresh(); }
  });
  setInterval(function () { if (!document.hidden) { refresh(); } }, 30000);
})();
