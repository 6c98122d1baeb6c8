"""The ACPC dealer protocol 2.0.0's side that needs no I/O: game definitions, what they cannot
express, positions, and the log's ``STATE`` lines from our PHH histories.

An ACPC position is a seat's place in the hand's acting order after the flop, from 0: the small
blind first and the button last (heads-up: the big blind, then the button). These are PHH's
``p1..pN``. A game definition fixes one betting structure, blinds by position and stacks that
reset every hand: pot limit, antes, mixed games, rake and carried stacks have no ACPC form.
No-limit raise sizes are the raiser's total for the hand, not for the round.
"""

from __future__ import annotations

import tomllib
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # config imports this module: no import cycle at run time
    from dealer.config.league_file import GameConfig

MAX_PLAYERS = 10  # the ACPC server's limit; ours too
CAP = 4  # bets per round in our fixed limit (the big blind is the first pre-flop)


def fixed_limit_exposure(game: GameConfig) -> int:
    """The most a seat can put in a fixed-limit hand: the cap of bets on every street."""
    return CAP * game.big_blind * 2 + CAP * 2 * game.big_blind * 2


def unsupported(game: GameConfig, *, seats: int, freezeout: bool = False) -> str | None:
    """Why an ACPC game definition cannot express these rules (None: it can), in one line."""
    if game.variant == "pot-limit":
        return "ACPC game definitions have no pot limit (use no-limit or fixed-limit)"
    if game.variant == "mixed":
        return "an ACPC game definition has one betting structure: no mixed games"
    if game.ante:
        return "ACPC game definitions have no antes"
    if game.rake_percent:
        return "the ACPC protocol has no rake"
    if freezeout:
        return "ACPC stacks reset every hand: no freezeout (carried stacks)"
    if not 2 <= seats <= MAX_PLAYERS:
        return f"ACPC tables have 2 to {MAX_PLAYERS} players, not {seats}"
    if game.variant == "fixed-limit" and game.stack < fixed_limit_exposure(game):
        return (
            f"ACPC fixed limit has no all-in for less: the stack must cover the cap on every street "
            f"(at least {fixed_limit_exposure(game)})"
        )
    return None


def blinds_by_position(game: GameConfig, players: int) -> list[int]:
    """Blinds by ACPC position: heads-up the big blind is position 0, else small then big blind."""
    if players == 2:
        return [game.big_blind, game.small_blind]
    return [game.small_blind, game.big_blind] + [0] * (players - 2)


def game_definition(game: GameConfig, players: int) -> str:
    """The ACPC ``.game`` file of a match (heads-up: reverse blinds, the button acts first pre-flop)."""
    lines = [
        "GAMEDEF",
        "limit" if game.variant == "fixed-limit" else "nolimit",
        f"numPlayers = {players}",
        "numRounds = 4",
        f"stack = {' '.join([str(game.stack)] * players)}",
        f"blind = {' '.join(map(str, blinds_by_position(game, players)))}",
    ]
    if game.variant == "fixed-limit":
        lines += [
            f"raiseSize = {game.big_blind} {game.big_blind} {2 * game.big_blind} {2 * game.big_blind}",
            f"maxRaises = {CAP - 1} {CAP} {CAP} {CAP}",
        ]
    lines += [
        f"firstPlayer = {2 if players == 2 else 3} 1 1 1",
        "numSuits = 4",
        "numRanks = 13",
        "numHoleCards = 2",
        "numBoardCards = 0 3 1 1",
        "END GAMEDEF",
        "",
    ]
    return "\n".join(lines)


def position(seat: int, button: int, players: int) -> int:
    """The ACPC position of table seat ``seat`` in a hand whose button is ``button``."""
    return (seat - button - 1) % players


def export_states(phhs_text: str) -> list[str]:
    """Every hand of a ``.phhs`` file as an ACPC log line
    ``STATE:<hand>:<betting>:<hole cards|...>/<board>:<net|...>:<name|...>``."""
    data = tomllib.loads(phhs_text)
    lines = []
    for key in sorted(data, key=int):
        hand = data[key]
        if hand["variant"] not in ("NT", "FT"):
            raise ValueError(f"hand [{key}]: variant {hand['variant']} has no ACPC form")
        if any(hand.get("antes", [])):
            raise ValueError(f"hand [{key}]: antes have no ACPC form")
        players = len(hand["starting_stacks"])
        holes = [""] * players
        rounds: list[list[str]] = [[]]
        board: list[str] = []
        committed = [0] * players  # chips in earlier rounds, by position
        street = [0] * players  # chips in this round
        blinds = hand["blinds_or_straddles"]
        for p, blind in enumerate(reversed(blinds) if players == 2 else blinds):
            street[p] = blind
        for action in hand["actions"]:
            words = action.split()
            if words[:2] == ["d", "dh"]:
                holes[int(words[2][1:]) - 1] = words[3]
            elif words[:2] == ["d", "db"]:
                board.append(words[2])
                rounds.append([])
                committed = [c + s for c, s in zip(committed, street, strict=True)]
                street = [0] * players
            elif len(words) >= 2 and words[0].startswith("p"):
                p = int(words[0][1:]) - 1
                if words[1] == "f":
                    rounds[-1].append("f")
                elif words[1] == "cc":
                    street[p] = max(street)
                    rounds[-1].append("c")
                elif words[1] == "cbr":
                    street[p] = int(words[2])
                    rounds[-1].append(f"r{committed[p] + street[p]}" if hand["variant"] == "NT" else "r")
        net = [end - start for start, end in zip(hand["starting_stacks"], hand["finishing_stacks"], strict=True)]
        cards = "|".join(holes) + "".join(f"/{cards}" for cards in board)
        names = hand.get("players", [f"p{k + 1}" for k in range(players)])
        lines.append(
            f"STATE:{hand.get('hand', int(key) - 1)}:{'/'.join(''.join(r) for r in rounds)}:{cards}:"
            f"{'|'.join(map(str, net))}:{'|'.join(names)}"
        )
    return lines
