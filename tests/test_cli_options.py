"""The CLI's fixed-choice options are typed (typer checks them and lists the choices in its
error and help), and shell completion is on."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from dealer.cli import app

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
