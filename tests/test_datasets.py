"""Dataset loading: good files load; every malformed file names the file and the field."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

from memlab.datasets import load_dataset
from memlab.errors import DatasetError
from memlab.pipeline import ingest
from memlab.store import Store


def test_xiaolin_loads_with_chapter_refs(xiaolin):
    assert xiaolin.turn("s1:2").text == "以後回答都用條列,最多三點。"
    assert xiaolin.turn("s6:1").text.startswith("我已經在東京了")
    assert xiaolin.turn("s7:1").attachment.kind == "web_clip"
    dates = {s.id: s.date.date().isoformat() for s in xiaolin.sessions}
    assert (dates["s1"], dates["s3"], dates["s5"], dates["s6"], dates["s7"], dates["s8"]) == (
        "2026-03-02", "2026-03-10", "2026-04-08", "2026-04-20", "2026-04-25", "2026-05-02")


@pytest.fixture
def copy(tmp_path):
    target = tmp_path / "ds"
    shutil.copytree("data/xiaolin", target)
    return target


def edit(path: Path, change) -> None:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    change(data)
    path.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")


@pytest.mark.parametrize("change, file, field", [
    (lambda d: d["sessions"][0].pop("user"), "dataset.yaml", "sessions[0].user"),
    (lambda d: d["sessions"][2].update(date="2026-13-01"), "dataset.yaml", "sessions[2].date"),
    (lambda d: d["sessions"][1]["turns"][0].update(role="robot"), "dataset.yaml",
     "sessions[1].turns[0].role"),
    (lambda d: d["sessions"][0]["turns"][0].pop("text"), "dataset.yaml", "sessions[0].turns[0].text"),
    (lambda d: d["sessions"][3].update(user="u_999"), "dataset.yaml", "sessions[3].user"),
    (lambda d: d["sessions"][4].update(id="s1"), "dataset.yaml", "sessions[4].id"),
    (lambda d: d.pop("users"), "dataset.yaml", "users"),
    (lambda d: d["sessions"][1].update(date="2026-01-01"), "dataset.yaml", "sessions[1].date"),
])
def test_malformed_dataset_names_file_and_field(copy, change, file, field):
    edit(copy / file, change)
    with pytest.raises(DatasetError) as err:
        load_dataset(copy)
    assert file in str(err.value) and field in str(err.value)


@pytest.mark.parametrize("change, field", [
    (lambda q: q[0].update(evidence=["s1:99"]), "[0].evidence"),
    (lambda q: q[1].update(evidence=["s42:1"]), "[1].evidence"),
    (lambda q: q[2].update(category="trivia"), "[2].category"),
    (lambda q: q[3].update(asked_at="yesterday"), "[3].asked_at"),
    (lambda q: q[0].pop("question"), "[0].question"),
])
def test_malformed_questions_name_file_and_field(copy, change, field):
    edit(copy / "questions.yaml", change)
    with pytest.raises(DatasetError) as err:
        load_dataset(copy)
    assert "questions.yaml" in str(err.value) and field in str(err.value)


def test_bad_answer_key_evidence(copy):
    edit(copy / "answer_key.yaml", lambda a: a[0].update(evidence=["s1:0"]))
    with pytest.raises(DatasetError, match=r"answer_key.yaml: \[0\].evidence"):
        load_dataset(copy)


def test_broken_yaml_and_missing_folder(copy, tmp_path):
    (copy / "dataset.yaml").write_text("name: [unclosed", encoding="utf-8")
    with pytest.raises(DatasetError, match="dataset.yaml: not valid YAML"):
        load_dataset(copy)
    with pytest.raises(DatasetError, match="no such dataset folder"):
        load_dataset(tmp_path / "nowhere")


def test_a_failed_load_changes_nothing(copy):
    store = Store()
    ingest(store, load_dataset("data/xiaolin"), users=["u_042"])
    before = store.memories("u_042", status="all")
    edit(copy / "dataset.yaml", lambda d: d["sessions"][0].update(date="not a date"))
    with pytest.raises(DatasetError):
        ingest(store, load_dataset(copy))
    assert store.memories("u_042", status="all") == before and store.user_ids() == ["u_042"]
