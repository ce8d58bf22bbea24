"""The `memlab` command (also `python -m memlab`): the memory system from a shell.

Every command that reads memories needs ``--user``: there is no "all users" search.
``--format json`` prints machine-readable output with the field names of `memlab.types`.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import pandas as pd

from memlab.errors import MemlabError, ScopeError

FORMATS = ("table", "json")


def _store(path: str, must_exist: bool = True):
    from memlab.store import Store

    if must_exist and not Path(path).exists():
        raise MemlabError(f"no database at {path}; create one with "
                          f"`memlab ingest DATASET_DIR --db {path}`")
    return Store(path)


def _user(args) -> str:
    if not args.user:
        raise ScopeError("--user is required: memlab never reads memories across users. "
                         "Name the user, e.g. --user u_017 (see `memlab users --db FILE`).")
    return args.user


def _print(args, data: Any, table: pd.DataFrame | str | None = None) -> None:
    if args.format == "json":
        print(json.dumps(data, ensure_ascii=False, indent=2, default=str))
    elif isinstance(table, pd.DataFrame):
        print("(none)" if table.empty else table.to_string(index=False))
    else:
        print(table if table is not None else data)


def _memory_json(store, memory) -> dict:
    return {**memory.model_dump(mode="json"), "sources": store.sources(memory.user_id, memory.id)}


def cmd_ingest(args) -> None:
    from memlab.datasets import load_dataset
    from memlab.pipeline import ingest

    dataset = load_dataset(args.dataset)
    with _store(args.db, must_exist=False) as store:
        report = ingest(store, dataset, backend=args.backend)
        users = {u.id: {s: len(store.memories(u.id, status=s)) for s in
                        ("active", "superseded", "quarantined", "pending_confirmation", "deleted")}
                 for u in dataset.users}
    summary = {"dataset": dataset.name, "db": args.db, **report.summary(), "memories": users}
    lines = [f"ingested {summary['sessions']} sessions of {dataset.name} into {args.db}",
             f"candidates: {report.candidates}; ops: {summary['ops']}",
             f"deleted: {report.deleted or '-'}; tombstoned turns: {report.tombstoned or '-'}"]
    lines += [f"{uid}: " + ", ".join(f"{k} {v}" for k, v in counts.items() if v)
              for uid, counts in users.items()]
    _print(args, summary, "\n".join(lines))


def cmd_users(args) -> None:
    with _store(args.db) as store:
        ids = store.user_ids()
    _print(args, ids, "\n".join(ids))


def cmd_memories(args) -> None:
    from memlab.layers import notes_frame

    user_id = _user(args)
    with _store(args.db) as store:
        memories = store.memories(user_id, status=args.status)
        data = [_memory_json(store, m) for m in memories]
        table = notes_frame(store, user_id, status=args.status)
    _print(args, data, table[["id", "content", "type", "source", "status", "superseded_by"]])


def cmd_search(args) -> None:
    from memlab.retrieve import hits_frame, retrieve

    user_id = _user(args)
    with _store(args.db) as store:
        frame = hits_frame(retrieve(store, user_id, args.query, top_k=args.top_k))
    _print(args, frame.to_dict(orient="records"), frame[["id", "user_id", "content", "score"]])


def cmd_ask(args) -> None:
    from memlab.answer import answer

    user_id = _user(args)
    with _store(args.db) as store:
        result = answer(store, user_id, args.question, backend=args.backend)
    _print(args, {"answer": result.text, "memory_ids": result.memory_ids,
                  "input_tokens": result.input_tokens}, result.text)


def cmd_layers(args) -> None:
    user_id = _user(args)
    with _store(args.db) as store:
        pages, injected = store.page(user_id), store.injected(user_id)
    data = {"pages": pages.to_dict(orient="records"), "injected": injected.to_dict(orient="records")}
    text = "pages:\n" + ("(none)" if pages.empty else pages.to_string(index=False))
    text += "\n\ninjected:\n" + ("(none)" if injected.empty else injected.to_string(index=False))
    _print(args, data, text)


def cmd_delete(args) -> None:
    from memlab import forget

    user_id = _user(args)
    if bool(args.memory) == bool(args.about):
        raise MemlabError("give exactly one of --memory ID or --about TEXT")
    with _store(args.db) as store:
        if args.memory:
            done = forget.delete_memory(store, user_id, args.memory, actor="cli")
        else:
            done = forget.delete_about(store, user_id, args.about, actor="cli")
    data = {"deleted": done.memory_ids, "tombstoned": done.tombstoned}
    _print(args, data, f"deleted {', '.join(done.memory_ids)}; "
                       f"tombstoned {', '.join(done.tombstoned) or 'no turns'}")


def cmd_dream(args) -> None:
    from memlab.pipeline import dream

    with _store(args.db) as store:
        report = dream(store, args.user or None, backend=args.backend)
    _print(args, report.summary(), f"re-consolidated {report.sessions} sessions: "
                                   f"{dict(sorted(report.ops.items()))}")


def cmd_audit(args) -> None:
    from memlab.forget import audit

    user_id = _user(args)
    with _store(args.db) as store:
        hits = audit(store, user_id, args.text)
    _print(args, {"text": args.text, "hits": hits.to_dict(orient="records")}, hits)


def cmd_eval(args) -> None:
    from memlab.evaluate import eval_command, format_table

    systems = [s.strip() for s in args.systems.split(",") if s.strip()]
    result = eval_command(args.dataset, args.set, systems, args.backend or "offline")
    _print(args, result, format_table(result))


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="memlab", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)

    def command(name: str, func, help_text: str, db: bool = True, user: bool = False):
        p = sub.add_parser(name, help=help_text)
        if db:
            p.add_argument("--db", required=True, help="DuckDB file")
        if user:
            p.add_argument("--user", help="the user whose memories to read (required)")
        p.add_argument("--format", choices=FORMATS, default="table")
        p.set_defaults(func=func)
        return p

    p = command("ingest", cmd_ingest, "load a dataset and run the write path")
    p.add_argument("dataset", help="dataset folder (dataset.yaml, questions.yaml, answer_key.yaml)")
    p.add_argument("--backend", choices=("offline", "openai"))
    command("users", cmd_users, "list user ids (instructor view)")
    p = command("memories", cmd_memories, "a user's memories", user=True)
    p.add_argument("--status", default="active",
                   help="active (default), all, superseded, quarantined, pending_confirmation, deleted")
    p = command("search", cmd_search, "retrieve a user's memories for a query", user=True)
    p.add_argument("--query", required=True)
    p.add_argument("--top-k", type=int, default=5)
    p = command("ask", cmd_ask, "answer a question from a user's memories", user=True)
    p.add_argument("--question", required=True)
    p.add_argument("--backend", choices=("offline", "openai"))
    command("layers", cmd_layers, "a user's pages and injected context", user=True)
    p = command("delete", cmd_delete, "delete memories across every layer", user=True)
    p.add_argument("--memory", help="memory id, e.g. m4")
    p.add_argument("--about", help="what to forget, e.g. 我在哪裡上班")
    p = command("dream", cmd_dream, "re-consolidate from transcripts (skips tombstones)", user=True)
    p.add_argument("--backend", choices=("offline", "openai"))
    p = command("audit", cmd_audit, "every place a text still appears, in every layer", user=True)
    p.add_argument("--text", required=True)
    p = command("eval", cmd_eval, "answer a question set with several systems and judge", db=False)
    p.add_argument("--dataset", required=True)
    p.add_argument("--set", default=None, help="question set (default: all questions)")
    p.add_argument("--systems", default="no_memory,full_context,memory")
    p.add_argument("--backend", choices=("offline", "openai"))
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        args.func(args)
    except MemlabError as exc:
        print(f"memlab {args.command}: error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
