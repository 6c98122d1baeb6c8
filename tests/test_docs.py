"""Docs that run: every fenced YAML block parses, every relative link resolves, and the examples that
stand for a file of the repository (the CI workflow, the C sample bot) are that file, to the byte."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
DOCS = sorted([*ROOT.glob("*.md"), *(ROOT / "docs").glob("*.md"), ROOT / "sample_bots" / "README.md"])
FENCE = re.compile(r"^```(\w*)\n(.*?)^```$", re.M | re.S)
LINK = re.compile(r"\]\(([^)\s]+)\)")


def blocks(doc: Path, language: str) -> list[str]:
    """The fenced blocks of ``language`` in ``doc``, their text without the fences."""
    return [body for lang, body in FENCE.findall(doc.read_text(encoding="utf-8")) if lang == language]


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_yaml_block_parses(doc):
    for body in blocks(doc, "yaml"):
        try:
            list(yaml.safe_load_all(body))
        except yaml.YAMLError as error:
            pytest.fail(f"{doc.relative_to(ROOT)}: a YAML block does not parse: {error}\n{body}")


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_resolves(doc):
    text = FENCE.sub("", doc.read_text(encoding="utf-8"))  # code blocks hold no links
    for target in LINK.findall(text):
        if re.match(r"[a-z]+:", target) or target.startswith("#"):
            continue
        path = (doc.parent / target.split("#")[0]).resolve()
        assert path.exists(), f"{doc.relative_to(ROOT)} links to {target}, which does not exist"


def test_the_ci_example_is_the_workflow_file():
    (example,) = [b for b in blocks(ROOT / "docs" / "compare.md", "yaml") if "bot-regression.yml" in b]
    workflow = ROOT / ".github" / "workflows" / "bot-regression.yml"
    assert example == f"# .github/workflows/bot-regression.yml\n{workflow.read_text(encoding='utf-8')}"
    steps = yaml.safe_load(example)["jobs"]["compare"]["steps"]
    assert any("dealer compare" in step.get("run", "") for step in steps)


def test_the_c_snippet_is_the_sample_bot():
    (snippet,) = blocks(ROOT / "sample_bots" / "README.md", "c")
    assert snippet == (ROOT / "sample_bots" / "c" / "bot.c").read_text(encoding="utf-8")


def test_the_house_rules_are_in_the_repository():
    rules = ROOT / "docs" / "RULES.md"
    assert "docs/RULES.md" in (ROOT / "README.md").read_text(encoding="utf-8")
    assert "## Showdown and pots" in rules.read_text(encoding="utf-8")


def test_help_texts_have_no_rst_markup():
    """Command docstrings are the help typer prints: no reStructuredText literals (``x``) in them."""
    from typer.testing import CliRunner

    from dealer.cli.main import app

    runner = CliRunner()
    commands = [[]] + [[c.name or c.callback.__name__] for c in app.registered_commands]
    for command in commands:
        shown = runner.invoke(app, [*command, "--help"], terminal_width=200)
        assert shown.exit_code == 0, (command, shown.output)
        assert "``" not in shown.output, f"dealer {' '.join(command)} --help shows RST markup:\n{shown.output}"
