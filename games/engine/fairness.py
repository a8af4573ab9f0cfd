"""Provably fair shuffle, exactly FS-1..FS-7, so that an auditor can re-implement it.

A round gets a fresh server seed (FS-2) whose commitment is published before the first card; the
deck is shuffled (FS-5) with bytes from HMAC-SHA256 keyed by the seed (FS-3, FS-4); reshuffles
inside the round continue the same bytes (FS-6); after the round the seed is revealed and anyone
can recompute every card (FS-7). Only ``secrets``, ``hmac`` and ``hashlib`` are used: nothing here
may come from a non-cryptographic generator.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from games.engine.cards import Card, new_deck, parse_card

SEED_BYTES = 32
_HEX_SEED = re.compile(r"[0-9a-fA-F]{64}")
_U32 = 2**32


def new_server_seed() -> str:
    """A fresh server seed for a round: 32 bytes from ``secrets``, lowercase hex (FS-2)."""
    return secrets.token_hex(SEED_BYTES)


def commitment(server_seed_hex: str) -> str:
    """The published commitment: lowercase hex SHA-256 of the seed's 32 raw bytes (FS-2)."""
    return hashlib.sha256(_seed_bytes(server_seed_hex)).hexdigest()


class ByteStream:
    """The round's bytes (FS-3): HMAC-SHA256 keyed by the raw server seed over the UTF-8 text
    ``"{client_seed}:{nonce}:{counter}"`` for counter 0, 1, 2, ..., the digests concatenated."""

    def __init__(self, server_seed_hex: str, client_seed: str, nonce: int) -> None:
        self._key = _seed_bytes(server_seed_hex)
        self._prefix = f"{_checked_client_seed(client_seed)}:{_checked_nonce(nonce)}:"
        self._counter = 0
        self._buffer = b""
        self._position = 0

    def read(self, size: int) -> bytes:
        """The next ``size`` bytes of the stream."""
        if size < 0:
            raise ValueError(f"cannot read {size} bytes")
        while len(self._buffer) - self._position < size:
            block = hmac.digest(self._key, f"{self._prefix}{self._counter}".encode(), "sha256")
            self._buffer = self._buffer[self._position :] + block
            self._position = 0
            self._counter += 1
        start = self._position
        self._position += size
        return self._buffer[start : self._position]

    def uniform(self, n: int) -> int:
        """A uniform integer in 0..n-1 (FS-4): the next 4 bytes as a big-endian unsigned u,
        discarded and read again while u >= 2**32 - 2**32 % n (so every residue is equally
        likely), then u % n."""
        if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= _U32:
            raise ValueError(f"uniform needs a whole number from 1 to 2**32, got {n!r}")
        limit = _U32 - _U32 % n
        while True:
            u = int.from_bytes(self.read(4), "big")
            if u < limit:
                return u % n


def shuffle(cards: Iterable[Card], stream: ByteStream) -> list[Card]:
    """The cards shuffled by FS-5, as a new list, top (position 0) first: for i from len-1 down
    to 1, j = uniform(i + 1), swap positions i and j. Pass the cards in canonical order (FS-5,
    FS-6); the stream goes on from wherever it is."""
    deck = list(cards)
    for i in range(len(deck) - 1, 0, -1):
        j = stream.uniform(i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def deck_order(server_seed_hex: str, client_seed: str, nonce: int, jokers: int = 0) -> list[Card]:
    """The round's deck, top first: the canonical deck (FS-1) shuffled by FS-5."""
    return shuffle(new_deck(jokers), ByteStream(server_seed_hex, client_seed, nonce))


class Shoe:
    """A round's deck as games deal from it: dealt from the top (FS-5) and reshuffled inside the
    round by FS-6 on the same byte stream. An auditor replays a round with the revealed seed by
    making the same calls (FS-7)."""

    def __init__(self, server_seed_hex: str, client_seed: str, nonce: int, jokers: int = 0) -> None:
        self._stream = ByteStream(server_seed_hex, client_seed, nonce)
        self._cards = shuffle(new_deck(jokers), self._stream)
        self._dealt: set[Card] = set()

    @property
    def remaining(self) -> int:
        """How many cards are left to deal."""
        return len(self._cards)

    def deal(self, count: int = 1) -> list[Card]:
        """The next ``count`` cards off the top."""
        if isinstance(count, bool) or not isinstance(count, int) or count < 0:
            raise ValueError(f"deal needs a card count of 0 or more, got {count!r}")
        if count > len(self._cards):
            raise ValueError(f"cannot deal {count} cards: {len(self._cards)} left")
        cards, self._cards = self._cards[:count], self._cards[count:]
        self._dealt.update(cards)
        return cards

    def reshuffle(self, discards: Iterable[Card]) -> None:
        """Shuffle dealt cards back in (ST-9, DM-7): they join the cards still in the shoe, all
        are put in canonical order and shuffled by FS-5, continuing the byte stream (FS-6)."""
        returned = list(discards)
        for card in returned:
            if card not in self._dealt:
                raise ValueError(f"cannot reshuffle {card}: it was not dealt from this shoe")
        if len(set(returned)) != len(returned):
            raise ValueError("cannot reshuffle the same card twice")
        self._dealt.difference_update(returned)
        self._cards = shuffle(sorted(self._cards + returned), self._stream)


@dataclass(frozen=True)
class Verification:
    """An auditor's verdict on a round: ``ok``, and in ``reason`` what matched or what did not."""

    ok: bool
    reason: str

    def __bool__(self) -> bool:
        return self.ok


def verify_deal(
    server_seed_hex: str,
    published_commitment: str,
    client_seed: str,
    nonce: int,
    dealt: Sequence[Card] | str,
    jokers: int = 0,
) -> Verification:
    """Check a round after its seed is revealed (FS-7): the seed matches the commitment published
    before the deal (FS-2), and ``dealt``, the cards in the order they came off the deck (Cards
    or notation text ``"As Kd ..."``), is what the seeds give. A round with reshuffles is
    replayed with ``Shoe``. Malformed seeds, nonce or jokers raise ValueError."""
    expected_commitment = commitment(server_seed_hex)
    if not isinstance(published_commitment, str):
        raise ValueError(f"commitment must be hex text, got {published_commitment!r}")
    if published_commitment.lower() != expected_commitment:
        return Verification(
            False,
            f"the seed does not match the commitment: its SHA-256 is {expected_commitment}, "
            f"the published commitment is {published_commitment}",
        )
    cards = [parse_card(word) for word in dealt.split()] if isinstance(dealt, str) else dealt
    order = deck_order(server_seed_hex, client_seed, nonce, jokers)
    if len(cards) > len(order):
        return Verification(False, f"{len(cards)} cards dealt from a {len(order)}-card deck")
    for position, (card, expected) in enumerate(zip(cards, order, strict=False), start=1):
        if card != expected:
            return Verification(
                False, f"card {position} off the deck was {card}, the seeds give {expected}"
            )
    return Verification(
        True, f"the commitment matches the seed and all {len(cards)} cards match the deck order"
    )


def _seed_bytes(server_seed_hex: str) -> bytes:
    if not isinstance(server_seed_hex, str) or not _HEX_SEED.fullmatch(server_seed_hex):
        raise ValueError(
            f"server seed must be 64 hex characters (32 bytes), got {server_seed_hex!r}"
        )
    return bytes.fromhex(server_seed_hex)


def _checked_client_seed(client_seed: str) -> str:
    if not isinstance(client_seed, str):
        raise ValueError(f"client seed must be text, got {client_seed!r}")
    return client_seed


def _checked_nonce(nonce: int) -> int:
    if isinstance(nonce, bool) or not isinstance(nonce, int) or nonce < 0:
        raise ValueError(f"nonce must be a whole number >= 0, got {nonce!r}")
    return nonce
