/* The JSON API from the page: the session cookie signs the player in, the CSRF token goes in a
   header, and every POST (they all move money or decide a hand) carries an Idempotency-Key. */
(function () {
  "use strict";

  class ApiError extends Error {
    constructor(status, body) {
      super((body && body.detail) || interpolate(gettext("The server answered %s."), [status]));
      this.status = status;
      this.errors = (body && body.errors) || {};
      this.code = body && body.code;
    }
  }

  async function request(method, url, body) {
    const headers = { Accept: "application/json" };
    if (method !== "GET") {
      headers["Content-Type"] = "application/json";
      headers["X-CSRFToken"] = document.querySelector('meta[name="csrf-token"]').content;
      headers["Idempotency-Key"] = crypto.randomUUID();
    }
    const response = await fetch(url, {
      method,
      headers,
      credentials: "same-origin",
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    const data = text ? JSON.parse(text) : null;
    if (!response.ok) {
      // A stake refused for a reality check due: the table's notice shows it (reality_check.js).
      if (data && data.code === "reality_check_due") {
        document.dispatchEvent(new CustomEvent("casino:reality-check-due", { detail: data }));
      }
      throw new ApiError(response.status, data);
    }
    return data;
  }

  /* Re-run `refresh` whenever the table changes (server-sent events), and on a slow timer in
     case the notices are not coming (Redis down, a proxy in the way). */
  function watchTable(eventsUrl, refresh, fallbackSeconds) {
    let source = null;
    if (window.EventSource) {
      source = new EventSource(eventsUrl);
      source.addEventListener("changed", () => refresh());
    }
    const timer = setInterval(refresh, (fallbackSeconds || 10) * 1000);
    return () => {
      clearInterval(timer);
      if (source) source.close();
    };
  }

  /* A deadline as a live "12 s" countdown in `node`. */
  function countdown(node, deadline) {
    clearInterval(node._timer);
    if (!deadline) {
      node.textContent = "";
      return;
    }
    const end = Date.parse(deadline);
    const tick = () => {
      const left = Math.max(0, Math.round((end - Date.now()) / 1000));
      node.textContent = interpolate(gettext("%s s"), [left]);
      node.classList.toggle("urgent", left <= 10);
    };
    tick();
    node._timer = setInterval(tick, 1000);
  }

  function announce(text) {
    const news = document.getElementById("news");
    if (news) news.textContent = text;
  }

  window.casinoApi = { request, ApiError, watchTable, countdown, announce };
})();
