"""What a table's limits must satisfy, with messages naming the field and the rule.

One function serves the admin, the API and the services, so a configuration refused in one
place is refused everywhere with the same words. Each game says which limits it has and what
they must satisfy (its ``TableGame``); what is checked alike for every game is here.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from decimal import Decimal
from typing import Any

from games.models import Game
from games.tables.table_game import all_games, game_of

# Empty, these take a default: the peer games' sitting out, the environment's bankroll shares.
OPTIONAL_FIELDS = frozenset(
    {
        "rake_cap",
        "timeouts_to_sit_out",
        "sit_out_minutes",
        "player_bankroll_percent",
        "table_bankroll_percent",
    }
)
MIN_TIMEOUT_SECONDS = 5


def all_limit_fields() -> tuple[str, ...]:
    """Every limit of any game, each once, in the games' order."""
    return tuple(dict.fromkeys(name for game in all_games() for name in game.limit_fields))


def stakes_in_steps(low: Decimal, high: Decimal, step: Decimal) -> Iterable[Decimal]:
    stake = low
    while stake <= high:
        yield stake
        stake += step


def multiple(amount: Decimal, step: Decimal) -> bool:
    return amount % step == 0


def validate_limits(game: str, values: Mapping[str, Any]) -> dict[str, str]:
    """Every broken rule as {field: message}; empty when the limits may be saved."""
    errors: dict[str, str] = {}
    fields = game_of(game).limit_fields
    for name in all_limit_fields():
        value = values.get(name)
        if name not in fields:
            if value is not None:
                errors[name] = f"{name} is not a limit of {Game(game).label}."
        elif value is None and name not in OPTIONAL_FIELDS:
            errors[name] = f"{name} is required for {Game(game).label}."
        elif isinstance(value, Decimal) and value <= 0 and name != "rake_percent":
            errors[name] = f"{name} must be above zero."
    return errors or game_of(game).limit_problems(values)
