/* What every player page's script shares: building elements, and money as exact whole cents
   (amounts travel as strings with two places, never as floats). */
(function () {
  "use strict";

  function h(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (key === "class") node.className = value;
      else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
      else if (value !== null && value !== undefined && value !== false) node.setAttribute(key, value === true ? "" : value);
    }
    for (const child of children.flat()) {
      if (child === null || child === undefined || child === false) continue;
      node.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
    }
    return node;
  }

  function cents(text) {
    const negative = String(text).startsWith("-");
    const [whole, part = ""] = String(text).replace("-", "").split(".");
    const value = Number(whole) * 100 + Number((part + "00").slice(0, 2));
    return negative ? -value : value;
  }

  function money(value) {
    const sign = value < 0 ? "-" : "";
    const abs = Math.abs(value);
    return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, "0")}`;
  }

  function signed(value) {
    return value > 0 ? `+${money(value)}` : money(value);
  }

  /* Whole cents as the page's language writes them ("1,20" in Russian and Swedish); only the
     decimal mark changes, so no amount passes through a float. */
  function shown(value) {
    const mark = (1.5).toLocaleString(document.documentElement.lang || undefined).charAt(1);
    return money(value).replace(".", mark);
  }

  window.casinoPage = { h, cents, money, signed, shown };
})();
