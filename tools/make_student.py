#!/usr/bin/env python3
"""Generate the student notebooks in ``notebooks/`` from the solutions in ``solutions/``.

``solutions/*.ipynb`` is the source of truth; ``notebooks/`` is generated and never edited
by hand. For every solution notebook this script writes a student copy where

* in code cells, each region from a ``### BEGIN SOLUTION`` line to its ``### END SOLUTION``
  line is replaced by one ``raise NotImplementedError("練習 02.1: 請完成這個函式")`` line at
  the indentation of the BEGIN line (the id comes from a ``# 練習 02.1`` comment in the cell);
* cells containing ``### SOLUTION ONLY`` are dropped;
* outputs, execution counts, execution-timing metadata and saved widget state are removed.

Usage::

    python tools/make_student.py            # write notebooks/
    python tools/make_student.py --check    # exit 1 if notebooks/ is out of date

Exit codes: 0 ok / in sync; 1 ``--check`` found drift; 2 a solution notebook is malformed
(unbalanced or nested markers, unreadable JSON) — the message names notebook and cell.
Output is deterministic: the same solutions give byte-identical notebooks.
"""

from __future__ import annotations

import argparse
import io
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import nbformat
from nbformat import NotebookNode

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_SOLUTIONS = REPO_ROOT / "solutions"
DEFAULT_NOTEBOOKS = REPO_ROOT / "notebooks"

BEGIN = "### BEGIN SOLUTION"
END = "### END SOLUTION"
SOLUTION_ONLY = "### SOLUTION ONLY"
HOLE_MESSAGE = "請完成這個函式"

# A marker line is the marker alone (plus indentation / trailing spaces). Anything else that
# mentions BEGIN/END SOLUTION is a typo we refuse, because it would leak the solution.
_BEGIN_LINE = re.compile(r"^(?P<indent>[ \t]*)### BEGIN SOLUTION[ \t]*$")
_END_LINE = re.compile(r"^[ \t]*### END SOLUTION[ \t]*$")
_MARKER_MENTION = re.compile(r"#\s*(BEGIN|END)[\s_]+SOLUTION", re.IGNORECASE)
_EXERCISE_ID = re.compile(r"練習\s*(\d\d\.\d+)")

# Cell metadata written by Jupyter (execution timing) or old extensions; never meaningful
# in a student copy and different on every run.
_VOLATILE_CELL_METADATA = ("execution", "ExecuteTime", "collapsed", "scrolled")
# Saved widget state holds model ids from the instructor's last run.
_VOLATILE_NOTEBOOK_METADATA = ("widgets",)

EXIT_OK = 0
EXIT_DRIFT = 1
EXIT_BAD_INPUT = 2


class SolutionNotebookError(ValueError):
    """A solution notebook is unreadable or its markers are malformed; says where and how to fix."""


@dataclass(frozen=True)
class Drift:
    """How ``notebooks/`` differs from what would be generated (file names only)."""

    differing: tuple[str, ...] = ()
    missing: tuple[str, ...] = ()
    extra: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.differing or self.missing or self.extra)


def _where(notebook: str, cell_index: int, cell: NotebookNode) -> str:
    """Human-readable location: notebook, 0-based cell index and the cell id if any."""
    where = f"{notebook}: cell index {cell_index}"
    if cell.get("id"):
        where += f" (id {cell['id']})"
    return where


def exercise_id(lines: Sequence[str], before: int) -> str | None:
    """The exercise id for a hole starting at ``lines[before]``.

    The nearest ``練習 NN.N`` above the hole wins (a cell may hold two exercises); otherwise
    the first one anywhere in the cell; ``None`` if the cell names no exercise.
    """
    for line in reversed(lines[:before]):
        if match := _EXERCISE_ID.search(line):
            return match.group(1)
    for line in lines[before:]:
        if match := _EXERCISE_ID.search(line):
            return match.group(1)
    return None


def hole_line(indent: str, exercise: str | None) -> str:
    """The line replacing a solution region: ``raise NotImplementedError("練習 02.1: …")``."""
    message = f"練習 {exercise}: {HOLE_MESSAGE}" if exercise else HOLE_MESSAGE
    return f'{indent}raise NotImplementedError("{message}")'


def strip_solutions(source: str, where: str = "<cell>") -> str:
    """Replace every BEGIN/END SOLUTION region of a code cell's source with a hole line.

    Lines outside the regions are kept byte for byte. Raises ``SolutionNotebookError`` (naming
    ``where`` and the line) for a BEGIN without END, END without BEGIN, nested BEGIN,
    a marker at module level (holes must be inside a function body) or a misspelt marker.
    """
    lines = source.splitlines(keepends=True)
    bare = [line.rstrip("\r\n") for line in lines]
    out: list[str] = []
    open_at: int | None = None  # index of the BEGIN line of the region being skipped
    open_indent = ""
    for i, text in enumerate(bare):
        begin, end = _BEGIN_LINE.match(text), _END_LINE.match(text)
        if begin:
            if open_at is not None:
                raise SolutionNotebookError(
                    f"{where}, line {i + 1}: nested {BEGIN!r} (the region opened at line "
                    f"{open_at + 1} is not closed); add {END!r} before opening another region."
                )
            if not begin.group("indent"):
                raise SolutionNotebookError(
                    f"{where}, line {i + 1}: {BEGIN!r} is at module level; put solution "
                    "regions inside a function body so the student copy still runs."
                )
            open_at, open_indent = i, begin.group("indent")
            continue
        if end:
            if open_at is None:
                raise SolutionNotebookError(
                    f"{where}, line {i + 1}: {END!r} without a matching {BEGIN!r}; "
                    "add the BEGIN line or remove this one."
                )
            newline = "\n" if lines[i] != text else ""  # keep a final line unterminated
            out.append(hole_line(open_indent, exercise_id(bare, open_at)) + newline)
            open_at = None
            continue
        if _MARKER_MENTION.search(text):
            raise SolutionNotebookError(
                f"{where}, line {i + 1}: {text.strip()!r} looks like a solution marker but is "
                f"not exactly {BEGIN!r} or {END!r} on its own line; fix the spelling."
            )
        if open_at is None:
            out.append(lines[i])
    if open_at is not None:
        raise SolutionNotebookError(
            f"{where}, line {open_at + 1}: {BEGIN!r} has no matching {END!r}; "
            "close the region at the end of the solution."
        )
    return "".join(out)


def make_student_notebook(solution: NotebookNode, name: str = "<notebook>") -> NotebookNode:
    """Return the student copy of a solution notebook (the input is not modified)."""
    student = nbformat.from_dict(solution)  # deep copy as NotebookNode
    for key in _VOLATILE_NOTEBOOK_METADATA:
        student.metadata.pop(key, None)
    cells = []
    for index, cell in enumerate(student.cells):
        if SOLUTION_ONLY in cell.source:
            continue
        if cell.cell_type == "code":
            where = _where(name, index, cell)
            cell.source = strip_solutions(cell.source, where)
            cell.outputs = []
            cell.execution_count = None
        for key in _VOLATILE_CELL_METADATA:
            cell.metadata.pop(key, None)
        cells.append(cell)
    student.cells = cells
    return student


def render(notebook: NotebookNode) -> str:
    """Serialise exactly as ``nbformat.write`` does (sorted keys, trailing newline)."""
    buffer = io.StringIO()
    nbformat.write(notebook, buffer)
    return buffer.getvalue()


def read_notebook(path: Path) -> NotebookNode:
    """Read a notebook as nbformat v4; raise ``SolutionNotebookError`` if it is not valid JSON."""
    try:
        return nbformat.read(path, as_version=4)
    except (OSError, ValueError) as error:  # NotJSONError and validation errors are ValueErrors
        raise SolutionNotebookError(
            f"{path}: cannot read notebook ({error}); open it in JupyterLab and save it again."
        ) from error


def generate(solutions_dir: Path) -> dict[str, str]:
    """Map each ``<name>.ipynb`` in ``solutions_dir`` (top level only) to its student text.

    A missing ``solutions_dir`` counts as empty.
    """
    if not solutions_dir.is_dir():
        return {}
    result: dict[str, str] = {}
    for path in sorted(solutions_dir.glob("*.ipynb")):
        student = make_student_notebook(read_notebook(path), name=str(path))
        result[path.name] = render(student)
    return result


def find_drift(expected: dict[str, str], notebooks_dir: Path) -> Drift:
    """Compare generated texts with the ``*.ipynb`` files in ``notebooks_dir`` byte for byte."""
    present = (
        {p.name: p for p in notebooks_dir.glob("*.ipynb")} if notebooks_dir.is_dir() else {}
    )
    differing = tuple(
        name
        for name in sorted(expected)
        if name in present and present[name].read_bytes() != expected[name].encode("utf-8")
    )
    missing = tuple(sorted(set(expected) - set(present)))
    extra = tuple(sorted(set(present) - set(expected)))
    return Drift(differing=differing, missing=missing, extra=extra)


def write_notebooks(expected: dict[str, str], notebooks_dir: Path) -> list[str]:
    """Write generated notebooks, removing stale ``*.ipynb`` with no solution; return changes.

    Unchanged files are not rewritten (keeps mtimes stable for an open JupyterLab).
    """
    notebooks_dir.mkdir(parents=True, exist_ok=True)
    drift = find_drift(expected, notebooks_dir)
    changes: list[str] = []
    for name in (*drift.differing, *drift.missing):
        with (notebooks_dir / name).open("w", encoding="utf-8", newline="\n") as handle:
            handle.write(expected[name])
        changes.append(f"wrote {notebooks_dir / name}")
    for name in drift.extra:
        # notebooks/ is generated: a notebook without a solution is stale and would make
        # --check fail forever.
        (notebooks_dir / name).unlink()
        changes.append(f"removed {notebooks_dir / name} (no solutions/{name})")
    return changes


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point; returns the exit code (see module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--check",
        action="store_true",
        help="do not write; exit 1 and list notebooks that differ from what would be generated",
    )
    parser.add_argument("--solutions", type=Path, default=DEFAULT_SOLUTIONS, metavar="DIR")
    parser.add_argument("--notebooks", type=Path, default=DEFAULT_NOTEBOOKS, metavar="DIR")
    args = parser.parse_args(argv)

    try:
        expected = generate(args.solutions)
    except SolutionNotebookError as error:
        print(f"make_student: {error}", file=sys.stderr)
        return EXIT_BAD_INPUT

    if args.check:
        drift = find_drift(expected, args.notebooks)
        if not drift:
            print(f"make_student: {len(expected)} notebook(s) in {args.notebooks} up to date.")
            return EXIT_OK
        print(f"make_student: {args.notebooks} is out of date with {args.solutions}:",
              file=sys.stderr)
        for label, names in (("differs", drift.differing), ("missing", drift.missing),
                             ("extra", drift.extra)):
            for name in names:
                print(f"  {label}: {name}", file=sys.stderr)
        print("Regenerate with `make student` (python tools/make_student.py); never edit "
              "notebooks/ by hand.", file=sys.stderr)
        return EXIT_DRIFT

    changes = write_notebooks(expected, args.notebooks)
    for change in changes:
        print(f"make_student: {change}")
    print(f"make_student: {len(expected)} notebook(s) generated, {len(changes)} change(s).")
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
