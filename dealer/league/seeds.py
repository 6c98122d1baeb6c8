"""Event seeds: drawn at random (256 bits) unless given, committed to when the event starts,
revealed when it ends, and checked afterwards by re-dealing every recorded hand (``dealer verify``).

A seed short enough to guess (under 16 characters, or digits only) works, but a bot that knows
the shuffle can recover it from its own hole cards and so know every deal: ``guessable`` says so.

Hand ``h`` of a table on deal set ``d`` is dealt from ``shuffled_deck(deal_key(seed, d, h), 2n + 8)``
(``n`` the table's seat count; see ``dealer.league.match``): position ``k`` of the ``N`` players dealt in
gets cards ``k`` and ``N + k``, the flop is cards ``2N+1..2N+3``, the turn ``2N+5``, the river
``2N+7`` (``dealer.engine.rules``). A match a league plays again after a kill (``--resume``) is dealt
afresh: attempt ``a > 0`` keys its decks ``<seed>/<d>/<h>/attempt-<a>`` and its hands say
``_attempt = a``. A comparison on tilted deals (``dealer.stats.tilted_deals``) swaps in its hole cards, flop,
turn and river as that module draws them, and says so in its ``compare.json`` (``dealing``, and which proposal:
``tilted_proposal``, 1 where absent). ``verify`` reads the
seed from the event's ``results.json`` (or ``compare.json``, and how it drew its cards) and checks the
hole cards and board of every hand in its PHH histories (not those of an interrupted attempt, kept
under ``interrupted/``: they were cut off mid-write).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
import struct
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from dealer.config.choices import Deals
from dealer.engine.cards import card_name
from dealer.stats.tilted_deals import PROPOSAL_VERSION, dealt

MIN_SEED_CHARS = 16
INTERRUPTED = "interrupted"  # an event's folder for the output of matches cut off by a kill
SCRATCH = "scratch"  # a match's folder of its bots' working folders (what is in it, they wrote)
HANDS = "hands"  # a match's folder of the histories the dealer wrote


def deal_key(seed: str, deal_set: str, hand: int, attempt: int = 0) -> str:
    """The key of the deck hand ``hand`` of deal set ``deal_set`` is dealt from: the one owner of
    that rule. Attempt 0 is the first play of a match; a replay after a kill gets new deals."""
    key = f"{seed}/{deal_set}/{hand}"
    return key if attempt == 0 else f"{key}/attempt-{attempt}"


def decision_key(seed: str) -> bytes:
    """The key of an event's decision seeds (``decision_seed``): HMAC-SHA256 of a fixed label under the
    event's seed, so that no seed a bot is sent tells anything of the event's seed or its decks."""
    return hmac.new(seed.encode(), b"dealer decision seeds v1", hashlib.sha256).digest()


def decision_seed(key: bytes, deal: str, seat: int, index: int) -> int:
    """The seed of one decision's random draws (``ActionRequest.decision_seed``), the one owner of that
    rule: decision ``index`` (from 0: the actions engine seat ``seat``, the position the cards are dealt
    to, has taken so far in the hand) of that seat in the deal keyed ``deal_key``. The same at the same
    point of the same deal whoever sits there: two versions of a bot compared on a deal draw the same
    numbers where they stand alike. A table asks for many: ``DecisionSeeds`` computes the same seeds,
    eight of a seat's decisions per hash."""
    return DecisionSeeds(key).seed(deal, seat, index)


SEEDS_PER_BLOCK: Final = 8  # a BLAKE2b-512 digest: eight 64-bit words


class DecisionSeeds:
    """The decision seeds of an event under its ``decision_key``: decision ``index`` of engine seat
    ``seat`` in deal ``deal`` is the first 53 bits (exact in JSON; never 0) of the 8-byte word
    ``index % 8`` of keyed BLAKE2b-512 (RFC 7693) of ``"<deal>|<seat>|<index // 8>"``.

    Why a bot learns nothing it must not from the seeds it sees: keyed BLAKE2b is a pseudo-random
    function, so its outputs tell nothing of the key, which is itself an HMAC of the event's secret
    seed (``decision_key``: no deck, no seed); every other seat's seeds, and this seat's in other
    deals, are the function at other inputs, unpredictable from these; and 53 of a word's 64 bits
    leave nothing to extend. What a bot does see, a seat's seeds at its decisions, is what any bot
    sitting there gets: common random numbers by design. One hash for eight decisions of a seat (a
    seat rarely has more in a hand): the dealer hashed once per decision before, 13% of its CPU."""

    __slots__ = ("_keyed",)

    def __init__(self, key: bytes) -> None:
        self._keyed = hashlib.blake2b(key=key)  # the key's block hashed once: each block's hash copies it

    def block(self, deal: str, seat: int, block: int) -> list[int]:
        """The seeds of decisions ``8 * block`` to ``8 * block + 7`` of ``seat`` in deal ``deal``."""
        keyed = self._keyed.copy()
        keyed.update(f"{deal}|{seat}|{block}".encode())
        return [(word >> 11) or 1 for word in _WORDS.unpack(keyed.digest())]

    def seed(self, deal: str, seat: int, index: int) -> int:
        """The seed of decision ``index`` of ``seat`` in the deal keyed ``deal`` (``decision_seed``)."""
        return self.block(deal, seat, index // SEEDS_PER_BLOCK)[index % SEEDS_PER_BLOCK]


_WORDS: Final = struct.Struct(f">{SEEDS_PER_BLOCK}Q")  # a BLAKE2b-512 digest's 64-bit words, big-endian


def draw_seed() -> str:
    """A fresh 256-bit seed, as 64 hex digits."""
    return secrets.token_hex(32)


def guessable(seed: str) -> str | None:
    """The warning for a seed short enough to guess, or None."""
    if len(seed) < MIN_SEED_CHARS or seed.isdigit():
        return (
            f"the seed is short enough to guess (under {MIN_SEED_CHARS} characters, or digits only): bots "
            "could recover it from their own cards and know every deal; use it for tests only"
        )
    return None


@dataclass
class Verification:
    """What ``verify`` found: hands checked, files read and every mismatch (one line each)."""

    seed: str
    hands: int = 0
    files: int = 0
    mismatches: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """Whether every recorded hand is the deal of the seed (and there was one to check)."""
        return self.hands > 0 and not self.mismatches


def commitment(seed: str) -> str:
    """The SHA-256 commitment to a seed printed when an event starts (hex of its UTF-8 bytes)."""
    return hashlib.sha256(seed.encode("utf-8")).hexdigest()


def revealed(out: Path) -> tuple[str, str]:
    """The seed an event's results reveal and how its cards were drawn, from the one record that reveals
    them (a comparison's compare.json may say ``"dealing": "tilted"``, ``dealer.stats.tilted_deals``; every
    other event, and a comparison written before it, dealt ``plain``); ValueError (one line) if there is
    no seed to read, or its tilted deals were drawn by a proposal this version does not deal."""
    for name in ("results.json", "compare.json", "finals.json"):  # an event's, a comparison's, an arena's finals
        path = out / name
        if path.is_file():
            try:
                data = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError) as error:
                raise ValueError(f"{path}: cannot read it: {error}") from None
            seed = data.get("seed") if isinstance(data, dict) else None
            if seed is None:
                raise ValueError(f"{path}: no seed revealed (the event has not ended, or was stopped)")
            commit = data.get("seed_sha256")
            if commit is not None and commit != commitment(str(seed)):
                raise ValueError(f"{path}: the revealed seed does not match its commitment {commit}")
            dealing = data.get("dealing", Deals.PLAIN)
            if dealing not in tuple(Deals):
                raise ValueError(f"{path}: dealing must be one of {', '.join(Deals)}, not {dealing!r}")
            proposal = data.get("tilted_proposal", 1)
            if dealing == Deals.TILTED and proposal != PROPOSAL_VERSION:
                raise ValueError(
                    f"{path}: its tilted deals were drawn by proposal {proposal!r} (tilted_proposal), and this "
                    f"dealer deals proposal {PROPOSAL_VERSION} only: verify it with the version that wrote it"
                )
            return str(seed), str(dealing)
    raise ValueError(f"{out}: no results.json, compare.json or finals.json: not an event's output folder")


def revealed_seed(out: Path) -> str:
    """The seed an event's results reveal; ValueError (one line) if there is none to read."""
    return revealed(out)[0]


def _check_hand(seed: str, hand: dict[str, Any], where: str, dealing: str = Deals.PLAIN) -> str | None:
    """The mismatch of one PHH hand with its re-deal (as ``dealing`` draws the cards), or None if it is that deal."""
    try:
        deal_set, number, seat_count = hand["_table"], hand["hand"], hand["seat_count"]
        actions = hand["actions"]
    except KeyError as error:
        return f"{where}: no {error.args[0]} field: cannot re-deal it"
    attempt = hand.get("_attempt", 0)
    try:
        cards, _ = dealt(deal_key(seed, deal_set, number, attempt), 2 * seat_count + 8, dealing)
    except ValueError as error:  # a tilted deal on a table that is not heads-up
        return f"{where}: {error}"
    deck = [card_name(c) for c in cards]
    holes = [a.split() for a in actions if a.startswith("d dh ")]
    players = len(holes)
    for words in holes:
        k = int(words[2][1:]) - 1
        expected = deck[k] + deck[players + k]
        if words[3] != expected:
            return f"{where}: p{k + 1} was dealt {words[3]}, the seed deals {expected}"
    board = "".join(a.split()[2] for a in actions if a.startswith("d db "))
    runout = "".join(deck[2 * players + i] for i in (1, 2, 3, 5, 7))
    if board != runout[: len(board)]:
        return f"{where}: the board is {board}, the seed deals {runout[: len(board)]}"
    return None


def histories(out: Path) -> list[Path]:
    """The PHH histories the dealer wrote under ``out``: the files of its ``hands/`` folders, never
    one under a ``scratch/`` folder (a bot could plant one there to fail the check, or pad it) nor
    under ``interrupted/`` (cut off mid-write); links are not followed."""
    found: list[Path] = []
    for folder, dirs, files in os.walk(out):
        dirs[:] = [d for d in dirs if d not in (SCRATCH, INTERRUPTED)]
        if os.path.basename(folder) == HANDS:
            found.extend(Path(folder, name) for name in files if name.endswith(".phhs"))
    return sorted(found)


def verify(out: Path) -> Verification:
    """Re-deal every hand the dealer recorded under ``out`` (``histories``) from its revealed seed;
    ValueError if there is no seed."""
    seed, dealing = revealed(out)
    result = Verification(seed)
    for path in histories(out):
        result.files += 1
        try:
            tables = tomllib.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as error:
            result.mismatches.append(f"{path}: not a readable PHH file: {error}")
            continue
        for index, hand in tables.items():
            result.hands += 1
            mismatch = _check_hand(result.seed, hand, f"{path}[{index}]", dealing)
            if mismatch is not None:
                result.mismatches.append(mismatch)
    return result
