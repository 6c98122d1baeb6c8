"""Pure statistics for match results, duplicate pairing and regression testing (SPRT).

Amounts are chips per hand unless a name says otherwise; bb/100 is big blinds per 100 hands.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

# re-exported: their home before dealer.stats.tally (compiled)
from dealer.stats.tally import ExactSum as ExactSum
from dealer.stats.tally import GroupedSums as GroupedSums

Z95 = 1.959963984540054  # standard normal quantile for a two-sided 95% interval


@dataclass(frozen=True)
class Estimate:
    """A mean with its standard error over ``n`` independent units."""

    mean: float
    stderr: float
    n: int

    def ci95(self) -> tuple[float, float]:
        """Return the 95% confidence interval under the normal approximation."""
        half = Z95 * self.stderr
        return (self.mean - half, self.mean + half)

    def scaled(self, factor: float) -> Estimate:
        """Return the estimate of ``factor`` times the quantity (for a change of units)."""
        return Estimate(self.mean * factor, self.stderr * abs(factor), self.n)


def _mean_and_variance(samples: Sequence[float]) -> tuple[float, float]:
    """Return the mean and the sample variance (n - 1 denominator; inf when n < 2)."""
    n = len(samples)
    mean = math.fsum(samples) / n
    if n < 2:
        return mean, math.inf
    return mean, math.fsum((x - mean) ** 2 for x in samples) / (n - 1)


def estimate(samples: Sequence[float]) -> Estimate:
    """Return the sample mean and its standard error (sample std / sqrt(n)).

    With a single sample the standard error is ``inf`` (no spread to measure); no samples raise ValueError.
    """
    if not samples:
        raise ValueError("estimate needs at least one sample")
    mean, var = _mean_and_variance(samples)
    return Estimate(mean, math.sqrt(var / len(samples)), len(samples))


def _check_big_blind(big_blind: int) -> None:
    """Raise ValueError unless the big blind is positive."""
    if big_blind <= 0:
        raise ValueError(f"big_blind must be positive, got {big_blind}")


def bb_per_100(samples_chips: Sequence[float], big_blind: int) -> Estimate:
    """Return the win rate in bb/100 from chips won per hand, each hand one independent sample."""
    _check_big_blind(big_blind)
    return estimate(samples_chips).scaled(100 / big_blind)


def bb_per_100_grouped(group_totals: Sequence[float], hands_per_group: Sequence[int], big_blind: int) -> Estimate:
    """Return bb/100 when the independent unit is a group of hands (a duplicate group).

    Ratio estimator: mean R = sum(T) / sum(H); stderr^2 = sum((T_i - R*H_i)^2) / ((g-1) * g * Hbar^2)
    (delta method). With equal hand counts this is exactly the plain estimate over per-group averages.
    """
    if len(group_totals) != len(hands_per_group):
        raise ValueError(f"{len(group_totals)} group totals but {len(hands_per_group)} hand counts")
    sums = GroupedSums()
    for total, hands in zip(group_totals, hands_per_group, strict=True):
        sums.add(total, hands)
    return sums.bb_per_100(big_blind)


def two_sided_p_value(z: float) -> float:
    """Return P(|Z| >= |z|) for a standard normal Z."""
    return math.erfc(abs(z) / math.sqrt(2))


class RunningMoments:
    """The count, mean and sum of squared deviations of samples seen one at a time (Welford's update):
    what both sequential tests need, kept in constant memory and stable for long runs."""

    def __init__(self) -> None:
        self.n = 0
        self.mean = 0.0
        self.m2 = 0.0

    def update(self, x: float) -> None:
        """Add one sample (e.g. one duplicate group's paired difference)."""
        self.n += 1
        delta = x - self.mean
        self.mean += delta / self.n
        self.m2 += delta * (x - self.mean)

    def extend(self, xs: Iterable[float]) -> None:
        """Add several samples in order."""
        for x in xs:
            self.update(x)

    def load(self, n: int, mean: float, m2: float) -> None:
        """Take the state of ``n`` samples summed elsewhere (``GroupedSums.moments``): their mean and
        sum of squared deviations."""
        self.n, self.mean, self.m2 = n, mean, m2


class SPRT(RunningMoments):
    """Generalised sequential probability ratio test of H0: mean = mu0 against H1: mean = mu1.

    For i.i.d. normal samples with variance s^2 the log-likelihood ratio of n samples summing to S is
    LLR = (mu1 - mu0) * (S - n * (mu0 + mu1) / 2) / s^2, since each sample adds
    ((x - mu0)^2 - (x - mu1)^2) / (2 s^2); s^2 is replaced by the sample variance so far.
    Decide H1 when LLR >= log((1 - beta) / alpha), H0 when LLR <= log(beta / (1 - alpha)), but only
    after ``min_samples`` samples; callers stop at the first decision (status is not latched).
    """

    def __init__(self, mu0: float, mu1: float, alpha: float = 0.05, beta: float = 0.05, min_samples: int = 30) -> None:
        if mu0 == mu1:
            raise ValueError("SPRT needs distinct hypotheses (mu0 == mu1)")
        if not (0 < alpha < 1 and 0 < beta < 1 and alpha + beta < 1):
            raise ValueError(f"need 0 < alpha, beta and alpha + beta < 1, got alpha={alpha}, beta={beta}")
        if min_samples < 2:
            raise ValueError(f"min_samples must be at least 2, got {min_samples}")
        self.mu0 = mu0
        self.mu1 = mu1
        self.alpha = alpha
        self.beta = beta
        self.min_samples = min_samples
        super().__init__()

    @property
    def lower_bound(self) -> float:
        """Return the LLR at or below which H0 is accepted."""
        return math.log(self.beta / (1 - self.alpha))

    @property
    def upper_bound(self) -> float:
        """Return the LLR at or above which H1 is accepted."""
        return math.log((1 - self.beta) / self.alpha)

    @property
    def llr(self) -> float:
        """Return the log-likelihood ratio of H1 to H0 so far (0 before two samples)."""
        if self.n < 2:
            return 0.0
        numerator = (self.mu1 - self.mu0) * self.n * (self.mean - (self.mu0 + self.mu1) / 2)
        var = self.m2 / (self.n - 1)
        if var <= 0:
            return math.copysign(math.inf, numerator) if numerator else 0.0
        return numerator / var

    @property
    def status(self) -> Literal["accept_h0", "accept_h1", "continue"]:
        """Return the decision for the samples so far."""
        if self.n < self.min_samples:
            return "continue"
        llr = self.llr
        if llr >= self.upper_bound:
            return "accept_h1"
        if llr <= self.lower_bound:
            return "accept_h0"
        return "continue"


class ConfidenceSequence(RunningMoments):
    """A two-sided ``1 - alpha`` confidence sequence for a mean, valid under continuous monitoring.

    Robbins' normal-mixture boundary with the running sample variance (the asymptotic confidence
    sequence of Waudby-Smith, Arbour, Sinha, Kennedy and Ramdas, after Howard, Ramdas, McAuliffe
    and Sekhon 2021): at every n the interval is mean +- sd * margin(n) with
    margin(n) = sqrt(2 (n rho2 + 1) / (n^2 rho2) * log(sqrt(n rho2 + 1) / alpha)), so the chance
    that it ever misses the true mean, at any n one cares to look, is at most about alpha. rho2 sets
    where it is tightest: ``rho2 = (-2 log alpha + log(1 - 2 log alpha)) / horizon`` makes it
    narrowest near ``horizon`` samples relative to a fixed-n interval (about 1.55x its width at alpha 0.05).
    """

    def __init__(self, alpha: float = 0.05, horizon: int = 1000, min_samples: int = 30) -> None:
        if not 0 < alpha < 1:
            raise ValueError(f"need 0 < alpha < 1, got {alpha}")
        if horizon < 1 or min_samples < 2:
            raise ValueError(f"need horizon >= 1 and min_samples >= 2, got {horizon} and {min_samples}")
        self.alpha = alpha
        self.horizon = horizon
        self.min_samples = min_samples
        log_term = -2 * math.log(alpha)
        self.rho2 = (log_term + math.log(1 + log_term)) / horizon
        super().__init__()

    def margin(self, n: int) -> float:
        """The half-width of the interval after ``n`` samples for a unit standard deviation."""
        t = n * self.rho2 + 1
        return math.sqrt(2 * t * math.log(math.sqrt(t) / self.alpha) / (n * n * self.rho2))

    @property
    def interval(self) -> tuple[float, float]:
        """The interval so far; (-inf, inf) before ``min_samples`` samples."""
        if self.n < max(2, self.min_samples):
            return (-math.inf, math.inf)
        half = math.sqrt(self.m2 / (self.n - 1)) * self.margin(self.n)
        return (self.mean - half, self.mean + half)
