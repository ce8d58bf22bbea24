"""Every solution notebook keeps the skeleton of DESIGN.md, so students always find the same parts."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest

NOTEBOOKS = sorted(Path("solutions").glob("*.ipynb"))
SECTIONS = ["學習目標", "本章不涵蓋", "和上一本", "小結", "自我檢查", "下一步", "延伸閱讀"]
EXPECTED = ["00_overview", "01_classify", "02_extract", "03_consolidate", "04_retrieve",
            "05_delete", "06_evaluate", "07_poison"]


def test_the_eight_notebooks_exist_in_order():
    assert [p.stem for p in NOTEBOOKS] == EXPECTED


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_skeleton(path):
    nb = nbformat.read(path, as_version=4)
    markdown = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert nb.cells[0].cell_type == "markdown" and nb.cells[0].source.startswith("# ")
    headings = [line.lstrip("#").strip() for line in markdown.splitlines() if line.startswith("#")]
    # The last heading starting with each name: a mid-notebook "自我檢查:…" step is fine.
    found = [max((i for i, h in enumerate(headings) if h.startswith(s)), default=-1)
             for s in SECTIONS]
    assert all(i >= 0 for i in found), dict(zip(SECTIONS, found, strict=True))
    assert found == sorted(found), f"sections out of order: {headings}"
    assert "<details>" in markdown  # self-check answers are folded
    setup = code[0].source
    assert 'memlab.require("0.1")' in setup and "clock.freeze(" in setup
    assert any("memlab.check(" in c.source for c in code), "no self-checked exercise"
    assert any("### BEGIN SOLUTION" in c.source for c in code)
    outputs = [o for c in code for o in c.get("outputs", [])]
    assert not [o for o in outputs if o.get("output_type") == "error" or o.get("name") == "stderr"]
