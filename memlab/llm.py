"""Transport to any OpenAI-compatible server: settings, client, structured output, retries.

Everything here is about getting one validated pydantic object back from a chat model, or a
clear `LLMError`. What to ask and what to do with the answer lives in `prompts.py` and
`llm_backend.py`.
"""

from __future__ import annotations

import copy
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

import openai
from pydantic import BaseModel, ValidationError

from memlab.errors import LLMError

T = TypeVar("T", bound=BaseModel)

BACKENDS = ("offline", "openai")
DEFAULT_MODEL = "gpt-4o-mini"
_SHOW = 300  # characters of a bad reply quoted in an error: enough to see what went wrong

_STAY_OFFLINE = "To stay offline instead, unset MEMLAB_BACKEND or set MEMLAB_BACKEND=offline."


@dataclass(frozen=True)
class Settings:
    """LLM configuration; `Settings.from_env()` reads the MEMLAB_* and OPENAI_* variables."""

    backend: str = "offline"
    api_key: str | None = None
    base_url: str | None = None
    model: str = DEFAULT_MODEL
    timeout: float = 30.0
    retries: int = 2

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Settings:
        """Settings from the environment (or `environ`); a bad value raises LLMError naming it."""
        env = os.environ if environ is None else environ
        backend = (env.get("MEMLAB_BACKEND") or "offline").strip().lower()
        if backend not in BACKENDS:
            raise LLMError(f"MEMLAB_BACKEND={backend!r} is not one of {', '.join(BACKENDS)}.")
        return cls(
            backend=backend,
            api_key=env.get("OPENAI_API_KEY") or None,
            base_url=env.get("OPENAI_BASE_URL") or None,
            model=env.get("MEMLAB_MODEL") or DEFAULT_MODEL,
            timeout=_number(env, "MEMLAB_LLM_TIMEOUT", 30.0, float, minimum=0.1),
            retries=_number(env, "MEMLAB_LLM_RETRIES", 2, int, minimum=0),
        )


def _number(env: Mapping[str, str], name: str, default: Any, kind: type, *, minimum: float) -> Any:
    raw = env.get(name)
    if not raw:
        return default
    try:
        value = kind(raw)
    except ValueError:
        raise LLMError(f"{name}={raw!r} is not a {kind.__name__}.") from None
    if value < minimum:
        raise LLMError(f"{name}={raw!r} must be at least {minimum}.")
    return value


def backend() -> str:
    """The active backend name from MEMLAB_BACKEND: 'offline' (default) or 'openai'."""
    return Settings.from_env().backend


def get_client(settings: Settings | None = None) -> openai.OpenAI:
    """An `openai.OpenAI` client for `settings`; LLMError saying what to set if no key."""
    settings = settings or Settings.from_env()
    if not settings.api_key:
        raise LLMError(
            "MEMLAB_BACKEND=openai needs an API key: set OPENAI_API_KEY. For a local "
            "OpenAI-compatible server (llama.cpp, vLLM, Ollama) also set OPENAI_BASE_URL, e.g. "
            "http://127.0.0.1:8080/v1; any non-empty key works there. " + _STAY_OFFLINE
        )
    # max_retries=0: the SDK's own retries would multiply the timeout and hide failures;
    # `structured` decides what is worth retrying.
    return openai.OpenAI(
        api_key=settings.api_key,
        base_url=settings.base_url,
        timeout=settings.timeout,
        max_retries=0,
    )


def strict_schema(schema: type[BaseModel]) -> dict[str, Any]:
    """`schema.model_json_schema()` made acceptable to `strict: true` structured output."""
    return _strictify(copy.deepcopy(schema.model_json_schema()))


def _strictify(node: Any) -> Any:
    # Strict mode wants every object closed, every property required (optional fields are
    # expressed as nullable instead) and no `default` keywords.
    if isinstance(node, list):
        return [_strictify(item) for item in node]
    if not isinstance(node, dict):
        return node
    node.pop("default", None)
    if node.get("type") == "object" or "properties" in node:
        node["additionalProperties"] = False
        node["required"] = list(node.get("properties", {}))
    for key, value in node.items():
        if key == "properties" or key == "$defs":
            node[key] = {name: _strictify(sub) for name, sub in value.items()}
        elif isinstance(value, (dict, list)):
            node[key] = _strictify(value)
    return node


def _clip(text: str | None) -> str:
    text = "" if text is None else text
    return text if len(text) <= _SHOW else text[:_SHOW] + f"… ({len(text)} chars)"


def _unfence(text: str) -> str:
    # Some local servers wrap JSON in a ```json fence even in json_schema mode.
    stripped = text.strip()
    if stripped.startswith("```") and stripped.endswith("```"):
        stripped = stripped[3:-3]
        return stripped[4:] if stripped.startswith("json") else stripped
    return text


def structured(
    messages: list[dict[str, str]],
    schema: type[T],
    *,
    settings: Settings | None = None,
    client: openai.OpenAI | None = None,
) -> T:
    """One chat completion parsed into `schema`; bounded retries on bad output, else LLMError."""
    settings = settings or Settings.from_env()
    client = client or get_client(settings)
    where = settings.base_url or "the OpenAI API"
    response_format = {
        "type": "json_schema",
        "json_schema": {"name": schema.__name__, "schema": strict_schema(schema), "strict": True},
    }
    attempts = settings.retries + 1
    conversation = list(messages)
    problem, reply = "", ""
    for _ in range(attempts):
        try:
            response = client.chat.completions.create(
                model=settings.model,
                messages=conversation,  # type: ignore[arg-type]
                response_format=response_format,  # type: ignore[arg-type]
                temperature=0,
                timeout=settings.timeout,
            )
        except openai.APITimeoutError:
            # Not retried: a slow server stays slow, and the notebook must not hang.
            raise LLMError(
                f"LLM request to {where} timed out after {settings.timeout:g}s "
                f"(MEMLAB_LLM_TIMEOUT); nothing was written. {_STAY_OFFLINE}"
            ) from None
        except openai.APIConnectionError as exc:
            raise LLMError(
                f"Could not reach the LLM server at {where} ({exc}); check OPENAI_BASE_URL. "
                + _STAY_OFFLINE
            ) from None
        except openai.InternalServerError as exc:  # 5xx: may be transient, worth a retry
            problem, reply = f"server error {exc.status_code}", str(exc)
            continue
        except openai.APIStatusError as exc:  # 4xx: retrying will not fix a bad key or model
            raise LLMError(
                f"LLM server at {where} refused the request with HTTP {exc.status_code}: "
                f"{_clip(str(exc))}. Check OPENAI_API_KEY, MEMLAB_MODEL and that the server "
                f"supports json_schema response_format; nothing was written."
            ) from None
        except (json.JSONDecodeError, openai.APIResponseValidationError) as exc:
            problem, reply = "the response body was not a chat completion", str(exc)
            continue
        choice = response.choices[0] if response.choices else None
        if choice is not None and getattr(choice.message, "refusal", None):
            raise LLMError(f"The model refused: {_clip(choice.message.refusal)}")
        reply = (choice.message.content if choice else None) or ""
        try:
            return schema.model_validate_json(_unfence(reply))
        except ValidationError as exc:
            first = exc.errors()[0]
            place = ".".join(str(p) for p in first["loc"]) or "(top level)"
            problem = f"{exc.error_count()} problem(s), first at {place}: {first['msg']}"
        # Feed the error back: a real model usually fixes its JSON when told what was wrong.
        conversation = [
            *messages,
            {"role": "assistant", "content": reply},
            {
                "role": "user",
                "content": f"Invalid reply ({problem}). Reply again with JSON "
                f"matching the {schema.__name__} schema exactly, nothing else.",
            },
        ]
    raise LLMError(
        f"The LLM at {where} gave no valid {schema.__name__} in {attempts} attempt(s) "
        f"(MEMLAB_LLM_RETRIES={settings.retries}): {problem}. Last reply: {_clip(reply)!r}. "
        f"Nothing was written."
    )
