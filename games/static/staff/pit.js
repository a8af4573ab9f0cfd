// The pit's pages: each round's decision clock on the live page, counted down between the
// page's refreshes from its deadline; and a running RTP run's progress bar on a paytable
// version's page, read from the progress endpoint (which counts the stored chunks, so the bar
// is right after a restart of the server or the workers too).
(function () {
  "use strict";

  function countDown() {
    for (const clock of document.querySelectorAll(".countdown[data-deadline]")) {
      const left = Math.max(0, Math.round((Date.parse(clock.dataset.deadline) - Date.now()) / 1000));
      clock.textContent = interpolate(
        ngettext("%(seconds)s second left to decide", "%(seconds)s seconds left to decide", left),
        {seconds: left}, true);
    }
  }

  function followRtpRun(box) {
    const bar = document.getElementById("rtp-progress");
    const text = document.getElementById("rtp-progress-text");
    const timer = setInterval(async function () {
      try {
        const response = await fetch(box.dataset.progressUrl, {credentials: "same-origin"});
        if (!response.ok) return;
        const run = await response.json();
        bar.value = run.percent;
        if (run.status !== "running") { clearInterval(timer); window.location.reload(); return; }
        text.textContent = interpolate(gettext("%(done)s of %(total)s chunks"),
          {done: run.chunks_done, total: run.chunks}, true);
      } catch (error) { /* the next poll tries again */ }
    }, 1500);
  }

  document.addEventListener("DOMContentLoaded", function () {
    if (document.querySelector(".countdown[data-deadline]") || document.getElementById("live-tables")) {
      setInterval(countDown, 1000);
    }
    const run = document.getElementById("rtp-run");
    if (run && run.dataset.status === "running") followRtpRun(run);
  });
})();
