"""The `memlab` command: ingest, memories, layers, audit, search, delete, dream, errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from memlab.cli import main


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def run_json(capsys, *argv: str):
    code, out, err = run(capsys, *argv, "--format", "json")
    assert code == 0, err
    return json.loads(out)


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("cli") / "x.duckdb")
    assert main(["ingest", "data/xiaolin", "--db", path]) == 0
    return path


def test_ingest_summary(tmp_path, capsys):
    summary = run_json(capsys, "ingest", "data/xiaolin", "--db", str(tmp_path / "a.duckdb"))
    assert summary["deleted"] == ["m2", "m4"]
    assert summary["tombstoned"] == ["s1:3", "s5:1", "s6:1"]
    assert summary["memories"]["u_017"]["quarantined"] == 1
    assert summary["ops"]["SUPERSEDE"] == 1 and summary["ops"]["NOOP"] == 1


def test_memories_show_states_with_types_field_names(db, capsys):
    rows = {m["id"]: m for m in run_json(capsys, "memories", "--db", db, "--user", "u_017",
                                         "--status", "all")}
    assert rows["m1"]["status"] == "active" and "條列" in rows["m1"]["content"]
    assert rows["m2"]["status"] == "deleted" and rows["m2"]["superseded_by"] == "m4"
    assert rows["m2"]["content"] == "" and rows["m4"]["content"] == ""
    assert rows["m3"]["type"] == "episodic"
    assert rows["m6"]["status"] == "quarantined" and rows["m6"]["source_trusted"] is False
    for field in ("id", "user_id", "content", "type", "key", "source_session_id", "source_turn",
                  "created_at", "confidence", "source_trusted", "status", "superseded_by",
                  "valid_from", "sources"):
        assert field in rows["m1"]
    active = run_json(capsys, "memories", "--db", db, "--user", "u_017")
    assert [m["id"] for m in active] == ["m1", "m3", "m5"]


def test_layers_hold_no_deleted_place(db, capsys):
    layers = run_json(capsys, "layers", "--db", db, "--user", "u_017")
    texts = [r["text"] for r in layers["pages"] + layers["injected"]]
    assert any("條列" in t for t in texts)
    assert not any(w in t for t in texts for w in ("東京", "台北", "UTC+9"))


def test_audit_reports_tombstoned_turns(db, capsys):
    hits = run_json(capsys, "audit", "--db", db, "--user", "u_017", "--text", "台北")["hits"]
    assert hits == [{"layer": "transcripts", "id": "s1:3", "status": "tombstoned",
                     "text": "對了,我在台北上班。"}]
    hits = run_json(capsys, "audit", "--db", db, "--user", "u_017", "--text", "條列")["hits"]
    assert {"notes", "index", "pages", "injected"} <= {h["layer"] for h in hits}


def test_search_is_scoped_and_shaped(db, capsys):
    results = run_json(capsys, "search", "--db", db, "--user", "u_042", "--query", "城市")
    assert results and {r["user_id"] for r in results} == {"u_042"}
    assert {"id", "user_id", "content", "score"} <= set(results[0])


def test_search_without_user_is_refused(db, capsys):
    code, out, err = run(capsys, "search", "--db", db, "--query", "城市")
    assert code == 2 and out == "" and "--user is required" in err


def test_delete_unknown_id_says_so_and_changes_nothing(db, capsys):
    before = run_json(capsys, "memories", "--db", db, "--user", "u_017", "--status", "all")
    code, _, err = run(capsys, "delete", "--db", db, "--user", "u_017", "--memory", "m99")
    assert code == 2 and "no memory 'm99'" in err
    assert run_json(capsys, "memories", "--db", db, "--user", "u_017", "--status", "all") == before


def test_delete_about_then_dream(tmp_path, capsys):
    path = str(tmp_path / "b.duckdb")
    main(["ingest", "data/xiaolin", "--db", path])
    capsys.readouterr()
    done = run_json(capsys, "delete", "--db", path, "--user", "u_017", "--about", "回答格式")
    assert done["deleted"] == ["m1"] and "s1:2" in done["tombstoned"]
    run_json(capsys, "dream", "--db", path, "--user", "u_017")
    active = run_json(capsys, "memories", "--db", path, "--user", "u_017")
    assert "m1" not in [m["id"] for m in active]
    assert not any("條列" in m["content"] for m in active)
    answer = run_json(capsys, "ask", "--db", path, "--user", "u_017", "--question", "我希望回答用什麼格式?")
    assert answer["memory_ids"] == [] and "不知道" in answer["answer"]


def test_missing_database_is_a_clear_error(tmp_path, capsys):
    code, _, err = run(capsys, "memories", "--db", str(tmp_path / "none.duckdb"), "--user", "u")
    assert code == 2 and "memlab ingest" in err


def test_python_dash_m_and_console_script_run():
    script = Path(sys.executable).parent / "memlab"  # installed by pip install -e .
    for cmd in ([sys.executable, "-m", "memlab", "--help"], [str(script), "--help"]):
        done = subprocess.run(cmd, capture_output=True, text=True, check=False)
        assert done.returncode == 0 and "ingest" in done.stdout


def test_eval_command_through_the_cli(capsys):
    result = run_json(capsys, "eval", "--dataset", "data/xiaolin", "--set", "chapter",
                      "--systems", "no_memory,memory")
    assert set(result["systems"]) == {"no_memory", "memory"}
    memory = result["systems"]["memory"]
    assert {"correct", "total", "accuracy", "avg_input_tokens", "by_category"} <= set(memory)
    assert memory["total"] == 7 and memory["by_category"]["abstention"] == {"correct": 2, "total": 2}
    rows = {(q["id"], q["system"]): q for q in result["questions"]}
    assert rows[("q_city", "memory")]["correct"] and rows[("q_city_after", "memory")]["correct"]
    assert not rows[("q_city", "no_memory")]["correct"]
    assert set(rows[("q_city", "memory")]) == {"id", "system", "answer", "correct", "memory_ids",
                                               "input_tokens"}
    code, out, _ = run(capsys, "eval", "--dataset", "data/xiaolin", "--set", "chapter")
    assert code == 0 and "full_context" in out and "knowledge_update" in out
