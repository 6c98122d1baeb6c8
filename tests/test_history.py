"""The PHH writer: its text read back with ``tomllib`` must say what happened in the hand."""

from __future__ import annotations

import random
import tomllib
from pathlib import Path

import pytest

from dealer.engine.cards import cards_text, shuffled_deck
from dealer.engine.history import Fields, PhhsWriter, phh_text
from dealer.engine.rules import Acted, Dealt, Hand, Raked, Shown, TableConfig, Variant

# A quote, a backslash, non-ASCII, a control character: each needs TOML's escapes or UTF-8.
NAMES = ('q"uote', "back\\slash", "ünï🂡", 'both\\"', "tab\tnew\nline", "plain")


def random_hand(rng: random.Random, seats: int, variant: Variant) -> Hand:
    """Play a seeded random hand: short stacks (all-ins, side pots), antes and rake sometimes."""
    big = rng.choice((2, 10, 20))
    stacks = tuple(rng.randint(1, 5 * big) if rng.random() < 0.5 else rng.randint(1, 100 * big) for _ in range(seats))
    config = TableConfig(stacks=stacks, button=rng.randrange(seats), small_blind=big // 2, big_blind=big,
                         variant=variant, ante=rng.choice((0, 1)), rake_bps=rng.choice((0, 500)),
                         rake_cap=20)  # fmt: skip
    hand = Hand(config, shuffled_deck(rng.randrange(10**9)))
    while hand.actor is not None:
        legal = hand.legal()
        choice = rng.choice(["call", "call"] + ["fold"] * legal.fold + ["raise"] * legal.can_raise)
        if choice == "fold":
            hand.fold()
        elif choice == "call":
            hand.check_call()
        else:
            hand.raise_to(rng.choice((legal.min_to, legal.max_to)))
    return hand


@pytest.mark.parametrize("seed", range(12))
def test_the_text_reads_back_as_the_hand(seed: int) -> None:
    rng = random.Random(seed)
    seats = (2, 3, 6, 10)[seed % 4]
    variant = tuple(Variant)[seed % 3]
    hand = random_hand(rng, seats, variant)
    names = [NAMES[s % len(NAMES)] + str(s) for s in range(seats)]
    table_seats = sorted(rng.sample(range(10), seats))  # a freezeout hand: some table seats are out
    extra = {"_match": 'm"\\ü', "_rotation": seed, "_flags": [1, 2]}
    text = phh_text(hand, names=names, hand_number=seed, table_seats=table_seats, seat_count=10, extra=extra)
    fields = tomllib.loads(text)

    order = hand.order
    final = hand.final_stacks()
    assert fields["variant"] == {Variant.NO_LIMIT: "NT", Variant.POT_LIMIT: "PLT", Variant.FIXED_LIMIT: "FT"}[variant]
    assert fields["players"] == [names[s] for s in order]
    assert fields["starting_stacks"] == [hand.config.stacks[s] for s in order]
    assert fields["finishing_stacks"] == [final[s] for s in order]
    assert fields["seats"] == [table_seats[s] + 1 for s in order]
    assert (fields["hand"], fields["seat_count"]) == (seed, 10)
    assert fields["antes"] == [hand.config.ante] * seats
    assert fields["blinds_or_straddles"][:2] == [hand.config.small_blind, hand.config.big_blind]
    assert fields.get("_rake", 0) == sum(e.amount for e in hand.events if isinstance(e, Raked))
    assert {key: fields[key] for key in extra} == extra

    actions = fields["actions"]
    kinds = [type(e) for e in hand.events]
    assert len(actions) == seats + kinds.count(Acted) + kinds.count(Dealt) + kinds.count(Shown)
    assert actions[:seats] == [f"d dh p{k + 1} {cards_text(hand.hole[s])}" for k, s in enumerate(order)]
    decisions = [a.split(" ", 1) for a in actions if not a.startswith("d ") and " sm " not in a]
    acted = [e for e in hand.events if isinstance(e, Acted)]
    assert [player for player, _ in decisions] == [f"p{hand.position[e.seat] + 1}" for e in acted]
    expected = {"fold": "f", "check": "cc", "call": "cc"}
    assert [what for _, what in decisions] == [expected.get(e.kind, f"cbr {e.to}") for e in acted]
    boards = "".join(a[5:] for a in actions if a.startswith("d db "))
    assert boards == cards_text(hand.board)
    shows = [k for k, a in enumerate(actions) if " sm " in a]
    assert [actions[k].split()[2] for k in shows] == [cards_text(e.cards) for e in hand.events if isinstance(e, Shown)]
    if shows:  # together, where the betting ends: before the boards of an all-in run-out
        assert shows == list(range(shows[0], shows[0] + len(shows)))
        assert not actions[shows[0] - 1].startswith("d db ") or not acted


def test_names_are_escaped_exactly() -> None:
    rng = random.Random(7)
    hand = random_hand(rng, 2, Variant.NO_LIMIT)
    names = ['say "hi"\\', "日本語 ü"]
    text = phh_text(hand, names=names)
    assert "players = [" in text and '"say \\"hi\\"\\\\"' in text and '"日本語 ü"' in text
    assert tomllib.loads(text)["players"] == [names[s] for s in hand.order]


def check_down(rake_bps: int) -> Hand:
    """A heads-up hand of 100/200 blinds checked down: raked when ``rake_bps`` is not 0."""
    config = TableConfig(stacks=(5000, 5000), button=0, small_blind=100, big_blind=200, rake_bps=rake_bps)
    hand = Hand(config, shuffled_deck(11))
    while hand.actor is not None:
        hand.check_call()
    return hand


@pytest.mark.parametrize("field", ["match", "_seed", "_deck", "actions", "hand", "_rake"])
def test_extra_fields_must_be_new_and_start_with_underscore(field: str) -> None:
    with pytest.raises(ValueError, match="must start with '_'"):
        phh_text(check_down(500), hand_number=1, extra={"_ok": 1, field: 1})


def test_an_unraked_hand_takes_a_rake_field_of_the_caller() -> None:
    fields = tomllib.loads(phh_text(check_down(0), extra={"_rake": 5}))
    assert fields["_rake"] == 5
    assert tomllib.loads(phh_text(check_down(500)))["_rake"] == 20


def test_fields_written_once_are_the_fields_of_every_hand_and_names_are_remembered_by_order() -> None:
    """A table's ``Fields`` (checked and written once) write what its mapping writes, in any hand; a
    raked hand still refuses a ``_rake`` among them, as its unraked twin takes it; the players' line,
    remembered, follows the names in another order."""
    hand, raked = check_down(0), check_down(500)
    for value in (1, True, 1.0, "1", [1, True]):
        extra = {"_table": "t", "_flag": value}
        text = phh_text(hand, hand_number=3, extra=Fields(extra))
        assert text == phh_text(hand, hand_number=3, extra=extra)
        assert tomllib.loads(text)["_flag"] == value and type(tomllib.loads(text)["_flag"]) is type(value)
        assert phh_text(raked, extra=Fields(extra)) == phh_text(raked, extra=extra)
    assert tomllib.loads(phh_text(hand, extra=Fields({"_rake": 5})))["_rake"] == 5
    with pytest.raises(ValueError, match="'_rake' must start with '_'"):
        phh_text(raked, extra=Fields({"_rake": 5}))
    with pytest.raises(ValueError, match="'match' must start with '_'"):
        Fields({"_ok": 1, "match": 1})
    for names in (["a", "b"], ["b", "a"], ["a", "b"], ['"a"', "b"]):
        assert tomllib.loads(phh_text(hand, names=names))["players"] == [names[s] for s in hand.order]


@pytest.mark.parametrize("chunk_chars", [1, 50, 1 << 14])
def test_phhs_writer_streams_the_tables_of_a_phhs_file(tmp_path: Path, chunk_chars: int) -> None:
    """Hands appended one by one, flushed in chunks of any size, give tables [1], [2], ... with a
    blank line between them; PHH readers (tomllib here) read them back in order."""
    rng = random.Random(5)
    texts = [f'hand = {k}\nplayers = ["a", "b{"x" * rng.randrange(80)}"]\n' for k in range(37)]
    path = tmp_path / "t.phhs"
    path.write_text("left over from an earlier run", encoding="utf-8")
    writer = PhhsWriter(path, chunk_chars)
    assert path.read_text() == ""  # created (truncated) at once: a table with no hands has an empty file
    for text in texts:
        writer.add(text)
    writer.flush()
    data = path.read_text(encoding="utf-8")
    assert data == "\n".join(f"[{k}]\n{text}" for k, text in enumerate(texts, 1))
    assert [table["hand"] for _, table in sorted(tomllib.loads(data).items(), key=lambda kv: int(kv[0]))] == list(
        range(37)
    )
    assert writer.hands == 37
