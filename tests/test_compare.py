"""dealer.stats.compare: paired samples, estimates against hand-computed answers, verdicts, the sequential
test's error rates on simulated data, and ``dealer compare`` end to end."""

from __future__ import annotations

import dataclasses
import json
import math
import os
import random
import statistics
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import PY_BOTS, ROOT
from dealer.config.league_file import Compare, game_config
from dealer.league.run import compare_summary
from dealer.stats.compare import (
    BATCH,
    EXIT_CODES,
    VOID,
    ConfidenceSequenceTest,
    SequentialTest,
    Settings,
    compare_results,
    deal_sets_for,
    figures,
    finish,
    look_every,
    looker,
    sequential_test,
    summarize,
    verdict_from_ci,
)
from dealer.stats.compare_text import comparison_text, decided_line, number
from dealer.stats.paired import (
    ESTIMATORS,
    SAMPLE_ESTIMATORS,
    PairedSums,
    PairedTally,
    Pairing,
    paired_samples,
    sample_of,
)
from dealer.stats.records import HandRecord, MatchResult, result_of
from dealer.stats.stats import bb_per_100_grouped


def _h2h(diffs: list[float], ev: list[float] | None = None) -> MatchResult:
    """Head-to-head duplicate results: deal k gives new ``diffs[k]`` chips (bb 100) over both seatings."""
    hands = []
    for k, d in enumerate(diffs):
        first = int(d) // 2
        second = int(d) - first
        e = None if ev is None else {"new": ev[k], "old": -ev[k]}
        hands.append(HandRecord(1, "m/0", k, 100, {"new": first, "old": -first}, e))
        hands.append(HandRecord(2, "m/0", k, 100, {"old": -second, "new": second}))
    return result_of("m", ("new", "old"), hands, keep=True)


def test_paired_samples_head_to_head_and_adjusted():
    result = _h2h([200, -400, 1000], ev=[50.0, 0.0, 0.0])
    samples = paired_samples([result], "new", "old")
    # new's bb minus old's bb: 2 * new's result in bb; each version played 2 hands per deal.
    assert [s.raw for s in samples] == [4.0, -8.0, 20.0]
    assert [s.hands for s in samples] == [2, 2, 2]
    # First seating adjusted to +50 chips (0.5 bb), second seating actual +100 (1 bb): 2 * 1.5 bb.
    assert samples[0].adjusted == 3.0
    assert [s.all_in for s in samples] == [1, 1, 1]


def test_paired_samples_field_mode():
    hands = [
        HandRecord(1, "m/0", 0, 100, {"new": 300, "f": -300}),
        HandRecord(2, "m/0", 0, 100, {"f": 100, "new": -100}),
        HandRecord(3, "m/0", 0, 100, {"old": -200, "f": 200}),
        HandRecord(4, "m/0", 0, 100, {"f": 0, "old": 0}),
        HandRecord(1, "m/0", 1, 100, {"new": 100, "f": -100}),  # an incomplete group (a stopped match): left out
    ]
    samples = paired_samples([result_of("m", ("f", "new", "old"), hands, keep=True)], "new", "old")
    assert len(samples) == 1
    assert samples[0].raw == (3 - 1) - (-2 + 0)
    assert samples[0].hands == 2


def test_figures_against_hand_computed_values():
    # Differences 4, -8, 20, 0 bb over 2 hands each: mean 16 / 8 hands = 2 bb/hand = 200 bb/100.
    samples = paired_samples([_h2h([200, -400, 1000, 0])], "new", "old")
    fig = figures(PairedSums.of(samples), "raw")
    per_hand = [2.0, -4.0, 10.0, 0.0]  # bb per hand of each group
    mean = sum(per_hand) / 4
    sd = math.sqrt(sum((x - mean) ** 2 for x in per_hand) / 3)
    assert fig.estimate.mean == pytest.approx(100 * mean)
    assert fig.estimate.stderr == pytest.approx(100 * sd / 2)
    z = 1.959963984540054
    assert fig.ci == pytest.approx((100 * (mean - z * sd / 2), 100 * (mean + z * sd / 2)))
    assert fig.p_value == pytest.approx(math.erfc(abs(mean / (sd / 2)) / math.sqrt(2)))
    wide = figures(PairedSums.of(samples), "raw", level=0.99)
    assert wide.ci[0] < fig.ci[0] and wide.ci[1] > fig.ci[1]


@pytest.mark.parametrize(
    ("ci", "verdict"),
    [
        ((1.0, 9.0), "better"),
        ((-9.0, -1.0), "worse"),
        ((-4.0, 30.0), "not worse"),
        ((-6.0, 30.0), "inconclusive"),
        ((float("nan"), float("nan")), "inconclusive"),
    ],
)
def test_verdict_from_ci(ci, verdict):
    assert verdict_from_ci(ci, worse_than=-5.0) == verdict


def test_exit_codes_are_distinct_and_better_is_success():
    assert EXIT_CODES == {"better": 0, "not worse": 10, "worse": 11, "inconclusive": 12}


def _sequential(mean: float, sd: float, rng: random.Random, settings: Settings, max_n: int = 5000):
    test = sequential_test(settings)
    n = 0
    while n < max_n:
        test.update(rng.gauss(mean, sd) for _ in range(10))
        n += 10
        verdict = test.verdict()
        if verdict is not None:
            return verdict, n
    return test.verdict(final=True), n


@pytest.mark.parametrize("kind", ["cs", "sprt"])
def test_sequential_verdicts_on_clear_data(kind):
    rng = random.Random(1)
    s = Settings(worse_than=-5, better_than=5, until_significant=True, test=kind)
    assert _sequential(20, 100, rng, s)[0] == "better"
    assert _sequential(-20, 100, rng, s)[0] == "worse"
    assert _sequential(0, 20, rng, s)[0] == "not worse"


@pytest.mark.parametrize("kind", ["cs", "sprt"])
def test_sequential_error_rates_on_simulated_data(kind):
    # A/A (true difference 0): better or worse at most alpha (plus sampling error of 400 runs).
    rng = random.Random(7)
    s = Settings(worse_than=-10, better_than=10, alpha=0.1, beta=0.1, until_significant=True, test=kind)
    runs = 400
    wrong = sum(_sequential(0, 100, rng, s)[0] in ("better", "worse") for _ in range(runs))
    assert wrong / runs <= 0.1 + 3 * math.sqrt(0.1 * 0.9 / runs)
    # Truly worse by the bound: "not worse" at most beta.
    missed = sum(_sequential(-10, 100, rng, s)[0] == "not worse" for _ in range(runs))
    assert missed / runs <= 0.1 + 3 * math.sqrt(0.1 * 0.9 / runs)


def test_settings_are_checked():
    with pytest.raises(ValueError):
        Settings(worse_than=5, better_than=-5).check()
    with pytest.raises(ValueError):
        SequentialTest(Settings(worse_than=1, better_than=5, until_significant=True))
    with pytest.raises(ValueError, match="test must be one of cs, sprt"):
        Settings(test="t-test").check()


def test_confidence_sequence_stops_early_on_a_large_difference_whatever_the_bounds():
    # A true difference of 40 with bounds +-5: the SPRTs test 0 against 5, the sequence just has to clear 0.
    cs_hands, sprt_hands = [], []
    for seed in range(20):
        for kind, hands in (("cs", cs_hands), ("sprt", sprt_hands)):
            s = Settings(worse_than=-5, better_than=5, until_significant=True, test=kind)
            verdict, n = _sequential(40, 400, random.Random(seed), s, max_n=20000)
            assert verdict == "better"
            hands.append(n)
    assert sorted(cs_hands)[10] * 2 < sorted(sprt_hands)[10]


def test_confidence_sequence_test_final_verdict_and_json():
    s = Settings(worse_than=-5, better_than=5, until_significant=True)
    test = sequential_test(s)
    assert isinstance(test, ConfidenceSequenceTest)
    rng = random.Random(4)
    test.update([rng.gauss(2, 40) for _ in range(300)])
    assert test.verdict() is None
    low, high = test.sequence.interval
    assert -5 < low < 0 < 5 < high  # neither clear of 0 nor inside the bounds, but clear of -5
    assert test.verdict(final=True) == "not worse"
    data = test.as_json()
    assert data["samples"] == 300 and data["decision"] is None and data["interval"] == [round(low, 3), round(high, 3)]


def test_compare_results_stops_a_sequential_test_early_and_reports_used_hands():
    rng = random.Random(3)
    diffs = [round(rng.gauss(3000, 2000)) for _ in range(500)]  # new wins about 15 bb per deal
    result = _h2h(diffs)
    s = Settings(worse_than=-50, better_than=50, until_significant=True, test="sprt")
    comparison = compare_results([result], "new", "old", s)
    assert comparison.verdict == "better" and comparison.decided_by == "sprt"
    assert 30 <= comparison.sums.deals < 500
    assert comparison.hands == 2 * comparison.sums.deals
    data = comparison.as_json()
    assert data["exit_code"] == 0 and data["sprt"]["better"]["decision"] == "accept_h1"
    json.dumps(data)
    fixed = summarize(PairedSums.of(paired_samples([result], "new", "old")), "new", "old", Settings())
    assert fixed.verdict == "better" and fixed.decided_by == "confidence interval"
    # The test decided at a look (every BATCH samples), and had not at the look before.
    samples = paired_samples([result], "new", "old")
    before = sequential_test(s)
    before.update(s_.value("full") for s_ in samples[: comparison.sums.deals - BATCH])
    assert comparison.sums.deals % BATCH == 0 and before.verdict() is None
    cs = compare_results([result], "new", "old", Settings(worse_than=-50, better_than=50, until_significant=True))
    assert cs.verdict == "better" and cs.decided_by == "confidence sequence"
    assert cs.as_json()["confidence_sequence"]["decision"] == "better" and cs.as_json()["sprt"] is None


@pytest.mark.parametrize("kind", ["cs", "sprt"])
def test_identical_versions_are_not_worse_at_the_first_look(kind):
    # A bot compared with itself: every paired deal cancels exactly (zero variance). That is an answer,
    # "not worse" at the first look that may decide (min_samples, 100 deals), not "inconclusive"
    # after the maximum hands.
    s = Settings(until_significant=True, test=kind)
    comparison = compare_results([_h2h([0] * 1000)], "new", "old", s)
    assert (comparison.verdict, comparison.exit_code, comparison.sums.deals) == ("not worse", 10, s.min_samples)
    assert comparison.decided_by == ("confidence sequence" if kind == "cs" else "sprt")
    text = decided_line(comparison)
    if kind == "cs":
        assert text == (
            "decided by the 95% confidence sequence of the full figures after 100 paired deals: "
            "[+0.00, +0.00] bb/100, inside (-5, +5): NOT WORSE"
        )
    else:
        assert "better (0 against +5): LLR -inf" in text and "worse (0 against -5): LLR -inf" in text
        assert text.count("accept_h0") == 2
    # One deal that did not cancel: the variance is not zero but cannot be estimated, so no answer.
    mostly = compare_results([_h2h([0] * 99 + [200] + [0] * 900)], "new", "old", s)
    assert mostly.verdict == "inconclusive" and mostly.decided_by.endswith(": maximum hands")


def test_a_group_whose_versions_did_the_same_is_exactly_zero():
    # The same seat's float results in both seatings (identical bots): the sum over the group's terms
    # is exactly 0, where summing them one after the other left -2.8e-17 (an "informative" sample,
    # a p-value of 0.095 for +0.00 +- 0.00).
    ev = {"new": 10.0, "old": 70.0}
    swapped = {"old": 10.0, "new": 70.0}
    records = [
        HandRecord(0, "c/0", 0, 100, {"new": 0, "old": 0}, ev, ev, ev),
        HandRecord(1, "c/0", 0, 100, {"old": 0, "new": 0}, swapped, swapped, swapped),
    ]
    sample = sample_of(("m", "c/0", 0), records, "new", "old")
    assert sample is not None
    assert (sample.raw, sample.adjusted, sample.luck, sample.full) == (0.0, 0.0, 0.0, 0.0)


def test_the_decision_line_says_which_interval_decided_and_never_nan():
    samples = paired_samples([_h2h([300, -100, 500, 100, 200, 0, 400])], "new", "old")
    fixed = summarize(PairedSums.of(samples), "new", "old", Settings())
    low, high = fixed.used.ci
    assert fixed.verdict == "better" and low > 0
    assert decided_line(fixed) == (
        f"decided by the 95% confidence interval of the full figures: [{low:+.2f}, {high:+.2f}] bb/100, above 0: BETTER"
    )
    empty = summarize(PairedSums(), "new", "old", Settings())  # no paired deal (a bot never played)
    assert empty.verdict == "inconclusive" and "nan" not in decided_line(empty)
    assert number(empty.used.estimate.mean) == "n/a" and number(empty.used.p_value, ".4g") == "n/a"


def test_hands_below_two_paired_deals_are_refused_and_few_hands_play_fewer_deal_sets():
    assert deal_sets_for(20000, 4) == 4
    assert deal_sets_for(4, 4) == 1 and deal_sets_for(9, 4) == 2  # never more hands than asked
    with pytest.raises(ValueError, match="at least 4 hands"):
        deal_sets_for(3, 4)
    with pytest.raises(ValueError, match="at least 16 hands"):  # both versions against 2 opponents, both seatings
        deal_sets_for(15, 4, ["a", "b"])


def _dealer_compare(tmp_path: Path, *options: str) -> subprocess.CompletedProcess[str]:
    bot = f"{sys.executable} {PY_BOTS / 'strength_bot.py'}"
    return subprocess.run(
        [str(Path(sys.executable).parent / "dealer"), "compare", bot, bot, "--out", str(tmp_path), *options],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
        env={**os.environ, "DEALER_SEED": "3"},
    )


def test_cli_compare_a_bot_with_itself_is_not_worse_quickly_and_says_why(tmp_path):
    run = _dealer_compare(tmp_path, "--until-significant", "--hands", "20000")
    assert run.returncode == 10, run.stderr[-2000:]
    assert "200 hands used (100 paired deals" in run.stdout and "verdict: NOT WORSE" in run.stdout
    assert (
        "decided by the 95% confidence sequence of the full figures after 100 paired deals: "
        "[+0.00, +0.00] bb/100, inside (-5, +5): NOT WORSE"
    ) in run.stdout
    assert "nan" not in run.stdout
    refused = _dealer_compare(tmp_path / "few", "--hands", "3")
    assert refused.returncode == 2 and refused.stdout == ""
    assert refused.stderr.splitlines()[-1] == (
        "error: --hands: 3 hands cannot make two paired deals, the fewest that give an interval: each deal is "
        "played at the 2 tables of its duplicate group, so at least 4 hands"
    )


def test_cli_compare_strength_beats_random(tmp_path):
    strength = f"{sys.executable} {PY_BOTS / 'strength_bot.py'}"
    rand = f"{sys.executable} {PY_BOTS / 'random_bot.py'}"
    run = subprocess.run(
        [
            str(Path(sys.executable).parent / "dealer"),
            "compare",
            strength,
            rand,
            "--hands",
            "600",
            "--json",
            "--out",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
        env={**os.environ, "DEALER_SEED": "3"},
    )
    data = json.loads(run.stdout.strip().splitlines()[-1])
    assert data["verdict"] == "better", run.stderr[-2000:]
    assert run.returncode == 0
    assert data["hands"] == 600 and data["deals"] == 300
    assert set(data["raw"]) == {"bb_per_100", "stderr", "ci", "p_value"}
    assert data["verdict_from"] == "full" and data["luck_corrected_hands"] == 600  # every hand recorded its luck
    assert data["known_strategy_hands"] == 0 and data["full"] == data["aivat"]  # black boxes: full is aivat
    estimators = {"learned", "baseline", "full", "aivat", "all-in"}
    assert set(data["variance_removed"]) == set(data["hands_factor"]) == estimators
    assert (tmp_path / "compare.json").exists()


def test_league_journal_keeps_ev_net_luck_net_and_full_net():
    # A format-2 journal row listed a comparison's hand records: a resumed league still reads them.
    from dealer.league.journal import result_from_json, result_to_json
    from test_records import _record_row

    def row(result: MatchResult) -> dict:
        assert result.records is not None
        return {**result_to_json(result), "format": 2, "records": [_record_row(h) for h in result.records]}

    records = _h2h([200, -400], ev=[50.0, 0.0]).records
    assert records is not None
    lucky = HandRecord(3, "m/0", 2, 100, {"new": 10, "old": -10}, None, {"new": -4.5, "old": 4.5})
    known = HandRecord(
        3, "m/0", 3, 100, {"new": 10, "old": -10}, None, {"new": -4.5, "old": 4.5}, {"new": 2.25, "old": -2.25}
    )
    result = result_of(
        "m",
        ("new", "old"),
        [*records, lucky, known],
        keep=True,
        strategies_refused={"old": "probabilities sum to 0.9, not 1"},
    )
    back = result_from_json(json.loads(json.dumps(row(result))))
    assert back.records == result.records and back.records is not None
    assert back.strategies_refused == result.strategies_refused
    assert back.records[-1].full_net == {"new": 2.25, "old": -2.25} and back.records[-2].full_net is None
    assert back.records[0].ev_net == {"new": 50.0, "old": -50.0} and back.records[1].ev_net is None
    assert back.records[-2].luck_net == {"new": -4.5, "old": 4.5} and back.records[0].luck_net is None
    assert back.tally.as_json() == result.tally.as_json() and back.hands == 6


def test_estimators_and_the_variance_each_removes():
    # Deal k: raw +-diff, all-in adjusted for some, luck corrected for all: each estimator's own figures.
    hands = []
    for k, (raw, luck) in enumerate([(1000, 100), (-800, 50), (1200, 150), (-600, 20), (900, 80)]):
        hands.append(HandRecord(1, "m/0", k, 100, {"new": raw, "old": -raw}, None, {"new": luck, "old": -luck}))
        hands.append(HandRecord(2, "m/0", k, 100, {"old": 0, "new": 0}, None, {"old": 0.0, "new": 0.0}))
    samples = paired_samples([result_of("m", ("new", "old"), hands, keep=True)], "new", "old")
    assert [s.raw for s in samples] == [20.0, -16.0, 24.0, -12.0, 18.0]
    assert [s.luck for s in samples] == [2.0, 1.0, 3.0, 0.4, 1.6] and [s.corrected for s in samples] == [2] * 5
    assert [s.adjusted for s in samples] == [s.raw for s in samples]  # no all-in hand
    comparison = summarize(PairedSums.of(samples, "aivat"), "new", "old", Settings(estimator="aivat"))
    assert comparison.used is comparison.by_estimator["aivat"]
    sums = PairedSums.of(samples, "aivat")
    raw_sd, luck_sd = figures(sums, "raw").estimate.stderr, figures(sums, "aivat").estimate.stderr
    assert comparison.variance_removed("aivat") == pytest.approx(1 - (luck_sd / raw_sd) ** 2)
    assert comparison.variance_removed("all-in") == pytest.approx(0)
    data = comparison.as_json()
    assert data["verdict_from"] == "aivat" and data["luck_corrected_hands"] == 10
    assert data["hands_factor"]["aivat"] == round((raw_sd / luck_sd) ** 2, 2)
    assert data["variance_removed"]["aivat"] == round(1 - (luck_sd / raw_sd) ** 2, 4)
    assert data["aivat"]["bb_per_100"] == pytest.approx(100 * 8.0 / 10)
    with pytest.raises(ValueError, match="estimator must be one of"):
        Settings(estimator="ev").check()


def test_full_estimator_takes_the_known_strategy_figures_where_a_hand_has_them():
    # Deal 0 had a decision with a known strategy (full_net), deal 1 none: full falls back to aivat there.
    hands = [
        HandRecord(
            1,
            "m/0",
            0,
            100,
            {"new": 500, "old": -500},
            None,
            {"new": 300.0, "old": -300.0},
            {"new": 100.0, "old": -100.0},
        ),
        HandRecord(2, "m/0", 0, 100, {"old": 0, "new": 0}, None, {"old": 0.0, "new": 0.0}),
        HandRecord(1, "m/0", 1, 100, {"new": -200, "old": 200}, None, {"new": -50.0, "old": 50.0}),
        HandRecord(2, "m/0", 1, 100, {"old": 0, "new": 0}, None, {"old": 0.0, "new": 0.0}),
    ]
    samples = paired_samples([result_of("m", ("new", "old"), hands, keep=True)], "new", "old")
    assert [s.value("full") for s in samples] == [100 * 2.0 / 2, 100 * -1.0 / 2]
    assert [s.value("aivat") for s in samples] == [100 * 6.0 / 2, 100 * -1.0 / 2]
    assert [s.known for s in samples] == [1, 0]
    comparison = summarize(PairedSums.of(samples), "new", "old", Settings())
    assert comparison.used is comparison.by_estimator["full"]
    data = comparison.as_json()
    assert data["verdict_from"] == "full" and data["known_strategy_hands"] == 1
    assert data["full"]["bb_per_100"] == pytest.approx(25.0) and data["aivat"]["bb_per_100"] == pytest.approx(125.0)


def test_a_failed_bot_voids_the_figures_of_a_league_compare_event_too():
    clean = _h2h([200, -400, 1000, 600] * 10)
    crashed = dataclasses.replace(_h2h([200, 600] * 10), faults={"old": {"crash": 1}, "new": {"timeout": 2}})
    timed_out = dataclasses.replace(_h2h([200, 600] * 10), faults={"new": {"timeout": 2}})
    settings = Settings()
    fine = compare_results([clean, timed_out], "new", "old", settings)
    assert fine.failed == {} and fine.exit_code == EXIT_CODES[fine.verdict]  # a timeout plays on: figures stand
    assert "error" not in fine.as_json() and fine.as_json()["faults"] == {"new": {"timeout": 2}}
    void = compare_results([clean, crashed], "new", "old", settings)
    assert void.verdict == fine.verdict and void.failed == {"old": {"crash": 1}}
    assert void.exit_code == VOID == 13
    assert void.as_json()["exit_code"] == 13 and "bots failed" in str(void.as_json()["error"])
    # A league's compare event reports through the same comparison: exit 13 and the error in its summary.
    event = Compare(name="v2-vs-v1", bots=("new", "old"), game=game_config(), new="new", old="old", hands=80)
    summary = compare_summary(event, [clean, crashed])
    assert summary["exit_code"] == 13 and summary["faults"] == {"new": {"timeout": 2}, "old": {"crash": 1}}
    assert compare_summary(event, [clean, timed_out])["exit_code"] == EXIT_CODES[fine.verdict]


def _deals(rng: random.Random, match: str, deal_sets: list[str], hands: int, field: bool) -> list[HandRecord]:
    """Hand records of a comparison on random deals: per deal set and hand number, both seatings of new
    and old (or each version against ``f`` in both seatings), with all-in, luck and known-strategy
    figures on some hands; in the order the hands could end at tables of different speeds."""
    records = []
    for deal_set in deal_sets:
        for hand in range(hands):
            tables = (
                [("new", "f"), ("f", "new"), ("old", "f"), ("f", "old")] if field else [("new", "old"), ("old", "new")]
            )
            for table, seats in enumerate(tables, 1):
                chips = rng.choice([-1, 1]) * rng.randrange(0, 4000, 50)
                net = {seats[0]: chips, seats[1]: -chips}
                ev = {n: v * 0.7 for n, v in net.items()} if rng.random() < 0.1 else None
                luck = {n: round(v * rng.random(), 2) for n, v in net.items()}
                full = {n: round(v * 0.5, 2) for n, v in luck.items()} if rng.random() < 0.3 else None
                records.append(HandRecord(table, deal_set, hand, 100, net, ev, luck, full))
    rng.shuffle(records)  # timing: any order
    records.sort(key=lambda r: r.hand // 7)  # ... though no table runs far ahead of the others
    return records


@pytest.mark.parametrize("field", [False, True])
def test_streamed_figures_equal_the_figures_of_the_kept_samples(field):
    # The stream keeps sums, not samples: its figures are those computed from the list of every sample.
    records = _deals(random.Random(5), "m", ["m/0", "m/1", "m/2"], 200, field)
    sizes = {"m/0": 4 if field else 2, "m/1": 4 if field else 2, "m/2": 4 if field else 2}
    tally = PairedTally(Pairing.looking("new", "old", "full", BATCH, 3), sizes, match_id="m")
    for record in records:
        tally.add(record)
    sums = tally.finish()
    samples = paired_samples([result_of("m", ("f", "new", "old"), records, keep=True)], "new", "old")
    assert sums.deals == len(samples) == 600 and sums.hands == sum(s.hands for s in samples)
    assert (sums.all_in, sums.corrected, sums.known) == tuple(
        sum(getattr(s, k) for s in samples) for k in ("all_in", "corrected", "known")
    )
    for estimator in SAMPLE_ESTIMATORS:
        fig = figures(sums, estimator)
        totals = [s.value(estimator) * s.hands / 100 for s in samples]
        assert fig.estimate == bb_per_100_grouped(totals, [s.hands for s in samples], 1)
    assert figures(sums, "full") != figures(sums, "aivat") != figures(sums, "raw")  # the estimators differ here
    assert figures(sums, "learned") == figures(sums, "full")  # no luck features recorded: nothing to fit


def _with_features(records: list[HandRecord], rng: random.Random) -> list[HandRecord]:
    """The records with luck features (three columns by bot, one tied to its net) for the learned estimator."""
    return [
        dataclasses.replace(r, features={n: (v * rng.random() * 0.3, rng.gauss(0, 100), 0.0) for n, v in r.net.items()})
        for r in records
    ]


def test_the_table_shows_a_fitted_estimators_row_only_where_this_run_fitted_it():
    # learned and baseline fall back on full's figures where their columns were not recorded (no
    # --estimator learned, no reference bot): a row of full's numbers under their names would read as a
    # measurement; the JSON keeps its keys.
    rng = random.Random(5)
    records = _deals(rng, "m", ["m/0", "m/1"], 150, False)
    for estimator, fitted in (("full", set()), ("learned", {"learned"})):
        played = _with_features(records, rng) if fitted else records
        comparison = compare_results(
            [result_of("m", ("new", "old"), played, keep=True)], "new", "old", Settings(estimator=estimator)
        )
        text = comparison_text(comparison)
        rows = {name for name in ("learned", "baseline", "full", "aivat") if f"({name})" in text}
        assert rows == {"full", "aivat"} | fitted, text
        assert {"learned", "baseline"} <= set(comparison.as_json()["cost"]["plain_hands"])


@pytest.mark.parametrize(
    ("kind", "field", "estimator"),
    [("cs", False, "full"), ("sprt", False, "full"), ("cs", True, "full"), ("cs", False, "learned")],
)
def test_one_match_and_a_league_split_into_matches_give_the_same_comparison(kind, field, estimator):
    # The same deals played as one match (dealer compare: its test looks as the hands end) and as
    # one match per deal set (a league: merged look by look afterwards, from journal rows): the same
    # verdict, figures and test state; and the test looked where a replay of the kept samples would.
    from dealer.league.journal import result_from_json, result_to_json

    rng = random.Random(11)
    deal_sets = [f"d/{k}" for k in range(3)]
    records = _deals(rng, "one", deal_sets, 400, field)
    if estimator == "learned":  # its sums go through the journal too
        records = _with_features(records, rng)
    # wide bounds: a verdict (not worse) well before the end
    s = Settings(worse_than=-300, better_than=300, until_significant=True, test=kind, estimator=estimator)
    size = 4 if field else 2
    pairing = Pairing.looking("new", "old", s.estimator, 50, len(deal_sets))
    assert pairing.every == 17  # 50 samples a look over 3 groups a hand number: whole hand numbers
    test = sequential_test(s)
    online = PairedTally(pairing, dict.fromkeys(deal_sets, size), match_id="one", look=looker(test))
    for record in records:
        online.add(record)
    played = summarize(finish(online, test), "new", "old", s, ["f"] if field else [], test)
    jobs = []
    for deal_set in deal_sets:
        tally = PairedTally(pairing, {deal_set: size}, match_id=deal_set, keep=True)
        mine = [r for r in records if r.deal_set == deal_set]
        for record in mine:
            tally.add(record)
        tally.finish()
        again = PairedTally(pairing, {deal_set: size}, match_id=deal_set, keep=True)
        for record in reversed(mine):  # the hands ending in another order: the same row, byte for byte
            again.add(record)
        again.finish()
        assert json.dumps(again.as_json()) == json.dumps(tally.as_json())
        result = dataclasses.replace(result_of(deal_set, ("f", "new", "old"), mine), paired=tally)
        jobs.append(result_from_json(json.loads(json.dumps(result_to_json(result)))))  # through the journal
    league = compare_results(list(reversed(jobs)), "new", "old", s, ["f"] if field else [])
    whole = compare_results([result_of("one", ("f", "new", "old"), records, keep=True)], "new", "old", s, [], 50)
    data = played.as_json()
    assert (
        data["verdict"] != "inconclusive"
        and data["deals"] < 1200
        and data["decided_by"] in ("sprt", "confidence sequence")
    )
    for other in (league, whole):  # ``whole`` is told no field: its hands, and so its cost, count differently
        assert {k: v for k, v in other.as_json().items() if k not in ("field", "mode", "hands", "cost")} == {
            k: v for k, v in data.items() if k not in ("field", "mode", "hands", "cost")
        }
    assert league.as_json()["cost"] == data["cost"]
    if estimator == "learned":  # refitted at every look from the sums: no per-sample values to replay
        assert data["learned"] != data["full"]
        return
    # The kept samples, replayed look by look (17 hand numbers, every deal set): the same state at the verdict.
    samples = paired_samples([result_of("one", ("f", "new", "old"), records, keep=True)], "new", "old")
    replay = sequential_test(s)
    looks = 0
    while replay.verdict() is None:
        looks += 1
        replay.update(x.value(s.estimator) for x in samples if (looks - 1) * 17 <= x.key[2] < looks * 17)
    assert looks * 17 * 3 == data["deals"] and replay.as_json() == test.as_json()


def test_a_journal_whose_learned_sums_have_other_columns_is_one_line_not_a_traceback(tmp_path):
    # A league journaled with ``estimator: learned`` by a dealer that kept other luck features:
    # resuming it would join sums of different widths; it is refused in one line naming the match.
    from dealer.errors import RunError
    from dealer.league.journal import Journal, result_to_json
    from dealer.stats.control import ControlSums
    from dealer.stats.paired import CONTROL_COLUMNS

    rng = random.Random(5)
    records = _with_features(_deals(rng, "one", ["d/0"], 40, False), rng)
    pairing = Pairing.looking("new", "old", "learned", 50, 1)
    tally = PairedTally(pairing, {"d/0": 2}, match_id="d/0", keep=True)
    for record in records:
        tally.add(record)
    tally.finish()
    result = dataclasses.replace(result_of("d/0", ("new", "old"), records), paired=tally)
    data = result_to_json(result)

    def narrowed(node):  # every control sums object of the row, as 10 columns
        if isinstance(node, dict):
            if set(node) >= {"columns", "counts", "sums", "products"}:
                assert node["columns"] == CONTROL_COLUMNS
                return ControlSums(10).as_json()
            return {k: narrowed(v) for k, v in node.items()}
        return [narrowed(v) for v in node] if isinstance(node, list) else node

    journal = Journal(tmp_path / "journal.sqlite", "fingerprint")
    journal.commit("hu", result)
    assert list(journal.done()) == ["d/0"]  # its own width: read back
    with journal.db:
        journal.db.execute("UPDATE matches SET result = ?", (json.dumps(narrowed(data)),))
    with pytest.raises(RunError) as error:
        journal.done()
    assert str(error.value) == (
        f"{tmp_path / 'journal.sqlite'}: match d/0: its learned correction's sums have 10 columns where this "
        f"dealer keeps {CONTROL_COLUMNS}: they were written by another version of the dealer; use another "
        "output folder or run without --resume"
    )
    journal.close()


def test_the_test_looks_at_every_sample_from_sums_as_from_values():
    # Exact sums: the same state whatever order the samples come in, and that of feeding them one by one.
    rng = random.Random(2)
    values = [rng.gauss(3, 50) for _ in range(500)] + [0.0] * 40
    tests = [sequential_test(Settings(until_significant=True, test=kind)) for kind in ("cs", "sprt") for _ in (0, 1)]
    tests[0].update(values)
    tests[2].update(values)
    rng.shuffle(values)
    tests[1].update(values)
    tests[3].update(values)
    assert tests[0].as_json() == tests[1].as_json() and tests[2].as_json() == tests[3].as_json()
    assert tests[0].informative == 500 and tests[0].as_json()["samples"] == 540


def test_a_comparisons_defaults_are_written_once() -> None:
    """``dealer compare``'s options, a compare event of a league file and ``Compare`` all take
    their defaults from ``CompareSettings`` (they were written out in four places)."""
    import inspect

    from dealer.cli import main as cli
    from dealer.config.league_file import CompareSettings, parse_league

    defaults = CompareSettings()
    options = {name: p.default for name, p in inspect.signature(cli.compare).parameters.items()}
    asked = ("worse_than", "better_than", "alpha", "beta", "until_significant", "test")
    assert {k: options[k] for k in (*asked, "estimator")} == {k: getattr(defaults, k) for k in (*asked, "estimator")}
    assert options["batch"] is None and look_every(options["batch"]) == BATCH  # look_every's
    bots = "  - {name: a, command: [python, -c, pass]}\n  - {name: b, command: [python, -c, pass]}\n"
    league = parse_league(
        f"name: c\nbots:\n{bots}events:\n  - {{name: e, format: compare, new: a, old: b, hands: 9}}\n"
    )
    spec = Compare(name="e", bots=("a", "b"), game=game_config(), new="a", old="b", hands=9)
    for event in (league.events[0], spec):
        assert isinstance(event, Compare)
        assert {k: getattr(event.settings, k) for k in asked} == {k: getattr(defaults, k) for k in asked}


@pytest.mark.parametrize("field", [False, True])
def test_a_verdict_says_what_it_cost_and_what_plain_play_would_have_needed(field):
    # Plain play's variance per hand is that of every hand taken alone (raw, new - old); a plain run
    # needs it over the verdict's squared standard error in hands (four times that against a field,
    # each version playing half the hands unpaired), and the share left is the hands used over those.
    records = _deals(random.Random(9), "m", ["m/0", "m/1"], 150, field)
    comparison = compare_results(
        [result_of("m", ("f", "new", "old"), records, keep=True)], "new", "old", Settings(), ["f"] if field else []
    )
    plain = [100 * (r.net.get("new", 0) - r.net.get("old", 0)) / r.big_blind for r in records]
    variance = statistics.variance(plain)
    expected = (4 if field else 1) * variance / comparison.by_estimator["full"].estimate.stderr ** 2
    cost = comparison.as_json()["cost"]
    assert cost["hands_used"] == comparison.hands == len(records) == (1200 if field else 600)
    assert cost["plain_variance_per_hand"] == pytest.approx(variance, abs=0.05)
    assert cost["plain_hands"]["full"] == round(expected) and expected > 0
    assert cost["variance_left_per_hand"]["full"] == pytest.approx(comparison.hands / expected, abs=1e-4)
    assert set(cost["plain_hands"]) == set(ESTIMATORS)
    assert f"would have needed about {expected:,.0f} hands for the same precision" in comparison_text(comparison)


def test_a_comparison_looks_every_twenty_deals_and_stops_within_them_of_where_its_sequence_clears():
    # The confidence sequence holds however often it is looked at, so dealer compare looks every
    # BATCH (20) deals: it decides at the first look after the sequence first clears 0 when looked
    # at after every deal (it looked every 100 before: up to 99 deals later, 50 on average).
    rng = random.Random(8)
    result = _h2h([round(rng.gauss(500, 4000)) for _ in range(3000)])
    s = Settings(worse_than=-50, better_than=50, until_significant=True)
    every_deal, cleared = sequential_test(s), 0
    for sample in paired_samples([result], "new", "old"):
        every_deal.update([sample.value("full")])
        cleared += 1
        if every_deal.verdict() is not None:
            break
    comparison = compare_results([result], "new", "old", s)
    assert comparison.verdict == every_deal.verdict() == "better"
    assert cleared % 100 > 20 and comparison.sums.deals == -(-cleared // BATCH) * BATCH  # not the next hundred
    # Every estimator looks as often, the fitted ones too (their refit is ~4 ms now); an asked batch wins.
    assert look_every() == BATCH and look_every(7) == 7
    assert BATCH == 20


def test_a_learned_comparison_looks_every_twenty_deals_and_decides_sooner_than_at_every_hundred():
    # The learned estimator refits at every look; it looked every 100 deals while a refit cost ~70 ms.
    # Its default cadence now is every 20: the verdict of a look every 20 deals, not the next hundred's.
    rng = random.Random(8)
    result = _h2h([round(rng.gauss(500, 4000)) for _ in range(3000)])
    records = _with_features(list(result.records or ()), rng)
    played = [result_of("m", ("new", "old"), records, keep=True)]
    s = Settings(worse_than=-50, better_than=50, until_significant=True, estimator="learned")
    default, every_20, every_100 = (compare_results(played, "new", "old", s, batch=b) for b in (None, 20, 100))
    assert default.verdict == every_20.verdict == every_100.verdict == "better"
    assert default.sums.deals == every_20.sums.deals < every_100.sums.deals
    assert default.sums.deals % 20 == 0 and default.sums.deals % 100 != 0
    assert default.by_estimator["learned"].estimate != default.by_estimator["full"].estimate  # fitted, not full's
