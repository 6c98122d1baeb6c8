"""What tilted deals would leave of ``full``'s variance, computed offline on pools dealt by the shuffle.

Run ``python benchmarks/tilt_study.py --cache DIR --seeds verdicts36-dev,verdicts36-eval`` on the pools
``compare_verdicts.py --cache DIR`` kept (``PAIR-DEALS-SEED.pickle``). For a sample of deals drawn under
the shuffle ``p``, the variance of the weighted estimator under any proposal ``q`` is known without
playing anything: ``Var_q(w X) = E_p[w X^2] - mu^2``, ``w = p / q`` of each deal's own turn and river
(``dealer.stats.tilted_deals``: its cards re-dealt from the pool's seed, the proposal's scores of every
other run-out enumerated). Printed per pool: ``full``'s variance per hand as a share of plain raw
play's (as compare_verdicts.py prints it), the share of it the proposal would leave, and what that
leaves of plain play's. The scores of ``dealer.stats.tilted_deals`` were chosen this way on seed
``verdicts36-dev`` (a fit of the mean square of ``full`` by the two hands' levels, rounded) and
checked on ``verdicts36-eval``; a pool's dozen stack-sized wars make each figure rough.
"""

from __future__ import annotations

import argparse
import pickle
import statistics
from fractions import Fraction
from pathlib import Path

from compare_verdicts import REFERENCE, plain_samples

from dealer.engine.cards import shuffled_deck
from dealer.league.seeds import deal_key
from dealer.stats.paired import paired_samples
from dealer.stats.records import HandRecord
from dealer.stats.tilted_deals import HEADS_UP_CARDS, PROPOSAL, RIVER, TURN, Proposal


def weight_of(deck: list[int], proposal: Proposal) -> float:
    """``p / q`` of a deal's own turn and river under ``proposal``."""
    holes = ((deck[0], deck[2]), (deck[1], deck[3]))
    pairs, scores = proposal.runouts(holes, deck[5:8])
    turn, river = deck[TURN], deck[RIVER]
    return float(proposal.weight(scores, pairs.index((min(turn, river), max(turn, river)))))


def study(path: Path, seed: str, pair: str, proposal: Proposal) -> str:
    """One pool's line: full's share of plain play, the share of it the proposal leaves, the weights' range."""
    result = pickle.loads(path.read_bytes())
    fields = [f for f in HandRecord.__dataclass_fields__ if f != "weight"]
    # pools kept before records had a weight (a slotted record unpickles without it): the shuffle's, 1
    result.records = [HandRecord(*(getattr(r, f) for f in fields)) for r in result.records or ()]
    samples = paired_samples([result], "new", "old", REFERENCE)
    base_var = statistics.variance([s.value("raw") for s in plain_samples(result)])
    xs = [s.value("full") for s in samples]
    ws = [
        weight_of(shuffled_deck(deal_key(f"{seed}/{pair}", s.key[1], s.key[2]), HEADS_UP_CARDS), proposal)
        for s in samples
    ]
    mu = statistics.fmean(xs)
    var_p = statistics.fmean(x * x for x in xs) - mu * mu
    var_q = statistics.fmean(w * x * x for w, x in zip(ws, xs, strict=True)) - mu * mu
    full_left = var_p * samples[0].hands / base_var
    return (
        f"{seed:18} {pair:6} {len(xs):6} deals: full leaves {full_left:6.2%} of plain play's variance per hand; "
        f"tilted {var_q / var_p:5.3f} of full's ({var_q / var_p * full_left:6.2%} of plain's); "
        f"weights at the pool's deals {min(ws):.3f} to {max(ws):.3f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", type=Path, required=True, help="the pools' folder (compare_verdicts.py --cache)")
    parser.add_argument("--seeds", default="verdicts36-dev,verdicts36-eval")
    parser.add_argument("--pairs", default="leaky,loose,mixed")
    parser.add_argument("--deals", type=int, default=6000)
    parser.add_argument("--uniform", type=Fraction, default=PROPOSAL.uniform, help="the share drawn as the shuffle")
    args = parser.parse_args()
    proposal = Proposal(PROPOSAL.scores, args.uniform)
    for seed in args.seeds.split(","):
        for pair in args.pairs.split(","):
            path = args.cache / f"{pair}-{args.deals}-{seed}.pickle"
            print(study(path, seed, pair, proposal) if path.exists() else f"{seed} {pair}: no pool at {path}")


if __name__ == "__main__":
    main()
