// Checkout: choosing a delivery method updates the review's delivery
// price and total, and the total the form confirms, so that the order is
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
    var total = page.querySelector("[data-checkout-total]");
    if (total) { total.value = radio.getAttribute("data-total"); }
  }

  page.addEventListener("change", function (ev) {
    if (ev.target.name === "shipping") { update(ev.target); }
  });
  update(page.querySelector('input[name="shipping"]:checked'));
})();
