"""Hand evaluator speed: per-hand against treys on the same hands, and the batch evaluator.

Run as ``python benchmarks/bench_hands.py``. Prints a table, saves ``benchmarks/results/hands.json``
and exits non-zero if a target is missed. Hands come from a fixed-seed numpy generator (this is a
benchmark, not the shuffle path).
"""

from __future__ import annotations

import platform
import sys
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from importlib.metadata import version
from time import perf_counter
from typing import Any

import numpy as np
from support import save_results
from treys import Card as TreysCard
from treys import Evaluator as TreysEvaluator

from games.engine.cards import ALL_CARDS, JOKER, Card
from games.engine.hands import all_hands, evaluate, evaluate_batch

HANDS = 200_000
REPEATS = 5
SEED = 20_261_130


@dataclass(frozen=True)
class Measure:
    measure: str
    hands_per_second: int
    vs_treys: float
    target: str
    target_hands_per_second: int  # 0 for the reference

    @property
    def result(self) -> str:
        if not self.target_hands_per_second:
            return ""
        return "PASS" if self.hands_per_second >= self.target_hands_per_second else "FAIL"


def random_hands(rng: np.random.Generator, jokers: int) -> list[tuple[Card, ...]]:
    """HANDS hands of 5 - jokers distinct natural cards, plus the joker if asked."""
    decks = rng.permuted(np.tile(np.arange(52, dtype=np.uint8), (HANDS, 1)), axis=1)
    rows = decks[:, : 5 - jokers]
    if jokers:
        rows = rng.permuted(np.column_stack((rows, np.full(HANDS, JOKER.index))), axis=1)
    return [tuple(ALL_CARDS[index] for index in row) for row in rows.tolist()]


def best_rates(timed: dict[str, tuple[Callable[[Any], object], Sequence[Any]]]) -> dict[str, float]:
    """Hands per second of each function over its hands, best of REPEATS, the functions taking
    turns so that a busy moment of the machine hurts them alike."""
    best = dict.fromkeys(timed, float("inf"))
    for _ in range(REPEATS):
        for name, (function, hands) in timed.items():
            start = perf_counter()
            for hand in hands:
                function(hand)
            best[name] = min(best[name], perf_counter() - start)
    return {name: len(timed[name][1]) / seconds for name, seconds in best.items()}


def batch_rate(hands: np.ndarray) -> float:
    best = float("inf")
    for _ in range(REPEATS):
        start = perf_counter()
        evaluate_batch(hands)
        best = min(best, perf_counter() - start)
    return len(hands) / best


def main() -> int:
    rng = np.random.default_rng(SEED)
    natural = random_hands(rng, jokers=0)
    with_joker = random_hands(rng, jokers=1)
    treys_hands = [[TreysCard.new(str(card)) for card in hand] for hand in natural]
    rates = best_rates(
        {
            "evaluate, natural hands": (evaluate, natural),
            "treys Evaluator._five, same hands": (TreysEvaluator()._five, treys_hands),
            "evaluate, joker hands": (evaluate, with_joker),
        }
    )
    census = all_hands(jokers=1)
    rates["evaluate_batch, 53-card census"] = batch_rate(census)

    treys_rate = rates["treys Evaluator._five, same hands"]
    targets = {
        "evaluate, natural hands": (">= 1.0x treys", round(1.0 * treys_rate)),
        "evaluate, joker hands": (">= 0.8x treys", round(0.8 * treys_rate)),
        "evaluate_batch, 53-card census": (">= 10,000,000 hands/s", 10_000_000),
    }
    measures = [
        Measure(
            name, round(rate), round(rate / treys_rate, 2), *targets.get(name, ("reference", 0))
        )
        for name, rate in rates.items()
    ]
    print(f"{'measure':<36} {'hands/s':>13} {'x treys':>8}  {'target':<22} result")
    for measure in measures:
        print(
            f"{measure.measure:<36} {measure.hands_per_second:>13,} {measure.vs_treys:>8.2f}  "
            f"{measure.target:<22} {measure.result}"
        )
    passed = all(measure.result != "FAIL" for measure in measures)
    report = {
        "implementation": platform.python_implementation(),
        "platform": platform.platform(),
        "numpy": np.__version__,
        "treys": version("treys"),
        "random_hands": HANDS,
        "census_hands": len(census),
        "repeats": REPEATS,
        "seed": SEED,
        "measures": [asdict(measure) | {"result": measure.result} for measure in measures],
        "passed": passed,
    }
    save_results("hands", report)
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
