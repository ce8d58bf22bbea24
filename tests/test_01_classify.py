"""Classification (stage 01): cue rules + nearest labelled examples, honest scoring, layers,
the chapter's 先試一下 items and the injected layer's daily cost."""

from __future__ import annotations

import pytest

import memlab
from memlab.check import REGISTRY
from memlab.classify import (
    TYPES,
    Classifier,
    confusion,
    default_classifier,
    layer_for,
    load_examples,
    predictions,
)
from memlab.embed import BigramEmbedder
from memlab.exercises.ex01 import forget_action, layer_of, try_it_first
from memlab.layers import layer_tables
from memlab.metrics import daily_injected_tokens
from memlab.prompts import build_extract_messages


@pytest.fixture(scope="module")
def classifier() -> Classifier:
    return default_classifier()


def test_examples_file_is_complete_and_mixed():
    examples = load_examples()
    assert len(examples) >= 90 and len({e["id"] for e in examples}) == len(examples)
    assert {e["type"] for e in examples} == set(TYPES)
    assert {e["lang"] for e in examples} == {"zh", "en"}
    for e in examples:
        assert (e["type"] in ("none", "working")) <= (not e["remember"]), e["id"]


def test_chapter_items_are_not_among_the_examples():
    texts = " ".join(e["text"] for e in load_examples())
    for phrase in ("香菜", "退款流程", "先列待辦"):
        assert phrase not in texts  # the exercise answers must not leak into the neighbours


def test_chapter_try_it_first_items(classifier):
    cases = {"我不吃香菜。": ("semantic", "notes"),
             "上週二我們討論了退款流程。": ("episodic", "notes"),
             "整理會議筆記一律先列待辦。": ("procedural", "injected")}
    for text, (mtype, layer) in cases.items():
        label = classifier.classify(text)
        assert (label.type, label.layer, label.remember) == (mtype, layer, True), (text, label)


def test_chitchat_and_requests_are_not_remembered(classifier):
    for text in ("今天好熱喔。", "謝啦,先這樣。", "幫我把這句翻成日文。", "Thanks, that's all."):
        label = classifier.classify(text)
        assert not label.remember and label.layer == "transcripts", (text, label)


def test_plan_is_marked_and_gets_no_slot(classifier):
    label = classifier.classify("我下個月要搬到高雄。")
    assert label.plan and label.key is None and label.remember
    assert not classifier.classify("我已經搬到高雄了。").plan


def test_leave_one_out_never_lets_an_example_vote_for_itself(classifier):
    example = next(e for e in load_examples() if e["id"] == "ex058")
    honest = classifier.classify(example["text"], exclude="ex058")
    assert "ex058" not in honest.neighbours
    cheating = classifier.classify(example["text"])
    assert cheating.neighbours[0] == "ex058"  # with itself in the pool it is its own nearest


def test_confusion_matrix_is_honest_and_complete(classifier):
    matrix = confusion(classifier)
    assert list(matrix.index) == list(TYPES) == list(matrix.columns)
    assert int(matrix.values.sum()) == len(load_examples())
    loo = predictions(classifier)
    accuracy = loo["correct"].mean()
    assert 0.75 <= accuracy < 1.0  # good, and honest enough to show where it fails
    seen = predictions(classifier, leave_one_out=False)["correct"].mean()
    assert seen >= accuracy  # scoring on examples that vote for themselves flatters
    assert int(sum(matrix.at[t, t] for t in TYPES)) == int(loo["correct"].sum())


def test_classifier_works_with_the_lexical_baseline():
    small = Classifier(embedder=BigramEmbedder(), examples=list(load_examples())[:40], k=3)
    frame = predictions(small)
    assert len(frame) == 40 and set(frame["predicted"]) <= set(TYPES)


def test_layer_for_types():
    assert layer_for("none", None) == layer_for("working", None) == "transcripts"
    assert layer_for("procedural", None) == "injected"
    assert layer_for("semantic", "answer_format") == "injected"  # needed every session
    assert layer_for("semantic", "allergy:花生") == "injected"
    assert layer_for("semantic", "pet_name") == layer_for("episodic", None) == "notes"


def test_llm_prompt_uses_the_same_examples():
    examples = list(load_examples())
    system = build_extract_messages([], examples, ["base_city"])[0]["content"]
    assert all(e["text"] in system for e in examples)


def test_injected_cost_and_budget(after_s6):
    assert daily_injected_tokens(500) == daily_injected_tokens(500, 40) == 20_000
    injected = layer_tables(after_s6, "u_017")["injected"]
    assert 0 < injected["tokens"].sum() <= 120
    assert daily_injected_tokens(int(injected["tokens"].sum())) < 20_000


def test_exercise_references():
    assert layer_of("semantic", True) == "injected" and layer_of("episodic", False) == "notes"
    assert try_it_first()["整理會議筆記一律先列待辦"] == ("procedural", "injected")
    assert forget_action(False, True) == "invalidate" and forget_action(True, True) == "delete"
    assert {"01.1", "01.2", "01.3", "01.4"} <= set(REGISTRY)


def test_check_accepts_right_and_falls_back_on_wrong(capsys):
    assert memlab.check("01.3", forget_action) is forget_action
    assert "✓" in capsys.readouterr().out
    wrong = memlab.check("01.3", lambda asked, changed: "delete")
    assert wrong is forget_action and "✗" in capsys.readouterr().out

    def unfinished(asked, changed):
        raise NotImplementedError("練習 01.3")

    assert memlab.check("01.3", unfinished) is forget_action
    assert "還沒完成" in capsys.readouterr().out
