"""tools/make_student.py: solutions/ → notebooks/ generation and the --check drift gate."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "tools" / "make_student.py"


def _load_make_student() -> ModuleType:
    # tools/ is not a package; load the script as a module so its functions are testable.
    spec = importlib.util.spec_from_file_location("make_student", SCRIPT)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while being created
    spec.loader.exec_module(module)
    return module


ms = _load_make_student()

EXERCISE = '''# 練習 02.1:把一句話切成候選記憶
def split_facts(text: str) -> list[str]:
    """Return one string per fact."""
    parts = []
    ### BEGIN SOLUTION
    for piece in text.split(","):
        parts.append(piece.strip())
    ### END SOLUTION
    return parts

split_facts("我住新竹,每天搭高鐵通勤")'''

EXERCISE_STUDENT = '''# 練習 02.1:把一句話切成候選記憶
def split_facts(text: str) -> list[str]:
    """Return one string per fact."""
    parts = []
    raise NotImplementedError("練習 02.1: 請完成這個函式")
    return parts

split_facts("我住新竹,每天搭高鐵通勤")'''


def solution_notebook() -> nbformat.NotebookNode:
    """A small solution notebook with outputs, timing metadata and a SOLUTION ONLY cell."""
    nb = new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}
    nb.metadata["widgets"] = {"application/vnd.jupyter.widget-state+json": {"state": {}}}
    exercise = new_code_cell(
        EXERCISE,
        execution_count=4,
        outputs=[new_output("execute_result", data={"text/plain": "['我住新竹', '每天搭高鐵通勤']"},
                            execution_count=4)],
    )
    exercise.metadata["execution"] = {"iopub.execute_input": "2026-03-02T10:00:00.1Z"}
    exercise.metadata["ExecuteTime"] = {"end_time": "2026-03-02T10:00:01Z"}
    exercise.metadata["tags"] = ["raises-exception"]
    nb.cells = [
        new_markdown_cell("# 02 extract\n\n## 學習目標"),
        exercise,
        new_code_cell("### SOLUTION ONLY\nassert split_facts('a,b') == ['a', 'b']",
                      execution_count=5),
        new_code_cell("print('done')", execution_count=6,
                      outputs=[new_output("stream", name="stdout", text="done\n")]),
    ]
    return nb


def write_solutions(tmp_path: Path, notebooks: dict[str, nbformat.NotebookNode]) -> Path:
    solutions = tmp_path / "solutions"
    solutions.mkdir()
    for name, nb in notebooks.items():
        nbformat.write(nb, solutions / name)
    return solutions


def run(tmp_path: Path, *args: str) -> int:
    return ms.main(["--solutions", str(tmp_path / "solutions"),
                    "--notebooks", str(tmp_path / "notebooks"), *args])


# --- strip_solutions ----------------------------------------------------------------------

def test_region_replaced_by_hole_at_begin_indentation() -> None:
    assert ms.strip_solutions(EXERCISE) == EXERCISE_STUDENT


def test_hole_keeps_deeper_indentation_and_tabs() -> None:
    source = ("class A:\n    def f(self):\n        if True:\n"
              "            ### BEGIN SOLUTION\n            return 1\n            ### END SOLUTION\n"
              "\tpass")
    lines = ms.strip_solutions(source).splitlines()
    assert lines[3] == '            raise NotImplementedError("請完成這個函式")'
    assert lines[4] == "\tpass"
    assert len(lines) == 5


def test_hole_without_exercise_id_has_plain_message() -> None:
    source = "def f():\n    ### BEGIN SOLUTION\n    return 1\n    ### END SOLUTION"
    assert ms.strip_solutions(source) == 'def f():\n    raise NotImplementedError("請完成這個函式")'


def test_each_hole_takes_the_nearest_exercise_id_above_it() -> None:
    source = ("# 練習 03.1\ndef f():\n    ### BEGIN SOLUTION\n    return 1\n    ### END SOLUTION\n"
              "# 練習 03.2\ndef g():\n    ### BEGIN SOLUTION\n    return 2\n    ### END SOLUTION\n")
    out = ms.strip_solutions(source)
    assert '    raise NotImplementedError("練習 03.1: 請完成這個函式")\n' in out
    assert '    raise NotImplementedError("練習 03.2: 請完成這個函式")\n' in out
    assert "return 1" not in out and "return 2" not in out


def test_exercise_id_below_the_hole_is_used_when_none_above() -> None:
    source = "def f():\n    ### BEGIN SOLUTION\n    return 1\n    ### END SOLUTION\n# 練習12.3"
    assert '"練習 12.3: 請完成這個函式"' in ms.strip_solutions(source)


@pytest.mark.parametrize(
    ("source", "fragment"),
    [
        ("def f():\n    ### BEGIN SOLUTION\n    return 1", "has no matching"),
        ("def f():\n    return 1\n    ### END SOLUTION", "without a matching"),
        ("def f():\n    ### BEGIN SOLUTION\n    ### BEGIN SOLUTION\n    x = 1\n"
         "    ### END SOLUTION\n    ### END SOLUTION", "nested"),
        ("### BEGIN SOLUTION\nx = 1\n### END SOLUTION", "module level"),
        ("def f():\n    ## BEGIN SOLUTION\n    return 1\n    ### END SOLUTION", "spelling"),
        ("def f():\n    ### BEGIN SOLUTION\n    return 1\n    ### END SOLUTIONS", "spelling"),
    ],
)
def test_malformed_markers_raise_with_location(source: str, fragment: str) -> None:
    with pytest.raises(ms.SolutionNotebookError, match=fragment) as caught:
        ms.strip_solutions(source, where="x.ipynb: cell index 3")
    assert str(caught.value).startswith("x.ipynb: cell index 3, line ")


# --- whole notebooks ------------------------------------------------------------------------

def test_student_notebook_is_stripped_and_cleaned() -> None:
    student = ms.make_student_notebook(solution_notebook())
    assert [cell.cell_type for cell in student.cells] == ["markdown", "code", "code"]
    assert all("SOLUTION ONLY" not in cell.source for cell in student.cells)
    code = [cell for cell in student.cells if cell.cell_type == "code"]
    assert code[0].source == EXERCISE_STUDENT
    assert code[1].source == "print('done')"
    for cell in code:
        assert cell.outputs == []
        assert cell.execution_count is None
        assert "execution" not in cell.metadata and "ExecuteTime" not in cell.metadata
    assert code[0].metadata["tags"] == ["raises-exception"]  # nbval tags survive
    assert "widgets" not in student.metadata
    assert student.metadata["kernelspec"]["name"] == "python3"
    nbformat.validate(student)


def test_solution_notebook_is_not_modified() -> None:
    solution = solution_notebook()
    before = json.dumps(solution, sort_keys=True)
    ms.make_student_notebook(solution)
    assert json.dumps(solution, sort_keys=True) == before


def test_write_generates_notebooks_with_trailing_newline(tmp_path: Path) -> None:
    write_solutions(tmp_path, {"02_extract.ipynb": solution_notebook()})
    assert run(tmp_path) == 0
    written = tmp_path / "notebooks" / "02_extract.ipynb"
    text = written.read_text(encoding="utf-8")
    assert text.endswith("}\n")
    assert "練習 02.1: 請完成這個函式" in text and "BEGIN SOLUTION" not in text
    assert "piece.strip()" not in text and "SOLUTION ONLY" not in text
    assert nbformat.reads(text, as_version=4).cells[1].source == EXERCISE_STUDENT


def test_output_is_deterministic(tmp_path: Path) -> None:
    write_solutions(tmp_path, {"a.ipynb": solution_notebook(), "b.ipynb": solution_notebook()})
    first = ms.generate(tmp_path / "solutions")
    second = ms.generate(tmp_path / "solutions")
    assert first == second and set(first) == {"a.ipynb", "b.ipynb"}
    assert run(tmp_path) == 0
    bytes_once = (tmp_path / "notebooks" / "a.ipynb").read_bytes()
    (tmp_path / "notebooks" / "a.ipynb").unlink()
    assert run(tmp_path) == 0
    assert (tmp_path / "notebooks" / "a.ipynb").read_bytes() == bytes_once


def test_old_format_notebook_without_cell_ids_stays_deterministic(tmp_path: Path) -> None:
    # nbformat 4.4 has no cell ids; generation must not invent random ones.
    old = {"nbformat": 4, "nbformat_minor": 4, "metadata": {},
           "cells": [{"cell_type": "code", "metadata": {}, "execution_count": 1,
                      "outputs": [], "source": "x = 1"}]}
    (tmp_path / "solutions").mkdir()
    (tmp_path / "solutions" / "old.ipynb").write_text(json.dumps(old), encoding="utf-8")
    first, second = ms.generate(tmp_path / "solutions"), ms.generate(tmp_path / "solutions")
    assert first == second
    assert '"id"' not in first["old.ipynb"]


def test_check_passes_when_in_sync(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_solutions(tmp_path, {"01_classify.ipynb": solution_notebook()})
    assert run(tmp_path) == 0
    assert run(tmp_path, "--check") == 0
    assert "up to date" in capsys.readouterr().out


def test_check_detects_differing_missing_and_extra(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_solutions(tmp_path, {"01_a.ipynb": solution_notebook(),
                               "02_b.ipynb": solution_notebook()})
    assert run(tmp_path) == 0
    notebooks = tmp_path / "notebooks"
    edited = nbformat.read(notebooks / "01_a.ipynb", as_version=4)
    edited.cells[0].source += "\n手改的一行"
    nbformat.write(edited, notebooks / "01_a.ipynb")
    (notebooks / "02_b.ipynb").unlink()
    nbformat.write(new_notebook(), notebooks / "99_stale.ipynb")
    capsys.readouterr()

    assert run(tmp_path, "--check") == 1
    err = capsys.readouterr().err
    assert "differs: 01_a.ipynb" in err
    assert "missing: 02_b.ipynb" in err
    assert "extra: 99_stale.ipynb" in err
    assert "make student" in err
    # --check never writes.
    assert not (notebooks / "02_b.ipynb").exists() and (notebooks / "99_stale.ipynb").exists()


def test_check_detects_a_changed_solution(tmp_path: Path) -> None:
    solutions = write_solutions(tmp_path, {"03.ipynb": solution_notebook()})
    assert run(tmp_path) == 0
    changed = solution_notebook()
    changed.cells[0].source = "# 03 consolidate"
    nbformat.write(changed, solutions / "03.ipynb")
    assert run(tmp_path, "--check") == 1
    assert run(tmp_path) == 0
    assert run(tmp_path, "--check") == 0


def test_write_removes_stale_notebooks_and_repairs_drift(tmp_path: Path) -> None:
    write_solutions(tmp_path, {"a.ipynb": solution_notebook()})
    notebooks = tmp_path / "notebooks"
    notebooks.mkdir()
    nbformat.write(new_notebook(), notebooks / "stale.ipynb")
    (notebooks / "notes.txt").write_text("not a notebook", encoding="utf-8")
    assert run(tmp_path) == 0
    assert sorted(p.name for p in notebooks.iterdir()) == ["a.ipynb", "notes.txt"]
    assert run(tmp_path, "--check") == 0


def test_no_solutions_and_no_notebooks_is_in_sync(tmp_path: Path) -> None:
    assert run(tmp_path, "--check") == 0


@pytest.mark.parametrize("check", [False, True])
def test_unbalanced_marker_exits_2_naming_notebook_and_cell(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], check: bool
) -> None:
    nb = solution_notebook()
    nb.cells.append(new_code_cell("def f():\n    ### BEGIN SOLUTION\n    return 1"))
    write_solutions(tmp_path, {"05_delete.ipynb": nb})
    assert run(tmp_path, *(["--check"] if check else [])) == 2
    err = capsys.readouterr().err
    assert "05_delete.ipynb: cell index 4" in err and "line 2" in err
    assert "### END SOLUTION" in err
    assert not (tmp_path / "notebooks" / "05_delete.ipynb").exists()


def test_unreadable_notebook_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "solutions").mkdir()
    (tmp_path / "solutions" / "broken.ipynb").write_text("{not json", encoding="utf-8")
    assert run(tmp_path) == 2
    assert "broken.ipynb" in capsys.readouterr().err


def test_runs_as_a_script(tmp_path: Path) -> None:
    write_solutions(tmp_path, {"a.ipynb": solution_notebook()})
    args = [sys.executable, str(SCRIPT), "--solutions", str(tmp_path / "solutions"),
            "--notebooks", str(tmp_path / "notebooks")]
    assert subprocess.run([*args, "--check"], capture_output=True).returncode == 1
    assert subprocess.run(args, capture_output=True).returncode == 0
    done = subprocess.run([*args, "--check"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
