"""docs/benchmarks.md is written by the benchmark scripts: each has its section, and the helper
replaces exactly that section."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BENCHMARKS = ROOT / "tests" / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

import tables  # noqa: E402 - the benchmarks' own helper, beside the scripts


def test_a_section_is_replaced_and_the_rest_of_the_page_kept() -> None:
    page = ("# Benchmarks\nintro\n<!-- bench:cube2 -->\nold figures\n<!-- /bench:cube2 -->\n"
            "<!-- bench:cube3 -->\nthree\n<!-- /bench:cube3 -->\n")
    updated = tables.replace_section(page, "cube2", "new table\n")
    assert updated == page.replace("old figures", "new table")
    assert tables.replace_section(updated, "cube2", "old figures") == page


@pytest.mark.parametrize("page", [
    "no markers at all\n",
    "<!-- bench:cube2 -->\nonly the opening\n",
    "<!-- /bench:cube2 -->\nclosed first\n<!-- bench:cube2 -->\n",
    "<!-- bench:cube2 -->\n<!-- bench:cube2 -->\ntwice\n<!-- /bench:cube2 -->\n",
])
def test_a_page_without_one_clean_section_is_refused_naming_the_markers(page: str) -> None:
    with pytest.raises(tables.SectionError, match="bench:cube2"):
        tables.replace_section(page, "cube2", "table")


def test_a_written_section_says_how_it_was_measured(tmp_path: Path) -> None:
    page = tmp_path / "benchmarks.md"
    page.write_text("<!-- bench:framing -->\nseeded\n<!-- /bench:framing -->\n")
    tables.write_section("framing", "frames  damaged\n1000    0\n",
                         "python tests/benchmarks/bench_framing.py --frames 1000", page)
    text = page.read_text()
    assert "seeded" not in text
    assert "Measured by `python tests/benchmarks/bench_framing.py --frames 1000`" in text
    assert "1000    0" in text and text.endswith("<!-- /bench:framing -->\n")


#: the folder's modules that print no table: the docs writer, the real corner views' rows that
#: bench_corner_views.py imports, and the script that draws real frames beside synthetic ones
_NOT_BENCHMARKS = {"tables.py", "real_corner_rows.py", "compare_frames.py"}


def test_every_benchmark_script_has_its_section_in_docs() -> None:
    page = (ROOT / "docs" / "benchmarks.md").read_text()
    names = []
    for script in sorted(BENCHMARKS.glob("*.py")):
        if script.name in _NOT_BENCHMARKS:
            continue
        found = re.findall(r'tables\.run\(main, "([a-z0-9-]+)"\)', script.read_text())
        assert found, f"{script.name} does not end with tables.run(main, NAME)"
        names.extend(found)
    assert len(names) == len(set(names))
    for name in names:
        tables.replace_section(page, name, "table")  # raises unless it has one clean section
