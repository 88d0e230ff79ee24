// Checkout: choosing a delivery method updates the review's delivery
// price, tax, discount and total, and the total the form confirms, so that the order is
// placed at the total on screen. Without JavaScript the server shows the
// new total and asks to confirm it.
(function () {
  "use strict";
  var page = document.querySelector("[data-checkout]");
  if (!page) { return; }

  function update(radio) {
    if (!radio || !radio.checked) { return; }
    page.querySelectorAll('[data-testid="shipping-cost"]').forEach(function (el) {
      el.textContent = radio.getAttribute("data-cost-text");
    });
    page.querySelectorAll('[data-testid="order-total"], [data-place-total]').forEach(function (el) {
      el.textContent = radio.getAttribute("data-total-text");
    });
    page.querySelectorAll("[data-tax-amount]").forEach(function (el) {
      el.textContent = radio.getAttribute("data-tax-text");
    });
    page.querySelectorAll("[data-discount-amount]").forEach(function (el) {
      el.textContent = radio.getAttribute("data-discount-text");
    });
    var total = page.querySelector("[data-checkout-total]");
    if (total) { total.value = radio.getAttribute("data-total"); }
  }

  // Another country may mean another zone and tax rate: the server
  // prices the review again (the button does the same without JavaScript).
  page.addEventListener("change", function (ev) {
    if (ev.target.name === "shipping") { update(ev.target); }
    if (ev.target.name === "country") {
      var again = page.querySelector("[data-review-again]");
      if (again) { again.click(); }
    }
  });
  update(page.querySelector('input[name="shipping"]:checked'));
})();
