"""The CLI's fixed-choice options are typed (typer checks them and lists the choices in its
error and help), shell completion is on, and a walk through the commands with bad values and bad
files finds one usage error or one `error:` line each, never a traceback, before anything starts."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from conftest import ROOT
from dealer.cli.main import app

RUNNER = CliRunner()


@pytest.mark.parametrize(
    ("command", "option", "value", "choices"),
    [
        ("match", "--variant", "no-limits", "'no-limit', 'pot-limit', 'fixed-limit', 'mixed'"),
        ("match", "--fault-policy", "retry", "'fold', 'forfeit', 'restart'"),
        ("match", "--sandbox", "maybe", "'on', 'off'"),
        ("match", "--log-level", "loud", "'debug', 'info', 'warning', 'error'"),
        ("compare", "--variant", "limit", "'no-limit', 'pot-limit', 'fixed-limit', 'mixed'"),
    ],
)
def test_a_value_outside_the_choices_is_a_usage_error_naming_them(
    command: str, option: str, value: str, choices: str
) -> None:
    result = RUNNER.invoke(app, [command, "python a.py", "python b.py", option, value])  # checked before any start
    assert result.exit_code == 2, result.output
    flat = " ".join(result.output.replace("│", " ").split())
    assert f"Invalid value for '{option}'" in flat and f"'{value}' is not one of {choices}" in flat, flat


def test_shell_completion_is_offered() -> None:
    result = RUNNER.invoke(app, ["--help"])
    assert result.exit_code == 0 and "--install-completion" in result.output and "--show-completion" in result.output


BOTS = ["python a.py", "python b.py"]  # never started: every value below is refused before anything runs


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["match", *BOTS, "--hands", "-5"], "Invalid value for '--hands'"),
        (["match", *BOTS, "--hands", "1"], "--hands 1 is fewer than one hand at each of the 2 tables"),
        (["match", *BOTS, "--tables", "100000000"], "Invalid value for '--tables'"),
        (["match", *BOTS, "--per-action-ms", "5000000000"], "Invalid value for '--per-action-ms'"),
        (["match", *BOTS, "--bank-ms", "-1"], "Invalid value for '--bank-ms'"),
        (["match", *BOTS, "--startup-ms", "99999999999"], "Invalid value for '--startup-ms'"),
        (["match", *BOTS, "--stack", "10000000000000"], "Invalid value for '--stack'"),
        (["match", *BOTS, "--ante", "-1"], "Invalid value for '--ante'"),
        (["match", *BOTS, "--blinds", "fifty"], "blinds must look like 50/100, not 'fifty'"),
        (["match", *BOTS, "--listen", "localhost"], "expected host:port with a port 0..65535, got 'localhost'"),
        (["match", *BOTS, "--name", "a"], "give one --name per bot: 1 given for 2 bots"),
        (["match", *BOTS, "--name", "a b", "--name", "c"], "--name 'a b' must match"),
        (["match", "python 'a.py", "python b.py"], "cannot split the command line"),
        (["compare", *BOTS, "--hands", "-5"], "Invalid value for '--hands'"),
        (["compare", *BOTS, "--tables", "100000000"], "Invalid value for '--tables'"),
        (["compare", *BOTS, "--batch", "0"], "Invalid value for '--batch'"),
        (["compare", *BOTS, "--per-action-ms", "5000000000"], "Invalid value for '--per-action-ms'"),
        (["compare", *BOTS, "--alpha", "0.7"], "must be between 0 and 0.5 (exclusive), not 0.7"),
        (["compare", *BOTS, "--worse-than", "nan"], "must be a finite number, not nan"),
        (["compare", "python 'a.py", "python b.py"], "cannot split the command line"),
        (["run", "tournaments.yaml", "--web", "localhost"], "expected host:port with a port 0..65535, got 'localhost'"),
        (["run", "tournaments.yaml", "--web", "127.0.0.1:99999"], "got '127.0.0.1:99999'"),
        (["serve", "tournaments.yaml", "--web", "[::1]"], "expected host:port"),
        (["run", str(ROOT / "tournaments.yaml"), "--resume", "--fresh"], "--resume goes on from the earlier"),
    ],
)
def test_bad_option_values_are_one_usage_error_each_never_a_traceback(argv: list[str], message: str) -> None:
    result = RUNNER.invoke(app, argv)
    assert result.exit_code == 2, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    flat = " ".join(result.output.replace("│", " ").split())
    assert message in flat and "Traceback" not in flat, flat


def test_bad_files_given_to_the_cli_are_one_line_each(tmp_path: Path) -> None:
    latin = tmp_path / "league.yaml"
    latin.write_bytes(b"name: caf\xe9\n")
    meetings = tmp_path / "meetings.yaml"
    meetings.write_text(
        "name: m\nbots:\n  - {name: a, command: python3 -c pass}\n  - {name: b, command: python3 -c pass}\n"
        "events:\n  - {name: e, format: round-robin, table_size: 2, hands: 5000000000, meetings: 1000000000000}\n",
        encoding="utf-8",
    )
    seed = tmp_path / "seed.txt"
    seed.write_bytes(b"\xff\xfe")
    empty = tmp_path / "nothing"
    empty.mkdir()
    a_file = tmp_path / "a-file"
    a_file.write_text("", encoding="utf-8")
    (tmp_path / "tokens.yaml").write_bytes(b"b: \xff\n")
    league = (
        "name: s\nout: {out}\ntokens_file: tokens.yaml\nbots:\n  - {{name: a, command: python3 -c pass}}\n"
        "  - {{name: b, remote: true}}\nevents:\n  - {{name: e, format: round-robin, table_size: 2, hands: 2}}\n"
    )
    into_a_file, served = tmp_path / "into-a-file.yaml", tmp_path / "served.yaml"
    into_a_file.write_text(league.format(out=a_file), encoding="utf-8")
    served.write_text(league.format(out=tmp_path / "served"), encoding="utf-8")
    cases = [
        (["validate", str(latin)], [f"error: {latin}:1: not UTF-8: byte 0xe9 at offset 9; save the file as UTF-8"]),
        (["run", str(latin)], [f"error: {latin}:1: not UTF-8: byte 0xe9 at offset 9; save the file as UTF-8"]),
        (
            ["validate", str(meetings)],
            [
                f"error: {meetings}:6: events[0].hands: must be <= 1000000000, got 5000000000",
                f"error: {meetings}:6: events[0].meetings: must be <= 100, got 1000000000000",
            ],
        ),
        (
            ["match", *BOTS, "--seed-file", str(seed), "--out", str(tmp_path / "o")],
            [f"error: --seed-file {seed}: not UTF-8 (byte offset 0)"],
        ),
        (
            ["export", "--acpc", str(empty)],
            [f"error: {empty}: no hand histories (.phhs files) in this folder or below"],
        ),
        (["match", *BOTS, "--out", str(a_file)], [f"error: {a_file}: the output folder is a file; choose another one"]),
        (["serve", str(into_a_file)], [f"error: {a_file}: the output folder is a file; choose another one"]),
        (
            ["serve", str(served)],
            [f"error: {tmp_path / 'tokens.yaml'}: not UTF-8 (byte offset 3)"],
        ),
    ]
    for argv, lines in cases:
        result = RUNNER.invoke(app, argv)
        assert result.exit_code == 2, (argv, result.output)
        assert result.exception is None or isinstance(result.exception, SystemExit), (argv, result.exception)
        assert result.output.splitlines()[-len(lines) :] == lines, (argv, result.output)


@pytest.mark.parametrize("command", ["match", "compare"])
def test_an_output_folder_holding_results_is_refused_before_anything_starts(tmp_path: Path, command: str) -> None:
    out = tmp_path / "out"
    (out / "hands").mkdir(parents=True)
    (out / "results.json").write_text("earlier\n", encoding="utf-8")
    result = RUNNER.invoke(app, [command, *BOTS, "--out", str(out)])
    assert result.exit_code == 2, result.output
    assert result.output.splitlines()[-1] == (
        f"error: {out} already holds results (results.json, hands): pass --fresh to move them aside to a dated "
        "folder, or choose another output folder"
    )
    assert sorted(p.name for p in out.iterdir()) == ["hands", "results.json"]  # not even a dealer.log
    assert (out / "results.json").read_text(encoding="utf-8") == "earlier\n"
