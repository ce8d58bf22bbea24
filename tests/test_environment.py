"""The install/test environment stays consistent across its three descriptions.

pyproject.toml is the source of truth. environment.yml installs the project itself
(``-e .[dev]``) plus the torch pin; the Makefile installs the same torch pin first. There is
no conda on CI machines, so these files are checked by parsing, not by building them.
Also checks tools/nbval_sanitize.cfg: it parses as nbval parses it, masks what varies
between runs and leaves the course's deterministic ids alone.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
import yaml
from nbval.plugin import get_sanitize_patterns
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet

ROOT = Path(__file__).resolve().parent.parent
SELF_INSTALL = "-e .[dev]"


def _pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def _requirements() -> dict[str, Requirement]:
    """Runtime and dev requirements of pyproject.toml, by normalised name."""
    project = _pyproject()["project"]
    lines = [*project["dependencies"], *project["optional-dependencies"]["dev"]]
    return {Requirement(line).name.lower(): Requirement(line) for line in lines}


def _environment() -> dict:
    return yaml.safe_load((ROOT / "environment.yml").read_text(encoding="utf-8"))


def _conda_and_pip() -> tuple[list[str], list[str]]:
    """(conda package specs, pip lines) of environment.yml."""
    conda: list[str] = []
    pip: list[str] = []
    for entry in _environment()["dependencies"]:
        if isinstance(entry, dict):
            pip.extend(entry["pip"])
        else:
            conda.append(entry)
    return conda, pip


def test_environment_name_and_python_match_pyproject() -> None:
    conda, _ = _conda_and_pip()
    assert _environment()["name"] == "memlab"
    python = [spec for spec in conda if spec.split("=")[0] == "python"]
    assert python == ["python=3.11"], "environment.yml must pin python=3.11 exactly once"
    # requires-python admits 3.11, and only 3.11 (no newer minor sneaks in via conda).
    requires = SpecifierSet(_pyproject()["project"]["requires-python"])
    assert "3.11.9" in requires and "3.12.0" not in requires
    assert "pip" in conda, "environment.yml needs pip to install its pip: section"


def test_environment_installs_the_project_with_dev_extra() -> None:
    _, pip = _conda_and_pip()
    assert SELF_INSTALL in pip, f"environment.yml's pip list must contain {SELF_INSTALL!r}"
    assert "dev" in _pyproject()["project"]["optional-dependencies"]


def test_environment_pip_pins_agree_with_pyproject() -> None:
    """Anything environment.yml lists besides the project must be pinned exactly as in
    pyproject.toml (same name, specifier and marker); torch must be among them."""
    _, pip = _conda_and_pip()
    declared = _requirements()
    extra = [Requirement(line) for line in pip if line != SELF_INSTALL]
    assert "torch" in {req.name.lower() for req in extra}
    for req in extra:
        assert req.name.lower() in declared, f"{req} in environment.yml is not in pyproject.toml"
        source = declared[req.name.lower()]
        assert (req.specifier, req.marker) == (source.specifier, source.marker), (
            f"environment.yml has {req}, pyproject.toml has {source}"
        )


def test_makefile_torch_pin_matches_pyproject() -> None:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    match = re.search(r"^TORCH_PIN\s*:=\s*(\S+)\s*$", makefile, flags=re.MULTILINE)
    assert match, "Makefile must define TORCH_PIN := torch==<version>"
    pinned = Requirement(match.group(1))
    torch = _requirements()["torch"]
    assert pinned.name == "torch"
    assert pinned.specifier == torch.specifier and str(torch.specifier).startswith("==")


# --- tools/nbval_sanitize.cfg ------------------------------------------------------------

SANITIZE_CFG = ROOT / "tools" / "nbval_sanitize.cfg"


def _patterns() -> list[tuple[str, str]]:
    return get_sanitize_patterns(SANITIZE_CFG.read_text(encoding="utf-8"))


def sanitize(text: str) -> str:
    """Apply the config the way nbval does: every pair in file order, with re.sub."""
    for regex, replace in _patterns():
        text = re.sub(regex, replace, text)
    return text


def test_sanitize_cfg_parses_as_nbval_reads_it() -> None:
    text = SANITIZE_CFG.read_text(encoding="utf-8")
    regex_lines = [line for line in text.splitlines() if line.startswith("regex:")]
    patterns = _patterns()
    # A regex line not directly followed by its replace line would be silently dropped.
    assert len(patterns) == len(regex_lines) >= 8
    assert len({regex for regex, _ in patterns}) == len(patterns), "duplicate regex"
    for regex, _ in patterns:
        re.compile(regex)


@pytest.mark.parametrize(
    ("output", "expected"),
    [
        ("saved at 2026-03-02T10:15:00", "saved at <DATETIME>"),
        ("at 2026-03-02 10:15:00.123456+08:00.", "at <DATETIME>."),
        ("Timestamp('2026-05-10 09:00:00Z')", "Timestamp('<DATETIME>')"),
        ("<memlab.store.Store at 0x7f3a2c1d5e50>", "<memlab.store.Store at 0x<ADDR>>"),
        ("db: /tmp/pytest-of-root/pytest-3/test_x0/lab.duckdb", "db: <PATH>"),
        ("'/work/main/data/lab/dataset.yaml'", "'<PATH>'"),
        ("見 /var/folders/ab/T/x.duckdb 檔案", "見 <PATH> 檔案"),
        (r"C:\Users\kim\AppData\Local\Temp\x.db", "<PATH>"),
        ("session 0f8fad5b-d9cb-469f-a165-70867728950e", "session <UUID>"),
        ("model_id='3f2b9c0e1d4a4b6c8e7f90a1b2c3d4e5'", "model_id='<MODEL_ID>'"),
        ("took 1.23s", "took <DURATION>"),
        ("耗時12.3 ms", "耗時<DURATION>"),
        ("Wall time: 1min 2s", "Wall time: <DURATION> <DURATION>"),
        ("Embedding:  40%|████      | 4/10 [00:01<00:02,  2.51it/s]", "Embedding:  <PROGRESS>"),
        ("12it [00:00, 345.67it/s]", "<PROGRESS>"),
        ("HTML(value=' 10/10 [00:00<00:00, 1234.56it/s]')", "HTML(value=' <PROGRESS>')"),
    ],
)
def test_sanitize_masks_volatile_output(output: str, expected: str) -> None:
    assert sanitize(output) == expected


@pytest.mark.parametrize(
    "output",
    [
        "m1 active; m2 superseded_by=m4; m12 episodic",
        "evidence: s3:2, s6:1 (sessions s1–s8), q01, u_017 小林",
        "valid_from 2026-04-08",  # plain dates are what the answers cite
        "top_k=5 [1, 2, 3]; 3 sessions; 0xff; 200 tokens",
        "引用 [m4] 2026-04-08 起在東京工作",
    ],
)
def test_sanitize_keeps_deterministic_ids_and_dates(output: str) -> None:
    assert sanitize(output) == output
