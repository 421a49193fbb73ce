"""The README and docs/ say what the code does: generated sections are current, every game has its page,
links lead somewhere, and the README stays a five-minute read (issue 24)."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path
from types import ModuleType

import pytest

from termgames.games import GAMES

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"


def generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("docs_generate", DOCS / "generate.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


PAGES = [ROOT / "README.md", *sorted(DOCS.glob("*.md"))]


@pytest.mark.parametrize("page", PAGES, ids=lambda path: path.name)
def test_generated_sections_say_what_the_code_does(page: Path) -> None:
    """Keys from the screens' BINDINGS, options from the option specs: python docs/generate.py rewrites them."""
    text = page.read_text(encoding="utf-8")
    assert generator().refreshed(text) == text, f"{page.name} is out of date: run python docs/generate.py"


@pytest.mark.parametrize("name", list(GAMES))
def test_every_game_has_its_page_with_its_keys_and_options(name: str) -> None:
    page = DOCS / f"{name}.md"
    text = page.read_text(encoding="utf-8")
    assert f"<!-- generated: options {name} -->" in text
    if GAMES[name].playable:
        assert f"<!-- generated: keys {name} -->" in text
    assert f"(docs/{name}.md)" in (ROOT / "README.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("page", PAGES, ids=lambda path: path.name)
def test_links_lead_to_files_and_headings_that_exist(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if target.startswith(("http://", "https://")):
            continue
        path, _, anchor = target.partition("#")
        linked = (page.parent / path).resolve() if path else page
        assert linked.exists(), f"{page.name} links to {target}, which does not exist"
        if anchor and linked.suffix == ".md":
            assert anchor in headings(linked), f"{page.name} links to {target}: no such heading"


def headings(page: Path) -> set[str]:
    """The anchors a Markdown page's headings get (GitHub's rule: lower case, punctuation dropped, - for spaces)."""
    anchors = set()
    for line in page.read_text(encoding="utf-8").splitlines():
        if line.startswith("#"):
            title = line.lstrip("#").strip().lower()
            anchors.add(re.sub(r"[^\w\- ]", "", title).replace(" ", "-"))
    return anchors


def test_the_readme_is_a_five_minute_read() -> None:
    assert len((ROOT / "README.md").read_text(encoding="utf-8").splitlines()) <= 250


def test_the_readme_test_command_is_what_ci_runs() -> None:
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").strip().splitlines()[-1]
    assert ci in (ROOT / "README.md").read_text(encoding="utf-8")
