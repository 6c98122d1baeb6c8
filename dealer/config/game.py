"""The rules of the hands a league or a command plays (``game:``): variant, blinds, ante, stack,
rake, the mixed game's blocks and the clock; read from layered ``game:`` mappings, or built from a
command's options by ``game_config`` with the same checks and messages."""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from dealer.config.choices import VariantName
from dealer.config.read import (
    MAX_CHIPS,
    MAX_HANDS,
    MAX_MS,
    Ctx,
    Layer,
    choice,
    given_node,
    integer,
    mapping,
    pick_key,
    read_blinds,
    read_key,
    read_rake_percent,
    sublayers,
)


@dataclass(frozen=True, slots=True)
class TimeControl:
    """Per-action time, a time bank for slow decisions, network grace and bot start-up time (ms)."""

    per_action_ms: int = 1000
    bank_ms: int = 30000
    grace_ms: int = 50
    startup_ms: int = 10000


@dataclass(frozen=True, slots=True)
class MixedSpec:
    """Blocks of fixed-limit then no-limit hands; ``block_hands`` None means the table size."""

    block_hands: int | None
    fixed_limit_blinds: tuple[int, int]
    no_limit_blinds: tuple[int, int]


@dataclass(frozen=True, slots=True)
class GameConfig:
    """The rules of the hands played: betting variant, blinds, stacks, rake and clock."""

    variant: VariantName = VariantName.NO_LIMIT
    small_blind: int = 50
    big_blind: int = 100
    ante: int = 0
    stack: int = 20000
    rake_percent: float = 0.0
    rake_cap: int = 0
    mixed: MixedSpec | None = None
    time: TimeControl = field(default_factory=TimeControl)


_TIME_KEYS = ("per_action_ms", "bank_ms", "grace_ms", "startup_ms")


GAME_KEYS = ("variant", "blinds", "ante", "stack", "rake", "mixed", "time")


_MIXED_KEYS = ("block_hands", "fixed_limit_blinds", "no_limit_blinds")


def parse_game(ctx: Ctx, layers: Sequence[Layer]) -> GameConfig:
    """Build a GameConfig from layered ``game:`` mappings (league defaults, then the event's)."""
    d = GameConfig()
    variant = read_key(ctx, layers, "variant", choice(VariantName), d.variant)
    small, big, _ = read_key(ctx, layers, "blinds", read_blinds, (d.small_blind, d.big_blind, 0))
    stack = read_key(ctx, layers, "stack", integer(1, most=MAX_CHIPS), d.stack)
    if stack <= big:
        stack_at, blinds_at = pick_key(layers, "stack"), pick_key(layers, "blinds")
        node, path, _ = max((p for p in (stack_at, blinds_at) if p is not None), key=lambda p: p[2])
        ctx.error(node, path, f"stack {stack} must be larger than the big blind {big}")
    rake = sublayers(ctx, layers, "rake", ("percent", "cap"))
    time = sublayers(ctx, layers, "time", _TIME_KEYS)
    dt = TimeControl()
    return GameConfig(
        variant=variant,
        small_blind=small,
        big_blind=big,
        ante=read_key(ctx, layers, "ante", integer(0, most=MAX_CHIPS), d.ante),
        stack=stack,
        rake_percent=read_key(ctx, rake, "percent", read_rake_percent, d.rake_percent),
        rake_cap=read_key(ctx, rake, "cap", integer(0, most=MAX_CHIPS), d.rake_cap),
        mixed=_parse_mixed(ctx, layers, variant, (small, big)),
        time=TimeControl(
            per_action_ms=read_key(ctx, time, "per_action_ms", integer(1, most=MAX_MS), dt.per_action_ms),
            bank_ms=read_key(ctx, time, "bank_ms", integer(0, most=MAX_MS), dt.bank_ms),
            grace_ms=read_key(ctx, time, "grace_ms", integer(0, most=MAX_MS), dt.grace_ms),
            startup_ms=read_key(ctx, time, "startup_ms", integer(0, most=MAX_MS), dt.startup_ms),
        ),
    )


def _parse_mixed(ctx: Ctx, layers: Sequence[Layer], variant: VariantName, blinds: tuple[int, int]) -> MixedSpec | None:
    """Build the MixedSpec of variant mixed; `mixed:` set at or after a non-mixed variant is an error."""
    mixed_at = pick_key(layers, "mixed")
    if variant != VariantName.MIXED:
        variant_at = pick_key(layers, "variant")
        if mixed_at is not None and mixed_at[2] >= (variant_at[2] if variant_at else -1):
            ctx.error(mixed_at[0], mixed_at[1], f"applies only to variant mixed, not {str(variant)!r}")
        return None
    sub = sublayers(ctx, layers, "mixed", _MIXED_KEYS)
    fixed = read_key(ctx, sub, "fixed_limit_blinds", read_blinds, (*blinds, 0))
    no_limit = read_key(ctx, sub, "no_limit_blinds", read_blinds, (*blinds, 0))
    return MixedSpec(
        block_hands=read_key(ctx, sub, "block_hands", integer(1, most=MAX_HANDS), None),
        fixed_limit_blinds=fixed[:2],
        no_limit_blinds=no_limit[:2],
    )


def game_config(
    *,
    variant: str = VariantName.NO_LIMIT,
    blinds: Sequence[int] = (50, 100),
    ante: int = 0,
    stack: int = 20000,
    rake_percent: float = 0.0,
    rake_cap: int = 0,
    mixed: Mapping[str, object] | None = None,
    time: Mapping[str, int] | None = None,
) -> GameConfig:
    """Build a GameConfig without YAML (e.g. from CLI options), checked by the same rules.

    ``mixed`` and ``time`` take the keys of the YAML ``game.mixed`` / ``game.time`` mappings.
    Raises LeagueConfigError listing every problem as ``key: message``.
    """
    options = {
        "variant": variant,
        "blinds": blinds,
        "ante": ante,
        "stack": stack,
        "rake": {"percent": rake_percent, "cap": rake_cap},
        "mixed": mixed,  # None: unset, as a null in the file
        "time": time,
    }
    ctx = Ctx("<options>", Path.cwd(), with_lines=False)
    fields = mapping(ctx, given_node(options, itertools.count()), "", GAME_KEYS)
    game = parse_game(ctx, [(fields, "")]) if fields is not None else None
    if ctx.errors or game is None:
        raise ctx.fail()
    return game
