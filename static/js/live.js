// The item page's buy box, live (progressive enhancement only).
//
// The page as rendered is right for the variant it shows. Choosing options
// switches in place to the chosen variant: its price, "was" price, stock,
// SKU, picture, the quantity's bound, the add button and the URL's
// ?variant= change at once, with no request. The figures come from the
// offers the page carries (#item-offers, one per variant, written by the
// server as it writes the page), and /api/items/:id refreshes them on load,
// when the tab comes back and every 30 seconds: item pages may come from
// the page cache, up to PAGE_CACHE_TTL old. The script only ever shows the
// texts the server wrote for the variant on screen, never one of another
// variant or of the item as a whole.
//
// Without JavaScript the selects are part of the buy form, so the server
// adds what they say (or answers 422 for a combination not offered or sold
// out), and "Show this choice" loads the chosen variant's page.
(function () {
  "use strict";
  var item = document.querySelector("[data-live-item]");
  if (!item) { return; }
  var id = item.getAttribute("data-live-item");
  var form = item.querySelector("form.buy");
  var selects = form ? Array.prototype.slice.call(form.querySelectorAll("select[data-option]")) : [];
  var offers = null; // the variants' offers; null for an item without options

  var island = document.getElementById("item-offers");
  if (island) {
    try { offers = JSON.parse(island.textContent); } catch (e) { offers = null; }
  }

  function el(sel) { return item.querySelector(sel); }

  // chosen is the offer the selects name: undefined when the page has no
  // offers, null for a combination that is not offered.
  function chosen() {
    if (!offers) { return undefined; }
    var values = selects.map(function (s) { return s.value; });
    for (var i = 0; i < offers.length; i++) {
      var o = offers[i];
      if (o.values.length === values.length && o.values.every(function (v, j) { return v === values[j]; })) {
        return o;
      }
    }
    return null;
  }

  // showPicture makes the gallery show the picture at position p large
  // (the item's main one when it has none there).
  function showPicture(p) {
    var imgs = Array.prototype.slice.call(item.querySelectorAll('.gallery [data-testid="item-image"]'));
    var radios = item.querySelectorAll(".gallery input.pick");
    if (radios.length !== imgs.length) { return; }
    var at = imgs.findIndex(function (img) { return img.getAttribute("data-position") === String(p); });
    if (at < 0) { at = imgs.findIndex(function (img) { return img.getAttribute("data-position") === "1"; }); }
    if (at >= 0) { radios[at].checked = true; }
  }

  // show puts an offer on screen; null says the combination is not
  // offered. how.picture also shows the offer's picture (a choice made
  // here); how.live marks the stock as the API's.
  function show(o, how) {
    var price = el('[data-testid="item-price"]');
    var was = el('[data-testid="compare-at"]');
    var stock = el('[data-testid="item-stock"]');
    var sku = el('[data-testid="item-sku"]');
    [price && price.parentNode, stock, sku].forEach(function (e) { if (e) { e.hidden = !o; } });
    if (o) {
      if (price) { price.textContent = o.price; }
      if (was) {
        var wasPrice = was.querySelector("[data-compare-at-price]");
        if (wasPrice) { wasPrice.textContent = o.compare_at || ""; }
        was.hidden = !o.compare_at;
      }
      if (stock) {
        stock.textContent = o.stock_text;
        stock.classList.toggle("out", o.stock <= 0);
        if (how.live) { stock.setAttribute("data-live", "1"); }
      }
      if (sku && o.sku) { sku.textContent = "SKU " + o.sku; sku.setAttribute("data-sku", o.sku); }
    }
    if (!form) { return; }
    var variant = form.querySelector('input[name="variant"]');
    if (variant && o && o.id) { variant.value = String(o.id); }
    var qty = form.querySelector('input[name="qty"]');
    if (qty && o && o.max_qty) { qty.max = String(o.max_qty); }
    var add = form.querySelector('[data-testid="add-to-cart"]');
    var buyable = !!o && o.stock > 0;
    if (add) { add.disabled = !buyable; }
    var status = form.querySelector('[data-testid="choice-status"]');
    if (status) {
      status.hidden = buyable;
      status.textContent = buyable ? "" : form.getAttribute(o ? "data-sold-out-text" : "data-not-offered-text");
    }
    if (o && how.picture) { showPicture(o.picture); }
  }

  // The item as the API says it sells, for an item without options.
  function itemOffer(row) {
    return { id: 0, sku: row.sku, price: row.price, compare_at: "", stock: row.stock, stock_text: row.stock_text, max_qty: row.max_qty };
  }

  if (selects.length > 0 && offers) {
    var showChoice = form.querySelector("[data-show-choice]");
    if (showChoice) { showChoice.hidden = true; }
    form.addEventListener("change", function (ev) {
      if (!ev.target.hasAttribute("data-option")) { return; }
      var o = chosen();
      show(o, { picture: true });
      if (o && window.history && history.replaceState) {
        history.replaceState(history.state, "", location.pathname + "?variant=" + o.id + location.hash);
      }
    });
    show(chosen(), {});
  }

  function refresh() {
    if (!window.fetch) { return; }
    fetch("/api/items/" + encodeURIComponent(id), {
      credentials: "same-origin",
      cache: "no-store",
      headers: { "Accept": "application/json" }
    }).then(function (res) {
      return res.ok ? res.json() : null;
    }).then(function (row) {
      if (!row || String(row.id) !== id) { return; }
      if (row.variants && offers) {
        offers = row.variants;
        show(chosen(), { live: true });
      } else if (!row.variants && !offers && typeof row.stock_text === "string") {
        show(itemOffer(row), { live: true });
      }
      // Otherwise the item gained or lost its options since the page was
      // rendered: its figures would not fit the page, which keeps its own.
    }).catch(function () {});
  }

  refresh();
  document.addEventListener("visibilitychange", function () {
    if (!document.hidden) { refresh(); }
  });
  setInterval(function () { if (!document.hidden) { refresh(); } }, 30000);
})();
