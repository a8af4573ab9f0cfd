"""Best play of the joker draw's bet paytables: where solutions come from, their chunks on the
workers, and the advice given to staff, players in training and the ``best_play`` command.

A solution (``games.engine.joker_draw_best``) belongs to one digest of the bet lines and the
dealer model. It is read from the database (solved here, by the workers) or, for the shipped
paytables, from ``fixtures/best_play/``; a process keeps the few it used last in memory. The
dealer model itself is shipped data: it does not depend on any paytable.
"""

from __future__ import annotations

import io
import json
from collections import OrderedDict
from collections.abc import Callable, Sequence
from functools import cache
from pathlib import Path
from threading import Lock
from typing import Any

import numpy as np
from django.conf import settings
from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from games.engine import joker_draw_best as best
from games.engine import joker_draw_regret as regret
from games.engine.cards import Card
from games.engine.joker_draw import Paytable
from payouts.models import BestPlayChunk, BestPlaySolution, RtpRunStatus

SHIPPED = Path(settings.BASE_DIR) / "fixtures" / "best_play"
DEALER_MODEL_FILE = SHIPPED / "dealer_model.npz"
_KEPT_IN_MEMORY = 3  # solutions of about 20 MB each
_cache: OrderedDict[str, best.Solution] = OrderedDict()
_cache_lock = Lock()


@cache
def dealer_model() -> best.DealerModel:
    return best.DealerModel.from_bytes(DEALER_MODEL_FILE.read_bytes())


def digest_of(bet_paytable: Paytable) -> str:
    return best.paytable_digest(bet_paytable, dealer_model())


def shipped_file(digest: str) -> Path:
    return SHIPPED / f"{digest}.npz"


def solution_for(bet_paytable: Paytable) -> best.Solution | None:
    """The solved best play of these bet lines, or None while nobody has solved them."""
    digest = digest_of(bet_paytable)
    with _cache_lock:
        if digest in _cache:
            _cache.move_to_end(digest)
            return _cache[digest]
    data = (
        BestPlaySolution.objects.filter(digest=digest, status=RtpRunStatus.DONE)
        .values_list("data", flat=True)
        .first()
    )
    if data is None and shipped_file(digest).is_file():
        data = shipped_file(digest).read_bytes()
    if data is None:
        return None
    solution = best.Solution.from_bytes(
        bytes(data), best.bet_values(dealer_model(), bet_paytable), digest
    )
    with _cache_lock:
        _cache[digest] = solution
        while len(_cache) > _KEPT_IN_MEMORY:
            _cache.popitem(last=False)
    return solution


def start_solution(
    bet_paytable: Paytable,
    lines: dict[str, str],
    *,
    by: User | None = None,
    dispatch: Callable[[int], object] | None = None,
) -> BestPlaySolution | None:
    """Record that these lines are to be solved (once: a digest already solved or being solved
    is not started again); None when a shipped solution serves them. With ``dispatch`` the
    chunks go to the workers once committed, without it the caller computes them."""
    digest = digest_of(bet_paytable)
    if shipped_file(digest).is_file():
        return None
    solution, created = BestPlaySolution.objects.get_or_create(
        digest=digest, defaults={"lines": lines, "requested_by": by}
    )
    if not created and solution.status == RtpRunStatus.FAILED:
        BestPlaySolution.objects.filter(pk=solution.pk).update(status=RtpRunStatus.RUNNING)
        solution.status = RtpRunStatus.RUNNING
    if dispatch is not None and solution.status == RtpRunStatus.RUNNING:
        transaction.on_commit(lambda: dispatch(solution.pk))
    return solution


def compute_chunk(solution_id: int, index: int, odds: Paytable) -> bool:
    """Solve one chunk of hands and store it; the chunk that completes the solution assembles
    it in the same transaction (as the RTP laboratory's last chunk merges its run). True when
    this call finished the solution."""
    solution = BestPlaySolution.objects.get(pk=solution_id)
    if solution.status == RtpRunStatus.DONE:
        return False
    values = best.bet_values(dealer_model(), odds)
    if not BestPlayChunk.objects.filter(solution=solution, index=index).exists():
        value, code = best.second_decision_chunk(values, best.hand_bet_values(values), index)
        buffer = io.BytesIO()
        np.savez(buffer, value=value, code=code)
        BestPlayChunk.objects.get_or_create(
            solution=solution, index=index, defaults={"data": buffer.getvalue()}
        )
    with transaction.atomic():
        solution = BestPlaySolution.objects.select_for_update().get(pk=solution_id)
        if solution.status == RtpRunStatus.DONE:
            return False
        chunks = list(BestPlayChunk.objects.filter(solution=solution).order_by("index"))
        if len(chunks) < best.chunk_count():
            return False
        parts = [np.load(io.BytesIO(bytes(chunk.data))) for chunk in chunks]
        solved = best.assemble(
            solution.digest,
            values,
            np.concatenate([part["value"] for part in parts]),
            np.concatenate([part["code"] for part in parts]),
        )
        solution.data = solved.to_bytes()
        solution.status = RtpRunStatus.DONE
        solution.finished_at = timezone.now()
        solution.save(update_fields=["data", "status", "finished_at"])
        BestPlayChunk.objects.filter(solution=solution).delete()
    return True


def solve_now(bet_paytable: Paytable, lines: dict[str, str]) -> best.Solution:
    """The solution of these lines, solved here if nobody has (tests, the command line)."""
    solution = solution_for(bet_paytable)
    if solution is not None:
        return solution
    record = start_solution(bet_paytable, lines)
    if record is None:  # a shipped file appeared meanwhile
        return solution_for(bet_paytable) or _missing(bet_paytable)
    for index in range(best.chunk_count()):
        compute_chunk(record.pk, index, bet_paytable)
    return solution_for(bet_paytable) or _missing(bet_paytable)


def _missing(bet_paytable: Paytable) -> best.Solution:
    raise RuntimeError(f"the best play of {digest_of(bet_paytable)[:12]} could not be read back")


def measure_regret(bet_paytable: Paytable, decisions: int, seed: int) -> dict[str, object]:
    """The regret of these lines' solution on `decisions` sampled decisions per stage, counted
    on a pool of dealer outcomes of its own seed (independent of the dealer model's), kept
    with the solution when it is the database's."""
    solution = solution_for(bet_paytable)
    if solution is None:
        raise ValueError("paytable: its best play is not solved yet")
    pool = best.dealer_pool(1, seed)
    measured = regret.measure(solution, pool, bet_paytable, decisions, seed)
    BestPlaySolution.objects.filter(digest=solution.digest).update(regret=measured)
    return measured


def regret_of(digest: str) -> dict[str, object] | None:
    """The measured regret of a solution: the database's, or the shipped one's."""
    measured = (
        BestPlaySolution.objects.filter(digest=digest).values_list("regret", flat=True).first()
    )
    if measured is None:
        measured = _shipped(digest).get("regret")
    return measured


def shipped_notes(digest: str) -> Path:
    """What is known of a shipped solution: its lines, measured regret and priced run."""
    return SHIPPED / f"{digest}.json"


@cache
def _shipped(digest: str) -> dict[str, Any]:
    """A shipped solution's notes, read once per process (a megabyte of JSON, the priced run's
    chunks among it); empty when nothing is shipped for the digest. They change only with a
    release."""
    path = shipped_notes(digest)
    return json.loads(path.read_text()) if path.is_file() else {}


def shipped_priced_run(digest: str) -> dict[str, Any] | None:
    priced: dict[str, Any] | None = _shipped(digest).get("priced_run")
    return priced


def first_advice(solution: best.Solution, cards: Sequence[Card]) -> dict[str, object]:
    """The first decision's options as JSON (the ``best_play`` command, the trainer)."""
    return _advice(solution.first_options(cards))


def later_advice(
    solution: best.Solution, cards: Sequence[Card], seen: Sequence[Card], exchanges: int
) -> dict[str, object]:
    return _advice(solution.later_options(cards, seen, exchanges))


def _advice(options: list[best.Option]) -> dict[str, object]:
    top = options[0]
    return {
        "decision": top.action,
        **({"keep": [str(card) for card in top.keep]} if top.action == "exchange" else {}),
        "options": [
            {
                "action": option.action,
                **({"keep": [str(c) for c in option.keep]} if option.action == "exchange" else {}),
                "ev": round(option.ev, 4),
            }
            for option in options
        ],
    }
