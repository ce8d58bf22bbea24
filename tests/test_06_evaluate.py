"""06_evaluate: three systems on the lab's questions, the JSON shape, tables and intervals,
the lab's acceptance checks, the deletion re-ask, and personalization with a pairwise judge."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

from memlab import Store, ingest, load_dataset
from memlab.acceptance import deletion_step, memory_report, spot_check, token_growth
from memlab.converters import load_longmemeval
from memlab.evaluate import (
    accuracy_table,
    eval_command,
    evaluate,
    format_table,
    lab_table,
    paired_differences,
    select,
)
from memlab.judge import is_abstention
from memlab.personalize import (
    agreement,
    agreement_rate,
    compare,
    judge_pair,
    load_labels,
    load_tasks,
    pairwise_offline,
    preferences,
    rubric_check,
    swapped,
    win_rate,
)
from memlab.stats import wilson_interval, win_rate_interval
from memlab.systems import SYSTEMS
from memlab.types import CATEGORIES
from tests.fake_openai import FakeOpenAI, fake_openai_server  # noqa: F401

FIXTURES = Path(__file__).resolve().parents[1] / "data" / "samples"


@pytest.fixture(scope="module")
def lab20(lab):
    return evaluate(lab, select(lab, "lab20"), SYSTEMS, progress=False)


@pytest.fixture(scope="module")
def lab20_json():
    return eval_command("data/lab", "lab20", list(SYSTEMS), "offline", progress=False)


# ---------------------------------------------------------------- the eval command
def test_eval_command_json_shape(lab20_json):
    assert set(lab20_json) == {"systems", "questions"}
    assert list(lab20_json["systems"]) == list(SYSTEMS)
    for summary in lab20_json["systems"].values():
        assert set(summary) == {"correct", "total", "accuracy", "avg_input_tokens", "by_category"}
        assert summary["total"] == 20 and 0 <= summary["correct"] <= 20
        assert summary["accuracy"] == pytest.approx(summary["correct"] / 20, abs=1e-4)
        assert set(summary["by_category"]) == set(CATEGORIES)
        assert all(set(c) == {"correct", "total"} for c in summary["by_category"].values())
        assert sum(c["total"] for c in summary["by_category"].values()) == 20
        assert sum(c["correct"] for c in summary["by_category"].values()) == summary["correct"]
    rows = lab20_json["questions"]
    assert len(rows) == 60
    for row in rows:
        assert set(row) == {"id", "system", "answer", "correct", "memory_ids", "input_tokens"}
        assert isinstance(row["correct"], bool) and isinstance(row["input_tokens"], int)
        assert isinstance(row["memory_ids"], list) and isinstance(row["answer"], str)


def test_lab20_meets_the_labs_bar(lab20_json):
    memory, full, none = (lab20_json["systems"][s] for s in ("memory", "full_context", "no_memory"))
    assert memory["by_category"]["knowledge_update"]["correct"] >= 4
    assert memory["by_category"]["abstention"] == {"correct": 2, "total": 2}
    assert memory["avg_input_tokens"] * 4 < full["avg_input_tokens"]  # well under full context
    # Without memory only "I don't know" can be right: exactly the abstention questions.
    assert none["correct"] == none["by_category"]["abstention"]["correct"] == 2


def test_answers_cite_what_their_system_read(lab20_json):
    for row in lab20_json["questions"]:
        if row["system"] == "no_memory":
            assert row["memory_ids"] == []
        elif row["system"] == "memory":
            assert all(i.startswith("m") for i in row["memory_ids"])
            assert all(f"[{i}]" in row["answer"] for i in row["memory_ids"])
        else:
            assert all(":" in ref for ref in row["memory_ids"])  # turn refs like l03:11


def test_format_table_lists_every_system(lab20_json):
    text = format_table(lab20_json)
    lines = text.splitlines()
    assert lines[0].startswith("system") and "knowledge_update" in lines[0]
    assert [ln.split("|")[0].strip() for ln in lines[2:]] == list(SYSTEMS)
    assert "2/2" in lines[-1]  # memory: abstention


def test_unknown_set_and_system_are_clear_errors(lab):
    with pytest.raises(ValueError, match="known sets"):
        select(lab, "lab99")
    with pytest.raises(ValueError, match="choose from"):
        evaluate(lab, select(lab, "lab20")[:1], ["oracle"])


# ---------------------------------------------------------------- tables and intervals
def test_accuracy_table_has_wilson_intervals(lab20):
    table = accuracy_table(lab20.results)
    row = table[(table["system"] == "memory") & (table["category"] == "overall")].iloc[0]
    assert (row["total"], row["accuracy"]) == (20, row["correct"] / 20)
    assert (row["ci_low"], row["ci_high"]) == wilson_interval(row["correct"], 20)
    assert set(table["category"]) == {*CATEGORIES, "overall"}


def test_lab_table_and_paired_difference(lab20):
    table = lab_table(lab20.results)
    assert list(table.index) == list(SYSTEMS)
    assert list(table.columns) == [*CATEGORIES, "overall", "avg_input_tokens"]
    assert table.loc["no_memory", "abstention"] == "2/2"
    diff = paired_differences(lab20.results, "memory", "no_memory")
    overall = diff[diff["category"] == "overall"].iloc[0]
    assert overall["ci_low"] <= overall["difference"] <= overall["ci_high"]
    assert overall["ci_low"] > 0  # memory beats no memory beyond the noise


def test_lab_acceptance_report(lab20, lab):
    store, report = lab20.stores["u_101"], lab20.reports["u_101"]
    checks = memory_report(store, report, lab, "u_101").set_index("check")
    assert checks.loc["active memories after consolidation", "value"] < report.candidates
    assert checks["ok"].dropna().all(), checks
    spots = spot_check(store, lab, "u_101")
    assert len(spots) == 5 and spots["found_in_turn"].all()


# ---------------------------------------------------------------- deletion
def test_question_resting_on_a_later_deleted_fact_is_asked_before_the_deletion(tmp_path):
    """Two questions at the same moment: one expects the fact, one expects 不知道 after the
    user's deletion request. Each is scored on the right side of the deletion."""
    shutil.copy("data/xiaolin/dataset.yaml", tmp_path / "dataset.yaml")
    base = {"user": "u_017", "asked_at": "2026-05-03", "sets": ["t"]}
    questions = [
        {**base, "id": "before", "category": "knowledge_update", "question": "我在哪個城市上班?",
         "answer": "東京", "accept": [["東京"]], "reject": ["台北"], "evidence": ["s6:1"]},
        {**base, "id": "after", "category": "abstention", "question": "我在哪個城市上班?",
         "answer": None, "evidence": ["s8:1"]},
        {**base, "id": "other", "user": "u_042", "category": "information_extraction",
         "question": "我在哪個城市上班?", "answer": "高雄", "accept": [["高雄"]],
         "evidence": ["a1:1"]},
    ]
    (tmp_path / "questions.yaml").write_text(yaml.safe_dump(questions, allow_unicode=True))
    dataset = load_dataset(tmp_path)
    run = evaluate(dataset, dataset.questions, ["memory"], progress=False)
    answers = run.results.set_index("id")
    assert "東京" in answers.loc["before", "answer"] and answers["correct"].all()
    assert is_abstention(answers.loc["after", "answer"])
    assert "高雄" in answers.loc["other", "answer"]  # each question for its own user only
    u017, u042 = run.stores["u_017"], run.stores["u_042"]
    assert {m.id for m in u042.memories("u_042", "all")} >= set(answers.loc["other", "memory_ids"])
    assert {"s1:3", "s6:1"} <= u017.tombstoned_refs("u_017")  # the request was carried out


def test_deletion_step_reasks_and_checks_every_retrieval(lab):
    store = Store()
    report = ingest(store, lab, defer_deletions=True)
    assert report.deferred and report.deleted == []  # the conversation's request waits
    check = deletion_step(store, lab, "u_101")
    assert check.deleted and check.tombstoned
    assert len(check.reasked) >= 1 and check.reasked["says_dont_know"].all()
    assert check.retrieval["deleted_ids_in_results"].map(len).sum() == 0
    assert set(check.audit["layer"]) <= {"transcripts"}
    assert (check.audit["status"] == "tombstoned").all()
    assert all(store.get_memory("u_101", i).status == "deleted" for i in check.deleted)


# ---------------------------------------------------------------- tokens as history grows
def test_full_context_grows_memory_stays_flat(lab):
    growth = token_growth(lab, "u_101", ["我現在住在哪個城市?", "我妹妹叫什麼名字?"],
                          distractors=10, every=5)
    full = growth[growth["system"] == "full_context"]["avg_input_tokens"].tolist()
    memory = growth[growth["system"] == "memory"]["avg_input_tokens"].tolist()
    assert full == sorted(full) and full[-1] > 2 * full[0]
    assert max(memory) < 1.5 * min(memory) and max(memory) * 5 < full[-1]


# ---------------------------------------------------------------- other formats
def test_longmemeval_questions_each_for_their_own_haystack():
    dataset = load_longmemeval(FIXTURES / "lme_tiny.json")
    run = evaluate(dataset, dataset.questions, SYSTEMS, progress=False)
    assert len(run.results) == 3 * len(dataset.questions)
    assert set(run.stores) == {q.user_id for q in dataset.questions}
    memory = run.results[run.results["system"] == "memory"].set_index("id")
    for q in dataset.questions:
        ids = memory.loc[q.id, "memory_ids"]
        assert {m.id for m in run.stores[q.user_id].memories(q.user_id, "all")} >= set(ids)
    assert memory.loc["tr01_abs", "correct"]  # never told: says it doesn't know


# ---------------------------------------------------------------- personalization
@pytest.fixture(scope="module")
def personal():
    store = Store()
    ingest(store, load_dataset("data/personalization"))
    return store


def test_ten_tasks_and_labels_are_well_formed():
    tasks = load_tasks()
    labels = load_labels()
    assert len(tasks) == 10 and len({t.id for t in tasks}) == 10
    assert len(labels) >= 10 and {lab["task"] for lab in labels} <= {t.id for t in tasks}
    assert all(lab["label"] in ("A", "B", "tie") for lab in labels)


def test_memory_preferences_change_the_answer(personal):
    tasks = {t.id: t for t in load_tasks()}
    table = compare(personal, list(tasks.values())).set_index("task")
    assert (table["with_memory"] != table["without_memory"]).all()
    assert "16:00" in table.loc["t03_meeting_time", "with_memory"]
    assert "東京" in table.loc["t10_weekend", "with_memory"]  # the updated city, not 台北
    assert "台北" not in table.loc["t10_weekend", "with_memory"]
    for task_id in ("t05_dinner", "t06_snack", "t07_street_food"):
        assert all(ok for _, ok in rubric_check(table.loc[task_id, "with_memory"],
                                                tasks[task_id].rubric))
    result = win_rate(table.reset_index())
    assert result["wins"] + result["ties"] + result["losses"] == 10
    assert (result["ci_low"], result["ci_high"]) == win_rate_interval(
        result["wins"], result["ties"], result["losses"])
    assert result["ci_low"] > 0.5


def test_preferences_come_from_active_memories_only(personal):
    prefs = preferences(personal.memories("u_201", status="active"))
    assert prefs.bullets and prefs.max_points == 3 and prefs.zone == "Asia/Tokyo"
    assert {"meat", "花生", "香菜"} <= prefs.avoid
    stale = preferences(personal.memories("u_201", status="superseded"))
    assert stale.zone == "Asia/Taipei"  # what a system that missed the update would use


def test_offline_pairwise_judge_is_position_biased_and_swapping_fixes_it():
    rubric = {"contains": ["Notion"]}
    same_a, same_b = "放進 Notion。", "Notion 或雲端都行。"
    assert pairwise_offline(same_a, same_b, rubric) == "A"
    assert pairwise_offline(same_b, same_a, rubric) == "A"  # whichever comes first
    assert swapped(lambda a, b: pairwise_offline(a, b, rubric), same_a, same_b) == "tie"
    assert swapped(lambda a, b: pairwise_offline(a, b, rubric), "雲端。", same_a) == "B"


def test_rubric_checks_bullets_points_times_and_avoided_words():
    checks = dict(rubric_check("・一\n・二\n・三\n・四", {"bullets": True, "max_points": 3}))
    assert checks == {"bullets": True, "at most 3 points": False}
    assert dict(rubric_check("東京時間 09:45 提醒你", {"contains": ["9:45"]}))["says 9:45"]
    assert not dict(rubric_check("加花生粉", {"avoids": ["花生"]}))["avoids 花生"]


def test_judge_agrees_with_most_human_labels():
    table = agreement(load_labels(), load_tasks())
    rate = agreement_rate(table)
    assert rate["total"] >= 10 and rate["agree"] >= 8
    assert rate["ci_low"] <= rate["rate"] <= rate["ci_high"]
    # Where it disagrees the rubric could not see the difference: it says tie, never the opposite.
    assert set(table[~table["agree"]]["judge"]) <= {"tie"}


# ---------------------------------------------------------------- the LLM path
@pytest.fixture
def llm_env(llm_env: FakeOpenAI, monkeypatch: pytest.MonkeyPatch) -> FakeOpenAI:
    """The shared scripted-server settings (conftest), with the openai backend switched on."""
    monkeypatch.setenv("MEMLAB_BACKEND", "openai")
    return llm_env


def test_llm_backend_answers_with_each_prompt_and_judges_by_rubric(llm_env):
    from memlab.evaluate import judge
    from memlab.systems import answer_full_context, answer_no_memory, history

    lab = load_dataset("data/lab")
    q = next(q for q in lab.questions if q.id == "q_ku_city")
    llm_env.push({"answer": "不知道", "cited": ["m1"]},
                 {"answer": "台中 [l09:1]", "cited": ["l99:1"]},
                 {"reason": "latest value", "correct": True})
    none = answer_no_memory(q.question, backend="openai")
    assert none.memory_ids == [] and none.text == "不知道"
    full = answer_full_context(q.question, history(lab, q.user_id, q.asked_at),
                               asked_at=q.asked_at, backend="openai")
    assert full.memory_ids == ["l09:1"]  # made-up refs are dropped
    assert judge(q, full.text, "openai") == (True, "LLM judge (rubric for the category)")
    sent = [r["messages"] for r in llm_env.requests]
    assert sent[0][1]["content"] == f"Question: {q.question}"
    assert "[l09:1]" in sent[1][1]["content"] and "Rubric for knowledge_update" in sent[2][0]["content"]


def test_llm_pairwise_judge_is_called_twice_swapped(llm_env):
    task = load_tasks()[0]
    llm_env.push({"reason": "r", "winner": "A"}, {"reason": "r", "winner": "B"})
    assert judge_pair(task, "・一\n・二", "一段話", backend="openai") == "A"
    first, second = (r["messages"][1]["content"] for r in llm_env.requests)
    assert first.index("・一") < first.index("一段話") and second.index("一段話") < second.index("・一")
