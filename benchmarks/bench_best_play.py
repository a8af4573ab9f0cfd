"""Best play's price of a new paytable: the solver and a +/-0.02-point pricing on the workers.

Run as ``python benchmarks/bench_best_play.py [ROUNDS]``. It starts its own servers and the
laboratory's Celery worker with two pool processes (``scripts/worker.sh lab``), proposes a bet
paytable nobody has solved (the shipped lines with the full house at 3:1), and times a
best-play run of ROUNDS rounds (100 million by default: a 99% interval of about +/-0.02
points), which the workers solve first, then price. Beside it, in
the same run, best play's and the reference strategy's rounds/s on the shipped paytable (10
million rounds each). Prints a table, saves ``benchmarks/results/best_play.json`` and exits
non-zero if the new paytable's solution and pricing take 30 minutes or more, or its interval
is wider than +/-0.02.
"""

from __future__ import annotations

import os
import signal
import sys
from fractions import Fraction

from bench_rtp import start_worker, timed_run
from support import save_results, services

ROUNDS = 100_000_000
SIDE_ROUNDS = 10_000_000
TARGET_SECONDS = 1800.0
TARGET_SPREAD = 0.02


def main() -> int:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else ROUNDS
    with services():
        from django.core.management import call_command

        from games.joker_draw.paytables import propose_paytable_version
        from payouts.models import BestPlaySolution, Paytable

        call_command("load_paytables", verbosity=0)
        bet = Paytable.objects.get(name="joker-draw-bet-default")
        shipped = bet.versions.get(number=1)
        new = propose_paytable_version(
            paytable=bet,
            lines={**shipped.odds(), "full_house": Fraction(3)},
            reason="benchmark: a paytable nobody has solved",
            by=None,
        )
        worker = start_worker()
        try:
            priced, seconds = timed_run(new, rounds, "best")
            solution = BestPlaySolution.objects.get(digest=priced.strategy["digest"])
            finished = solution.finished_at or solution.created_at
            solving = (finished - solution.created_at).total_seconds()
            side = [
                ("shipped, best play", *timed_run(shipped, SIDE_ROUNDS, "best")),
                ("shipped, reference", *timed_run(shipped, SIDE_ROUNDS, "reference")),
            ]
        finally:
            os.killpg(worker.pid, signal.SIGTERM)
            worker.wait(timeout=60)
    low, high = priced.result["game_ci99"]
    spread = (high - low) / 2
    passed = rounds >= ROUNDS and seconds < TARGET_SECONDS and spread <= TARGET_SPREAD
    best_rate = side[0][1].rounds / side[0][2]
    reference_rate = side[1][1].rounds / side[1][2]
    print(f"{'measure':<44} {'value':>14}")
    rows = [
        ("new paytable: solution (s)", f"{solving:,.1f}"),
        (f"new paytable: solution and {rounds:,} rounds (s)", f"{seconds:,.1f}"),
        ("new paytable: best-play RTP %", str(priced.result["game_rtp"])),
        ("new paytable: 99% interval, +/- points", f"{spread:.4f}"),
        ("shipped: best play rounds/s (with typical play)", f"{best_rate:,.0f}"),
        ("shipped: reference rounds/s", f"{reference_rate:,.0f}"),
        ("ratio best / reference rounds/s", f"{best_rate / reference_rate:.2f}"),
    ]
    for label, value in rows:
        print(f"{label:<44} {value:>14}")
    print(
        f"target: solution and +/-{TARGET_SPREAD} pricing in < {TARGET_SECONDS / 60:.0f} min "
        f"on 2 worker processes: {'PASS' if passed else 'FAIL'}"
    )
    save_results("best_play", {"rows": dict(rows), "result": priced.result, "passed": passed})
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
