"""League configuration: a full valid file, and every kind of error reported with its line and key."""

from __future__ import annotations

import os
import stat
import textwrap
from pathlib import Path

import pytest

from dealer.config.league_file import (
    Freezeout,
    GameConfig,
    LeagueBot,
    LeagueConfigError,
    Limits,
    MixedSpec,
    TimeControl,
    game_config,
    load_league,
    parse_league,
)
from dealer.errors import ConfigError

FULL = """\
name: Thursday league
seed: 2026
jobs: 2
out: out/thursday
listen: 0.0.0.0:50051
tls: {cert: server.crt, key: server.key}
tokens_file: tokens.yaml
fault_policy: restart
limits:
  memory_mb: 512
  network: none
bots:
  - {name: strength, command: sh bots/strength.sh --fast}
  - {name: node, command: [bots/node.sh, "a b"], version: "1.0", limits: {memory_mb: 2048}}
  - {name: alice, remote: true}
  - {name: random, command: ./bots/node.sh}
game:
  variant: no-limit
  blinds: [25, 50]
  ante: 5
  stack: 10000
  rake: {percent: 2.5, cap: 300}
  time: {per_action_ms: 500, bank_ms: 20000}
events:
  - {name: heads-up, format: round-robin, table_size: 2, hands: 2000, duplicate: false}
  - name: six-max
    format: round-robin
    table_size: 4
    hands: 1200
    meetings: 3
    bots: [strength, node, alice, random]
    game: {variant: mixed, mixed: {block_hands: 6, no_limit_blinds: [100, 200]}, time: {grace_ms: 10}}
  - {name: gauntlet, format: gauntlet, challenger: strength, bots: [node, random], table_size: 2, hands: 1000}
  - {name: final, format: freezeout, table_size: 4, blind_levels: [[50,100],[200,400,25]], hands_per_level: 50}
  - {name: v2-vs-v1, format: compare, new: strength, old: random, field: [node], hands: 20000,
     until_significant: true, test: sprt, alpha: 0.01, beta: 0.1, worse_than: -3, better_than: 2.5}
"""


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The current folder, holding the executable bot script the examples launch."""
    monkeypatch.chdir(tmp_path)
    script = tmp_path / "bots" / "node.sh"
    script.parent.mkdir()
    script.write_text("#!/bin/sh\n")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    (tmp_path / "bots" / "strength.sh").write_text("exit 0\n")  # a script FULL runs with sh
    (tmp_path / "bots" / "not-executable.sh").write_text("exit 0\n")
    return tmp_path


def write(folder: Path, text: str) -> Path:
    """Write a tournaments.yaml into the folder and return its path."""
    path = folder / "tournaments.yaml"
    path.write_text(textwrap.dedent(text))
    return path


def errors_of(folder: Path, text: str) -> list[str]:
    """Load a file that must be invalid and return its error lines."""
    write(folder, text)
    with pytest.raises(LeagueConfigError) as info:
        load_league("tournaments.yaml")  # messages name the file as it was given
    assert str(info.value) == "\n".join(info.value.errors)
    return info.value.errors


def minimal(bots: str = "", events: str = "", extra: str = "") -> str:
    """A small valid league, with optional extra bot lines, event lines and top-level keys."""
    return (
        "name: t\n"
        "bots:\n"
        "  - {name: a, command: ./bots/node.sh}\n"
        "  - {name: b, command: ./bots/node.sh}\n"
        f"{bots}"
        "events:\n"
        "  - {name: e, format: round-robin, table_size: 2, hands: 10}\n"
        f"{events}"
        f"{extra}"
    )


def test_full_example_parses_into_expected_values(folder: Path) -> None:
    path = write(folder, FULL)
    config = load_league(path)

    assert (config.name, config.seed, config.jobs) == ("Thursday league", 2026, 2)
    assert config.out == Path("out/thursday")
    assert config.listen == "0.0.0.0:50051"
    assert config.tls_cert == folder / "server.crt" and config.tls_key == folder / "server.key"
    assert config.tokens_file == folder / "tokens.yaml"
    assert config.fault_policy == "restart"
    assert config.path == path and config.folder == folder

    base_limits = Limits(memory_mb=512, network="none")
    assert config.bots == (
        LeagueBot("strength", ("sh", "bots/strength.sh", "--fast"), False, "", base_limits, 13),
        LeagueBot("node", ("bots/node.sh", "a b"), False, "1.0", Limits(memory_mb=2048, network="none"), 14),
        LeagueBot("alice", None, True, "", base_limits, 15),
        LeagueBot("random", ("./bots/node.sh",), False, "", base_limits, 16),
    )
    assert config.bot("alice").remote

    time = TimeControl(per_action_ms=500, bank_ms=20000, grace_ms=50, startup_ms=10000)
    assert config.game == GameConfig("no-limit", 25, 50, 5, 10000, 2.5, 300, None, time)

    heads_up, six_max, gauntlet, final, compare = config.events
    assert (heads_up.format, heads_up.table_size, heads_up.hands, heads_up.duplicate, heads_up.line) == (
        "round-robin",
        2,
        2000,
        False,
        25,
    )
    assert heads_up.bots == ("strength", "node", "alice", "random")
    assert heads_up.game == config.game

    assert (six_max.meetings, six_max.duplicate, six_max.line) == (3, True, 26)
    assert six_max.game.variant == "mixed"
    assert six_max.game.mixed == MixedSpec(block_hands=6, fixed_limit_blinds=(25, 50), no_limit_blinds=(100, 200))
    assert six_max.game.time == TimeControl(500, 20000, 10, 10000)  # event keys override one by one
    assert six_max.game.stack == 10000

    assert gauntlet.challenger == "strength"
    assert gauntlet.bots == ("strength", "node", "random")  # the challenger joins its opponents

    assert final.blind_levels == ((50, 100, 0), (200, 400, 25))
    assert isinstance(final, Freezeout) and final.format == "freezeout"  # no hands, never duplicate: not its keys
    assert (final.hands_per_level, final.max_hands) == (50, 5000)
    assert final.points == (3, 2, 1, 0)

    assert (compare.new, compare.old, compare.field) == ("strength", "random", ("node",))
    assert compare.bots == ("strength", "random", "node")
    assert (compare.table_size, compare.hands, compare.duplicate, compare.settings.until_significant) == (
        2,
        20000,
        True,
        True,
    )
    settings = compare.settings
    assert (settings.alpha, settings.beta, settings.worse_than, settings.better_than) == (0.01, 0.1, -3.0, 2.5)
    assert settings.test == "sprt" and settings.estimator == "full"  # a league file does not choose the estimator


def test_defaults_of_optional_keys(folder: Path) -> None:
    config = load_league(write(folder, minimal(extra="seed:\n")))
    assert config.seed is None
    assert config.jobs == (os.cpu_count() or 1)
    assert config.out == Path("out/t")
    assert (config.listen, config.fault_policy, config.tls_cert, config.tokens_file) == (
        "127.0.0.1:0",
        "fold",
        None,
        None,
    )
    assert config.game == GameConfig()
    assert config.bots[0].limits == Limits()
    assert config.events[0].duplicate is True


def test_parse_league_resolves_paths_against_the_filename_folder(folder: Path) -> None:
    config = parse_league(minimal(extra="tokens_file: tok.yaml\n"), str(folder / "league.yaml"))
    assert config.tokens_file == folder / "tok.yaml"
    assert config.path == folder / "league.yaml"


@pytest.mark.parametrize(
    ("extra_bots", "extra_events", "extra", "expected"),
    [
        ("", "", "jobz: 3\n", "tournaments.yaml:7: jobz: unknown key (did you mean 'jobs'?)"),
        ("", "", "jobs: two\n", "tournaments.yaml:7: jobs: expected an integer, got a string 'two'"),
        ("", "", "jobs: 0\n", "tournaments.yaml:7: jobs: must be >= 1, got 0"),
        ("  - {name: c}\n", "", "", "tournaments.yaml:5: bots[2].command: bot 'c': missing command (or remote: true)"),
        (
            "  - {name: c, remote: true, command: ./bots/node.sh}\n",
            "",
            "",
            "tournaments.yaml:5: bots[2].remote: bot 'c' has both a command and remote: true; give one",
        ),
        (
            "  - {name: a, remote: true}\n",
            "",
            "",
            "tournaments.yaml:5: bots[2].name: duplicate bot name 'a' (first at line 3)",
        ),
        (
            "  - {name: c, command: no-such-program-xyz --flag}\n",
            "",
            "",
            "tournaments.yaml:5: bots[2].command: bot 'c': program 'no-such-program-xyz' not found",
        ),
        (
            "  - {name: c, command: [./bots/missing.sh]}\n",
            "",
            "",
            "tournaments.yaml:5: bots[2].command: bot 'c': program './bots/missing.sh' not found",
        ),
        (
            "  - {name: c, command: python3 bots/missing.py --seed 1}\n",
            "",
            "",
            "tournaments.yaml:5: bots[2].command: bot 'c': script 'bots/missing.py' not found",
        ),
        (
            "  - {name: c, command: [./bots/node.sh, --quiet, run.py]}\n",
            "",
            "",
            "tournaments.yaml:5: bots[2].command: bot 'c': script 'run.py' not found",
        ),
        (
            "  - {name: c, command: ./bots/not-executable.sh}\n",
            "",
            "",
            "tournaments.yaml:5: bots[2].command: bot 'c': program './bots/not-executable.sh' is not executable",
        ),
        (
            "  - {name: c, remote: true, limits: {memroy_mb: 5}}\n",
            "",
            "",
            "tournaments.yaml:5: bots[2].limits.memroy_mb: unknown key (did you mean 'memory_mb'?)",
        ),
        (
            "",
            "  - {name: f, format: round-robin, table_size: 2, hands: 1, bots: [a, b, zzz]}\n",
            "",
            "tournaments.yaml:7: events[1].bots[2]: unknown bot 'zzz'",
        ),
        (
            "",
            "  - {name: f, format: round-robin, table_size: 7, hands: 1}\n",
            "",
            "tournaments.yaml:7: events[1].table_size: table of 7 is larger than the 2 bots of this event",
        ),
        (
            "",
            "  - {name: e, format: round-robin, table_size: 2, hands: 1}\n",
            "",
            "tournaments.yaml:7: events[1].name: duplicate event name 'e' (first at line 6)",
        ),
        (
            "",
            "  - {name: f, format: round-robin, table_size: 2, hands: 1, game: {variant: no-limt}}\n",
            "",
            "tournaments.yaml:7: events[1].game.variant: 'no-limt' is not one of no-limit, pot-limit, fixed-limit,"
            " mixed (did you mean 'no-limit'?)",
        ),
        (
            "",
            "",
            "game:\n  blinds: [100, 50]\n",
            "tournaments.yaml:8: game.blinds: small blind 100 is larger than big blind 50",
        ),
        (
            "",
            "",
            "game:\n  stack: 100\n",
            "tournaments.yaml:8: game.stack: stack 100 must be larger than the big blind 100",
        ),
        (
            "",
            "  - {name: f, format: freezeout, table_size: 2, hands: 5, blind_levels: [[1, 2]], hands_per_level: 9}\n",
            "",
            "tournaments.yaml:7: events[1].hands: does not apply to format freezeout",
        ),
        (
            "",
            "  - {name: f, format: compare, new: a, old: a, hands: 5}\n",
            "",
            "tournaments.yaml:7: events[1].old: new and old are the same bot 'a'",
        ),
        (
            "",
            "  - {name: f, format: compare, new: a, old: b, hands: 5, test: ttest}\n",
            "",
            "tournaments.yaml:7: events[1].test: 'ttest' is not one of cs, sprt",
        ),
        (
            "",
            "  - {name: f, format: gauntlet, table_size: 2, hands: 5}\n",
            "",
            "tournaments.yaml:7: events[1].challenger: missing (required for format gauntlet)",
        ),
        (
            "",
            "  - {name: f, format: round-robin, table_size: 2, hands: 5, game: {mixed: {block_hands: 2}}}\n",
            "",
            "tournaments.yaml:7: events[1].game.mixed: applies only to variant mixed, not 'no-limit'",
        ),
    ],
)
def test_each_error_is_reported_with_line_and_key(
    folder: Path, extra_bots: str, extra_events: str, extra: str, expected: str
) -> None:
    assert errors_of(folder, minimal(extra_bots, extra_events, extra)) == [expected]


def test_commands_naming_existing_scripts_or_code_are_accepted(folder: Path) -> None:
    bots = (
        "  - {name: c, command: sh bots/strength.sh}\n"
        "  - {name: d, command: [python3, -c, 'import x.py']}\n"
        "  - {name: e, command: python3 -m pkg.main.py}\n"
    )
    assert [b.name for b in parse_league(minimal(bots), str(folder / "t.yaml")).bots] == ["a", "b", "c", "d", "e"]


def test_yaml_syntax_error_has_its_line(folder: Path) -> None:
    errors = errors_of(folder, "name: t\n  bots: 1\n")
    assert len(errors) == 1
    assert errors[0].startswith("tournaments.yaml:2: YAML syntax error:")
    assert "mapping values are not allowed here" in errors[0]


def test_empty_file_and_non_mapping_root(folder: Path) -> None:
    assert errors_of(folder, "# nothing\n") == ["tournaments.yaml:1: the file is empty"]
    assert errors_of(folder, "- a\n") == ["tournaments.yaml:1: expected a mapping, got a list"]


def test_all_errors_of_a_file_are_reported_at_once_in_line_order(folder: Path) -> None:
    errors = errors_of(
        folder,
        """\
        name: t
        seed: 1.5
        bots:
          - {name: a, command: ./bots/node.sh}
          - {name: a, remote: true}
          - {name: c}
        game:
          variant: pot-limit
          blinds: [0, 100]
          time: {per_action_ms: 0}
        events:
          - {name: e, format: round-robin, table_size: 11, hands: 1, duplicat: true}
          - {name: f, format: gauntlet, challenger: zed, table_size: 2, hands: 1}
        """,
    )
    assert errors == [
        "tournaments.yaml:2: seed: expected an integer or a string, got a number 1.5",
        "tournaments.yaml:5: bots[1].name: duplicate bot name 'a' (first at line 4)",
        "tournaments.yaml:6: bots[2].command: bot 'c': missing command (or remote: true)",
        "tournaments.yaml:9: game.blinds: small blind must be > 0, got 0",
        "tournaments.yaml:10: game.time.per_action_ms: must be >= 1, got 0",
        "tournaments.yaml:12: events[0].duplicat: unknown key (did you mean 'duplicate'?)",
        "tournaments.yaml:12: events[0].table_size: must be 2..10, got 11",
        "tournaments.yaml:13: events[1].challenger: unknown bot 'zed'",
    ]


def test_missing_required_sections(folder: Path) -> None:
    assert errors_of(folder, "seed: 1\n") == [
        "tournaments.yaml:1: name: missing (required)",
        "tournaments.yaml:1: bots: missing (required)",
        "tournaments.yaml:1: events: missing (required)",
    ]


def test_league_config_error_is_a_config_error(folder: Path) -> None:
    with pytest.raises(ConfigError):
        load_league(folder / "absent.yaml")


def test_game_config_without_yaml() -> None:
    assert game_config() == GameConfig()
    game = game_config(variant="mixed", blinds=(10, 20), stack=2000, time={"per_action_ms": 200})
    assert game.mixed == MixedSpec(None, (10, 20), (10, 20))
    assert (game.small_blind, game.big_blind, game.time.per_action_ms) == (10, 20, 200)
    with pytest.raises(LeagueConfigError) as info:
        game_config(blinds=(100, 50), time={"bank_ms": -1})
    assert info.value.errors == [
        "blinds: small blind 100 is larger than big blind 50",
        "time.bank_ms: must be >= 0, got -1",
    ]


def test_game_config_reads_its_arguments_as_they_are() -> None:
    """The arguments go to the league file's readers as values, not through YAML text: a str
    subclass (a StrEnum choice) and tuples are read (safe_dump refused a str subclass with a
    RepresenterError traceback), and errors come in the order of the arguments."""
    import enum

    class Variant(enum.StrEnum):
        POT_LIMIT = "pot-limit"

    game = game_config(variant=Variant.POT_LIMIT, blinds=(5, 10), mixed=None, time={"bank_ms": 0})
    assert (game.variant, game.small_blind, game.big_blind, game.time.bank_ms) == ("pot-limit", 5, 10, 0)
    with pytest.raises(LeagueConfigError) as info:
        game_config(variant="no-limt", blinds=(1, True), ante=-1, time={"per_action_ms": 0, "bank": 1})
    assert info.value.errors == [
        "variant: 'no-limt' is not one of no-limit, pot-limit, fixed-limit, mixed (did you mean 'no-limit'?)",
        "blinds[1]: expected an integer, got a boolean True",
        "ante: must be >= 0, got -1",
        "time.per_action_ms: must be >= 1, got 0",
        "time.bank: unknown key (did you mean 'bank_ms'?)",
    ]


def test_sandbox_switch_and_tmp_size_per_league_and_per_bot(folder: Path) -> None:
    """``sandbox: off`` unquoted is a YAML boolean: read as "off"; a bot may turn it back on."""
    bots = "  - {name: c, command: ./bots/node.sh, limits: {sandbox: 'on', tmp_mb: 8}}\n"
    config = parse_league(minimal(bots, extra="limits: {sandbox: off, network: host}\n"), str(folder / "t.yaml"))
    limits = {b.name: b.limits for b in config.bots}
    assert limits["a"] == Limits(sandbox="off", network="host")
    assert limits["c"] == Limits(sandbox="on", network="host", tmp_mb=8)
    assert Limits().sandbox == "on" and Limits().network == "none"
    with pytest.raises(LeagueConfigError) as error:
        parse_league(minimal(extra="limits: {sandbox: maybe, tmp_mb: 0}\n"), str(folder / "t.yaml"))
    text = str(error.value)
    assert "limits.sandbox: 'maybe' is not one of on, off" in text and "limits.tmp_mb: must be >= 1" in text, text


def test_a_rake_percent_finer_than_a_basis_point_is_refused_not_rounded(folder: Path) -> None:
    # The engine rakes in basis points: 2.125% used to be played as 2.12% without a word.
    assert errors_of(folder, minimal(extra="game:\n  rake: {percent: 2.125, cap: 300}\n")) == [
        "tournaments.yaml:8: game.rake.percent: must be a whole number of basis points (0.01%), got 2.125: 2.12 or 2.13"
    ]
    assert errors_of(folder, minimal(extra="game:\n  rake:\n    percent: 0.005\n")) == [
        "tournaments.yaml:9: game.rake.percent: must be a whole number of basis points (0.01%), got 0.005: 0 or 0.01"
    ]
    for percent, bps in ((2.12, 212), (2.25, 225), (7, 700), (0.01, 1), (100, 10_000)):
        game = game_config(rake_percent=percent, rake_cap=0)
        assert game.rake_percent * 100 == pytest.approx(bps, abs=1e-9)  # played as exactly bps basis points
    with pytest.raises(LeagueConfigError, match=r"rake.percent: must be a whole number of basis points"):
        game_config(rake_percent=1.234)


# Every number the file can give, one past its upper bound (line 7 of `minimal`'s extra keys, line 6
# for an event): each is one `file:line: key:` error where it used to reach the run (an out-of-range
# wire value, a MemoryError building 10**12 meetings) after `validate` said ok.
@pytest.mark.parametrize(
    ("extra_events", "extra", "expected"),
    [
        ("", "jobs: 1025\n", "7: jobs: must be <= 1024, got 1025"),
        ("", "game: {stack: 1000000000001}\n", "7: game.stack: must be <= 1000000000000, got 1000000000001"),
        ("", "game: {blinds: [1, 1000000000001]}\n", "7: game.blinds[1]: must be <= 1000000000000"),
        ("", "game: {ante: 1000000000001}\n", "7: game.ante: must be <= 1000000000000"),
        ("", "game: {rake: {percent: 1, cap: 1000000000001}}\n", "7: game.rake.cap: must be <= 1000000000000"),
        ("", "game: {time: {per_action_ms: 5000000000}}\n", "7: game.time.per_action_ms: must be <= 86400000"),
        ("", "game: {time: {bank_ms: 86400001}}\n", "7: game.time.bank_ms: must be <= 86400000"),
        ("", "game: {time: {startup_ms: 86400001}}\n", "7: game.time.startup_ms: must be <= 86400000"),
        ("", "limits: {memory_mb: 1048577}\n", "7: limits.memory_mb: must be <= 1048576, got 1048577"),
        ("", "limits: {cpu_seconds: 10000000000}\n", "7: limits.cpu_seconds: must be <= 1048576"),
        (
            "  - {name: f, format: round-robin, table_size: 2, hands: 5000000000}\n",
            "",
            "7: events[1].hands: must be <= 1000000000, got 5000000000",
        ),
        (
            "  - {name: f, format: round-robin, table_size: 2, hands: 5, meetings: 1000000000000}\n",
            "",
            "7: events[1].meetings: must be <= 100, got 1000000000000",
        ),
        (
            "  - {name: f, format: freezeout, table_size: 2, blind_levels: [[1, 2]], hands_per_level: 5,"
            " max_hands: 1000000001}\n",
            "",
            "7: events[1].max_hands: must be <= 1000000000",
        ),
        (
            "  - {name: f, format: compare, new: a, old: b, hands: 5000000000}\n",
            "",
            "7: events[1].hands: must be <= 1000000000",
        ),
    ],
)
def test_every_number_has_an_upper_bound(folder: Path, extra_events: str, extra: str, expected: str) -> None:
    errors = errors_of(folder, minimal("", extra_events, extra))
    assert len(errors) == 1 and errors[0].startswith(f"tournaments.yaml:{expected}"), errors


def test_a_file_that_is_not_utf8_is_refused_with_its_line_and_byte_offset(folder: Path) -> None:
    (folder / "tournaments.yaml").write_bytes(minimal().encode() + b"# caf\xe9\n")
    with pytest.raises(LeagueConfigError) as info:
        load_league("tournaments.yaml")
    offset = len(minimal().encode()) + 5
    assert info.value.errors == [f"tournaments.yaml:7: not UTF-8: byte 0xe9 at offset {offset}; save the file as UTF-8"]


def test_a_control_character_and_a_number_too_long_to_read_are_errors_with_their_lines(folder: Path) -> None:
    assert errors_of(folder, minimal(extra="# bell \x07\n")) == [
        f"tournaments.yaml:7: character U+0007 at offset {len(minimal()) + 7} is not allowed in YAML"
    ]
    errors = errors_of(folder, minimal(extra=f"seed: {'9' * 5000}\n"))
    assert len(errors) == 1 and errors[0].startswith("tournaments.yaml:7: YAML error: Exceeds the limit"), errors


def test_home_mb_per_league_and_per_bot_and_bounded(folder: Path) -> None:
    """``home_mb`` (the size of a sandboxed bot instance's HOME) is a limit like the others: layered, bounded."""
    bots = "  - {name: c, command: ./bots/node.sh, limits: {home_mb: 8}}\n"
    config = parse_league(minimal(bots, extra="limits: {home_mb: 32}\n"), str(folder / "t.yaml"))
    assert {b.name: b.limits.home_mb for b in config.bots} == {"a": 32, "b": 32, "c": 8}
    assert Limits().home_mb == 256
    for bad, message in (("0", "must be >= 1"), ("99999999", "must be <=")):
        with pytest.raises(LeagueConfigError) as error:
            parse_league(minimal(extra=f"limits: {{home_mb: {bad}}}\n"), str(folder / "t.yaml"))
        assert "limits.home_mb: " + message in str(error.value), str(error.value)
