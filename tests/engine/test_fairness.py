"""The fair shuffle, FS-1..FS-7: a published vector, an independent re-implementation, rejection
sampling, reshuffles, uniformity and the auditor's verification."""

from __future__ import annotations

import ast
import hashlib
import hmac
import inspect
import re
from types import ModuleType

import numpy as np
import pytest
from scipy import stats

from games.engine import cards as cards_module
from games.engine import fairness
from games.engine.cards import new_deck, parse_cards
from games.engine.fairness import (
    ByteStream,
    Shoe,
    commitment,
    deck_order,
    new_server_seed,
    shuffle,
    verify_deal,
)

# The published test vector: server seed = bytes 0..31, client seed "casino", nonce 1, joker deck.
VECTOR_SEED = bytes(range(32)).hex()
VECTOR_COMMITMENT = "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd"
VECTOR_DECK = (
    "9c 4h Td 9h 2d Ah Kh JK 2h Qc 7d Ac 6d 8h Qh 7h 9d 4d Ks 8c Kd Kc 5d 3d Tc 2c 8s "
    "3h 3s As Jh Ad 6c 6s Th 7s Qs Qd Jd 7c 8d 3c 5s 6h Ts 2s 5h Jc 5c 9s 4s 4c Js"
)


def reference_deck(seed_hex: str, client_seed: str, nonce: int, jokers: int) -> list[str]:
    """FS-1, FS-3..FS-5 written out plainly from the rules, sharing no code with the module."""
    key = bytes.fromhex(seed_hex)
    stream = b""
    counter = 0
    position = 0

    def next_u32() -> int:
        nonlocal stream, counter, position
        if position + 4 > len(stream):
            message = f"{client_seed}:{nonce}:{counter}".encode()
            stream += hmac.new(key, message, hashlib.sha256).digest()
            counter += 1
        word = stream[position : position + 4]
        position += 4
        return int.from_bytes(word, "big")

    def uniform(n: int) -> int:
        while True:
            u = next_u32()
            if u < 2**32 - (2**32 % n):
                return u % n

    deck = [rank + suit for rank in "23456789TJQKA" for suit in "cdhs"] + ["JK"] * jokers
    for i in range(len(deck) - 1, 0, -1):
        j = uniform(i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def seed_for(label: str) -> str:
    return hashlib.sha256(label.encode()).hexdigest()


def test_published_vector() -> None:
    """FS-2..FS-5 on the published vector: commitment and all 53 cards, top first."""
    assert commitment(VECTOR_SEED) == VECTOR_COMMITMENT
    assert [str(card) for card in deck_order(VECTOR_SEED, "casino", 1, jokers=1)] == (
        VECTOR_DECK.split()
    )


def test_commitment_is_sha256_of_the_raw_seed_bytes() -> None:
    """FS-2: the hash of the 32 bytes, not of the hex text."""
    seed = seed_for("commitment")
    assert commitment(seed) == hashlib.sha256(bytes.fromhex(seed)).hexdigest()
    assert commitment(seed) != hashlib.sha256(seed.encode()).hexdigest()
    assert commitment(seed.upper()) == commitment(seed)


def test_new_server_seed_is_32_fresh_bytes_in_lowercase_hex() -> None:
    """FS-2."""
    seeds = {new_server_seed() for _ in range(20)}
    assert len(seeds) == 20
    for seed in seeds:
        assert re.fullmatch(r"[0-9a-f]{64}", seed)


@pytest.mark.parametrize(
    ("client_seed", "nonce", "jokers"),
    [("casino", 0, 0), ("casino", 1, 1), ("player-42", 7, 0), ("joueur é ♠", 10**12, 1)],
)
def test_module_agrees_with_an_independent_implementation(
    client_seed: str, nonce: int, jokers: int
) -> None:
    """FS-1, FS-3, FS-4, FS-5 re-implemented from the rules' text, on several seeds."""
    for label in ("a", "b", "c", "d", "e"):
        seed = seed_for(f"{label}:{client_seed}:{nonce}")
        expected = reference_deck(seed, client_seed, nonce, jokers)
        assert [str(card) for card in deck_order(seed, client_seed, nonce, jokers)] == expected


def test_byte_stream_is_the_hmac_digests_concatenated() -> None:
    """FS-3: counter 0, 1, 2, ... over "{client_seed}:{nonce}:{counter}"."""
    seed = seed_for("stream")
    key = bytes.fromhex(seed)
    expected = b"".join(
        hmac.new(key, f"table-9:5:{counter}".encode(), hashlib.sha256).digest()
        for counter in range(3)
    )
    stream = ByteStream(seed, "table-9", 5)
    assert stream.read(5) + stream.read(0) + stream.read(40) + stream.read(51) == expected
    with pytest.raises(ValueError, match="cannot read -1 bytes"):
        stream.read(-1)


class KnownBytes(ByteStream):
    """A stream whose bytes the test chooses, to drive FS-4 into its discard branch."""

    def __init__(self, words: list[int]) -> None:
        super().__init__(seed_for("stub"), "stub", 0)
        self.data = b"".join(word.to_bytes(4, "big") for word in words)
        self.consumed = 0

    def read(self, size: int) -> bytes:
        chunk = self.data[self.consumed : self.consumed + size]
        self.consumed += size
        return chunk


def test_uniform_discards_words_at_or_above_the_limit() -> None:
    """FS-4: u >= 2**32 - 2**32 % n is discarded and 4 more bytes are read."""
    limit = 2**32 - 2**32 % 53
    stream = KnownBytes([2**32 - 1, limit, limit - 1])
    # Without the discard, 2**32 - 1 would give (2**32 - 1) % 53 == 16.
    assert stream.uniform(53) == (limit - 1) % 53 == 52
    assert stream.consumed == 12

    stream = KnownBytes([limit - 1, 7])
    assert stream.uniform(53) == 52
    assert stream.consumed == 4


def test_uniform_discards_on_the_real_stream() -> None:
    """FS-4 on HMAC bytes: n = 3 * 2**30 discards about one word in four."""
    seed = seed_for("rejections")
    n = 3 * 2**30
    stream = ByteStream(seed, "reject", 3)
    mirror = ByteStream(seed, "reject", 3)
    discarded = 0
    for _ in range(40):
        drawn = stream.uniform(n)
        while (u := int.from_bytes(mirror.read(4), "big")) >= n:
            discarded += 1
        assert drawn == u % n
    assert discarded > 0


def test_uniform_refuses_an_empty_range() -> None:
    stream = ByteStream(seed_for("range"), "x", 0)
    for n in (0, -3, 2**32 + 1, 1.5, True):
        with pytest.raises(ValueError, match="uniform needs"):
            stream.uniform(n)  # type: ignore[arg-type]


def test_shuffle_follows_fs5_swaps() -> None:
    """FS-5: i from len-1 down to 1, j = uniform(i + 1), swap; position 0 is the top."""
    stream = KnownBytes([0, 0, 0])  # every j = 0
    a, b, c, d = parse_cards("2c 2d 2h 2s")
    # i=3: swap 3,0 -> 2s 2d 2h 2c; i=2: swap 2,0 -> 2h 2d 2s 2c; i=1: swap 1,0 -> 2d 2h 2s 2c
    assert shuffle([a, b, c, d], stream) == [b, c, d, a]
    assert stream.consumed == 12


def test_shoe_deals_the_deck_order_from_the_top() -> None:
    """FS-5: cards are dealt from the top."""
    seed = seed_for("shoe")
    order = deck_order(seed, "c", 4, jokers=1)
    shoe = Shoe(seed, "c", 4, jokers=1)
    assert shoe.deal(5) + shoe.deal() + shoe.deal(0) + shoe.deal(47) == order
    assert shoe.remaining == 0
    with pytest.raises(ValueError, match="cannot deal 1 cards: 0 left"):
        shoe.deal()


def test_reshuffle_continues_the_same_stream() -> None:
    """FS-6: the rest of the deck and the returned cards, in canonical order, shuffled by FS-5
    on the same byte stream (ST-9, DM-7)."""
    seed = seed_for("reshuffle")
    shoe = Shoe(seed, "stud", 11)
    dealt = shoe.deal(49)
    discards = dealt[::3]
    shoe.reshuffle(discards)

    stream = ByteStream(seed, "stud", 11)
    first = shuffle(new_deck(), stream)
    expected = shuffle(sorted(first[49:] + discards), stream)
    assert shoe.remaining == 3 + len(discards)
    assert shoe.deal(shoe.remaining) == expected

    # A fresh stream would give another order: the reshuffle really continues the first one.
    restarted = shuffle(sorted(first[49:] + discards), ByteStream(seed, "stud", 11))
    assert restarted != expected


def test_reshuffle_takes_only_cards_dealt_from_the_shoe() -> None:
    """FS-6: a card is never dealt twice."""
    shoe = Shoe(seed_for("guard"), "g", 0)
    dealt = shoe.deal(10)
    still_in = next(card for card in new_deck() if card not in dealt)
    with pytest.raises(ValueError, match=f"cannot reshuffle {still_in}: it was not dealt"):
        shoe.reshuffle([still_in])
    with pytest.raises(ValueError, match="cannot reshuffle JK: it was not dealt"):
        shoe.reshuffle(parse_cards("JK"))
    with pytest.raises(ValueError, match="same card twice"):
        shoe.reshuffle([dealt[1], dealt[1]])
    shoe.reshuffle([dealt[0]])
    with pytest.raises(ValueError, match=f"cannot reshuffle {dealt[0]}: it was not dealt"):
        shoe.reshuffle([dealt[0]])
    assert shoe.remaining == 43


def test_card_positions_are_uniform() -> None:
    """FS-4, FS-5: over 20,000 shuffles of 52 cards (fixed seeds), each position's card counts
    pass a chi-square test, and so does the whole 52 x 52 table."""
    shuffles = 20_000
    seed = seed_for("chi-square")
    positions = np.arange(52)
    counts = np.zeros((52, 52), dtype=np.int64)  # [position, card]
    for nonce in range(shuffles):
        order = [card.index for card in deck_order(seed, "uniformity", nonce)]
        counts[positions, order] += 1
    per_position = stats.chisquare(counts, axis=1)
    assert per_position.pvalue.min() > 1e-5
    total = float(per_position.statistic.sum())
    assert stats.chi2.sf(total, df=52 * 51) > 1e-3


@pytest.mark.parametrize("module", [fairness, cards_module])
def test_the_shuffle_path_never_imports_random(module: ModuleType) -> None:
    """FS-2..FS-5: only secrets/hmac/hashlib; no `random`, not even numpy's."""
    tree = ast.parse(inspect.getsource(module))
    imported: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            imported.add(node.module or "")
            imported.update(alias.name for alias in node.names)
    assert not {name for name in imported if "random" in name.split(".")}
    assert "random" not in {node.attr for node in ast.walk(tree) if isinstance(node, ast.Attribute)}


def test_verification_accepts_the_true_deal() -> None:
    """FS-7: the revealed seed matches the commitment and the dealt cards."""
    seed = seed_for("audit")
    dealt = deck_order(seed, "alice", 9, jokers=1)[:17]
    result = verify_deal(seed, commitment(seed), "alice", 9, dealt, jokers=1)
    assert result.ok
    assert result
    assert "17 cards" in result.reason
    as_text = " ".join(map(str, dealt))
    assert verify_deal(seed, commitment(seed).upper(), "alice", 9, as_text, jokers=1).ok


def test_verification_detects_a_wrong_seed() -> None:
    """FS-2, FS-7: a seed other than the committed one is caught."""
    seed, other = seed_for("audit"), seed_for("other")
    dealt = deck_order(other, "alice", 9)[:10]
    result = verify_deal(other, commitment(seed), "alice", 9, dealt)
    assert not result.ok
    assert not result
    assert "does not match the commitment" in result.reason


def test_verification_detects_a_tampered_card() -> None:
    """FS-7: a swapped card, a wrong nonce, client seed or deck."""
    seed = seed_for("audit")
    dealt = deck_order(seed, "alice", 9)[:10]
    tampered = [*dealt]
    tampered[3] = next(card for card in new_deck() if card not in dealt)
    result = verify_deal(seed, commitment(seed), "alice", 9, tampered)
    assert not result.ok
    assert result.reason == f"card 4 off the deck was {tampered[3]}, the seeds give {dealt[3]}"
    assert not verify_deal(seed, commitment(seed), "alice", 10, dealt).ok
    assert not verify_deal(seed, commitment(seed), "alicE", 9, dealt).ok
    assert not verify_deal(seed, commitment(seed), "alice", 9, dealt, jokers=1).ok
    too_many = deck_order(seed, "alice", 9) + parse_cards("JK")
    assert (
        "53 cards dealt from a 52-card deck"
        in verify_deal(seed, commitment(seed), "alice", 9, too_many).reason
    )


BAD_SEEDS = ["", "00" * 31, "00" * 33, "zz" * 32, " " + "0" * 63, "0x" + "0" * 62, None, b"0" * 64]


@pytest.mark.parametrize("seed", BAD_SEEDS)
def test_bad_server_seeds_are_refused(seed: object) -> None:
    with pytest.raises(ValueError, match="server seed must be 64 hex characters"):
        commitment(seed)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="server seed must be 64 hex characters"):
        deck_order(seed, "c", 0)  # type: ignore[arg-type]


@pytest.mark.parametrize("nonce", [-1, 1.0, "1", True, None])
def test_bad_nonces_are_refused(nonce: object) -> None:
    with pytest.raises(ValueError, match="nonce must be a whole number"):
        Shoe(seed_for("n"), "c", nonce)  # type: ignore[arg-type]


@pytest.mark.parametrize("jokers", [2, -1, True])
def test_bad_joker_counts_are_refused(jokers: object) -> None:
    with pytest.raises(ValueError, match="jokers must be 0 or 1"):
        deck_order(seed_for("j"), "c", 0, jokers)  # type: ignore[arg-type]


def test_bad_client_seed_and_commitment_are_refused() -> None:
    seed = seed_for("c")
    with pytest.raises(ValueError, match="client seed must be text"):
        ByteStream(seed, None, 0)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="commitment must be hex text"):
        verify_deal(seed, None, "c", 0, [])  # type: ignore[arg-type]
