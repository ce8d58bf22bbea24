"""The chapter's running example, 小林 (u_017), behaves as the chapter says."""

from __future__ import annotations

from memlab import forget
from memlab.answer import answer
from memlab.judge import is_abstention
from memlab.layers import layer_tables
from memlab.pipeline import dream
from memlab.retrieve import retrieve

U = "u_017"


def by_id(store, user_id=U):
    return {m.id: m for m in store.memories(user_id, status="all")}


def test_memory_table_after_s6(after_s6):
    m = by_id(after_s6)
    assert sorted(m) == ["m1", "m2", "m3", "m4"]
    assert (m["m1"].status, m["m1"].type, m["m1"].source_session_id, m["m1"].source_turn) == (
        "active", "semantic", "s1", 2)
    assert "條列" in m["m1"].content and "三點" in m["m1"].content
    assert (m["m2"].status, m["m2"].superseded_by) == ("superseded", "m4")
    assert "台北" in m["m2"].content and "UTC+8" in m["m2"].content
    assert (m["m2"].source_session_id, m["m2"].source_turn) == ("s1", 3)
    assert m["m2"].valid_to == m["m4"].valid_from  # history, not overwritten
    assert (m["m3"].type, m["m3"].source_session_id, m["m3"].status) == ("episodic", "s3", "active")
    assert "3 月 10 日" in m["m3"].content and "週會" in m["m3"].content
    assert (m["m4"].status, m["m4"].source_session_id, m["m4"].source_turn) == ("active", "s6", 1)
    assert "東京" in m["m4"].content and "UTC+9" in m["m4"].content
    assert all(x.source_trusted and x.confidence == "high" for x in m.values())


def test_hot_weather_is_not_remembered(after_s6):
    assert not any("熱" in x.content for x in after_s6.memories(U, status="all"))


def test_plan_in_s5_changes_nothing(after_s6):
    events = after_s6.events(U)
    s5 = events[events["source"] == "s5:1"]
    assert list(s5["op"]) == ["NOOP"] and "plan" in s5["reason"].iloc[0]
    assert not any(x.source_session_id == "s5" for x in after_s6.memories(U, status="all"))


def test_answers_after_s6(after_s6):
    assert "東京" in answer(after_s6, U, "我在哪個城市上班?").text
    assert "台北" not in answer(after_s6, U, "我在哪個城市上班?").text
    assert "台北" in answer(after_s6, U, "我以前在哪裡上班?").text  # the chain keeps history
    assert "台北" in answer(after_s6, U, "我 3 月 15 日在哪裡上班?").text
    assert is_abstention(answer(after_s6, U, "我養的貓叫什麼?").text)


def test_injected_layer_is_small_and_current(after_s6):
    injected = layer_tables(after_s6, U)["injected"]
    text = " ".join(injected["text"])
    assert "條列" in text and "UTC+9" in text and "UTC+8" not in text
    assert injected["tokens"].sum() <= 120


def test_web_clip_instruction_is_not_an_active_memory(after_s8):
    clip = [x for x in after_s8.memories(U, status="all") if "x@example.com" in x.content]
    assert len(clip) == 1
    assert clip[0].status == "quarantined" and not clip[0].source_trusted
    assert not any("x@example.com" in t for t in layer_tables(after_s8, U)["injected"]["text"])
    assert all("x@example.com" not in h.memory.content
               for h in retrieve(after_s8, U, "摘要要寄到哪個信箱?", top_k=10))


def test_s8_deletes_m2_and_m4_from_every_layer(after_s8):
    m = by_id(after_s8)
    assert m["m2"].status == m["m4"].status == "deleted"
    assert m["m2"].content == m["m4"].content == ""
    assert m["m1"].status == "active" and m["m3"].status == "active"
    assert {"m2", "m4"}.isdisjoint(after_s8.vector_ids(U))
    for word in ("東京", "台北", "UTC+9", "UTC+8"):
        hits = forget.audit(after_s8, U, word)
        assert set(hits["layer"]) <= {"transcripts"}, hits
    assert {"s1:3", "s5:1", "s6:1"} <= after_s8.tombstoned_refs(U)
    hits = forget.audit(after_s8, U, "我在台北上班")
    assert list(hits["status"]) == ["tombstoned"]


def test_dream_does_not_bring_deleted_memories_back(after_s8):
    before = {x.id for x in after_s8.memories(U, status="active")}
    dream(after_s8, U)
    after = {x.id: x for x in after_s8.memories(U, status="all")}
    assert {x for x, m in after.items() if m.status == "active"} == before
    assert not any(("東京" in m.content or "台北" in m.content) for m in after.values())
    assert is_abstention(answer(after_s8, U, "我在哪個城市上班?").text)


def test_other_user_is_isolated(after_s8):
    assert all(x.user_id == "u_042" for x in after_s8.memories("u_042", status="all"))
    hits = retrieve(after_s8, "u_042", "我在哪個城市上班?")
    assert hits and all(h.memory.user_id == "u_042" for h in hits)
    assert "高雄" in answer(after_s8, "u_042", "我在哪個城市上班?").text


def test_deletion_cuts_deleted_text_out_of_event_reasons(after_s6):
    # An LLM consolidator writes free-text reasons that may quote the memory.
    after_s6.log(U, "SUPERSEDE", memory_id="m4", target_id="m2", reason="LLM: moved from 台北 to 東京")
    forget.delete_about(after_s6, U, "我在哪裡上班")
    reasons = " ".join(after_s6.events(U)["reason"])
    assert "東京" not in reasons and "台北" not in reasons and "[deleted]" in reasons
    assert set(forget.audit(after_s6, U, "東京")["layer"]) <= {"transcripts"}
