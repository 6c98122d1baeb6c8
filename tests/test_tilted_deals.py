"""Tilted deals: the hole cards, flop, turn and river drawn from a proposal q that deals more of the hands
and boards where the two hands meet, each deal weighted by p / q (``dealer.stats.tilted_deals``): the
weighted mean is the plain mean whatever the bots do and whatever the proposal's scores and uniform shares."""

from __future__ import annotations

import dataclasses
import json
import os
import random
import subprocess
import sys
from fractions import Fraction
from itertools import combinations
from pathlib import Path

import pytest

from conftest import PY_BOTS, ROOT
from dealer.engine.cards import parse_cards, shuffled_deck
from dealer.engine.evaluator import evaluate, hand_category
from dealer.engine.rules import Hand, TableConfig
from dealer.stats.luck_features import FEATURES
from dealer.stats.paired import sample_of
from dealer.stats.records import HandRecord
from dealer.stats.tilted_deals import (
    HANDS,
    HEADS_UP_CARDS,
    HOLE_COUNTS,
    PROPOSAL,
    PROPOSAL_VERSION,
    RIVER,
    TURN,
    Proposal,
    dealt,
    draw_flop,
    draw_holes,
    draw_turn_river,
    flop_level,
    hole_class,
    nth_flop,
    pick,
    tilted_deck,
)

HU = TableConfig(stacks=(10_000, 10_000), button=1, small_blind=50, big_blind=100)
HOLES = (tuple(parse_cards("Ts9s")), tuple(parse_cards("JhTd")))
FLOP = parse_cards("Jc8s2d")
DEALER = str(Path(sys.executable).parent / "dealer")


def _deck(board: list[int]) -> list[int]:
    """A heads-up deck dealing ``HOLES`` by position and ``board`` (burns from the rest)."""
    (a0, a1), (b0, b1) = HOLES
    rest = [c for c in range(52) if c not in {a0, a1, b0, b1, *board}]
    return [a0, b0, a1, b1, rest.pop(), *board[:3], rest.pop(), board[3], rest.pop(), board[4], *rest]


def _bot(bet_from: int, call_from: int):
    """A reactive bot: bets the pot from hand category ``bet_from``, calls from ``call_from``."""

    def act(hand: Hand) -> None:
        s, legal = hand.actor, hand.legal()
        assert s is not None
        category = evaluate((*hand.hole[s], *hand.board)) >> 20 if hand.board else 0
        if category >= bet_from and legal.can_raise:
            hand.raise_to(min(legal.max_to, max(legal.min_to, hand.total_pot())))
        elif category >= call_from or legal.call == 0:
            hand.check_call()
        else:
            hand.fold()

    return act


BOTS = {"new": _bot(2, 2), "old": _bot(1, 1)}  # old bets and calls any pair: stacks go in on coolers


def _play(seats: tuple[str, str], board: list[int], table: int, weight: float) -> HandRecord:
    """One hand on ``board``: the small blind limps, the big blind checks, then the bots of ``seats``."""
    hand = Hand(HU, _deck(board))
    hand.check_call()
    hand.check_call()
    while hand.actor is not None:
        BOTS[seats[hand.actor]](hand)
    net = {name: hand.final_stacks()[s] - HU.stacks[s] for s, name in enumerate(seats)}
    return HandRecord(table, "d", 0, 100, net, None, None, None, None, weight)


FLAT_FLOP = ((1, 1, 1), (1, 1), (1,))
FLAT_HOLES = tuple((1,) * (6 - k) for k in range(6))
PROPOSALS = [
    PROPOSAL,
    Proposal(
        ((1, 50), (3, 7, 2)),
        Fraction(1, 1000),
        ((1, 90, 2), (40, 1), (7,)),
        Fraction(1, 1000),
        tuple((80,) + (1,) * (5 - k) for k in range(6)),
        Fraction(1, 1000),
    ),
    # every score alike: q = p, every weight 1
    Proposal(((5,),), Fraction(1, 2), FLAT_FLOP, Fraction(1, 3), FLAT_HOLES, Fraction(1, 4)),
    Proposal(
        tuple(tuple(random.Random(k).randint(1, 60) for _ in range(4)) for k in range(3)),
        Fraction(3, 7),
        tuple(tuple(random.Random(10 + k).randint(1, 60) for _ in range(3 - k)) for k in range(3)),
        Fraction(2, 9),
        tuple(tuple(random.Random(20 + k).randint(1, 60) for _ in range(6 - k)) for k in range(6)),
        Fraction(5, 11),
    ),
]


def test_tilted_weights_keep_the_raw_mean_over_the_whole_tree_whatever_the_proposal():
    # The tree: fixed holes and flop, then every {turn, river} in both orders, each of probability
    # 1 / (2 N) under the shuffle. A deal is both seatings of new against old, weighted through
    # sample_of by the proposal's p / q; its q is the proposal's mass over the total (pick lays the
    # masses end to end, checked at every boundary below). E_q[w X] must be E_p[X] whatever q is.
    pairs, _ = PROPOSAL.runouts(HOLES, FLOP)
    played = {}
    for t, r in pairs:
        for board in ([*FLOP, t, r], [*FLOP, r, t]):
            played[tuple(board)] = [_play(("new", "old"), board, 0, 1.0), _play(("old", "new"), board, 1, 1.0)]
    plain = [sample_of(("m", "d", 0), hands, "new", "old") for hands in played.values()]
    raw_mean = Fraction(sum(Fraction(s.value("raw")) for s in plain if s is not None), len(played))
    assert max(abs(s.value("raw")) for s in plain if s is not None) > 1000  # bb/100: stacks change hands
    for proposal in PROPOSALS:
        pairs, scores = proposal.runouts(HOLES, FLOP)
        masses = proposal.masses(scores)
        total = sum(masses)
        mean, largest, smallest = Fraction(0), 0.0, 2.0
        for (t, r), mass, k in zip(pairs, masses, range(len(pairs)), strict=True):
            w = proposal.weight(scores, k)
            assert w == Fraction(1, len(pairs)) / Fraction(mass, total)  # p / q, exactly
            largest, smallest = max(largest, float(w)), min(smallest, float(w))
            for board in ((*FLOP, t, r), (*FLOP, r, t)):  # the turn is either card: a fair coin
                hands = [_weighted(h, w) for h in played[board]]
                sample = sample_of(("m", "d", 0), hands, "new", "old")
                assert sample is not None
                mean += Fraction(mass, total) / 2 * Fraction(sample.value("raw"))
        assert float(mean) == pytest.approx(float(raw_mean), rel=1e-12, abs=1e-9)
        assert smallest <= largest <= 1 / proposal.uniform
        if len({g for row in proposal.scores for g in row}) > 1:
            assert largest / smallest > 2  # the proposal does tilt (the test is not vacuous)


def _weighted(record: HandRecord, weight: Fraction) -> HandRecord:
    return HandRecord(*(getattr(record, f) for f in HandRecord.__dataclass_fields__ if f != "weight"), float(weight))


def test_the_flop_stage_gives_every_flop_q_times_w_equal_to_p_exactly_whatever_the_proposal():
    # The flop's stage over every one of the 17,296 flops of two hands: the groups by rank count each flop
    # once (nth_flop is a bijection onto the flops the cards left make), and each flop's probability under
    # the proposal times its weight is the shuffle's 1 / N1, exactly: E_q1[w1 X] = E_p1[X] for any result X
    # of the deal's flop (the turn and river's stage, above, keeps it given the flop).
    for holes in (HOLES, (tuple(parse_cards("AsAh")), tuple(parse_cards("Ad7d")))):
        left = [c for c in range(52) if c not in {*holes[0], *holes[1]}]
        every = set(combinations(left, 3))
        for proposal in PROPOSALS:
            groups = proposal.flop_groups(holes)
            masses = proposal.flop_masses(groups)
            total = sum(count * mass for (_, count, _), mass in zip(groups, masses, strict=True))
            b = proposal.flop_uniform.denominator
            assert total == b * len(every) * sum(count * g for _, count, g in groups)
            seen, weights = set(), set()
            for (ranks, count, g), mass in zip(groups, masses, strict=True):
                for index in range(count):
                    flop = nth_flop(holes, ranks, index)
                    assert sorted(c // 4 for c in flop) == list(ranks)
                    assert proposal.flop_score(holes, ranks) == g
                    seen.add(tuple(sorted(flop)))
                w = Fraction(b * sum(c * s for _, c, s in groups), mass)
                assert Fraction(mass, total) * w == Fraction(1, len(every))  # q1 w1 = p1
                assert w <= 1 / proposal.flop_uniform
                weights.add(w)
            assert seen == every
            assert (len(weights) == 1) == (proposal.flop_scores == FLAT_FLOP)  # tilts unless the scores are flat


def test_the_holes_stage_gives_every_pair_of_hands_q_times_w_equal_to_p_exactly_whatever_the_proposal():
    # The holes' stage over every one of the 1,624,350 pairs (seat 0's hand, seat 1's) of disjoint hands,
    # counted here by brute force: the counts by class the stage lays its masses on are these, and each
    # pair's probability under the proposal's definition, (1 - u0) g / G0 + u0 / N0, times its weight is the
    # shuffle's 1 / N0, exactly: E_q0[w0 X] = E_p0[X] for any result X of the holes (the later stages keep it).
    classes = {hand: hole_class(hand) for hand in HANDS}
    counts = [[0] * 6 for _ in range(6)]
    for hand in HANDS:
        for other in HANDS:
            if hand[0] not in other and hand[1] not in other:
                counts[classes[hand]][classes[other]] += 1
    pairs = 1326 * 1225
    assert tuple(map(tuple, counts)) == HOLE_COUNTS and sum(map(sum, counts)) == pairs and min(map(min, counts)) > 0
    for proposal in PROPOSALS:
        u = proposal.hole_uniform
        total = sum(counts[i][j] * proposal.hole_score(i, j) for i in range(6) for j in range(6))
        weights, mass = set(), Fraction(0)
        for i in range(6):
            for j in range(6):
                q = (1 - u) * Fraction(proposal.hole_score(i, j), total) + u / pairs
                w = proposal.hole_weight(i, j)
                assert q * w == Fraction(1, pairs) and w <= 1 / u  # q0 w0 = p0
                assert proposal.hole_score(i, j) == proposal.hole_score(j, i)  # the seats alike
                weights.add(w)
                mass += counts[i][j] * q
        assert mass == 1
        assert (len(weights) == 1) == (proposal.hole_scores == FLAT_HOLES)  # tilts unless the scores are flat


def test_the_hole_classes_and_the_holes_drawn_with_their_mass_in_a_fair_order():
    named = {"AsAh": 0, "JcJd": 0, "TsTh": 1, "2c2d": 1, "KsQd": 2, "AhTc": 2, "Ah9c": 3, "9s8s": 4, "Ks9s": 4}
    for text, expected in {**named, "7h2c": 5, "Kd9s": 5}.items():
        hand = tuple(parse_cards(text))
        assert hole_class(hand) == hole_class(hand[::-1]) == expected, text
    score = {(i, j): PROPOSAL.hole_score(i, j) for i in range(6) for j in range(6)}
    top = {cell for cell, g in score.items() if g >= 7}
    pairs = sum(map(sum, HOLE_COUNTS))
    p_top = sum(HOLE_COUNTS[i][j] for i, j in top) / pairs
    q_top = sum(HOLE_COUNTS[i][j] / PROPOSAL.hole_weight(i, j) for i, j in top) / pairs
    weights, tops, orders = [], 0, set()
    for k in range(600):
        holes, w = draw_holes(f"h/{k}")
        assert len({*holes[0], *holes[1]}) == 4
        cell = (hole_class(holes[0]), hole_class(holes[1]))
        assert w == PROPOSAL.hole_weight(*cell)  # its own p / q
        weights.append(float(w))
        tops += cell in top
        orders.add((holes[0][0] < holes[0][1], holes[1][0] < holes[1][1]))
    mean = sum(weights) / len(weights)
    spread = (sum((w - mean) ** 2 for w in weights) / (len(weights) - 1) / len(weights)) ** 0.5
    assert abs(mean - 1) < 4 * spread  # E_q[w] = 1
    assert q_top > 1.5 * p_top and abs(tops / 600 - q_top) < 4 * (q_top * (1 - q_top) / 600) ** 0.5
    assert len(orders) == 4  # each hand's two cards in either order
    with pytest.raises(ValueError, match="rows of 6, 5"):
        Proposal(hole_scores=((1, 2),))


def test_the_flop_levels_are_the_categories_of_the_ranks_above_the_flops_own():
    # flop_level reads ranks alone; where no straight or flush can be made it is the evaluator's category
    # of hole and flop, capped at two pair, if above the flop's own (a pair or trips on the flop plays)
    rng = random.Random(7)
    checked = 0
    while checked < 400:
        cards = rng.sample(range(52), 5)
        suits, ranks = [c % 4 for c in cards], sorted({c // 4 for c in cards})
        straight = len(ranks) == 5 and (ranks[4] - ranks[0] == 4 or ranks == [0, 1, 2, 3, 12])
        if straight or max(suits.count(s) for s in suits) >= 5:
            continue
        hole, flop = cards[:2], cards[2:]
        own = {3: 0, 2: 1, 1: 3}[len({c // 4 for c in flop})]
        category = hand_category(evaluate(cards))
        expected = min(category, 2) if category > own else 0
        assert flop_level((hole[0] // 4, hole[1] // 4), tuple(sorted(c // 4 for c in flop))) == expected
        checked += 1
    assert flop_level((5, 5), (1, 5, 9)) == 2 and flop_level((5, 5), (1, 1, 9)) == 2  # a set; two pair
    assert flop_level((5, 6), (1, 1, 9)) == 0 and flop_level((5, 5), (1, 2, 9)) == 1  # the board's pair plays


def test_the_runouts_fast_scores_are_the_readable_definition_for_any_proposal():
    # runouts scores the 990 run-outs from summed card keys (the dealer's hot path); score is the definition
    for key in ("a/0/0", "a/1/5", "flush-heavy/2/9"):
        deck = shuffled_deck(key, 12)
        holes, flop = ((deck[0], deck[2]), (deck[1], deck[3])), deck[5:8]
        for proposal in PROPOSALS:
            pairs, scores = proposal.runouts(holes, flop)
            assert len(pairs) == 990 and scores == [proposal.score(holes, [*flop, t, r]) for t, r in pairs]
    pairs, scores = PROPOSAL.runouts(HOLES, FLOP)
    assert len(set(scores)) >= 4  # the deals tested reach several scores (flushes and boards that play too)


def test_the_sampler_draws_each_pair_with_its_mass_and_the_deck_is_the_shuffle_with_it_swapped_in():
    pairs, scores = PROPOSAL.runouts(HOLES, FLOP)
    masses = PROPOSAL.masses(scores)
    start = 0
    for k, mass in enumerate(masses):  # pick lays the masses end to end: the first and last point of each
        assert pick(masses, start) == pick(masses, start + mass - 1) == k
        start += mass
    assert start == PROPOSAL.uniform.denominator * len(pairs) * sum(scores)
    # drawn with the key's stream: E_q[w] = 1, and the high scores come far more often than under p
    weights, high = [], 0
    for k in range(600):
        turn, river, w = draw_turn_river(f"s/{k}", HOLES, FLOP)
        index = pairs.index((min(turn, river), max(turn, river)))
        assert w == PROPOSAL.weight(scores, index)
        weights.append(float(w))
        high += scores[index] >= 8
    mean = sum(weights) / len(weights)
    spread = (sum((w - mean) ** 2 for w in weights) / (len(weights) - 1) / len(weights)) ** 0.5
    assert abs(mean - 1) < 4 * spread
    p_high = sum(g >= 8 for g in scores) / len(scores)
    q_high = sum(m for m, g in zip(masses, scores, strict=True) if g >= 8) / sum(masses)
    assert q_high > p_high + 0.2 and abs(high / len(weights) - q_high) < 4 * (q_high * (1 - q_high) / 600) ** 0.5
    # the deck: the drawn holes, flop, turn and river, a permutation, the same for the same key
    for key in ("c/0/3", "c/1/17", "league-seed-0123456789/c/5/40"):
        deck, weight = tilted_deck(key)
        assert len(deck) == HEADS_UP_CARDS == len(set(deck))
        holes, hole_weight = draw_holes(key)
        assert ((deck[0], deck[2]), (deck[1], deck[3])) == holes
        flop, flop_weight = draw_flop(key, holes)
        assert list(deck[5:8]) == flop
        turn, river, runout_weight = draw_turn_river(key, holes, flop)
        assert (deck[TURN], deck[RIVER], weight) == (turn, river, hole_weight * flop_weight * runout_weight)
        assert dealt(key, 12, "tilted") == (list(deck), float(weight)) == dealt(key, 12, "tilted")
        assert dealt(key, 12, "plain") == (shuffled_deck(key, 12), 1.0)
    with pytest.raises(ValueError, match="heads-up tables"):
        dealt("k", 14, "tilted")
    with pytest.raises(ValueError, match="whole numbers >= 1"):
        Proposal(((1, 0),))
    with pytest.raises(ValueError, match="rows of 3, 2 and 1"):
        Proposal(((1, 2),), Fraction(1, 2), ((1, 2),))


def test_the_flop_is_drawn_with_its_mass_and_in_a_fair_order():
    holes = HOLES
    groups = PROPOSAL.flop_groups(holes)
    masses = PROPOSAL.flop_masses(groups)
    by_flop = {}
    for (ranks, count, g), mass in zip(groups, masses, strict=True):
        for index in range(count):
            by_flop[tuple(sorted(nth_flop(holes, ranks, index)))] = (g, mass)
    total = sum(mass for _, mass in by_flop.values())
    top = max(g for g, _ in by_flop.values())
    q_top = sum(mass for g, mass in by_flop.values() if g == top) / total
    p_top = sum(g == top for g, _ in by_flop.values()) / len(by_flop)
    weights, tops, firsts = [], 0, set()
    for k in range(600):
        flop, w = draw_flop(f"f/{k}", holes)
        g, mass = by_flop[tuple(sorted(flop))]
        assert w == Fraction(total, len(by_flop) * mass)  # its own p / q
        weights.append(float(w))
        tops += g == top
        firsts.add(flop.index(min(flop)))
    mean = sum(weights) / len(weights)
    spread = (sum((w - mean) ** 2 for w in weights) / (len(weights) - 1) / len(weights)) ** 0.5
    assert abs(mean - 1) < 4 * spread  # E_q[w] = 1
    assert q_top > 2 * p_top and abs(tops / 600 - q_top) < 4 * (q_top * (1 - q_top) / 600) ** 0.5
    assert firsts == {0, 1, 2}  # the order on the table is drawn, not the groups' own


def test_a_deal_weight_scales_every_figure_of_its_sample_and_one_deal_has_one_weight():
    board = [*FLOP, *parse_cards("Th2c")]
    hands = [_play(("new", "old"), board, 0, 1.0), _play(("old", "new"), board, 1, 1.0)]
    plain = sample_of(("m", "d", 0), hands, "new", "old")
    tilted = sample_of(("m", "d", 0), [_weighted(h, Fraction(1, 4)) for h in hands], "new", "old")
    assert plain is not None and tilted is not None and plain.raw != 0
    assert (tilted.raw, tilted.adjusted, tilted.luck) == (plain.raw / 4, plain.adjusted / 4, plain.luck / 4)
    assert tilted.plain == tuple(x / 2 for x in plain.plain)  # the square root: their mean square is p's

    # the learned correction's luck features are weighted alike (its cross-fit then keeps the mean)
    def rows(table: int) -> dict[str, tuple[float, ...]]:  # new's features differ from old's, and by seating
        return {"new": tuple(k * (table + 2.0) for k in range(len(FEATURES))), "old": (1.0,) * len(FEATURES)}

    featured = [dataclasses.replace(h, luck_net=dict(h.net), features=rows(h.table)) for h in hands]
    one = sample_of(("m", "d", 0), featured, "new", "old")
    quarter = sample_of(("m", "d", 0), [_weighted(h, Fraction(1, 4)) for h in featured], "new", "old")
    assert one is not None and quarter is not None and one.controls and any(one.controls)
    assert quarter.controls == tuple(c / 4 for c in one.controls) and quarter.value("full") == one.value("full") / 4
    with pytest.raises(ValueError, match="different weights"):
        sample_of(("m", "d", 0), [hands[0], _weighted(hands[1], Fraction(1, 2))], "new", "old")


def _compare(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "DEALER_SEED": "tilted-deals-cli-0001-seed"}
    bots = [f"{sys.executable} {PY_BOTS / 'strength_bot.py'}", f"{sys.executable} {PY_BOTS / 'random_bot.py'}"]
    command = [DEALER, "compare", *bots, "--out", str(tmp_path / "c"), "--no-sealed", *args]
    return subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)


def test_cli_compare_on_tilted_deals_says_so_and_verify_re_deals_them(tmp_path):
    done = _compare(tmp_path, "--deals", "tilted", "--hands", "240", "--tables", "2", "--json")
    assert done.returncode in (0, 10, 12), done.stderr
    data = json.loads(done.stdout.strip().splitlines()[-1])
    assert data["dealing"] == "tilted" and data["hands"] == 240 and data["faults"] == {}
    saved = json.loads((tmp_path / "c" / "compare.json").read_text())
    assert saved["dealing"] == "tilted" and saved["tilted_proposal"] == data["tilted_proposal"] == PROPOSAL_VERSION == 3
    verify = [DEALER, "verify", str(tmp_path / "c")]
    checked = subprocess.run(verify, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert checked.returncode == 0 and "240 hands" in checked.stdout and ": ok" in checked.stdout, checked.stdout
    # a comparison whose tilted deals an earlier proposal drew (none named: the first) is refused in one line
    for earlier in (2, None):
        if earlier is None:
            del saved["tilted_proposal"]
        else:
            saved["tilted_proposal"] = earlier
        (tmp_path / "c" / "compare.json").write_text(json.dumps(saved))
        older = subprocess.run(verify, cwd=ROOT, capture_output=True, text=True, timeout=120)
        assert older.returncode != 0 and older.stdout == "" and len(older.stderr.strip().splitlines()) == 1
        assert f"drawn by proposal {earlier or 1} (tilted_proposal)" in older.stderr, older.stderr
        assert "deals proposal 3 only" in older.stderr
    # the hole cards, flop, turn and river are not the shuffle's: read as plain deals, the histories fail verify
    saved["dealing"] = "plain"
    (tmp_path / "c" / "compare.json").write_text(json.dumps(saved))
    plain = subprocess.run(verify, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert plain.returncode == 1 and " was dealt " in plain.stdout
    refused = _compare(tmp_path, "--deals", "tilted", "--estimator", "baseline", "--fresh")
    assert refused.returncode == 2 and refused.stderr.splitlines() == [  # refused before a seed is committed to
        "error: --deals tilted: the baseline's twin deals would not be tilted alike; choose another --estimator"
    ]
