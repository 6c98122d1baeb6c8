"""dealer.compare: paired samples, estimates against hand-computed answers, verdicts, the sequential
test's error rates on simulated data, and ``dealer compare`` end to end."""

from __future__ import annotations

import dataclasses
import json
import math
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import PY_BOTS, ROOT
from dealer.compare import (
    EXIT_CODES,
    VOID,
    ConfidenceSequenceTest,
    SequentialTest,
    Settings,
    compare_results,
    figures,
    paired_samples,
    replay_sequential,
    sequential_test,
    summarize,
    verdict_from_ci,
)
from dealer.config import EventSpec, game_config
from dealer.league import compare_summary
from dealer.records import HandRecord, MatchResult, result_of


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
    fig = figures(samples, "raw")
    per_hand = [2.0, -4.0, 10.0, 0.0]  # bb per hand of each group
    mean = sum(per_hand) / 4
    sd = math.sqrt(sum((x - mean) ** 2 for x in per_hand) / 3)
    assert fig.estimate.mean == pytest.approx(100 * mean)
    assert fig.estimate.stderr == pytest.approx(100 * sd / 2)
    z = 1.959963984540054
    assert fig.ci == pytest.approx((100 * (mean - z * sd / 2), 100 * (mean + z * sd / 2)))
    assert fig.p_value == pytest.approx(math.erfc(abs(mean / (sd / 2)) / math.sqrt(2)))
    wide = figures(samples, "raw", level=0.99)
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
    assert 30 <= len(comparison.samples) < 500
    assert comparison.hands == 2 * len(comparison.samples)
    data = comparison.as_json()
    assert data["exit_code"] == 0 and data["sprt"]["better"]["decision"] == "accept_h1"
    json.dumps(data)
    fixed = summarize(paired_samples([result], "new", "old"), "new", "old", Settings())
    assert fixed.verdict == "better" and fixed.decided_by == "confidence interval"
    assert replay_sequential(comparison.samples, s)[1] == len(comparison.samples)
    cs = compare_results([result], "new", "old", Settings(worse_than=-50, better_than=50, until_significant=True))
    assert cs.verdict == "better" and cs.decided_by == "confidence sequence"
    assert cs.as_json()["confidence_sequence"]["decision"] == "better" and cs.as_json()["sprt"] is None


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
    assert set(data["variance_removed"]) == set(data["hands_factor"]) == {"full", "aivat", "all-in"}
    assert (tmp_path / "compare.json").exists()


def test_league_journal_keeps_ev_net_luck_net_and_full_net():
    from dealer.league import _result_from_json, _result_to_json

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
    back = _result_from_json(json.loads(json.dumps(_result_to_json(result))))
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
    comparison = summarize(samples, "new", "old", Settings(estimator="aivat"))
    assert comparison.used is comparison.by_estimator["aivat"]
    raw_sd, luck_sd = figures(samples, "raw").estimate.stderr, figures(samples, "aivat").estimate.stderr
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
    comparison = summarize(samples, "new", "old", Settings())
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
    event = EventSpec("v2-vs-v1", "compare", 2, 80, True, ("new", "old"), game_config(), new="new", old="old")
    summary = compare_summary(event, [clean, crashed])
    assert summary["exit_code"] == 13 and summary["faults"] == {"new": {"timeout": 2}, "old": {"crash": 1}}
    assert compare_summary(event, [clean, timed_out])["exit_code"] == EXIT_CODES[fine.verdict]
