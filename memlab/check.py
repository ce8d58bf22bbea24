"""Self-checks for the notebooks' exercises: ``memlab.check("00.1", fn)``.

Each exercise is registered (in ``memlab/exercises/``) with a reference implementation and
test cases. `check` runs the student's function on every case and compares it with the
reference:

- ✓ when all cases agree: the student's function is returned and the notebook uses it;
- ✗ with the first disagreeing case (input, expected, got) and a hint, when one differs;
- a note when the function still raises ``NotImplementedError``.

In the last two cases the reference implementation is returned, so a student notebook
runs top to bottom unsolved. With ``MEMLAB_STRICT=1`` (for graders) anything but ✓ raises.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Exercise:
    id: str
    reference: Callable
    cases: list[tuple] = field(default_factory=list)  # each case: the positional arguments
    hint: str = ""
    same: Callable[[Any, Any], bool] = lambda got, expected: got == expected


REGISTRY: dict[str, Exercise] = {}


def register(exercise_id: str, reference: Callable, cases: list[tuple], hint: str = "",
             same: Callable[[Any, Any], bool] | None = None) -> Exercise:
    """Add an exercise; its cases are tuples of positional arguments."""
    exercise = Exercise(exercise_id, reference, list(cases), hint)
    if same is not None:
        exercise.same = same
    REGISTRY[exercise_id] = exercise
    return exercise


def _strict() -> bool:
    return os.environ.get("MEMLAB_STRICT", "") not in ("", "0")


def _fail(message: str, exercise: Exercise) -> Callable:
    print(message)
    if exercise.hint:
        print(f"  提示:{exercise.hint}")
    if _strict():
        raise AssertionError(message)
    print("  (接下來的儲存格先用參考解繼續。)")
    return exercise.reference


def check(exercise_id: str, fn: Callable) -> Callable:
    """Check `fn` against exercise `exercise_id`; return the function the notebook should use."""
    from memlab import exercises  # noqa: F401  (registers every exercise)

    if exercise_id not in REGISTRY:
        raise KeyError(f"no exercise {exercise_id!r}; known: {sorted(REGISTRY)}")
    exercise = REGISTRY[exercise_id]
    for args in exercise.cases:
        expected = exercise.reference(*args)
        try:
            got = fn(*args)
        except NotImplementedError:
            message = f"… 練習 {exercise_id} 還沒完成(函式仍是 NotImplementedError)。"
            if _strict():
                raise AssertionError(message) from None
            print(message + "先用參考解繼續。")
            return exercise.reference
        except Exception as exc:  # a student's bug must not stop the notebook
            return _fail(f"✗ 練習 {exercise_id}:輸入 {args!r} 時發生 {type(exc).__name__}: {exc}",
                         exercise)
        if not exercise.same(got, expected):
            return _fail(f"✗ 練習 {exercise_id}:輸入 {args!r}\n  期望:{expected!r}\n  得到:{got!r}",
                         exercise)
    print(f"✓ 練習 {exercise_id}:{len(exercise.cases)} 個測試都通過。")
    return fn
