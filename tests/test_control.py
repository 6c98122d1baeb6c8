"""dealer.stats.control and dealer.stats.luck_features: the learned luck correction keeps the raw mean exactly over
a whole enumerated tree of cards (whatever its weights), its cross-fitted weights are those of a fit
on the other folds, its sums do not depend on the order samples come in, and on simulated samples
the cross-fitted estimate stays unbiased while it removes variance."""

from __future__ import annotations

import json
import random
import statistics

import pytest

from dealer.engine.cards import parse_cards
from dealer.engine.evaluator import evaluate
from dealer.engine.rules import Hand, TableConfig
from dealer.stats.control import LEARNED_PRIOR, ControlSums
from dealer.stats.crossfit import FOLDS, MIN_FIT, RIDGE, solve
from dealer.stats.luck_features import DUEL_COLUMNS, FEATURES, STRENGTHS, luck_features, strength
from dealer.stats.paired import CONTROL_COLUMNS, PairedSums, Sample, sample_of
from dealer.stats.records import HandRecord

HU = TableConfig(stacks=(10_000, 10_000), button=1, small_blind=50, big_blind=100)


def _deck(holes: list[list[int]], board: list[int]) -> list[int]:
    """A heads-up deck dealing ``holes`` by position and ``board`` (as tests/test_aivat.py)."""
    rest = [c for c in range(52) if c not in set(board) | {c for h in holes for c in h}]
    deck = [holes[0][0], holes[1][0], holes[0][1], holes[1][1], rest.pop(), *board[:3], rest.pop()]
    return [*deck, board[3], rest.pop(), board[4], *rest]


def _reactive(hand: Hand) -> None:
    """Bet half the pot with two pair or better, call with a pair, else check or fold."""
    while hand.actor is not None:
        s, legal = hand.actor, hand.legal()
        category = evaluate((*hand.hole[s], *hand.board)) >> 20 if hand.board else 0
        if category >= 2 and legal.can_raise:
            hand.raise_to(min(legal.max_to, max(legal.min_to, hand.total_pot() // 2)))
        elif category >= 1 or legal.call == 0:
            hand.check_call()
        else:
            hand.fold()


def test_learned_correction_keeps_the_raw_mean_over_every_turn_and_river_whatever_its_weights():
    # Every turn and every river after a fixed flop, the bots betting and folding by the cards that
    # came: each turn and river column averages to zero over the tree, so the result minus any
    # weighted sum of them has exactly the raw result's mean (the deal's and flop's columns are the
    # same on every branch here: their cards are fixed).
    holes, flop = [parse_cards("AhKh"), parse_cards("QsQd")], parse_cards("2h7hJc")
    unseen = [c for c in range(52) if c not in set(flop) | {c for h in holes for c in h}]
    later = [FEATURES.index(f) for f in FEATURES if f.endswith(("turn", "river"))]
    rng = random.Random(3)
    weights = [[rng.uniform(-3, 3) for _ in later] for _ in range(3)]
    raw, corrected, count = [0.0, 0.0], [[0.0, 0.0] for _ in weights], 0
    sums, largest = [0.0] * len(FEATURES), [0.0] * len(FEATURES)
    for turn in unseen:
        for river in unseen:
            if river == turn:
                continue
            hand = Hand(HU, _deck(holes, [*flop, turn, river]))
            hand.check_call()  # the small blind limps
            hand.raise_to(300)  # the big blind raises: the pot and stacks behind are not the defaults
            hand.check_call()
            hand.check_call(), hand.check_call()  # the flop checked through
            _reactive(hand)
            rows = luck_features(hand)
            count += 1
            for seat, row in enumerate(rows):  # seat 1 is on the button: its button columns
                net = hand.final_stacks()[seat] - HU.stacks[seat]
                raw[seat] += net
                for k, w in enumerate(weights):
                    corrected[k][seat] += net - sum(wj * row[j] for wj, j in zip(w, later, strict=True))
                for j in range(len(FEATURES)):
                    sums[j] += row[j] if seat == 0 or FEATURES[j].startswith("button") else 0.0
                    largest[j] = max(largest[j], abs(row[j]))
    assert count == len(unseen) * (len(unseen) - 1)
    for j in later:
        assert abs(sums[j] / count) < 1e-6, FEATURES[j]  # ... and averages to zero over the tree
    assert min(largest[j] for j in later) > 100  # each column is far from zero on some branch ...
    for totals in corrected:  # so any weights keep the mean
        assert [t / count for t in totals] == pytest.approx([r / count for r in raw], abs=1e-6)


def test_learned_columns_are_not_zero_and_the_deal_column_is_exchangeable():
    # The columns vary with the cards (the test above is not vacuous), and the deal's column swaps
    # sign when the two seats' hole cards swap: over all deals it averages to zero exactly.
    holes, board = [parse_cards("AhKh"), parse_cards("QsQd")], parse_cards("2h7hJc9s3d")
    hand = Hand(HU, _deck(holes, board))
    hand.check_call()
    hand.check_call()
    _reactive(hand)
    swapped = Hand(HU, _deck(holes[::-1], board))
    swapped.check_call()
    swapped.check_call()
    _reactive(swapped)
    deal = FEATURES.index("behind deal")
    a, b = luck_features(hand), luck_features(swapped)
    assert a[0][deal] == pytest.approx(-b[0][deal]) and a[0][deal] != 0
    assert sum(abs(x) for x in a[0]) > 100


def test_duel_columns_are_split_by_the_new_versions_seat_so_that_the_two_seatings_do_not_cancel():
    # Both seatings of a duplicate deal played alike (the same reactive play by position): each
    # seat's duel terms are equal and opposite, so new - old summed over the two hands would be 0.
    # Split by the seat the new version held, they say which version the turn's two pair favoured.
    holes, board = [parse_cards("AhKh"), parse_cards("QsQd")], parse_cards("2h7hJcJh3d")
    records = []
    for table, names in enumerate((("new", "old"), ("old", "new"))):
        hand = Hand(HU, _deck(holes, board))
        hand.check_call(), hand.check_call(), hand.check_call(), hand.check_call()
        _reactive(hand)
        rows = luck_features(hand)
        net = {name: hand.final_stacks()[s] - HU.stacks[s] for s, name in enumerate(names)}
        features = {name: tuple(rows[s]) for s, name in enumerate(names)}  # by engine seat, as a table's record
        records.append(HandRecord(table, "d", 0, 100, net, None, {k: float(v) for k, v in net.items()}, None, features))
    duel = [FEATURES.index(f) for f in FEATURES if f.startswith("duel")]
    assert duel == list(DUEL_COLUMNS) == list(range(len(FEATURES) - len(duel), len(FEATURES)))
    turn = FEATURES.index("duel two pair turn")
    assert rows[0][turn] == pytest.approx(-rows[1][turn]) and abs(rows[0][turn]) > 1000  # Jh: flush against two pair
    sample = sample_of(("m", "d", 0), records, "new", "old")
    assert sample is not None and sample.controls is not None
    assert len(sample.controls) == len(FEATURES) + len(duel)
    first, second = sample.controls[duel[0] : len(FEATURES)], sample.controls[len(FEATURES) :]
    assert first[1] == pytest.approx(100 * (2 * rows[0][turn] / 100) / 2)  # bb/100 over the two hands: new held seat 0
    assert second == pytest.approx([-x for x in first])  # the other seating: the same terms, opposite
    assert sample.raw == 0  # the versions played alike: nothing to correct, the columns only split


def test_strength_duels_see_the_war_of_two_hands_that_only_match_the_boards_category_and_keep_their_mean():
    # The river 7d gives 9h6h a full house and 7s9s two pair (jacks and sevens) on a board of two pair:
    # no hand's category beats the board's, so the pair and two pair duels stay 0, yet both hands are
    # strong against any other hand (strength-betting bots go to war here): the strength duel of 70 sees
    # it, that of 80 not (7s9s beats 75% of the holdings). Over every river after the same checked-down
    # turn each column averages to exactly zero, as the tree test above checks for every column.
    holes, turn_board = [parse_cards("9h6h"), parse_cards("7s9s")], parse_cards("6d6cJhJc")
    river = [*turn_board, *parse_cards("7d")]
    assert [strength([h], river) for h in holes] == [2, 1] and strength(holes, river) == 1  # 87% and 75%
    assert strength([parse_cards("AhKh")], parse_cards("QhJhTh2c3d")) == len(STRENGTHS)  # the nuts
    assert strength([parse_cards("2c3c")], parse_cards("AhKhQhJhTh")) == 0  # everyone plays the board: half
    columns = {
        name: FEATURES.index(f"duel {name} river") for name in ("pair", "two pair", "strength 70", "strength 80")
    }
    unseen = [c for c in range(52) if c not in set(turn_board) | {c for h in holes for c in h}]
    sums = dict.fromkeys(columns, 0.0)
    for river in unseen:
        hand = Hand(HU, _deck(holes, [*turn_board, river]))
        while hand.actor is not None:
            hand.check_call()  # checked down: the same betting whatever the cards
        rows = luck_features(hand)
        assert all(rows[0][j] == pytest.approx(-rows[1][j]) for j in columns.values())
        for name, j in columns.items():
            sums[name] += rows[0][j] / len(unseen)
        if river == parse_cards("7d")[0]:
            seven = {name: rows[0][j] for name, j in columns.items()}
    assert seven["pair"] == seven["two pair"] == seven["strength 80"] == 0.0 and seven["strength 70"] > 1000
    assert all(abs(mean) < 1e-9 for mean in sums.values()), sums


def _samples(rng: random.Random, n: int, mean: float) -> list[tuple[int, float, list[float]]]:
    """Samples (fold, value, controls): value = mean + 2 z0 - z1 + noise, the controls of mean zero."""
    out = []
    for i in range(n):
        z = [rng.gauss(0, 10), rng.gauss(0, 5) ** 3 / 25, 0.0]  # a heavy-tailed column, one never seen
        out.append((i % FOLDS, mean + 2 * z[0] - z[1] + rng.gauss(0, 3), z))
    return out


def test_solve_and_the_cross_fitted_weights_are_the_fit_on_the_other_folds():
    assert solve([[2.0, 1.0], [1.0, 3.0]], [3.0, 5.0]) == pytest.approx([0.8, 1.4])
    assert solve([[1.0, 0.0], [0.0, 0.0]], [2.0, 0.0]) == [2.0, 0.0]  # a column never seen gets 0
    samples = _samples(random.Random(1), 600, 5.0)
    sums = ControlSums(3)
    for fold, y, z in samples:
        sums.add(fold, y, z)
    n, mean, m2 = sums.moments()
    xs = []
    for fold in range(FOLDS):
        other = [(y, z) for f, y, z in samples if f != fold]
        a = [[sum(z[i] * z[j] for _, z in other) * (1 + RIDGE * (i == j)) for j in range(3)] for i in range(3)]
        fit = solve(a, [sum(z[i] * y for y, z in other) for i in range(3)])
        w = sums.weights(fold)  # the fit on the other folds, shrunk by their inner cross-validation
        assert w[0] / fit[0] == pytest.approx(w[1] / fit[1], rel=1e-9) and 0.9 < w[0] / fit[0] <= 1 + 1e-12
        assert w[0] == pytest.approx(2 / (1 + RIDGE), abs=0.15) and w[2] == 0.0  # the ridge shrinks a little
        xs += [y - sum(wi * zi for wi, zi in zip(w, z, strict=True)) for f, y, z in samples if f == fold]
    assert n == len(xs) and mean == pytest.approx(statistics.fmean(xs), rel=1e-9)
    assert m2 == pytest.approx(statistics.variance(xs) * (n - 1), rel=1e-9)
    assert m2 / (n - 1) < statistics.variance([y for _, y, _ in samples]) / 10  # most of the variance gone


def test_a_fit_that_predicts_nothing_is_not_trusted():
    # Controls unrelated to the values, with rare huge entries: the fit on the other folds would add
    # variance; the inner cross-validation shrinks it to (nearly) nothing.
    rng = random.Random(4)
    sums, values = ControlSums(2), []
    for i in range(1000):
        z = [rng.gauss(0, 1) ** 5, rng.gauss(0, 1) * (50 if rng.random() < 0.01 else 1)]
        y = rng.gauss(0, 10) + (300 if rng.random() < 0.005 else 0)
        sums.add(i % FOLDS, y, z)
        values.append(y)
    n, _, m2 = sums.moments()
    assert m2 / (n - 1) < 1.05 * statistics.variance(values)


def test_control_sums_are_the_same_whatever_order_and_merge_and_survive_json():
    samples = _samples(random.Random(2), 300, -1.0)
    whole = ControlSums(3)
    for s in samples:
        whole.add(*s)
    parts = [ControlSums(3) for _ in range(3)]
    for k, s in enumerate(reversed(samples)):
        parts[k % 3].add(*s)
    merged = ControlSums(3)
    for part in parts:
        merged.merge(part)
    again = ControlSums.from_json(json.loads(json.dumps(merged.as_json())))
    assert whole.moments() == merged.moments() == again.moments()  # exactly, not approximately
    few = ControlSums(3)
    for s in samples[: MIN_FIT // 2]:
        few.add(*s)
    assert few.weights(0) == [0.0, 0.0, 0.0]  # too few samples to fit: the values uncorrected
    with pytest.raises(ValueError, match="2 control columns, not 3"):
        few.add(0, 1.0, [1.0, 2.0])


def test_cross_fitting_keeps_the_mean_over_many_replications():
    # 400 comparisons of 250 samples each: the cross-fitted means average to the true mean (within
    # 4 standard errors of that average) with a much smaller spread than the plain means'.
    rng = random.Random(7)
    learned, plain = [], []
    for _ in range(400):
        samples = _samples(rng, 250, 1.0)
        sums = ControlSums(3)
        for s in samples:
            sums.add(*s)
        learned.append(sums.moments()[1])
        plain.append(statistics.fmean(y for _, y, _ in samples))
    se = statistics.stdev(learned) / len(learned) ** 0.5
    assert abs(statistics.fmean(learned) - 1.0) < 4 * se
    assert statistics.stdev(learned) < statistics.stdev(plain) / 3


def test_a_prior_corrects_from_the_first_deal_and_is_dropped_for_bots_it_does_not_fit():
    # The true weights are (2, -1, 0). With a right prior, folds are corrected before MIN_FIT and the
    # fit stays near it; with a wrong one (a large weight on a column unrelated to the values), the
    # other folds show it adds variance and the fold is fitted from zero, as without a prior.
    samples = _samples(random.Random(5), 1000, 0.0)
    right, wrong, plain = ControlSums(3, (2.0, -1.0, 0.0)), ControlSums(3, (0.0, 0.0, 50.0)), ControlSums(3)
    few = ControlSums(3, (2.0, -1.0, 0.0))
    for s in samples:
        for sums in (right, wrong, plain):
            sums.add(*s)
    for s in samples[: MIN_FIT // 2]:
        few.add(*s)
    assert few.weights(0) == [2.0, -1.0, 0.0]  # too few to fit: the prior corrects already
    assert right.weights(0) == pytest.approx([2.0, -1.0, 0.0], abs=0.05)
    wrong_samples = [
        (f, y + 30 * z[2], [z[0], z[1], rng_z]) for (f, y, z), rng_z in zip(samples, _noise(1000), strict=True)
    ]
    bad = ControlSums(3, (0.0, 0.0, 50.0))
    unprimed = ControlSums(3)
    for f, y, z in wrong_samples:
        bad.add(f, y, z)
        unprimed.add(f, y, z)
    assert bad.weights(3) == unprimed.weights(3)  # the prior would add variance on the other folds: dropped
    assert wrong.weights(0) == plain.weights(0)  # a column always zero: the prior's weight on it does nothing
    assert right.moments()[2] <= plain.moments()[2] * 1.01
    with pytest.raises(ValueError, match="a prior of 2 weights for 3 control columns"):
        ControlSums(3, (1.0, 2.0))


def _noise(n: int) -> list[float]:
    rng = random.Random(6)
    return [rng.gauss(0, 1) for _ in range(n)]


def test_cross_fitting_with_a_prior_keeps_the_mean_over_many_replications():
    # As above, with the prior of weights half the true ones: a fixed vector, so the mean stays.
    rng = random.Random(8)
    learned = []
    for _ in range(400):
        sums = ControlSums(3, (1.0, -0.5, 0.0))
        for s in _samples(rng, 150, 1.0):  # below MIN_FIT on many folds: the prior alone corrects them
            sums.add(*s)
        learned.append(sums.moments()[1])
    se = statistics.stdev(learned) / len(learned) ** 0.5
    assert abs(statistics.fmean(learned) - 1.0) < 4 * se


def test_the_learned_correction_of_a_comparison_starts_from_its_prior():
    assert len(LEARNED_PRIOR) == CONTROL_COLUMNS
    sums = PairedSums("learned")
    sums.add(Sample(("m", "d", 0), 1.0, 1.0, 2, 0, 1.0, 2, None, 0, (50.0, 50.0), (1.0,) * CONTROL_COLUMNS))
    assert sums.controls is not None and sums.controls.prior == LEARNED_PRIOR
    assert sums.controls.weights(1) == list(LEARNED_PRIOR)
    again = PairedSums.from_json("learned", json.loads(json.dumps(sums.as_json())))
    assert again.controls is not None and again.controls.prior == LEARNED_PRIOR
