// Cart: updates the page in place after a cart form is sent with fetch
// (see app.js). Without JavaScript the same forms post and redirect.
(function () {
  "use strict";
  if (!window.Storefront) { return; }

  function plural(n) { return n === 1 ? " item" : " items"; }

  // updateHeader sets the header badge (total quantity, as on the server).
  function updateHeader(count) {
    document.querySelectorAll('[data-testid="cart-count"]').forEach(function (el) {
      el.textContent = String(count);
    });
    document.querySelectorAll("[data-cart-word]").forEach(function (el) {
      el.textContent = plural(count);
    });
  }

  // message shows a status line near the form: the cart page has one, the
  // item page gets one after its form.
  function message(form, text, isError) {
    var el = document.querySelector("[data-cart-msg]");
    if (!el) {
      el = form.parentNode.querySelector(".cart-msg");
      if (!el) {
        el = document.createElement("p");
        el.className = "cart-msg";
        el.setAttribute("role", "status");
        el.setAttribute("aria-live", "polite");
        form.parentNode.insertBefore(el, form.nextSibling);
      }
    }
    el.textContent = text || "";
    el.classList.toggle("error", !!isError);
    if (!isError && !document.querySelector("[data-cart-page]") && text) {
      var link = document.createElement("a");
      link.href = "/cart";
      link.textContent = "View cart";
      el.appendChild(document.createTextNode(" "));
      el.appendChild(link);
    }
  }

  // lineRow is the cart page's row of a line: its item and its variant
  // (0 for an item without options), as two sizes of one item are two
  // lines.
  function lineRow(page, item, variant) {
    return page.querySelector('[data-testid="cart-line"][data-item-id="' + item +
      '"][data-variant-id="' + (variant || 0) + '"]');
  }

  // setProblem shows what the server says is wrong with a line, as the
  // page does ("" for nothing).
  function setProblem(row, text) {
    var cell = row.querySelector(".line-item");
    var p = row.querySelector('[data-testid="line-problem"]');
    if (!text) {
      if (p) { p.parentNode.removeChild(p); }
    } else if (cell) {
      if (!p) {
        p = document.createElement("p");
        p.className = "field-error";
        p.setAttribute("data-testid", "line-problem");
        cell.appendChild(p);
      }
      p.textContent = text;
    }
    var input = row.querySelector('input[name="qty"][type="number"]');
    if (input) { input.setAttribute("aria-invalid", text ? "true" : "false"); }
  }

  // updateCartPage changes the line the answer is about (and no other),
  // the subtotal and the empty state of the cart page.
  function updateCartPage(data) {
    var page = document.querySelector("[data-cart-page]");
    if (!page) { return; }
    // A discount depends on every line: the server prices it again.
    if (page.querySelector('[data-testid="discount-line"]')) { window.location.reload(); return; }
    var row = lineRow(page, data.item, data.variant);
    if (row && !data.line) {
      row.parentNode.removeChild(row);
    } else if (row) {
      row.setAttribute("data-qty", String(data.line.quantity));
      var input = row.querySelector('input[name="qty"][type="number"]');
      if (input) {
        input.value = String(data.line.quantity);
        input.max = String(data.line.max_qty);
      }
      var total = row.querySelector("[data-line-total]");
      if (total) { total.textContent = data.line.total; }
      setProblem(row, data.line.problem);
    }
    Storefront.setText('[data-testid="cart-total"]', data.total);
    Storefront.setText("[data-subtotal-count]", String(data.subtotal_count));
    Storefront.setText("[data-subtotal-word]", plural(data.subtotal_count));
    if (data.lines === 0) {
      var full = page.querySelector("[data-cart-full]");
      if (full) { full.hidden = true; }
      var empty = page.querySelector("[data-cart-empty]");
      if (empty) { empty.hidden = false; }
    }
  }

  Storefront.on("cart", function (form, data, res) {
    if (!data || typeof data !== "object") { return; }
    if (!res.ok) {
      message(form, data.error || "That did not work. Please try again.", true);
      var input = form.querySelector('input[name="qty"][type="number"]');
      if (input) {
        input.setAttribute("aria-invalid", "true");
        input.focus();
      }
      if (typeof data.cart_count === "number") { updateHeader(data.cart_count); }
      return;
    }
    updateHeader(data.cart_count);
    if (!document.querySelector("[data-cart-page]")) {
      var field = form.querySelector('input[name="qty"][type="number"]');
      if (field) { field.removeAttribute("aria-invalid"); }
    }
    updateCartPage(data);
    message(form, data.message, false);
  });
})();
